/*
 * delivery.c - one message of the bot's outbox as the REST operations that
 * carry it, reported delivered once Discord answered every one of them.
 *
 * A message about a change stays in the store's outbox until then
 * (bot/turn.c, T5), so what a kill -9 cuts short goes again after the
 * restart, whole: its post (with the same nonce, so Discord answers with the
 * first post instead of making another), its edit, the controls it closes
 * (its "closes", and the message a fresh post under its key replaces) and
 * its reactions. Each of them may go twice: edits and reactions are the same
 * request again.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bot/log.h"
#include "internal.h"

/* How many deliveries of game are not done, moved by step (+1, -1). */
static void count_open(struct dc *dc, const char *game, int step)
{
    uintptr_t n = (uintptr_t)map_get(&dc->open, game);
    if (step < 0 && n <= 1) {
        map_del(&dc->open, game);
        return;
    }
    n = step > 0 ? n + 1 : n - 1;
    /* not counted for want of memory: the game may be forgotten before a
     * close of it is written, which then uses the id it noted when queued */
    if (map_put(&dc->open, game, (void *)n, NULL) < 0)
        log_warn(DC_MOD, game, "no memory to count a game's messages in flight");
}

/* m's game, or NULL when it tells of none. */
static const char *game_of(const struct outbound *m)
{
    const char *game = m->key_parts ? m->key_parts->game : jget_str(m->data, "game");
    return game && *game ? game : NULL;
}

/* The delivery of m, which has an outbox id or a game: a message with
 * neither needs none, as nothing waits for its operations' answers. */
static struct dc_delivery *delivery_new(struct dc *dc, const struct outbound *m, const char *game)
{
    struct dc_delivery *dl = calloc(1, sizeof *dl);
    if (!dl)
        return NULL;
    dl->outbox_id = m->outbox_id;
    dl->pending = 1; /* the builder's own hold, until every operation is queued */
    if (game) {
        dl->game = strdup(game);
        if (dl->game)
            count_open(dc, game, +1);
    }
    return dl;
}

static void release(struct dc *dc, struct dc_delivery *dl, bool cut)
{
    if (cut)
        dl->cut = true;
    if (--dl->pending > 0)
        return;
    /* cut short: it stays in the outbox and goes again after a restart */
    if (!dl->cut)
        dc_sent(dc, dl->outbox_id);
    if (dl->game) {
        count_open(dc, dl->game, -1);
        if (!map_get(&dc->open, dl->game) && map_del(&dc->ending, dl->game))
            dc_forget_game(dc, dl->game);
        free(dl->game);
    }
    free(dl);
}

void dc_delivery_hold(struct dc_delivery *dl, struct dc_op *op)
{
    if (!dl)
        return;
    dl->pending++;
    op->dl = dl;
}

void dc_delivery_answered(struct dc *dc, struct dc_op *op, bool cut)
{
    struct dc_delivery *dl = op->dl;
    if (!dl)
        return;
    op->dl = NULL;
    release(dc, dl, cut);
}

void dc_delivery_game_over(struct dc *dc, const char *game)
{
    if (!map_get(&dc->open, game)) {
        dc_forget_game(dc, game);
        return;
    }
    if (map_put(&dc->ending, game, (void *)1, NULL) < 0)
        log_warn(DC_MOD, game, "no memory to note the game's end; its message ids stay stored");
}

/* Writes the nonce of outbox message outbox_id: sent again after a crash, a
 * message Discord already has is not posted twice. */
static void write_nonce(struct dc *dc, struct jw *w, int64_t outbox_id)
{
    static const char hex[] = "0123456789abcdef";
    char digits[16], *d = digits + sizeof digits;
    uint64_t id = (uint64_t)outbox_id;
    do /* written by hand: snprintf cost 700 instructions */
        *--d = hex[id & 15];
    while (id >>= 4);
    jw_key(w, "nonce");
    jw_str_open(w);
    jw_str_add(w, dc->nonce_prefix, strlen(dc->nonce_prefix));
    jw_str_add(w, d, (size_t)(digits + sizeof digits - d));
    jw_str_close(w);
    jw_key(w, "enforce_nonce");
    jw_bool(w, true);
}

/* A fresh message takes m's key: edits and reactions go to it from now on,
 * and a press on the one it replaces is stale (interactions.c). */
static void take_key(struct dc *dc, const struct outbound *m)
{
    struct dc_msg *old = map_get(&dc->msgs, m->key);
    if (!old)
        return;
    bool same = m->outbox_id && old->outbox_id == m->outbox_id; /* sent again after a crash */
    free(old->replaced);
    old->replaced = old->id && !same ? old->id : NULL;
    if (old->id && same)
        free(old->id);
    old->id = NULL;
    old->outbox_id = m->outbox_id;
    map_clear(&old->reacted, NULL);
}

/* A copy of the n bytes of p and then tail, NUL-terminated, or NULL. */
static char *copy_body(const char *p, size_t n, const char *tail)
{
    size_t t = strlen(tail);
    char *c = malloc(n + t + 1);
    if (c) {
        memcpy(c, p, n);
        memcpy(c + n, tail, t + 1);
    }
    return c;
}

/*
 * Writes op's body or bodies for m into dc->body: an edit's without a nonce
 * (PATCH takes none) and, for a message of the outbox, the post with it (an
 * edit is posted when its message has no id yet: the first lobby, hand or
 * drop). *controls says whether the message shows controls. Returns 0, or
 * -1 when a body cannot be written.
 */
static int write_bodies(struct dc *dc, struct dc_op *op, const struct outbound *m, bool *controls)
{
    struct jw w;
    struct buf *b = dc_body_start(dc, &w);
    jw_object(&w);
    bool bare = m->key && dc_closed_for_good(dc, m->key);
    *controls = dc_render_into(dc, m, bare, &w);
    dc_reply_reference(m, &w);
    int rc = -1;
    if (op->type == DC_OP_EDIT && m->outbox_id && !w.failed &&
        !(op->body = copy_body(b->data, b->len, "}")))
        goto done;
    if (m->outbox_id)
        write_nonce(dc, &w, m->outbox_id);
    jw_object_end(&w);
    if (jw_finish(&w) < 0) {
        log_error(DC_MOD, NULL, "%s: its body passes %u bytes or found no memory; not sent",
                  m->key ? m->key : "a message", DC_BODY_MAX);
        goto done;
    }
    char **text = op->type == DC_OP_EDIT && m->outbox_id ? &op->post_body : &op->body;
    if (!(*text = copy_body(b->data, b->len, "")))
        goto done;
    rc = 0;
done:
    dc_body_done(dc);
    return rc;
}

/* The post or edit of m, rendered, with its nonce; queued. Returns 0, or -1
 * when it can never be sent. */
static int queue_message(struct dc *dc, struct dc_delivery *dl, const struct outbound *m)
{
    if (m->key && m->replace)
        dc_msg_restore(dc, m->key);
    struct dc_op *op = dc_op_new(dc, m->key && m->replace ? DC_OP_EDIT : DC_OP_POST);
    if (!op)
        return -1;
    op->outbox_id = m->outbox_id;
    bool controls;
    if (write_bodies(dc, op, m, &controls) < 0) {
        dc_op_free(op);
        return -1;
    }
    if (m->key) {
        if (!m->replace)
            dc_close_replaced(dc, dl, m->key, m->outbox_id); /* goes first, on its channel */
        dc_note_controls(dc, m->key, controls);
    }
    op->key = dc_xstrdup(m->key);
    op->user = m->channel ? NULL : dc_xstrdup(m->user);
    if (m->key && !m->replace)
        take_key(dc, m);
    dc_delivery_hold(dl, op);
    if (!m->channel)
        return dc_queue_on_dm(dc, m->user, op);
    op->channel = dc_xstrdup(m->channel);
    if (m->key)
        dc_msg_get(dc, m->key, m->channel);
    return dc_queue_on_channel(dc, op);
}

/* The controls m's "closes" ends. */
static void close_listed(struct dc *dc, struct dc_delivery *dl, const struct outbound *m)
{
    struct json_object *closes = jget_arr(m->data, "closes");
    for (size_t i = 0; i < jarr_len(closes); i++) {
        const char *key = jarr_str(closes, i);
        if (key)
            dc_close_key(dc, dl, key);
    }
}

/* The reactions that make the choices of a table message (a drop's cards),
 * once per emoji per message. */
static void react(struct dc *dc, struct dc_delivery *dl, const struct outbound *m)
{
    struct json_object *choices = jget_arr(m->data, "choices");
    struct dc_msg *rec =
        m->key && m->channel && choices ? dc_msg_get(dc, m->key, m->channel) : NULL;
    if (!rec)
        return;
    for (size_t i = 0; i < jarr_len(choices); i++) {
        const char *emoji = jget_str(jarr_at(choices, i), "emoji");
        if (!emoji || map_get(&rec->reacted, emoji))
            continue;
        /* not noted for want of memory, it may be put again later: harmless, as
         * putting a reaction is idempotent */
        if (map_put(&rec->reacted, emoji, (void *)1, NULL) < 0)
            log_warn(DC_MOD, NULL, "no memory to note a reaction; it may be sent twice");
        struct dc_op *r = dc_op_new(dc, DC_OP_REACT);
        if (!r)
            continue;
        r->key = dc_xstrdup(m->key);
        r->channel = dc_xstrdup(m->channel);
        r->emoji = dc_xstrdup(emoji);
        dc_delivery_hold(dl, r);
        dc_queue_on_channel(dc, r);
    }
}

int dc_deliver_message(struct dc *dc, const struct outbound *m)
{
    const char *game = game_of(m);
    struct dc_delivery *dl = NULL; /* NULL: nothing waits for the answers */
    if ((m->outbox_id || game) && !(dl = delivery_new(dc, m, game)))
        return -1;
    int rc = queue_message(dc, dl, m);
    if (rc == 0) {
        close_listed(dc, dl, m);
        react(dc, dl, m);
    }
    if (dl)
        release(dc, dl, rc < 0);
    return rc;
}
