/*
 * tribunal.c - the suspect cases: an optional hold, then debate, vote and
 * verdict, one case after the other or every case at once.
 */
#include <string.h>

#include "internal.h"

static bool parallel(const struct il_game *g)
{
    return (g->config.tribunal & IL_TRIBUNAL_PARALLEL) != 0;
}

/* One past the last case open now: every case left, or just the current one. */
static unsigned open_end(const struct il_game *g)
{
    return parallel(g) ? g->ncases : (unsigned)g->case_index + 1u;
}

static void case_cards(const struct il_case *k, struct il_bundle *b)
{
    memset(b, 0, sizeof *b);
    for (unsigned i = 0; i < k->ncards; i++)
        b->n[k->cards[i]]++;
}

bool il_case_judged(const struct il_game *g, unsigned k)
{
    return k < g->case_index || (k < IL_MAX_CASES && (g->judged & (1u << k)));
}

/* Whether the tribunal takes votes now (on the cases open). */
static bool voting(const struct il_game *g)
{
    return g->phase == IL_PHASE_VOTE ||
           (g->phase == IL_PHASE_DEBATE && (g->config.tribunal & IL_TRIBUNAL_VOTE_IN_DEBATE));
}

bool il_case_open(const struct il_game *g, unsigned k)
{
    return voting(g) && !il_case_judged(g, k) && k < g->ncases && k < open_end(g);
}

/* Whether every active player has a vote on case k. */
static bool all_voted(const struct il_game *g, unsigned k)
{
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].active && g->players[s].votes[k] == IL_NOBODY)
            return false;
    return true;
}

void il_end_sessions(struct il_ctx *c)
{
    struct il_game *g = c->g;
    bool scheduled = g->tribunal_at != 0;
    if (scheduled ? g->tribunal_at <= c->now : !(g->config.tribunal & IL_TRIBUNAL_HOLD)) {
        il_open_tribunal(c);
        return;
    }
    g->phase = IL_PHASE_HOLD;
    g->deadline = g->tribunal_at;
    struct il_event *e = il_emit(c, IL_EV_TRIBUNAL_HELD, IL_PUBLIC);
    e->deadline = g->deadline;
}

void il_open_tribunal(struct il_ctx *c)
{
    struct il_game *g = c->g;
    g->tribunal_at = 0;
    struct il_event *e = il_emit(c, IL_EV_TRIBUNAL_OPENED, IL_PUBLIC);
    e->number = (uint8_t)(g->ncases - g->case_index);
    il_open_case(c);
}

void il_open_case(struct il_ctx *c)
{
    struct il_game *g = c->g;
    if (g->case_index >= g->ncases) {
        il_finish(c, false);
        return;
    }
    g->phase = IL_PHASE_DEBATE;
    int64_t deadline = il_start_timer(c, IL_TIMER_DEBATE);
    for (unsigned k = g->case_index; k < open_end(g); k++) {
        struct il_event *e = il_emit(c, IL_EV_CASE_OPENED, IL_PUBLIC);
        e->number = (uint8_t)k;
        case_cards(&g->cases[k], &e->cards);
        e->deadline = deadline;
    }
}

void il_open_vote(struct il_ctx *c)
{
    struct il_game *g = c->g;
    g->phase = IL_PHASE_VOTE;
    int64_t deadline = il_start_timer(c, IL_TIMER_VOTE);
    for (unsigned k = g->case_index; k < open_end(g); k++) {
        struct il_event *e = il_emit(c, IL_EV_VOTE_OPENED, IL_PUBLIC);
        e->number = (uint8_t)k;
        e->deadline = deadline;
    }
    /* Everyone may have voted during the debate while the game was paused. */
    il_close_if_all_voted(c);
}

/* Judges case k on the votes cast for it, and hands its cards on. */
static void verdict_one(struct il_ctx *c, unsigned k)
{
    struct il_game *g = c->g;
    struct il_event *e = il_emit(c, IL_EV_VERDICT, IL_PUBLIC);
    e->number = (uint8_t)k;
    case_cards(&g->cases[k], &e->cards);

    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct il_player *p = &g->players[s];
        if (!p->active)
            continue;
        if (p->votes[k] < 0)
            e->abstentions++;
        else
            e->tally[p->votes[k]]++;
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
}

/* Moves past the open cases, all judged now, to the next or the end. */
static void next_case(struct il_ctx *c)
{
    struct il_game *g = c->g;
    g->case_index = (uint8_t)open_end(g);
    g->judged = 0;
    il_open_case(c);
}

void il_verdict(struct il_ctx *c)
{
    struct il_game *g = c->g;
    for (unsigned k = g->case_index; k < open_end(g); k++)
        if (!il_case_judged(g, k))
            verdict_one(c, k);
    next_case(c);
}

void il_close_if_all_voted(struct il_ctx *c)
{
    struct il_game *g = c->g;
    if (!(g->config.tribunal & IL_TRIBUNAL_CLOSE_EARLY) || g->paused)
        return;
    bool waiting = false;
    for (unsigned k = g->case_index; k < open_end(g); k++) {
        if (il_case_judged(g, k))
            continue;
        if (!il_case_open(g, k) || !all_voted(g, k)) {
            waiting = true;
            continue;
        }
        verdict_one(c, k);
        g->judged |= (uint16_t)(1u << k);
    }
    if (!waiting && g->judged)
        next_case(c);
}

enum il_error il_act_vote(struct il_ctx *c, const struct il_action *a)
{
    struct il_game *g = c->g;
    if (!il_is_active_seat(g, a->player))
        return IL_ERR_NOT_A_PLAYER;
    if (g->paused)
        return IL_ERR_PAUSED;
    if (!voting(g))
        return IL_ERR_WRONG_PHASE;
    if (!il_case_open(g, a->number))
        return IL_ERR_NO_SUCH_CASE;
    int target = IL_ABSTAINED;
    if (a->type == IL_ACT_VOTE) {
        if (a->target == a->player)
            return IL_ERR_SELF_VOTE;
        if (!il_is_active_seat(g, a->target))
            return IL_ERR_NOT_A_PLAYER;
        target = a->target;
    }
    g->players[a->player].votes[a->number] = (int8_t)target;
    struct il_event *e = il_emit(c, IL_EV_VOTE_RECORDED, a->player);
    e->player = a->player;
    e->target = (int8_t)(target == IL_ABSTAINED ? IL_NOBODY : target);
    e->number = a->number;
    il_close_if_all_voted(c);
    return IL_OK;
}
