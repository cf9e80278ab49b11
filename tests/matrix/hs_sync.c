/*
 * hs_sync.c - /sync for any user of the test homeserver: rooms joined,
 * invited and left, limited timelines with prev_batch, account data, and
 * (from hs_keys.c) to-device messages and device keys; then varied as the
 * specification allows, from the seed: empty sections left out, optional
 * fields dropped, unknown fields added, timelines cut short, a stale copy of
 * an earlier initial sync.
 *
 * Tokens are "s<room stream>_<to-device stream>"; prev_batch tokens are
 * "s<room stream>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_internal.h"

static bool parse_token(const char *t, long *pos, long *td)
{
    if (!t || t[0] != 's')
        return false;
    char *end;
    *pos = strtol(t + 1, &end, 10);
    if (end == t + 1 || *end != '_')
        return false;
    const char *p = end + 1;
    *td = strtol(p, &end, 10);
    return end != p && *end == '\0';
}

bool hs_type_ok(struct json_object *types, const char *type)
{
    if (!types || !json_object_is_type(types, json_type_array))
        return true;
    for (size_t i = 0; i < json_object_array_length(types); i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(types, i)), type) == 0)
            return true;
    return false;
}

static struct json_object *state_list(struct json_object *room, struct json_object *types)
{
    struct json_object *a = json_object_new_array();
    json_object_object_foreach(hs_iter(hs_jget(room, "state")), k, ev)
    {
        (void)k;
        if (hs_type_ok(types, hs_jstr(ev, "type")))
            json_object_array_add(a, json_object_get(ev));
    }
    return a;
}

/* The index of the first log entry after stream position since (positions only grow). */
static size_t log_after(struct hs *hs, long since)
{
    size_t lo = 0, hi = json_object_array_length(hs->log);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        long p =
            (long)json_object_get_int64(hs_jget(json_object_array_get_idx(hs->log, mid), "pos"));
        if (p <= since)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Stripped state of an invite: Synapse's default room_prejoin_state types, the invite. */
static struct json_object *invite_state(struct json_object *room, const char *user)
{
    static const char *const types[] = {
        "m.room.join_rules", "m.room.canonical_alias", "m.room.avatar", "m.room.encryption",
        "m.room.name",       "m.room.create",          "m.room.topic"};
    struct json_object *evs = json_object_new_array();
    json_object_object_foreach(hs_iter(hs_jget(room, "state")), k, ev)
    {
        (void)k;
        const char *t = hs_jstr(ev, "type");
        const char *sk = hs_jstr(ev, "state_key");
        bool keep = strcmp(t, "m.room.member") == 0 && strcmp(sk, user) == 0;
        for (size_t i = 0; !keep && i < sizeof(types) / sizeof(types[0]); i++)
            keep = strcmp(t, types[i]) == 0 && !*sk;
        if (!keep)
            continue;
        struct json_object *s = json_object_new_object();
        json_object_object_add(s, "type", json_object_new_string(t));
        json_object_object_add(s, "state_key", json_object_new_string(sk));
        json_object_object_add(s, "sender", json_object_new_string(hs_jstr(ev, "sender")));
        json_object_object_add(s, "content", json_object_get(hs_jget(ev, "content")));
        json_object_array_add(evs, s);
    }
    struct json_object *is = json_object_new_object();
    json_object_object_add(is, "events", evs);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "invite_state", is);
    return r;
}

struct sync_args {
    const char *user;
    long since; /* -1: initial */
    size_t start;
    int limit;
    struct json_object *ttypes, *stypes;
};

/* A joined room's section, or NULL when it has nothing new. */
static struct json_object *joined_room(struct hs *hs, struct sync_args *a, const char *rid,
                                       struct json_object *room, bool fresh)
{
    bool initial = a->since < 0;
    struct json_object *evs = json_object_new_array();
    for (size_t i = a->start; i < json_object_array_length(hs->log); i++) {
        struct json_object *e = json_object_array_get_idx(hs->log, i);
        if (strcmp(hs_jstr(e, "room"), rid) == 0 &&
            hs_type_ok(a->ttypes, hs_jstr(hs_jget(e, "event"), "type")))
            json_object_array_add(evs, json_object_get(e));
    }
    size_t n = json_object_array_length(evs);
    if (!fresh && n == 0) {
        json_object_put(evs);
        return NULL;
    }
    size_t first = n > (size_t)a->limit ? n - (size_t)a->limit : 0;
    struct json_object *tl = json_object_new_array();
    for (size_t i = first; i < n; i++)
        json_object_array_add(tl,
                              json_object_get(hs_jget(json_object_array_get_idx(evs, i), "event")));
    long prev = a->since < 0 ? 0 : a->since;
    if (first < n)
        prev =
            (long)json_object_get_int64(hs_jget(json_object_array_get_idx(evs, first), "pos")) - 1;
    else if (initial)
        prev = hs->pos;
    struct json_object *state;
    if (fresh) {
        state = state_list(room, a->stypes);
    } else {
        state = json_object_new_array();
        for (size_t i = 0; i < first; i++) {
            struct json_object *ev = hs_jget(json_object_array_get_idx(evs, i), "event");
            if (hs_jget(ev, "state_key") && hs_type_ok(a->stypes, hs_jstr(ev, "type")))
                json_object_array_add(state, json_object_get(ev));
        }
    }
    json_object_put(evs);
    char pb[32];
    snprintf(pb, sizeof(pb), "s%ld", prev);
    struct json_object *t = json_object_new_object();
    json_object_object_add(t, "events", tl);
    json_object_object_add(t, "limited", json_object_new_boolean(first > 0));
    json_object_object_add(t, "prev_batch", json_object_new_string(pb));
    struct json_object *s = json_object_new_object();
    json_object_object_add(s, "events", state);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "timeline", t);
    json_object_object_add(r, "state", s);
    return r;
}

static struct json_object *rooms_section(struct hs *hs, struct sync_args *a, bool *changes)
{
    bool initial = a->since < 0;
    struct json_object *join = json_object_new_object();
    struct json_object *invite = json_object_new_object();
    struct json_object *leave = json_object_new_object();
    json_object_object_foreach(hs->rooms, rid, room)
    {
        const char *ms = hs_jstr(hs_jget(room, "members"), a->user);
        struct json_object *mp = hs_jget(hs_jget(room, "pos"), a->user);
        long mpos = mp ? (long)json_object_get_int64(mp) : 0;
        if (!ms)
            continue;
        if (strcmp(ms, "invite") == 0) {
            if (initial || mpos > a->since) {
                json_object_object_add(invite, rid, invite_state(room, a->user));
                *changes = true;
            }
            continue;
        }
        if (strcmp(ms, "join") != 0) {
            if (!initial && mpos > a->since) {
                json_object_object_add(leave, rid, json_object_new_object());
                *changes = true;
            }
            continue;
        }
        struct json_object *r = joined_room(hs, a, rid, room, initial || mpos > a->since);
        if (r) {
            json_object_object_add(join, rid, r);
            if (!initial)
                *changes = true;
        }
    }
    struct json_object *rooms = json_object_new_object();
    json_object_object_add(rooms, "join", join);
    json_object_object_add(rooms, "invite", invite);
    json_object_object_add(rooms, "leave", leave);
    return rooms;
}

static struct json_object *account_data(struct hs *hs, const char *user, long since, bool *changes)
{
    struct json_object *ad = json_object_new_array();
    json_object_object_foreach(hs_iter(hs_jget(hs->account_data, user)), type, entry)
    {
        if (since >= 0 && json_object_get_int64(hs_jget(entry, "pos")) <= since)
            continue;
        struct json_object *ev = json_object_new_object();
        json_object_object_add(ev, "type", json_object_new_string(type));
        json_object_object_add(ev, "content", json_object_get(hs_jget(entry, "content")));
        json_object_array_add(ad, ev);
        *changes = true;
    }
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "events", ad);
    return o;
}

static int vary_limit(struct hs *hs, int limit);

static struct json_object *build_sync(struct hs *hs, const char *user, const char *device,
                                      long since, long since_td, struct json_object *filter,
                                      bool *changes)
{
    struct json_object *rf = hs_jget(filter, "room");
    struct json_object *tf = hs_jget(rf, "timeline");
    struct sync_args a = {
        .user = user,
        .since = since,
        .start = log_after(hs, since),
        .ttypes = hs_jget(tf, "types"),
        .stypes = hs_jget(hs_jget(rf, "state"), "types"),
    };
    a.limit = hs_jget(tf, "limit") ? json_object_get_int(hs_jget(tf, "limit")) : 10;
    if (hs->max_timeline > 0 && a.limit > hs->max_timeline)
        a.limit = hs->max_timeline;
    if (since >= 0)
        a.limit = vary_limit(hs, a.limit);
    *changes = false;
    struct json_object *out = json_object_new_object();
    json_object_object_add(out, "rooms", rooms_section(hs, &a, changes));
    json_object_object_add(out, "account_data", account_data(hs, user, since, changes));
    long next_td = since_td;
    hs_sync_keys(hs, out, user, device, since, since_td, &next_td, changes);
    char nb[48];
    snprintf(nb, sizeof(nb), "s%ld_%ld", hs->pos, next_td);
    json_object_object_add(out, "next_batch", json_object_new_string(nb));
    return out;
}

/* ---- variation: what the specification allows a homeserver to leave out or add ---- */

static bool is_empty(struct json_object *v)
{
    if (json_object_is_type(v, json_type_object))
        return json_object_object_length(v) == 0;
    if (json_object_is_type(v, json_type_array))
        return json_object_array_length(v) == 0;
    return false;
}

/* Drops key from o, sometimes, when its value is empty (or, for a section, has empty events). */
static void maybe_drop_empty(struct hs *hs, struct json_object *o, const char *key)
{
    struct json_object *v = hs_jget(o, key);
    if (!v)
        return;
    bool empty = is_empty(v) ||
                 (json_object_is_type(v, json_type_object) && json_object_object_length(v) == 1 &&
                  hs_jget(v, "events") && is_empty(hs_jget(v, "events")));
    if (empty && hs_chance(hs, 2))
        json_object_object_del(o, key);
}

static void maybe_add_unknown(struct hs *hs, struct json_object *o)
{
    if (!hs_chance(hs, 3))
        return;
    struct json_object *u = json_object_new_object();
    json_object_object_add(u, "n", json_object_new_int((int)(hs_rnd(hs) % 1000)));
    json_object_object_add(u, "list", json_object_new_array());
    json_object_object_add(o, "org.example.unknown", u);
}

static void vary_room(struct hs *hs, struct json_object *room)
{
    struct json_object *tl = hs_jget(room, "timeline");
    struct json_object *lim = hs_jget(tl, "limited");
    if (lim && !json_object_get_boolean(lim) && hs_chance(hs, 2))
        json_object_object_del(tl, "limited");
    if (tl && !hs_jget(tl, "limited") && hs_chance(hs, 3))
        json_object_object_del(tl, "prev_batch"); /* optional; only needed to fill a gap */
    maybe_drop_empty(hs, room, "state");
    maybe_drop_empty(hs, room, "timeline");
    if (hs_chance(hs, 3)) {
        struct json_object *un = json_object_new_object();
        json_object_object_add(un, "highlight_count", json_object_new_int(0));
        json_object_object_add(un, "notification_count", json_object_new_int(1));
        json_object_object_add(room, "unread_notifications", un);
    }
    if (hs_chance(hs, 4)) {
        struct json_object *eph = json_object_new_object();
        json_object_object_add(eph, "events", json_object_new_array());
        json_object_object_add(room, "ephemeral", eph);
    }
    maybe_add_unknown(hs, room);
    struct json_object *evs = hs_jget(tl, "events");
    for (size_t i = 0; evs && i < json_object_array_length(evs); i++) {
        struct json_object *ev = json_object_array_get_idx(evs, i);
        if (!hs_jget(ev, "unsigned") && hs_chance(hs, 3)) {
            struct json_object *u = json_object_new_object();
            json_object_object_add(u, "age", json_object_new_int((int)(hs_rnd(hs) % 5000)));
            json_object_object_add(ev, "unsigned", u);
        }
    }
}

/* The end-to-end sections: Synapse always sends the key counts and fallback types and omits
 * empty to_device and device_lists; the specification makes all of them optional. */
static void vary_keys(struct hs *hs, struct json_object *out)
{
    maybe_drop_empty(hs, out, "to_device");
    struct json_object *dl = hs_jget(out, "device_lists");
    maybe_drop_empty(hs, dl, "changed");
    maybe_drop_empty(hs, dl, "left");
    maybe_drop_empty(hs, out, "device_lists");
    struct json_object *counts = hs_jget(out, "device_one_time_keys_count");
    struct json_object *zero = hs_jget(counts, "signed_curve25519");
    if (zero && json_object_get_int(zero) == 0 && hs_chance(hs, 2))
        json_object_object_del(counts, "signed_curve25519");
    if (hs_chance(hs, 6))
        json_object_object_del(out, "device_one_time_keys_count");
    if (hs_jget(out, "device_unused_fallback_key_types") && hs_chance(hs, 2))
        json_object_object_add(out, "org.matrix.msc2732.device_unused_fallback_key_types",
                               json_object_get(hs_jget(out, "device_unused_fallback_key_types")));
}

/* Varies a sync answer as a real homeserver may. The events are shared with the log, so
 * only copies are changed. */
static struct json_object *vary_sync(struct hs *hs, struct json_object *r)
{
    struct json_object *out = NULL;
    if (json_object_deep_copy(r, &out, NULL) != 0)
        return r;
    json_object_put(r);
    struct json_object *rooms = hs_jget(out, "rooms");
    json_object_object_foreach(hs_iter(hs_jget(rooms, "join")), rid, room)
    {
        (void)rid;
        vary_room(hs, room);
    }
    maybe_drop_empty(hs, rooms, "join");
    maybe_drop_empty(hs, rooms, "invite");
    maybe_drop_empty(hs, rooms, "leave");
    maybe_drop_empty(hs, out, "rooms");
    maybe_drop_empty(hs, out, "account_data");
    vary_keys(hs, out);
    maybe_add_unknown(hs, out);
    return out;
}

/* The timeline limit of one sync: sometimes lower than asked, so timelines come limited. */
static int vary_limit(struct hs *hs, int limit)
{
    return limit > 2 && hs_chance(hs, 4) ? 1 + (int)(hs_rnd(hs) % 2) : limit;
}

struct json_object *hs_sync_parked(struct hs *hs, const char *user, const char *device, long since,
                                   long since_td, struct json_object *filter, bool timed_out)
{
    bool changes;
    struct json_object *r = build_sync(hs, user, device, since, since_td, filter, &changes);
    if (changes || timed_out)
        return vary_sync(hs, r);
    json_object_put(r);
    return NULL;
}

void hs_sync(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    const char *f = hs_jstr(rq->query, "filter");
    struct json_object *filter = NULL;
    if (f && f[0] == '{')
        filter = json_tokener_parse(f);
    else if (f)
        filter = json_object_get(hs_jget(hs->filters, f));
    if (f && !filter) {
        hs_error(rs, 400, "M_INVALID_PARAM", "unknown filter");
        return;
    }
    const char *st = hs_jstr(rq->query, "since");
    long since = -1, since_td = 0;
    if (st && (!parse_token(st, &since, &since_td) || since < 0 || since > hs->pos ||
               since_td < 0 || since_td > hs->td)) {
        json_object_put(filter);
        hs_error(rs, 400, "M_INVALID_PARAM", "bad since token");
        return;
    }
    if (since >= 0 && strcmp(rq->user, HS_BOT) == 0)
        json_object_array_add(hs->bot_since, json_object_new_int64(since));
    const char *ts = hs_jstr(rq->query, "timeout");
    long timeout = ts ? atol(ts) : 0;
    bool changes;
    struct json_object *r = build_sync(hs, rq->user, rq->device, since, since_td, filter, &changes);
    bool bot = strcmp(rq->user, HS_BOT) == 0;
    if (since < 0 && bot) {
        /* An initial sync may be a cached copy of an earlier one (homeservers cache identical
         * sync requests): stale, but with a valid token to continue from. */
        if (hs->last_initial && hs_chance(hs, 2)) {
            json_object_put(r);
            r = json_object_get(hs->last_initial);
        } else {
            json_object_put(hs->last_initial);
            hs->last_initial = json_object_get(r);
        }
    }
    if (changes || since < 0 || timeout <= 0) {
        json_object_put(filter);
        hs_reply(rs, 200, vary_sync(hs, json_object_get(r)));
        json_object_put(r);
        return;
    }
    json_object_put(r);
    rs->park = true;
    rs->since = since;
    rs->since_td = since_td;
    rs->filter = filter;
    rs->deadline = hs_now_ms() + (uint64_t)timeout;
}
