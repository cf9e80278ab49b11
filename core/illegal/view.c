/*
 * view.c - a seat's view of the game (view.h): the one place that reads the
 * game on behalf of a computer player, so the one place a leak could start.
 * It copies the public table and the seat's own part, field by field, into
 * a zeroed view; nothing of another seat's hand, roles, votes or offers.
 */
#include <string.h>

#include "module.h"
#include "view.h"

/* Whether the table has seen case k's cards: judged, or open for debate. */
static bool case_shown(const struct il_game *g, unsigned k)
{
    bool parallel = (g->config.tribunal & IL_TRIBUNAL_PARALLEL) != 0;
    bool debating = g->phase == IL_PHASE_DEBATE || g->phase == IL_PHASE_VOTE;
    return il_case_judged(g, k) ||
           (debating && k >= g->case_index && (parallel || k == g->case_index));
}

static void table_part(const struct il_game *g, struct il_view *v)
{
    v->config = g->config;
    v->nplayers = g->nplayers;
    v->in_play = g->in_play;
    v->phase = g->phase;
    v->session = g->session;
    v->drops = g->drops;
    v->deadline = il_game_deadline(g);
    v->paused = g->paused;
    for (unsigned s = 0; s < g->nplayers; s++) {
        v->active |= (uint8_t)(g->players[s].active << s);
        v->grabbed |= (uint8_t)(g->players[s].grabbed << s);
    }
    v->drop_shown = g->drop_shown;
    for (unsigned i = 0; i < g->drop_shown; i++) {
        v->drop_cards[i] = g->drop_cards[i];
        v->drop_taken[i] = g->drop_taken[i];
    }
}

static void tribunal_part(const struct il_game *g, struct il_view *v)
{
    v->ncases = g->ncases;
    for (unsigned k = 0; k < g->ncases; k++) {
        uint16_t bit = (uint16_t)(1u << k);
        if (case_shown(g, k)) {
            v->shown |= bit;
            v->cases[k] = g->cases[k];
        }
        if (il_case_open(g, k))
            v->open |= bit;
        if (il_case_judged(g, k))
            v->judged |= bit;
    }
}

static void seat_part(const struct il_game *g, unsigned seat, struct il_view *v)
{
    const struct il_player *p = &g->players[seat];
    v->seat = (uint8_t)seat;
    v->dealer = p->dealer;
    v->buyer = p->buyer;
    v->extra = p->extra;
    v->hand = p->hand;
    memcpy(v->votes, p->votes, sizeof v->votes);
    for (unsigned i = 0; i < g->noffers; i++)
        if (g->offers[i].from == seat || g->offers[i].to == seat)
            v->offers[v->noffers++] = g->offers[i];
}

/* Copies the events seat was shown; returns whether there were any. */
static bool seen_part(const struct il_events *ev, unsigned seat, struct il_view *v)
{
    for (unsigned i = 0; ev && i < ev->n; i++)
        if (ev->v[i].audience == IL_PUBLIC || ev->v[i].audience == (int)seat)
            v->seen.v[v->seen.n++] = ev->v[i];
    return v->seen.n > 0;
}

bool il_view_build(const struct il_game *g, unsigned seat, const struct il_events *ev,
                   struct il_view *v)
{
    /* The whole view is zeroed first: a buffer the host reuses for another
     * seat keeps nothing of it. */
    memset(v, 0, sizeof *v);
    if (seat >= g->nplayers)
        return false;
    table_part(g, v);
    tribunal_part(g, v);
    seat_part(g, seat, v);
    return seen_part(ev, seat, v);
}

bool il_seat_view(const void *state, unsigned seat, const void *events, void *view)
{
    return il_view_build(&((const struct il_state *)state)->game, seat, events, view);
}
