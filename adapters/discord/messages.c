/*
 * messages.c - message keys mapped to ids (kept in the store), the game lists
 * the bot announced, and the controls (buttons) closed as a game moves on.
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

char *dc_gw_state_get(void *ud, const char *key)
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

void dc_gw_state_set(void *ud, const char *key, const char *value)
{
    struct dc *dc = ud;
    const struct platform_host *h = dc->base.host;
    if (h->state_set)
        h->state_set(h->ctx, &dc->base, key, value);
}

void dc_gw_state_defer(void *ud, const char *key, const char *value)
{
    struct dc *dc = ud;
    const struct platform_host *h = dc->base.host;
    if (!h->state_defer)
        dc_gw_state_set(ud, key, value); /* a host without lazy state writes it at once */
    else if (h->state_defer(h->ctx, &dc->base, key, value) < 0)
        log_warn(DC_MOD, NULL,
                 "no memory to note the gateway session; a restart may replay events");
}

/*
 * Which Discord message carries a logical key is kept in the store too, so
 * that after a restart the lobby, hands and drop are still edited in place
 * and reactions on the drop still count: "msg/<key>" holds "<channel> <id>",
 * "mid/<id>" holds the key.
 */
void dc_msg_persist(struct dc *dc, const char *key, const char *channel, const char *id)
{
    char k[300], v[160];
    snprintf(k, sizeof(k), "msg/%s", key);
    snprintf(v, sizeof(v), "%s %s", channel, id);
    dc_gw_state_set(dc, k, v);
    snprintf(k, sizeof(k), "mid/%s", id);
    dc_gw_state_set(dc, k, key);
}

/* The message under key from the store, when this run has not seen it. */
struct dc_msg *dc_msg_restore(struct dc *dc, const char *key)
{
    struct dc_msg *m = map_get(&dc->msgs, key);
    if (m)
        return m;
    char k[300], channel[64], id[64];
    snprintf(k, sizeof(k), "msg/%s", key);
    char *v = dc_gw_state_get(dc, k);
    if (!v || sscanf(v, "%63s %63s", channel, id) != 2) {
        free(v);
        return NULL;
    }
    free(v);
    m = dc_msg_get(dc, key, channel);
    if (m && !m->id) {
        m->id = dc_xstrdup(id);
        char *kk = dc_xstrdup(key);
        if (kk && map_put(&dc->msg_ids, id, kk, NULL) < 0)
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
#define DC_LIST_MAX   (64u << 10) /* a stored list: a game's cards or controls, ids of 20 bytes */
#define LIST_CONTROLS "ctl"

/* The list, loaded from the store when this run has not seen it; NULL when
 * it is empty and create is false. Borrowed from map. */
static struct json_object *list_get(struct dc *dc, struct map *map, const char *what,
                                    const char *game, bool create)
{
    struct json_object *l = map_get(map, game);
    if (l)
        return l;
    char k[256], *save = NULL;
    snprintf(k, sizeof(k), "%s/%s", what, game);
    char *v = dc_gw_state_get(dc, k);
    if (!v && !create)
        return NULL;
    l = json_object_new_array();
    for (char *w = v ? strtok_r(v, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save))
        json_object_array_add(l, json_object_new_string(w));
    free(v);
    if (map_put(map, game, l, NULL) < 0) {
        json_object_put(l);
        return NULL;
    }
    return l;
}

/* Stores l; when it cannot be written whole (no memory), the stored copy stays as it was. */
static void list_save(struct dc *dc, const char *what, const char *game, struct json_object *l)
{
    const struct platform_host *h = dc->base.host;
    struct buf b;
    buf_init(&b, DC_LIST_MAX);
    char k[256];
    snprintf(k, sizeof(k), "%s/%s", what, game);
    for (size_t i = 0; i < jarr_len(l); i++) {
        const char *w = jarr_str(l, i);
        if (w && buf_printf(&b, "%s%s", b.len ? " " : "", w) < 0) {
            log_error(DC_MOD, game, "cannot store %s: too long or no memory", k);
            goto done;
        }
    }
    if (b.len)
        dc_gw_state_set(dc, k, b.data);
    else if (h->state_del)
        h->state_del(h->ctx, &dc->base, k);
done:
    buf_free(&b);
}

static void list_forget(struct dc *dc, struct map *map, const char *what, const char *game)
{
    const struct platform_host *h = dc->base.host;
    char k[256];
    json_object_put(map_del(map, game));
    snprintf(k, sizeof(k), "%s/%s", what, game);
    if (h->state_del)
        h->state_del(h->ctx, &dc->base, k);
}

static ssize_t list_find(struct json_object *l, const char *word)
{
    for (size_t i = 0; i < jarr_len(l); i++) {
        const char *w = jarr_str(l, i);
        if (w && strcmp(w, word) == 0)
            return (ssize_t)i;
    }
    return -1;
}

struct json_object *dc_in_play(struct dc *dc, const char *game, struct json_object *hand_data)
{
    struct json_object *l = game ? list_get(dc, &dc->in_play, LIST_IN_PLAY, game, false) : NULL;
    if (jarr_len(l) > 0)
        return json_object_get(l);
    /* not announced to this adapter: what the hand shows of them */
    struct json_object *out = json_object_new_array();
    const char *roles[] = {jget_str(hand_data, "dealer"), jget_str(hand_data, "buyer")};
    for (unsigned i = 0; i < 2; i++)
        if (roles[i] && list_find(out, roles[i]) < 0)
            json_object_array_add(out, json_object_new_string(roles[i]));
    struct json_object *hand = jget_obj(hand_data, "hand");
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
    struct dc_msg *m = dc_msg_restore(dc, key);
    struct dc_op *op = dc_op_new(dc, DC_OP_CLOSE);
    if (!op)
        return;
    op->key = dc_xstrdup(key);
    /* an edit without allowed_mentions would drop the message's */
    op->body = dc_xstrdup("{\"components\":[],\"allowed_mentions\":{\"parse\":[]}}");
    if (m && m->channel) {
        op->channel = dc_xstrdup(m->channel);
        op->msg_id = dc_xstrdup(m->id);
        dc_queue_on_channel(dc, op);
        return;
    }
    /* a DM whose first version is on its way: it goes after it */
    struct msg_key k;
    struct dc_user *u =
        msg_key_parse(key, &k) == 0 && k.user[0] ? map_get(&dc->users, k.user) : NULL;
    if (u && (u->dm_channel || !STAILQ_EMPTY(&u->pending)))
        dc_queue_on_dm(dc, k.user, op);
    else
        dc_op_free(op);
}

/* Closes the live controls of the messages of `which` (see msg_key_matches). */
static void close_controls(struct dc *dc, const struct msg_key *which)
{
    const char *game = which->game;
    struct json_object *l = list_get(dc, &dc->controls, LIST_CONTROLS, game, false);
    size_t n = jarr_len(l);
    if (!n)
        return;
    struct json_object *keep = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        const char *key = jarr_str(l, i);
        if (!key)
            continue;
        if (msg_key_matches(key, which))
            close_message(dc, key);
        else
            json_object_array_add(keep, json_object_new_string(key));
    }
    void *old = NULL;
    if (map_put(&dc->controls, game, keep, &old) < 0) {
        json_object_put(keep);
        return;
    }
    json_object_put(old);
    list_save(dc, LIST_CONTROLS, game, keep);
}

/* Notes whether the message under key has live controls now. */
void dc_note_controls(struct dc *dc, const char *game, const char *key, bool live)
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
    struct json_object *events = jget_arr(data, "events");
    for (size_t i = 0; i < jarr_len(events); i++) {
        const char *e = jarr_str(events, i);
        if (e && strcmp(e, event) == 0)
            return true;
    }
    const char *e = jget_str(data, "event");
    return e && strcmp(e, event) == 0;
}

/*
 * What a message tells the adapter about a game: the resources in play (its
 * start), and the moments when controls stop meaning anything: a verdict
 * closes the vote buttons, the end of an offer (accepted, declined, cancelled,
 * expired) its Accept/Decline/Cancel buttons for that player, the result
 * every control left (the trade builders under the hands).
 */
void dc_note_game(struct dc *dc, const struct outbound *m)
{
    struct json_object *data = (struct json_object *)m->data;
    const char *game = jget_str(data, "game");
    struct msg_key which = {.number = MSG_ANY_NUMBER};
    if (!game || !*game || strchr(game, ' ') || strlen(game) >= sizeof which.game)
        return;
    strcpy(which.game, game);
    struct json_object *resources = jget_arr(data, "resources");
    if (m->kind == OUT_NOTICE && resources) {
        struct json_object *l = json_object_new_array();
        for (size_t i = 0; i < jarr_len(resources); i++) {
            const char *r = jarr_str(resources, i);
            if (r && !strchr(r, ' ') && list_find(l, r) < 0)
                json_object_array_add(l, json_object_new_string(r));
        }
        void *old = NULL;
        if (map_put(&dc->in_play, game, l, &old) < 0) {
            json_object_put(l);
        } else {
            json_object_put(old);
            list_save(dc, LIST_IN_PLAY, game, l);
        }
    }
    if (m->kind == OUT_NOTICE && m->channel &&
        (has_event(data, "verdict-convicted") || has_event(data, "verdict-discarded"))) {
        strcpy(which.topic, "vote");
        close_controls(dc, &which);
    }
    int64_t offer = jget_int64_or(data, "offer", 0);
    if (m->kind == OUT_NOTICE && m->user && !m->channel && offer > 0 && offer < MSG_ANY_NUMBER &&
        strlen(m->user) < sizeof which.user) {
        struct msg_key one = which;
        strcpy(one.topic, "offer");
        one.number = (unsigned)offer;
        strcpy(one.user, m->user);
        close_controls(dc, &one);
    }
    if (m->kind == OUT_RESULT) {
        close_controls(dc, &which);
        /* what the players chose in the builder does not carry into their next game */
        struct json_object *scores = jget_obj(data, "scores");
        if (scores) {
            json_object_object_foreach(scores, user, score)
            {
                (void)score;
                struct dc_user *u = map_get(&dc->users, user);
                if (u)
                    dc_builder_reset(&u->tb);
            }
        }
    }
}

struct forget_ctx {
    struct msg_key game;
    char *keys[256];
    unsigned n;
};

static void collect_game_keys(const char *key, void *val, void *arg)
{
    (void)val;
    struct forget_ctx *c = arg;
    if (c->n < 256 && msg_key_matches(key, &c->game))
        c->keys[c->n++] = strdup(key);
}

/*
 * A game is over and its last message went out: its logical keys are never
 * used again, so their message ids leave memory and the store. (Ids stored by
 * an earlier run and not used since stay stored.)
 */
void dc_forget_game(struct dc *dc, const char *game)
{
    struct forget_ctx c = {.game = {.number = MSG_ANY_NUMBER}};
    const struct platform_host *h = dc->base.host;
    char k[300];
    if (strlen(game) >= sizeof c.game.game)
        return;
    strcpy(c.game.game, game);
    list_forget(dc, &dc->in_play, LIST_IN_PLAY, game);
    list_forget(dc, &dc->controls, LIST_CONTROLS, game);
    map_each(&dc->msgs, collect_game_keys, &c);
    for (unsigned i = 0; i < c.n; i++) {
        if (!c.keys[i])
            continue;
        struct dc_msg *m = map_del(&dc->msgs, c.keys[i]);
        if (m && m->id) {
            free(map_del(&dc->msg_ids, m->id));
            snprintf(k, sizeof(k), "mid/%s", m->id);
            if (h->state_del)
                h->state_del(h->ctx, &dc->base, k);
        }
        snprintf(k, sizeof(k), "msg/%s", c.keys[i]);
        if (h->state_del)
            h->state_del(h->ctx, &dc->base, k);
        if (m)
            dc_msg_free(m);
        free(c.keys[i]);
    }
}
