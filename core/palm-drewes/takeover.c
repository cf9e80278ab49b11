/*
 * takeover.c - takeovers, the Magnum's window after them, and the Magnum.
 *
 * A takeover (or connections) names a deal in another business; before it
 * moves, every other player may fire the Magnum to stop it. The window
 * opens whether or not anyone holds the Magnum, so its opening tells nobody
 * where the Magnum is; it closes when its time is up or everyone else has
 * let the takeover go.
 */
#include "internal.h"

enum pd_error pd_takeover_check(const struct pd_game *g, int victim, unsigned deal)
{
    if (victim == g->current)
        return PD_ERR_SELF_TARGET;
    if (!pd_is_active(g, victim))
        return PD_ERR_NOT_A_PLAYER;
    if (deal >= PD_CARDS)
        return PD_ERR_BAD_ACTION;
    if (!pd_card_is_deal(deal))
        return PD_ERR_NOT_A_DEAL;
    if (!g->players[victim].business.n[deal])
        return PD_ERR_NO_SUCH_DEAL;
    return PD_OK;
}

void pd_open_window(struct pd_ctx *c, unsigned card, unsigned victim, unsigned deal)
{
    struct pd_game *g = c->g;
    g->takeover_card = (uint8_t)card;
    g->takeover_victim = (uint8_t)victim;
    g->takeover_deal = (uint8_t)deal;
    for (unsigned s = 0; s < g->nplayers; s++)
        g->players[s].waived = false;
    pd_set_phase(g, PD_PHASE_WINDOW);
    struct pd_event *e = pd_emit(c, PD_EV_TAKEOVER, PD_TABLE);
    e->player = (int8_t)g->current;
    e->card = (uint8_t)card;
    e->target = (int8_t)victim;
    e->deal = (uint8_t)deal;
    e->deadline = pd_start_timer(c, PD_TIMER_WINDOW);
}

/* The window is over: the takeover card goes, the fields are cleared. */
static void clear_window(struct pd_game *g)
{
    g->discard.n[g->takeover_card]++;
    g->takeover_card = g->takeover_deal = PD_NONE;
    g->takeover_victim = PD_NONE;
    for (unsigned s = 0; s < g->nplayers; s++)
        g->players[s].waived = false;
}

void pd_close_window(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    unsigned victim = g->takeover_victim, deal = g->takeover_deal;
    /* The victim may have left, their business with them: nothing to take. */
    if (g->players[victim].business.n[deal]) {
        g->players[victim].business.n[deal]--;
        g->players[g->current].business.n[deal]++;
        struct pd_event *e = pd_emit(c, PD_EV_TAKEN, PD_TABLE);
        e->player = (int8_t)g->current;
        e->target = (int8_t)victim;
        e->card = (uint8_t)deal;
    }
    clear_window(g);
    pd_end_turn(c);
}

/* Whether every active player but the taker has let the takeover go. */
static bool all_waived(const struct pd_game *g)
{
    for (unsigned s = 0; s < g->nplayers; s++)
        if (s != g->current && g->players[s].active && !g->players[s].waived)
            return false;
    return true;
}

enum pd_error pd_act_waive(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (g->phase != PD_PHASE_WINDOW)
        return PD_ERR_WRONG_PHASE;
    if (a->player == g->current)
        return PD_ERR_SELF_TARGET;
    if (g->players[a->player].waived)
        return PD_ERR_ALREADY_WAIVED;
    g->players[a->player].waived = true;
    pd_emit(c, PD_EV_WAIVED, PD_TABLE)->player = a->player;
    if (all_waived(g))
        pd_close_window(c);
    return PD_OK;
}

/* The Magnum stops the takeover in the window; the turn ends. */
static enum pd_error stop_takeover(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (g->phase != PD_PHASE_WINDOW)
        return PD_ERR_NO_TAKEOVER;
    if (a->player == g->current)
        return PD_ERR_SELF_TARGET;
    g->players[a->player].hand.n[PD_MAGNUM]--;
    g->discard.n[PD_MAGNUM]++;
    struct pd_event *e = pd_emit(c, PD_EV_TAKEOVER_STOPPED, PD_TABLE);
    e->player = a->player;
    e->target = (int8_t)g->current;
    e->deal = g->takeover_deal;
    e->card = g->takeover_card;
    pd_emit_hand(c, (unsigned)a->player);
    clear_window(g);
    pd_end_turn(c);
    return PD_OK;
}

/* The Magnum lifts a burden, in or out of turn; a loss it lifts is off. */
static enum pd_error lift_with_magnum(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (!pd_is_active(g, a->target))
        return PD_ERR_NOT_A_PLAYER;
    if (g->players[a->target].burden == PD_NONE)
        return PD_ERR_NO_BURDEN;
    g->players[a->player].hand.n[PD_MAGNUM]--;
    g->discard.n[PD_MAGNUM]++;
    pd_lift_burden(c, (unsigned)a->target, a->player, PD_MAGNUM, PD_NONE);
    pd_emit_hand(c, (unsigned)a->player);
    pd_recheck_loss(c);
    return PD_OK;
}

enum pd_error pd_act_magnum(struct pd_ctx *c, const struct pd_action *a)
{
    const struct pd_player *p = &c->g->players[a->player];
    /* A Magnum chosen for the pass is promised to the left. */
    unsigned promised = c->g->phase == PD_PHASE_PASS && p->pass == PD_MAGNUM;
    if (p->hand.n[PD_MAGNUM] <= promised)
        return PD_ERR_NOT_HELD;
    return a->target == PD_NOBODY ? stop_takeover(c, a) : lift_with_magnum(c, a);
}
