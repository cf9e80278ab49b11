/*
 * normal_trade.c - how the normal computer player deals: it asks for what it
 * buys from whoever seems to hold it, pays with what that seat seems to
 * want, and answers each offer on what the cards are worth to it.
 *
 * Worth, in tenths of a point: a card of its buyer's goods is worth a point
 * (10); any other card is worth what it can buy (2), more when a seat that
 * holds its goods seems to want it (4), less when it has plenty (1). A card
 * handed to someone who seems to buy it costs 1 more: it scores for them.
 * It accepts an offer that brings at least what it costs.
 */
#include <limits.h>

#include "ai.h"

#define WORTH_GOODS    10
#define WORTH_CARD     2
#define WORTH_CURRENCY 4
#define WORTH_PLENTY   1
#define HELPS_THEM     1
#define DECOY_ASKS     10 /* percent of its asks for its decoy, of a seat that has its goods */
#define PROBE_DECOYS   50 /* the same, of a seat not known to have them */

int ai_worth(const struct il_mind *m, const struct il_view *v, unsigned r)
{
    if (r == v->buyer)
        return WORTH_GOODS;
    for (unsigned s = 0; s < v->nplayers; s++)
        if (s != v->seat && ai_is_active(v, s) && ai_has(m, s, v->buyer) > 0 &&
            ai_buys(m, s, r) > 0)
            return WORTH_CURRENCY;
    return v->hand.n[r] >= 3 ? WORTH_PLENTY : WORTH_CARD;
}

/* What handing b to seat costs it. */
static int cost(const struct il_mind *m, const struct il_view *v, unsigned seat,
                const struct il_bundle *b)
{
    int c = 0;
    for (unsigned r = 0; r < AI_RES; r++)
        if (b->n[r])
            c += b->n[r] * (ai_worth(m, v, r) + (ai_buys(m, seat, r) > 2 ? HELPS_THEM : 0));
    return c;
}

static int gain(const struct il_mind *m, const struct il_view *v, const struct il_bundle *b)
{
    int g = 0;
    for (unsigned r = 0; r < AI_RES; r++)
        g += b->n[r] * ai_worth(m, v, r);
    return g;
}

bool ai_normal_reply(struct il_mind *m, const struct il_view *v, const struct il_offer *o,
                     struct il_action *a)
{
    ai_answer(v, o, gain(m, v, &o->give) >= cost(m, v, o->from, &o->ask), a);
    return true;
}

/* The seat most likely to hold its goods, among those it has no offer to. */
static int supplier(struct il_mind *m, const struct il_view *v)
{
    int score[AI_SEATS];
    for (unsigned s = 0; s < AI_SEATS; s++)
        score[s] = s < v->nplayers && !ai_offer_to(v, s)
                       ? 4 * ai_has(m, s, v->buyer) + ai_deals(m, s, v->buyer)
                       : INT_MIN;
    return ai_best_seat(m, v, score, INT_MIN);
}

/* What to pay seat with: the spare card it seems to want most, else the
 * seat's own plenty (its dealer's goods), else any spare card. */
static int payment(struct il_mind *m, const struct il_view *v, unsigned seat)
{
    int best = -1, most = 0;
    for (unsigned r = 0; r < AI_RES; r++)
        if (r != v->buyer && ai_spare(v, r) && ai_buys(m, seat, r) > most) {
            most = ai_buys(m, seat, r);
            best = (int)r;
        }
    if (best < 0 && ai_spare(v, v->dealer) && v->dealer != v->buyer)
        best = v->dealer;
    return best >= 0 ? best : ai_random_spare(m, v, v->buyer);
}

bool ai_normal_offer(struct il_mind *m, const struct il_view *v, struct il_action *a)
{
    int to = supplier(m, v), pay = to >= 0 ? payment(m, v, (unsigned)to) : -1;
    if (pay < 0)
        return false;
    /* One for one, or two for two from a seat with plenty. Paying more than
     * it gets would run it out of cards to pay with. */
    unsigned n = ai_has(m, to, v->buyer) >= 6 && ai_spare(v, (unsigned)pay) >= 2 ? 2 : 1;
    /* Now and then it asks for its decoy, so that its asks do not name its
     * goods; more often of a seat not known to hold them. */
    bool known = ai_has(m, (unsigned)to, v->buyer) > 0;
    unsigned want = m->decoy < AI_RES && m->decoy != (unsigned)pay &&
                            ai_chance(m, known ? DECOY_ASKS : PROBE_DECOYS)
                        ? m->decoy
                        : v->buyer;
    a->type = IL_ACT_OFFER;
    a->target = (int8_t)to;
    a->give.n[pay] = (uint8_t)n;
    a->ask.n[want] = (uint8_t)n;
    return true;
}
