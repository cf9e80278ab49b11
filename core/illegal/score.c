/*
 * score.c - the end of the game: scoring, ranks and winners.
 */
#include <string.h>

#include "internal.h"

struct il_score_parts il_score_parts(const struct il_game *g, unsigned seat)
{
    struct il_score_parts parts = {0, 0, 0};
    if (seat >= g->nplayers)
        return parts;
    const struct il_player *p = &g->players[seat];
    const uint8_t *n = p->hand.n;
    parts.resources = n[IL_CARD(IL_KIND_RESOURCE, p->buyer)];
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        unsigned sd = n[IL_CARD(IL_KIND_DEALER_SUSPECT, r)];
        unsigned sb = n[IL_CARD(IL_KIND_BUYER_SUSPECT, r)];
        *(r == p->dealer ? &parts.right : &parts.wrong) += sd;
        *(r == p->buyer ? &parts.right : &parts.wrong) += sb;
    }
    return parts;
}

int il_score(const struct il_game *g, unsigned seat)
{
    struct il_score_parts parts = il_score_parts(g, seat);
    return (int)parts.resources + (int)parts.wrong - 5 * (int)parts.right;
}

void il_finish(struct il_ctx *c, bool aborted)
{
    struct il_game *g = c->g;
    g->aborted = aborted;

    /* Whatever was still in motion is set aside: open offers, the cards of a
     * drop on the table, the cases not yet judged. */
    il_expire_offers(c);
    il_clear_drop(g);
    for (unsigned i = g->case_index; i < g->ncases; i++) {
        if (il_case_judged(g, i))
            continue;
        for (unsigned k = 0; k < g->cases[i].ncards; k++)
            g->discard.n[g->cases[i].cards[k]]++;
        /* Votes count only on judged cases. */
        for (unsigned s = 0; s < g->nplayers; s++)
            g->players[s].votes[i] = IL_NOBODY;
    }
    g->case_index = g->ncases;
    g->judged = 0;
    g->tribunal_at = 0;
    g->phase = IL_PHASE_OVER;
    g->deadline = 0;
    g->paused = false;
    g->paused_remaining = 0;

    int top = 0;
    bool any = false;
    for (unsigned s = 0; s < g->nplayers; s++) {
        struct il_player *p = &g->players[s];
        if (!p->active)
            continue;
        p->score = (int16_t)il_score(g, s);
        if (!any || p->score > top)
            top = p->score;
        any = true;
        struct il_event *e = il_emit(c, IL_EV_REVEAL, IL_PUBLIC);
        e->player = (int8_t)s;
        e->cards = p->hand;
        e->score = p->score;
    }
    struct il_event *over = il_emit(c, IL_EV_GAME_OVER, IL_PUBLIC);
    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct il_player *p = &g->players[s];
        if (!p->active)
            continue;
        over->scores[s] = p->score;
        /* Competition ranking: one plus the number of players who scored more. */
        unsigned rank = 1;
        for (unsigned o = 0; o < g->nplayers; o++)
            rank += g->players[o].active && g->players[o].score > p->score;
        over->rank[s] = (uint8_t)rank;
        if (p->score == top && !aborted)
            over->winners |= (uint8_t)(1u << s);
    }
}
