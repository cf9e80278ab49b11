/*
 * messages.c - which messages have live controls (buttons, menus), and the
 * edits that take them away once their moment has passed.
 *
 * A game's live controls are a stored list ("ctl/<game>"): a key joins it
 * when its message is sent with controls and leaves it when they are closed,
 * at the moment the close is queued, so that a press in between is refused
 * (components.c). The close itself belongs to the delivery of the message
 * that ended the controls, which stays in the outbox until it is done. A key
 * closed by a "closes" is closed for good ("cls/<game>"): an older edit of
 * its message, sent again from the outbox after a crash, goes without them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/log.h"
#include "internal.h"

/* An edit that takes every component away; without allowed_mentions it
 * would drop the message's. */
#define CLOSE_BODY "{\"components\":[],\"allowed_mentions\":{\"parse\":[]}}"

static bool game_of(const char *key, struct msg_key *k)
{
    return msg_key_parse(key, k) == 0;
}

static void list_note(struct dc *dc, struct map *map, const char *what, const char *key, bool in);

void dc_note_controls(struct dc *dc, const char *key, bool live)
{
    list_note(dc, &dc->controls, LIST_CONTROLS, key, live);
}

bool dc_controls_live(struct dc *dc, const char *key)
{
    struct msg_key k;
    return game_of(key, &k) &&
           dc_list_find(dc_list_get(dc, &dc->controls, LIST_CONTROLS, k.game, false), key) >= 0;
}

/* A CLOSE of the message under key (id: the message when known now). */
static struct dc_op *close_op(struct dc *dc, const char *key, const char *channel, const char *id)
{
    struct dc_op *op = dc_op_new(dc, DC_OP_CLOSE);
    if (!op)
        return NULL;
    op->key = dc_xstrdup(key);
    op->body = dc_xstrdup(CLOSE_BODY);
    op->channel = dc_xstrdup(channel);
    op->msg_id = dc_xstrdup(id);
    return op;
}

/*
 * Queues op, a close of the message under key, behind what the bot sent
 * before it for that message: on the message's channel, but for a DM whose
 * channel this run has not opened yet, behind the messages that wait for it.
 * After a restart the message's channel is known from the store before its
 * DM channel is open again, and an edit sent again (or new) waits for that:
 * a close that went ahead would be undone by the edit landing after it.
 */
static void queue_close(struct dc *dc, struct dc_delivery *dl, const char *key, struct dc_op *op)
{
    struct msg_key k;
    struct dc_user *u = game_of(key, &k) && k.user[0] ? map_get(&dc->users, k.user) : NULL;
    dc_delivery_hold(dl, op);
    if (!u || u->dm_channel || STAILQ_EMPTY(&u->pending)) {
        dc_queue_on_channel(dc, op);
        return;
    }
    free(op->channel); /* the DM channel's, once it is open */
    op->channel = NULL;
    dc_queue_on_dm(dc, k.user, op);
}

void dc_close_replaced(struct dc *dc, struct dc_delivery *dl, const char *key, int64_t outbox_id)
{
    struct dc_msg *m = dc_msg_restore(dc, key);
    if (!m || !m->id || !m->channel || !dc_controls_live(dc, key))
        return; /* never posted, or not yet, or nothing to press on it */
    if (outbox_id && m->outbox_id == outbox_id)
        return; /* the very message this one posts, sent again after a crash */
    struct dc_op *op = close_op(dc, key, m->channel, m->id);
    if (!op)
        return;
    op->replaced = true;
    queue_close(dc, dl, key, op);
}

/* Adds key to its game's list what (LIST_CONTROLS, LIST_CLOSED), or takes it
 * out (!in); the list is stored when it changes. */
static void list_note(struct dc *dc, struct map *map, const char *what, const char *key, bool in)
{
    struct msg_key k;
    if (!game_of(key, &k))
        return;
    struct json_object *l = dc_list_get(dc, map, what, k.game, in);
    ssize_t at = dc_list_find(l, key);
    if (!l || (at >= 0) == in)
        return;
    if (in)
        json_object_array_add(l, json_object_new_string(key));
    else
        json_object_array_del_idx(l, (size_t)at, 1);
    dc_list_save(dc, what, k.game, l);
}

bool dc_closed_for_good(struct dc *dc, const char *key)
{
    struct msg_key k;
    return game_of(key, &k) &&
           dc_list_find(dc_list_get(dc, &dc->closed, LIST_CLOSED, k.game, false), key) >= 0;
}

void dc_close_key(struct dc *dc, struct dc_delivery *dl, const char *key)
{
    list_note(dc, &dc->closed, LIST_CLOSED, key, true);
    dc_note_controls(dc, key, false);
    dc_builder_free(map_del(&dc->builders, key));
    struct dc_msg *m = dc_msg_restore(dc, key);
    struct dc_op *op;
    if (m && m->channel) {
        /* a post still on its way is ahead of the close in the channel's
         * queue: the close reads its id when it goes */
        if ((op = close_op(dc, key, m->channel, m->id)))
            queue_close(dc, dl, key, op);
        return;
    }
    /* a DM whose first version is on its way: it goes after it */
    struct msg_key k;
    struct dc_user *u = game_of(key, &k) && k.user[0] ? map_get(&dc->users, k.user) : NULL;
    if (!u || (!u->dm_channel && STAILQ_EMPTY(&u->pending)) ||
        !(op = close_op(dc, key, NULL, NULL)))
        return; /* never sent: nothing shows its controls */
    dc_delivery_hold(dl, op);
    dc_queue_on_dm(dc, k.user, op);
}
