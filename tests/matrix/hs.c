/*
 * hs.c - the test homeserver: HTTP/1.1 with keep-alive on libuv, and the
 * client-server endpoints the Matrix adapter calls, with a single event
 * stream ("s<pos>" tokens), long-polled /sync, limited timelines with
 * prev_batch, /messages back-pagination, idempotent transaction ids, and
 * fault injection.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <json-c/json.h>
#include <uv.h>

#include "hs.h"

#define PREFIX     "/_matrix/client/v3/"
#define MAX_BODY   (1u << 20)
#define MAX_HEADER (64u << 10)

struct conn {
    uv_tcp_t tcp;
    struct hs *hs;
    struct conn *next;
    char *buf;
    size_t len, cap;
    bool closing;
    bool lose_reply; /* handle the request, then close instead of answering */
    bool hold_reply; /* handle the request, then never answer */
    /* A parked /sync. */
    bool parked;
    long since;
    struct json_object *filter;
    uint64_t deadline;
};

struct hs {
    uv_loop_t loop;
    uv_tcp_t server;
    uv_async_t wake;
    uv_timer_t tick;
    uv_thread_t thread;
    uv_mutex_t mu;
    bool running;
    int port;
    char url[64];
    struct conn *conns;

    struct json_object *log;    /* [{"pos","room","event"}] */
    struct json_object *rooms;  /* id -> {"state":{type|key: ev},"members":{},"pos":{}} */
    struct json_object *direct; /* the bot's m.direct */
    long direct_pos;
    struct json_object *filters;  /* id -> filter */
    struct json_object *txns;     /* device|txn -> event id */
    struct json_object *tokens;   /* token -> device id */
    struct json_object *requests; /* [{"line","body"}] */
    struct json_object *faults;   /* [{"substr","status","body","header","count"}] */
    long pos;
    int next_room, next_event, next_filter, next_login;
    int max_timeline;
    bool soft_logout;
    bool dirty; /* the stream moved: parked syncs may have something to say */
    /* Variation of what the specification leaves open, from a printed seed. */
    uint64_t seed, rng;
    struct json_object *last_initial; /* an earlier initial sync, served again as a stale copy */
};

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *jstr(struct json_object *o, const char *k)
{
    struct json_object *v;
    if (o && json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

static struct json_object *jget(struct json_object *o, const char *k)
{
    struct json_object *v;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* ---- the event store (call with mu held) ---- */

static struct json_object *room_of(struct hs *hs, const char *id)
{
    return jget(hs->rooms, id);
}

static const char *membership(struct hs *hs, const char *room, const char *user)
{
    return jstr(jget(room_of(hs, room), "members"), user);
}

static char *add_event(struct hs *hs, const char *room, const char *sender, const char *type,
                       const char *state_key, struct json_object *content)
{
    struct json_object *r = room_of(hs, room);
    if (!r) {
        json_object_put(content);
        return NULL;
    }
    char id[64];
    snprintf(id, sizeof(id), "$e%d", ++hs->next_event);
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "type", json_object_new_string(type));
    json_object_object_add(ev, "sender", json_object_new_string(sender));
    json_object_object_add(ev, "event_id", json_object_new_string(id));
    json_object_object_add(ev, "origin_server_ts", json_object_new_int64((int64_t)now_ms()));
    json_object_object_add(ev, "content", content);
    if (state_key)
        json_object_object_add(ev, "state_key", json_object_new_string(state_key));
    hs->pos++;
    hs->dirty = true;
    struct json_object *entry = json_object_new_object();
    json_object_object_add(entry, "pos", json_object_new_int64(hs->pos));
    json_object_object_add(entry, "room", json_object_new_string(room));
    json_object_object_add(entry, "event", ev);
    json_object_array_add(hs->log, entry);
    if (state_key) {
        char k[512];
        snprintf(k, sizeof(k), "%s|%s", type, state_key);
        json_object_object_add(jget(r, "state"), k, json_object_get(ev));
        if (strcmp(type, "m.room.member") == 0) {
            const char *ms = jstr(content, "membership");
            json_object_object_add(jget(r, "members"), state_key,
                                   json_object_new_string(ms ? ms : "leave"));
            json_object_object_add(jget(r, "pos"), state_key, json_object_new_int64(hs->pos));
        }
    }
    return strdup(id);
}

static struct json_object *member_content(const char *ms)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "membership", json_object_new_string(ms));
    return c;
}

static char *new_room(struct hs *hs, const char *creator, bool encrypted)
{
    char id[64];
    snprintf(id, sizeof(id), "!r%d:test.local", ++hs->next_room);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "state", json_object_new_object());
    json_object_object_add(r, "members", json_object_new_object());
    json_object_object_add(r, "pos", json_object_new_object());
    json_object_object_add(hs->rooms, id, r);
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "creator", json_object_new_string(creator));
    free(add_event(hs, id, creator, "m.room.create", "", c));
    free(add_event(hs, id, creator, "m.room.member", creator, member_content("join")));
    struct json_object *pl = json_object_new_object();
    struct json_object *users = json_object_new_object();
    json_object_object_add(users, creator, json_object_new_int(100));
    json_object_object_add(pl, "users", users);
    json_object_object_add(pl, "users_default", json_object_new_int(0));
    free(add_event(hs, id, creator, "m.room.power_levels", "", pl));
    if (encrypted) {
        struct json_object *e = json_object_new_object();
        json_object_object_add(e, "algorithm", json_object_new_string("m.megolm.v1.aes-sha2"));
        free(add_event(hs, id, creator, "m.room.encryption", "", e));
    }
    return strdup(id);
}

/* ---- HTTP plumbing ---- */

static void on_closed(uv_handle_t *h)
{
    struct conn *c = h->data;
    json_object_put(c->filter);
    free(c->buf);
    free(c);
}

static void conn_close(struct conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    struct hs *hs = c->hs;
    for (struct conn **pp = &hs->conns; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    uv_close((uv_handle_t *)&c->tcp, on_closed);
}

static void on_written(uv_write_t *w, int status)
{
    (void)status;
    free(w->data);
    free(w);
}

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 502:
        return "Bad Gateway";
    default:
        return "Status";
    }
}

static void respond_raw(struct conn *c, int status, const char *body, const char *header)
{
    if (c->hold_reply) {
        c->hold_reply = false;
        return;
    }
    if (c->lose_reply) {
        c->lose_reply = false;
        conn_close(c);
        return;
    }
    size_t bl = strlen(body);
    size_t n = bl + 512 + (header ? strlen(header) : 0);
    char *out = malloc(n);
    uv_write_t *w = malloc(sizeof(*w));
    if (!out || !w) {
        free(out);
        free(w);
        conn_close(c);
        return;
    }
    int hl = snprintf(out, n,
                      "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: "
                      "%zu\r\n%s%s\r\n",
                      status, reason(status), bl, header ? header : "", header ? "\r\n" : "");
    memcpy(out + hl, body, bl);
    uv_buf_t b = uv_buf_init(out, (unsigned)(hl + (int)bl));
    w->data = out;
    if (uv_write(w, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0) {
        free(out);
        free(w);
        conn_close(c);
    }
}

static void respond(struct conn *c, int status, struct json_object *body)
{
    respond_raw(c, status, json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN), NULL);
    json_object_put(body);
}

static void error(struct conn *c, int status, const char *code, const char *msg)
{
    struct json_object *b = json_object_new_object();
    json_object_object_add(b, "errcode", json_object_new_string(code));
    json_object_object_add(b, "error", json_object_new_string(msg));
    respond(c, status, b);
}

static int unhex(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = tolower(ch);
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

static char *url_decode(const char *s, size_t n, bool query)
{
    char *out = malloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && unhex(s[i + 1]) >= 0 && unhex(s[i + 2]) >= 0) {
            out[o++] = (char)(unhex(s[i + 1]) * 16 + unhex(s[i + 2]));
            i += 2;
        } else if (query && s[i] == '+') {
            out[o++] = ' ';
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    return out;
}

static struct json_object *parse_query(const char *q)
{
    struct json_object *o = json_object_new_object();
    while (q && *q) {
        size_t n = strcspn(q, "&");
        const char *eq = memchr(q, '=', n);
        if (eq) {
            char *k = url_decode(q, (size_t)(eq - q), true);
            char *v = url_decode(eq + 1, n - (size_t)(eq - q) - 1, true);
            json_object_object_add(o, k, json_object_new_string(v));
            free(k);
            free(v);
        }
        q += n;
        if (*q == '&')
            q++;
    }
    return o;
}

/* ---- /sync ---- */

static long token_pos(const char *t)
{
    if (!t || t[0] != 's')
        return -2;
    char *end;
    long v = strtol(t + 1, &end, 10);
    return *end == '\0' && end != t + 1 ? v : -2;
}

static bool type_ok(struct json_object *types, const char *type)
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
    json_object_object_foreach(jget(room, "state"), k, ev)
    {
        (void)k;
        if (type_ok(types, jstr(ev, "type")))
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
        long p = (long)json_object_get_int64(jget(json_object_array_get_idx(hs->log, mid), "pos"));
        if (p <= since)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int vary_limit(struct hs *hs, int limit);

static struct json_object *build_sync(struct hs *hs, long since, struct json_object *filter,
                                      bool *changes)
{
    size_t start = log_after(hs, since);
    bool initial = since < 0;
    struct json_object *rf = jget(filter, "room");
    struct json_object *tf = jget(rf, "timeline");
    struct json_object *sf = jget(rf, "state");
    struct json_object *ttypes = jget(tf, "types");
    struct json_object *stypes = jget(sf, "types");
    int limit = jget(tf, "limit") ? json_object_get_int(jget(tf, "limit")) : 10;
    if (hs->max_timeline > 0 && limit > hs->max_timeline)
        limit = hs->max_timeline;
    if (!initial)
        limit = vary_limit(hs, limit);
    *changes = false;

    struct json_object *join = json_object_new_object();
    struct json_object *invite = json_object_new_object();
    struct json_object *leave = json_object_new_object();
    json_object_object_foreach(hs->rooms, rid, room)
    {
        const char *ms = jstr(jget(room, "members"), HS_BOT);
        long mpos = jget(jget(room, "pos"), HS_BOT)
                        ? (long)json_object_get_int64(jget(jget(room, "pos"), HS_BOT))
                        : 0;
        if (!ms)
            continue;
        if (strcmp(ms, "invite") == 0) {
            if (!initial && mpos <= since)
                continue;
            struct json_object *evs = json_object_new_array();
            json_object_object_foreach(jget(room, "state"), k, ev)
            {
                (void)k;
                const char *t = jstr(ev, "type");
                const char *sk = jstr(ev, "state_key");
                if (strcmp(t, "m.room.create") == 0 ||
                    (strcmp(t, "m.room.member") == 0 && strcmp(sk, HS_BOT) == 0)) {
                    struct json_object *s = json_object_new_object();
                    json_object_object_add(s, "type", json_object_new_string(t));
                    json_object_object_add(s, "state_key", json_object_new_string(sk));
                    json_object_object_add(s, "sender", json_object_new_string(jstr(ev, "sender")));
                    json_object_object_add(s, "content", json_object_get(jget(ev, "content")));
                    json_object_array_add(evs, s);
                }
            }
            struct json_object *r = json_object_new_object();
            struct json_object *is = json_object_new_object();
            json_object_object_add(is, "events", evs);
            json_object_object_add(r, "invite_state", is);
            json_object_object_add(invite, rid, r);
            *changes = true;
            continue;
        }
        if (strcmp(ms, "join") != 0) {
            if (!initial && mpos > since) {
                json_object_object_add(leave, rid, json_object_new_object());
                *changes = true;
            }
            continue;
        }
        bool fresh = initial || mpos > since;
        struct json_object *evs = json_object_new_array();
        for (size_t i = start; i < json_object_array_length(hs->log); i++) {
            struct json_object *e = json_object_array_get_idx(hs->log, i);
            if (strcmp(jstr(e, "room"), rid) != 0)
                continue;
            if (!type_ok(ttypes, jstr(jget(e, "event"), "type")))
                continue;
            json_object_array_add(evs, json_object_get(e));
        }
        size_t n = json_object_array_length(evs);
        if (!fresh && n == 0) {
            json_object_put(evs);
            continue;
        }
        size_t first = n > (size_t)limit ? n - (size_t)limit : 0;
        struct json_object *tl = json_object_new_array();
        for (size_t i = first; i < n; i++)
            json_object_array_add(
                tl, json_object_get(jget(json_object_array_get_idx(evs, i), "event")));
        long prev = since < 0 ? 0 : since;
        if (first < n)
            prev =
                (long)json_object_get_int64(jget(json_object_array_get_idx(evs, first), "pos")) - 1;
        else if (initial)
            prev = hs->pos;
        struct json_object *state;
        if (fresh) {
            state = state_list(room, stypes);
        } else {
            state = json_object_new_array();
            for (size_t i = 0; i < first; i++) {
                struct json_object *ev = jget(json_object_array_get_idx(evs, i), "event");
                if (jget(ev, "state_key") && type_ok(stypes, jstr(ev, "type")))
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
        json_object_object_add(join, rid, r);
        if (!initial)
            *changes = true;
    }
    struct json_object *rooms = json_object_new_object();
    json_object_object_add(rooms, "join", join);
    json_object_object_add(rooms, "invite", invite);
    json_object_object_add(rooms, "leave", leave);
    struct json_object *out = json_object_new_object();
    char nb[32];
    snprintf(nb, sizeof(nb), "s%ld", hs->pos);
    json_object_object_add(out, "next_batch", json_object_new_string(nb));
    json_object_object_add(out, "rooms", rooms);
    struct json_object *ad = json_object_new_array();
    if (hs->direct && (initial || hs->direct_pos > since)) {
        struct json_object *ev = json_object_new_object();
        json_object_object_add(ev, "type", json_object_new_string("m.direct"));
        json_object_object_add(ev, "content", json_object_get(hs->direct));
        json_object_array_add(ad, ev);
        *changes = true;
    }
    struct json_object *ado = json_object_new_object();
    json_object_object_add(ado, "events", ad);
    json_object_object_add(out, "account_data", ado);
    return out;
}

/* ---- variation: what the specification allows a homeserver to leave out or add ---- */

static uint64_t rnd(struct hs *hs)
{
    /* xorshift64*: small, and the same sequence for the same seed */
    hs->rng ^= hs->rng >> 12;
    hs->rng ^= hs->rng << 25;
    hs->rng ^= hs->rng >> 27;
    return hs->rng * 2685821657736338717ULL;
}

static bool chance(struct hs *hs, unsigned in)
{
    return rnd(hs) % in == 0;
}

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
    struct json_object *v = jget(o, key);
    if (!v)
        return;
    bool empty = is_empty(v) ||
                 (json_object_is_type(v, json_type_object) && json_object_object_length(v) == 1 &&
                  jget(v, "events") && is_empty(jget(v, "events")));
    if (empty && chance(hs, 2))
        json_object_object_del(o, key);
}

static void maybe_add_unknown(struct hs *hs, struct json_object *o)
{
    if (!chance(hs, 3))
        return;
    struct json_object *u = json_object_new_object();
    json_object_object_add(u, "n", json_object_new_int((int)(rnd(hs) % 1000)));
    json_object_object_add(u, "list", json_object_new_array());
    json_object_object_add(o, "org.example.unknown", u);
}

static void vary_room(struct hs *hs, struct json_object *room)
{
    struct json_object *tl = jget(room, "timeline");
    struct json_object *lim = jget(tl, "limited");
    if (lim && !json_object_get_boolean(lim) && chance(hs, 2))
        json_object_object_del(tl, "limited");
    if (tl && !jget(tl, "limited") && chance(hs, 3))
        json_object_object_del(tl, "prev_batch"); /* optional; only needed to fill a gap */
    maybe_drop_empty(hs, room, "state");
    maybe_drop_empty(hs, room, "timeline");
    if (chance(hs, 3)) {
        struct json_object *un = json_object_new_object();
        json_object_object_add(un, "highlight_count", json_object_new_int(0));
        json_object_object_add(un, "notification_count", json_object_new_int(1));
        json_object_object_add(room, "unread_notifications", un);
    }
    if (chance(hs, 4)) {
        struct json_object *eph = json_object_new_object();
        json_object_object_add(eph, "events", json_object_new_array());
        json_object_object_add(room, "ephemeral", eph);
    }
    maybe_add_unknown(hs, room);
    struct json_object *evs = jget(tl, "events");
    for (size_t i = 0; evs && i < json_object_array_length(evs); i++) {
        struct json_object *ev = json_object_array_get_idx(evs, i);
        if (!jget(ev, "unsigned") && chance(hs, 3)) {
            struct json_object *u = json_object_new_object();
            json_object_object_add(u, "age", json_object_new_int((int)(rnd(hs) % 5000)));
            json_object_object_add(ev, "unsigned", u);
        }
    }
}

/* Varies a sync answer as a real homeserver may: empty sections left out, unknown fields. The
 * events are shared with the log, so only copies are changed. */
static struct json_object *vary_sync(struct hs *hs, struct json_object *r)
{
    struct json_object *out = NULL;
    if (json_object_deep_copy(r, &out, NULL) != 0)
        return r;
    json_object_put(r);
    struct json_object *rooms = jget(out, "rooms");
    json_object_object_foreach(jget(rooms, "join"), rid, room)
    {
        (void)rid;
        vary_room(hs, room);
    }
    maybe_drop_empty(hs, rooms, "join");
    maybe_drop_empty(hs, rooms, "invite");
    maybe_drop_empty(hs, rooms, "leave");
    maybe_drop_empty(hs, out, "rooms");
    maybe_drop_empty(hs, out, "account_data");
    if (chance(hs, 3))
        json_object_object_add(out, "device_one_time_keys_count", json_object_new_object());
    maybe_add_unknown(hs, out);
    return out;
}

/* The timeline limit of one sync: sometimes lower than asked, so timelines come limited. */
static int vary_limit(struct hs *hs, int limit)
{
    return limit > 2 && chance(hs, 4) ? 1 + (int)(rnd(hs) % 2) : limit;
}

static void serve_parked(struct hs *hs, bool all)
{
    uint64_t now = now_ms();
    for (struct conn *c = hs->conns; c; c = c->next) {
        if (!c->parked || c->closing)
            continue;
        bool changes;
        struct json_object *r = build_sync(hs, c->since, c->filter, &changes);
        if (changes || all || now >= c->deadline) {
            c->parked = false;
            json_object_put(c->filter);
            c->filter = NULL;
            respond(c, 200, vary_sync(hs, r));
        } else {
            json_object_put(r);
        }
    }
}

static void on_tick(uv_timer_t *t)
{
    struct hs *hs = t->data;
    uv_mutex_lock(&hs->mu);
    serve_parked(hs, false);
    uv_mutex_unlock(&hs->mu);
}

static void handle_sync(struct hs *hs, struct conn *c, struct json_object *q)
{
    const char *f = jstr(q, "filter");
    struct json_object *filter = NULL;
    if (f && f[0] == '{')
        filter = json_tokener_parse(f);
    else if (f)
        filter = json_object_get(jget(hs->filters, f));
    if (f && !filter) {
        error(c, 400, "M_INVALID_PARAM", "unknown filter");
        return;
    }
    const char *st = jstr(q, "since");
    long since = st ? token_pos(st) : -1;
    if (since == -2 || since > hs->pos) {
        json_object_put(filter);
        error(c, 400, "M_INVALID_PARAM", "bad since token");
        return;
    }
    long timeout = jstr(q, "timeout") ? atol(jstr(q, "timeout")) : 0;
    bool changes;
    struct json_object *r = build_sync(hs, since, filter, &changes);
    if (since < 0) {
        /* An initial sync may be a cached copy of an earlier one (homeservers cache identical
         * sync requests): stale, but with a valid token to continue from. */
        if (hs->last_initial && chance(hs, 2)) {
            json_object_put(r);
            r = json_object_get(hs->last_initial);
        } else {
            json_object_put(hs->last_initial);
            hs->last_initial = json_object_get(r);
        }
    }
    if (changes || since < 0 || timeout <= 0) {
        json_object_put(filter);
        respond(c, 200, vary_sync(hs, json_object_get(r)));
        json_object_put(r);
        return;
    }
    json_object_put(r);
    c->parked = true;
    c->since = since;
    c->filter = filter;
    c->deadline = now_ms() + (uint64_t)timeout;
}

/* ---- the endpoints ---- */

static void handle_messages(struct hs *hs, struct conn *c, const char *room, struct json_object *q)
{
    long from = token_pos(jstr(q, "from"));
    long to = jstr(q, "to") ? token_pos(jstr(q, "to")) : 0;
    const char *dir = jstr(q, "dir");
    int limit = jstr(q, "limit") ? atoi(jstr(q, "limit")) : 10;
    if (from < 0 || to < 0 || !dir || strcmp(dir, "b") != 0 || limit <= 0) {
        error(c, 400, "M_INVALID_PARAM", "this test server pages backwards with from/to");
        return;
    }
    struct json_object *filter = jstr(q, "filter") ? json_tokener_parse(jstr(q, "filter")) : NULL;
    struct json_object *types = jget(filter, "types");
    struct json_object *chunk = json_object_new_array();
    long last = -1;
    bool more = false;
    for (size_t i = json_object_array_length(hs->log); i > 0; i--) {
        struct json_object *e = json_object_array_get_idx(hs->log, i - 1);
        long p = (long)json_object_get_int64(jget(e, "pos"));
        if (p > from || strcmp(jstr(e, "room"), room) != 0)
            continue;
        if (p <= to)
            break;
        if (!type_ok(types, jstr(jget(e, "event"), "type")))
            continue;
        if ((int)json_object_array_length(chunk) >= limit) {
            more = true;
            break;
        }
        json_object_array_add(chunk, json_object_get(jget(e, "event")));
        last = p;
    }
    json_object_put(filter);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "start", json_object_new_string(jstr(q, "from")));
    json_object_object_add(r, "chunk", chunk);
    if (more && last > 0) {
        char t[32];
        snprintf(t, sizeof(t), "s%ld", last - 1);
        json_object_object_add(r, "end", json_object_new_string(t));
    }
    respond(c, 200, r);
}

static void handle_login(struct hs *hs, struct conn *c, struct json_object *body)
{
    const char *type = jstr(body, "type");
    struct json_object *ident = jget(body, "identifier");
    const char *user = jstr(ident, "user");
    const char *pw = jstr(body, "password");
    if (!type || strcmp(type, "m.login.password") != 0 || !user ||
        (strcmp(user, HS_BOT) != 0 && strcmp(user, "illegal") != 0) || !pw ||
        strcmp(pw, HS_BOT_PASSWORD) != 0) {
        error(c, 403, "M_FORBIDDEN", "Invalid username or password");
        return;
    }
    char dev[64], tok[96];
    const char *d = jstr(body, "device_id");
    if (d)
        snprintf(dev, sizeof(dev), "%s", d);
    else
        snprintf(dev, sizeof(dev), "GEN%d", hs->next_login);
    snprintf(tok, sizeof(tok), "syt_login_%d", ++hs->next_login);
    json_object_object_add(hs->tokens, tok, json_object_new_string(dev));
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "user_id", json_object_new_string(HS_BOT));
    json_object_object_add(r, "access_token", json_object_new_string(tok));
    json_object_object_add(r, "device_id", json_object_new_string(dev));
    respond(c, 200, r);
}

static void handle(struct hs *hs, struct conn *c, const char *method, const char *target,
                   const char *auth, const char *body_text)
{
    const char *qm = strchr(target, '?');
    size_t plen = qm ? (size_t)(qm - target) : strlen(target);
    char line[2048];
    snprintf(line, sizeof(line), "%s %.*s", method, (int)plen, target);
    struct json_object *rec = json_object_new_object();
    json_object_object_add(rec, "line", json_object_new_string(line));
    json_object_object_add(rec, "body", json_object_new_string(body_text));
    json_object_array_add(hs->requests, rec);

    for (size_t i = 0; i < json_object_array_length(hs->faults); i++) {
        struct json_object *f = json_object_array_get_idx(hs->faults, i);
        int count = json_object_get_int(jget(f, "count"));
        if (count <= 0 || !strstr(line, jstr(f, "substr")))
            continue;
        json_object_object_add(f, "count", json_object_new_int(count - 1));
        int status = json_object_get_int(jget(f, "status"));
        if (status < 0) {
            if (status == -2)
                c->hold_reply = true;
            else
                c->lose_reply = true;
            break;
        }
        if (status == 0)
            conn_close(c);
        else
            respond_raw(c, status, jstr(f, "body"), jstr(f, "header"));
        return;
    }

    if (strncmp(target, PREFIX, strlen(PREFIX)) != 0) {
        error(c, 404, "M_UNRECOGNIZED", "unknown endpoint");
        return;
    }
    /* Split the path into decoded segments. */
    char *seg[8] = {0};
    int nseg = 0;
    const char *p = target + strlen(PREFIX);
    const char *end = target + plen;
    while (p < end && nseg < 8) {
        const char *s = memchr(p, '/', (size_t)(end - p));
        size_t n = s ? (size_t)(s - p) : (size_t)(end - p);
        seg[nseg++] = url_decode(p, n, false);
        p += n + (s ? 1 : 0);
        if (!s)
            break;
    }
    struct json_object *q = parse_query(qm ? qm + 1 : NULL);
    struct json_object *body = *body_text ? json_tokener_parse(body_text) : NULL;

#define IS(i, s) (nseg > (i) && strcmp(seg[i], s) == 0)
    if (nseg == 1 && IS(0, "login") && strcmp(method, "POST") == 0) {
        handle_login(hs, c, body);
        goto out;
    }
    const char *token = NULL;
    if (auth && strncmp(auth, "Bearer ", 7) == 0)
        token = auth + 7;
    if (!token) {
        error(c, 401, "M_MISSING_TOKEN", "Missing access token");
        goto out;
    }
    const char *device = jstr(hs->tokens, token);
    if (!device) {
        struct json_object *b = json_object_new_object();
        json_object_object_add(b, "errcode", json_object_new_string("M_UNKNOWN_TOKEN"));
        json_object_object_add(b, "error", json_object_new_string("Unrecognised access token"));
        json_object_object_add(b, "soft_logout", json_object_new_boolean(hs->soft_logout));
        respond(c, 401, b);
        goto out;
    }
    if (nseg == 2 && IS(0, "account") && IS(1, "whoami")) {
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "user_id", json_object_new_string(HS_BOT));
        json_object_object_add(r, "device_id", json_object_new_string(device));
        respond(c, 200, r);
    } else if (nseg == 1 && IS(0, "sync") && strcmp(method, "GET") == 0) {
        handle_sync(hs, c, q);
    } else if (nseg == 3 && IS(0, "user") && IS(2, "filter") && strcmp(method, "POST") == 0) {
        if (strcmp(seg[1], HS_BOT) != 0 || !body) {
            error(c, 403, "M_FORBIDDEN", "not your filter");
            goto out;
        }
        char id[16];
        snprintf(id, sizeof(id), "%d", ++hs->next_filter);
        json_object_object_add(hs->filters, id, json_object_get(body));
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "filter_id", json_object_new_string(id));
        respond(c, 200, r);
    } else if (nseg == 4 && IS(0, "user") && IS(2, "account_data") && IS(3, "m.direct")) {
        if (strcmp(seg[1], HS_BOT) != 0) {
            error(c, 403, "M_FORBIDDEN", "not your account data");
        } else if (strcmp(method, "GET") == 0) {
            if (hs->direct)
                respond(c, 200, json_object_get(hs->direct));
            else
                error(c, 404, "M_NOT_FOUND", "Account data not found");
        } else if (strcmp(method, "PUT") == 0 && body &&
                   json_object_is_type(body, json_type_object)) {
            json_object_put(hs->direct);
            hs->direct = json_object_get(body);
            hs->direct_pos = ++hs->pos; /* account data moves the stream too */
            hs->dirty = true;
            respond(c, 200, json_object_new_object());
        } else {
            error(c, 400, "M_BAD_JSON", "bad m.direct");
        }
    } else if (nseg == 1 && IS(0, "createRoom") && strcmp(method, "POST") == 0) {
        char *room = new_room(hs, HS_BOT, false);
        struct json_object *init = jget(body, "initial_state");
        for (size_t i = 0; init && i < json_object_array_length(init); i++) {
            struct json_object *ev = json_object_array_get_idx(init, i);
            const char *t = jstr(ev, "type");
            const char *sk = jstr(ev, "state_key");
            struct json_object *content = jget(ev, "content");
            if (t && content)
                free(add_event(hs, room, HS_BOT, t, sk ? sk : "", json_object_get(content)));
        }
        struct json_object *inv = jget(body, "invite");
        struct json_object *isd = jget(body, "is_direct");
        for (size_t i = 0; inv && i < json_object_array_length(inv); i++) {
            const char *u = json_object_get_string(json_object_array_get_idx(inv, i));
            struct json_object *mc = member_content("invite");
            if (isd && json_object_get_boolean(isd))
                json_object_object_add(mc, "is_direct", json_object_new_boolean(1));
            free(add_event(hs, room, HS_BOT, "m.room.member", u, mc));
            /* Players accept at once. */
            free(add_event(hs, room, u, "m.room.member", u, member_content("join")));
        }
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "room_id", json_object_new_string(room));
        free(room);
        respond(c, 200, r);
    } else if ((nseg == 3 && IS(0, "rooms") && IS(2, "join")) || (nseg == 2 && IS(0, "join"))) {
        const char *room = IS(0, "rooms") ? seg[1] : seg[1];
        const char *ms = membership(hs, room, HS_BOT);
        if (!room_of(hs, room) || !ms || (strcmp(ms, "invite") != 0 && strcmp(ms, "join") != 0)) {
            error(c, 403, "M_FORBIDDEN", "You are not invited to this room.");
            goto out;
        }
        if (strcmp(ms, "join") != 0)
            free(add_event(hs, room, HS_BOT, "m.room.member", HS_BOT, member_content("join")));
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "room_id", json_object_new_string(room));
        respond(c, 200, r);
    } else if (nseg == 3 && IS(0, "rooms") && IS(2, "leave")) {
        if (room_of(hs, seg[1]) && membership(hs, seg[1], HS_BOT))
            free(add_event(hs, seg[1], HS_BOT, "m.room.member", HS_BOT, member_content("leave")));
        respond(c, 200, json_object_new_object());
    } else if (nseg == 5 && IS(0, "rooms") && IS(2, "send") && strcmp(method, "PUT") == 0) {
        const char *ms = membership(hs, seg[1], HS_BOT);
        if (!ms || strcmp(ms, "join") != 0) {
            error(c, 403, "M_FORBIDDEN", "not in the room");
            goto out;
        }
        if (!body || !json_object_is_type(body, json_type_object)) {
            error(c, 400, "M_NOT_JSON", "Content not JSON.");
            goto out;
        }
        char k[512];
        snprintf(k, sizeof(k), "%s|%s", device, seg[4]);
        const char *old = jstr(hs->txns, k);
        char *id =
            old ? strdup(old) : add_event(hs, seg[1], HS_BOT, seg[3], NULL, json_object_get(body));
        if (!old)
            json_object_object_add(hs->txns, k, json_object_new_string(id));
        struct json_object *r = json_object_new_object();
        json_object_object_add(r, "event_id", json_object_new_string(id));
        free(id);
        respond(c, 200, r);
    } else if (nseg == 3 && IS(0, "rooms") && IS(2, "messages") && strcmp(method, "GET") == 0) {
        const char *ms = membership(hs, seg[1], HS_BOT);
        if (!ms || strcmp(ms, "join") != 0)
            error(c, 403, "M_FORBIDDEN", "not in the room");
        else
            handle_messages(hs, c, seg[1], q);
    } else {
        error(c, 404, "M_UNRECOGNIZED", "Unrecognized request");
    }
#undef IS
out:
    for (int i = 0; i < nseg; i++)
        free(seg[i]);
    json_object_put(q);
    json_object_put(body);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    buf->base = malloc(suggested);
    buf->len = buf->base ? suggested : 0;
}

/* Handles every complete request in the buffer. */
static void parse(struct conn *c)
{
    struct hs *hs = c->hs;
    while (!c->closing && !c->parked && c->len > 0) {
        char *hend = NULL;
        for (size_t i = 0; i + 3 < c->len; i++) {
            if (memcmp(c->buf + i, "\r\n\r\n", 4) == 0) {
                hend = c->buf + i;
                break;
            }
        }
        if (!hend) {
            if (c->len > MAX_HEADER)
                conn_close(c);
            return;
        }
        size_t hlen = (size_t)(hend - c->buf) + 4;
        *hend = '\0';
        char method[16] = "", target[8192] = "";
        if (sscanf(c->buf, "%15s %8191s", method, target) != 2) {
            conn_close(c);
            return;
        }
        size_t clen = 0;
        char auth[512] = "";
        for (char *l = strstr(c->buf, "\r\n"); l; l = strstr(l, "\r\n")) {
            l += 2;
            if (strncasecmp(l, "Content-Length:", 15) == 0)
                clen = strtoul(l + 15, NULL, 10);
            else if (strncasecmp(l, "Authorization:", 14) == 0)
                sscanf(l + 14, " %511[^\r]", auth);
        }
        if (clen > MAX_BODY) {
            conn_close(c);
            return;
        }
        if (c->len < hlen + clen) {
            *hend = '\r';
            return;
        }
        char *body = malloc(clen + 1);
        memcpy(body, c->buf + hlen, clen);
        body[clen] = '\0';
        memmove(c->buf, c->buf + hlen + clen, c->len - hlen - clen);
        c->len -= hlen + clen;
        uv_mutex_lock(&hs->mu);
        handle(hs, c, method, target, auth[0] ? auth : NULL, body);
        if (hs->dirty) {
            hs->dirty = false;
            serve_parked(hs, false);
        }
        uv_mutex_unlock(&hs->mu);
        free(body);
    }
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct conn *c = s->data;
    if (n < 0) {
        free(buf->base);
        conn_close(c);
        return;
    }
    if (n > 0 && !c->closing) {
        if (c->len + (size_t)n > c->cap) {
            size_t cap = c->cap ? c->cap : 8192;
            while (cap < c->len + (size_t)n)
                cap *= 2;
            c->buf = realloc(c->buf, cap);
            c->cap = cap;
        }
        memcpy(c->buf + c->len, buf->base, (size_t)n);
        c->len += (size_t)n;
        parse(c);
    }
    free(buf->base);
}

static void on_connection(uv_stream_t *server, int status)
{
    struct hs *hs = server->data;
    if (status < 0)
        return;
    struct conn *c = calloc(1, sizeof(*c));
    c->hs = hs;
    uv_tcp_init(&hs->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_closed);
        return;
    }
    c->next = hs->conns;
    hs->conns = c;
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void on_wake(uv_async_t *a)
{
    struct hs *hs = a->data;
    uv_mutex_lock(&hs->mu);
    bool running = hs->running;
    if (running && hs->dirty) {
        hs->dirty = false;
        serve_parked(hs, false);
    }
    uv_mutex_unlock(&hs->mu);
    if (running)
        return;
    while (hs->conns)
        conn_close(hs->conns);
    uv_close((uv_handle_t *)&hs->server, NULL);
    uv_close((uv_handle_t *)&hs->tick, NULL);
    uv_close((uv_handle_t *)&hs->wake, NULL);
}

static void thread_main(void *arg)
{
    struct hs *hs = arg;
    uv_run(&hs->loop, UV_RUN_DEFAULT);
}

struct hs *hs_new(void)
{
    struct hs *hs = calloc(1, sizeof(*hs));
    hs->log = json_object_new_array();
    hs->rooms = json_object_new_object();
    hs->filters = json_object_new_object();
    hs->txns = json_object_new_object();
    hs->tokens = json_object_new_object();
    hs->requests = json_object_new_array();
    hs->faults = json_object_new_array();
    json_object_object_add(hs->tokens, HS_BOT_TOKEN, json_object_new_string("BOTDEVICE"));
    const char *env = getenv("MX_HS_SEED");
    hs->seed = env && *env ? strtoull(env, NULL, 10) : (uint64_t)now_ms() ^ (uint64_t)(uintptr_t)hs;
    hs->rng = hs->seed ? hs->seed : 1;
    fprintf(stderr, "test homeserver: seed %" PRIu64 " (replay with MX_HS_SEED=%" PRIu64 ")\n",
            hs->seed, hs->seed);
    uv_mutex_init(&hs->mu);
    return hs;
}

int hs_start(struct hs *hs)
{
    uv_loop_init(&hs->loop);
    uv_tcp_init(&hs->loop, &hs->server);
    hs->server.data = hs;
    struct sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", 0, &addr);
    if (uv_tcp_bind(&hs->server, (const struct sockaddr *)&addr, 0) != 0 ||
        uv_listen((uv_stream_t *)&hs->server, 64, on_connection) != 0)
        return -1;
    struct sockaddr_in bound;
    int len = sizeof(bound);
    uv_tcp_getsockname(&hs->server, (struct sockaddr *)&bound, &len);
    hs->port = ntohs(bound.sin_port);
    snprintf(hs->url, sizeof(hs->url), "http://127.0.0.1:%d", hs->port);
    uv_async_init(&hs->loop, &hs->wake, on_wake);
    hs->wake.data = hs;
    uv_timer_init(&hs->loop, &hs->tick);
    hs->tick.data = hs;
    uv_timer_start(&hs->tick, on_tick, 10, 10);
    hs->running = true;
    uv_thread_create(&hs->thread, thread_main, hs);
    return hs->port;
}

const char *hs_url(struct hs *hs)
{
    return hs->url;
}

void hs_free(struct hs *hs)
{
    if (hs->running) {
        uv_mutex_lock(&hs->mu);
        hs->running = false;
        uv_mutex_unlock(&hs->mu);
        uv_async_send(&hs->wake);
        uv_thread_join(&hs->thread);
        uv_loop_close(&hs->loop);
    }
    json_object_put(hs->log);
    json_object_put(hs->rooms);
    json_object_put(hs->direct);
    json_object_put(hs->filters);
    json_object_put(hs->txns);
    json_object_put(hs->tokens);
    json_object_put(hs->last_initial);
    json_object_put(hs->requests);
    json_object_put(hs->faults);
    uv_mutex_destroy(&hs->mu);
    free(hs);
}

/* ---- control API ---- */

/* Unlocks and wakes the server's loop, which answers parked syncs at once. */
static void unlock_wake(struct hs *hs)
{
    bool dirty = hs->dirty && hs->running;
    uv_mutex_unlock(&hs->mu);
    if (dirty)
        uv_async_send(&hs->wake);
}

char *hs_create_room(struct hs *hs, const char *creator, bool encrypted)
{
    uv_mutex_lock(&hs->mu);
    char *id = new_room(hs, creator, encrypted);
    unlock_wake(hs);
    return id;
}

void hs_join(struct hs *hs, const char *room, const char *user)
{
    uv_mutex_lock(&hs->mu);
    free(add_event(hs, room, user, "m.room.member", user, member_content("join")));
    unlock_wake(hs);
}

void hs_leave(struct hs *hs, const char *room, const char *user)
{
    uv_mutex_lock(&hs->mu);
    free(add_event(hs, room, user, "m.room.member", user, member_content("leave")));
    unlock_wake(hs);
}

void hs_set_displayname(struct hs *hs, const char *room, const char *user, const char *name)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *c = member_content("join");
    json_object_object_add(c, "displayname", json_object_new_string(name));
    free(add_event(hs, room, user, "m.room.member", user, c));
    unlock_wake(hs);
}

void hs_invite_bot(struct hs *hs, const char *room, const char *inviter)
{
    uv_mutex_lock(&hs->mu);
    free(add_event(hs, room, inviter, "m.room.member", HS_BOT, member_content("invite")));
    unlock_wake(hs);
}

void hs_invite_bot_direct(struct hs *hs, const char *room, const char *inviter)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *c = member_content("invite");
    json_object_object_add(c, "is_direct", json_object_new_boolean(1));
    free(add_event(hs, room, inviter, "m.room.member", HS_BOT, c));
    unlock_wake(hs);
}

void hs_set_power(struct hs *hs, const char *room, const char *user, int level)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *r = room_of(hs, room);
    struct json_object *old = jget(jget(r, "state"), "m.room.power_levels|");
    struct json_object *pl = NULL;
    json_object_deep_copy(jget(old, "content"), &pl, NULL);
    json_object_object_add(jget(pl, "users"), user, json_object_new_int(level));
    free(add_event(hs, room, jstr(old, "sender"), "m.room.power_levels", "", pl));
    unlock_wake(hs);
}

char *hs_send(struct hs *hs, const char *room, const char *user, const char *type,
              const char *content_json)
{
    uv_mutex_lock(&hs->mu);
    char *id = add_event(hs, room, user, type, NULL, json_tokener_parse(content_json));
    unlock_wake(hs);
    return id;
}

char *hs_say(struct hs *hs, const char *room, const char *user, const char *text)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "msgtype", json_object_new_string("m.text"));
    json_object_object_add(c, "body", json_object_new_string(text));
    char *id = hs_send(hs, room, user, "m.room.message", json_object_to_json_string(c));
    json_object_put(c);
    return id;
}

char *hs_react(struct hs *hs, const char *room, const char *user, const char *target,
               const char *key)
{
    struct json_object *c = json_object_new_object();
    struct json_object *rel = json_object_new_object();
    json_object_object_add(rel, "rel_type", json_object_new_string("m.annotation"));
    json_object_object_add(rel, "event_id", json_object_new_string(target));
    json_object_object_add(rel, "key", json_object_new_string(key));
    json_object_object_add(c, "m.relates_to", rel);
    char *id = hs_send(hs, room, user, "m.reaction", json_object_to_json_string(c));
    json_object_put(c);
    return id;
}

char *hs_poll_vote(struct hs *hs, const char *room, const char *user, const char *poll,
                   const char *answer, int form)
{
    struct json_object *c = json_object_new_object();
    struct json_object *rel = json_object_new_object();
    json_object_object_add(rel, "rel_type", json_object_new_string("m.reference"));
    json_object_object_add(rel, "event_id", json_object_new_string(poll));
    json_object_object_add(c, "m.relates_to", rel);
    struct json_object *ans = json_object_new_array();
    json_object_array_add(ans, json_object_new_string(answer));
    const char *type;
    if (form == 0) {
        struct json_object *b = json_object_new_object();
        json_object_object_add(b, "answers", ans);
        json_object_object_add(c, "org.matrix.msc3381.poll.response", b);
        type = "org.matrix.msc3381.poll.response";
    } else {
        json_object_object_add(c, "m.selections", ans);
        type = "m.poll.response";
    }
    char *id = hs_send(hs, room, user, type, json_object_to_json_string(c));
    json_object_put(c);
    return id;
}

struct json_object *hs_bot_events_after(struct hs *hs, size_t *cursor)
{
    struct json_object *out = json_object_new_array();
    uv_mutex_lock(&hs->mu);
    size_t n = json_object_array_length(hs->log);
    for (size_t i = *cursor; i < n; i++) {
        struct json_object *e = json_object_array_get_idx(hs->log, i);
        struct json_object *ev = jget(e, "event");
        if (strcmp(jstr(ev, "sender"), HS_BOT) != 0 || jget(ev, "state_key"))
            continue;
        struct json_object *copy = NULL;
        json_object_deep_copy(ev, &copy, NULL);
        json_object_object_add(copy, "room_id", json_object_new_string(jstr(e, "room")));
        json_object_array_add(out, copy);
    }
    *cursor = n;
    uv_mutex_unlock(&hs->mu);
    return out;
}

struct json_object *hs_bot_events(struct hs *hs, const char *type)
{
    struct json_object *out = json_object_new_array();
    uv_mutex_lock(&hs->mu);
    for (size_t i = 0; i < json_object_array_length(hs->log); i++) {
        struct json_object *e = json_object_array_get_idx(hs->log, i);
        struct json_object *ev = jget(e, "event");
        if (strcmp(jstr(ev, "sender"), HS_BOT) != 0 || jget(ev, "state_key"))
            continue;
        if (type && strcmp(jstr(ev, "type"), type) != 0)
            continue;
        struct json_object *copy = NULL;
        json_object_deep_copy(ev, &copy, NULL);
        json_object_object_add(copy, "room_id", json_object_new_string(jstr(e, "room")));
        json_object_array_add(out, copy);
    }
    uv_mutex_unlock(&hs->mu);
    return out;
}

char *hs_direct_room(struct hs *hs, const char *user)
{
    char *out = NULL;
    uv_mutex_lock(&hs->mu);
    struct json_object *list = jget(hs->direct, user);
    if (list && json_object_array_length(list) > 0)
        out = strdup(json_object_get_string(json_object_array_get_idx(list, 0)));
    uv_mutex_unlock(&hs->mu);
    return out;
}

int hs_count(struct hs *hs, const char *substr)
{
    int n = 0;
    uv_mutex_lock(&hs->mu);
    for (size_t i = 0; i < json_object_array_length(hs->requests); i++)
        if (strstr(jstr(json_object_array_get_idx(hs->requests, i), "line"), substr))
            n++;
    uv_mutex_unlock(&hs->mu);
    return n;
}

char *hs_last_body(struct hs *hs, const char *substr)
{
    char *out = NULL;
    uv_mutex_lock(&hs->mu);
    for (size_t i = json_object_array_length(hs->requests); i > 0 && !out; i--) {
        struct json_object *r = json_object_array_get_idx(hs->requests, i - 1);
        if (strstr(jstr(r, "line"), substr))
            out = strdup(jstr(r, "body"));
    }
    uv_mutex_unlock(&hs->mu);
    return out;
}

void hs_fault(struct hs *hs, const char *substr, int status, const char *body, const char *header,
              int count)
{
    struct json_object *f = json_object_new_object();
    json_object_object_add(f, "substr", json_object_new_string(substr));
    json_object_object_add(f, "status", json_object_new_int(status));
    json_object_object_add(f, "body", json_object_new_string(body ? body : ""));
    if (header)
        json_object_object_add(f, "header", json_object_new_string(header));
    json_object_object_add(f, "count", json_object_new_int(count));
    uv_mutex_lock(&hs->mu);
    json_object_array_add(hs->faults, f);
    uv_mutex_unlock(&hs->mu);
}

void hs_faults_clear(struct hs *hs)
{
    uv_mutex_lock(&hs->mu);
    json_object_put(hs->faults);
    hs->faults = json_object_new_array();
    uv_mutex_unlock(&hs->mu);
}

void hs_revoke_tokens(struct hs *hs, bool soft_logout)
{
    uv_mutex_lock(&hs->mu);
    json_object_put(hs->tokens);
    hs->tokens = json_object_new_object();
    hs->soft_logout = soft_logout;
    uv_mutex_unlock(&hs->mu);
}

void hs_set_max_timeline(struct hs *hs, int limit)
{
    uv_mutex_lock(&hs->mu);
    hs->max_timeline = limit;
    uv_mutex_unlock(&hs->mu);
}

int hs_dump(struct hs *hs, const char *path)
{
    uv_mutex_lock(&hs->mu);
    int rc = json_object_to_file_ext(path, hs->log, JSON_C_TO_STRING_PLAIN);
    uv_mutex_unlock(&hs->mu);
    return rc;
}
