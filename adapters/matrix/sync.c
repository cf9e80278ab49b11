/*
 * sync.c - start-up calls and the /sync loop.
 *
 * Start-up: whoami, upload the filter, read m.direct, then one snapshot sync
 * with a timeline limit of 0 that gives the current state of every room
 * (power levels, encryption, invites) and, on the very first start, the
 * token to begin from, so old history is never handled. Then long polls from
 * the stored next_batch, which is written to the store after each batch
 * (after the commit of what the batch changed).
 *
 * Nothing is handled twice: event ids delivered in the batch in flight are
 * stored too, so a crash in the middle of a batch skips them when the batch
 * comes again. Those ids are written with the bot's commit of the changes the
 * events caused (mx_state_defer), never before it: a crash in between loses
 * both, and the event is handled again. The batch's token is written once the
 * bot has committed the whole batch, before any answer to it leaves.
 *
 * Nothing is lost: a limited timeline is completed with
 * /rooms/{roomId}/messages from its prev_batch back to the previous token.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../bot/log.h"
#include "client.h"
#include "core/catalog.h"
#include "mx.h"

#define MOD "matrix"

static const char *const timeline_types[] = {
    "m.room.message",      "m.room.encrypted",
    "m.reaction",          "org.matrix.msc3381.poll.response",
    "m.poll.response",     "m.room.member",
    "m.room.power_levels", "m.room.encryption",
    "m.room.name",         "m.room.canonical_alias",
};
static const char *const state_types[] = {"m.room.member",     "m.room.power_levels",
                                          "m.room.encryption", MX_DM_MARKER,
                                          "m.room.name",       "m.room.canonical_alias"};

static struct json_object *str_array(const char *const *v, size_t n)
{
    struct json_object *a = json_object_new_array();
    for (size_t i = 0; i < n; i++)
        json_object_array_add(a, json_object_new_string(v[i]));
    return a;
}

static struct json_object *filter_new(int timeline_limit)
{
    struct json_object *f = json_object_new_object();
    struct json_object *none = json_object_new_object();
    json_object_object_add(none, "not_types", str_array((const char *const[]){"*"}, 1));
    json_object_object_add(f, "presence", none);
    struct json_object *ad = json_object_new_object();
    json_object_object_add(ad, "types", str_array((const char *const[]){"m.direct"}, 1));
    json_object_object_add(f, "account_data", ad);

    struct json_object *room = json_object_new_object();
    struct json_object *tl = json_object_new_object();
    json_object_object_add(
        tl, "types", str_array(timeline_types, sizeof timeline_types / sizeof *timeline_types));
    json_object_object_add(tl, "limit", json_object_new_int(timeline_limit));
    json_object_object_add(tl, "lazy_load_members", json_object_new_boolean(1));
    json_object_object_add(room, "timeline", tl);
    struct json_object *st = json_object_new_object();
    json_object_object_add(st, "types",
                           str_array(state_types, sizeof state_types / sizeof *state_types));
    json_object_object_add(st, "lazy_load_members", json_object_new_boolean(1));
    json_object_object_add(room, "state", st);
    struct json_object *eph = json_object_new_object();
    json_object_object_add(eph, "not_types", str_array((const char *const[]){"*"}, 1));
    json_object_object_add(room, "ephemeral", eph);
    struct json_object *rad = json_object_new_object();
    json_object_object_add(rad, "not_types", str_array((const char *const[]){"*"}, 1));
    json_object_object_add(room, "account_data", rad);
    json_object_object_add(f, "room", room);
    return f;
}

char *mx_filter_json(void)
{
    struct json_object *f = filter_new(50);
    char *s = strdup(json_object_to_json_string_ext(f, JSON_C_TO_STRING_PLAIN));
    json_object_put(f);
    return s;
}

bool mx_seen(struct mx *m, const char *event_id)
{
    for (size_t i = 0; i < MX_SEEN_MAX; i++)
        if (m->seen[i] && strcmp(m->seen[i], event_id) == 0)
            return true;
    return false;
}

void mx_seen_add(struct mx *m, const char *event_id)
{
    char *copy = strdup(event_id);
    if (!copy)
        return;
    free(m->seen[m->seen_next]);
    m->seen[m->seen_next] = copy;
    m->seen_next = (m->seen_next + 1) % MX_SEEN_MAX;
}

/* ---- delivering one timeline event ---- */

/* The text of a message without the quoted fallback of a reply. */
static const char *strip_reply(struct json_object *content, const char *body)
{
    struct json_object *rel = jget_obj(content, "m.relates_to");
    if (!rel || !jget_obj(rel, "m.in_reply_to"))
        return body;
    const char *p = body;
    while (p[0] == '>') {
        const char *nl = strchr(p, '\n');
        if (!nl)
            return body;
        p = nl + 1;
    }
    if (p != body && *p == '\n')
        p++;
    return *p ? p : body;
}

static void record_inflight(struct mx *m, const char *event_id)
{
    mx_seen_add(m, event_id);
    json_object_array_add(m->inflight, json_object_new_string(event_id));
    mx_state_defer_json(m, "inflight", m->inflight);
}

static void deliver(struct mx *m, struct inbound *in, const char *event_id)
{
    in->order = ++m->order;
    record_inflight(m, event_id);
    m->base.host->deliver(m->base.host->ctx, &m->base, in);
}

/* The action a poll response selects, or NULL. */
static const char *poll_choice(struct mx *m, struct json_object *content)
{
    struct json_object *rel = jget_obj(content, "m.relates_to");
    const char *target = jget_str(rel, "event_id");
    struct json_object *poll = target ? jget_obj(m->polls, target) : NULL;
    if (!poll)
        return NULL;
    struct json_object *answers = NULL;
    struct json_object *block;
    if ((block = jget_obj(content, "org.matrix.msc3381.poll.response")))
        answers = jget_arr(block, "answers");
    else if ((block = jget_obj(content, "m.poll.response")))
        answers = jget_arr(block, "answers");
    else
        answers = jget_arr(content, "m.selections");
    if (jarr_len(answers) == 0)
        return NULL; /* no selection: nothing to count */
    const char *id = jarr_str(answers, 0);
    return id ? jget_str(jget_obj(poll, "answers"), id) : NULL;
}

void mx_room_notice(struct mx *m, struct mx_room *r, const char *catalog_key)
{
    uint64_t now = clock_wall_ms();
    if (r->notice_ms && now - r->notice_ms < MX_NOTICE_EVERY_MS)
        return;
    r->notice_ms = now;
    mx_send_plain_notice(m, r->id, catalog_text(m->language, catalog_key));
}

/* One handler per timeline event type, in the table below; in holds the sender and room. */
typedef void event_handler(struct mx *m, struct mx_room *r, struct json_object *ev,
                           struct inbound *in);

static void on_encrypted(struct mx *m, struct mx_room *r, struct json_object *ev,
                         struct inbound *in)
{
    (void)in;
    struct json_object *dec = NULL;
    int rc = mx_e2e_decrypt(m, r, ev, &dec);
    const char *inner = jget_str(dec, "type");
    if (rc == 0 && inner && strcmp(inner, "m.room.encrypted") != 0)
        mx_handle_event(m, r, dec); /* as if it had come in the clear */
    else if (rc < 0)
        mx_seen_add(m, jget_str(ev, "event_id")); /* bad for good (logged): not tried again */
    json_object_put(dec);
}

static void on_message(struct mx *m, struct mx_room *r, struct json_object *ev, struct inbound *in)
{
    (void)r;
    struct json_object *content = jget_obj(ev, "content");
    const char *msgtype = jget_str(content, "msgtype");
    const char *body = jget_str(content, "body");
    struct json_object *rel = jget_obj(content, "m.relates_to");
    const char *rel_type = jget_str(rel, "rel_type");
    if (!msgtype || strcmp(msgtype, "m.text") != 0 || !body)
        return; /* notices (other bots), emotes, media */
    if (rel_type && strcmp(rel_type, "m.replace") == 0)
        return; /* an edit of an earlier line is not a new command */
    in->type = INBOUND_MESSAGE;
    in->text = strip_reply(content, body);
    deliver(m, in, jget_str(ev, "event_id"));
}

/* A reaction: on a vote's message, the command its key maps to; elsewhere, the reaction
 * on the message it marks. */
static void on_reaction(struct mx *m, struct mx_room *r, struct json_object *ev, struct inbound *in)
{
    (void)r;
    struct json_object *rel = jget_obj(jget_obj(ev, "content"), "m.relates_to");
    const char *rel_type = jget_str(rel, "rel_type");
    const char *target = jget_str(rel, "event_id");
    const char *key = jget_str(rel, "key");
    const char *event_id = jget_str(ev, "event_id");
    if (!rel_type || strcmp(rel_type, "m.annotation") != 0 || !target || !key)
        return;
    struct json_object *vote = jget_obj(m->votes, target);
    if (vote) {
        const char *act = jget_str(jget_obj(vote, "map"), key);
        if (act) {
            in->type = INBOUND_COMMAND;
            in->text = act;
            deliver(m, in, event_id);
        }
        return;
    }
    char *msg_key = mx_key_for_event(m, target);
    if (msg_key) {
        in->type = INBOUND_REACTION;
        in->msg_key = msg_key;
        in->reaction = key;
        deliver(m, in, event_id);
        free(msg_key);
    }
}

static void on_poll_response(struct mx *m, struct mx_room *r, struct json_object *ev,
                             struct inbound *in)
{
    const char *act = poll_choice(m, jget_obj(ev, "content"));
    if (act) {
        in->type = INBOUND_COMMAND;
        in->channel = r->id;
        in->text = act;
        deliver(m, in, jget_str(ev, "event_id"));
    }
}

static const struct {
    const char *type;
    event_handler *handle;
} event_handlers[] = {
    {"m.room.encrypted", on_encrypted},    {"m.room.message", on_message},
    {"m.reaction", on_reaction},           {"org.matrix.msc3381.poll.response", on_poll_response},
    {"m.poll.response", on_poll_response},
};

void mx_handle_event(struct mx *m, struct mx_room *r, struct json_object *ev)
{
    const char *type = jget_str(ev, "type");
    const char *sender = jget_str(ev, "sender");
    const char *event_id = jget_str(ev, "event_id");
    struct json_object *content = jget_obj(ev, "content");
    if (!type || !sender || !event_id || !content || strcmp(sender, m->user_id) == 0)
        return;
    if (mx_seen(m, event_id))
        return;
    const char *dm = mx_dm_user(m, r->id);
    struct inbound in = {
        .channel = dm ? NULL : r->id,
        .user = sender,
        .user_name = jget_str(r->names, sender),
        .moderator = dm ? false : mx_room_is_moderator(m, r, sender),
    };
    for (size_t i = 0; i < sizeof event_handlers / sizeof *event_handlers; i++)
        if (strcmp(type, event_handlers[i].type) == 0) {
            event_handlers[i].handle(m, r, ev, &in);
            return;
        }
}

/* ---- one sync batch ---- */

/*
 * Member key of o if it has the given type, else NULL. Every section of a /sync answer is
 * optional (a homeserver leaves empty ones out), so absence is normal; a member present with
 * another type is logged once per name, and the caller goes on without it.
 */
static struct json_object *field(struct mx *m, struct json_object *o, const char *key, int type)
{
    struct json_object *v = jget(o, key);
    if (!v)
        return NULL;
    if (json_object_is_type(v, (json_type)type))
        return v;
    if (m->warned && !jget_type(m->warned, key, json_type_boolean)) {
        json_object_object_add(m->warned, key, json_object_new_boolean(1));
        log_warn(MOD, NULL, "/sync: \"%s\" is a %s, not a %s; skipping it", key,
                 json_type_to_name(json_object_get_type(v)), json_type_to_name((json_type)type));
    }
    return NULL;
}

/* The "events" array of section key of o ("state", "timeline", "account_data"...), or NULL. */
static struct json_object *events_of(struct mx *m, struct json_object *o, const char *key)
{
    return field(m, field(m, o, key, json_type_object), "events", json_type_array);
}

static void handle_invites(struct mx *m, struct json_object *invites)
{
    if (!invites)
        return;
    json_object_object_foreach(invites, room_id, room)
    {
        struct json_object *evs = events_of(m, room, "invite_state");
        const char *inviter = NULL;
        bool direct = false;
        for (size_t i = 0; evs && i < json_object_array_length(evs); i++) {
            struct json_object *ev = json_object_array_get_idx(evs, i);
            struct json_object *c = jget_obj(ev, "content");
            const char *t = jget_str(ev, "type"), *sk = jget_str(ev, "state_key");
            const char *ms = jget_str(c, "membership");
            if (t && sk && ms && strcmp(t, "m.room.member") == 0 && strcmp(sk, m->user_id) == 0 &&
                strcmp(ms, "invite") == 0) {
                inviter = jget_str(ev, "sender");
                direct = jget_true(c, "is_direct");
            }
        }
        mx_invite(m, room_id, inviter, direct);
    }
}

static struct json_object *gap_events_for(struct mx *m, const char *room_id)
{
    for (size_t i = 0; m->gaps && i < json_object_array_length(m->gaps); i++) {
        struct json_object *g = json_object_array_get_idx(m->gaps, i);
        const char *r = jget_str(g, "room");
        if (r && strcmp(r, room_id) == 0)
            return jget_arr(g, "events");
    }
    return NULL;
}

static void timeline_event(struct mx *m, struct mx_room *r, struct json_object *ev, bool initial)
{
    if (jget_str(ev, "state_key"))
        mx_room_apply_state(m, r, ev);
    if (!initial)
        mx_handle_event(m, r, ev);
}

static void sync_next(struct mx *m);

/* Start-up is over: polls, probes and the outbox resume, and the long polls begin. */
static void go_live(struct mx *m)
{
    m->phase = MX_SYNCING;
    mx_e2e_start(m);
    log_info(MOD, NULL, "connected as %s; syncing from %s", m->user_id,
             m->since_stored ? "the stored token" : "now");
    mx_polls_arm(m);
    mx_joins_resume(m);
    mx_probes_after_snapshot(m);
    mx_pump(m);
    if (m->phase == MX_SYNCING)
        sync_next(m);
}

/* The account data's m.direct: which rooms are whose private rooms. */
static void account_data_apply(struct mx *m, struct json_object *batch)
{
    struct json_object *ad = events_of(m, batch, "account_data");
    for (size_t i = 0; ad && i < json_object_array_length(ad); i++) {
        struct json_object *ev = json_object_array_get_idx(ad, i);
        const char *t = jget_str(ev, "type");
        if (t && strcmp(t, "m.direct") == 0)
            mx_direct_set(m, jget_obj(ev, "content"));
    }
}

static void leaves_apply(struct mx *m, struct json_object *leave)
{
    if (!leave)
        return;
    json_object_object_foreach(leave, lid, lroom)
    {
        (void)lroom;
        struct mx_room *r = mx_room_get(m, lid, false);
        if (r && r->joined) {
            r->joined = false;
            r->dirty = true;
        }
    }
}

/* How many are in the room (sent when it changes, lazy loading members). */
static void summary_apply(struct mx *m, struct mx_room *r, struct json_object *room)
{
    struct json_object *sum = field(m, room, "summary", json_type_object);
    int64_t n;
    if (jget_int64(sum, "m.joined_member_count", &n) == 0 && n != r->joined_n) {
        r->joined_n = (int)n;
        r->dirty = true;
    }
    if (jget_int64(sum, "m.invited_member_count", &n) == 0 && n != r->invited_n) {
        r->invited_n = (int)n;
        r->dirty = true;
    }
}

/* A joined room's section: its state, its members' count, then the events of an earlier gap
 * and its timeline. */
static void join_apply(struct mx *m, const char *room_id, struct json_object *room, bool initial)
{
    struct mx_room *r = mx_room_get(m, room_id, true);
    if (!r)
        return;
    if (!r->joined)
        r->dirty = true;
    r->joined = true;
    struct json_object *st = events_of(m, room, "state");
    for (size_t i = 0; st && i < json_object_array_length(st); i++)
        mx_room_apply_state(m, r, json_object_array_get_idx(st, i));
    summary_apply(m, r, room);
    struct json_object *gap = gap_events_for(m, room_id);
    for (size_t i = gap ? json_object_array_length(gap) : 0; i > 0; i--)
        timeline_event(m, r, json_object_array_get_idx(gap, i - 1), initial);
    struct json_object *tl = events_of(m, room, "timeline");
    for (size_t i = 0; tl && i < json_object_array_length(tl); i++)
        timeline_event(m, r, json_object_array_get_idx(tl, i), initial);
    if (!r->state_seen) { /* its state and timeline are applied: encrypted or not is known */
        r->state_seen = true;
        r->dirty = true;
    }
}

static void batch_apply(struct mx *m)
{
    struct json_object *b = m->batch;
    bool initial = m->batch_initial;
    m->declined = 0;
    struct json_object *rooms = field(m, b, "rooms", json_type_object);
    account_data_apply(m, b);
    /* keys first: the batch's own encrypted events may need the room keys it brings */
    mx_e2e_sync(m, b);
    struct json_object *leave = field(m, rooms, "leave", json_type_object);
    struct json_object *join = field(m, rooms, "join", json_type_object);
    leaves_apply(m, leave);
    if (join) {
        json_object_object_foreach(join, room_id, room)
        {
            join_apply(m, room_id, room, initial);
            if (m->phase != MX_SNAPSHOT && m->phase != MX_SYNCING)
                return; /* stopped from a deliver() */
        }
    }
    handle_invites(m, field(m, rooms, "invite", json_type_object));
}

static void batch_done(struct mx *m)
{
    const char *next = jget_str(m->batch, "next_batch");
    bool snapshot = m->phase == MX_SNAPSHOT;
    if (m->phase == MX_SNAPSHOT || m->phase == MX_SYNCING) {
        /* The batch's changes are committed (and their answers handed over)
         * before its token is stored, and the token is stored before those
         * answers can leave: a crash in between applies the batch again, which
         * the bot's undone changes need, and answers nothing twice. */
        const struct platform_host *h = m->base.host;
        if (h->flush)
            h->flush(h->ctx);
        /* What the batch taught about rooms is stored before its token: a crash in between
         * applies the batch again, which changes nothing. */
        mx_rooms_tidy(m);
        mx_rooms_save(m);
        mx_e2e_batch_done(m);
        if (!snapshot || !m->since) {
            free(m->since);
            m->since = strdup(next);
            mx_state_set(m, "since", m->since);
            m->since_current = true;
        }
        json_object_put(m->inflight);
        m->inflight = json_object_new_array();
        mx_state_defer_json(m, "inflight", m->inflight);
    }
    json_object_put(m->batch);
    m->batch = NULL;
    json_object_put(m->gaps);
    m->gaps = NULL;
    if (snapshot) {
        go_live(m);
        return;
    } else if (m->phase == MX_SYNCING && json_object_object_length(m->dm_recheck) > 0) {
        mx_dm_recheck(m, false);
    }
    /* rooms whose state this batch showed first may have messages waiting */
    mx_pump(m);
    if (m->phase == MX_SYNCING)
        sync_next(m);
}

/* What one gap may cost: the events kept (memory), the pages asked (a server whose pages come
 * empty with ever new tokens would hold the sync back for good). */
#define GAP_EVENTS_MAX 1000
#define GAP_PAGES_MAX  200

static void fill_next_gap(struct mx *m);

static enum mx_next on_gap(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    struct json_object *g = json_object_array_get_idx(m->gaps, m->gap_idx);
    struct json_object *chunk = jget_arr(r->json, "chunk");
    if (r->status == 200 && !chunk)
        return MX_RETRY;
    m->sync_call = NULL;
    if (r->status != 200) {
        log_warn(MOD, NULL, "cannot fill a gap in %s: HTTP %ld %s", jget_str(g, "room"), r->status,
                 r->errcode ? r->errcode : "");
        m->gap_idx++;
        fill_next_gap(m);
        return MX_DONE;
    }
    struct json_object *events = jget_arr(g, "events");
    /* dir=b gives newest first; the list stays newest first and is read backwards. */
    for (size_t i = 0; i < json_object_array_length(chunk); i++)
        json_object_array_add(events, json_object_get(json_object_array_get_idx(chunk, i)));
    /* an empty chunk with an end is not the end of the gap: a server may count the events the
     * filter drops against a page; the same token again would not move on */
    const char *end = jget_str(r->json, "end");
    int64_t pages = jget_int64_or(g, "pages", 0) + 1;
    json_object_object_add(g, "pages", json_object_new_int64(pages));
    if (end && strcmp(end, jget_str(g, "from")) != 0 &&
        json_object_array_length(events) < GAP_EVENTS_MAX && pages < GAP_PAGES_MAX) {
        json_object_object_add(g, "from", json_object_new_string(end));
    } else {
        m->gap_idx++;
    }
    fill_next_gap(m);
    return MX_DONE;
}

static void fill_next_gap(struct mx *m)
{
    if (m->phase != MX_SYNCING)
        return;
    if (!m->gaps || m->gap_idx >= json_object_array_length(m->gaps)) {
        batch_apply(m);
        batch_done(m);
        return;
    }
    struct json_object *g = json_object_array_get_idx(m->gaps, m->gap_idx);
    struct json_object *f = filter_new(100);
    struct json_object *tl = jget_obj(jget_obj(f, "room"), "timeline");
    char *ef = mx_escape(json_object_to_json_string_ext(tl, JSON_C_TO_STRING_PLAIN));
    json_object_put(f);
    char *er = mx_escape(jget_str(g, "room"));
    char *efrom = mx_escape(jget_str(g, "from"));
    char *eto = mx_escape(m->since);
    char *path = NULL;
    if (ef && er && efrom && eto) {
        size_t n = strlen(ef) + strlen(er) + strlen(efrom) + strlen(eto) + 128;
        path = malloc(n);
        if (path)
            snprintf(path, n,
                     "/_matrix/client/v3/rooms/%s/messages?dir=b&limit=100&from=%s&to=%s&filter=%s",
                     er, efrom, eto, ef);
    }
    free(ef);
    free(er);
    free(efrom);
    free(eto);
    if (path)
        m->sync_call =
            mx_http_call(m->http, "GET", path, NULL, MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_gap, m);
    free(path);
    if (!m->sync_call) {
        m->gap_idx++;
        fill_next_gap(m);
    }
}

static enum mx_next on_sync(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    if (r->status == 401) {
        m->sync_call = NULL;
        mx_token_rejected(m, "/sync");
        return MX_DONE;
    }
    if (r->status != 200) {
        log_warn(MOD, NULL, "/sync failed: HTTP %ld %s; retrying", r->status,
                 r->errcode ? r->errcode : "");
        return MX_RETRY;
    }
    const char *next = jget_str(r->json, "next_batch");
    if (!next || !*next) {
        log_warn(MOD, NULL, "/sync answer without next_batch; retrying");
        return MX_RETRY;
    }
    m->sync_call = NULL;               /* before applying: the batch may start the next long poll */
    if (mx_sync_apply(m, r->json) < 0) /* only without next_batch, checked above */
        log_error(MOD, NULL, "/sync answer not applied");
    return MX_DONE;
}

int mx_sync_apply(struct mx *m, struct json_object *body)
{
    if (!jget_str(body, "next_batch"))
        return -1;
    json_object_put(m->batch);
    json_object_put(m->gaps);
    m->batch = json_object_get(body);
    m->batch_initial = m->phase == MX_SNAPSHOT;
    m->gaps = json_object_new_array();
    m->gap_idx = 0;
    struct json_object *join =
        field(m, field(m, body, "rooms", json_type_object), "join", json_type_object);
    if (!m->batch_initial && m->since && join) {
        json_object_object_foreach(join, room_id, room)
        {
            struct json_object *tl = field(m, room, "timeline", json_type_object);
            struct json_object *lim = field(m, tl, "limited", json_type_boolean);
            const char *prev = jget_str(tl, "prev_batch");
            if (lim && json_object_get_boolean(lim) && prev) {
                struct json_object *g = json_object_new_object();
                json_object_object_add(g, "room", json_object_new_string(room_id));
                json_object_object_add(g, "from", json_object_new_string(prev));
                json_object_object_add(g, "events", json_object_new_array());
                json_object_array_add(m->gaps, g);
                log_info(MOD, NULL, "limited timeline in %s: fetching the gap", room_id);
            }
        }
    }
    if (m->batch_initial) {
        batch_apply(m);
        batch_done(m);
    } else {
        fill_next_gap(m);
    }
    return 0;
}

void mx_sync_settle(struct mx *m)
{
    while (m->batch && m->sync_call) { /* a gap being fetched: go on without it */
        mx_call_cancel(m->sync_call);
        m->sync_call = NULL;
        m->gap_idx++;
        fill_next_gap(m);
    }
    mx_call_cancel(m->sync_call); /* the next long poll */
    m->sync_call = NULL;
}

static void sync_next(struct mx *m)
{
    if (m->phase != MX_SYNCING || m->sync_call)
        return;
    char *ef = mx_escape(m->filter_id);
    char *es = mx_escape(m->since);
    char *path = NULL;
    if (ef && es) {
        size_t n = strlen(ef) + strlen(es) + 96;
        path = malloc(n);
        if (path)
            snprintf(path, n, "/_matrix/client/v3/sync?filter=%s&timeout=%d&since=%s", ef,
                     MX_SYNC_TIMEOUT_MS, es);
    }
    free(ef);
    free(es);
    m->syncs_started++;
    if (path)
        m->sync_call = mx_http_call(m->http, "GET", path, NULL, MX_SYNC_TIMEOUT_MS + 30000,
                                    MX_CALL_RETRY, on_sync, m);
    free(path);
    if (!m->sync_call)
        mx_fail(m, "cannot start /sync (out of memory)");
}

static void snapshot(struct mx *m)
{
    m->phase = MX_SNAPSHOT;
    struct json_object *f = filter_new(0);
    char *ef = mx_escape(json_object_to_json_string_ext(f, JSON_C_TO_STRING_PLAIN));
    json_object_put(f);
    char *path = NULL;
    if (ef) {
        size_t n = strlen(ef) + 64;
        path = malloc(n);
        if (path)
            snprintf(path, n, "/_matrix/client/v3/sync?timeout=0&filter=%s", ef);
    }
    free(ef);
    m->syncs_started++;
    if (path)
        m->sync_call = mx_http_call(m->http, "GET", path, NULL, MX_CALL_TIMEOUT_MS * 4,
                                    MX_CALL_RETRY, on_sync, m);
    free(path);
    if (!m->sync_call)
        mx_fail(m, "cannot start the first /sync (out of memory)");
}

/* ---- start-up chain: [login], whoami, filter, m.direct, then the stored token or a snapshot ----
 */

/* The stored token's long polls, or on a very first start a snapshot. */
static void first_sync(struct mx *m)
{
    if (m->since)
        go_live(m);
    else
        snapshot(m);
}

static void boot_filter(struct mx *m);
static void boot_direct(struct mx *m);
static void boot_whoami(struct mx *m);

static enum mx_next on_direct(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    if (r->status == 200 && r->json)
        mx_direct_set(m, r->json);
    else if (r->status == 404)
        ; /* M_NOT_FOUND: no direct rooms yet */
    else if (r->status == 401) {
        m->boot_call = NULL;
        mx_token_rejected(m, "reading m.direct");
        return MX_DONE;
    } else {
        return MX_RETRY;
    }
    m->boot_call = NULL;
    mx_direct_flush(m);
    /* With a stored token the rooms come from the store: an initial sync may be a cached,
     * stale copy, so it is only used on the very first start. */
    m->since_stored = m->since != NULL;
    mx_e2e_start(m); /* before any batch: the first may bring to-device messages */
    m->keys_wait = mx_e2e_keys_wait(m);
    if (m->keys_wait)
        log_info(MOD, NULL, "the first sync waits until the homeserver has the device's keys");
    else
        first_sync(m);
    return MX_DONE;
}

void mx_sync_keys_taken(struct mx *m)
{
    if (!m->keys_wait || m->phase != MX_STARTING || m->relogin || m->boot_call)
        return;
    m->keys_wait = false;
    first_sync(m);
}

static void boot_direct(struct mx *m)
{
    char *eu = mx_escape(m->user_id);
    char path[1024];
    snprintf(path, sizeof(path), "/_matrix/client/v3/user/%s/account_data/m.direct", eu ? eu : "");
    free(eu);
    m->boot_call =
        mx_http_call(m->http, "GET", path, NULL, MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_direct, m);
}

static enum mx_next on_filter(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    const char *id = jget_str(r->json, "filter_id");
    if (r->status == 200 && !id)
        return MX_RETRY;
    m->boot_call = NULL;
    if (r->status == 401) {
        mx_token_rejected(m, "uploading the filter");
        return MX_DONE;
    }
    if (r->status != 200) {
        mx_fail(m, "the homeserver refused the sync filter");
        return MX_DONE;
    }
    free(m->filter_id);
    m->filter_id = strdup(id);
    boot_direct(m);
    return MX_DONE;
}

static void boot_filter(struct mx *m)
{
    char *eu = mx_escape(m->user_id);
    char path[1024];
    snprintf(path, sizeof(path), "/_matrix/client/v3/user/%s/filter", eu ? eu : "");
    free(eu);
    char *f = mx_filter_json();
    m->boot_call =
        mx_http_call(m->http, "POST", path, f, MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_filter, m);
    free(f);
}

static enum mx_next on_whoami(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    const char *uid = jget_str(r->json, "user_id");
    if (r->status == 200 && !uid)
        return MX_RETRY;
    m->boot_call = NULL;
    if (r->status == 401) {
        mx_token_rejected(m, "whoami");
        return MX_DONE;
    }
    if (r->status != 200) {
        mx_fail(m, "whoami failed: the access token was rejected");
        return MX_DONE;
    }
    if (!m->user_id || strcmp(m->user_id, uid) != 0) {
        if (m->user_id)
            log_warn(MOD, NULL, "the token belongs to %s, not the configured %s", uid, m->user_id);
        free(m->user_id);
        m->user_id = strdup(uid);
    }
    const char *dev = jget_str(r->json, "device_id");
    if (dev && (!m->device_id || strcmp(m->device_id, dev) != 0)) {
        /* the device the encryption keys belong to is the token's */
        free(m->device_id);
        m->device_id = strdup(dev);
    }
    boot_filter(m);
    return MX_DONE;
}

static void boot_whoami(struct mx *m)
{
    m->boot_call = mx_http_call(m->http, "GET", "/_matrix/client/v3/account/whoami", NULL,
                                MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_whoami, m);
    if (!m->boot_call)
        mx_fail(m, "cannot start (out of memory)");
}

static enum mx_next on_login(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    m->boot_call = NULL;
    if (mx_login_done(m, r->status, r->json) != 0) {
        mx_fail(m, "the password login was refused");
        return MX_DONE;
    }
    m->relogin = false;
    boot_whoami(m);
    return MX_DONE;
}

void mx_sync_begin(struct mx *m, bool login)
{
    m->phase = MX_STARTING;
    if (!login) {
        boot_whoami(m);
        return;
    }
    /* Retried by the client, with backoff, while the homeserver cannot be reached. */
    char *body = mx_login_body(m);
    mx_http_clear_token(m->http);
    if (body)
        m->boot_call =
            mx_http_call(m->http, "POST", "/_matrix/client/v3/login", body, MX_CALL_TIMEOUT_MS,
                         MX_CALL_RETRY | MX_CALL_NOAUTH, on_login, m);
    free(body);
    if (!m->boot_call)
        mx_fail(m, "cannot log in (out of memory)");
}
