/*
 * commands.c - what a player of Palm & Drewes' Illegal types: play, discard,
 * the Magnum, a waiver, the card to pass, the deal to lose, trades, and the
 * hand. In the form of the bot's command table: the bot has found the game
 * and checked that the user plays in it before a handler runs; a handler
 * turns the user's words into an action and hands it back through x->host.
 * The rules check the move itself.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../catalog.h"
#include "module.h"
#include "words.h"

#define PART_MAX 3 /* "play takeover, bob, dope": a card, then a player and a card */

static const struct pd_game *game_of(const struct command_ctx *x)
{
    return &((const struct pd_state *)x->state)->game;
}

static void unknown_card(struct command_ctx *x, const char *word, int why)
{
    const char *vars[] = {"word", word, NULL};
    x->host->reply(x, why == -2 ? PD_KEYS "resolve.ambiguous-card" : PD_KEYS "resolve.unknown-card",
                   vars);
}

/* Splits "a, b, c" into at most PART_MAX trimmed parts. Returns how many, or
 * -1 (answered) when there are more. */
static int split(struct command_ctx *x, char parts[PART_MAX][COMMAND_ARG_MAX])
{
    int n = 0;
    for (const char *p = x->c->arg; *p;) {
        p += strspn(p, ", ");
        size_t len = strcspn(p, ",");
        while (len && p[len - 1] == ' ')
            len--;
        if (!len)
            break;
        if (n == PART_MAX) {
            const char *vars[] = {"usage", catalog_text(x->lang, x->c->def->syntax), NULL};
            x->host->reply(x, "parse.usage", vars);
            return -1;
        }
        snprintf(parts[n++], COMMAND_ARG_MAX, "%.*s", (int)len, p);
        p += len;
    }
    return n;
}

/* One card named by a command: the whole argument. */
static bool one_card(struct command_ctx *x, const char *text, uint8_t *card)
{
    int c = pd_card_parse(text, x->lang);
    if (c < 0) {
        unknown_card(x, text, c);
        return false;
    }
    *card = (uint8_t)c;
    return true;
}

/* play <card>[, <player>][, <card>]: the player a card aims at, and the
 * second card it needs (the legal deal beside an illegal one, the deal a
 * bribe pays, a nuisance costs or a takeover takes). */
static void play(struct command_ctx *x)
{
    char parts[PART_MAX][COMMAND_ARG_MAX];
    int n = split(x, parts);
    struct pd_action a;
    pd_action_init(&a, PD_ACT_PLAY, x->seat);
    if (n < 1 || !one_card(x, parts[0], &a.card))
        return;
    for (int i = 1; i < n; i++) {
        int card = pd_card_parse(parts[i], x->lang), seat;
        if (card >= 0 && pd_card_kind(a.card) == PD_KIND_ILLEGAL)
            a.extra = (uint8_t)card;
        else if (card >= 0)
            a.deal = (uint8_t)card;
        else if (x->host->player(x, parts[i], &seat))
            a.target = (int8_t)seat;
        else
            return;
    }
    if (a.card == PD_MAGNUM) {
        a.type = PD_ACT_MAGNUM;
        if (a.target == PD_NOBODY && game_of(x)->phase != PD_PHASE_WINDOW)
            a.target = (int8_t)x->seat; /* out of a window: one's own burden */
    }
    x->host->play(x, &a);
}

/* discard <card>[, 3 <card>]: a single card, a set of three, or both. */
static void discard(struct command_ctx *x)
{
    char parts[PART_MAX][COMMAND_ARG_MAX];
    int n = split(x, parts);
    struct pd_action a;
    pd_action_init(&a, PD_ACT_DISCARD, x->seat);
    a.card = a.extra = PD_NONE;
    for (int i = 0; i < n; i++) {
        const char *p = parts[i];
        bool set = (p[0] == '3' && (p[1] == ' ' || p[1] == 'x'));
        uint8_t card;
        if (!one_card(x, set ? p + 2 + (p[2] == ' ') : p, &card))
            return;
        *(set ? &a.extra : &a.card) = card;
    }
    x->host->play(x, &a);
}

/* magnum [player]: stops the takeover in the window, else lifts the burden
 * of the player named (oneself when none is). */
static void magnum(struct command_ctx *x)
{
    struct pd_action a;
    int seat = x->seat;
    pd_action_init(&a, PD_ACT_MAGNUM, x->seat);
    if (x->c->arg[0] && !x->host->player(x, x->c->arg, &seat))
        return;
    if (x->c->arg[0] || game_of(x)->phase != PD_PHASE_WINDOW)
        a.target = (int8_t)seat;
    x->host->play(x, &a);
}

static void simple(struct command_ctx *x, enum pd_action_type type)
{
    struct pd_action a;
    pd_action_init(&a, type, x->seat);
    if (type == PD_ACT_PASS || type == PD_ACT_LOSE) {
        if (!one_card(x, x->c->arg, &a.card))
            return;
    } else if (type == PD_ACT_ACCEPT || type == PD_ACT_DECLINE || type == PD_ACT_CANCEL) {
        a.offer_id = (uint32_t)x->c->number;
    }
    x->host->play(x, &a);
}

static void waive(struct command_ctx *x)
{
    simple(x, PD_ACT_WAIVE);
}

static void pass(struct command_ctx *x)
{
    simple(x, PD_ACT_PASS);
}

static void lose(struct command_ctx *x)
{
    simple(x, PD_ACT_LOSE);
}

static void accept(struct command_ctx *x)
{
    simple(x, PD_ACT_ACCEPT);
}

static void decline(struct command_ctx *x)
{
    simple(x, PD_ACT_DECLINE);
}

static void cancel(struct command_ctx *x)
{
    simple(x, PD_ACT_CANCEL);
}

static bool cards(struct command_ctx *x, const char *text, struct pd_bundle *b)
{
    char word[COMMAND_ARG_MAX];
    enum resolve_error e = pd_cards_parse(text, x->lang, b, word, sizeof word);
    if (e == RESOLVE_OK)
        return true;
    const char *vars[] = {"word", word, NULL};
    x->host->reply(x,
                   e == RESOLVE_AMBIGUOUS   ? PD_KEYS "resolve.ambiguous-card"
                   : e == RESOLVE_BAD_COUNT ? PD_KEYS "resolve.bad-count"
                                            : PD_KEYS "resolve.unknown-card",
                   vars);
    return false;
}

/* offer <player> <cards> for <cards>: "blind" before the cards given hides
 * them from the receiver until they accept. */
static void offer(struct command_ctx *x)
{
    struct pd_action a;
    int seat;
    const char *give = x->c->arg2;
    pd_action_init(&a, PD_ACT_OFFER, x->seat);
    if (!x->host->player(x, x->c->arg, &seat))
        return;
    a.target = (int8_t)seat;
    if (strncasecmp(give, "blind ", 6) == 0) {
        a.blind = true;
        give += 6;
    }
    if (!cards(x, give, &a.give) || !cards(x, x->c->arg3, &a.ask))
        return;
    x->host->play(x, &a);
}

static void show(void *arg, const struct rules_msg *m)
{
    struct command_ctx *x = arg;
    x->host->show(x, m);
}

static void hand(struct command_ctx *x)
{
    pd_render_private(x->state, x->table, (unsigned)x->seat, true, show, x);
}

#define PRIVATE  CMD_IN_PRIVATE
#define ANYWHERE (CMD_IN_TABLE | CMD_IN_PRIVATE)

#define OPT_PLAYER                                                                                 \
    {                                                                                              \
        .name = "player", .summary = "slash.option.player", .required = true, .autocomplete = true \
    }
#define OPT_CARD                                                                                   \
    {                                                                                              \
        .name = "card", .summary = PD_KEYS "option.card", .required = true, .autocomplete = true   \
    }
#define OPT_OFFER_ID                                                                               \
    {                                                                                              \
        .name = "id", .summary = "slash.option.id", .integer = true, .required = true, .min = 1,   \
        .max = 1000000                                                                             \
    }
#define COMMAND(word, places, args, options)                                                       \
    {                                                                                              \
#word, places, CMD_PLAYER, CMD_RUNNING, args, PD_KEYS "syntax." #word, NULL,               \
            PD_KEYS "summary." #word, options, word                                                \
    }

const struct command_def pd_commands[] = {
    COMMAND(hand, PRIVATE, ARGS_NONE, {{0}}),
    COMMAND(play, ANYWHERE, ARGS_TEXT, {OPT_CARD}),
    COMMAND(discard, ANYWHERE, ARGS_TEXT, {OPT_CARD}),
    COMMAND(magnum, ANYWHERE, ARGS_OPTIONAL, {{0}}),
    COMMAND(waive, ANYWHERE, ARGS_NONE, {{0}}),
    COMMAND(pass, PRIVATE, ARGS_TEXT, {OPT_CARD}),
    COMMAND(lose, ANYWHERE, ARGS_TEXT, {OPT_CARD}),
    {"offer",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_TRADE,
     PD_KEYS "syntax.offer",
     NULL,
     PD_KEYS "summary.offer",
     {OPT_PLAYER,
      {.name = "give", .summary = "slash.option.give", .required = true, .autocomplete = true},
      {.name = "ask",
       .summary = "slash.option.ask",
       .required = true,
       .autocomplete = true,
       .before = "for"}},
     offer},
    COMMAND(accept, PRIVATE, ARGS_NUMBER, {OPT_OFFER_ID}),
    COMMAND(decline, PRIVATE, ARGS_NUMBER, {OPT_OFFER_ID}),
    COMMAND(cancel, PRIVATE, ARGS_NUMBER, {OPT_OFFER_ID}),
    {0},
};
