/*
 * render.c - Palm & Drewes' Illegal's events as messages: the table's in
 * one notice per change, each seat's private ones in one message to it, a
 * seat's hand as a message edited in place, and the result.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "../catalog.h"
#include "../text.h"
#include "module.h"
#include "words.h"

#define TEXT_MAX    8192
#define PD_LINE_MAX 1024

/* One message being written: its text, and the ids of its events. */
struct out {
    struct rules_msg msg;
    struct msg_key key;
    struct json_object *data, *events;
    char text[TEXT_MAX];
    size_t used;
};

static const char *lang_of(const struct rules_table *t, int audience)
{
    if (audience >= 0 && (unsigned)audience < t->nseats && t->langs && t->langs[audience])
        return t->langs[audience];
    return t->lang;
}

static void out_init(struct out *o, const struct pd_state *s, const struct rules_table *t,
                     enum outbound_kind kind, int audience)
{
    memset(&o->msg, 0, sizeof o->msg);
    o->msg.kind = kind;
    o->msg.audience = audience;
    o->text[0] = '\0';
    o->used = 0;
    o->data = json_object_new_object();
    o->events = json_object_new_array();
    json_object_object_add(o->data, "game", json_object_new_string(t->game));
    json_object_object_add(o->data, "table", json_object_new_string(t->channel));
    json_object_object_add(o->data, "lang", json_object_new_string(lang_of(t, audience)));
    json_object_object_add(o->data, "module", json_object_new_string("palm-drewes"));
    json_object_object_add(o->data, "phase", json_object_new_string(pd_phase_id(s->game.phase)));
    json_object_object_add(o->data, "paused", json_object_new_boolean(s->game.paused));
    if (pd_game_deadline(&s->game))
        json_object_object_add(o->data, "deadline",
                               json_object_new_int64(pd_game_deadline(&s->game)));
}

static void out_line(struct out *o, const char *line, const char *event)
{
    if (o->used && o->used + 1 < sizeof o->text)
        o->text[o->used++] = '\n';
    int w = snprintf(o->text + o->used, sizeof o->text - o->used, "%s", line);
    o->used = w < 0 ? o->used : o->used + (size_t)w;
    if (o->used >= sizeof o->text)
        o->used = sizeof o->text - 1;
    json_object_array_add(o->events, json_object_new_string(event));
}

/* Sends the message if it has a line, and frees what it holds. */
static void out_emit(struct out *o, rules_emit_fn emit, void *arg)
{
    json_object_object_add(o->data, "events", o->events);
    if (o->text[0]) {
        o->msg.text = o->text;
        o->msg.data = o->data;
        emit(arg, &o->msg);
    }
    json_object_put(o->data);
    o->data = o->events = NULL;
}

static void set_key(struct out *o, const struct rules_table *t, const char *topic, int seat)
{
    memset(&o->key, 0, sizeof o->key);
    snprintf(o->key.game, sizeof o->key.game, "%s", t->game);
    snprintf(o->key.topic, sizeof o->key.topic, "%s", topic);
    if (seat >= 0)
        snprintf(o->key.user, sizeof o->key.user, "%s", t->users[seat]);
    o->msg.key = &o->key;
}

static struct json_object *bundle_json(const struct pd_bundle *b)
{
    struct json_object *o = json_object_new_object();
    for (unsigned c = 0; o && c < PD_CARDS; c++)
        if (b->n[c])
            json_object_object_add(o, pd_card_id(c), json_object_new_int(b->n[c]));
    return o;
}

void pd_render_private(const struct pd_state *s, const struct rules_table *t, unsigned seat,
                       bool fresh, rules_emit_fn emit, void *arg)
{
    const struct pd_game *g = &s->game;
    if (seat >= g->nplayers || seat >= t->nseats)
        return;
    struct out *o = &(struct out){0};
    const char *lang = lang_of(t, (int)seat);
    char cards[PD_LINE_MAX], line[PD_LINE_MAX];
    out_init(o, s, t, OUT_PRIVATE_VIEW, (int)seat);
    set_key(o, t, "hand", (int)seat);
    o->msg.replace = !fresh;
    pd_cards_text(cards, sizeof cards, lang, &g->players[seat].hand);
    const char *vars[] = {"cards", cards, NULL};
    text_fill(line, sizeof line, lang, PD_KEYS "msg.hand", vars);
    out_line(o, line, "hand");
    json_object_object_add(o->data, "hand", bundle_json(&g->players[seat].hand));
    json_object_object_add(o->data, "business", bundle_json(&g->players[seat].business));
    out_emit(o, emit, arg);
}

/* GAME_OVER: the result for people, and the result for machines. */
static void result(const struct pd_state *s, const struct rules_table *t, const struct pd_event *e,
                   const char *text, rules_emit_fn emit, void *arg)
{
    struct out *o = &(struct out){0};
    bool aborted = s->game.end == PD_END_HOST || s->game.end == PD_END_PLAYERS;
    out_init(o, s, t, OUT_RESULT, MSG_TABLE);
    set_key(o, t, "result", -1);
    out_line(o, text, "game-over");
    out_emit(o, emit, arg);

    out_init(o, s, t, OUT_GAME_OVER, MSG_TABLE);
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
    out_line(o, text, "game-over");
    out_emit(o, emit, arg);
}

void pd_render(const struct pd_state *s, const struct rules_table *t, const struct pd_events *ev,
               int64_t now, rules_emit_fn emit, void *arg)
{
    struct out *table = &(struct out){0};
    char line[PD_LINE_MAX];
    uint8_t hands = 0, dealt = 0; /* seats whose hand changed; seats just dealt one */
    const struct pd_event *over = NULL;
    out_init(table, s, t, OUT_NOTICE, MSG_TABLE);
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
        out_line(table, line, pd_event_id(e->type));
    }
    out_emit(table, emit, arg);
    /* Each seat's private events, in one message to it. */
    for (unsigned seat = 0; seat < t->nseats && seat < PD_MAX_PLAYERS; seat++) {
        struct out *mine = &(struct out){0};
        out_init(mine, s, t, OUT_NOTICE, (int)seat);
        for (unsigned i = 0; i < ev->n; i++) {
            const struct pd_event *e = &ev->v[i];
            if (e->audience != (int)seat || e->type == PD_EV_HAND || e->type == PD_EV_DEALT)
                continue;
            pd_event_text(line, sizeof line, lang_of(t, (int)seat), e, t->names, t->nseats, now);
            out_line(mine, line, pd_event_id(e->type));
        }
        out_emit(mine, emit, arg);
        if (hands & (1u << seat))
            pd_render_private(s, t, seat, (dealt >> seat) & 1, emit, arg);
    }
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
