/*
 * play.c - a card played in one's turn: what each card needs, and what it does.
 *
 * Every play checks everything first and changes nothing until all is well,
 * so that pd_game_apply()'s copy is the only undo needed.
 */
#include "internal.h"

void pd_lose_deal(struct pd_ctx *c, unsigned seat, unsigned card, unsigned cause)
{
    struct pd_player *p = &c->g->players[seat];
    p->business.n[card]--;
    c->g->discard.n[card]++;
    struct pd_event *e = pd_emit(c, PD_EV_DEAL_LOST, PD_TABLE);
    e->player = (int8_t)seat;
    e->card = (uint8_t)card;
    e->cards.n[card] = 1;
    e->card2 = (uint8_t)cause;
}

void pd_lift_burden(struct pd_ctx *c, unsigned seat, int who, unsigned by, unsigned deal)
{
    struct pd_player *p = &c->g->players[seat];
    struct pd_event *e = pd_emit(c, PD_EV_BURDEN_LIFTED, PD_TABLE);
    e->player = (int8_t)who;
    e->target = (int8_t)seat;
    e->card = p->burden;
    e->card2 = (uint8_t)by;
    e->deal = (uint8_t)deal;
    c->g->discard.n[p->burden]++;
    p->burden = PD_NONE;
}

/* The card leaves the current player's hand for the discard. */
static void spend(struct pd_ctx *c, unsigned card)
{
    c->g->players[c->g->current].hand.n[card]--;
    c->g->discard.n[card]++;
}

/* The move is made: trading is over for this turn. */
static void moved(struct pd_ctx *c)
{
    pd_close_offers(c, PD_EV_OFFER_EXPIRED, PD_NOBODY);
}

static bool has_opening(const struct pd_player *p)
{
    return p->business.n[PD_OPENING] > 0;
}

static void lay_deal(struct pd_ctx *c, unsigned card)
{
    struct pd_player *p = &c->g->players[c->g->current];
    p->hand.n[card]--;
    p->business.n[card]++;
    struct pd_event *e = pd_emit(c, PD_EV_DEAL_PLAYED, PD_TABLE);
    e->player = (int8_t)c->g->current;
    e->card = (uint8_t)card;
    e->amount = pd_card_value(card);
}

static enum pd_error play_opening(struct pd_ctx *c)
{
    struct pd_player *p = &c->g->players[c->g->current];
    if (has_opening(p))
        return PD_ERR_ALREADY_OPEN;
    moved(c);
    p->hand.n[PD_OPENING]--;
    p->business.n[PD_OPENING] = 1;
    pd_emit(c, PD_EV_OPENED, PD_TABLE)->player = (int8_t)c->g->current;
    return PD_OK;
}

static enum pd_error play_deal(struct pd_ctx *c, const struct pd_action *a)
{
    const struct pd_player *p = &c->g->players[c->g->current];
    bool illegal = pd_card_is_illegal(a->card);
    if (!has_opening(p))
        return PD_ERR_NO_OPENING;
    if (illegal && p->burden != PD_NONE)
        return PD_ERR_BURDENED;
    if (p->burden == PD_SWEDEN)
        return PD_ERR_IN_SWEDEN;
    if (a->extra != PD_NONE) {
        if (!illegal)
            return PD_ERR_NO_EXTRA;
        if (a->extra >= PD_CARDS)
            return PD_ERR_BAD_ACTION;
        if (!pd_card_is_legal(a->extra))
            return PD_ERR_EXTRA_NOT_LEGAL;
        if (!p->hand.n[a->extra])
            return PD_ERR_NOT_HELD;
    }
    moved(c);
    lay_deal(c, a->card);
    if (a->extra != PD_NONE)
        lay_deal(c, a->extra);
    return PD_OK;
}

/* The seat a relief or the Magnum aims at: a->target, or oneself. */
static int aim(const struct pd_action *a)
{
    return a->target == PD_NOBODY ? a->player : a->target;
}

static enum pd_error play_burden(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (a->target == a->player)
        return PD_ERR_SELF_TARGET;
    if (!pd_is_active(g, a->target))
        return PD_ERR_NOT_A_PLAYER;
    struct pd_player *t = &g->players[a->target];
    if (!has_opening(t))
        return PD_ERR_TARGET_NOT_OPEN;
    if (t->burden != PD_NONE)
        return PD_ERR_TARGET_BURDENED;
    moved(c);
    g->players[g->current].hand.n[a->card]--;
    t->burden = a->card;
    struct pd_event *e = pd_emit(c, PD_EV_BURDEN_LAID, PD_TABLE);
    e->player = (int8_t)g->current;
    e->target = a->target;
    e->card = a->card;
    if (a->card == PD_TAX_AUDIT) {
        e = pd_emit(c, PD_EV_HAND_SHOWN, PD_TABLE);
        e->player = a->target;
        e->cards = t->hand;
    }
    return PD_OK;
}

static enum pd_error play_relief(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    int seat = aim(a);
    if (!pd_is_active(g, seat))
        return PD_ERR_NOT_A_PLAYER;
    unsigned burden = g->players[seat].burden;
    if (burden == PD_NONE)
        return PD_ERR_NO_BURDEN;
    if (pd_relief_lifts(a->card) != burden)
        return PD_ERR_WRONG_RELIEF;
    moved(c);
    spend(c, a->card);
    pd_lift_burden(c, (unsigned)seat, g->current, a->card, PD_NONE);
    return PD_OK;
}

/* The deal a bribe pays from the hand: the one named, or the only kind held. */
static enum pd_error bribe_deal(const struct pd_player *p, const struct pd_action *a,
                                unsigned *deal)
{
    unsigned kinds = pd_kinds_where(&p->hand, pd_card_is_deal);
    if (kinds == 0)
        return PD_ERR_NO_DEAL_IN_HAND;
    if (a->deal == PD_NONE) {
        if (kinds > 1)
            return PD_ERR_NAME_A_DEAL;
        for (unsigned t = 0; t < PD_CARDS; t++)
            if (p->hand.n[t] && pd_card_is_deal(t))
                *deal = t;
        return PD_OK;
    }
    if (a->deal >= PD_CARDS)
        return PD_ERR_BAD_ACTION;
    if (!pd_card_is_deal(a->deal))
        return PD_ERR_NOT_A_DEAL;
    if (!p->hand.n[a->deal])
        return PD_ERR_NOT_HELD;
    *deal = a->deal;
    return PD_OK;
}

/* The bribe is played beside the turn's card: the turn goes on. */
static enum pd_error play_bribe(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    int seat = aim(a);
    if (!pd_is_active(g, seat))
        return PD_ERR_NOT_A_PLAYER;
    if (g->players[seat].burden == PD_NONE)
        return PD_ERR_NO_BURDEN;
    unsigned deal = PD_NONE;
    enum pd_error err = bribe_deal(&g->players[g->current], a, &deal);
    if (err)
        return err;
    spend(c, PD_BRIBE);
    spend(c, deal);
    pd_lift_burden(c, (unsigned)seat, g->current, PD_BRIBE, deal);
    return PD_OK;
}

static enum pd_error play_reckoning(struct pd_ctx *c)
{
    const struct pd_player *p = &c->g->players[c->g->current];
    if (!has_opening(p))
        return PD_ERR_NO_OPENING;
    if (p->burden != PD_NONE)
        return PD_ERR_BURDENED;
    moved(c);
    spend(c, PD_RECKONING);
    pd_emit(c, PD_EV_RECKONING, PD_TABLE)->player = (int8_t)c->g->current;
    return PD_OK;
}

static bool same_value_as_top(const struct pd_bundle *b, unsigned card)
{
    unsigned top = pd_top_deal(b);
    return top != PD_NONE && pd_card_value(card) == pd_card_value(top);
}

/* The deal a family party or a loan shark costs from the business, or
 * PD_NONE when there is none to lose. */
static enum pd_error nuisance_deal(const struct pd_player *p, const struct pd_action *a,
                                   unsigned *deal)
{
    const struct pd_bundle *b = &p->business;
    bool shark = a->card == PD_LOAN_SHARK;
    unsigned choices = 0;
    *deal = PD_NONE;
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (b->n[t] && pd_card_is_deal(t) && (!shark || same_value_as_top(b, t))) {
            choices++;
            *deal = t;
        }
    if (a->deal == PD_NONE)
        return choices > 1 ? PD_ERR_NAME_A_DEAL : PD_OK;
    if (a->deal >= PD_CARDS)
        return PD_ERR_BAD_ACTION;
    if (!pd_card_is_deal(a->deal) || !b->n[a->deal])
        return PD_ERR_NO_SUCH_DEAL;
    if (shark && !same_value_as_top(b, a->deal))
        return PD_ERR_NOT_HIGHEST;
    *deal = a->deal;
    return PD_OK;
}

static enum pd_error play_nuisance(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    struct pd_player *p = &g->players[g->current];
    unsigned deal = PD_NONE;
    if (a->card != PD_RUIN) {
        enum pd_error err = nuisance_deal(p, a, &deal);
        if (err)
            return err;
    }
    moved(c);
    spend(c, a->card);
    p->skips = a->card == PD_FAMILY_PARTY ? 1 : PD_MAX_SKIPS;
    struct pd_event *e = pd_emit(c, PD_EV_NUISANCE, PD_TABLE);
    e->player = (int8_t)g->current;
    e->card = a->card;
    e->number = p->skips;
    if (a->card == PD_RUIN) {
        struct pd_bundle lost = p->business;
        lost.n[PD_OPENING] = 0;
        if (pd_bundle_total(&lost)) {
            pd_bundle_sub(&p->business, &lost);
            pd_bundle_add(&g->discard, &lost);
            e = pd_emit(c, PD_EV_DEAL_LOST, PD_TABLE);
            e->player = (int8_t)g->current;
            e->cards = lost;
            e->card2 = PD_RUIN;
        }
    } else if (deal != PD_NONE) {
        pd_lose_deal(c, g->current, deal, a->card);
    }
    return PD_OK;
}

static bool someone_else_has_a_deal(const struct pd_game *g)
{
    for (unsigned s = 0; s < g->nplayers; s++)
        if (s != g->current && g->players[s].active &&
            pd_kinds_where(&g->players[s].business, pd_card_is_deal))
            return true;
    return false;
}

static enum pd_error play_takeover(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    struct pd_player *p = &g->players[g->current];
    bool named = a->target != PD_NOBODY || a->deal != PD_NONE;
    if (!has_opening(p))
        return PD_ERR_NO_OPENING;
    if (a->card == PD_TAKEOVER && p->burden != PD_NONE)
        return PD_ERR_BURDENED;
    if (named || a->card == PD_TAKEOVER || someone_else_has_a_deal(g)) {
        if (!named || a->target == PD_NOBODY || a->deal == PD_NONE)
            return PD_ERR_NAME_A_DEAL;
        enum pd_error err = pd_takeover_check(g, a->target, a->deal);
        if (err)
            return err;
    } else if (p->burden == PD_NONE) {
        return PD_ERR_NOTHING_TO_DO;
    }
    moved(c);
    if (a->card == PD_CONNECTIONS && p->burden != PD_NONE)
        pd_lift_burden(c, g->current, g->current, PD_CONNECTIONS, PD_NONE);
    p->hand.n[a->card]--;
    if (named) {
        pd_open_window(c, a->card, (unsigned)a->target, a->deal);
    } else {
        g->discard.n[a->card]++;
    }
    return PD_OK;
}

static enum pd_error play(struct pd_ctx *c, const struct pd_action *a)
{
    switch (pd_card_kind(a->card)) {
    case PD_KIND_OPENING:
        return play_opening(c);
    case PD_KIND_RECKONING:
        return play_reckoning(c);
    case PD_KIND_ILLEGAL:
    case PD_KIND_LEGAL:
        return play_deal(c, a);
    case PD_KIND_BURDEN:
        return play_burden(c, a);
    case PD_KIND_RELIEF:
        return a->card == PD_BRIBE ? play_bribe(c, a) : play_relief(c, a);
    case PD_KIND_NUISANCE:
        return play_nuisance(c, a);
    case PD_KIND_TAKEOVER:
        return play_takeover(c, a);
    default:
        return PD_ERR_BAD_ACTION;
    }
}

/* What comes after the card: the turn ends, or waits on a window or a pass;
 * the bribe leaves it open; the reckoning ends the game. */
static void after(struct pd_ctx *c, unsigned card)
{
    struct pd_game *g = c->g;
    pd_emit_hand(c, g->current);
    if (card == PD_BRIBE || g->phase == PD_PHASE_WINDOW)
        return;
    if (card == PD_RECKONING)
        pd_finish(c, PD_END_RECKONING);
    else if (pd_card_kind(card) == PD_KIND_NUISANCE)
        pd_open_pass(c);
    else
        pd_end_turn(c);
}

enum pd_error pd_act_play(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (a->card >= PD_CARDS)
        return PD_ERR_BAD_ACTION;
    if (a->card == PD_MAGNUM) /* the one card played out of turn */
        return pd_act_magnum(c, a);
    if (g->phase != PD_PHASE_TURN)
        return PD_ERR_WRONG_PHASE;
    if (a->player != g->current)
        return PD_ERR_NOT_YOUR_TURN;
    if (!g->players[g->current].hand.n[a->card])
        return PD_ERR_NOT_HELD;
    if (a->extra != PD_NONE && !pd_card_is_deal(a->card))
        return PD_ERR_NO_EXTRA;
    enum pd_error err = play(c, a);
    if (err)
        return err;
    after(c, a->card);
    return PD_OK;
}
