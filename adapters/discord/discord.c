/*
 * discord.c - the Discord platform: configuration, outbound messages (keys
 * mapped to message ids, per-channel queues, DM channels, reactions), and
 * gateway dispatches turned into inbound inputs.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "bot/log.h"
#include "internal.h"

#define DEFAULT_API_URL "https://discord.com/api/v10"
#define ERR_CANNOT_DM   50007
#define UNKNOWN_MESSAGE 10008
/* Discord's global limit of REST requests per second, unless configured. */
#define DEFAULT_GLOBAL_RATE 50u
/* After a 50007, DMs to that user are not attempted for this long: each
 * refusal is a 403, and 403s count towards Discord's invalid-request limit. */
#define DM_REFUSED_HOLD_MS 60000u

static void builder_reset(struct dc_builder *tb)
{
    free(tb->to);
    free(tb->give);
    free(tb->ask);
    tb->to = tb->give = tb->ask = NULL;
}

static void user_free(void *p)
{
    struct dc_user *u = p;
    while (u->pend_head) {
        struct dc_pending *n = u->pend_head;
        u->pend_head = n->next;
        dc_op_free(n->op);
        free(n);
    }
    free(u->dm_channel);
    json_object_put(u->hand);
    builder_reset(&u->tb);
    free(u);
}

static void msg_free(void *p)
{
    struct dc_msg *m = p;
    free(m->channel);
    free(m->id);
    dmap_clear(&m->reacted, NULL);
    free(m);
}

static void role_free(void *p)
{
    struct dc_role *r = p;
    free(r->name);
    free(r);
}

static void guild_free(void *p)
{
    struct dc_guild *g = p;
    free(g->owner);
    dmap_clear(&g->roles, role_free);
    free(g);
}

struct dc_op *dc_op_new(struct dc *dc, enum dc_op_type type)
{
    struct dc_op *op = calloc(1, sizeof(*op));
    if (op) {
        op->dc = dc;
        op->type = type;
    }
    return op;
}

void dc_op_free(struct dc_op *op)
{
    if (!op)
        return;
    free(op->key);
    free(op->channel);
    free(op->user);
    free(op->body);
    free(op->emoji);
    free(op->msg_id);
    free(op);
}

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

struct dc_user *dc_user_get(struct dc *dc, const char *id)
{
    struct dc_user *u = dmap_get(&dc->users, id);
    if (u)
        return u;
    u = calloc(1, sizeof(*u));
    if (!u)
        return NULL;
    if (dmap_put(&dc->users, id, u, NULL) < 0) {
        free(u);
        return NULL;
    }
    return u;
}

static struct dc_msg *msg_get(struct dc *dc, const char *key, const char *channel)
{
    struct dc_msg *m = dmap_get(&dc->msgs, key);
    if (m)
        return m;
    m = calloc(1, sizeof(*m));
    if (!m)
        return NULL;
    m->channel = xstrdup(channel);
    dmap_init(&m->reacted);
    if (dmap_put(&dc->msgs, key, m, NULL) < 0) {
        msg_free(m);
        return NULL;
    }
    return m;
}

/* Discord's JSON error code from a response body, or 0. */
static int api_code(const char *body)
{
    struct json_object *o = json_tokener_parse(body);
    int code = (int)dj_int(o, "code", 0);
    json_object_put(o);
    return code;
}

/* How much of an error answer a log line carries: a log line holds 1024 bytes. */
#define ERROR_TEXT_MAX 900

/* Appends Discord's field errors under o ({"field":{"_errors":[{code,message}]}}) as
 * "path: CODE message; " to b. */
static void field_errors(struct dbuf *b, struct json_object *o, const char *path, unsigned depth)
{
    if (!dj_as_obj(o) || depth > 8 || b->len > ERROR_TEXT_MAX)
        return;
    json_object_object_foreach(o, k, v)
    {
        if (strcmp(k, "_errors") == 0) {
            for (size_t i = 0; i < dj_len(v); i++) {
                struct json_object *e = dj_at(v, i);
                const char *code = dj_str(e, "code"), *msg = dj_str(e, "message");
                dbuf_printf(b, "%s%s: %s %s", b->len ? "; " : "", path, code ? code : "?",
                            msg ? msg : "");
            }
        } else {
            struct dbuf sub = {0};
            if (dbuf_printf(&sub, "%s%s%s", path, *path ? "." : "", k) == 0)
                field_errors(b, v, sub.data, depth + 1);
            dbuf_free(&sub);
        }
    }
}

/*
 * Logs a refused request once, with all Discord said: its code and message and
 * every field error, or the raw body (one line) when it is not JSON, cut at
 * ERROR_TEXT_MAX bytes.
 */
static void log_http_error(const char *what, const char *target, long status, const char *body)
{
    struct json_object *o = json_tokener_parse(body);
    struct dbuf fields = {0};
    char text[ERROR_TEXT_MAX + 1];
    if (dj_as_obj(o)) {
        const char *msg = dj_str(o, "message");
        field_errors(&fields, dj_obj(o, "errors"), "", 0);
        snprintf(text, sizeof(text), "code %lld, %s%s%s", (long long)dj_int(o, "code", 0),
                 msg ? msg : "no message", fields.len ? ": " : "", fields.len ? fields.data : "");
    } else {
        size_t n = 0;
        for (const char *c = body; *c && n < ERROR_TEXT_MAX; c++)
            text[n++] = (unsigned char)*c < 0x20 ? ' ' : *c;
        text[n] = '\0';
    }
    log_error(DC_MOD, NULL, "%s %s failed: HTTP %ld, %s", what, target ? target : "", status, text);
    dbuf_free(&fields);
    json_object_put(o);
}

static int op_prepare(struct rest_req *r, void *ud);
static void op_done(struct rest_req *r, long status, const char *body, void *ud);

int dc_rest(struct dc *dc, struct dc_op *op, const char *queue, const char *method,
            const char *path, unsigned flags)
{
    if (rest_enqueue(dc->rest, queue, method, path, op->body, flags, op_prepare, op_done, op) < 0) {
        dc_op_free(op);
        return -1;
    }
    return 0;
}

static void channel_queue(const char *channel, char *q, size_t len)
{
    snprintf(q, len, "c:%s", channel);
}

/* Queues op (POST, EDIT or REACT) on its channel. */
static int queue_on_channel(struct dc *dc, struct dc_op *op)
{
    char q[96], path[160];
    channel_queue(op->channel, q, sizeof(q));
    snprintf(path, sizeof(path), "/channels/%s/messages", op->channel);
    const char *method = op->type == DC_OP_REACT ? "PUT" : "POST";
    return dc_rest(dc, op, q, method, path, 0);
}

static void create_dm(struct dc *dc, const char *user_id, struct dc_user *u)
{
    if (u->creating || u->dm_channel)
        return;
    struct dc_op *op = dc_op_new(dc, DC_OP_DM_CREATE);
    if (!op)
        return;
    op->user = xstrdup(user_id);
    struct json_object *b = json_object_new_object();
    json_object_object_add(b, "recipient_id", json_object_new_string(user_id));
    op->body = xstrdup(json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN));
    json_object_put(b);
    char q[96];
    snprintf(q, sizeof(q), "u:%s", user_id);
    u->creating = true;
    if (dc_rest(dc, op, q, "POST", "/users/@me/channels", 0) < 0)
        u->creating = false;
}

/* Sends op to a user's DM channel, creating it first when needed. */
static int queue_on_dm(struct dc *dc, const char *user_id, struct dc_op *op)
{
    struct dc_user *u = dc_user_get(dc, user_id);
    if (!u) {
        dc_op_free(op);
        return -1;
    }
    if (u->unreachable && dc_now_ms() < u->unreachable_at + DM_REFUSED_HOLD_MS) {
        dc->st.lost++;
        dc_op_free(op);
        return 0;
    }
    if (u->dm_channel) {
        op->channel = xstrdup(u->dm_channel);
        return queue_on_channel(dc, op);
    }
    struct dc_pending *p = calloc(1, sizeof(*p));
    if (!p) {
        dc_op_free(op);
        return -1;
    }
    p->op = op;
    if (u->pend_tail)
        u->pend_tail->next = p;
    else
        u->pend_head = p;
    u->pend_tail = p;
    create_dm(dc, user_id, u);
    return 0;
}

static void url_encode(const char *s, char *out, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (; *s && o + 4 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ':') {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

static int op_prepare(struct rest_req *r, void *ud)
{
    struct dc_op *op = ud;
    struct dc *dc = op->dc;
    char path[512];
    if (op->type == DC_OP_FORGET)
        return 1;
    if (op->type == DC_OP_EDIT) {
        struct dc_msg *m = dmap_get(&dc->msgs, op->key);
        if (m && m->id && m->channel && strcmp(m->channel, op->channel) == 0) {
            snprintf(path, sizeof(path), "/channels/%s/messages/%s", op->channel, m->id);
            rest_req_set(r, "PATCH", path, op->body);
        } else {
            snprintf(path, sizeof(path), "/channels/%s/messages", op->channel);
            rest_req_set(r, "POST", path, op->body);
        }
    } else if (op->type == DC_OP_CLOSE) {
        /* the message may have been forgotten (the game ended) since the op
         * was queued: then the id noted then is used */
        struct dc_msg *m = dmap_get(&dc->msgs, op->key);
        const char *id = m && m->id ? m->id : op->msg_id;
        const char *channel = m && m->id && m->channel ? m->channel : op->channel;
        if (!id || !channel)
            return 1;
        snprintf(path, sizeof(path), "/channels/%s/messages/%s", channel, id);
        rest_req_set(r, "PATCH", path, op->body);
    } else if (op->type == DC_OP_REACT) {
        struct dc_msg *m = dmap_get(&dc->msgs, op->key);
        if (!m || !m->id)
            return 1;
        char emoji[128];
        url_encode(op->emoji, emoji, sizeof(emoji));
        snprintf(path, sizeof(path), "/channels/%s/messages/%s/reactions/%s/@me", m->channel, m->id,
                 emoji);
        rest_req_set(r, "PUT", path, NULL);
    }
    return 0;
}

static void flush_pending(struct dc *dc, struct dc_user *u, bool ok)
{
    while (u->pend_head) {
        struct dc_pending *p = u->pend_head;
        u->pend_head = p->next;
        if (!u->pend_head)
            u->pend_tail = NULL;
        if (ok) {
            p->op->channel = xstrdup(u->dm_channel);
            queue_on_channel(dc, p->op);
        } else {
            dc->st.lost++;
            dc_op_free(p->op);
        }
        free(p);
    }
}

static void report_probe(struct dc *dc, const char *user, bool reachable)
{
    if (!dc->stopping && dc->base.host->dm_result)
        dc->base.host->dm_result(dc->base.host->ctx, &dc->base, user, reachable);
}

/* Discord refused a DM to user (50007, or no DM channel): remember it and
 * tell the bot. */
static void dm_refused(struct dc *dc, const char *user, long status, int code)
{
    struct dc_user *u = dc_user_get(dc, user);
    dc->st.dm_unreachable++;
    if (code == ERR_CANNOT_DM)
        log_warn(DC_MOD, NULL, "cannot DM user %s (50007): their DMs are closed", user);
    else
        log_warn(DC_MOD, NULL, "cannot open a DM with user %s: HTTP %ld, code %d", user, status,
                 code);
    if (u) {
        u->reachable = false;
        u->unreachable = true;
        u->unreachable_at = dc_now_ms();
        u->probing = false;
    }
    report_probe(dc, user, false);
}

static char *gw_state_get(void *ud, const char *key)
{
    struct dc *dc = ud;
    const struct platform_host *h = dc->base.host;
    char *v = h->state_get ? h->state_get(h->ctx, &dc->base, key) : NULL;
    if (v && !*v) {
        free(v);
        v = NULL;
    }
    return v;
}

static void gw_state_set(void *ud, const char *key, const char *value)
{
    struct dc *dc = ud;
    const struct platform_host *h = dc->base.host;
    if (h->state_set)
        h->state_set(h->ctx, &dc->base, key, value);
}

/*
 * Which Discord message carries a logical key is kept in the store too, so
 * that after a restart the lobby, hands and drop are still edited in place
 * and reactions on the drop still count: "msg/<key>" holds "<channel> <id>",
 * "mid/<id>" holds the key.
 */
static void msg_persist(struct dc *dc, const char *key, const char *channel, const char *id)
{
    char k[300], v[160];
    snprintf(k, sizeof(k), "msg/%s", key);
    snprintf(v, sizeof(v), "%s %s", channel, id);
    gw_state_set(dc, k, v);
    snprintf(k, sizeof(k), "mid/%s", id);
    gw_state_set(dc, k, key);
}

/* The message under key from the store, when this run has not seen it. */
static struct dc_msg *msg_restore(struct dc *dc, const char *key)
{
    struct dc_msg *m = dmap_get(&dc->msgs, key);
    if (m)
        return m;
    char k[300], channel[64], id[64];
    snprintf(k, sizeof(k), "msg/%s", key);
    char *v = gw_state_get(dc, k);
    if (!v || sscanf(v, "%63s %63s", channel, id) != 2) {
        free(v);
        return NULL;
    }
    free(v);
    m = msg_get(dc, key, channel);
    if (m && !m->id) {
        m->id = xstrdup(id);
        char *kk = xstrdup(key);
        if (kk && dmap_put(&dc->msg_ids, id, kk, NULL) < 0)
            free(kk);
    }
    return m;
}

/*
 * Lists of words a game needs (the resources in play, the keys of messages
 * whose controls are live), kept in memory and in the store under
 * "<what>/<game>" as one line, so that a restart still knows them.
 */
#define LIST_IN_PLAY  "play"
#define LIST_CONTROLS "ctl"

/* The list, loaded from the store when this run has not seen it; NULL when
 * it is empty and create is false. Borrowed from map. */
static struct json_object *list_get(struct dc *dc, struct dmap *map, const char *what,
                                    const char *game, bool create)
{
    struct json_object *l = dmap_get(map, game);
    if (l)
        return l;
    char k[256], *save = NULL;
    snprintf(k, sizeof(k), "%s/%s", what, game);
    char *v = gw_state_get(dc, k);
    if (!v && !create)
        return NULL;
    l = json_object_new_array();
    for (char *w = v ? strtok_r(v, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save))
        json_object_array_add(l, json_object_new_string(w));
    free(v);
    if (dmap_put(map, game, l, NULL) < 0) {
        json_object_put(l);
        return NULL;
    }
    return l;
}

static void list_save(struct dc *dc, const char *what, const char *game, struct json_object *l)
{
    const struct platform_host *h = dc->base.host;
    struct dbuf b = {0};
    char k[256];
    for (size_t i = 0; i < dj_len(l); i++)
        dbuf_printf(&b, "%s%s", i ? " " : "", dj_str_at(l, i));
    snprintf(k, sizeof(k), "%s/%s", what, game);
    if (b.len)
        gw_state_set(dc, k, b.data);
    else if (h->state_del)
        h->state_del(h->ctx, &dc->base, k);
    dbuf_free(&b);
}

static void list_forget(struct dc *dc, struct dmap *map, const char *what, const char *game)
{
    const struct platform_host *h = dc->base.host;
    char k[256];
    json_object_put(dmap_del(map, game));
    snprintf(k, sizeof(k), "%s/%s", what, game);
    if (h->state_del)
        h->state_del(h->ctx, &dc->base, k);
}

static ssize_t list_find(struct json_object *l, const char *word)
{
    for (size_t i = 0; i < dj_len(l); i++) {
        const char *w = dj_str_at(l, i);
        if (w && strcmp(w, word) == 0)
            return (ssize_t)i;
    }
    return -1;
}

struct json_object *dc_in_play(struct dc *dc, const char *game, struct json_object *hand_data)
{
    struct json_object *l = game ? list_get(dc, &dc->in_play, LIST_IN_PLAY, game, false) : NULL;
    if (dj_len(l) > 0)
        return json_object_get(l);
    /* not announced to this adapter: what the hand shows of them */
    struct json_object *out = json_object_new_array();
    const char *roles[] = {dj_str(hand_data, "dealer"), dj_str(hand_data, "buyer")};
    for (unsigned i = 0; i < 2; i++)
        if (roles[i] && list_find(out, roles[i]) < 0)
            json_object_array_add(out, json_object_new_string(roles[i]));
    struct json_object *hand = dj_obj(hand_data, "hand");
    if (hand) {
        json_object_object_foreach(hand, card, count)
        {
            (void)count;
            if (list_find(out, card) < 0)
                json_object_array_add(out, json_object_new_string(card));
        }
    }
    return out;
}

/* Removes a message's buttons and menus (an edit of its components only). */
static void close_message(struct dc *dc, const char *key)
{
    struct dc_msg *m = msg_restore(dc, key);
    struct dc_op *op = dc_op_new(dc, DC_OP_CLOSE);
    if (!op)
        return;
    op->key = xstrdup(key);
    /* an edit without allowed_mentions would drop the message's */
    op->body = xstrdup("{\"components\":[],\"allowed_mentions\":{\"parse\":[]}}");
    if (m && m->channel) {
        op->channel = xstrdup(m->channel);
        op->msg_id = xstrdup(m->id);
        queue_on_channel(dc, op);
        return;
    }
    /* a DM whose first version is on its way: it goes after it */
    const char *user = strrchr(key, '/');
    struct dc_user *u = user ? dmap_get(&dc->users, user + 1) : NULL;
    if (u && (u->dm_channel || u->pend_head))
        queue_on_dm(dc, user + 1, op);
    else
        dc_op_free(op);
}

/* Closes the live controls of game whose key starts with prefix ("" for all). */
static void close_controls(struct dc *dc, const char *game, const char *prefix)
{
    struct json_object *l = list_get(dc, &dc->controls, LIST_CONTROLS, game, false);
    size_t n = dj_len(l), plen = strlen(prefix);
    if (!n)
        return;
    struct json_object *keep = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        const char *key = dj_str_at(l, i);
        if (!key)
            continue;
        if (strncmp(key, prefix, plen) == 0)
            close_message(dc, key);
        else
            json_object_array_add(keep, json_object_new_string(key));
    }
    void *old = NULL;
    if (dmap_put(&dc->controls, game, keep, &old) < 0) {
        json_object_put(keep);
        return;
    }
    json_object_put(old);
    list_save(dc, LIST_CONTROLS, game, keep);
}

/* Notes whether the message under key has live controls now. */
static void note_controls(struct dc *dc, const char *game, const char *key, bool live)
{
    struct json_object *l = list_get(dc, &dc->controls, LIST_CONTROLS, game, live);
    ssize_t at = list_find(l, key);
    if (!l || (at >= 0) == live)
        return;
    if (live)
        json_object_array_add(l, json_object_new_string(key));
    else
        json_object_array_del_idx(l, (size_t)at, 1);
    list_save(dc, LIST_CONTROLS, game, l);
}

static bool has_event(struct json_object *data, const char *event)
{
    struct json_object *events = dj_arr(data, "events");
    for (size_t i = 0; i < dj_len(events); i++) {
        const char *e = dj_str_at(events, i);
        if (e && strcmp(e, event) == 0)
            return true;
    }
    const char *e = dj_str(data, "event");
    return e && strcmp(e, event) == 0;
}

/*
 * What a message tells the adapter about a game: the resources in play (its
 * start), and the moments when controls stop meaning anything: a verdict
 * closes the vote buttons, the end of an offer (accepted, declined, cancelled,
 * expired) its Accept/Decline/Cancel buttons for that player, the result
 * every control left (the trade builders under the hands).
 */
static void note_game(struct dc *dc, const struct outbound *m)
{
    struct json_object *data = (struct json_object *)m->data;
    const char *game = dj_str(data, "game");
    char prefix[300];
    if (!game || !*game || strchr(game, ' ') || strlen(game) > 100)
        return;
    struct json_object *resources = dj_arr(data, "resources");
    if (m->kind == OUT_NOTICE && resources) {
        struct json_object *l = json_object_new_array();
        for (size_t i = 0; i < dj_len(resources); i++) {
            const char *r = dj_str_at(resources, i);
            if (r && !strchr(r, ' ') && list_find(l, r) < 0)
                json_object_array_add(l, json_object_new_string(r));
        }
        void *old = NULL;
        if (dmap_put(&dc->in_play, game, l, &old) < 0) {
            json_object_put(l);
        } else {
            json_object_put(old);
            list_save(dc, LIST_IN_PLAY, game, l);
        }
    }
    if (m->kind == OUT_NOTICE && m->channel &&
        (has_event(data, "verdict-convicted") || has_event(data, "verdict-discarded"))) {
        snprintf(prefix, sizeof(prefix), "%s/vote/", game);
        close_controls(dc, game, prefix);
    }
    int64_t offer = dj_int(data, "offer", 0);
    if (m->kind == OUT_NOTICE && m->user && !m->channel && offer > 0) {
        snprintf(prefix, sizeof(prefix), "%s/offer/%lld/%s", game, (long long)offer, m->user);
        close_controls(dc, game, prefix);
    }
    if (m->kind == OUT_RESULT) {
        close_controls(dc, game, "");
        /* what the players chose in the builder does not carry into their next game */
        struct json_object *scores = dj_obj(data, "scores");
        if (scores) {
            json_object_object_foreach(scores, user, score)
            {
                (void)score;
                struct dc_user *u = dmap_get(&dc->users, user);
                if (u)
                    builder_reset(&u->tb);
            }
        }
    }
}

struct forget_ctx {
    const char *prefix;
    size_t len;
    char *keys[256];
    unsigned n;
};

static void collect_game_keys(const char *key, void *val, void *arg)
{
    (void)val;
    struct forget_ctx *c = arg;
    if (strncmp(key, c->prefix, c->len) == 0 && c->n < 256)
        c->keys[c->n++] = strdup(key);
}

/*
 * A game is over and its last message went out: its logical keys are never
 * used again, so their message ids leave memory and the store. prefix is
 * "<game>/". (Ids stored by an earlier run and not used since stay stored.)
 */
static void forget_game(struct dc *dc, const char *prefix)
{
    struct forget_ctx c = {.prefix = prefix, .len = strlen(prefix)};
    const struct platform_host *h = dc->base.host;
    char k[300], game[200];
    snprintf(game, sizeof(game), "%.*s", (int)(c.len ? c.len - 1 : 0), prefix);
    list_forget(dc, &dc->in_play, LIST_IN_PLAY, game);
    list_forget(dc, &dc->controls, LIST_CONTROLS, game);
    dmap_each(&dc->msgs, collect_game_keys, &c);
    for (unsigned i = 0; i < c.n; i++) {
        if (!c.keys[i])
            continue;
        struct dc_msg *m = dmap_del(&dc->msgs, c.keys[i]);
        if (m && m->id) {
            free(dmap_del(&dc->msg_ids, m->id));
            snprintf(k, sizeof(k), "mid/%s", m->id);
            if (h->state_del)
                h->state_del(h->ctx, &dc->base, k);
        }
        snprintf(k, sizeof(k), "msg/%s", c.keys[i]);
        if (h->state_del)
            h->state_del(h->ctx, &dc->base, k);
        if (m)
            msg_free(m);
        free(c.keys[i]);
    }
}

static void posted(struct dc *dc, struct dc_op *op, const char *body)
{
    struct json_object *o = json_tokener_parse(body);
    const char *id = dj_str(o, "id");
    if (id && op->key) {
        struct dc_msg *m = msg_get(dc, op->key, op->channel);
        if (m) {
            free(m->id);
            m->id = xstrdup(id);
            if (!m->channel || strcmp(m->channel, op->channel) != 0) {
                free(m->channel);
                m->channel = xstrdup(op->channel);
            }
            char *k = xstrdup(op->key);
            void *old = NULL;
            if (k && dmap_put(&dc->msg_ids, id, k, &old) == 0)
                free(old);
            else
                free(k);
            msg_persist(dc, op->key, op->channel, id);
        }
    }
    json_object_put(o);
}

static void op_done(struct rest_req *r, long status, const char *body, void *ud)
{
    struct dc_op *op = ud;
    struct dc *dc = op->dc;
    const char *method = rest_req_method(r);
    if (status < 0) {
        if (op->type == DC_OP_POST || op->type == DC_OP_EDIT)
            dc->st.lost++;
        dc_op_free(op);
        return;
    }
    bool ok = status >= 200 && status < 300;
    switch (op->type) {
    case DC_OP_POST:
    case DC_OP_EDIT:
        if (ok) {
            if (strcmp(method, "PATCH") == 0) {
                dc->st.edited++;
            } else {
                dc->st.sent++;
                posted(dc, op, body);
            }
            if (op->user) {
                struct dc_user *u = dc_user_get(dc, op->user);
                if (u) {
                    u->reachable = true;
                    u->unreachable = false;
                }
            }
        } else if (status == 404 && strcmp(method, "PATCH") == 0 &&
                   api_code(body) == UNKNOWN_MESSAGE) {
            /* the message was deleted: send it again as a new one */
            struct dc_msg *m = dmap_get(&dc->msgs, op->key);
            if (m) {
                free(m->id);
                m->id = NULL;
            }
            char q[96];
            channel_queue(op->channel, q, sizeof(q));
            struct dc_op *again = op;
            op = NULL;
            if (dc_rest(dc, again, q, "POST", "/", REST_FRONT) < 0)
                dc->st.lost++;
        } else {
            int code = api_code(body);
            if (code == ERR_CANNOT_DM && op->user) {
                dm_refused(dc, op->user, status, code);
            } else {
                char target[96];
                snprintf(target, sizeof(target), "to channel %s", op->channel ? op->channel : "?");
                log_http_error(method, target, status, body);
            }
            dc->st.lost++;
        }
        break;
    case DC_OP_REACT:
        if (ok)
            dc->st.reactions++;
        else if (status)
            log_http_error("adding reaction", op->emoji, status, body);
        break;
    case DC_OP_DM_CREATE: {
        struct dc_user *u = dc_user_get(dc, op->user);
        if (!u)
            break;
        u->creating = false;
        struct json_object *o = json_tokener_parse(body);
        const char *id = ok ? dj_str(o, "id") : NULL;
        if (id) {
            free(u->dm_channel);
            u->dm_channel = xstrdup(id);
            char *uid = xstrdup(op->user);
            void *old = NULL;
            if (uid && dmap_put(&dc->dm_users, id, uid, &old) == 0)
                free(old);
            else
                free(uid);
            if (u->probing) {
                /* the channel exists: the first real DM will tell for sure */
                u->probing = false;
                report_probe(dc, op->user, true);
            }
            flush_pending(dc, u, true);
        } else if (status > 0) {
            flush_pending(dc, u, false);
            dm_refused(dc, op->user, status, api_code(body));
        }
        json_object_put(o);
        break;
    }
    case DC_OP_COMMANDS:
        if (ok)
            log_info(DC_MOD, NULL, "slash commands registered");
        else
            log_http_error("registering", "slash commands", status, body);
        break;
    case DC_OP_IX:
        if (!ok && status)
            log_http_error("answering", "an interaction", status, body);
        break;
    case DC_OP_GATEWAY:
        break;
    case DC_OP_FORGET:
        forget_game(dc, op->key);
        break;
    case DC_OP_CLOSE:
        if (ok)
            dc->st.edited++;
        else if (status > 0)
            log_http_error("closing the controls of", op->key, status, body);
        break;
    }
    dc_op_free(op);
}

/* ---- moderators ---- */

static uint64_t parse_u64(const char *s)
{
    return s ? strtoull(s, NULL, 10) : 0;
}

bool dc_is_moderator(struct dc *dc, const char *guild_id, struct json_object *member)
{
    if (!member)
        return false;
    const char *perms = dj_str(member, "permissions");
    if (perms) {
        uint64_t p = parse_u64(perms);
        if (p & (PERM_ADMINISTRATOR | PERM_MANAGE_GUILD))
            return true;
    }
    struct dc_guild *g = guild_id ? dmap_get(&dc->guilds, guild_id) : NULL;
    struct json_object *user = dj_obj(member, "user");
    const char *uid = dj_str(user, "id");
    if (g && g->owner && uid && strcmp(g->owner, uid) == 0)
        return true;
    uint64_t total = 0;
    if (g) {
        struct dc_role *everyone = dmap_get(&g->roles, guild_id);
        if (everyone)
            total |= everyone->perms;
    }
    struct json_object *roles = dj_arr(member, "roles");
    size_t n = dj_len(roles);
    for (size_t i = 0; i < n; i++) {
        const char *rid = dj_str_at(roles, i);
        if (!rid)
            continue;
        struct dc_role *r = g ? dmap_get(&g->roles, rid) : NULL;
        if (dc->mod_role && *dc->mod_role &&
            (strcmp(rid, dc->mod_role) == 0 ||
             (r && r->name && strcasecmp(r->name, dc->mod_role) == 0)))
            return true;
        if (r)
            total |= r->perms;
    }
    return (total & (PERM_ADMINISTRATOR | PERM_MANAGE_GUILD)) != 0;
}

static void guild_role(struct dc_guild *g, struct json_object *role)
{
    const char *id = dj_str(role, "id");
    if (!id)
        return;
    struct dc_role *r = calloc(1, sizeof(*r));
    if (!r)
        return;
    r->perms = parse_u64(dj_str(role, "permissions"));
    r->name = xstrdup(dj_str(role, "name"));
    void *old = NULL;
    if (dmap_put(&g->roles, id, r, &old) < 0)
        role_free(r);
    if (old)
        role_free(old);
}

static struct dc_guild *guild_get(struct dc *dc, const char *id)
{
    struct dc_guild *g = dmap_get(&dc->guilds, id);
    if (g)
        return g;
    g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    dmap_init(&g->roles);
    if (dmap_put(&dc->guilds, id, g, NULL) < 0) {
        free(g);
        return NULL;
    }
    return g;
}

static void on_guild(struct dc *dc, const char *type, struct json_object *d)
{
    if (strcmp(type, "GUILD_CREATE") == 0 || strcmp(type, "GUILD_UPDATE") == 0) {
        const char *id = dj_str(d, "id");
        struct dc_guild *g = id ? guild_get(dc, id) : NULL;
        if (!g)
            return;
        const char *owner = dj_str(d, "owner_id");
        if (owner) {
            free(g->owner);
            g->owner = xstrdup(owner);
        }
        struct json_object *roles = dj_arr(d, "roles");
        for (size_t i = 0; i < dj_len(roles); i++)
            guild_role(g, dj_at(roles, i));
    } else if (strcmp(type, "GUILD_ROLE_CREATE") == 0 || strcmp(type, "GUILD_ROLE_UPDATE") == 0) {
        const char *gid = dj_str(d, "guild_id");
        struct dc_guild *g = gid ? guild_get(dc, gid) : NULL;
        if (g)
            guild_role(g, dj_obj(d, "role"));
    } else if (strcmp(type, "GUILD_ROLE_DELETE") == 0) {
        const char *gid = dj_str(d, "guild_id"), *rid = dj_str(d, "role_id");
        struct dc_guild *g = gid ? dmap_get(&dc->guilds, gid) : NULL;
        if (g && rid) {
            struct dc_role *r = dmap_del(&g->roles, rid);
            if (r)
                role_free(r);
        }
    } else if (strcmp(type, "GUILD_DELETE") == 0) {
        const char *id = dj_str(d, "id");
        struct dc_guild *g = id ? dmap_del(&dc->guilds, id) : NULL;
        if (g)
            guild_free(g);
    }
}

/* ---- inbound ---- */

int dc_deliver(struct dc *dc, const struct inbound *in)
{
    if (dc->stopping)
        return -1;
    dc->st.delivered++;
    return dc->base.host->deliver(dc->base.host->ctx, &dc->base, in);
}

static const char *display_name(struct json_object *author, struct json_object *member)
{
    const char *n = dj_str(member, "nick");
    if (!n)
        n = dj_str(author, "global_name");
    if (!n)
        n = dj_str(author, "username");
    return n;
}

static void on_message(struct dc *dc, struct json_object *d)
{
    struct json_object *author = dj_obj(d, "author");
    const char *uid = dj_str(author, "id"), *text = dj_str(d, "content");
    const char *channel = dj_str(d, "channel_id"), *guild = dj_str(d, "guild_id");
    if (!uid || !text || !channel || dj_bool(author, "bot") ||
        (dc->self_id && strcmp(uid, dc->self_id) == 0))
        return;
    if (guild) {
        /* in a table only the bot's own commands matter */
        while (*text == ' ')
            text++;
        if (strncasecmp(text, "!illegal", 8) != 0)
            return;
    } else {
        struct dc_user *u = dc_user_get(dc, uid);
        if (u && !u->dm_channel) {
            u->dm_channel = xstrdup(channel);
            /* a guild-less channel may be shared (a group DM): the last
             * author's id replaces the one before it */
            char *k = xstrdup(uid);
            void *old = NULL;
            if (k && dmap_put(&dc->dm_users, channel, k, &old) < 0)
                free(k);
            free(old);
        }
        if (u)
            u->reachable = true;
    }
    struct json_object *member = dj_obj(d, "member");
    struct inbound in = {
        .type = INBOUND_MESSAGE,
        .channel = guild ? channel : NULL,
        .user = uid,
        .user_name = display_name(author, member),
        .moderator = guild ? dc_is_moderator(dc, guild, member) : false,
        .text = text,
        .order = parse_u64(dj_str(d, "id")),
    };
    dc->ref_channel = channel;
    dc->ref_msg = dj_str(d, "id");
    dc->ref_user = uid;
    dc_deliver(dc, &in);
    dc->ref_channel = dc->ref_msg = dc->ref_user = NULL;
}

static void on_reaction(struct dc *dc, struct json_object *d, int64_t seq)
{
    const char *uid = dj_str(d, "user_id"), *mid = dj_str(d, "message_id");
    const char *channel = dj_str(d, "channel_id"), *guild = dj_str(d, "guild_id");
    struct json_object *member = dj_obj(d, "member"), *emoji = dj_obj(d, "emoji");
    if (!uid || !mid || !emoji || (dc->self_id && strcmp(uid, dc->self_id) == 0) ||
        dj_bool(dj_obj(member, "user"), "bot"))
        return;
    const char *key = dmap_get(&dc->msg_ids, mid);
    char *stored = NULL;
    if (!key) {
        char k[96];
        snprintf(k, sizeof(k), "mid/%s", mid);
        key = stored = gw_state_get(dc, k);
        if (!key)
            return;
    }
    const char *name = dj_str(emoji, "name"), *eid = dj_str(emoji, "id");
    char custom[160];
    if (eid) {
        snprintf(custom, sizeof(custom), "%s:%s", name ? name : "", eid);
        name = custom;
    }
    if (!name) {
        free(stored);
        return;
    }
    struct inbound in = {
        .type = INBOUND_REACTION,
        .channel = guild ? channel : NULL,
        .user = uid,
        .user_name = display_name(dj_obj(member, "user"), member),
        .moderator = guild ? dc_is_moderator(dc, guild, member) : false,
        .msg_key = key,
        .reaction = name,
        .order = (uint64_t)seq,
    };
    dc_deliver(dc, &in);
    free(stored);
}

int dc_send_command(struct dc *dc, const char *text, const char *channel, const char *user,
                    const char *user_name, bool moderator, const char *reply_to, uint64_t order)
{
    struct inbound in = {
        .type = INBOUND_COMMAND,
        .channel = channel,
        .user = user,
        .user_name = user_name,
        .moderator = moderator,
        .text = text,
        .reply_to = reply_to,
        .order = order,
    };
    return dc_deliver(dc, &in);
}

static void register_commands(struct dc *dc)
{
    if (dc->commands_registered || !dc->app_id)
        return;
    dc->commands_registered = true;
    struct json_object *cmds = dc_commands_json(dc);
    const char *body = json_object_to_json_string_ext(cmds, JSON_C_TO_STRING_PLAIN);
    char path[256];
    if (dc->nguilds == 0) {
        struct dc_op *op = dc_op_new(dc, DC_OP_COMMANDS);
        if (op && (op->body = xstrdup(body))) {
            snprintf(path, sizeof(path), "/applications/%s/commands", dc->app_id);
            dc_rest(dc, op, "commands", "PUT", path, 0);
        } else {
            dc_op_free(op);
        }
    }
    for (unsigned i = 0; i < dc->nguilds; i++) {
        struct dc_op *op = dc_op_new(dc, DC_OP_COMMANDS);
        if (!op || !(op->body = xstrdup(body))) {
            dc_op_free(op);
            continue;
        }
        snprintf(path, sizeof(path), "/applications/%s/guilds/%s/commands", dc->app_id,
                 dc->guild_ids[i]);
        dc_rest(dc, op, "commands", "PUT", path, 0);
    }
    json_object_put(cmds);
}

static void on_dispatch(void *ud, int shard, const char *type, struct json_object *d, int64_t seq)
{
    struct dc *dc = ud;
    (void)shard;
    if (dc->stopping)
        return;
    if (strcmp(type, "READY") == 0) {
        const char *id = dj_str(dj_obj(d, "user"), "id");
        if (id && !dc->self_id)
            dc->self_id = xstrdup(id);
        const char *app = dj_str(dj_obj(d, "application"), "id");
        if (app && !dc->app_id)
            dc->app_id = xstrdup(app);
        register_commands(dc);
    } else if (strcmp(type, "MESSAGE_CREATE") == 0) {
        on_message(dc, d);
    } else if (strcmp(type, "MESSAGE_REACTION_ADD") == 0) {
        on_reaction(dc, d, seq);
    } else if (strcmp(type, "INTERACTION_CREATE") == 0) {
        dc_interaction(dc, d, seq);
    } else if (strncmp(type, "GUILD_", 6) == 0) {
        on_guild(dc, type, d);
    }
}

void discord_gateway_input(struct platform *p, const char *payload, size_t len)
{
    struct gw_payload gp;
    struct json_object *o = gw_decode(payload, len, &gp);
    if (o && gp.op == 0 && gp.type)
        on_dispatch(p, 0, gp.type, gp.d, gp.seq);
    json_object_put(o);
}

/* ---- platform ops ---- */

static unsigned intents(void)
{
    /* guild lists and roles, table commands, drop reactions, DM commands; the
     * text of DM and "!illegal" messages needs MESSAGE_CONTENT */
    return GW_INTENT_GUILDS | GW_INTENT_GUILD_MESSAGES | GW_INTENT_GUILD_MESSAGE_REACTIONS |
           GW_INTENT_DIRECT_MESSAGES | GW_INTENT_DIRECT_MESSAGE_REACTIONS |
           GW_INTENT_MESSAGE_CONTENT;
}

static void start_gateway(struct dc *dc, const char *url, int shards, int maxc, uint64_t delay)
{
    static const struct gw_ops ops = {on_dispatch, gw_state_get, gw_state_set};
    dc->gw = gw_new(dc->loop, dc->token, DC_USER_AGENT, intents(), &ops, dc);
    if (!dc->gw) {
        log_error(DC_MOD, NULL, "cannot create the websocket context");
        return;
    }
    if (shards < 1)
        shards = 1;
    log_info(DC_MOD, NULL, "connecting %d shard(s) to %s (DMs arrive on shard 0)", shards, url);
    gw_start(dc->gw, url, shards, maxc, delay);
}

static void gateway_bot_done(struct rest_req *r, long status, const char *body, void *ud)
{
    (void)r;
    struct dc_op *op = ud;
    struct dc *dc = op->dc;
    dc_op_free(op);
    if (status < 0 || dc->stopping)
        return;
    struct json_object *o = status == 200 ? json_tokener_parse(body) : NULL;
    const char *url = dj_str(o, "url");
    if (!url) {
        if (status == 401)
            log_error(DC_MOD, NULL,
                      "GET /gateway/bot: 401, the bot token is wrong; set "
                      "[discord] token");
        else
            log_error(DC_MOD, NULL, "GET /gateway/bot failed: HTTP %ld", status);
        json_object_put(o);
        return;
    }
    struct json_object *limit = dj_obj(o, "session_start_limit");
    int64_t recommended = dj_int(o, "shards", 1);
    int shards = dc->shards > 0                            ? dc->shards
                 : recommended > 0 && recommended <= 65535 ? (int)recommended
                                                           : 1;
    int64_t maxc = dj_int(limit, "max_concurrency", 1);
    uint64_t delay = 0;
    if (dj_int(limit, "remaining", 1) <= 0) {
        int64_t reset = dj_int(limit, "reset_after", 0);
        delay = reset > 0 && reset < 86400000 ? (uint64_t)reset : 0;
        log_warn(DC_MOD, NULL, "no session starts left today; waiting %" PRIu64 " ms", delay);
    }
    start_gateway(dc, url, shards, maxc > 0 && maxc <= 1024 ? (int)maxc : 1, delay);
    json_object_put(o);
}

static void on_sweep(uv_timer_t *t)
{
    dc_ix_sweep(t->data);
}

static int dc_start(struct platform *p)
{
    struct dc *dc = (struct dc *)p;
    if (dc->started)
        return 0;
    dc->started = true;
    if (!dc->rest)
        return -1;
    uv_timer_init(dc->loop, &dc->sweep);
    dc->sweep.data = dc;
    dc->sweep_open = true;
    uv_timer_start(&dc->sweep, on_sweep, 1000, 1000);
    if (dc->gateway_url && *dc->gateway_url) {
        start_gateway(dc, dc->gateway_url, dc->shards, 1, 0);
    } else {
        struct dc_op *op = dc_op_new(dc, DC_OP_GATEWAY);
        if (!op || rest_enqueue(dc->rest, "gateway", "GET", "/gateway/bot", NULL, 0, NULL,
                                gateway_bot_done, op) < 0) {
            dc_op_free(op);
            return -1;
        }
    }
    if (dc->app_id)
        register_commands(dc);
    return 0;
}

/*
 * Whether m answers the text command being delivered, in its channel: at a
 * table, the bot's direct answer (no game data: the game's own announcements
 * are not answers); in a DM, whatever it tells the author then ("You accepted
 * offer #1").
 */
static bool is_reply(const struct dc *dc, const struct outbound *m)
{
    if (!dc->ref_msg || m->reply_to || m->key)
        return false;
    if (m->channel)
        return !m->data && strcmp(m->channel, dc->ref_channel) == 0;
    const struct dc_user *u = dmap_get(&dc->users, m->user);
    return strcmp(m->user, dc->ref_user) == 0 && u && u->dm_channel &&
           strcmp(u->dm_channel, dc->ref_channel) == 0;
}

/* Once a game's last message has gone out, its message ids go. */
static void dc_game_changed(struct platform *p, const struct game_news *n)
{
    struct dc *dc = (struct dc *)p;
    if (n->stage != GAME_ENDED || dc->stopping)
        return;
    struct dc_op *op = dc_op_new(dc, DC_OP_FORGET);
    if (!op)
        return;
    size_t len = strlen(n->game) + 2;
    op->key = malloc(len);
    op->channel = xstrdup(n->table);
    if (op->key && op->channel) {
        snprintf(op->key, len, "%s/", n->game);
        queue_on_channel(dc, op);
    } else {
        dc_op_free(op);
    }
}

static int dc_send(struct platform *p, const struct outbound *m)
{
    struct dc *dc = (struct dc *)p;
    if (dc->stopping || !dc->rest || (!m->channel && !m->user))
        return -1;
    /* The machine-readable result is for scripts; the table already got
     * OUT_RESULT. */
    if (m->kind == OUT_GAME_OVER)
        return 0;
    note_game(dc, m);
    if (m->kind == OUT_HAND && m->user && m->data) {
        struct dc_user *u = dc_user_get(dc, m->user);
        if (u) {
            json_object_put(u->hand);
            u->hand = json_object_get((struct json_object *)m->data);
        }
    }
    if (m->channel && m->data &&
        (m->kind == OUT_LOBBY || m->kind == OUT_DROP || m->kind == OUT_VOTE)) {
        char k[160];
        snprintf(k, sizeof(k), "%d:%s", (int)m->kind, m->channel);
        void *old = NULL;
        if (dmap_put(&dc->tables, k, json_object_get((struct json_object *)m->data), &old) < 0)
            json_object_put((struct json_object *)m->data);
        json_object_put(old);
    }
    /* A private notice to the user whose interaction is being handled (a
     * vote's confirmation, say) answers that interaction, ephemerally,
     * instead of going to their DMs. Keyed messages (the hand) still do. */
    struct outbound answer;
    if (!m->reply_to && m->user && !m->key && m->cause && m->cause->reply_to && m->cause->user &&
        strcmp(m->user, m->cause->user) == 0 && (m->kind == OUT_NOTICE || m->kind == OUT_ERROR)) {
        answer = *m;
        answer.reply_to = m->cause->reply_to;
        m = &answer;
    }
    if (m->reply_to && dc_ix_reply(dc, m))
        return 0;
    if (m->key && m->replace)
        msg_restore(dc, m->key);
    struct json_object *body = dc_render(dc, m);
    const char *game = dj_str((struct json_object *)m->data, "game");
    if (m->key && game && !strchr(game, ' '))
        note_controls(dc, game, m->key, dj_len(dj_arr(body, "components")) > 0);
    if (is_reply(dc, m)) {
        /* the answer to a text command replies to it */
        struct json_object *ref = json_object_new_object();
        json_object_object_add(ref, "message_id", json_object_new_string(dc->ref_msg));
        json_object_object_add(ref, "fail_if_not_exists", json_object_new_boolean(0));
        json_object_object_add(body, "message_reference", ref);
    }
    struct dc_op *op = dc_op_new(dc, m->key && m->replace ? DC_OP_EDIT : DC_OP_POST);
    if (!op) {
        json_object_put(body);
        return -1;
    }
    op->body = xstrdup(json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN));
    json_object_put(body);
    op->key = xstrdup(m->key);
    op->user = m->channel ? NULL : xstrdup(m->user);
    if (m->key && !m->replace) {
        /* a new message under this key: edits and reactions go to it */
        struct dc_msg *old = dmap_get(&dc->msgs, m->key);
        if (old) {
            free(old->id);
            old->id = NULL;
            dmap_clear(&old->reacted, NULL);
        }
    }
    int rc;
    if (m->channel) {
        op->channel = xstrdup(m->channel);
        if (m->key)
            msg_get(dc, m->key, m->channel);
        rc = queue_on_channel(dc, op);
    } else {
        rc = queue_on_dm(dc, m->user, op);
    }
    if (rc < 0)
        return -1;
    /* the drop's reactions, once per emoji per message */
    struct json_object *reactions = dj_obj((struct json_object *)m->data, "reactions");
    if (m->key && reactions) {
        struct dc_msg *rec = m->channel ? msg_get(dc, m->key, m->channel) : NULL;
        json_object_object_foreach(reactions, emoji, res)
        {
            (void)res;
            if (!rec || dmap_get(&rec->reacted, emoji))
                continue;
            dmap_put(&rec->reacted, emoji, (void *)1, NULL);
            struct dc_op *r = dc_op_new(dc, DC_OP_REACT);
            if (!r)
                continue;
            r->key = xstrdup(m->key);
            r->channel = xstrdup(m->channel);
            r->emoji = xstrdup(emoji);
            queue_on_channel(dc, r);
        }
    }
    return 0;
}

/*
 * Discord has no way to ask whether a user accepts DMs short of sending one,
 * and a probe message would be noise in every player's DMs. So a user counts
 * as reachable when they wrote to the bot, a DM to them went through, or their
 * DM channel can be opened; a 50007 in the last minute counts as unreachable.
 * If the first real DM (the dealt hand) is then refused, dm_refused() reports
 * the user unreachable through dm_result() and logs it.
 */
static void dc_probe_dm(struct platform *p, const char *user)
{
    struct dc *dc = (struct dc *)p;
    if (!dc->rest || dc->stopping)
        return;
    struct dc_user *u = dc_user_get(dc, user);
    if (!u) {
        report_probe(dc, user, false);
        return;
    }
    if (u->unreachable && dc_now_ms() < u->unreachable_at + DM_REFUSED_HOLD_MS) {
        report_probe(dc, user, false);
        return;
    }
    if (u->reachable || u->dm_channel) {
        report_probe(dc, user, true);
        return;
    }
    u->probing = true;
    create_dm(dc, user, u);
    if (!u->creating && u->probing) {
        u->probing = false;
        report_probe(dc, user, false);
    }
}

static void sweep_closed(uv_handle_t *h)
{
    struct dc *dc = h->data;
    dc->sweep_open = false;
    if (dc->stopping && !dc->rest && !dc->gw && dc->base.ops == NULL)
        free(dc);
}

/* How long a stop lets queued messages go out before dropping them. */
#define DRAIN_MS      5000u
#define DRAIN_TICK_MS 20u

static void finish_stop(struct dc *dc)
{
    if (dc->rest) {
        size_t left = rest_pending(dc->rest);
        if (left)
            log_warn(DC_MOD, NULL, "stopping with %zu requests not sent", left);
        rest_close(dc->rest);
        dc->rest = NULL;
    }
    if (dc->sweep_open && !uv_is_closing((uv_handle_t *)&dc->sweep)) {
        uv_timer_stop(&dc->sweep);
        uv_close((uv_handle_t *)&dc->sweep, sweep_closed);
    }
}

static void on_drain(uv_timer_t *t)
{
    struct dc *dc = t->data;
    if (dc->rest && rest_pending(dc->rest) > 0 && dc_now_ms() < dc->drain_until)
        return;
    finish_stop(dc);
}

/*
 * No input is delivered after this: the gateway closes at once (code 4000,
 * so a restart resumes). Messages already queued still go out, for up to
 * DRAIN_MS, as the loop keeps running; then the HTTP client closes.
 */
static void dc_stop(struct platform *p)
{
    struct dc *dc = (struct dc *)p;
    if (dc->stopping)
        return;
    dc->stopping = true;
    if (dc->gw) {
        gw_close(dc->gw);
        dc->gw = NULL;
    }
    if (dc->rest && rest_pending(dc->rest) > 0 && dc->sweep_open) {
        dc->drain_until = dc_now_ms() + DRAIN_MS;
        uv_timer_start(&dc->sweep, on_drain, DRAIN_TICK_MS, DRAIN_TICK_MS);
        return;
    }
    finish_stop(dc);
}

static void free_str(void *p)
{
    free(p);
}

static void free_json(void *p)
{
    json_object_put(p);
}

static void dc_destroy(struct platform *p)
{
    struct dc *dc = (struct dc *)p;
    dc_stop(p);
    finish_stop(dc); /* still draining: the loop is not run any more */
    dmap_clear(&dc->msgs, msg_free);
    dmap_clear(&dc->msg_ids, free_str);
    dmap_clear(&dc->users, user_free);
    dmap_clear(&dc->ixns, dc_ix_free);
    dmap_clear(&dc->guilds, guild_free);
    dmap_clear(&dc->dm_users, free_str);
    dmap_clear(&dc->tables, free_json);
    dmap_clear(&dc->in_play, free_json);
    dmap_clear(&dc->controls, free_json);
    free(dc->token);
    free(dc->app_id);
    free(dc->api_url);
    free(dc->gateway_url);
    free(dc->mod_role);
    free(dc->self_id);
    for (unsigned i = 0; i < dc->nguilds; i++)
        free(dc->guild_ids[i]);
    dc->base.ops = NULL;
    if (!dc->sweep_open)
        free(dc);
}

static const struct platform_ops discord_ops = {
    .name = "discord",
    .caps = PLATFORM_CAP_DM | PLATFORM_CAP_REACTIONS | PLATFORM_CAP_BUTTONS | PLATFORM_CAP_EDITS |
            PLATFORM_CAP_EPHEMERAL | PLATFORM_CAP_EMBEDS,
    .start = dc_start,
    .send = dc_send,
    .probe_dm = dc_probe_dm,
    .game_changed = dc_game_changed,
    .stop = dc_stop,
    .destroy = dc_destroy,
};

void discord_get_stats(struct platform *p, struct discord_stats *st)
{
    struct dc *dc = (struct dc *)p;
    *st = dc->st;
    if (dc->rest) {
        struct rest_stats rs;
        rest_get_stats(dc->rest, &rs);
        st->rest_requests = rs.requests;
        st->rest_retries = rs.retries;
        st->rest_429 = rs.n429;
        st->rest_429_global = rs.n429_global;
        st->rest_invalid = rs.invalid;
        st->rest_pending = rest_pending(dc->rest);
    }
    if (dc->gw) {
        for (int i = 0; i < gw_shard_count(dc->gw); i++) {
            struct gw_shard_stats gs;
            gw_shard_stats(dc->gw, i, &gs);
            st->gw_connects += gs.connects;
            st->gw_identifies += gs.identifies;
            st->gw_resumes += gs.resumes;
            st->gw_zombies += gs.zombies;
            st->ready_shards += gs.ready;
            if (i == 0)
                st->gw_fatal_code = gs.fatal_code;
        }
    }
}

static bool is_snowflake(const char *s)
{
    if (!s || !*s)
        return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

struct platform *discord_platform_new(const struct config *cfg, const struct platform_host *host,
                                      char *err, size_t errlen)
{
    if (!cfg->discord_token || !*cfg->discord_token) {
        snprintf(err, errlen, "[discord] token is empty");
        return NULL;
    }
    for (const char *c = cfg->discord_token; *c; c++) {
        if (isspace((unsigned char)*c) || !isprint((unsigned char)*c)) {
            snprintf(err, errlen, "[discord] token contains spaces or control characters");
            return NULL;
        }
    }
    if (cfg->discord_application_id && *cfg->discord_application_id &&
        !is_snowflake(cfg->discord_application_id)) {
        snprintf(err, errlen, "[discord] application_id must be a numeric id");
        return NULL;
    }
    for (unsigned i = 0; i < cfg->discord_nguilds; i++) {
        if (!is_snowflake(cfg->discord_guilds[i])) {
            snprintf(err, errlen, "[discord] guilds: '%s' is not a numeric guild id",
                     cfg->discord_guilds[i]);
            return NULL;
        }
    }
    if (!host || !host->loop || !host->deliver) {
        snprintf(err, errlen, "the host gives no loop or deliver()");
        return NULL;
    }
    struct dc *dc = calloc(1, sizeof(*dc));
    if (!dc) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    dc->base.ops = &discord_ops;
    dc->base.host = host;
    dc->loop = host->loop;
    dc->token = xstrdup(cfg->discord_token);
    dc->api_url = xstrdup(cfg->discord_api_url && *cfg->discord_api_url ? cfg->discord_api_url
                                                                        : DEFAULT_API_URL);
    if (cfg->discord_application_id && *cfg->discord_application_id)
        dc->app_id = xstrdup(cfg->discord_application_id);
    if (cfg->discord_gateway_url && *cfg->discord_gateway_url)
        dc->gateway_url = xstrdup(cfg->discord_gateway_url);
    if (cfg->discord_moderator_role && *cfg->discord_moderator_role)
        dc->mod_role = xstrdup(cfg->discord_moderator_role);
    for (unsigned i = 0; i < cfg->discord_nguilds && i < CONFIG_MAX_GUILDS; i++)
        dc->guild_ids[dc->nguilds++] = xstrdup(cfg->discord_guilds[i]);
    dc->shards = cfg->discord_shards;
    dc->global_rate = cfg->discord_global_rate_limit > 0 ? (unsigned)cfg->discord_global_rate_limit
                                                         : DEFAULT_GLOBAL_RATE;
    dc->language = cfg->language;
    dmap_init(&dc->msgs);
    dmap_init(&dc->msg_ids);
    dmap_init(&dc->users);
    dmap_init(&dc->ixns);
    dmap_init(&dc->guilds);
    dmap_init(&dc->dm_users);
    dmap_init(&dc->tables);
    dmap_init(&dc->in_play);
    dmap_init(&dc->controls);
    /* The HTTP client exists from here on; it sends nothing until the loop runs. */
    if (dc->token && dc->api_url)
        dc->rest = rest_new(dc->loop, dc->api_url, dc->token, DC_USER_AGENT, dc->global_rate);
    if (!dc->rest) {
        dc_destroy(&dc->base);
        snprintf(err, errlen, "cannot start the HTTP client");
        return NULL;
    }
    return &dc->base;
}
