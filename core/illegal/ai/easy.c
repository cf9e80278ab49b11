/*
 * easy.c - the easy computer player: a beginner who plays by the rules and
 * keeps the game moving. It asks anyone for one card of what it buys,
 * paying one card it does not need; takes what it buys from a drop, slowly;
 * accepts what brings it its goods and now and then an even swap; and votes
 * for whoever grabbed the suspected buyer's goods, or at random.
 */
#include "ai.h"

bool ai_easy_offer(struct il_mind *m, const struct il_view *v, struct il_action *a)
{
    int to = ai_random_other(m, v);
    if (to < 0 || ai_offer_to(v, (unsigned)to))
        return false;
    int give =
        ai_chance(m, 60) && ai_spare(v, v->dealer) ? v->dealer : ai_random_spare(m, v, v->buyer);
    if (give < 0)
        return false;
    a->type = IL_ACT_OFFER;
    a->target = (int8_t)to;
    a->give.n[give] = 1;
    a->ask.n[v->buyer] = 1;
    return true;
}

bool ai_easy_reply(struct il_mind *m, const struct il_view *v, const struct il_offer *o,
                   struct il_action *a)
{
    unsigned b = v->buyer;
    /* its goods, or now and then a swap that does not leave it short */
    bool fair = il_bundle_total(&o->give) >= il_bundle_total(&o->ask);
    bool want = o->give.n[b] > 0 || (fair && ai_chance(m, 35));
    ai_answer(v, o, want && !o->ask.n[b], a);
    return true;
}

bool ai_easy_grab(struct il_mind *m, const struct il_view *v, int64_t now, struct il_action *a)
{
    (void)now;
    unsigned left[AI_RES], n = 0;
    for (unsigned i = 0; i < v->drop_shown && i < AI_RES; i++)
        if (!v->drop_taken[i])
            left[n++] = v->drop_cards[i];
    if (!n)
        return false;
    a->type = IL_ACT_GRAB;
    a->resource = (uint8_t)left[rng_below(&m->rng, n)];
    for (unsigned i = 0; i < n; i++)
        if (left[i] == v->buyer)
            a->resource = (uint8_t)left[i];
    return true;
}

/* The seat the drops point at for case k (the most grabs of its buyer's
 * goods), or -1 when they point at nobody. */
static int drops_point_at(struct il_mind *m, const struct il_view *v, unsigned k)
{
    int score[AI_SEATS] = {0};
    for (unsigned s = 0; s < v->nplayers; s++)
        score[s] = ai_public_suspicion(m, v, s, k);
    return ai_best_seat(m, v, score, 0);
}

bool ai_easy_vote(struct il_mind *m, const struct il_view *v, unsigned k, struct il_action *a)
{
    int target = drops_point_at(m, v, k);
    if (target < 0 || ai_chance(m, 40))
        target = ai_random_other(m, v);
    a->number = (uint8_t)k;
    if (target < 0 || ai_chance(m, 10)) {
        a->type = IL_ACT_ABSTAIN;
        return true;
    }
    a->type = IL_ACT_VOTE;
    a->target = (int8_t)target;
    return true;
}
