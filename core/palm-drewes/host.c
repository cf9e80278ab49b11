/*
 * host.c - the host removes a player: their cards leave the game, and
 * whatever waited on them goes on without them.
 */
#include "internal.h"

/* A takeover in its window by or against the player who left. */
static void window_without(struct pd_ctx *c, unsigned seat)
{
    struct pd_game *g = c->g;
    if (seat == g->current || seat == g->takeover_victim) {
        /* The taker left, or the deal did with its owner: nothing moves. */
        g->discard.n[g->takeover_card]++;
        g->takeover_card = g->takeover_deal = PD_NONE;
        g->takeover_victim = PD_NONE;
        for (unsigned s = 0; s < g->nplayers; s++)
            g->players[s].waived = false;
        pd_end_turn(c);
        return;
    }
    for (unsigned s = 0; s < g->nplayers; s++)
        if (s != g->current && g->players[s].active && !g->players[s].waived)
            return;
    pd_close_window(c);
}

/* The step under way goes on without seat. */
static void go_on_without(struct pd_ctx *c, unsigned seat)
{
    struct pd_game *g = c->g;
    switch (g->phase) {
    case PD_PHASE_TURN:
        if (seat == g->current)
            pd_next_turn(c);
        break;
    case PD_PHASE_WINDOW:
        window_without(c, seat);
        break;
    case PD_PHASE_PASS:
        pd_pass_if_ready(c);
        break;
    case PD_PHASE_LOSS:
        pd_recheck_loss(c);
        break;
    default:
        break;
    }
}

enum pd_error pd_act_kick(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (!pd_is_active(g, a->target))
        return PD_ERR_NOT_A_PLAYER;
    unsigned seat = (unsigned)a->target;
    struct pd_player *p = &g->players[seat];
    if (g->phase == PD_PHASE_TURN)
        pd_close_offers(c, PD_EV_OFFER_CANCELLED, (int)seat);
    pd_bundle_add(&g->discard, &p->hand);
    pd_bundle_add(&g->discard, &p->business);
    if (p->burden != PD_NONE)
        g->discard.n[p->burden]++;
    p->active = false;
    p->hand = (struct pd_bundle){{0}};
    p->business = (struct pd_bundle){{0}};
    p->burden = PD_NONE;
    p->skips = 0;
    p->pass = PD_NONE;
    p->waived = false;
    pd_emit(c, PD_EV_PLAYER_REMOVED, PD_TABLE)->player = (int8_t)seat;
    if (pd_active_count(g) < PD_MIN_PLAYERS) {
        pd_finish(c, PD_END_PLAYERS);
        return PD_OK;
    }
    go_on_without(c, seat);
    return PD_OK;
}
