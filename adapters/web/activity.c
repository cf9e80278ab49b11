/*
 * activity.c - the page as a Discord Activity (adapters/common/activity.h):
 * its sockets belong to Discord users, play the game of their instance's
 * channel, and see that channel's messages and their own DMs as the Discord
 * adapter sends them.
 *
 * A page that Discord launched says first
 *     {"type":"activity","code":"<OAuth2 code>","instance":"<instance id>"}
 * and the Discord adapter checks, with Discord, who the code belongs to and
 * that they are in the instance. The socket then gets
 *     {"type":"authorized","access_token":"...","ticket":"..."}
 * (the token for the SDK's authenticate; the ticket to reconnect with,
 * {"type":"activity","ticket":"..."}, kept hashed in the store for
 * WEB_TICKET_MS, so a reload or a restart needs no new code), then a welcome
 * naming the user and the channel, and the replay of what they can see. A
 * refused page gets an error frame ("activity-bad-code", ...) and is closed:
 * nothing else is opened.
 *
 * Scopes: a Discord table's frames are kept under "d#<channel>", a Discord
 * user's DMs under "d@<user>", both as user scopes (never in the local table's
 * list of tables, stored and read back with the trading rooms). Channel ids
 * and user ids are both Discord snowflakes, which never collide.
 */
#include <inttypes.h>
#include <openssl/rand.h>

#include "adapters/common/activity.h"
#include "bot/util/clock.h"
#include "internal.h"

#define TICKET_PREFIX      "act-ticket:"
#define TICKET_BYTES       24                   /* random bytes in a ticket */
#define WEB_TICKET_MS      (24 * 3600 * 1000LL) /* a ticket's life */
#define WEB_AUTH_WAIT      20                   /* seconds a page may wait for Discord */
#define WEB_TICKETS_MAX    4096                 /* tickets kept; the oldest go first */
#define WEB_ACT_SCOPES_MAX 4096                 /* Discord tables and users kept */

struct ticket {
    LIST_ENTRY(ticket) link;
    char hash[65];
    char *user, *name, *channel, *guild;
    int64_t expires;
};

static void ticket_free(struct ticket *t)
{
    free(t->user);
    free(t->name);
    free(t->channel);
    free(t->guild);
    free(t);
}

static int64_t wall_ms(void)
{
    return (int64_t)clock_wall_ms();
}

/* ---- scopes ---- */

static void scope_id(char *out, size_t len, bool table, const char *id)
{
    snprintf(out, len, "d%c%s", table ? '#' : '@', id);
}

static bool act_scope(const struct scope *s)
{
    return s->is_user && s->id[0] == 'd' && (s->id[1] == '#' || s->id[1] == '@');
}

static bool act_followed(const struct web *w, const char *id)
{
    for (const struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link))
        if (c->activity && ((c->open[0] && strcmp(c->open[0], id) == 0) ||
                            (c->act_dm && strcmp(c->act_dm, id) == 0)))
            return true;
    return false;
}

/* The scope of a Discord table or user, made if new; past WEB_ACT_SCOPES_MAX
 * the oldest that no page follows goes. NULL on no memory. */
static struct scope *act_scope_get(struct web *w, bool table, const char *id)
{
    char sid[WEB_TABLE_MAX + 32];
    scope_id(sid, sizeof sid, table, id);
    struct scope *s = web_scope_find(w, sid, true), *oldest = NULL;
    if (s)
        return s;
    unsigned n = 0;
    LIST_FOREACH(s, &w->scopes, link) /* newest first */
    if (act_scope(s)) {
        n++;
        if (!act_followed(w, s->id))
            oldest = s;
    }
    if (n >= WEB_ACT_SCOPES_MAX && oldest) {
        LIST_REMOVE(oldest, link);
        web_scope_forget(w, oldest);
        web_scope_free(oldest);
    }
    s = web_scope_new(w, sid, true);
    if (s)
        web_users_save(w);
    return s;
}

/* ---- tickets ---- */

static struct ticket *ticket_find(struct web *w, const char *ticket)
{
    char hash[65];
    web_sha256_hex("activity:", ticket, hash);
    struct ticket *t;
    LIST_FOREACH(t, &w->tickets, link)
    if (strcmp(t->hash, hash) == 0)
        return t->expires > wall_ms() ? t : NULL;
    return NULL;
}

static void ticket_forget(struct web *w, struct ticket *t)
{
    char key[80];
    snprintf(key, sizeof key, TICKET_PREFIX "%s", t->hash);
    if (w->base.host->state_del)
        (void)w->base.host->state_del(w->base.host->ctx, &w->base, key);
    LIST_REMOVE(t, link);
    w->ntickets--;
    ticket_free(t);
}

static void ticket_save(struct web *w, const struct ticket *t)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "user", json_object_new_string(t->user));
    json_object_object_add(o, "name", json_object_new_string(t->name));
    json_object_object_add(o, "channel", json_object_new_string(t->channel));
    json_object_object_add(o, "guild", t->guild ? json_object_new_string(t->guild) : NULL);
    json_object_object_add(o, "expires", json_object_new_int64(t->expires));
    char key[80];
    snprintf(key, sizeof key, TICKET_PREFIX "%s", t->hash);
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    if (!text || !w->base.host->state_set ||
        w->base.host->state_set(w->base.host->ctx, &w->base, key, text) < 0)
        log_warn(MOD, NULL, "activity: cannot store a ticket; a reload will ask Discord again");
    json_object_put(o);
}

static struct ticket *ticket_add(struct web *w, const char *hash, const char *user,
                                 const char *name, const char *channel, const char *guild,
                                 int64_t expires)
{
    struct ticket *t = calloc(1, sizeof *t);
    if (!t || !(t->user = strdup(user)) || !(t->name = strdup(name)) ||
        !(t->channel = strdup(channel)) || (guild && !(t->guild = strdup(guild)))) {
        if (t)
            ticket_free(t);
        return NULL;
    }
    snprintf(t->hash, sizeof t->hash, "%s", hash);
    t->expires = expires;
    if (w->ntickets >= WEB_TICKETS_MAX) {
        struct ticket *o, *last = NULL;
        LIST_FOREACH(o, &w->tickets, link)
        last = o;
        if (last)
            ticket_forget(w, last);
    }
    LIST_INSERT_HEAD(&w->tickets, t, link);
    w->ntickets++;
    return t;
}

static bool snowflake(const char *s)
{
    if (!s || !*s || strlen(s) > 20)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

static void ticket_load_one(void *arg, const char *key, const char *value)
{
    struct web *w = arg;
    const char *hash = key + strlen(TICKET_PREFIX);
    struct json_object *o = json_tokener_parse(value);
    const char *user = jget_str(o, "user"), *name = jget_str(o, "name");
    const char *channel = jget_str(o, "channel"), *guild = jget_str(o, "guild");
    int64_t expires = 0;
    if (strlen(hash) == 64 && snowflake(user) && name && snowflake(channel) &&
        (!guild || snowflake(guild)) && jget_int64(o, "expires", &expires) == 0 &&
        expires > wall_ms())
        (void)ticket_add(w, hash, user, name, channel, guild, expires);
    json_object_put(o);
}

void web_activity_sweep(struct web *w)
{
    int64_t now = wall_ms();
    struct ticket *t = LIST_FIRST(&w->tickets), *next;
    for (; t; t = next) {
        next = LIST_NEXT(t, link);
        if (t->expires <= now)
            ticket_forget(w, t);
    }
}

void web_activity_free(struct web *w)
{
    struct ticket *t;
    while ((t = LIST_FIRST(&w->tickets))) {
        LIST_REMOVE(t, link);
        ticket_free(t);
    }
    w->ntickets = 0;
}

/* ---- a page joins ---- */

static struct json_object *welcome(const struct conn *c, bool game)
{
    struct json_object *r = json_object_new_object(), *a = json_object_new_object();
    json_object_object_add(r, "type", json_object_new_string("welcome"));
    json_object_object_add(r, "user", json_object_new_string(c->user));
    json_object_object_add(r, "name", json_object_new_string(c->name));
    json_object_object_add(a, "channel", json_object_new_string(c->act_channel));
    json_object_object_add(a, "game", json_object_new_boolean(game));
    json_object_object_add(r, "activity", a);
    json_object_object_add(r, "games", web_games_json());
    return r;
}

/* Binds c to the ticket's user and channel and shows them what they can see. */
static void seat_page(struct web *w, struct conn *c, const struct ticket *t)
{
    char table[WEB_TABLE_MAX + 32], dm[WEB_TABLE_MAX + 32];
    scope_id(table, sizeof table, true, t->channel);
    scope_id(dm, sizeof dm, false, t->user);
    c->activity = true;
    c->authorizing = 0;
    free(c->user);
    free(c->name);
    c->user = strdup(t->user);
    c->name = strdup(t->name);
    c->act_channel = strdup(t->channel);
    c->act_guild = t->guild ? strdup(t->guild) : NULL;
    c->act_dm = strdup(dm);
    c->open[0] = strdup(table);
    c->nopen = c->open[0] ? 1 : 0;
    if (!c->user || !c->name || !c->act_channel || !c->act_dm || !c->open[0] ||
        (t->guild && !c->act_guild)) {
        web_send_error(c, "internal", "out of memory");
        web_conn_kill(c);
        return;
    }
    if (c->wsi) /* (none when fuzzed) */
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, w->idle_secs);
    struct scope *ts = web_scope_find(w, table, true);
    bool game = ts && ts->phase && ts->n > 0;
    if (!game)
        log_info(MOD, NULL, "activity: %s opened channel %s, which has no game", c->user,
                 c->act_channel);
    struct json_object *r = welcome(c, game);
    web_conn_queue_obj(c, r);
    json_object_put(r);
    web_presence_changed(w);
    struct scope *ds = web_scope_find(w, dm, true);
    if (ds)
        web_scope_replay(c, ds);
    r = json_object_new_object();
    json_object_object_add(r, "type", json_object_new_string("opened"));
    json_object_object_add(r, "channel", json_object_new_string(c->act_channel));
    web_conn_queue_obj(c, r);
    json_object_put(r);
    if (ts)
        web_scope_replay(c, ts);
}

static const char *refusal_code(enum activity_refusal r)
{
    switch (r) {
    case ACTIVITY_BAD_CODE:
        return "activity-bad-code";
    case ACTIVITY_NOT_IN_INSTANCE:
        return "activity-not-in-instance";
    case ACTIVITY_NO_CHANNEL:
        return "activity-no-channel";
    case ACTIVITY_OK:
    case ACTIVITY_UNAVAILABLE:
        break;
    }
    return "activity-unavailable";
}

/* activity_link.authorize's answer: the page waiting with this id, if still open. */
static void authorized(void *arg, uint64_t id, enum activity_refusal r,
                       const struct activity_user *u)
{
    struct web *w = arg;
    struct conn *c;
    LIST_FOREACH(c, &w->conns, link)
    if (c->authorizing == id)
        break;
    if (!c || c->closing)
        return; /* the page went meanwhile */
    c->authorizing = 0;
    if (r != ACTIVITY_OK) {
        web_send_error(c, refusal_code(r), "Discord did not let this page in");
        web_conn_finish(c);
        web_wake_all(w);
        return;
    }
    unsigned char raw[TICKET_BYTES];
    char ticket[2 * TICKET_BYTES + 1], hash[65];
    if (RAND_bytes(raw, sizeof raw) != 1) {
        web_send_error(c, "internal", "no randomness for a ticket");
        web_conn_kill(c);
        web_wake_all(w);
        return;
    }
    for (size_t i = 0; i < sizeof raw; i++)
        snprintf(ticket + 2 * i, 3, "%02x", raw[i]);
    web_sha256_hex("activity:", ticket, hash);
    struct ticket *t =
        ticket_add(w, hash, u->user, u->name, u->channel, u->guild, wall_ms() + WEB_TICKET_MS);
    if (!t) {
        web_send_error(c, "internal", "out of memory");
        web_conn_kill(c);
        web_wake_all(w);
        return;
    }
    ticket_save(w, t);
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string("authorized"));
    json_object_object_add(o, "access_token", json_object_new_string(u->access_token));
    json_object_object_add(o, "ticket", json_object_new_string(ticket));
    web_conn_queue_obj(c, o);
    json_object_put(o);
    seat_page(w, c, t);
    web_wake_all(w);
}

static void on_activity(struct web *w, struct conn *c, struct json_object *o)
{
    if (c->user || c->authorizing) {
        web_send_error(c, "already-seated", "this connection already holds a seat");
        return;
    }
    size_t tlen = 0, clen = 0, ilen = 0;
    const char *ticket = web_get_str(o, "ticket", &tlen);
    const char *code = web_get_str(o, "code", &clen);
    const char *instance = web_get_str(o, "instance", &ilen);
    size_t llen = 0;
    const char *lang = web_get_str(o, "lang", &llen);
    snprintf(c->lang, sizeof c->lang, "%s",
             lang && llen < 16 && catalog_match(lang) ? catalog_match(lang) : "");
    if (ticket) {
        struct ticket *t = tlen == 2 * TICKET_BYTES ? ticket_find(w, ticket) : NULL;
        if (!t) {
            log_info(MOD, NULL, "activity: a page came back with an unknown or old ticket");
            web_send_error(c, "activity-bad-ticket", "ask Discord again");
            return;
        }
        seat_page(w, c, t);
        return;
    }
    if (!code || !clen || clen > 256 || !instance || !ilen || ilen > 128) {
        log_warn(MOD, NULL, "activity: refused a page from %s (no code or instance)",
                 c->addr[0] ? c->addr : "?");
        web_send_error(c, "activity-bad-code", "a code and an instance id, from the SDK");
        web_conn_finish(c);
        return;
    }
    c->authorizing = ++w->act_auth_id;
    if (c->wsi)
        lws_set_timeout(c->wsi, PENDING_TIMEOUT_USER_OK, w->hello_secs + WEB_AUTH_WAIT);
    if (w->act->authorize(w->act->discord, code, instance, authorized, w, c->authorizing) < 0) {
        c->authorizing = 0;
        web_send_error(c, "internal", "out of memory");
    }
}

/* ---- a page's inputs ---- */

static void act_deliver(struct web *w, struct conn *c, enum inbound_type type, bool table,
                        const char *text, const char *key, const char *reaction)
{
    char reply[32];
    snprintf(reply, sizeof reply, ACTIVITY_REPLY_PREFIX "%" PRIu64, ++w->order);
    struct inbound in = {
        .type = type,
        .channel = table ? c->act_channel : NULL,
        .user = c->user,
        .user_name = c->name,
        .text = text,
        .msg_key = key,
        .reaction = reaction,
        .reply_to = reply,
        .locale = c->lang[0] ? c->lang : NULL,
        .community = c->act_guild,
    };
    w->act->deliver(w->act->discord, &in);
}

static void act_say(struct web *w, struct conn *c, struct json_object *o, enum inbound_type type)
{
    size_t len = 0, clen = 0;
    const char *text = web_get_str(o, "text", &len);
    const char *channel = jget(o, "channel") ? web_get_str(o, "channel", &clen) : NULL;
    if (jget(o, "channel") && (!channel || strcmp(channel, c->act_channel) != 0)) {
        web_send_error(c, "bad-channel", "this page plays its channel's game only");
        return;
    }
    if (!text || len == 0 || len > WEB_TEXT_MAX) {
        web_send_error(c, "bad-text", "text is a command of 1 to %d bytes", WEB_TEXT_MAX);
        return;
    }
    act_deliver(w, c, type, channel != NULL, text, NULL, NULL);
}

static void act_react(struct web *w, struct conn *c, struct json_object *o)
{
    size_t klen = 0, rlen = 0;
    const char *key = web_get_str(o, "key", &klen);
    const char *reaction = web_get_str(o, "reaction", &rlen);
    if (!key || klen == 0 || klen > WEB_KEY_MAX || !reaction || rlen == 0 || rlen > 32) {
        web_send_error(c, "bad-reaction", "a reaction needs the message's key and an emoji");
        return;
    }
    struct scope *t = web_scope_find(w, c->open[0], true);
    struct scope *dm = web_scope_find(w, c->act_dm, true);
    bool at_table = t && web_scope_has_key(t, key);
    if (!at_table && !(dm && web_scope_has_key(dm, key))) {
        web_send_error(c, "unknown-message", "no message %s here to react to", key);
        return;
    }
    act_deliver(w, c, INBOUND_REACTION, at_table, NULL, key, reaction);
}

bool web_activity_frame(struct web *w, struct conn *c, const char *type, struct json_object *o)
{
    if (!w->act)
        return false;
    if (strcmp(type, "activity") == 0) {
        on_activity(w, c, o);
        return true;
    }
    if (!c->activity) {
        if (strcmp(type, "hello") == 0 && !w->local_table) {
            web_send_error(c, "activity-only", "this server plays in Discord only");
            return true;
        }
        return false;
    }
    if (strcmp(type, "say") == 0)
        act_say(w, c, o, INBOUND_MESSAGE);
    else if (strcmp(type, "command") == 0)
        act_say(w, c, o, INBOUND_COMMAND);
    else if (strcmp(type, "react") == 0)
        act_react(w, c, o);
    else
        web_send_error(c, "activity-only", "a page in Discord plays its channel's game only");
    return true;
}

/* ---- the Discord platform's messages ---- */

static char *frame_of(const struct outbound *m, bool as_dm)
{
    struct json_object *data = (struct json_object *)m->data;
    const char *table = m->channel ? m->channel : jget_str(data, "table");
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string("message"));
    char topic[MSG_TOPIC_MAX]; /* the module's name for it ("hand"), and what it is */
    json_object_object_add(o, "kind",
                           json_object_new_string(msg_label(m->kind, m->key, topic, sizeof topic)));
    json_object_object_add(o, "form", json_object_new_string(msg_kind_name(m->kind)));
    json_object_object_add(o, "channel",
                           m->channel && !as_dm ? json_object_new_string(m->channel) : NULL);
    json_object_object_add(o, "table", table ? json_object_new_string(table) : NULL);
    json_object_object_add(o, "dm", json_object_new_boolean(as_dm || m->user != NULL));
    json_object_object_add(o, "key", m->key && !as_dm ? json_object_new_string(m->key) : NULL);
    json_object_object_add(o, "replace", json_object_new_boolean(m->replace && !as_dm));
    json_object_object_add(o, "text", json_object_new_string(m->text ? m->text : ""));
    json_object_object_add(o, "data", data ? json_object_get(data) : NULL);
    const char *json =
        json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
    char *copy = json ? strdup(json) : NULL;
    json_object_put(o);
    return copy;
}

static void to_pages(struct web *w, const char *scope, const char *json)
{
    for (struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link))
        if (c->activity && c->user &&
            ((c->open[0] && strcmp(c->open[0], scope) == 0) ||
             (c->act_dm && strcmp(c->act_dm, scope) == 0)))
            web_conn_queue(c, json, strlen(json));
}

static void act_mirror(struct platform *p, const struct outbound *m)
{
    struct web *w = (struct web *)p;
    if ((!m->channel) == (!m->user) || (unsigned)m->kind > OUT_GAME_OVER ||
        !snowflake(m->channel ? m->channel : m->user))
        return;
    char *json = frame_of(m, false);
    struct scope *s =
        json ? act_scope_get(w, m->channel != NULL, m->channel ? m->channel : m->user) : NULL;
    if (!s) {
        log_warn(MOD, NULL, "activity: out of memory; a page misses a message");
        free(json);
        return;
    }
    web_scope_cache(s, m->key, m->replace, json);
    web_scope_save(w, s);
    to_pages(w, s->id, json);
    free(json);
    web_wake_all(w);
}

static void act_answer(struct platform *p, const char *user, const struct outbound *m)
{
    struct web *w = (struct web *)p;
    char dm[WEB_TABLE_MAX + 32];
    if (!snowflake(user))
        return;
    scope_id(dm, sizeof dm, false, user);
    /* an answer is for the moment: shown, never replayed */
    char *json = frame_of(m, true);
    if (json)
        to_pages(w, dm, json);
    free(json);
    web_wake_all(w);
}

static void act_news(struct platform *p, const struct game_news *n)
{
    struct web *w = (struct web *)p;
    if (!snowflake(n->table))
        return;
    struct scope *s = act_scope_get(w, true, n->table);
    if (!s)
        return;
    char *copy = strdup(n->phase);
    if (copy) {
        free(s->phase);
        s->phase = copy;
        web_scope_save(w, s);
    }
}

char *web_activity_http(const struct web *w, const char *path, const char **type, size_t *len)
{
    if (!w->act || strcmp(path, "/activity.json") != 0)
        return NULL;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "client_id", json_object_new_string(w->act->client_id));
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    char *body = text ? strdup(text) : NULL;
    json_object_put(o);
    *type = "application/json; charset=utf-8";
    *len = body ? strlen(body) : 0;
    return body;
}

static bool sdk_built_in(void)
{
    for (size_t i = 0; i < web_nassets; i++)
        if (strcmp(web_assets[i].path, "/sdk/index.mjs") == 0)
            return true;
    return false;
}

int web_activity_link(struct platform *p, struct activity_link *l)
{
    struct web *w = (struct web *)p;
    if (!l->discord)
        return 0; /* the Activity is off */
    if (!sdk_built_in()) {
        log_error(MOD, NULL,
                  "[discord] activity is on, but this build has no Embedded App SDK for the "
                  "page: install npm (sh deploy/deps.sh activity) and build again");
        return -1;
    }
    w->act = l;
    l->web = p;
    l->mirror = act_mirror;
    l->answer = act_answer;
    l->news = act_news;
    snprintf(w->act_origin, sizeof w->act_origin, "https://%s.discordsays.com", l->client_id);
    if (w->base.host->state_each)
        (void)w->base.host->state_each(w->base.host->ctx, &w->base, TICKET_PREFIX, ticket_load_one,
                                       w);
    log_info(MOD, NULL, "the Discord Activity is served here (client %s)", l->client_id);
    return 0;
}
