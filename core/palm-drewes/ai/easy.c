/*
 * easy.c - the easy level: a legal move from what its seat sees, chosen by
 * a few plain preferences. It opens a business, lifts its own burden, lays
 * its best deal, burdens the richest open business, takes a deal from the
 * richest, calls the day of reckoning when it leads, and otherwise discards
 * what it needs least. It makes no trade offers and accepts only gifts.
 *
 * Each preference checks the conditions the rules put on its card
 * (core/palm-drewes/README.md, "Cards"), from the view alone; the simulator
 * (--computers) fails on any move the rules refuse.
 */
#include <string.h>

#include "ai.h"

static bool has(const struct pd_view *v, unsigned card)
{
    return v->hand.n[card] > 0;
}

static bool opened(const struct pd_view *v, unsigned seat)
{
    return v->business[seat].n[PD_OPENING] > 0;
}

static bool other_player(const struct pd_view *v, unsigned s)
{
    return s != v->seat && s < v->nplayers && (v->active & (1u << s));
}

static int32_t worth(const struct pd_view *v, unsigned seat)
{
    int32_t sum = 0;
    for (unsigned c = 0; c < PD_CARDS; c++)
        sum += (int32_t)v->business[seat].n[c] * (pd_card_is_deal(c) ? pd_card_value(c) : 0);
    return sum;
}

/* The deal of b worth most (highest == true) or least that `want` allows, or PD_NONE. */
static unsigned pick_deal(const struct pd_bundle *b, bool highest, bool illegal_only)
{
    unsigned best = PD_NONE;
    for (unsigned c = 0; c < PD_CARDS; c++) {
        if (!b->n[c] || !pd_card_is_deal(c))
            continue;
        if (illegal_only && pd_card_kind(c) != PD_KIND_ILLEGAL)
            continue;
        if (best == PD_NONE || (highest ? pd_card_value(c) > pd_card_value(best)
                                        : pd_card_value(c) < pd_card_value(best)))
            best = c;
    }
    return best;
}

/* The highest deal of a kind in the hand, or PD_NONE. */
static unsigned best_of_kind(const struct pd_view *v, enum pd_kind kind)
{
    unsigned best = PD_NONE;
    for (unsigned c = 0; c < PD_CARDS; c++)
        if (has(v, c) && pd_card_kind(c) == kind &&
            (best == PD_NONE || pd_card_value(c) > pd_card_value(best)))
            best = c;
    return best;
}

static void play(struct pd_action *a, const struct pd_view *v, unsigned card)
{
    pd_action_init(a, PD_ACT_PLAY, v->seat);
    a->card = (uint8_t)card;
}

/* Its own burden lifted: the matching relief, the bribe, connections. */
static bool lift_own(const struct pd_view *v, struct pd_action *a)
{
    unsigned burden = v->burden[v->seat];
    if (burden == PD_NONE)
        return false;
    for (unsigned c = 0; c < PD_CARDS; c++)
        if (has(v, c) && pd_card_kind(c) == PD_KIND_RELIEF && pd_relief_lifts(c) == burden) {
            play(a, v, c);
            return true;
        }
    unsigned pay = pick_deal(&v->hand, false, false);
    if (has(v, PD_BRIBE) && pay != PD_NONE) {
        play(a, v, PD_BRIBE);
        a->deal = (uint8_t)pay;
        return true;
    }
    return false;
}

/* The other seat whose business is worth most, with a deal (deal_needed)
 * or an unburdened opening; -1 for none. */
static int richest(const struct pd_view *v, bool deal_needed)
{
    int best = -1;
    for (unsigned s = 0; s < v->nplayers; s++) {
        if (!other_player(v, s))
            continue;
        if (deal_needed ? pick_deal(&v->business[s], true, false) == PD_NONE
                        : !opened(v, s) || v->burden[s] != PD_NONE)
            continue;
        if (best < 0 || worth(v, s) > worth(v, (unsigned)best))
            best = (int)s;
    }
    return best;
}

static bool take_over(const struct pd_view *v, unsigned card, struct pd_action *a)
{
    int victim = richest(v, true);
    if (!has(v, card) || victim < 0)
        return false;
    play(a, v, card);
    a->target = (int8_t)victim;
    a->deal = (uint8_t)pick_deal(&v->business[victim], true, false);
    return true;
}

/* Whether its business, less what its hand would cost, leads every other. */
static bool leads(const struct pd_view *v)
{
    int32_t cost = 0;
    unsigned top = pick_deal(&v->hand, true, false);
    for (unsigned c = 0; c < PD_CARDS; c++)
        if (pd_card_kind(c) == PD_KIND_NUISANCE)
            cost += (int32_t)v->hand.n[c] * pd_card_value(c);
    cost += top != PD_NONE ? pd_card_value(top) : 0;
    int32_t mine = worth(v, v->seat) - cost;
    for (unsigned s = 0; s < v->nplayers; s++)
        if (other_player(v, s) && worth(v, s) >= mine)
            return false;
    return mine > 0;
}

/* A deal for its business: illegal (with a legal one beside it) when free
 * to, else legal unless in Sweden. */
static bool lay_deal(const struct pd_view *v, struct pd_action *a)
{
    unsigned burden = v->burden[v->seat];
    unsigned illegal = best_of_kind(v, PD_KIND_ILLEGAL), legal = best_of_kind(v, PD_KIND_LEGAL);
    if (!opened(v, v->seat))
        return false;
    if (burden == PD_NONE && illegal != PD_NONE) {
        play(a, v, illegal);
        a->extra = (uint8_t)legal;
        return true;
    }
    if (burden != PD_SWEDEN && legal != PD_NONE) {
        play(a, v, legal);
        return true;
    }
    return false;
}

static bool lay_burden(const struct pd_view *v, struct pd_action *a)
{
    unsigned burden = best_of_kind(v, PD_KIND_BURDEN);
    int target = richest(v, false);
    if (burden == PD_NONE || target < 0)
        return false;
    play(a, v, burden);
    a->target = (int8_t)target;
    return true;
}

/* A nuisance card played while it costs little: no deal on the table to lose. */
static bool play_nuisance(const struct pd_view *v, bool forced, struct pd_action *a)
{
    static const uint8_t mildest[] = {PD_FAMILY_PARTY, PD_LOAN_SHARK, PD_RUIN};
    if (!forced && pick_deal(&v->business[v->seat], true, false) != PD_NONE)
        return false;
    for (unsigned i = 0; i < sizeof mildest; i++) {
        unsigned c = mildest[i];
        if (!has(v, c))
            continue;
        play(a, v, c);
        if (c == PD_FAMILY_PARTY)
            a->deal = (uint8_t)pick_deal(&v->business[v->seat], false, false);
        else if (c == PD_LOAN_SHARK)
            a->deal = (uint8_t)pick_deal(&v->business[v->seat], true, false);
        return true;
    }
    return false;
}

/* How much it would rather keep a card (the lowest is discarded). */
static int keep(const struct pd_view *v, unsigned c)
{
    switch (pd_card_kind(c)) {
    case PD_KIND_OPENING:
        return opened(v, v->seat) ? 0 : 100;
    case PD_KIND_MAGNUM:
        return 90;
    case PD_KIND_ILLEGAL:
    case PD_KIND_LEGAL:
        return 20 + pd_card_value(c) / 2000;
    case PD_KIND_RECKONING:
        return 15;
    default:
        return 10;
    }
}

static bool discard(const struct pd_view *v, struct rng *rng, struct pd_action *a)
{
    pd_action_init(a, PD_ACT_DISCARD, v->seat);
    a->card = a->extra = PD_NONE;
    for (unsigned c = 0; c < PD_CARDS; c++)
        if (v->hand.n[c] >= 3 && pd_card_kind(c) == PD_KIND_NUISANCE)
            a->extra = (uint8_t)c;
    int best = 0;
    unsigned ties = 0;
    for (unsigned c = 0; c < PD_CARDS; c++) {
        unsigned left = v->hand.n[c] - (a->extra == c ? 3 : 0);
        if (!left || pd_card_kind(c) == PD_KIND_NUISANCE)
            continue;
        int k = keep(v, c);
        if (a->card == PD_NONE || k < best) {
            a->card = (uint8_t)c;
            best = k;
            ties = 1;
        } else if (k == best && rng_below(rng, ++ties) == 0) {
            a->card = (uint8_t)c;
        }
    }
    return a->card != PD_NONE || a->extra != PD_NONE;
}

static bool turn(const struct pd_view *v, struct rng *rng, struct pd_action *a)
{
    unsigned burden = v->burden[v->seat];
    if (!opened(v, v->seat) && has(v, PD_OPENING)) {
        play(a, v, PD_OPENING);
        return true;
    }
    if (opened(v, v->seat) && burden == PD_NONE && has(v, PD_RECKONING) && leads(v)) {
        play(a, v, PD_RECKONING);
        return true;
    }
    if (lift_own(v, a) || play_nuisance(v, false, a) || lay_deal(v, a))
        return true;
    if (opened(v, v->seat) && burden == PD_NONE &&
        (take_over(v, PD_TAKEOVER, a) || take_over(v, PD_CONNECTIONS, a)))
        return true;
    if (opened(v, v->seat) && burden != PD_NONE && has(v, PD_CONNECTIONS)) {
        if (take_over(v, PD_CONNECTIONS, a))
            return true;
        play(a, v, PD_CONNECTIONS); /* no deal anywhere: it only lifts the burden */
        return true;
    }
    if (lay_burden(v, a) || discard(v, rng, a))
        return true;
    return play_nuisance(v, true, a);
}

static bool loss(const struct pd_view *v, struct pd_action *a)
{
    unsigned deal = pick_deal(&v->business[v->seat], false, v->burden[v->seat] == PD_RAID);
    if (deal == PD_NONE)
        return false;
    pd_action_init(a, PD_ACT_LOSE, v->seat);
    a->card = (uint8_t)deal;
    return true;
}

/* Its nuisance cards go left first, then what it needs least. */
static bool pass(const struct pd_view *v, struct pd_action *a)
{
    unsigned card = best_of_kind(v, PD_KIND_NUISANCE);
    for (unsigned c = 0; c < PD_CARDS && best_of_kind(v, PD_KIND_NUISANCE) == PD_NONE; c++)
        if (has(v, c) && (card == PD_NONE || keep(v, c) < keep(v, card)))
            card = c;
    if (card == PD_NONE)
        return false;
    pd_action_init(a, PD_ACT_PASS, v->seat);
    a->card = (uint8_t)card;
    return true;
}

/* The Magnum saves its own deal; any other takeover it lets go. */
static bool window(const struct pd_view *v, struct pd_action *a)
{
    bool mine = v->takeover_victim == v->seat;
    pd_action_init(a, mine && has(v, PD_MAGNUM) ? PD_ACT_MAGNUM : PD_ACT_WAIVE, v->seat);
    return true;
}

/* A gift is taken; anything asked of it is refused. */
static bool reply(const struct pd_view *v, struct pd_action *a)
{
    for (unsigned i = 0; i < v->noffers; i++) {
        const struct pd_view_offer *o = &v->offers[i];
        if (o->to != v->seat)
            continue;
        bool gift = pd_bundle_total(&o->ask) == 0;
        pd_action_init(a, gift ? PD_ACT_ACCEPT : PD_ACT_DECLINE, v->seat);
        a->offer_id = o->id;
        return true;
    }
    return false;
}

bool pd_ai_easy_move(const struct pd_view *v, enum pd_ai_task t, struct rng *rng,
                     struct pd_action *a)
{
    switch (t) {
    case PD_AI_TURN:
        return turn(v, rng, a);
    case PD_AI_LOSS:
        return loss(v, a);
    case PD_AI_PASS:
        return pass(v, a);
    case PD_AI_WINDOW:
        return window(v, a);
    case PD_AI_REPLY:
        return reply(v, a);
    default:
        return false;
    }
}
