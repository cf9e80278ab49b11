/*
 * render.c - Illegal's events as messages, in the table's language.
 *
 * Every text comes from the catalog; this file fills in names, cards and
 * durations, and picks who may see each message: an event with a seat as
 * audience becomes a message to that seat alone, never to the table.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "../catalog.h"
#include "../text.h"
#include "module.h"

#define TEXT_MAX 2048

/* What every renderer reads: the module's state and the table's seats. */
struct view {
    const struct il_state *s;
    const struct rules_table *t;
};

/* Single code points, so every platform's reaction API takes them as they are. */
static const char *const emoji[IL_RESOURCES] = {
    "\xF0\x9F\x9A\x97", /* U+1F697 automobile: luxury cars */
    "\xF0\x9F\x94\xAB", /* U+1F52B pistol: guns */
    "\xF0\x9F\x92\x8E", /* U+1F48E gem: jewelry */
    "\xF0\x9F\x8D\xBE", /* U+1F37E bottle: alcohol */
    "\xF0\x9F\x93\xBC", /* U+1F4FC videocassette: pornography */
    "\xF0\x9F\x93\x81", /* U+1F4C1 folder: secret files */
    "\xF0\x9F\x92\x8B", /* U+1F48B kiss mark: call girls */
    "\xF0\x9F\x92\x8A", /* U+1F48A pill: powder */
};

const char *il_emoji(unsigned resource)
{
    return resource < IL_RESOURCES ? emoji[resource] : NULL;
}

int il_emoji_resource(const char *e)
{
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (e && strncmp(e, emoji[r], strlen(emoji[r])) == 0 &&
            (e[strlen(emoji[r])] == '\0' || strcmp(e + strlen(emoji[r]), "\xEF\xB8\x8F") == 0))
            return (int)r;
    return -1;
}

static const char *card_name(const char *lang, unsigned type)
{
    char key[64];
    snprintf(key, sizeof key, IL_KEYS "card.%s", il_card_id(type));
    const char *t = catalog_text(lang, key);
    return t ? t : il_card_id(type);
}

void il_offer_line(const struct il_offer *o, const char *lang, const char *const *names, char *out,
                   size_t len)
{
    char give[256], ask[256], id[16];
    snprintf(id, sizeof id, "%u", o->id);
    il_render_cards(give, sizeof give, lang, &o->give);
    il_render_cards(ask, sizeof ask, lang, &o->ask);
    const char *vars[] = {"id",  id,  "from", names[o->from], "to", names[o->to], "give", give,
                          "ask", ask, NULL};
    text_fill(out, len, lang, IL_KEYS "msg.offer-line", vars);
}

void il_render_cards(char *out, size_t len, const char *lang, const struct il_bundle *b)
{
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    for (unsigned t = 0; t < IL_CARD_TYPES; t++) {
        if (!b->n[t])
            continue;
        if (IL_CARD_KIND(t) == IL_KIND_RESOURCE)
            text_list_add(&l, "%u %s", b->n[t], card_name(lang, t));
        else
            text_list_add(&l, "%s", card_name(lang, t));
    }
    if (!l.n)
        snprintf(out, len, "%s", catalog_text(lang, IL_KEYS "msg.nothing"));
}

/* The pieces every message of a game shares. */
struct msg {
    struct rules_msg out;
    struct msg_key key;
    struct json_object *data;
    char text[TEXT_MAX];
};

/* The language of a message to audience: a seat's own, else the table's. */
static const char *lang_for(const struct view *g, int audience)
{
    if (audience >= 0 && (unsigned)audience < g->t->nseats && g->t->langs && g->t->langs[audience])
        return g->t->langs[audience];
    return g->t->lang;
}

static void msg_init(struct msg *m, const struct view *g, enum outbound_kind kind, int audience)
{
    memset(m, 0, sizeof *m);
    m->out.kind = kind;
    m->out.audience = audience == IL_PUBLIC ? MSG_TABLE : audience;
    m->data = json_object_new_object();
    json_object_object_add(m->data, "game", json_object_new_string(g->t->game));
    json_object_object_add(m->data, "table", json_object_new_string(g->t->channel));
    json_object_object_add(m->data, "lang", json_object_new_string(lang_for(g, audience)));
    /* a page draws each message with its module's drawing */
    json_object_object_add(m->data, "module", json_object_new_string(il_module.id));
}

/* Names the message: topic, number (if the topic has one), seat's user (if kept per user). */
static void msg_key(struct msg *m, const struct view *g, const char *topic, unsigned number,
                    int seat)
{
    snprintf(m->key.game, sizeof m->key.game, "%s", g->t->game);
    snprintf(m->key.topic, sizeof m->key.topic, "%s", topic);
    m->key.number = number;
    if (seat >= 0)
        snprintf(m->key.user, sizeof m->key.user, "%s", g->t->users[seat]);
}

static void msg_emit(struct msg *m, rules_emit_fn emit, void *arg)
{
    m->out.text = m->text;
    m->out.data = m->data;
    if (m->key.topic[0])
        m->out.key = &m->key;
    emit(arg, &m->out);
    json_object_put(m->data);
}

static struct json_object *player_json(const struct view *g, unsigned seat)
{
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "id", json_object_new_string(g->t->users[seat]));
    json_object_object_add(p, "name", json_object_new_string(g->t->names[seat]));
    return p;
}

static struct json_object *bundle_json(const struct il_bundle *b)
{
    struct json_object *o = json_object_new_object();
    for (unsigned t = 0; t < IL_CARD_TYPES; t++)
        if (b->n[t])
            json_object_object_add(o, il_card_id(t), json_object_new_int(b->n[t]));
    return o;
}

static void set_data(struct msg *m, const char *k, struct json_object *v)
{
    json_object_object_add(m->data, k, v);
}

/* A choice of a message (bot/platform.h): what choosing it sends (command,
 * or NULL when a reaction chooses it), its label as a catalog key or as
 * text, a tag written after the label ("#3"), and its tone. */
static struct json_object *choice(const char *command, const char *label_key, const char *label,
                                  const char *tag, const char *tone)
{
    struct json_object *c = json_object_new_object();
    if (command)
        json_object_object_add(c, "command", json_object_new_string(command));
    if (label_key)
        json_object_object_add(c, "label_key", json_object_new_string(label_key));
    if (label)
        json_object_object_add(c, "label", json_object_new_string(label));
    if (tag)
        json_object_object_add(c, "tag", json_object_new_string(tag));
    if (tone)
        json_object_object_add(c, "tone", json_object_new_string(tone));
    return c;
}

/* Adds to list the key of a message whose controls end now (see "closes"
 * in bot/platform.h). */
static void close_key(struct json_object *list, const struct view *g, const char *topic,
                      unsigned number, int seat)
{
    struct msg_key k = {.number = number};
    char text[MSG_KEY_MAX];
    snprintf(k.game, sizeof k.game, "%s", g->t->game);
    snprintf(k.topic, sizeof k.topic, "%s", topic);
    if (seat >= 0)
        snprintf(k.user, sizeof k.user, "%s", g->t->users[seat]);
    if (msg_key_format(&k, text, sizeof text) == 0)
        json_object_array_add(list, json_object_new_string(text));
}

/* The message's text is the catalog's key filled with vars: its data's "say". */
static void set_say(struct msg *m, const char *key, const char *const *vars)
{
    struct json_object *list = json_object_new_array();
    json_object_array_add(list, msg_say(key, vars));
    set_data(m, "say", list);
}

/* The "mentions" of a message that asks seat to act, or of every active
 * seat when seat is IL_PUBLIC. */
static struct json_object *mentions_of(const struct view *g, int seat)
{
    struct json_object *list = json_object_new_array();
    for (unsigned i = 0; i < g->t->nseats; i++)
        if ((seat == IL_PUBLIC ? g->s->game.players[i].active : (int)i == seat))
            json_object_array_add(list, json_object_new_string(g->t->users[i]));
    return list;
}

/* Names of the active seats, comma-separated. */
static void seat_list(const struct view *g, char *out, size_t len, bool active_only)
{
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    for (unsigned i = 0; i < g->t->nseats; i++)
        if (!active_only || g->s->game.players[i].active)
            text_list_add(&l, "%s", g->t->names[i]);
}

/* An extra data field of a notice; a list of them ends with a NULL name. */
struct field {
    const char *name;
    struct json_object *value; /* owned by the message once passed */
};

/* Whether the notice keyed key opens a timed step (a session, a case's
 * debate): its data says "opens", for adapters that count down to it. */
static bool opens_step(const char *key)
{
    static const char *const openers[] = {IL_KEYS "msg.session-opened",
                                          IL_KEYS "msg.session-opened-casual",
                                          IL_KEYS "msg.case-opened"};
    for (size_t i = 0; i < sizeof openers / sizeof openers[0]; i++)
        if (strcmp(key, openers[i]) == 0)
            return true;
    return false;
}

/* A notice with extra data fields (fields may be NULL). */
static void notice_with(const struct view *g, const struct il_event *e, const char *key,
                        const char *const *vars, const struct field *fields, rules_emit_fn emit,
                        void *arg)
{
    struct msg m;
    msg_init(&m, g, OUT_NOTICE, e->audience);
    for (; fields && fields->name; fields++)
        set_data(&m, fields->name, fields->value);
    text_fill(m.text, sizeof m.text, lang_for(g, e->audience), key, vars);
    set_say(&m, key, vars);
    set_data(&m, "event", json_object_new_string(msg_event_name(key)));
    if (opens_step(key))
        set_data(&m, "opens", json_object_new_boolean(true));
    set_data(&m, "phase", json_object_new_string(il_phase_id(g->s->game.phase)));
    set_data(&m, "paused", json_object_new_boolean(g->s->game.paused));
    if (il_game_deadline(&g->s->game))
        set_data(&m, "deadline", json_object_new_int64(il_game_deadline(&g->s->game)));
    msg_emit(&m, emit, arg);
}

static void notice(const struct view *g, const struct il_event *e, const char *key,
                   const char *const *vars, rules_emit_fn emit, void *arg)
{
    notice_with(g, e, key, vars, NULL, emit, arg);
}

static void offer_message(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                          void *arg)
{
    static const char *const keys[][2] = {
        /* [event][0]: to the offerer, [1]: to the receiver */
        {IL_KEYS "msg.offer-sent", IL_KEYS "msg.offer-received"},
        {IL_KEYS "msg.offer-accepted-offerer", IL_KEYS "msg.offer-accepted-receiver"},
        {IL_KEYS "msg.offer-declined", IL_KEYS "msg.offer-declined"},
        {IL_KEYS "msg.offer-cancelled", IL_KEYS "msg.offer-cancelled"},
        {IL_KEYS "msg.offer-expired", IL_KEYS "msg.offer-expired"},
    };
    unsigned which = (unsigned)(e->type - IL_EV_OFFER_MADE);
    bool receiver = e->audience == e->target;
    char id[16], give[512], ask[512];
    struct msg m;
    snprintf(id, sizeof id, "%u", e->offer_id);
    il_render_cards(give, sizeof give, lang_for(g, e->audience), &e->cards);
    il_render_cards(ask, sizeof ask, lang_for(g, e->audience), &e->cards2);
    const char *vars[] = {
        "id",  id,  "from", g->t->names[e->player], "to", g->t->names[e->target], "give", give,
        "ask", ask, NULL};
    msg_init(&m, g, e->type == IL_EV_OFFER_MADE ? OUT_PROMPT : OUT_NOTICE, e->audience);
    text_fill(m.text, sizeof m.text, lang_for(g, e->audience), keys[which][receiver], vars);
    set_say(&m, keys[which][receiver], vars);
    set_data(&m, "offer", json_object_new_int64(e->offer_id));
    set_data(&m, "from", player_json(g, (unsigned)e->player));
    set_data(&m, "to", player_json(g, (unsigned)e->target));
    set_data(&m, "give", bundle_json(&e->cards));
    set_data(&m, "ask", bundle_json(&e->cards2));
    if (e->type == IL_EV_OFFER_MADE) {
        struct json_object *choices = json_object_new_array();
        char cmd[32], tag[16];
        snprintf(tag, sizeof tag, "#%u", e->offer_id);
        if (receiver) {
            snprintf(cmd, sizeof cmd, "accept %u", e->offer_id);
            json_object_array_add(choices, choice(cmd, "ui.accept", NULL, tag, "yes"));
            snprintf(cmd, sizeof cmd, "decline %u", e->offer_id);
            json_object_array_add(choices, choice(cmd, "ui.decline", NULL, tag, "no"));
        } else {
            snprintf(cmd, sizeof cmd, "cancel %u", e->offer_id);
            json_object_array_add(choices, choice(cmd, "ui.cancel", NULL, tag, NULL));
        }
        set_data(&m, "choices", choices);
        if (receiver)
            set_data(&m, "mentions", mentions_of(g, e->audience));
        msg_key(&m, g, "offer", e->offer_id, e->audience);
    } else {
        set_data(&m, "event", json_object_new_string(msg_event_name(keys[which][receiver])));
        /* the offer is over: its buttons go from this player's message of it */
        struct json_object *closes = json_object_new_array();
        close_key(closes, g, "offer", e->offer_id, e->audience);
        set_data(&m, "closes", closes);
    }
    msg_emit(&m, emit, arg);
}

/* A trade asks for at most this many of one resource: the menus stay short,
 * and a larger ask can be typed. */
#define TRADE_ASK_MAX 3

/* One of a compose's parts (bot/platform.h): name, its label, and its
 * "players" or "items" (owned by the part once passed). */
static struct json_object *compose_part(const char *name, const char *label_key, const char *what,
                                        struct json_object *list)
{
    struct json_object *part = json_object_new_object();
    json_object_object_add(part, "name", json_object_new_string(name));
    json_object_object_add(part, "label_key", json_object_new_string(label_key));
    json_object_object_add(part, what, list);
    return part;
}

/* A resource as an item of a compose, pickable up to max times. */
static void add_item(struct json_object *items, unsigned resource, unsigned max)
{
    char key[64];
    snprintf(key, sizeof key, IL_KEYS "card.%s", il_resource_id(resource));
    struct json_object *item = json_object_new_object();
    json_object_object_add(item, "id", json_object_new_string(il_resource_id(resource)));
    json_object_object_add(item, "label_key", json_object_new_string(key));
    json_object_object_add(item, "max", json_object_new_int((int)max));
    json_object_array_add(items, item);
}

/* The offer a hand's owner may put together (a "compose"): to whom (players,
 * a reference taken), what they give (each resource held, up to what is
 * held), what they ask for (each resource in play). */
static struct json_object *offer_compose(const struct view *g, const struct il_bundle *held,
                                         struct json_object *players)
{
    struct json_object *give = json_object_new_array(), *ask = json_object_new_array();
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        if (held->n[IL_CARD(IL_KIND_RESOURCE, r)])
            add_item(give, r, held->n[IL_CARD(IL_KIND_RESOURCE, r)]);
        if (g->s->game.in_play & (1u << r))
            add_item(ask, r, TRADE_ASK_MAX);
    }
    struct json_object *parts = json_object_new_array();
    json_object_array_add(parts,
                          compose_part("to", "ui.offer-to", "players", json_object_get(players)));
    json_object_array_add(parts, compose_part("give", "ui.you-give", "items", give));
    json_object_array_add(parts, compose_part("ask", "ui.you-ask", "items", ask));
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "command",
                           json_object_new_string("offer {to} {give|nothing} for {ask|nothing}"));
    json_object_object_add(c, "label_key", json_object_new_string("ui.send-offer"));
    json_object_object_add(c, "parts", parts);
    return c;
}

static void render_hand(const struct view *g, unsigned seat, bool fresh, rules_emit_fn emit,
                        void *arg)
{
    const struct il_player *p = &g->s->game.players[seat];
    struct il_bundle resources = {{0}}, suspects = {{0}};
    char hand[512], sus[512];
    struct msg m;
    for (unsigned t = 0; t < IL_CARD_TYPES; t++) {
        if (IL_CARD_KIND(t) == IL_KIND_RESOURCE)
            resources.n[t] = p->hand.n[t];
        else if (IL_CARD_KIND(t) >= IL_KIND_DEALER_SUSPECT)
            suspects.n[t] = p->hand.n[t];
    }
    il_render_cards(hand, sizeof hand, lang_for(g, (int)seat), &resources);
    il_render_cards(sus, sizeof sus, lang_for(g, (int)seat), &suspects);
    const char *vars[] = {
        "dealer",   card_name(lang_for(g, (int)seat), IL_CARD(IL_KIND_DEALER, p->dealer)),
        "buyer",    card_name(lang_for(g, (int)seat), IL_CARD(IL_KIND_BUYER, p->buyer)),
        "buys",     card_name(lang_for(g, (int)seat), p->buyer),
        "hand",     hand,
        "suspects", sus,
        NULL};
    msg_init(&m, g, OUT_PRIVATE_VIEW, (int)seat);
    set_data(&m, "title", json_object_new_string(IL_KEYS "ui.title-hand"));
    text_fill(m.text, sizeof m.text, lang_for(g, (int)seat),
              il_bundle_total(&suspects) ? IL_KEYS "msg.hand-suspects" : IL_KEYS "msg.hand", vars);
    msg_key(&m, g, "hand", 0, (int)seat);
    m.out.replace = !fresh;
    set_data(&m, "dealer", json_object_new_string(il_resource_id(p->dealer)));
    set_data(&m, "buyer", json_object_new_string(il_resource_id(p->buyer)));
    set_data(&m, "hand", bundle_json(&resources));
    struct json_object *list = json_object_new_array();
    for (unsigned t = 0; t < IL_CARD_TYPES; t++)
        for (unsigned k = 0; k < suspects.n[t]; k++)
            json_object_array_add(list, json_object_new_string(il_card_id(t)));
    set_data(&m, "suspects", list);
    struct json_object *players = json_object_new_array();
    for (unsigned i = 0; i < g->t->nseats; i++)
        if (i != seat && g->s->game.players[i].active)
            json_object_array_add(players, player_json(g, i));
    set_data(&m, "players", players);
    set_data(&m, "compose", offer_compose(g, &resources, players));
    /* what a trade may ask for: every resource in play, held or not */
    struct json_object *in_play = json_object_new_array();
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (g->s->game.in_play & (1u << r))
            json_object_array_add(in_play, json_object_new_string(il_resource_id(r)));
    set_data(&m, "resources", in_play);
    msg_emit(&m, emit, arg);
}

void il_render_note(struct il_state *s, const struct il_events *ev)
{
    struct il_drop *d = &s->drop;
    for (unsigned i = 0; i < ev->n; i++) {
        const struct il_event *e = &ev->v[i];
        switch (e->type) {
        case IL_EV_DROP_STARTED:
            memset(d, 0, sizeof *d);
            d->number = e->number;
            break;
        case IL_EV_DROP_REVEALED:
            if (e->number < IL_RESOURCES) {
                d->cards[e->number] = e->resource;
                d->taker[e->number] = IL_DROP_ON_TABLE;
                d->count = (uint8_t)(e->number + 1);
            }
            break;
        case IL_EV_GRAB_OPENED:
            d->open = true;
            break;
        case IL_EV_GRABBED:
        case IL_EV_LEFTOVER:
            for (unsigned c = 0; c < d->count; c++)
                if (d->cards[c] == e->resource && d->taker[c] == IL_DROP_ON_TABLE) {
                    d->taker[c] = e->player;
                    if (e->type == IL_EV_LEFTOVER)
                        d->leftover |= (uint8_t)(1u << c);
                    break;
                }
            break;
        case IL_EV_DROP_DONE:
            d->open = false;
            d->done = true;
            break;
        default:
            break;
        }
    }
}

/* The drop message: every card shown and who took it, edited as the drop
 * goes on, and kept whole once it is over. */
static void drop_message(const struct view *g, rules_emit_fn emit, void *arg)
{
    const struct il_drop *d = &g->s->drop;
    char cards[1024], card[256], number[8];
    struct text_list list;
    struct msg m;
    text_list_init(&list, cards, sizeof cards, ", ");
    struct json_object *shown = json_object_new_array();
    struct json_object *taken = json_object_new_array();
    struct json_object *takers = json_object_new_array();
    struct json_object *choices = json_object_new_array();
    for (unsigned i = 0; i < d->count; i++) {
        unsigned r = d->cards[i];
        int seat = d->taker[i];
        const char *key = seat == IL_DROP_ON_TABLE  ? IL_KEYS "msg.drop-card"
                          : seat == IL_DROP_UNKNOWN ? IL_KEYS "msg.drop-card-gone"
                          : d->leftover & (1u << i) ? IL_KEYS "msg.drop-card-leftover"
                                                    : IL_KEYS "msg.drop-card-taken";
        const char *vars[] = {"emoji",  emoji[r],
                              "card",   card_name(g->t->lang, r),
                              "player", seat >= 0 ? g->t->names[seat] : "",
                              NULL};
        text_fill(card, sizeof card, g->t->lang, key, vars);
        text_list_add(&list, "%s", card);
        json_object_array_add(shown, json_object_new_string(il_resource_id(r)));
        json_object_array_add(taken, json_object_new_boolean(seat != IL_DROP_ON_TABLE));
        json_object_array_add(takers, seat >= 0 ? player_json(g, (unsigned)seat) : NULL);
        struct json_object *c = choice(NULL, NULL, card_name(g->t->lang, r), NULL, NULL);
        json_object_object_add(c, "emoji", json_object_new_string(emoji[r]));
        json_object_object_add(c, "card", json_object_new_string(il_resource_id(r)));
        json_object_array_add(choices, c);
    }
    snprintf(number, sizeof number, "%u", d->number);
    const char *vars[] = {"number", number, "cards", cards, NULL};
    const char *key = d->done   ? IL_KEYS "msg.drop-closed"
                      : d->open ? IL_KEYS "msg.drop-open"
                                : IL_KEYS "msg.drop-reveal";
    msg_init(&m, g, OUT_TABLE_VIEW, IL_PUBLIC);
    set_data(&m, "title", json_object_new_string(IL_KEYS "ui.title-drop"));
    text_fill(m.text, sizeof m.text, g->t->lang, key, vars);
    set_say(&m, key, vars);
    msg_key(&m, g, "drop", d->number, -1);
    m.out.replace = true;
    set_data(&m, "drop", json_object_new_int(d->number));
    set_data(&m, "shown", shown);
    set_data(&m, "taken", taken);
    set_data(&m, "takers", takers);
    set_data(&m, "open", json_object_new_boolean(d->open));
    set_data(&m, "done", json_object_new_boolean(d->done));
    if (d->open) { /* the first reaction takes each card, one card a player */
        set_data(&m, "choices", choices);
        set_data(&m, "pick", json_object_new_string("first"));
        set_data(&m, "deadline", json_object_new_int64(il_game_deadline(&g->s->game)));
    } else {
        json_object_put(choices);
    }
    msg_emit(&m, emit, arg);
}

/* Writes a case's cards as text ("A + B"), and (list not NULL) as a new
 * array of card ids the caller owns. */
static void case_cards(const struct view *g, const struct il_event *e, char *out, size_t len,
                       struct json_object **list)
{
    struct text_list l;
    if (list)
        *list = json_object_new_array();
    text_list_init(&l, out, len, " + ");
    for (unsigned t = 0; t < IL_CARD_TYPES; t++)
        for (unsigned k = 0; k < e->cards.n[t]; k++) {
            text_list_add(&l, "%s", card_name(g->t->lang, t));
            if (list)
                json_object_array_add(*list, json_object_new_string(il_card_id(t)));
        }
}

/* The choices of case number's ballot: a vote for each active seat, which
 * every other seat may cast, and abstaining. */
static struct json_object *vote_choices(const struct view *g, unsigned number)
{
    struct json_object *choices = json_object_new_array();
    bool parallel = g->s->game.config.tribunal & IL_TRIBUNAL_PARALLEL;
    for (unsigned i = 0; i < g->t->nseats; i++) {
        if (!g->s->game.players[i].active)
            continue;
        char cmd[MSG_USER_MAX + 8];
        /* with every case open at once, a choice names its case */
        if (parallel)
            snprintf(cmd, sizeof cmd, "vote %u %s", number + 1, g->t->users[i]);
        else
            snprintf(cmd, sizeof cmd, "vote %s", g->t->users[i]);
        const char *name = g->t->names[i][0] ? g->t->names[i] : g->t->users[i];
        struct json_object *c = choice(cmd, NULL, name, NULL, "main");
        struct json_object *by = json_object_new_array();
        for (unsigned j = 0; j < g->t->nseats; j++)
            if (j != i && g->s->game.players[j].active)
                json_object_array_add(by, json_object_new_string(g->t->users[j]));
        json_object_object_add(c, "player", json_object_new_string(g->t->users[i]));
        json_object_object_add(c, "by", by);
        json_object_array_add(choices, c);
    }
    char abstain[16];
    snprintf(abstain, sizeof abstain, parallel ? "abstain %u" : "abstain", number + 1);
    json_object_array_add(choices, choice(abstain, "ui.abstain", NULL, NULL, NULL));
    return choices;
}

static void vote_message(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                         void *arg)
{
    const struct il_case *c = &g->s->game.cases[e->number];
    char number[8], cards[256];
    struct msg m;
    struct il_bundle b = {{0}};
    for (unsigned i = 0; i < c->ncards; i++)
        b.n[c->cards[i]]++;
    struct il_event ce = *e;
    ce.cards = b;
    struct json_object *list;
    case_cards(g, &ce, cards, sizeof cards, &list);
    snprintf(number, sizeof number, "%u", e->number + 1);
    msg_init(&m, g, OUT_BALLOT, IL_PUBLIC);
    set_data(&m, "title", json_object_new_string(IL_KEYS "ui.title-tribunal"));
    msg_key(&m, g, "vote", e->number + 1u, -1);
    set_data(&m, "case", json_object_new_int(e->number + 1));
    set_data(&m, "cards", list);
    set_data(&m, "deadline", json_object_new_int64(e->deadline));
    struct json_object *candidates = json_object_new_array();
    for (unsigned i = 0; i < g->t->nseats; i++)
        if (g->s->game.players[i].active)
            json_object_array_add(candidates, player_json(g, i));
    set_data(&m, "candidates", candidates);
    set_data(&m, "choices", vote_choices(g, e->number));
    set_data(&m, "poll", json_object_new_boolean(g->s->poll_ballots));
    set_data(&m, "mentions", mentions_of(g, IL_PUBLIC));
    char ballot[512];
    const char *vars[] = {"number", number, "cards", cards, NULL};
    text_fill(ballot, sizeof ballot, g->t->lang, IL_KEYS "msg.ballot", vars);
    set_data(&m, "ballot", json_object_new_string(ballot));
    struct json_object *own = NULL; /* the ballot of each voter who reads another language */
    for (unsigned i = 0; i < g->t->nseats; i++) {
        const char *lang = lang_for(g, (int)i);
        if (!g->s->game.players[i].active || strcmp(lang, g->t->lang) == 0)
            continue;
        if (!own)
            own = json_object_new_object();
        text_fill(ballot, sizeof ballot, lang, IL_KEYS "msg.ballot", vars);
        json_object_object_add(own, g->t->users[i], json_object_new_string(ballot));
    }
    if (own)
        set_data(&m, "ballot_for", own);
    if (g->s->poll_ballots) { /* a native poll says that every member sees each answer */
        text_fill(ballot, sizeof ballot, g->t->lang, IL_KEYS "msg.vote-poll", vars);
        set_data(&m, "poll_question", json_object_new_string(ballot));
    }
    text_fill(m.text, sizeof m.text, g->t->lang, IL_KEYS "msg.vote-opened", vars);
    set_say(&m, IL_KEYS "msg.vote-opened", vars);
    msg_emit(&m, emit, arg);
}

static void tally_text(const struct view *g, const struct il_event *e, char *out, size_t len)
{
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    for (unsigned i = 0; i < g->t->nseats; i++)
        if (e->tally[i])
            text_list_add(&l, "%s %u", g->t->names[i], e->tally[i]);
    if (!l.n)
        snprintf(out, len, "%s", catalog_text(g->t->lang, IL_KEYS "msg.no-votes"));
}

/* Writes the active seats of e in rank order (ties keep seat order) into
 * order; returns how many there are. */
static unsigned rank_order(const struct view *g, const struct il_event *e, unsigned *order)
{
    unsigned n = 0;
    for (unsigned rank = 1; rank <= IL_MAX_PLAYERS; rank++)
        for (unsigned i = 0; i < g->t->nseats; i++)
            if (g->s->game.players[i].active && e->rank[i] == rank)
                order[n++] = i;
    return n;
}

/* Writes how seat's score was made ("Jewelry 6, wrong suspicions +1") into
 * out, and the same as JSON into *json. */
static void score_parts(const struct view *g, unsigned seat, char *out, size_t len,
                        struct json_object **json)
{
    const char *lang = g->t->lang;
    const struct il_player *p = &g->s->game.players[seat];
    struct il_score_parts parts = il_score_parts(&g->s->game, seat);
    char count[16], penalty[16], piece[128];
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    snprintf(count, sizeof count, "%u", parts.resources);
    const char *resources[] = {"resource", card_name(lang, IL_CARD(IL_KIND_RESOURCE, p->buyer)),
                               "count", count, NULL};
    text_fill(piece, sizeof piece, lang, IL_KEYS "msg.score-resources", resources);
    text_list_add(&l, "%s", piece);
    if (parts.wrong) {
        snprintf(count, sizeof count, "%u", parts.wrong);
        const char *vars[] = {"count", count, NULL};
        text_fill(piece, sizeof piece, lang, IL_KEYS "msg.score-wrong", vars);
        text_list_add(&l, "%s", piece);
    }
    if (parts.right) {
        snprintf(penalty, sizeof penalty, "%u", 5 * parts.right);
        const char *vars[] = {"penalty", penalty, NULL};
        text_fill(piece, sizeof piece, lang, IL_KEYS "msg.score-right", vars);
        text_list_add(&l, "%s", piece);
    }
    *json = json_object_new_object();
    json_object_object_add(*json, "resources", json_object_new_int((int)parts.resources));
    json_object_object_add(*json, "wrong", json_object_new_int((int)parts.wrong));
    json_object_object_add(*json, "right", json_object_new_int((int)parts.right));
}

/* What the result closes: every hand's trade builder, and the offers and
 * votes a game ended early left open. */
static struct json_object *result_closes(const struct view *g)
{
    const struct il_game *game = &g->s->game;
    struct json_object *closes = json_object_new_array();
    for (unsigned i = 0; i < g->t->nseats; i++)
        close_key(closes, g, "hand", 0, (int)i);
    for (unsigned i = 0; i < game->noffers; i++) {
        close_key(closes, g, "offer", game->offers[i].id, game->offers[i].from);
        close_key(closes, g, "offer", game->offers[i].id, game->offers[i].to);
    }
    for (unsigned k = 0; k < game->ncases; k++)
        if (il_case_open(game, k))
            close_key(closes, g, "vote", k + 1, -1);
    return closes;
}

/* What the end of a game tells, gathered seat by seat in rank order. */
struct standings {
    char winners[1024], ranking[TEXT_MAX - 256], scores[1024];
    struct text_list winner_names, ranking_lines, score_list;
    struct json_object *score_map, *winner_list, *reveal;
};

static void standings_init(struct standings *st)
{
    text_list_init(&st->winner_names, st->winners, sizeof st->winners, ", ");
    text_list_init(&st->ranking_lines, st->ranking, sizeof st->ranking, "\n");
    text_list_init(&st->score_list, st->scores, sizeof st->scores, ", ");
    st->score_map = json_object_new_object();
    st->winner_list = json_object_new_array();
    st->reveal = json_object_new_array();
}

/* A seat's revealed roles and what it held besides them, as the result's JSON. */
static struct json_object *reveal_json(const struct view *g, const struct il_event *e,
                                       unsigned seat, const struct il_bundle *held,
                                       struct json_object *parts)
{
    const struct il_player *p = &g->s->game.players[seat];
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "player", player_json(g, seat));
    json_object_object_add(r, "dealer", json_object_new_string(il_resource_id(p->dealer)));
    json_object_object_add(r, "buyer", json_object_new_string(il_resource_id(p->buyer)));
    json_object_object_add(r, "hand", bundle_json(held));
    json_object_object_add(r, "score", json_object_new_int(e->scores[seat]));
    json_object_object_add(r, "rank", json_object_new_int(e->rank[seat]));
    json_object_object_add(r, "parts", parts);
    return r;
}

/* Adds seat to the standings: its ranking line, its score, its reveal, and its name if it won. */
static void standings_add(struct standings *st, const struct view *g, const struct il_event *e,
                          unsigned seat)
{
    const char *lang = g->t->lang;
    const struct il_player *p = &g->s->game.players[seat];
    struct il_bundle held = p->hand;
    char rank[8], score[16], cards[512], parts[256], line[1024];
    struct json_object *parts_json;
    held.n[IL_CARD(IL_KIND_DEALER, p->dealer)] = 0;
    held.n[IL_CARD(IL_KIND_BUYER, p->buyer)] = 0;
    il_render_cards(cards, sizeof cards, lang, &held);
    score_parts(g, seat, parts, sizeof parts, &parts_json);
    snprintf(rank, sizeof rank, "%u", e->rank[seat]);
    text_number(score, sizeof score, lang, e->scores[seat]);
    const char *vars[] = {"rank",   rank,
                          "player", g->t->names[seat],
                          "score",  score,
                          "parts",  parts,
                          "dealer", card_name(lang, IL_CARD(IL_KIND_DEALER, p->dealer)),
                          "buyer",  card_name(lang, IL_CARD(IL_KIND_BUYER, p->buyer)),
                          "cards",  cards,
                          NULL};
    text_fill(line, sizeof line, lang, IL_KEYS "msg.rank-line", vars);
    text_list_add(&st->ranking_lines, "%s", line);
    text_list_add(&st->score_list, "%s. %s %s", rank, g->t->names[seat], score);
    json_object_array_add(st->reveal, reveal_json(g, e, seat, &held, parts_json));
    json_object_object_add(st->score_map, g->t->users[seat], json_object_new_int(e->scores[seat]));
    if (e->winners & (1u << seat)) {
        text_list_add(&st->winner_names, "%s", g->t->names[seat]);
        json_object_array_add(st->winner_list, json_object_new_string(g->t->users[seat]));
    }
}

/* The result: winners and ranking in words, every seat revealed, and what it closes. */
static void result_message(const struct view *g, const struct standings *st, rules_emit_fn emit,
                           void *arg)
{
    const char *lang = g->t->lang;
    struct msg m;
    const char *vars[] = {"winners",
                          st->winner_names.n ? st->winners : catalog_text(lang, "msg.nobody"),
                          "ranking", st->ranking, NULL};
    bool aborted = g->s->game.aborted; /* ended early: the hands as they stood, no winner */
    msg_init(&m, g, OUT_RESULT, IL_PUBLIC);
    text_fill(m.text, sizeof m.text, lang,
              aborted ? IL_KEYS "msg.game-aborted" : IL_KEYS "msg.game-over", vars);
    msg_key(&m, g, "result", 0, -1);
    set_data(&m, "reveal", st->reveal);
    set_data(&m, "scores", json_object_get(st->score_map));
    set_data(&m, "winners", json_object_get(st->winner_list));
    if (aborted)
        set_data(&m, "aborted", json_object_new_boolean(true));
    set_data(&m, "closes", result_closes(g));
    msg_emit(&m, emit, arg);
}

/* The recap, now that nothing is secret any more. */
static void recap_messages(const struct view *g, rules_emit_fn emit, void *arg)
{
    static const struct {
        const char *event;
        void (*write)(const struct il_game *, const char *, const char *const *, char *, size_t);
    } recap[] = {{"recap-trades", il_recap_trades},
                 {"recap-votes", il_recap_votes},
                 {"recap-awards", il_recap_awards}};
    struct msg m;
    for (unsigned i = 0; i < sizeof recap / sizeof *recap; i++) {
        msg_init(&m, g, OUT_NOTICE, IL_PUBLIC);
        recap[i].write(&g->s->game, g->t->lang, g->t->names, m.text, sizeof m.text);
        set_data(&m, "event", json_object_new_string(recap[i].event));
        /* a message of its own, never joined to another: each part fills one */
        msg_key(&m, g, "recap", i + 1, -1);
        msg_emit(&m, emit, arg);
    }
}

static void game_over(const struct view *g, const struct il_event *e, rules_emit_fn emit, void *arg)
{
    struct standings st;
    unsigned order[IL_MAX_PLAYERS];
    unsigned count = rank_order(g, e, order);
    standings_init(&st);
    for (unsigned k = 0; k < count; k++)
        standings_add(&st, g, e, order[k]);
    result_message(g, &st, emit, arg);
    recap_messages(g, emit, arg);

    struct msg m;
    msg_init(&m, g, OUT_GAME_OVER, IL_PUBLIC);
    snprintf(m.text, sizeof m.text, "%s", st.scores);
    set_data(&m, "scores", st.score_map);
    set_data(&m, "winners", st.winner_list);
    if (g->s->game.aborted)
        set_data(&m, "aborted", json_object_new_boolean(true));
    msg_emit(&m, emit, arg);
}

/*
 * One renderer per event type, in the table below. Each turns one event into
 * the message (or the edit) its audience sees; an event nobody is told about
 * on its own has none.
 */
typedef void event_renderer(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                            void *arg);

/* The key for the variant in play: the casual variant words some notices its own way. */
static const char *variant_key(const struct view *g, const char *live, const char *casual)
{
    return il_variant_casual(g->s->config.variant) ? casual : live;
}

static void on_game_started(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                            void *arg)
{
    char players[1024], resources[1024], count[16];
    seat_list(g, players, sizeof players, false);
    struct text_list names;
    text_list_init(&names, resources, sizeof resources, ", ");
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (e->cards.n[r])
            text_list_add(&names, "%s", card_name(g->t->lang, r));
    snprintf(count, sizeof count, "%u", g->t->nseats);
    const char *vars[] = {"count", count, "players", players, "resources", resources, NULL};
    struct json_object *ids = json_object_new_array();
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (e->cards.n[r])
            json_object_array_add(ids, json_object_new_string(il_resource_id(r)));
    const struct field fields[] = {{"resources", ids}, {NULL, NULL}};
    notice_with(g, e, IL_KEYS "msg.game-started", vars, fields, emit, arg);
}

static void on_dealt(const struct view *g, const struct il_event *e, rules_emit_fn emit, void *arg)
{
    const char *lang = lang_for(g, e->audience);
    const struct il_player *p = &g->s->game.players[e->audience];
    const char *vars[] = {"dealer", card_name(lang, IL_CARD(IL_KIND_DEALER, p->dealer)),
                          "deals",  card_name(lang, p->dealer),
                          "buyer",  card_name(lang, IL_CARD(IL_KIND_BUYER, p->buyer)),
                          "buys",   card_name(lang, p->buyer),
                          NULL};
    notice(g, e, IL_KEYS "msg.dealt", vars, emit, arg);
    render_hand(g, (unsigned)e->audience, false, emit, arg);
}

static void on_session_opened(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                              void *arg)
{
    char number[16], duration[64];
    snprintf(number, sizeof number, "%u", e->number);
    /* the running game's timers: the host may have set them since the lobby */
    text_duration(duration, sizeof duration, lang_for(g, e->audience),
                  g->s->game.config.timer_ms[IL_TIMER_SESSION]);
    const char *vars[] = {"number", number, "duration", duration, NULL};
    notice(g, e, variant_key(g, IL_KEYS "msg.session-opened", IL_KEYS "msg.session-opened-casual"),
           vars, emit, arg);
}

/* A notice whose one value is a number: {name} in the text of key. */
static void notice_number(const struct view *g, const struct il_event *e, const char *key,
                          const char *name, unsigned n, rules_emit_fn emit, void *arg)
{
    char number[16];
    snprintf(number, sizeof number, "%u", n);
    const char *vars[] = {name, number, NULL};
    notice(g, e, key, vars, emit, arg);
}

static void on_session_closed(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                              void *arg)
{
    notice_number(g, e, IL_KEYS "msg.session-closed", "number", e->number, emit, arg);
}

static void on_hand(const struct view *g, const struct il_event *e, rules_emit_fn emit, void *arg)
{
    render_hand(g, (unsigned)e->audience, false, emit, arg);
}

static void on_drop_started(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                            void *arg)
{
    notice_number(g, e,
                  variant_key(g, IL_KEYS "msg.drop-started", IL_KEYS "msg.drop-started-casual"),
                  "number", e->number, emit, arg);
}

/* Reveals, grabs, leftovers and the end of a drop are edits of its one message. */
static void on_drop_changed(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                            void *arg)
{
    (void)e;
    if (g->s->drop.count)
        drop_message(g, emit, arg);
}

static void on_drew(const struct view *g, const struct il_event *e, rules_emit_fn emit, void *arg)
{
    char number[16];
    snprintf(number, sizeof number, "%u", g->s->game.drops);
    const char *vars[] = {"number", number, "card",
                          card_name(lang_for(g, e->audience), e->resource), NULL};
    notice(g, e, IL_KEYS "msg.drew", vars, emit, arg);
}

static void on_tribunal_time(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                             void *arg)
{
    static const char *const keys[][2] = {
        /* [scheduled?][has a time?] */
        {IL_KEYS "msg.tribunal-held", IL_KEYS "msg.tribunal-held-until"},
        {IL_KEYS "msg.tribunal-unscheduled", IL_KEYS "msg.tribunal-scheduled"},
    };
    char time[64];
    text_time(time, sizeof time, e->deadline);
    const char *vars[] = {"time", time, NULL};
    const struct field fields[] = {
        {e->deadline ? "at" : NULL, e->deadline ? json_object_new_int64(e->deadline) : NULL},
        {NULL, NULL}};
    notice_with(g, e, keys[e->type == IL_EV_TRIBUNAL_SCHEDULED][e->deadline != 0], vars, fields,
                emit, arg);
}

static void on_tribunal_opened(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                               void *arg)
{
    notice_number(g, e, IL_KEYS "msg.tribunal-opened", "count", e->number, emit, arg);
}

static void on_case_opened(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                           void *arg)
{
    char cards[1024], number[16], count[16], duration[64];
    struct json_object *list;
    case_cards(g, e, cards, sizeof cards, &list);
    snprintf(number, sizeof number, "%u", e->number + 1);
    snprintf(count, sizeof count, "%u", g->s->game.ncases);
    text_duration(duration, sizeof duration, lang_for(g, e->audience),
                  g->s->game.config.timer_ms[IL_TIMER_DEBATE]);
    const char *vars[] = {"number", number,     "count",  count, "cards",
                          cards,    "duration", duration, NULL};
    /* the case's cards as data too: a table can show them through the debate */
    const struct field fields[] = {
        {"case", json_object_new_int(e->number + 1)}, {"cards", list}, {NULL, NULL}};
    notice_with(g, e, IL_KEYS "msg.case-opened", vars, fields, emit, arg);
}

static void on_vote_recorded(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                             void *arg)
{
    char number[16];
    snprintf(number, sizeof number, "%u", e->number + 1);
    const char *vars[] = {"number", number, "player", e->target >= 0 ? g->t->names[e->target] : "",
                          NULL};
    const struct field fields[] = {{"case", json_object_new_int(e->number + 1)}, {NULL, NULL}};
    notice_with(g, e, e->target >= 0 ? IL_KEYS "msg.vote-recorded" : IL_KEYS "msg.abstained", vars,
                fields, emit, arg);
}

static void on_vote_withdrawn(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                              void *arg)
{
    char number[16];
    snprintf(number, sizeof number, "%u", e->number + 1);
    const char *vars[] = {"number", number, "player", g->t->names[e->target], NULL};
    notice(g, e, IL_KEYS "msg.vote-withdrawn", vars, emit, arg);
}

static void on_verdict(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                       void *arg)
{
    char cards[1024], tally[1024], number[16];
    case_cards(g, e, cards, sizeof cards, NULL);
    tally_text(g, e, tally, sizeof tally);
    snprintf(number, sizeof number, "%u", e->number + 1);
    const char *vars[] = {"number", number, "cards",  cards,
                          "tally",  tally,  "player", e->target >= 0 ? g->t->names[e->target] : "",
                          NULL};
    /* the case is judged: its vote's buttons go */
    struct json_object *closes = json_object_new_array();
    close_key(closes, g, "vote", e->number + 1u, -1);
    const struct field fields[] = {
        {"case", json_object_new_int(e->number + 1)}, {"closes", closes}, {NULL, NULL}};
    unsigned votes = 0;
    for (unsigned i = 0; i < IL_MAX_PLAYERS; i++)
        votes += e->tally[i];
    notice_with(g, e,
                e->target >= 0 ? IL_KEYS "msg.verdict-convicted"
                : votes        ? IL_KEYS "msg.verdict-discarded"
                               : IL_KEYS "msg.verdict-no-votes",
                vars, fields, emit, arg);
}

static void on_paused(const struct view *g, const struct il_event *e, rules_emit_fn emit, void *arg)
{
    notice(g, e, IL_KEYS "msg.paused", NULL, emit, arg);
}

static void on_clock_changed(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                             void *arg)
{
    char duration[64];
    text_duration(duration, sizeof duration, lang_for(g, e->audience), e->ms);
    const char *vars[] = {"duration", duration, NULL};
    notice(g, e, e->type == IL_EV_RESUMED ? IL_KEYS "msg.resumed" : IL_KEYS "msg.extended", vars,
           emit, arg);
}

static void on_player_removed(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                              void *arg)
{
    const char *vars[] = {"player", g->t->names[e->player], NULL};
    const struct field fields[] = {{"player", player_json(g, (unsigned)e->player)}, {NULL, NULL}};
    notice_with(g, e, "msg.player-removed", vars, fields, emit, arg);
}

static void on_timer_set(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                         void *arg)
{
    char duration[64];
    text_duration(duration, sizeof duration, lang_for(g, e->audience), e->ms);
    const char *vars[] = {"timer", il_timer_id(e->timer), "duration", duration, NULL};
    notice(g, e, IL_KEYS "msg.timer-set", vars, emit, arg);
}

/* REVEAL has none: the result at GAME_OVER lists every player's roles and cards. */
static event_renderer *const renderers[] = {
    [IL_EV_GAME_STARTED] = on_game_started,
    [IL_EV_DEALT] = on_dealt,
    [IL_EV_SESSION_OPENED] = on_session_opened,
    [IL_EV_SESSION_CLOSED] = on_session_closed,
    [IL_EV_OFFER_MADE] = offer_message,
    [IL_EV_OFFER_ACCEPTED] = offer_message,
    [IL_EV_OFFER_DECLINED] = offer_message,
    [IL_EV_OFFER_CANCELLED] = offer_message,
    [IL_EV_OFFER_EXPIRED] = offer_message,
    [IL_EV_HAND] = on_hand,
    [IL_EV_DROP_STARTED] = on_drop_started,
    [IL_EV_DROP_REVEALED] = on_drop_changed,
    [IL_EV_GRAB_OPENED] = on_drop_changed,
    [IL_EV_GRABBED] = on_drop_changed,
    [IL_EV_LEFTOVER] = on_drop_changed,
    [IL_EV_DREW] = on_drew,
    [IL_EV_DROP_DONE] = on_drop_changed,
    [IL_EV_TRIBUNAL_HELD] = on_tribunal_time,
    [IL_EV_TRIBUNAL_SCHEDULED] = on_tribunal_time,
    [IL_EV_TRIBUNAL_OPENED] = on_tribunal_opened,
    [IL_EV_CASE_OPENED] = on_case_opened,
    [IL_EV_VOTE_OPENED] = vote_message,
    [IL_EV_VOTE_RECORDED] = on_vote_recorded,
    [IL_EV_VOTE_WITHDRAWN] = on_vote_withdrawn,
    [IL_EV_VERDICT] = on_verdict,
    [IL_EV_GAME_OVER] = game_over,
    [IL_EV_PAUSED] = on_paused,
    [IL_EV_RESUMED] = on_clock_changed,
    [IL_EV_EXTENDED] = on_clock_changed,
    [IL_EV_PLAYER_REMOVED] = on_player_removed,
    [IL_EV_TIMER_SET] = on_timer_set,
};

static void render_event(const struct view *g, const struct il_event *e, rules_emit_fn emit,
                         void *arg)
{
    if ((size_t)e->type < sizeof renderers / sizeof renderers[0] && renderers[e->type])
        renderers[e->type](g, e, emit, arg);
}

/*
 * One commit's messages. Public notices in a row become one message, and the
 * drop message is sent once, after the last event that changed it: a step of
 * the game is one message at the table, however many rules events it took.
 */
struct batch {
    const struct view *g;
    rules_emit_fn emit;
    void *arg;
    bool drop_dirty;
    uint32_t votes_dirty; /* cases whose count of votes cast changed, a bit each */
    bool pending;         /* a public notice is being gathered */
    struct rules_msg out;
    struct json_object *data;   /* the notices' fields; the last one's win */
    struct json_object *events; /* every notice's "event", in order */
    struct json_object *say;    /* every notice's lines, in order */
    char text[TEXT_MAX];
    struct text_list lines; /* the notices' texts, one a line, in text */
};

static void batch_flush_notice(struct batch *b)
{
    if (!b->pending)
        return;
    b->pending = false;
    json_object_object_add(b->data, "events", b->events);
    json_object_object_add(b->data, "say", b->say);
    b->out.text = b->text;
    b->out.data = b->data;
    b->emit(b->arg, &b->out);
    json_object_put(b->data);
}

static void batch_flush_drop(struct batch *b)
{
    if (!b->drop_dirty)
        return;
    b->drop_dirty = false;
    batch_flush_notice(b);
    drop_message(b->g, b->emit, b->arg);
}

static void batch_emit(void *arg, const struct rules_msg *m)
{
    struct batch *b = arg;
    if (m->audience != MSG_TABLE) {
        b->emit(b->arg, m); /* private: order against the table does not matter */
        return;
    }
    batch_flush_drop(b);
    if (m->kind != OUT_NOTICE || m->key || m->replace) {
        batch_flush_notice(b);
        b->emit(b->arg, m);
        return;
    }
    struct json_object *data = (struct json_object *)m->data, *event;
    if (!b->pending) {
        b->pending = true;
        b->out = *m;
        b->data = json_object_new_object();
        b->events = json_object_new_array();
        b->say = json_object_new_array();
        text_list_init(&b->lines, b->text, sizeof b->text, "\n");
    }
    text_list_add(&b->lines, "%s", m->text);
    if (data) {
        json_object_object_foreach(data, k, v)
        {
            /* what each notice closes, all of it; of other fields the last wins */
            if (strcmp(k, "closes") == 0) {
                struct json_object *closes;
                if (!json_object_object_get_ex(b->data, k, &closes)) {
                    closes = json_object_new_array();
                    json_object_object_add(b->data, k, closes);
                }
                for (size_t i = 0; i < json_object_array_length(v); i++)
                    json_object_array_add(closes, json_object_get(json_object_array_get_idx(v, i)));
                continue;
            }
            if (strcmp(k, "say") != 0) /* the lines, in order: below */
                json_object_object_add(b->data, k, json_object_get(v));
        }
        struct json_object *say = json_object_object_get(data, "say");
        for (size_t i = 0; i < json_object_array_length(say); i++)
            json_object_array_add(b->say, json_object_get(json_object_array_get_idx(say, i)));
        if (json_object_object_get_ex(data, "event", &event))
            json_object_array_add(b->events, json_object_get(event));
    }
}

/* How many have voted on case k, out of how many may: told to the table (who
 * voted for whom stays secret until the verdict's tally). One message a case,
 * edited as the count moves; a case the batch closed says nothing more. */
static void votes_cast(const struct view *g, unsigned k, rules_emit_fn emit, void *arg)
{
    const struct il_game *game = &g->s->game;
    unsigned voted = 0, voters = 0;
    if (!il_case_open(game, k))
        return;
    struct json_object *by = json_object_new_array(); /* who has voted, never for whom */
    for (unsigned s = 0; s < game->nplayers; s++)
        if (game->players[s].active) {
            voters++;
            if (game->players[s].votes[k] != IL_NOBODY) {
                voted++;
                json_object_array_add(by, json_object_new_string(g->t->users[s]));
            }
        }
    char number[16], nvoted[16], nvoters[16];
    snprintf(number, sizeof number, "%u", k + 1);
    snprintf(nvoted, sizeof nvoted, "%u", voted);
    snprintf(nvoters, sizeof nvoters, "%u", voters);
    const char *vars[] = {"number", number, "count", nvoted, "voters", nvoters, NULL};
    struct msg m;
    msg_init(&m, g, OUT_NOTICE, IL_PUBLIC);
    msg_key(&m, g, "votes", k + 1, -1);
    m.out.replace = true;
    text_fill(m.text, sizeof m.text, g->t->lang, IL_KEYS "msg.votes-cast", vars);
    set_data(&m, "event", json_object_new_string("votes-cast"));
    set_data(&m, "case", json_object_new_int((int)k + 1));
    set_data(&m, "voted", json_object_new_int((int)voted));
    set_data(&m, "voters", json_object_new_int((int)voters));
    set_data(&m, "voted_by", by);
    msg_emit(&m, emit, arg);
}

static void render_events(const struct view *g, const struct il_events *ev, rules_emit_fn emit,
                          void *arg)
{
    struct batch b = {.g = g, .emit = emit, .arg = arg};
    for (unsigned i = 0; i < ev->n; i++) {
        if (ev->v[i].type == IL_EV_VOTE_OPENED || ev->v[i].type == IL_EV_VOTE_RECORDED ||
            ev->v[i].type == IL_EV_VOTE_WITHDRAWN)
            b.votes_dirty |= 1u << ev->v[i].number;
        switch (ev->v[i].type) {
        case IL_EV_DROP_REVEALED:
        case IL_EV_GRAB_OPENED:
        case IL_EV_GRABBED:
        case IL_EV_LEFTOVER:
        case IL_EV_DROP_DONE:
            if (g->s->drop.count) {
                batch_flush_notice(&b);
                b.drop_dirty = true;
            }
            break;
        default:
            render_event(g, &ev->v[i], batch_emit, &b);
        }
    }
    batch_flush_drop(&b);
    for (unsigned k = 0; k < IL_MAX_CASES; k++)
        if (b.votes_dirty & (1u << k))
            votes_cast(g, k, batch_emit, &b);
    batch_flush_notice(&b);
}

void il_render(const struct il_state *s, const struct rules_table *t, const struct il_events *ev,
               rules_emit_fn emit, void *arg)
{
    struct view v = {s, t};
    render_events(&v, ev, emit, arg);
}

void il_render_private(const struct il_state *s, const struct rules_table *t, unsigned seat,
                       bool fresh, rules_emit_fn emit, void *arg)
{
    struct view v = {s, t};
    render_hand(&v, seat, fresh, emit, arg);
}

void il_render_taken(const struct il_state *s, const struct rules_table *t, unsigned seat,
                     rules_emit_fn emit, void *arg)
{
    struct view v = {s, t};
    const struct il_game *g = &s->game;
    for (unsigned k = g->case_index; seat < g->nplayers && k < g->ncases; k++) {
        if (!il_case_open(g, k))
            continue;
        int8_t vote = g->players[seat].votes[k];
        char number[16];
        struct msg m;
        snprintf(number, sizeof number, "%u", k + 1);
        const char *vars[] = {"number", number, "player", vote >= 0 ? t->names[vote] : "", NULL};
        msg_init(&m, &v, OUT_NOTICE, (int)seat);
        text_fill(m.text, sizeof m.text, lang_for(&v, (int)seat),
                  vote >= 0              ? IL_KEYS "msg.taken-vote"
                  : vote == IL_ABSTAINED ? IL_KEYS "msg.taken-abstained"
                                         : IL_KEYS "msg.taken-no-vote",
                  vars);
        set_data(&m, "event", json_object_new_string("seat-ballot"));
        set_data(&m, "case", json_object_new_int((int)k + 1));
        msg_emit(&m, emit, arg);
    }
}

void il_render_event(const struct il_state *s, const struct rules_table *t,
                     const struct il_event *e, rules_emit_fn emit, void *arg)
{
    struct view v = {s, t};
    render_event(&v, e, emit, arg);
}
