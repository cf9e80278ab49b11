/*
 * score.c - the reckoning: scores in euros, ranks, winners, and the series.
 */
#include "internal.h"

int32_t pd_score(const struct pd_game *g, unsigned seat)
{
    if (seat >= g->nplayers)
        return 0;
    const struct pd_player *p = &g->players[seat];
    return pd_business_value(&p->business) - pd_hand_cost(&p->hand);
}

static bool aborted(const struct pd_game *g)
{
    return g->end == PD_END_HOST || g->end == PD_END_PLAYERS;
}

void pd_series_after(const struct pd_game *g, struct pd_series *out)
{
    *out = g->series;
    if (g->phase != PD_PHASE_OVER || aborted(g))
        return;
    out->games++;
    out->nplayers = g->nplayers;
    out->dealer = (int8_t)g->dealer;
    for (unsigned s = 0; s < g->nplayers; s++)
        out->totals[s] += g->players[s].score;
}

uint8_t pd_series_winners(const struct pd_series *s, int32_t target)
{
    if (target == PD_SERIES_OFF || s->nplayers == 0)
        return 0;
    int64_t top = s->totals[0];
    for (unsigned i = 1; i < s->nplayers && i < PD_MAX_PLAYERS; i++)
        if (s->totals[i] > top)
            top = s->totals[i];
    if (top < target)
        return 0;
    uint8_t won = 0;
    for (unsigned i = 0; i < s->nplayers && i < PD_MAX_PLAYERS; i++)
        if (s->totals[i] == top)
            won |= (uint8_t)(1u << i);
    return won;
}

/* Whatever is still in motion is set aside: open offers, a takeover in its
 * window, the cards chosen for a pass (still in their hands). */
static void settle(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    if (g->phase == PD_PHASE_TURN)
        pd_close_offers(c, PD_EV_OFFER_EXPIRED, PD_NOBODY);
    if (g->takeover_card != PD_NONE)
        g->discard.n[g->takeover_card]++;
    g->takeover_card = g->takeover_deal = PD_NONE;
    g->takeover_victim = PD_NONE;
    for (unsigned s = 0; s < g->nplayers; s++) {
        g->players[s].pass = PD_NONE;
        g->players[s].waived = false;
    }
}

static void announce(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    int32_t top = 0;
    bool any = false;
    for (unsigned s = 0; s < g->nplayers; s++) {
        struct pd_player *p = &g->players[s];
        if (!p->active)
            continue;
        p->score = pd_score(g, s);
        if (!any || p->score > top)
            top = p->score;
        any = true;
        struct pd_event *e = pd_emit(c, PD_EV_REVEAL, PD_TABLE);
        e->player = (int8_t)s;
        e->cards = p->hand;
        e->cards2 = p->business;
        e->gain = pd_business_value(&p->business);
        e->loss = pd_hand_cost(&p->hand);
        e->score = p->score;
    }
    struct pd_event *over = pd_emit(c, PD_EV_GAME_OVER, PD_TABLE);
    over->number = (uint8_t)g->end;
    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct pd_player *p = &g->players[s];
        if (!p->active)
            continue;
        over->scores[s] = p->score;
        /* Competition ranking: one plus the number of players who scored more. */
        unsigned rank = 1;
        for (unsigned o = 0; o < g->nplayers; o++)
            rank += g->players[o].active && g->players[o].score > p->score;
        over->rank[s] = (uint8_t)rank;
        if (p->score == top && !aborted(g))
            over->winners |= (uint8_t)(1u << s);
    }
}

void pd_finish(struct pd_ctx *c, enum pd_end why)
{
    struct pd_game *g = c->g;
    settle(c);
    pd_set_phase(g, PD_PHASE_OVER);
    g->end = why;
    pd_stop_timer(g);
    announce(c);
    if (g->config.series_target == PD_SERIES_OFF || aborted(g))
        return;
    struct pd_series after;
    pd_series_after(g, &after);
    struct pd_event *e = pd_emit(c, PD_EV_SERIES, PD_TABLE);
    e->game = after.games;
    e->amount = g->config.series_target;
    e->winners = pd_series_winners(&after, g->config.series_target);
    for (unsigned s = 0; s < PD_MAX_PLAYERS; s++)
        e->totals[s] = after.totals[s];
}
