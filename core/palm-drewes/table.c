/*
 * table.c - the table view of Palm & Drewes' Illegal: what everyone at the
 * table sees of the game (each business and burden, how many cards each hand
 * holds, the pile, whose turn, the series), one message edited in place.
 *
 * It is sent when a game starts and edited after every change that alters
 * what it shows; it never names a card of a hand.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "../catalog.h"
#include "../text.h"
#include "out.h"
#include "words.h"

/* Whether an event of the table changes what the view shows: a business, a
 * burden, a hand's size, the pile, the discard, the turn, who plays. */
static bool alters_view(enum pd_event_type t)
{
    switch (t) {
    case PD_EV_GAME_STARTED:
    case PD_EV_TURN_STARTED:
    case PD_EV_TRADED:
    case PD_EV_OPENED:
    case PD_EV_DEAL_PLAYED:
    case PD_EV_BURDEN_LAID:
    case PD_EV_BURDEN_LIFTED:
    case PD_EV_DEAL_LOST:
    case PD_EV_NUISANCE:
    case PD_EV_PASS_DONE:
    case PD_EV_TAKEOVER:
    case PD_EV_TAKEOVER_STOPPED:
    case PD_EV_TAKEN:
    case PD_EV_DISCARDED:
    case PD_EV_DRAWN:
    case PD_EV_RECKONING:
    case PD_EV_PLAYER_REMOVED:
    case PD_EV_GAME_OVER:
        return true;
    default:
        return false;
    }
}

static bool series_on(const struct pd_game *g)
{
    return g->config.series_target != PD_SERIES_OFF;
}

static struct json_object *seat_json(const struct pd_game *g, const struct rules_table *t,
                                     unsigned seat)
{
    const struct pd_player *p = &g->players[seat];
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "player", json_object_new_string(t->users[seat]));
    json_object_object_add(o, "seat", json_object_new_int((int)seat));
    json_object_object_add(o, "active", json_object_new_boolean(p->active));
    json_object_object_add(o, "business", pd_bundle_json(&p->business));
    json_object_object_add(o, "layout", pd_layout_json(p));
    json_object_object_add(
        o, "burden", p->burden == PD_NONE ? NULL : json_object_new_string(pd_card_id(p->burden)));
    json_object_object_add(o, "hand", json_object_new_int((int)pd_bundle_total(&p->hand)));
    json_object_object_add(o, "score",
                           json_object_new_int64(series_on(g) ? g->series.totals[seat] : 0));
    json_object_object_add(o, "current", json_object_new_boolean(seat == g->current));
    json_object_object_add(o, "dealer", json_object_new_boolean(seat == g->dealer));
    return o;
}

/* A line a player: business, burden, cards in hand (and the series' total). */
static void seat_line(const struct pd_game *g, const struct rules_table *t, unsigned seat,
                      char *out, size_t len)
{
    const struct pd_player *p = &g->players[seat];
    char business[PD_LINE_MAX], count[16], score[64];
    pd_cards_text(business, sizeof business, t->lang, &p->business);
    snprintf(count, sizeof count, "%u", pd_bundle_total(&p->hand));
    pd_euros_text(score, sizeof score, t->lang, series_on(g) ? g->series.totals[seat] : 0);
    const char *burden = p->burden == PD_NONE ? catalog_text(t->lang, PD_KEYS "msg.nothing")
                                              : pd_card_name(t->lang, p->burden);
    const char *vars[] = {"player", t->names[seat], "business", business, "burden", burden,
                          "count",  count,          "score",    score,    NULL};
    text_fill(out, len, t->lang,
              series_on(g) ? PD_KEYS "msg.table-seat-series" : PD_KEYS "msg.table-seat", vars);
}

/* The line of the pile, the discard, the dealer and who plays. */
static void state_line(const struct pd_game *g, const struct rules_table *t, char *out, size_t len)
{
    char pile[16], discard[16];
    snprintf(pile, sizeof pile, "%u", (unsigned)g->npile);
    snprintf(discard, sizeof discard, "%u", pd_bundle_total(&g->discard));
    const char *vars[] = {"pile",    pile,
                          "discard", discard,
                          "dealer",  t->names[g->dealer],
                          "player",  t->names[g->current],
                          NULL};
    text_fill(out, len, t->lang, PD_KEYS "msg.table-state", vars);
}

static void view_data(struct out *o, const struct pd_game *g, const struct rules_table *t)
{
    struct json_object *players = json_object_new_array();
    for (unsigned seat = 0; seat < g->nplayers; seat++)
        json_object_array_add(players, seat_json(g, t, seat));
    pd_out_set(o, "title", json_object_new_string(PD_KEYS "ui.title-table"));
    pd_out_set(o, "players", players);
    pd_out_set(o, "pile", json_object_new_int(g->npile));
    pd_out_set(o, "discard", json_object_new_int((int)pd_bundle_total(&g->discard)));
    pd_out_set(o, "turn", json_object_new_string(t->users[g->current]));
    if (series_on(g)) {
        struct json_object *series = json_object_new_object();
        json_object_object_add(series, "goal", json_object_new_int(g->config.series_target));
        json_object_object_add(series, "game", json_object_new_int(g->series.games + 1));
        pd_out_set(o, "series", series);
    }
}

void pd_render_table(const struct pd_state *s, const struct rules_table *t,
                     const struct pd_events *ev, rules_emit_fn emit, void *arg)
{
    const struct pd_game *g = &s->game;
    bool changed = false, fresh = false;
    for (unsigned i = 0; i < ev->n; i++) {
        changed |= ev->v[i].audience == PD_TABLE && alters_view(ev->v[i].type);
        fresh |= ev->v[i].type == PD_EV_GAME_STARTED;
    }
    if (!changed || g->nplayers > t->nseats)
        return;
    struct out *o = &(struct out){0};
    char line[2 * PD_LINE_MAX];
    pd_out_init(o, s, t, OUT_TABLE_VIEW, MSG_TABLE);
    pd_out_key(o, t, "table", 0, -1);
    o->msg.replace = !fresh;
    for (unsigned seat = 0; seat < g->nplayers; seat++)
        if (g->players[seat].active) {
            seat_line(g, t, seat, line, sizeof line);
            pd_out_line(o, line, NULL);
        }
    state_line(g, t, line, sizeof line);
    pd_out_line(o, line, NULL);
    view_data(o, g, t);
    pd_out_emit(o, emit, arg);
}
