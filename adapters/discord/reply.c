/*
 * reply.c - which of the bot's messages answers which input: an answer to
 * an interaction goes in the interaction's answer, an answer to a typed
 * command replies to it.
 */
#include <stdint.h>
#include <string.h>

#include "internal.h"

/*
 * The interaction ("ix:<id>") m answers, or NULL. The bot's own answers name
 * it (reply_to). A private notice to the user whose interaction is being
 * handled (a vote's confirmation) answers it too, ephemerally, instead of
 * going to their DMs; but not a keyed message (the hand), nor one that closes
 * controls: those stay in the outbox until delivered, and an interaction's
 * answer is never kept there.
 */
const char *dc_answered_input(const struct outbound *m)
{
    const struct inbound *c = m->cause;
    if (m->reply_to)
        return m->reply_to;
    if (!m->user || m->key || !c || !c->reply_to || !c->user || strcmp(m->user, c->user) != 0 ||
        (m->kind != OUT_NOTICE && m->kind != OUT_ERROR) || jget_arr(m->data, "closes"))
        return NULL;
    return c->reply_to;
}

int dc_reply(struct dc *dc, const struct outbound *m)
{
    const char *ix = dc_answered_input(m);
    if (!ix)
        return 0;
    if (dc_ix_reply(dc, ix, m)) {
        dc_sent(dc, m->outbox_id); /* the interaction's answer carries it now */
        return 1;
    }
    if (!m->channel || !m->cause || !m->cause->user)
        return 0;
    /* an answer meant for one user whose interaction is gone: to them alone */
    struct outbound dm = *m;
    dm.channel = NULL;
    dm.user = m->cause->user;
    dm.reply_to = NULL;
    if (dc_deliver_message(dc, &dm) < 0)
        return 0;
    return 1;
}

/*
 * Whether m answers a text command, in its channel: at a table, the bot's
 * direct answer (no game data: the game's own announcements are not
 * answers); in a DM, whatever it tells the author then ("You accepted offer
 * #1", the hand a "hand" posts anew). The command's message id is its order.
 */
static bool answers_text(const struct outbound *m)
{
    const struct inbound *c = m->cause;
    /* an edit of a keyed message is no answer; a fresh one ("hand") can be */
    if (!c || c->type != INBOUND_MESSAGE || !c->order || m->reply_to || (m->key && m->replace))
        return false;
    if (m->channel)
        return !m->data && c->channel && strcmp(m->channel, c->channel) == 0;
    return !c->channel && strcmp(m->user, c->user) == 0;
}

void dc_reply_reference(const struct outbound *m, struct jw *w)
{
    if (!answers_text(m))
        return;
    char id[24], *digits = id + sizeof id; /* written by hand: snprintf cost 1,000 instructions */
    *--digits = '\0';
    uint64_t order = m->cause->order;
    do
        *--digits = (char)('0' + order % 10);
    while (order /= 10);
    jw_key(w, "message_reference");
    jw_object(w);
    jw_key(w, "message_id");
    jw_strn(w, digits, (size_t)(id + sizeof id - 1 - digits));
    jw_key(w, "fail_if_not_exists");
    jw_bool(w, false);
    jw_object_end(w);
}
