/*
 * kick.c - the Game Master removes a player who cannot go on.
 */
#include <string.h>

#include "internal.h"

enum il_error il_act_kick(struct il_ctx *c, const struct il_action *a)
{
    struct il_game *g = c->g;
    if (a->player != IL_GM)
        return IL_ERR_NOT_GM;
    if (!il_is_active_seat(g, a->target))
        return IL_ERR_NOT_A_PLAYER;
    unsigned seat = (unsigned)a->target;
    struct il_player *p = &g->players[seat];

    for (unsigned i = 0; i < g->noffers;) {
        struct il_offer o = g->offers[i];
        if (o.from != seat && o.to != seat) {
            i++;
            continue;
        }
        il_offer_remove(g, i);
        il_emit_offer(c, IL_EV_OFFER_CANCELLED, &o);
    }
    for (unsigned k = g->case_index; k < g->ncases; k++) {
        if (il_case_judged(g, k))
            continue; /* its verdict stands */
        for (unsigned s = 0; s < g->nplayers; s++) {
            if (g->players[s].votes[k] != (int8_t)seat)
                continue;
            g->players[s].votes[k] = IL_NOBODY;
            struct il_event *e = il_emit(c, IL_EV_VOTE_WITHDRAWN, (int)s);
            e->player = (int8_t)s;
            e->target = (int8_t)seat;
            e->number = (uint8_t)k;
        }
        p->votes[k] = IL_NOBODY;
    }

    il_bundle_add(&g->discard, &p->hand);
    memset(&p->hand, 0, sizeof p->hand);
    p->active = false;
    p->grabbed = false;

    struct il_event *e = il_emit(c, IL_EV_PLAYER_REMOVED, IL_PUBLIC);
    e->player = (int8_t)seat;

    /* Their cases stay and are judged like any other: dropping them would
     * tell the table which suspect cards were theirs. Below the rulebook's
     * 4 players the game cannot go on as the rulebook's game. */
    if (il_active_count(g) < IL_MIN_PLAYERS) {
        il_finish(c, true);
    } else {
        il_end_drop_if_complete(c);
        il_close_if_all_voted(c);
    }
    return IL_OK;
}
