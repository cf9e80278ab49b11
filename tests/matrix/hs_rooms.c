/*
 * hs_rooms.c - the test homeserver's rooms: one event log on one stream,
 * room state and membership, createRoom as Synapse 1.67 builds a room
 * (presets, and m.room.encryption by encryption_enabled_by_default_for_room_type),
 * sending with idempotent transaction ids, and /messages back-pagination.
 * Also the control functions of hs.h that act in rooms.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_internal.h"

#define MEGOLM "m.megolm.v1.aes-sha2"

/* ---- the event store (call with mu held) ---- */

struct json_object *hs_room(struct hs *hs, const char *id)
{
    return hs_jget(hs->rooms, id);
}

const char *hs_membership(struct hs *hs, const char *room, const char *user)
{
    return hs_jstr(hs_jget(hs_room(hs, room), "members"), user);
}

bool hs_joined(struct hs *hs, const char *room, const char *user)
{
    const char *ms = hs_membership(hs, room, user);
    return ms && strcmp(ms, "join") == 0;
}

int hs_joined_count(struct hs *hs, const char *room)
{
    int n = 0;
    json_object_object_foreach(hs_iter(hs_jget(hs_room(hs, room), "members")), u, ms)
    {
        (void)u;
        n += strcmp(json_object_get_string(ms), "join") == 0;
    }
    return n;
}

bool hs_share_room(struct hs *hs, const char *a, const char *b)
{
    json_object_object_foreach(hs->rooms, id, r)
    {
        (void)r;
        if (hs_joined(hs, id, a) && hs_joined(hs, id, b))
            return true;
    }
    return false;
}

char *hs_add_event(struct hs *hs, const char *room, const char *sender, const char *type,
                   const char *state_key, struct json_object *content)
{
    struct json_object *r = hs_room(hs, room);
    if (!r || !content) {
        json_object_put(content);
        return NULL;
    }
    char id[64];
    snprintf(id, sizeof(id), "$e%d", ++hs->next_event);
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "type", json_object_new_string(type));
    json_object_object_add(ev, "sender", json_object_new_string(sender));
    json_object_object_add(ev, "event_id", json_object_new_string(id));
    json_object_object_add(ev, "origin_server_ts", json_object_new_int64((int64_t)hs_now_ms()));
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
        json_object_object_add(hs_jget(r, "state"), k, json_object_get(ev));
        if (strcmp(type, "m.room.encryption") == 0 && !*state_key && !hs_jget(r, "enc_pos"))
            json_object_object_add(r, "enc_pos", json_object_new_int64(hs->pos));
        if (strcmp(type, "m.room.member") == 0) {
            const char *ms = hs_jstr(content, "membership");
            json_object_object_add(hs_jget(r, "members"), state_key,
                                   json_object_new_string(ms ? ms : "leave"));
            json_object_object_add(hs_jget(r, "pos"), state_key, json_object_new_int64(hs->pos));
        }
    }
    hs_push_event(hs, room, ev, hs->pos);
    return strdup(id);
}

struct json_object *hs_member_content(const char *ms)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "membership", json_object_new_string(ms));
    return c;
}

static void state(struct hs *hs, const char *room, const char *sender, const char *type,
                  struct json_object *content)
{
    free(hs_add_event(hs, room, sender, type, "", content));
}

static struct json_object *one(const char *key, struct json_object *value)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, key, value);
    return o;
}

/* Synapse's default power levels for a new room (room.py, _send_events_for_new_room). */
static struct json_object *default_power(const char *creator, bool invitees_ops, bool private,
                                         struct json_object *invite)
{
    struct json_object *users = one(creator, json_object_new_int(100));
    for (size_t i = 0; invitees_ops && invite && i < json_object_array_length(invite); i++)
        json_object_object_add(users, json_object_get_string(json_object_array_get_idx(invite, i)),
                               json_object_new_int(100));
    struct json_object *events = json_object_new_object();
    static const struct {
        const char *type;
        int level;
    } ev[] = {
        {"m.room.name", 50},
        {"m.room.power_levels", 100},
        {"m.room.history_visibility", 100},
        {"m.room.canonical_alias", 50},
        {"m.room.avatar", 50},
        {"m.room.tombstone", 100},
        {"m.room.server_acl", 100},
        {"m.room.encryption", 100},
    };
    for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
        json_object_object_add(events, ev[i].type, json_object_new_int(ev[i].level));
    struct json_object *pl = json_object_new_object();
    json_object_object_add(pl, "users", users);
    json_object_object_add(pl, "users_default", json_object_new_int(0));
    json_object_object_add(pl, "events", events);
    json_object_object_add(pl, "events_default", json_object_new_int(0));
    json_object_object_add(pl, "state_default", json_object_new_int(50));
    json_object_object_add(pl, "ban", json_object_new_int(50));
    json_object_object_add(pl, "kick", json_object_new_int(50));
    json_object_object_add(pl, "redact", json_object_new_int(50));
    json_object_object_add(pl, "invite", json_object_new_int(private ? 0 : 50));
    json_object_object_add(pl, "historical", json_object_new_int(100));
    return pl;
}

/* Is a room of this preset encrypted by the server's default? (config/room.py) */
static bool preset_encrypted(struct hs *hs, const char *preset)
{
    if (hs->encryption == HS_ENC_ALL)
        return true;
    return hs->encryption == HS_ENC_INVITE && strcmp(preset, "public_chat") != 0;
}

/* The events of a new room, in Synapse's order: create, the creator's join, power levels,
 * join rules, history visibility, guest access, the initial state, encryption by default,
 * name, topic, then the invites. force_enc: -1 the server decides, 0/1 as given (tests). */
static char *make_room(struct hs *hs, const char *creator, struct json_object *rq, int force_enc)
{
    const char *vis = hs_jstr(rq, "visibility");
    const char *preset = hs_jstr(rq, "preset");
    if (!preset)
        preset = vis && strcmp(vis, "public") == 0 ? "public_chat" : "private_chat";
    bool private = strcmp(preset, "public_chat") != 0;
    char id[64];
    snprintf(id, sizeof(id), "!r%d:test.local", ++hs->next_room);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "state", json_object_new_object());
    json_object_object_add(r, "members", json_object_new_object());
    json_object_object_add(r, "pos", json_object_new_object());
    json_object_object_add(hs->rooms, id, r);

    struct json_object *create = json_object_new_object();
    json_object_object_add(create, "creator", json_object_new_string(creator));
    json_object_object_add(create, "room_version", json_object_new_string("9"));
    state(hs, id, creator, "m.room.create", create);
    free(hs_add_event(hs, id, creator, "m.room.member", creator, hs_member_content("join")));

    struct json_object *init = hs_jget(rq, "initial_state");
    struct json_object *invite = hs_jget(rq, "invite");
    struct json_object *given_pl = NULL, *has = json_object_new_object();
    for (size_t i = 0; init && i < json_object_array_length(init); i++) {
        struct json_object *ev = json_object_array_get_idx(init, i);
        const char *t = hs_jstr(ev, "type");
        if (t && strcmp(t, "m.room.power_levels") == 0)
            given_pl = hs_jget(ev, "content");
        if (t)
            json_object_object_add(has, t, json_object_new_boolean(1));
    }
    if (given_pl) {
        state(hs, id, creator, "m.room.power_levels", json_object_get(given_pl));
    } else {
        struct json_object *pl =
            default_power(creator, strcmp(preset, "trusted_private_chat") == 0, private, invite);
        json_object_object_foreach(hs_iter(hs_jget(rq, "power_level_content_override")), k, v)
            json_object_object_add(pl, k, json_object_get(v));
        state(hs, id, creator, "m.room.power_levels", pl);
    }
    if (!hs_jget(has, "m.room.join_rules"))
        state(hs, id, creator, "m.room.join_rules",
              one("join_rule", json_object_new_string(private ? "invite" : "public")));
    if (!hs_jget(has, "m.room.history_visibility"))
        state(hs, id, creator, "m.room.history_visibility",
              one("history_visibility", json_object_new_string("shared")));
    if (private && !hs_jget(has, "m.room.guest_access"))
        state(hs, id, creator, "m.room.guest_access",
              one("guest_access", json_object_new_string("can_join")));
    json_object_put(has);
    for (size_t i = 0; init && i < json_object_array_length(init); i++) {
        struct json_object *ev = json_object_array_get_idx(init, i);
        const char *t = hs_jstr(ev, "type");
        const char *sk = hs_jstr(ev, "state_key");
        struct json_object *content = hs_jget(ev, "content");
        if (t && content && strcmp(t, "m.room.power_levels") != 0)
            free(hs_add_event(hs, id, creator, t, sk ? sk : "", json_object_get(content)));
    }
    if (force_enc < 0 ? preset_encrypted(hs, preset) : force_enc == 1)
        state(hs, id, creator, "m.room.encryption",
              one("algorithm", json_object_new_string(MEGOLM)));
    if (hs_jstr(rq, "name"))
        state(hs, id, creator, "m.room.name",
              one("name", json_object_new_string(hs_jstr(rq, "name"))));
    if (hs_jstr(rq, "topic"))
        state(hs, id, creator, "m.room.topic",
              one("topic", json_object_new_string(hs_jstr(rq, "topic"))));
    if (hs_jget(r, "enc_pos"))
        json_object_object_add(r, "born_encrypted", json_object_new_boolean(1));
    struct json_object *isd = hs_jget(rq, "is_direct");
    for (size_t i = 0; invite && i < json_object_array_length(invite); i++) {
        const char *u = json_object_get_string(json_object_array_get_idx(invite, i));
        struct json_object *mc = hs_member_content("invite");
        if (isd && json_object_get_boolean(isd))
            json_object_object_add(mc, "is_direct", json_object_new_boolean(1));
        free(hs_add_event(hs, id, creator, "m.room.member", u, mc));
    }
    return strdup(id);
}

char *hs_new_room(struct hs *hs, const char *creator, struct json_object *request)
{
    return make_room(hs, creator, request, -1);
}

/* ---- the endpoints ---- */

void hs_on_create_room(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    const char *preset = hs_jstr(rq->body, "preset");
    if (preset && strcmp(preset, "private_chat") != 0 &&
        strcmp(preset, "trusted_private_chat") != 0 && strcmp(preset, "public_chat") != 0) {
        hs_error(rs, 400, "M_BAD_JSON", "not a valid preset");
        return;
    }
    char *room = make_room(hs, rq->user, rq->body, -1);
    /* The bot's invitees are test players, whose clients accept at once. */
    struct json_object *inv = strcmp(rq->user, HS_BOT) == 0 ? hs_jget(rq->body, "invite") : NULL;
    for (size_t i = 0; inv && i < json_object_array_length(inv); i++) {
        const char *u = json_object_get_string(json_object_array_get_idx(inv, i));
        free(hs_add_event(hs, room, u, "m.room.member", u, hs_member_content("join")));
    }
    hs_reply(rs, 200, one("room_id", json_object_new_string(room)));
    free(room);
}

void hs_on_join(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    const char *room = rq->seg[1];
    const char *ms = hs_membership(hs, room, rq->user);
    if (!hs_room(hs, room) || !ms || (strcmp(ms, "invite") != 0 && strcmp(ms, "join") != 0)) {
        hs_error(rs, 403, "M_FORBIDDEN", "You are not invited to this room.");
        return;
    }
    if (strcmp(ms, "join") != 0)
        free(
            hs_add_event(hs, room, rq->user, "m.room.member", rq->user, hs_member_content("join")));
    hs_reply(rs, 200, one("room_id", json_object_new_string(room)));
}

void hs_on_leave(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    if (hs_room(hs, rq->seg[1]) && hs_membership(hs, rq->seg[1], rq->user))
        free(hs_add_event(hs, rq->seg[1], rq->user, "m.room.member", rq->user,
                          hs_member_content("leave")));
    hs_reply(rs, 200, json_object_new_object());
}

/*
 * A plaintext event the bot sends into an encrypted room is a leak: in a room created encrypted
 * always (the bot must learn a room's state before it speaks there), in a room that turned
 * encryption on later once the bot has read it: from its second sync whose `since` covers the
 * m.room.encryption (the first may race with a send started before the bot read the batch, as
 * for any client). Such sends are recorded.
 */
static void check_clear_send(struct hs *hs, const char *room, const char *type, const char *id)
{
    struct json_object *r = hs_room(hs, room);
    struct json_object *enc = hs_jget(r, "enc_pos");
    if (!enc || strcmp(type, "m.room.encrypted") == 0)
        return;
    long at = (long)json_object_get_int64(enc);
    int syncs = 0;
    for (size_t i = 0; i < json_object_array_length(hs->bot_since); i++)
        syncs += json_object_get_int64(json_object_array_get_idx(hs->bot_since, i)) >= at;
    if (syncs < 2 && !hs_jget(r, "born_encrypted"))
        return;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "room", json_object_new_string(room));
    json_object_object_add(o, "type", json_object_new_string(type));
    json_object_object_add(o, "event_id", json_object_new_string(id));
    json_object_array_add(hs->clear_sends, o);
}

/* Whether user already sent an event of type in room annotating the same event with the
 * same key as content does (nothing is ever redacted here). */
static bool annotated_before(struct hs *hs, const char *room, const char *user, const char *type,
                             struct json_object *content)
{
    struct json_object *rel = hs_jget(content, "m.relates_to");
    const char *kind = hs_jstr(rel, "rel_type"), *target = hs_jstr(rel, "event_id");
    const char *key = hs_jstr(rel, "key");
    if (!kind || strcmp(kind, "m.annotation") != 0 || !target || !key)
        return false;
    for (size_t i = 0; i < json_object_array_length(hs->log); i++) {
        struct json_object *l = json_object_array_get_idx(hs->log, i);
        struct json_object *ev = hs_jget(l, "event");
        struct json_object *r = hs_jget(hs_jget(ev, "content"), "m.relates_to");
        if (strcmp(hs_jstr(l, "room"), room) == 0 && strcmp(hs_jstr(ev, "sender"), user) == 0 &&
            strcmp(hs_jstr(ev, "type"), type) == 0 && hs_jstr(r, "rel_type") &&
            strcmp(hs_jstr(r, "rel_type"), "m.annotation") == 0 && hs_jstr(r, "event_id") &&
            strcmp(hs_jstr(r, "event_id"), target) == 0 && hs_jstr(r, "key") &&
            strcmp(hs_jstr(r, "key"), key) == 0)
            return true;
    }
    return false;
}

/* PUT /rooms/{roomId}/send/{eventType}/{txnId}: one event per access token and txnId. */
void hs_on_send(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    if (!hs_joined(hs, rq->seg[1], rq->user)) {
        hs_error(rs, 403, "M_FORBIDDEN", "not in the room");
        return;
    }
    if (!rq->body || !json_object_is_type(rq->body, json_type_object)) {
        hs_error(rs, 400, "M_NOT_JSON", "Content not JSON.");
        return;
    }
    char k[512];
    snprintf(k, sizeof(k), "%s|send|%s", rq->token, rq->seg[4]);
    const char *old = hs_jstr(hs->txns, k);
    if (!old && hs->refuse_dup_annotations &&
        annotated_before(hs, rq->seg[1], rq->user, rq->seg[3], rq->body)) {
        hs_error(rs, 400, "M_DUPLICATE_ANNOTATION", "a second identical annotation");
        return;
    }
    char *id =
        old ? strdup(old)
            : hs_add_event(hs, rq->seg[1], rq->user, rq->seg[3], NULL, json_object_get(rq->body));
    if (!old)
        json_object_object_add(hs->txns, k, json_object_new_string(id));
    if (!old && id && strcmp(rq->user, HS_BOT) == 0)
        check_clear_send(hs, rq->seg[1], rq->seg[3], id);
    hs_reply(rs, 200, one("event_id", json_object_new_string(id)));
    free(id);
}

/* PUT /rooms/{roomId}/state/{eventType}/{stateKey}. */
void hs_on_state(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    if (!hs_joined(hs, rq->seg[1], rq->user)) {
        hs_error(rs, 403, "M_FORBIDDEN", "not in the room");
        return;
    }
    if (!rq->body || !json_object_is_type(rq->body, json_type_object)) {
        hs_error(rs, 400, "M_NOT_JSON", "Content not JSON.");
        return;
    }
    char *id = hs_add_event(hs, rq->seg[1], rq->user, rq->seg[3], rq->nseg > 4 ? rq->seg[4] : "",
                            json_object_get(rq->body));
    hs_reply(rs, 200, one("event_id", json_object_new_string(id)));
    free(id);
}

/* GET /rooms/{roomId}/members[?membership=&not_membership=]: the member events of the room's
 * current state, as Synapse 1.67 serves them (rest/client/room.py) to a joined member. */
void hs_on_members(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    const char *room = rq->seg[1];
    if (!hs_joined(hs, room, rq->user)) {
        hs_error(rs, 403, "M_FORBIDDEN", "User not in room");
        return;
    }
    const char *only = hs_jstr(rq->query, "membership");
    const char *not = hs_jstr(rq->query, "not_membership");
    struct json_object *chunk = json_object_new_array();
    json_object_object_foreach(hs_iter(hs_jget(hs_room(hs, room), "state")), k, ev)
    {
        const char *ms = hs_jstr(hs_jget(ev, "content"), "membership");
        if (strncmp(k, "m.room.member|", 14) != 0 || (only && (!ms || strcmp(ms, only) != 0)) ||
            (not &&ms && strcmp(ms, not ) == 0))
            continue;
        struct json_object *copy = NULL;
        json_object_deep_copy(ev, &copy, NULL);
        json_object_object_add(copy, "room_id", json_object_new_string(room));
        json_object_array_add(chunk, copy);
    }
    hs_reply(rs, 200, one("chunk", chunk));
}

static long room_token(const char *t)
{
    if (!t || t[0] != 's')
        return -1;
    char *end;
    long v = strtol(t + 1, &end, 10);
    return (*end == '\0' || *end == '_') && end != t + 1 ? v : -1;
}

void hs_on_messages(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    const char *room = rq->seg[1];
    struct json_object *q = rq->query;
    if (!hs_joined(hs, room, rq->user)) {
        hs_error(rs, 403, "M_FORBIDDEN", "not in the room");
        return;
    }
    long from = room_token(hs_jstr(q, "from"));
    long to = hs_jstr(q, "to") ? room_token(hs_jstr(q, "to")) : 0;
    const char *dir = hs_jstr(q, "dir");
    int limit = hs_jstr(q, "limit") ? atoi(hs_jstr(q, "limit")) : 10;
    if (from < 0 || to < 0 || !dir || strcmp(dir, "b") != 0 || limit <= 0) {
        hs_error(rs, 400, "M_INVALID_PARAM", "this test server pages backwards with from/to");
        return;
    }
    struct json_object *filter =
        hs_jstr(q, "filter") ? json_tokener_parse(hs_jstr(q, "filter")) : NULL;
    struct json_object *types = hs_jget(filter, "types");
    /* a page of messages_page events counts those the filter drops too (see hs_internal.h) */
    bool count_all = hs->messages_page > 0;
    int page = count_all && hs->messages_page < limit ? hs->messages_page : limit, seen = 0;
    struct json_object *chunk = json_object_new_array();
    long last = -1; /* the last event of the room looked at: the page ends after it */
    bool more = false;
    for (size_t i = json_object_array_length(hs->log); i > 0; i--) {
        struct json_object *e = json_object_array_get_idx(hs->log, i - 1);
        long p = (long)json_object_get_int64(hs_jget(e, "pos"));
        if (p > from || strcmp(hs_jstr(e, "room"), room) != 0)
            continue;
        if (p <= to)
            break;
        bool kept = hs_type_ok(types, hs_jstr(hs_jget(e, "event"), "type"));
        if (!kept && !count_all)
            continue;
        if (seen >= page) {
            more = true;
            break;
        }
        seen++;
        last = p;
        if (kept)
            json_object_array_add(chunk, json_object_get(hs_jget(e, "event")));
    }
    json_object_put(filter);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "start", json_object_new_string(hs_jstr(q, "from")));
    json_object_object_add(r, "chunk", chunk);
    if (more && last > 0) {
        char t[32];
        snprintf(t, sizeof(t), "s%ld", last - 1);
        json_object_object_add(r, "end", json_object_new_string(t));
    }
    hs_reply(rs, 200, r);
}

/* ---- control API ---- */

char *hs_create_room(struct hs *hs, const char *creator, bool encrypted)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *rq = one("preset", json_object_new_string("private_chat"));
    char *id = make_room(hs, creator, rq, encrypted ? 1 : 0);
    json_object_put(rq);
    hs_unlock_wake(hs);
    return id;
}

char *hs_create_room_as(struct hs *hs, const char *creator, const char *preset)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *rq = one("preset", json_object_new_string(preset));
    char *id = make_room(hs, creator, rq, -1);
    json_object_put(rq);
    hs_unlock_wake(hs);
    return id;
}

char *hs_open_dm(struct hs *hs, const char *user)
{
    /* Element's new DM: trusted_private_chat, is_direct, the bot invited, and encryption in
     * the initial state (Element turns it on when every invitee has a device with keys). */
    struct json_object *rq = json_object_new_object();
    json_object_object_add(rq, "preset", json_object_new_string("trusted_private_chat"));
    json_object_object_add(rq, "is_direct", json_object_new_boolean(1));
    struct json_object *inv = json_object_new_array();
    json_object_array_add(inv, json_object_new_string(HS_BOT));
    json_object_object_add(rq, "invite", inv);
    struct json_object *enc = json_object_new_object();
    json_object_object_add(enc, "type", json_object_new_string("m.room.encryption"));
    json_object_object_add(enc, "state_key", json_object_new_string(""));
    json_object_object_add(enc, "content", one("algorithm", json_object_new_string(MEGOLM)));
    struct json_object *init = json_object_new_array();
    json_object_array_add(init, enc);
    json_object_object_add(rq, "initial_state", init);
    uv_mutex_lock(&hs->mu);
    char *id = make_room(hs, user, rq, -1);
    hs_unlock_wake(hs);
    json_object_put(rq);
    return id;
}

void hs_enable_encryption(struct hs *hs, const char *room, const char *user)
{
    uv_mutex_lock(&hs->mu);
    state(hs, room, user, "m.room.encryption", one("algorithm", json_object_new_string(MEGOLM)));
    hs_unlock_wake(hs);
}

struct json_object *hs_room_members(struct hs *hs, const char *room)
{
    struct json_object *out = json_object_new_array();
    uv_mutex_lock(&hs->mu);
    json_object_object_foreach(hs_iter(hs_jget(hs_room(hs, room), "members")), u, ms)
    {
        if (strcmp(json_object_get_string(ms), "join") == 0)
            json_object_array_add(out, json_object_new_string(u));
    }
    uv_mutex_unlock(&hs->mu);
    return out;
}

bool hs_room_encrypted(struct hs *hs, const char *room)
{
    uv_mutex_lock(&hs->mu);
    bool enc = hs_jget(hs_jget(hs_room(hs, room), "state"), "m.room.encryption|") != NULL;
    uv_mutex_unlock(&hs->mu);
    return enc;
}

/* A member event for user by sender, with one extra content field when key is given. */
static void member(struct hs *hs, const char *room, const char *sender, const char *user,
                   const char *ms, const char *key, struct json_object *value)
{
    struct json_object *c = hs_member_content(ms);
    if (key)
        json_object_object_add(c, key, value);
    uv_mutex_lock(&hs->mu);
    free(hs_add_event(hs, room, sender, "m.room.member", user, c));
    hs_unlock_wake(hs);
}

void hs_join(struct hs *hs, const char *room, const char *user)
{
    member(hs, room, user, user, "join", NULL, NULL);
}

void hs_leave(struct hs *hs, const char *room, const char *user)
{
    member(hs, room, user, user, "leave", NULL, NULL);
}

void hs_set_displayname(struct hs *hs, const char *room, const char *user, const char *name)
{
    member(hs, room, user, user, "join", "displayname", json_object_new_string(name));
}

void hs_invite_bot(struct hs *hs, const char *room, const char *inviter)
{
    member(hs, room, inviter, HS_BOT, "invite", NULL, NULL);
}

void hs_invite_bot_direct(struct hs *hs, const char *room, const char *inviter)
{
    member(hs, room, inviter, HS_BOT, "invite", "is_direct", json_object_new_boolean(1));
}

void hs_set_power(struct hs *hs, const char *room, const char *user, int level)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *r = hs_room(hs, room);
    struct json_object *old = hs_jget(hs_jget(r, "state"), "m.room.power_levels|");
    struct json_object *pl = NULL;
    json_object_deep_copy(hs_jget(old, "content"), &pl, NULL);
    json_object_object_add(hs_jobj(pl, "users"), user, json_object_new_int(level));
    free(hs_add_event(hs, room, hs_jstr(old, "sender"), "m.room.power_levels", "", pl));
    hs_unlock_wake(hs);
}

char *hs_send(struct hs *hs, const char *room, const char *user, const char *type,
              const char *content_json)
{
    uv_mutex_lock(&hs->mu);
    char *id = hs_add_event(hs, room, user, type, NULL, json_tokener_parse(content_json));
    hs_unlock_wake(hs);
    return id;
}

char *hs_say(struct hs *hs, const char *room, const char *user, const char *text)
{
    struct json_object *c = hs_text_content(text);
    char *id = hs_send(hs, room, user, "m.room.message", json_object_to_json_string(c));
    json_object_put(c);
    return id;
}

struct json_object *hs_text_content(const char *text)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "msgtype", json_object_new_string("m.text"));
    json_object_object_add(c, "body", json_object_new_string(text));
    return c;
}

struct json_object *hs_reaction_content(const char *target, const char *key)
{
    struct json_object *rel = json_object_new_object();
    json_object_object_add(rel, "rel_type", json_object_new_string("m.annotation"));
    json_object_object_add(rel, "event_id", json_object_new_string(target));
    json_object_object_add(rel, "key", json_object_new_string(key));
    return one("m.relates_to", rel);
}

char *hs_react(struct hs *hs, const char *room, const char *user, const char *target,
               const char *key)
{
    struct json_object *c = hs_reaction_content(target, key);
    char *id = hs_send(hs, room, user, "m.reaction", json_object_to_json_string(c));
    json_object_put(c);
    return id;
}

struct json_object *hs_poll_vote_content(const char *poll, const char *answer, int form,
                                         const char **type)
{
    struct json_object *rel = json_object_new_object();
    json_object_object_add(rel, "rel_type", json_object_new_string("m.reference"));
    json_object_object_add(rel, "event_id", json_object_new_string(poll));
    struct json_object *c = one("m.relates_to", rel);
    struct json_object *ans = json_object_new_array();
    json_object_array_add(ans, json_object_new_string(answer));
    if (form == 0) {
        json_object_object_add(c, "org.matrix.msc3381.poll.response", one("answers", ans));
        *type = "org.matrix.msc3381.poll.response";
    } else {
        json_object_object_add(c, "m.selections", ans);
        *type = "m.poll.response";
    }
    return c;
}

char *hs_poll_vote(struct hs *hs, const char *room, const char *user, const char *poll,
                   const char *answer, int form)
{
    const char *type;
    struct json_object *c = hs_poll_vote_content(poll, answer, form, &type);
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
        struct json_object *ev = hs_jget(e, "event");
        if (strcmp(hs_jstr(ev, "sender"), HS_BOT) != 0 || hs_jget(ev, "state_key"))
            continue;
        struct json_object *copy = NULL;
        json_object_deep_copy(ev, &copy, NULL);
        json_object_object_add(copy, "room_id", json_object_new_string(hs_jstr(e, "room")));
        json_object_array_add(out, copy);
    }
    *cursor = n;
    uv_mutex_unlock(&hs->mu);
    return out;
}

long hs_position(struct hs *hs)
{
    uv_mutex_lock(&hs->mu);
    long pos = hs->pos;
    uv_mutex_unlock(&hs->mu);
    return pos;
}

bool hs_bot_has_read(struct hs *hs, long pos)
{
    bool read = false;
    uv_mutex_lock(&hs->mu);
    for (size_t i = 0; i < json_object_array_length(hs->bot_since) && !read; i++)
        read = json_object_get_int64(json_object_array_get_idx(hs->bot_since, i)) >= pos;
    uv_mutex_unlock(&hs->mu);
    return read;
}

struct json_object *hs_bot_clear_sends(struct hs *hs)
{
    struct json_object *out = NULL;
    uv_mutex_lock(&hs->mu);
    json_object_deep_copy(hs->clear_sends, &out, NULL);
    uv_mutex_unlock(&hs->mu);
    return out;
}

struct json_object *hs_bot_events(struct hs *hs, const char *type)
{
    struct json_object *all = json_object_new_array();
    size_t cursor = 0;
    struct json_object *evs = hs_bot_events_after(hs, &cursor);
    for (size_t i = 0; i < json_object_array_length(evs); i++) {
        struct json_object *ev = json_object_array_get_idx(evs, i);
        if (!type || strcmp(hs_jstr(ev, "type"), type) == 0)
            json_object_array_add(all, json_object_get(ev));
    }
    json_object_put(evs);
    return all;
}
