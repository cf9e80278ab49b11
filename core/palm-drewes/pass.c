/*
 * pass.c - after a nuisance card, everyone passes a card to the left at once.
 *
 * A hidden, simultaneous choice: each player chooses in private (and may
 * change their mind) while the table learns only who has chosen; when the
 * last has, or time is up, every chosen card moves at once, and each player
 * learns in private what they got. Whoever holds no card (the player whose
 * nuisance card was their last) passes nothing and still receives.
 */
#include "internal.h"

static bool must_choose(const struct pd_game *g, unsigned s)
{
    return g->players[s].active && pd_bundle_total(&g->players[s].hand) > 0;
}

static unsigned still_choosing(const struct pd_game *g)
{
    unsigned n = 0;
    for (unsigned s = 0; s < g->nplayers; s++)
        n += must_choose(g, s) && g->players[s].pass == PD_NONE;
    return n;
}

void pd_open_pass(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    for (unsigned s = 0; s < g->nplayers; s++)
        g->players[s].pass = PD_NONE;
    pd_set_phase(g, PD_PHASE_PASS);
    pd_emit(c, PD_EV_PASS_OPENED, PD_TABLE)->deadline = pd_start_timer(c, PD_TIMER_PASS);
}

/* The seat that passes to s: the active seat whose left neighbour s is. */
static int right_of(const struct pd_game *g, unsigned s)
{
    for (unsigned r = 0; r < g->nplayers; r++)
        if (r != s && g->players[r].active && pd_left_of(g, r) == s)
            return (int)r;
    return PD_NOBODY;
}

static void move_cards(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].active && g->players[s].pass != PD_NONE)
            g->players[s].hand.n[g->players[s].pass]--;
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].active && g->players[s].pass != PD_NONE)
            g->players[pd_left_of(g, s)].hand.n[g->players[s].pass]++;
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (!g->players[s].active)
            continue;
        int from = right_of(g, s);
        struct pd_event *e = pd_emit(c, PD_EV_PASSED, (int)s);
        e->player = (int8_t)s;
        e->card = g->players[s].pass;
        e->target = (int8_t)pd_left_of(g, s);
        e->source = (int8_t)from;
        e->card2 = from == PD_NOBODY ? PD_NONE : g->players[from].pass;
    }
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].active)
            pd_emit_hand(c, s);
    for (unsigned s = 0; s < g->nplayers; s++)
        g->players[s].pass = PD_NONE;
    pd_emit(c, PD_EV_PASS_DONE, PD_TABLE);
}

void pd_pass_if_ready(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    if (g->phase != PD_PHASE_PASS || still_choosing(g) > 0)
        return;
    move_cards(c);
    pd_end_if_hand_empty(c);
    if (g->phase != PD_PHASE_OVER)
        pd_end_turn(c);
}

enum pd_error pd_act_pass(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (g->phase != PD_PHASE_PASS)
        return PD_ERR_WRONG_PHASE;
    if (a->card >= PD_CARDS)
        return PD_ERR_BAD_ACTION;
    struct pd_player *p = &g->players[a->player];
    if (!p->hand.n[a->card])
        return PD_ERR_NOT_HELD;
    bool first = p->pass == PD_NONE;
    p->pass = a->card;
    struct pd_event *e = pd_emit(c, PD_EV_PASS_CHOSEN, a->player);
    e->player = a->player;
    e->card = a->card;
    e->target = (int8_t)pd_left_of(g, (unsigned)a->player);
    if (first) {
        e = pd_emit(c, PD_EV_PASS_READY, PD_TABLE);
        e->player = a->player;
        e->number = (uint8_t)still_choosing(g);
    }
    pd_pass_if_ready(c);
    return PD_OK;
}

/* A card of the hand at random, each card as likely as the next. */
static unsigned any_card(struct pd_ctx *c, const struct pd_bundle *hand)
{
    unsigned k = rng_below(c->rng, pd_bundle_total(hand));
    for (unsigned t = 0; t < PD_CARDS; t++) {
        if (k < hand->n[t])
            return t;
        k -= hand->n[t];
    }
    return PD_NONE;
}

void pd_pass_timeout(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    struct pd_event *e = pd_emit(c, PD_EV_TIMED_OUT, PD_TABLE);
    e->number = PD_PHASE_PASS;
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (!must_choose(g, s) || g->players[s].pass != PD_NONE)
            continue;
        g->players[s].pass = (uint8_t)any_card(c, &g->players[s].hand);
        e = pd_emit(c, PD_EV_PASS_CHOSEN, (int)s);
        e->player = (int8_t)s;
        e->card = g->players[s].pass;
        e->target = (int8_t)pd_left_of(g, s);
    }
    pd_pass_if_ready(c);
}
