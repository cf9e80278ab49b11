/*
 * view.c - a seat's view (view.h): the one place that reads the game for a
 * computer player, so the one place a leak could start. It copies the
 * public table and the seat's own part, field by field, into a zeroed view.
 */
#include <string.h>

#include "internal.h"
#include "view.h"

static void table_part(const struct pd_game *g, struct pd_view *v)
{
    memcpy(v->config.timer_ms, g->config.timer_ms, sizeof v->config.timer_ms);
    v->config.reminder_ms = g->config.reminder_ms;
    v->config.series_target = g->config.series_target;
    v->series.games = g->series.games;
    v->series.nplayers = g->series.nplayers;
    v->series.dealer = g->series.dealer;
    memcpy(v->series.totals, g->series.totals, sizeof v->series.totals);
    v->nplayers = g->nplayers;
    v->dealer = g->dealer;
    v->current = g->current;
    v->phase = g->phase;
    v->end = g->end;
    v->deadline = pd_game_deadline(g);
    v->paused = g->paused;
    v->npile = g->npile;
    v->discard = g->discard;
    v->takeover_card = g->takeover_card;
    v->takeover_victim = g->takeover_victim;
    v->takeover_deal = g->takeover_deal;
}

static void players_part(const struct pd_game *g, struct pd_view *v)
{
    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct pd_player *p = &g->players[s];
        uint8_t bit = (uint8_t)(1u << s);
        v->active |= p->active ? bit : 0;
        v->business[s] = p->business;
        v->burden[s] = p->burden;
        v->skips[s] = p->skips;
        v->hand_size[s] = (uint8_t)pd_bundle_total(&p->hand);
        v->chosen |= p->pass != PD_NONE ? bit : 0;
        v->waived |= p->waived ? bit : 0;
        v->scores[s] = p->score;
        if (pd_hand_open(g, s)) {
            v->open |= bit;
            v->open_hand[s] = p->hand;
        }
    }
    for (unsigned s = g->nplayers; s < PD_MAX_PLAYERS; s++)
        v->burden[s] = PD_NONE;
}

static void seat_part(const struct pd_game *g, unsigned seat, struct pd_view *v)
{
    v->seat = (uint8_t)seat;
    v->hand = g->players[seat].hand;
    v->pass = g->players[seat].pass;
    for (unsigned i = 0; i < g->noffers; i++) {
        const struct pd_offer *o = &g->offers[i];
        if (o->to != seat && g->current != seat)
            continue;
        struct pd_view_offer *w = &v->offers[v->noffers++];
        w->id = o->id;
        w->from = g->current;
        w->to = o->to;
        w->blind = o->blind;
        w->ngive = (uint8_t)pd_bundle_total(&o->give);
        w->ask = o->ask;
        if (!o->blind || g->current == seat)
            w->give = o->give;
    }
}

static bool seen_part(const struct pd_events *ev, unsigned seat, struct pd_view *v)
{
    for (unsigned i = 0; ev && i < ev->n; i++)
        if (ev->v[i].audience == PD_TABLE || ev->v[i].audience == (int)seat)
            v->seen.v[v->seen.n++] = ev->v[i];
    return v->seen.n > 0;
}

bool pd_view_build(const struct pd_game *g, unsigned seat, const struct pd_events *ev,
                   struct pd_view *v)
{
    memset(v, 0, sizeof *v);
    if (seat >= g->nplayers)
        return false;
    table_part(g, v);
    players_part(g, v);
    seat_part(g, seat, v);
    return seen_part(ev, seat, v);
}
