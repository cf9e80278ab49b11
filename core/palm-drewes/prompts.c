/*
 * prompts.c - the questions Palm & Drewes' Illegal asks one seat, with their
 * answers as choices whose commands are what the player would type: the
 * card to pass, the Magnum's window (waive, or the Magnum to the one who
 * holds it), the deal a burden takes, an offer (accept, decline, cancel).
 *
 * A prompt is sent anew when its step opens and edited in place, with no
 * choices and "open" false, when it no longer applies: the rules say so by
 * PD_EV_ASK_CLOSED (the pass, the window, the loss), PD_EV_PASS_CHOSEN and
 * the end of an offer. A seat taken over is sent those still open to it
 * (pd_render_open_prompts). Everyone asked in a window reads the same text, so
 * being asked tells nothing of who holds the Magnum.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "out.h"
#include "words.h"

/* One of a prompt's "choices" (bot/platform.h). card: PD_NONE for none. */
static struct json_object *choice(const char *command, const char *label_key, unsigned card,
                                  const char *tag, const char *tone)
{
    struct json_object *c = json_object_new_object();
    char key[64];
    json_object_object_add(c, "command", json_object_new_string(command));
    if (card != PD_NONE) {
        snprintf(key, sizeof key, PD_KEYS "card.%s", pd_card_id(card));
        label_key = key;
        json_object_object_add(c, "card", json_object_new_string(pd_card_id(card)));
    }
    json_object_object_add(c, "label_key", json_object_new_string(label_key));
    if (tag)
        json_object_object_add(c, "tag", json_object_new_string(tag));
    if (tone)
        json_object_object_add(c, "tone", json_object_new_string(tone));
    return c;
}

/* A choice a kind of card of b that want takes: "<verb> <card>". */
static struct json_object *card_choices(const char *verb, const struct pd_bundle *b,
                                        bool (*want)(unsigned card))
{
    struct json_object *list = json_object_new_array();
    char command[64];
    for (unsigned c = 0; c < PD_CARDS; c++)
        if (b->n[c] && (!want || want(c))) {
            snprintf(command, sizeof command, "%s %s", verb, pd_card_id(c));
            json_object_array_add(list, choice(command, NULL, c, NULL, NULL));
        }
    return list;
}

static const char *topic_of(enum pd_phase p)
{
    return p == PD_PHASE_PASS ? "pass" : p == PD_PHASE_WINDOW ? "window" : "loss";
}

/* Starts the prompt of topic (number: an offer's) to seat: a new message,
 * or the edit that closes it. */
static void prompt_init(struct out *o, const struct pd_state *s, const struct rules_table *t,
                        const char *topic, unsigned number, unsigned seat, bool open)
{
    pd_out_init(o, s, t, OUT_PROMPT, (int)seat);
    pd_out_key(o, t, topic, number, (int)seat);
    o->msg.replace = !open;
    pd_out_set(o, "open", json_object_new_boolean(open));
}

static const char *user(const struct rules_table *t, int seat)
{
    return seat >= 0 && (unsigned)seat < t->nseats ? t->users[seat] : "";
}

/* PD_EV_PASS_OPENED: to seat, one choice a kind of card it holds. */
static void pass_prompt(const struct pd_state *s, const struct rules_table *t,
                        const struct pd_event *opened, unsigned seat, int64_t now,
                        rules_emit_fn emit, void *arg)
{
    struct out *o = &(struct out){0};
    struct pd_event q = *opened;
    char line[PD_LINE_MAX];
    q.target = (int8_t)pd_left_of(&s->game, seat);
    prompt_init(o, s, t, "pass", 0, seat, true);
    pd_prompt_text(line, sizeof line, pd_lang_of(t, (int)seat), &q, t->names, t->nseats, now);
    pd_out_line(o, line, pd_event_id(opened->type));
    pd_out_set(o, "to", json_object_new_string(user(t, q.target)));
    pd_out_set(o, "choices", card_choices("pass", &s->game.players[seat].hand, NULL));
    pd_out_emit(o, emit, arg);
}

/* PD_EV_TAKEOVER: to seat, "waive", and the Magnum if seat holds it. */
static void window_prompt(const struct pd_state *s, const struct rules_table *t,
                          const struct pd_event *e, unsigned seat, int64_t now, rules_emit_fn emit,
                          void *arg)
{
    struct out *o = &(struct out){0};
    char line[PD_LINE_MAX];
    struct json_object *choices = json_object_new_array();
    prompt_init(o, s, t, "window", 0, seat, true);
    pd_prompt_text(line, sizeof line, pd_lang_of(t, (int)seat), e, t->names, t->nseats, now);
    pd_out_line(o, line, pd_event_id(e->type));
    pd_out_set(o, "taker", json_object_new_string(user(t, e->player)));
    pd_out_set(o, "victim", json_object_new_string(user(t, e->target)));
    pd_out_set(o, "card", json_object_new_string(pd_card_id(e->card)));
    pd_out_set(o, "deal", json_object_new_string(pd_card_id(e->deal)));
    json_object_array_add(choices, choice("waive", PD_KEYS "ui.waive", PD_NONE, NULL, NULL));
    if (s->game.players[seat].hand.n[PD_MAGNUM])
        json_object_array_add(choices,
                              choice("magnum", PD_KEYS "ui.magnum", PD_NONE, NULL, "main"));
    pd_out_set(o, "choices", choices);
    pd_out_emit(o, emit, arg);
}

static bool illegal_deal(unsigned card)
{
    return pd_card_kind(card) == PD_KIND_ILLEGAL;
}

/* PD_EV_LOSS_DUE: to the burdened player, a choice a kind of deal it may lose. */
static void loss_prompt(const struct pd_state *s, const struct rules_table *t,
                        const struct pd_event *e, int64_t now, rules_emit_fn emit, void *arg)
{
    const struct pd_player *p = &s->game.players[e->player];
    struct out *o = &(struct out){0};
    char line[PD_LINE_MAX];
    struct pd_bundle deals = {{0}};
    bool (*want)(unsigned) = e->card == PD_RAID ? illegal_deal : pd_card_is_deal;
    for (unsigned c = 0; c < PD_CARDS; c++)
        deals.n[c] = want(c) ? p->business.n[c] : 0;
    prompt_init(o, s, t, "loss", 0, (unsigned)e->player, true);
    pd_prompt_text(line, sizeof line, pd_lang_of(t, e->player), e, t->names, t->nseats, now);
    pd_out_line(o, line, pd_event_id(e->type));
    pd_out_set(o, "burden", json_object_new_string(pd_card_id(e->card)));
    pd_out_set(o, "deals", pd_bundle_json(&deals));
    pd_out_set(o, "choices", card_choices("lose", &deals, NULL));
    pd_out_emit(o, emit, arg);
}

/* An offer's prompt to one side (PD_EV_OFFER_MADE), or its closing edit. */
static void offer_prompt(const struct pd_state *s, const struct rules_table *t,
                         const struct pd_event *e, int64_t now, rules_emit_fn emit, void *arg)
{
    struct out *o = &(struct out){0};
    char line[PD_LINE_MAX], command[32], tag[16];
    bool open = e->type == PD_EV_OFFER_MADE;
    prompt_init(o, s, t, "offer", e->offer_id, (unsigned)e->audience, open);
    pd_event_text(line, sizeof line, pd_lang_of(t, e->audience), e, t->names, t->nseats, now);
    pd_out_line(o, line, pd_event_id(e->type));
    pd_out_set(o, "offer", json_object_new_int64(e->offer_id));
    pd_out_set(o, "from", json_object_new_string(user(t, e->player)));
    pd_out_set(o, "to", json_object_new_string(user(t, e->target)));
    pd_out_set(o, "give", pd_bundle_json(&e->cards));
    pd_out_set(o, "given", json_object_new_int(e->number));
    pd_out_set(o, "ask", pd_bundle_json(&e->cards2));
    pd_out_set(o, "blind", json_object_new_boolean(e->blind));
    if (open) {
        struct json_object *choices = json_object_new_array();
        snprintf(tag, sizeof tag, "#%u", (unsigned)e->offer_id);
        if (e->audience == e->target) {
            snprintf(command, sizeof command, "accept %u", (unsigned)e->offer_id);
            json_object_array_add(choices, choice(command, "ui.accept", PD_NONE, tag, "yes"));
            snprintf(command, sizeof command, "decline %u", (unsigned)e->offer_id);
            json_object_array_add(choices, choice(command, "ui.decline", PD_NONE, tag, "no"));
        } else {
            snprintf(command, sizeof command, "cancel %u", (unsigned)e->offer_id);
            json_object_array_add(choices, choice(command, "ui.cancel", PD_NONE, tag, NULL));
        }
        pd_out_set(o, "choices", choices);
    }
    pd_out_emit(o, emit, arg);
}

/* The event of the batch that tells seat how its prompt of phase ended, or
 * NULL: its waiver, the takeover's end; the deal it lost, its burden lifted. */
static const struct pd_event *ending(const struct pd_events *ev, enum pd_phase phase, int seat)
{
    const struct pd_event *found = NULL;
    for (unsigned i = 0; i < ev->n; i++) {
        const struct pd_event *e = &ev->v[i];
        if (phase == PD_PHASE_WINDOW &&
            ((e->type == PD_EV_WAIVED && e->player == seat) || e->type == PD_EV_TAKEN ||
             e->type == PD_EV_TAKEOVER_STOPPED))
            found = found && found->type == PD_EV_WAIVED ? found : e;
        else if (phase == PD_PHASE_LOSS && ((e->type == PD_EV_DEAL_LOST && e->player == seat) ||
                                            (e->type == PD_EV_BURDEN_LIFTED && e->target == seat)))
            found = e;
    }
    return found;
}

static bool chose_pass(const struct pd_events *ev, int seat)
{
    for (unsigned i = 0; i < ev->n; i++)
        if (ev->v[i].type == PD_EV_PASS_CHOSEN && ev->v[i].audience == seat)
            return true;
    return false;
}

/* Closes seat's prompt of a step (PD_EV_ASK_CLOSED), or shows the card it
 * now passes (PD_EV_PASS_CHOSEN, which may come again as the choice changes). */
static void close_step(const struct pd_state *s, const struct rules_table *t,
                       const struct pd_events *ev, const struct pd_event *e, int64_t now,
                       rules_emit_fn emit, void *arg)
{
    enum pd_phase phase = e->type == PD_EV_PASS_CHOSEN ? PD_PHASE_PASS : (enum pd_phase)e->number;
    if (e->type == PD_EV_ASK_CLOSED && phase == PD_PHASE_PASS && chose_pass(ev, e->audience))
        return;
    const struct pd_event *why = e->type == PD_EV_ASK_CLOSED ? ending(ev, phase, e->audience) : e;
    struct out *o = &(struct out){0};
    char line[PD_LINE_MAX];
    prompt_init(o, s, t, topic_of(phase), 0, (unsigned)e->audience, false);
    pd_event_text(line, sizeof line, pd_lang_of(t, e->audience), why ? why : e, t->names, t->nseats,
                  now);
    pd_out_line(o, line, pd_event_id(e->type));
    if (e->type == PD_EV_PASS_CHOSEN) {
        pd_out_set(o, "to", json_object_new_string(user(t, e->target)));
        pd_out_set(o, "chosen", json_object_new_string(pd_card_id(e->card)));
    }
    pd_out_emit(o, emit, arg);
}

/* The prompt to seat of the step e opened, if it still runs and asks seat. */
static void ask(const struct pd_state *s, const struct rules_table *t, const struct pd_event *e,
                unsigned seat, int64_t now, rules_emit_fn emit, void *arg)
{
    const struct pd_game *g = &s->game;
    if (!pd_step_asks(g, seat))
        return;
    if (e->type == PD_EV_PASS_OPENED && g->phase == PD_PHASE_PASS)
        pass_prompt(s, t, e, seat, now, emit, arg);
    else if (e->type == PD_EV_TAKEOVER && g->phase == PD_PHASE_WINDOW)
        window_prompt(s, t, e, seat, now, emit, arg);
    else if (e->type == PD_EV_LOSS_DUE && g->phase == PD_PHASE_LOSS)
        loss_prompt(s, t, e, now, emit, arg);
}

/* The prompts a step that opened in this change asks, if it still runs. */
static void open_step(const struct pd_state *s, const struct rules_table *t,
                      const struct pd_event *e, int64_t now, rules_emit_fn emit, void *arg)
{
    for (unsigned seat = 0; seat < s->game.nplayers && seat < t->nseats; seat++)
        ask(s, t, e, seat, now, emit, arg);
}

void pd_render_prompts(const struct pd_state *s, const struct rules_table *t,
                       const struct pd_events *ev, int64_t now, rules_emit_fn emit, void *arg)
{
    /* What closes first, then what opens, so that a key is never closed
     * after the prompt it opens anew. */
    for (unsigned i = 0; i < ev->n; i++) {
        const struct pd_event *e = &ev->v[i];
        if (e->audience < 0 || (unsigned)e->audience >= t->nseats)
            continue;
        if (e->type == PD_EV_ASK_CLOSED || e->type == PD_EV_PASS_CHOSEN)
            close_step(s, t, ev, e, now, emit, arg);
        else if (e->type > PD_EV_OFFER_MADE && e->type <= PD_EV_OFFER_EXPIRED)
            offer_prompt(s, t, e, now, emit, arg);
    }
    for (unsigned i = 0; i < ev->n; i++) {
        const struct pd_event *e = &ev->v[i];
        if (e->type == PD_EV_OFFER_MADE && e->audience >= 0 && (unsigned)e->audience < t->nseats)
            offer_prompt(s, t, e, now, emit, arg);
        else if (e->type == PD_EV_PASS_OPENED || e->type == PD_EV_TAKEOVER ||
                 e->type == PD_EV_LOSS_DUE)
            open_step(s, t, e, now, emit, arg);
    }
}

/* The event that opened the step under way, as the rules emitted it. */
static void step_event(const struct pd_game *g, struct pd_event *e)
{
    if (g->phase == PD_PHASE_PASS) {
        pd_event_blank(e, PD_EV_PASS_OPENED, PD_TABLE);
    } else if (g->phase == PD_PHASE_WINDOW) {
        pd_event_blank(e, PD_EV_TAKEOVER, PD_TABLE);
        e->player = (int8_t)g->current;
        e->card = g->takeover_card;
        e->target = (int8_t)g->takeover_victim;
        e->deal = g->takeover_deal;
    } else {
        pd_event_blank(e, PD_EV_LOSS_DUE, PD_TABLE);
        e->player = (int8_t)g->current;
        e->card = g->players[g->current].burden;
    }
    e->deadline = g->deadline;
}

void pd_render_open_prompts(const struct pd_state *s, const struct rules_table *t, unsigned seat,
                            int64_t now, rules_emit_fn emit, void *arg)
{
    const struct pd_game *g = &s->game;
    struct pd_event e;
    if (seat >= g->nplayers || seat >= t->nseats)
        return;
    if (g->phase == PD_PHASE_PASS || g->phase == PD_PHASE_WINDOW || g->phase == PD_PHASE_LOSS) {
        step_event(g, &e);
        ask(s, t, &e, seat, now, emit, arg);
    }
    for (unsigned i = 0; i < g->noffers; i++)
        if (seat == g->offers[i].to || seat == g->current) {
            pd_offer_event(&e, g, PD_EV_OFFER_MADE, &g->offers[i], seat);
            offer_prompt(s, t, &e, now, emit, arg);
        }
}
