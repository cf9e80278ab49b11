/*
 * messages.c - what the bot's messages tell the adapter about a game, and the
 * controls (buttons, menus) closed as the game moves on.
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

void dc_close_replaced(struct dc *dc, const char *key)
{
    struct dc_msg *m = dc_msg_restore(dc, key);
    if (!m || !m->id || !m->channel)
        return; /* never posted, or not yet: nothing shows its controls */
    struct dc_op *op = dc_op_new(dc, DC_OP_CLOSE);
    if (!op)
        return;
    op->key = dc_xstrdup(key);
    op->body = dc_xstrdup("{\"components\":[],\"allowed_mentions\":{\"parse\":[]}}");
    op->channel = dc_xstrdup(m->channel);
    op->msg_id = dc_xstrdup(m->id);
    op->replaced = true;
    dc_queue_on_channel(dc, op);
}

bool dc_controls_live(struct dc *dc, const char *game, const char *key)
{
    return dc_list_find(dc_list_get(dc, &dc->controls, LIST_CONTROLS, game, false), key) >= 0;
}

/* Closes the live controls of the messages of `which` (see msg_key_matches). */
static void close_controls(struct dc *dc, const struct msg_key *which)
{
    const char *game = which->game;
    struct json_object *l = dc_list_get(dc, &dc->controls, LIST_CONTROLS, game, false);
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
    dc_list_save(dc, LIST_CONTROLS, game, keep);
}

/* Notes whether the message under key has live controls now. */
void dc_note_controls(struct dc *dc, const char *game, const char *key, bool live)
{
    struct json_object *l = dc_list_get(dc, &dc->controls, LIST_CONTROLS, game, live);
    ssize_t at = dc_list_find(l, key);
    if (!l || (at >= 0) == live)
        return;
    if (live)
        json_object_array_add(l, json_object_new_string(key));
    else
        json_object_array_del_idx(l, (size_t)at, 1);
    dc_list_save(dc, LIST_CONTROLS, game, l);
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
            if (r && !strchr(r, ' ') && dc_list_find(l, r) < 0)
                json_object_array_add(l, json_object_new_string(r));
        }
        void *old = NULL;
        if (map_put(&dc->in_play, game, l, &old) < 0) {
            json_object_put(l);
        } else {
            json_object_put(old);
            dc_list_save(dc, LIST_IN_PLAY, game, l);
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
