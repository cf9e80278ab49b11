/*
 * turn.c - the order of play: a turn starts, the move ends it with the
 * burden's loss and the draw, and the next player's begins; discards; what
 * the rules do for a player whose time ran out.
 */
#include <assert.h>

#include "internal.h"

void pd_next_turn(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    unsigned s = g->current;
    /* Each pass over a seat that sits out uses one of its skips, so this ends. */
    for (;;) {
        s = pd_left_of(g, s);
        struct pd_player *p = &g->players[s];
        if (p->skips == 0)
            break;
        p->skips--;
        struct pd_event *e = pd_emit(c, PD_EV_TURN_SKIPPED, PD_TABLE);
        e->player = (int8_t)s;
        e->number = p->skips;
    }
    g->current = (uint8_t)s;
    g->turns++;
    pd_set_phase(g, PD_PHASE_TURN);
    struct pd_event *e = pd_emit(c, PD_EV_TURN_STARTED, PD_TABLE);
    e->player = (int8_t)s;
    e->deadline = pd_start_timer(c, PD_TIMER_TURN);
}

static bool any_deal(unsigned card)
{
    return pd_card_is_deal(card);
}

/* Whether `burden` takes `deal` at the end of a turn. */
static bool takes(unsigned burden, unsigned deal)
{
    if (burden == PD_RAID)
        return pd_card_is_illegal(deal);
    return burden == PD_PROTECTION && pd_card_is_deal(deal);
}

/* The deals of seat's business its burden takes: how many kinds, and the
 * cheapest (the lowest card among equals). */
static unsigned loss_candidates(const struct pd_game *g, unsigned seat, unsigned *cheapest)
{
    const struct pd_player *p = &g->players[seat];
    unsigned kinds = 0;
    *cheapest = PD_NONE;
    for (unsigned t = 0; t < PD_CARDS; t++) {
        if (!p->business.n[t] || !takes(p->burden, t))
            continue;
        kinds++;
        if (*cheapest == PD_NONE || pd_card_value(t) < pd_card_value(*cheapest))
            *cheapest = t;
    }
    return kinds;
}

/* The draw that ends a turn, and the next turn; or the end, when the pile is empty. */
static void draw_and_pass_on(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    unsigned s = g->current;
    struct pd_player *p = &g->players[s];
    /* A raid or protection money with nothing left to take goes. */
    if ((p->burden == PD_RAID && !pd_kinds_where(&p->business, pd_card_is_illegal)) ||
        (p->burden == PD_PROTECTION && !pd_kinds_where(&p->business, any_deal)))
        pd_lift_burden(c, s, PD_NOBODY, PD_NONE, PD_NONE);
    if (g->npile == 0) {
        pd_finish(c, PD_END_PILE);
        return;
    }
    uint8_t card = g->pile[--g->npile];
    g->pile[g->npile] = 0;
    p->hand.n[card]++;
    struct pd_event *e = pd_emit(c, PD_EV_DREW, (int)s);
    e->player = (int8_t)s;
    e->card = card;
    e = pd_emit(c, PD_EV_DRAWN, PD_TABLE);
    e->player = (int8_t)s;
    e->count = g->npile;
    pd_emit_hand(c, s);
    pd_next_turn(c);
}

void pd_end_turn(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    unsigned s = g->current;
    if (!g->players[s].active) {
        /* The host removed them: nobody draws for them. */
        pd_next_turn(c);
        return;
    }
    unsigned cheapest;
    unsigned kinds = loss_candidates(g, s, &cheapest);
    if (kinds == 1)
        pd_lose_deal(c, s, cheapest, g->players[s].burden);
    if (kinds > 1) {
        pd_set_phase(g, PD_PHASE_LOSS);
        struct pd_event *e = pd_emit(c, PD_EV_LOSS_DUE, PD_TABLE);
        e->player = (int8_t)s;
        e->card = g->players[s].burden;
        e->deadline = pd_start_timer(c, PD_TIMER_CHOICE);
        return;
    }
    draw_and_pass_on(c);
}

void pd_recheck_loss(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    unsigned cheapest;
    if (g->phase != PD_PHASE_LOSS)
        return;
    if (!g->players[g->current].active) {
        pd_next_turn(c);
        return;
    }
    if (loss_candidates(g, g->current, &cheapest) < 2)
        draw_and_pass_on(c);
}

enum pd_error pd_act_lose(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (g->phase != PD_PHASE_LOSS)
        return PD_ERR_WRONG_PHASE;
    if (a->player != g->current)
        return PD_ERR_NOT_YOUR_TURN;
    if (a->card >= PD_CARDS)
        return PD_ERR_BAD_ACTION;
    const struct pd_player *p = &g->players[g->current];
    if (!pd_card_is_deal(a->card) || !p->business.n[a->card])
        return PD_ERR_NO_SUCH_DEAL;
    if (!takes(p->burden, a->card))
        return PD_ERR_WRONG_DEAL;
    pd_lose_deal(c, g->current, a->card, p->burden);
    draw_and_pass_on(c);
    return PD_OK;
}

void pd_loss_timeout(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    unsigned cheapest;
    struct pd_event *e = pd_emit(c, PD_EV_TIMED_OUT, PD_TABLE);
    e->player = (int8_t)g->current;
    e->number = PD_PHASE_LOSS;
    if (loss_candidates(g, g->current, &cheapest) > 0)
        pd_lose_deal(c, g->current, cheapest, g->players[g->current].burden);
    draw_and_pass_on(c);
}

enum pd_error pd_act_discard(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if ((a->card != PD_NONE && a->card >= PD_CARDS) ||
        (a->extra != PD_NONE && a->extra >= PD_CARDS))
        return PD_ERR_BAD_ACTION;
    if (g->phase != PD_PHASE_TURN)
        return PD_ERR_WRONG_PHASE;
    if (a->player != g->current)
        return PD_ERR_NOT_YOUR_TURN;
    if (a->card == PD_NONE && a->extra == PD_NONE)
        return PD_ERR_EMPTY_DISCARD;
    if (a->card != PD_NONE && pd_card_kind(a->card) == PD_KIND_NUISANCE)
        return PD_ERR_NUISANCE_SINGLE;
    struct pd_player *p = &g->players[g->current];
    if (a->extra != PD_NONE && p->hand.n[a->extra] < 3)
        return PD_ERR_NO_SET;
    struct pd_bundle out = {{0}};
    if (a->extra != PD_NONE)
        out.n[a->extra] = 3;
    if (a->card != PD_NONE)
        out.n[a->card]++;
    if (!pd_bundle_contains(&p->hand, &out))
        return PD_ERR_NOT_HELD;

    pd_close_offers(c, PD_EV_OFFER_EXPIRED, PD_NOBODY);
    pd_bundle_sub(&p->hand, &out);
    pd_bundle_add(&g->discard, &out);
    struct pd_event *e = pd_emit(c, PD_EV_DISCARDED, PD_TABLE);
    e->player = (int8_t)g->current;
    e->cards = out;
    pd_emit_hand(c, g->current);
    if (pd_bundle_total(&p->hand) == 0)
        pd_finish(c, PD_END_HAND); /* at once: no loss, no draw */
    else
        pd_end_turn(c);
    return PD_OK;
}

/* A card of hand that `want` accepts, each card as likely as the next, or PD_NONE. */
static unsigned random_card(struct pd_ctx *c, const struct pd_bundle *hand,
                            bool (*want)(unsigned card))
{
    unsigned n = 0;
    for (unsigned t = 0; t < PD_CARDS; t++)
        n += want(t) ? hand->n[t] : 0;
    if (n == 0)
        return PD_NONE;
    unsigned k = rng_below(c->rng, n);
    for (unsigned t = 0; t < PD_CARDS; t++) {
        unsigned m = want(t) ? hand->n[t] : 0;
        if (k < m)
            return t;
        k -= m;
    }
    return PD_NONE;
}

static bool single_discard(unsigned card)
{
    return pd_card_kind(card) != PD_KIND_NUISANCE;
}

/* The move of a player whose time ran out: a card at random to the discard;
 * with nothing but nuisance cards, three of a kind; else the mildest of them
 * is played, at the least cost. */
void pd_turn_timeout(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    const struct pd_player *p = &g->players[g->current];
    struct pd_event *e = pd_emit(c, PD_EV_TIMED_OUT, PD_TABLE);
    e->player = (int8_t)g->current;
    e->number = PD_PHASE_TURN;

    struct pd_action a;
    pd_action_init(&a, PD_ACT_DISCARD, g->current);
    a.card = (uint8_t)random_card(c, &p->hand, single_discard);
    enum pd_error err;
    if (a.card != PD_NONE) {
        err = pd_act_discard(c, &a);
    } else {
        static const uint8_t mildest[] = {PD_FAMILY_PARTY, PD_LOAN_SHARK, PD_RUIN};
        unsigned pick = PD_NONE;
        for (unsigned i = 0; i < 3 && a.extra == PD_NONE; i++)
            if (p->hand.n[mildest[i]] >= 3)
                a.extra = mildest[i];
        for (unsigned i = 0; i < 3 && pick == PD_NONE; i++)
            if (p->hand.n[mildest[i]])
                pick = mildest[i];
        if (a.extra != PD_NONE) {
            err = pd_act_discard(c, &a);
        } else {
            pd_action_init(&a, PD_ACT_PLAY, g->current);
            a.card = (uint8_t)pick;
            unsigned cheapest = PD_NONE;
            for (unsigned t = 0; t < PD_CARDS; t++)
                if (p->business.n[t] && pd_card_is_deal(t) &&
                    (cheapest == PD_NONE || pd_card_value(t) < pd_card_value(cheapest)))
                    cheapest = t;
            a.deal = (uint8_t)(pick == PD_LOAN_SHARK ? pd_top_deal(&p->business) : cheapest);
            err = pd_act_play(c, &a);
        }
    }
    assert(err == PD_OK);
    (void)err;
}

void pd_end_if_hand_empty(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    if (g->phase == PD_PHASE_OVER)
        return;
    for (unsigned s = 0; s < g->nplayers; s++) {
        /* Between their move and their draw the current player may hold nothing. */
        if (!g->players[s].active || (s == g->current && g->phase != PD_PHASE_TURN))
            continue;
        if (pd_bundle_total(&g->players[s].hand) == 0) {
            pd_finish(c, PD_END_HAND);
            return;
        }
    }
}
