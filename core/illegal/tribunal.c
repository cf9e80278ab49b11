/*
 * tribunal.c - the suspect cases: debate, vote and verdict, one case at a time.
 */
#include <string.h>

#include "internal.h"

static void case_cards(const struct il_case *k, struct il_bundle *b)
{
    memset(b, 0, sizeof *b);
    for (unsigned i = 0; i < k->ncards; i++)
        b->n[k->cards[i]]++;
}

void il_clear_votes(struct il_game *g)
{
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].active)
            g->players[s].vote = IL_NOBODY;
}

void il_open_tribunal(struct il_ctx *c)
{
    struct il_game *g = c->g;
    struct il_event *e = il_emit(c, IL_EV_TRIBUNAL_OPENED, IL_PUBLIC);
    e->number = (uint8_t)(g->ncases - g->case_index);
    il_open_case(c);
}

void il_open_case(struct il_ctx *c)
{
    struct il_game *g = c->g;
    if (g->case_index >= g->ncases) {
        il_finish(c);
        return;
    }
    g->phase = IL_PHASE_DEBATE;
    struct il_event *e = il_emit(c, IL_EV_CASE_OPENED, IL_PUBLIC);
    e->number = g->case_index;
    case_cards(&g->cases[g->case_index], &e->cards);
    e->deadline = il_start_timer(c, IL_TIMER_DEBATE);
}

void il_open_vote(struct il_ctx *c)
{
    struct il_game *g = c->g;
    g->phase = IL_PHASE_VOTE;
    struct il_event *e = il_emit(c, IL_EV_VOTE_OPENED, IL_PUBLIC);
    e->number = g->case_index;
    e->deadline = il_start_timer(c, IL_TIMER_VOTE);
}

void il_verdict(struct il_ctx *c)
{
    struct il_game *g = c->g;
    struct il_event *e = il_emit(c, IL_EV_VERDICT, IL_PUBLIC);
    e->number = g->case_index;
    case_cards(&g->cases[g->case_index], &e->cards);

    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct il_player *p = &g->players[s];
        if (!p->active)
            continue;
        if (p->vote == IL_NOBODY)
            e->abstentions++;
        else
            e->tally[p->vote]++;
    }
    /* The one seat with more votes than any other is convicted; a tie for
     * the most votes, or no vote at all, sets the cards aside. */
    int best = IL_NOBODY;
    unsigned most = 0;
    bool tie = false;
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (e->tally[s] > most) {
            most = e->tally[s];
            best = (int)s;
            tie = false;
        } else if (e->tally[s] == most && most > 0) {
            tie = true;
        }
    }
    if (tie)
        best = IL_NOBODY;
    e->target = (int8_t)best;
    if (best == IL_NOBODY) {
        il_bundle_add(&g->discard, &e->cards);
    } else {
        il_bundle_add(&g->players[best].hand, &e->cards);
        il_emit_hand(c, (unsigned)best);
    }

    il_clear_votes(g);
    g->case_index++;
    il_open_case(c);
}

enum il_error il_act_vote(struct il_ctx *c, const struct il_action *a)
{
    struct il_game *g = c->g;
    if (!il_is_active_seat(g, a->player))
        return IL_ERR_NOT_A_PLAYER;
    if (g->paused)
        return IL_ERR_PAUSED;
    if (g->phase != IL_PHASE_VOTE)
        return IL_ERR_WRONG_PHASE;
    int target = IL_NOBODY;
    if (a->type == IL_ACT_VOTE) {
        if (a->target == a->player)
            return IL_ERR_SELF_VOTE;
        if (!il_is_active_seat(g, a->target))
            return IL_ERR_NOT_A_PLAYER;
        target = a->target;
    }
    g->players[a->player].vote = (int8_t)target;
    struct il_event *e = il_emit(c, IL_EV_VOTE_RECORDED, a->player);
    e->player = a->player;
    e->target = (int8_t)target;
    e->number = g->case_index;
    return IL_OK;
}
