/*
 * cards.c - what a computer seat reads of its own hand, offers and cases.
 */
#include <string.h>

#include "ai.h"

bool ai_holds(const struct il_bundle *hand, const struct il_bundle *b)
{
    for (unsigned t = 0; t < IL_CARD_TYPES; t++)
        if (b->n[t] > hand->n[t])
            return false;
    return true;
}

void ai_promised(const struct il_view *v, struct il_bundle *out)
{
    memset(out, 0, sizeof *out);
    for (unsigned i = 0; i < v->noffers; i++)
        if (v->offers[i].from == v->seat)
            for (unsigned r = 0; r < AI_RES; r++)
                out->n[r] = (uint8_t)(out->n[r] + v->offers[i].give.n[r]);
}

unsigned ai_spare(const struct il_view *v, unsigned r)
{
    struct il_bundle promised;
    ai_promised(v, &promised);
    return v->hand.n[r] > promised.n[r] ? v->hand.n[r] - promised.n[r] : 0;
}

const struct il_offer *ai_offer_to(const struct il_view *v, unsigned seat)
{
    for (unsigned i = 0; i < v->noffers; i++)
        if (v->offers[i].from == v->seat && v->offers[i].to == seat)
            return &v->offers[i];
    return NULL;
}

unsigned ai_open_offers(const struct il_view *v)
{
    unsigned n = 0;
    for (unsigned i = 0; i < v->noffers; i++)
        n += v->offers[i].from == v->seat;
    return n;
}

/* The newest of its offers that promises a card it would lack after
 * handing over o's ask, or NULL when every one stays payable. */
static const struct il_offer *in_the_way(const struct il_view *v, const struct il_offer *o)
{
    struct il_bundle after = v->hand, promised;
    ai_promised(v, &promised);
    for (unsigned r = 0; r < AI_RES; r++)
        after.n[r] = (uint8_t)(after.n[r] - o->ask.n[r] + o->give.n[r]);
    for (unsigned i = v->noffers; i-- > 0;) {
        const struct il_offer *mine = &v->offers[i];
        for (unsigned r = 0; r < AI_RES && mine->from == v->seat; r++)
            if (mine->give.n[r] && after.n[r] < promised.n[r])
                return mine;
    }
    return NULL;
}

void ai_answer(const struct il_view *v, const struct il_offer *o, bool take, struct il_action *a)
{
    const struct il_offer *cancel = NULL;
    a->type = IL_ACT_DECLINE;
    a->offer_id = o->id;
    if (!take || !ai_holds(&v->hand, &o->ask))
        return;
    cancel = in_the_way(v, o);
    a->type = cancel ? IL_ACT_CANCEL : IL_ACT_ACCEPT;
    a->offer_id = cancel ? cancel->id : o->id;
}

bool ai_is_active(const struct il_view *v, unsigned seat)
{
    return seat < v->nplayers && (v->active & (1u << seat));
}

int ai_random_other(struct il_mind *m, const struct il_view *v)
{
    unsigned seats[AI_SEATS], n = 0;
    for (unsigned s = 0; s < v->nplayers; s++)
        if (s != v->seat && ai_is_active(v, s))
            seats[n++] = s;
    return n ? (int)seats[rng_below(&m->rng, n)] : -1;
}

int ai_random_spare(struct il_mind *m, const struct il_view *v, int except)
{
    unsigned res[AI_RES], n = 0;
    for (unsigned r = 0; r < AI_RES; r++)
        if ((int)r != except && (v->in_play & (1u << r)) && ai_spare(v, r))
            res[n++] = r;
    return n ? (int)res[rng_below(&m->rng, n)] : -1;
}

int ai_best_seat(struct il_mind *m, const struct il_view *v, const int score[AI_SEATS], int floor)
{
    int best = -1;
    unsigned ties = 0;
    for (unsigned s = 0; s < v->nplayers; s++) {
        if (s == v->seat || !ai_is_active(v, s) || score[s] <= floor)
            continue;
        if (best < 0 || score[s] > score[best]) {
            best = (int)s;
            ties = 1;
        } else if (score[s] == score[best] && rng_below(&m->rng, ++ties) == 0) {
            best = (int)s; /* each of the tied seats as likely */
        }
    }
    return best;
}

/* The resource of case k's card of `kind`, or -1. */
static int case_card(const struct il_view *v, unsigned k, enum il_card_kind kind)
{
    if (k >= IL_MAX_CASES || !(v->shown & (1u << k)))
        return -1;
    for (unsigned i = 0; i < v->cases[k].ncards && i < 2; i++)
        if (IL_CARD_KIND(v->cases[k].cards[i]) == kind)
            return (int)IL_CARD_RES(v->cases[k].cards[i]);
    return -1;
}

int ai_case_buyer(const struct il_view *v, unsigned k)
{
    return case_card(v, k, IL_KIND_BUYER_SUSPECT);
}

int ai_case_dealer(const struct il_view *v, unsigned k)
{
    return case_card(v, k, IL_KIND_DEALER_SUSPECT);
}

bool ai_case_mine(const struct il_view *v, unsigned k)
{
    return ai_case_dealer(v, k) == v->dealer || ai_case_buyer(v, k) == v->buyer;
}
