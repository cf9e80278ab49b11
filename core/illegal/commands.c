/*
 * commands.c - what a player of Illegal does: grab, hand, offers, votes.
 *
 * Illegal's own commands, in the form of the bot's command table. The bot
 * has found the game and checked that the user plays in it before a handler
 * runs; a handler reads the state, turns the user's words into an action and
 * hands it back through x->host. Answers to private commands go to the
 * player alone, by DM or ephemerally.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../catalog.h"
#include "../text.h"
#include "module.h"

#define TEXT_MAX 2048

static const struct il_state *state_of(const struct command_ctx *x)
{
    return x->state;
}

/* Answers with why a card list did not resolve. */
static void resolve_error(struct command_ctx *x, enum resolve_error e, const char *word,
                          const char *choices)
{
    static const char *const keys[] = {
        [RESOLVE_UNKNOWN] = IL_KEYS "resolve.unknown-card",
        [RESOLVE_AMBIGUOUS] = IL_KEYS "resolve.ambiguous-card",
        [RESOLVE_NOT_TRADABLE] = IL_KEYS "resolve.not-tradable",
        [RESOLVE_BAD_COUNT] = IL_KEYS "resolve.bad-count",
    };
    const char *vars[] = {"word", word, "choices", choices, NULL};
    x->host->reply(x, keys[e], vars);
}

static void grab(struct command_ctx *x)
{
    char choices[512];
    int res;
    enum resolve_error e = il_parse_resource(x->c->arg, state_of(x)->game.in_play, x->lang, &res,
                                             choices, sizeof choices);
    if (e != RESOLVE_OK) {
        resolve_error(x, e, x->c->arg, choices);
        return;
    }
    struct il_action a = {.type = IL_ACT_GRAB, .player = (int8_t)x->seat, .resource = (uint8_t)res};
    x->host->play(x, &a);
}

static void show(void *arg, const struct rules_msg *m)
{
    struct command_ctx *x = arg;
    x->host->show(x, m);
}

static void hand(struct command_ctx *x)
{
    il_render_private(state_of(x), x->table, (unsigned)x->seat, true, show, x);
}

static void offers(struct command_ctx *x)
{
    const struct il_state *s = state_of(x);
    char list[TEXT_MAX], line[1024];
    struct text_list lines;
    text_list_init(&lines, list, sizeof list, "; ");
    for (unsigned i = 0; i < s->game.noffers; i++) {
        const struct il_offer *o = &s->game.offers[i];
        if (o->from != x->seat && o->to != x->seat)
            continue;
        il_offer_line(o, x->lang, x->table->names, line, sizeof line);
        text_list_add(&lines, "%s", line);
    }
    if (!lines.n) {
        x->host->reply(x, IL_KEYS "msg.no-offers", NULL);
        return;
    }
    const char *vars[] = {"list", list, NULL};
    x->host->reply(x, IL_KEYS "msg.offers", vars);
}

static void offer(struct command_ctx *x)
{
    const struct il_state *s = state_of(x);
    struct il_action a = {.type = IL_ACT_OFFER, .player = (int8_t)x->seat};
    char word[COMMAND_ARG_MAX], choices[512];
    int target;
    if (!x->host->player(x, x->c->arg, &target))
        return;
    a.target = (int8_t)target;
    enum resolve_error e = il_parse_cards(x->c->arg2, s->game.in_play, x->lang, &a.give, word,
                                          sizeof word, choices, sizeof choices);
    if (e == RESOLVE_OK)
        e = il_parse_cards(x->c->arg3, s->game.in_play, x->lang, &a.ask, word, sizeof word, choices,
                           sizeof choices);
    if (e != RESOLVE_OK) {
        resolve_error(x, e, word, choices);
        return;
    }
    x->host->play(x, &a);
}

/* accept, decline, cancel: an answer to an offer, by its number. */
static void answer(struct command_ctx *x, enum il_action_type type)
{
    struct il_action a = {
        .type = type, .player = (int8_t)x->seat, .offer_id = (uint32_t)x->c->number};
    x->host->play(x, &a);
}

static void accept(struct command_ctx *x)
{
    answer(x, IL_ACT_ACCEPT);
}

static void decline(struct command_ctx *x)
{
    answer(x, IL_ACT_DECLINE);
}

static void cancel(struct command_ctx *x)
{
    answer(x, IL_ACT_CANCEL);
}

/* vote, abstain: on the case being judged. */
/*
 * The case a vote is for: "2 alice" (or "#2 alice") names case 2 and moves
 * *arg past it; otherwise, with several cases open at once, the first the
 * player has not voted on, else the current one. The rules refuse a case
 * that takes no votes.
 */
static unsigned vote_case(const struct il_game *g, unsigned seat, const char **arg)
{
    const char *p = *arg + (**arg == '#');
    char *end;
    long n = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : 0;
    if (n >= 1 && n <= IL_MAX_CASES && (*end == ' ' || *end == '\0')) {
        *arg = end + strspn(end, " ");
        return (unsigned)(n - 1);
    }
    for (unsigned k = g->case_index; k < g->ncases; k++)
        if (il_case_open(g, k) && g->players[seat].votes[k] == IL_NOBODY)
            return k;
    return g->case_index;
}

static void vote(struct command_ctx *x)
{
    int target;
    const char *who = x->c->arg;
    unsigned number = vote_case(&state_of(x)->game, (unsigned)x->seat, &who);
    if (!x->host->player(x, who, &target))
        return;
    struct il_action a = {.type = IL_ACT_VOTE,
                          .player = (int8_t)x->seat,
                          .target = (int8_t)target,
                          .number = (uint8_t)number};
    x->host->play(x, &a);
}

static void abstain(struct command_ctx *x)
{
    const char *rest = x->c->arg;
    unsigned number = vote_case(&state_of(x)->game, (unsigned)x->seat, &rest);
    if (*rest) {
        const char *vars[] = {"usage", catalog_text(x->lang, IL_KEYS "syntax.abstain"), NULL};
        x->host->reply(x, "parse.usage", vars);
        return;
    }
    struct il_action a = {
        .type = IL_ACT_ABSTAIN, .player = (int8_t)x->seat, .number = (uint8_t)number};
    x->host->play(x, &a);
}

#define PRIVATE CMD_IN_PRIVATE

#define OPT_PLAYER                                                                                 \
    {                                                                                              \
        .name = "player", .summary = "slash.option.player", .required = true, .autocomplete = true \
    }
#define OPT_OFFER_ID                                                                               \
    {                                                                                              \
        .name = "id", .summary = "slash.option.id", .integer = true, .required = true, .min = 1,   \
        .max = 1000000                                                                             \
    }

const struct command_def il_commands[] = {
    {"grab",
     CMD_IN_TABLE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_TEXT,
     IL_KEYS "syntax.grab",
     NULL,
     IL_KEYS "summary.grab",
     {{.name = "resource",
       .summary = IL_KEYS "slash.option.resource",
       .required = true,
       .autocomplete = true}},
     grab},
    {"hand",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_NONE,
     IL_KEYS "syntax.hand",
     NULL,
     IL_KEYS "summary.hand",
     {{0}},
     hand},
    {"offer",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_TRADE,
     IL_KEYS "syntax.offer",
     IL_KEYS "example.offer",
     IL_KEYS "summary.offer",
     {OPT_PLAYER,
      {.name = "give", .summary = "slash.option.give", .required = true, .autocomplete = true},
      {.name = "ask",
       .summary = "slash.option.ask",
       .required = true,
       .autocomplete = true,
       .before = "for"}},
     offer},
    {"offers",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_NONE,
     IL_KEYS "syntax.offers",
     NULL,
     IL_KEYS "summary.offers",
     {{0}},
     offers},
    {"accept",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_NUMBER,
     IL_KEYS "syntax.accept",
     NULL,
     IL_KEYS "summary.accept",
     {OPT_OFFER_ID},
     accept},
    {"decline",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_NUMBER,
     IL_KEYS "syntax.decline",
     NULL,
     IL_KEYS "summary.decline",
     {OPT_OFFER_ID},
     decline},
    {"cancel",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_NUMBER,
     IL_KEYS "syntax.cancel",
     NULL,
     IL_KEYS "summary.cancel",
     {OPT_OFFER_ID},
     cancel},
    {"vote",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_TEXT,
     IL_KEYS "syntax.vote",
     NULL,
     IL_KEYS "summary.vote",
     {OPT_PLAYER},
     vote},
    {"abstain",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_OPTIONAL,
     IL_KEYS "syntax.abstain",
     NULL,
     IL_KEYS "summary.abstain",
     {{0}},
     abstain},
    {0},
};
