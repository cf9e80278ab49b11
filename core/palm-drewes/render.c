/*
 * render.c - Palm & Drewes' Illegal's events as messages: the table's in
 * one notice per change, each seat's private ones in one message to it, a
 * seat's hand as a message edited in place, and the result; the table view
 * (table.c) and the prompts (prompts.c) after them.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "../catalog.h"
#include "../text.h"
#include "out.h"
#include "words.h"

/* The events a seat's notice leaves to its prompts (prompts.c). */
static bool for_prompts(enum pd_event_type t)
{
    return (t >= PD_EV_OFFER_MADE && t <= PD_EV_OFFER_EXPIRED) || t == PD_EV_PASS_CHOSEN ||
           t == PD_EV_ASK_CLOSED;
}

void pd_render_private(const struct pd_state *s, const struct rules_table *t, unsigned seat,
                       bool fresh, rules_emit_fn emit, void *arg)
{
    const struct pd_game *g = &s->game;
    if (seat >= g->nplayers || seat >= t->nseats)
        return;
    struct out *o = &(struct out){0};
    const char *lang = pd_lang_of(t, (int)seat);
    char cards[PD_LINE_MAX], line[PD_LINE_MAX];
    pd_out_init(o, s, t, OUT_PRIVATE_VIEW, (int)seat);
    pd_out_key(o, t, "hand", 0, (int)seat);
    o->msg.replace = !fresh;
    pd_cards_text(cards, sizeof cards, lang, &g->players[seat].hand);
    const char *vars[] = {"cards", cards, NULL};
    text_fill(line, sizeof line, lang, PD_KEYS "msg.hand", vars);
    pd_out_line(o, line, "hand");
    pd_out_set(o, "title", json_object_new_string(PD_KEYS "ui.title-hand"));
    json_object_object_add(o->data, "hand", pd_bundle_json(&g->players[seat].hand));
    json_object_object_add(o->data, "business", pd_bundle_json(&g->players[seat].business));
    json_object_object_add(o->data, "layout", pd_layout_json(&g->players[seat]));
    pd_out_emit(o, emit, arg);
}

/* GAME_OVER: the result for people, and the result for machines. */
static void result(const struct pd_state *s, const struct rules_table *t, const struct pd_event *e,
                   const char *text, rules_emit_fn emit, void *arg)
{
    struct out *o = &(struct out){0};
    bool aborted = s->game.end == PD_END_HOST || s->game.end == PD_END_PLAYERS;
    pd_out_init(o, s, t, OUT_RESULT, MSG_TABLE);
    pd_out_key(o, t, "result", 0, -1);
    pd_out_line(o, text, "game-over");
    pd_out_emit(o, emit, arg);

    pd_out_init(o, s, t, OUT_GAME_OVER, MSG_TABLE);
    struct json_object *scores = json_object_new_object(), *winners = json_object_new_array();
    for (unsigned i = 0; i < s->game.nplayers && i < t->nseats; i++) {
        json_object_object_add(scores, t->users[i], json_object_new_int(e->scores[i]));
        if (e->winners & (1u << i))
            json_object_array_add(winners, json_object_new_string(t->users[i]));
    }
    json_object_object_add(o->data, "scores", scores);
    json_object_object_add(o->data, "winners", winners);
    if (aborted)
        json_object_object_add(o->data, "aborted", json_object_new_boolean(true));
    pd_out_line(o, text, "game-over");
    pd_out_emit(o, emit, arg);
}

void pd_render(const struct pd_state *s, const struct rules_table *t, const struct pd_events *ev,
               int64_t now, rules_emit_fn emit, void *arg)
{
    struct out *table = &(struct out){0};
    char line[PD_LINE_MAX];
    uint8_t hands = 0, dealt = 0; /* seats whose hand changed; seats just dealt one */
    const struct pd_event *over = NULL;
    pd_out_init(table, s, t, OUT_NOTICE, MSG_TABLE);
    for (unsigned i = 0; i < ev->n; i++) {
        const struct pd_event *e = &ev->v[i];
        if (e->type == PD_EV_HAND || e->type == PD_EV_DEALT) {
            hands |= (uint8_t)(1u << e->audience);
            dealt |= e->type == PD_EV_DEALT ? (uint8_t)(1u << e->audience) : 0;
            continue;
        }
        if (e->type == PD_EV_GAME_OVER) {
            over = e;
            continue;
        }
        if (e->audience != PD_TABLE)
            continue;
        pd_event_text(line, sizeof line, t->lang, e, t->names, t->nseats, now);
        pd_out_line(table, line, pd_event_id(e->type));
    }
    pd_out_emit(table, emit, arg);
    pd_render_table(s, t, ev, emit, arg);
    /* Each seat's private events, in one message to it. */
    for (unsigned seat = 0; seat < t->nseats && seat < PD_MAX_PLAYERS; seat++) {
        struct out *mine = &(struct out){0};
        pd_out_init(mine, s, t, OUT_NOTICE, (int)seat);
        for (unsigned i = 0; i < ev->n; i++) {
            const struct pd_event *e = &ev->v[i];
            if (e->audience != (int)seat || e->type == PD_EV_HAND || e->type == PD_EV_DEALT ||
                for_prompts(e->type))
                continue;
            pd_event_text(line, sizeof line, pd_lang_of(t, (int)seat), e, t->names, t->nseats, now);
            pd_out_line(mine, line, pd_event_id(e->type));
        }
        pd_out_emit(mine, emit, arg);
        if (hands & (1u << seat))
            pd_render_private(s, t, seat, (dealt >> seat) & 1, emit, arg);
    }
    pd_render_prompts(s, t, ev, now, emit, arg);
    if (over) {
        pd_event_text(line, sizeof line, t->lang, over, t->names, t->nseats, now);
        result(s, t, over, line, emit, arg);
    }
}

/* One seat's line: its hand, business and burden. */
static void seat_line(const struct pd_game *g, const struct rules_table *t, unsigned seat,
                      char *out, size_t len)
{
    const struct pd_player *p = &g->players[seat];
    char hand[PD_LINE_MAX], business[PD_LINE_MAX];
    pd_cards_text(hand, sizeof hand, t->lang, &p->hand);
    pd_cards_text(business, sizeof business, t->lang, &p->business);
    const char *burden = p->burden == PD_NONE ? catalog_text(t->lang, PD_KEYS "msg.nothing")
                                              : pd_card_name(t->lang, p->burden);
    const char *vars[] = {"player", t->names[seat], "hand", hand, "business",
                          business, "burden",       burden, NULL};
    text_fill(out, len, t->lang, PD_KEYS "msg.gm-seat", vars);
}

void pd_gm_view(const struct pd_state *s, const struct rules_table *t, char *out, size_t len)
{
    const struct pd_game *g = &s->game;
    char line[3 * PD_LINE_MAX];
    struct text_list l;
    text_list_init(&l, out, len, "\n");
    for (unsigned seat = 0; seat < g->nplayers && seat < t->nseats; seat++)
        if (g->players[seat].active) {
            seat_line(g, t, seat, line, sizeof line);
            text_list_add(&l, "%s", line);
        }
    for (unsigned i = 0; i < g->noffers; i++) {
        struct pd_event e;
        memset(&e, 0, sizeof e);
        e.type = PD_EV_OFFER_MADE;
        e.audience = (int8_t)g->current;
        e.player = (int8_t)g->current;
        e.target = (int8_t)g->offers[i].to;
        e.offer_id = g->offers[i].id;
        e.cards = g->offers[i].give;
        e.cards2 = g->offers[i].ask;
        e.number = (uint8_t)pd_bundle_total(&g->offers[i].give);
        e.card = e.card2 = e.deal = PD_NONE;
        e.source = PD_NOBODY;
        pd_event_text(line, sizeof line, t->lang, &e, t->names, t->nseats, 0);
        text_list_add(&l, "%s", line);
    }
}

void pd_status(const struct pd_state *s, const struct rules_table *t, int64_t now, char *out,
               size_t len)
{
    const struct pd_game *g = &s->game;
    char phase[128], left[64], players[1024];
    struct text_list active;
    snprintf(phase, sizeof phase, "%s",
             text_name(t->lang, "palm-drewes.phase", pd_phase_id(g->phase)));
    int64_t remaining = g->paused ? g->paused_remaining : g->deadline - now;
    text_duration(left, sizeof left, t->lang, remaining > 0 ? remaining : 0);
    text_list_init(&active, players, sizeof players, ", ");
    for (unsigned i = 0; i < g->nplayers && i < t->nseats; i++)
        if (g->players[i].active)
            text_list_add(&active, "%s", t->names[i]);
    const char *current = g->current < t->nseats ? t->names[g->current] : "?";
    const char *vars[] = {"id",   t->game, "phase",   phase,   "player", current,
                          "left", left,    "players", players, NULL};
    text_fill(out, len, t->lang, g->paused ? PD_KEYS "msg.status-paused" : PD_KEYS "msg.status",
              vars);
}
