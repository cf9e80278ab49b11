/*
 * computer_commands.c - the host's commands for computer players: "add
 * computer [level]" and "remove computer [name]" in a lobby, and "replace
 * <player> computer [level]", a computer standing in (docs/seats.md,
 * S12-S14). What a computer does once seated is computers.c's.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "computers.h"
#include "core/text.h"
#include "dispatch.h"

/* Reads "[computer [level]]" at the end of text (cut off there): the level's
 * number (the default's without one), 0 when text does not end so, or -1
 * when the level is not one of g's. */
static int computer_suffix(const struct game *g, char *text)
{
    char *last = strrchr(text, ' '), *word = last ? last + 1 : text;
    unsigned level = 1;
    if (strcasecmp(word, "computer") != 0) {
        if (!last)
            return 0;
        *last = '\0';
        char *before = strrchr(text, ' ');
        char *prev = before ? before + 1 : text;
        if (strcasecmp(prev, "computer") != 0) {
            *last = ' ';
            return 0;
        }
        if (!(level = computers_level_named(g->rules, word)))
            return -1;
        word = prev;
    }
    if (word > text)
        word[-1] = '\0';
    else
        word[0] = '\0';
    return computers_level(g->rules, level) ? (int)level : -1;
}

/* Answers x with the levels of computer player its game has. */
static void reply_levels(struct bot_cmd *x)
{
    char levels[256];
    struct text_list l;
    text_list_init(&l, levels, sizeof levels, ", ");
    for (const struct rules_strategy *s = x->g->rules->strategies; s && s->id; s++)
        text_list_add(&l, "%s", s->id);
    const char *vars[] = {"choices", levels, NULL};
    cmd_reply(x, "msg.computer-levels", vars);
}

/* add computer [level]: the host seats a computer player in the lobby (S12). */
void cmd_add(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    char what[COMMAND_ARG_MAX];
    snprintf(what, sizeof what, "%s", base->c->arg);
    int level = computer_suffix(x->g, what);
    if (level < 0) {
        reply_levels(x);
        return;
    }
    if (level == 0 || what[0]) {
        cmd_reply_usage(x);
        return;
    }
    if (x->g->started) {
        cmd_reply(x, "msg.computer-lobby-only", NULL);
        return;
    }
    struct change c = {.type = CHANGE_LOBBY,
                       .lobby = {.type = LOBBY_JOIN, .computer = (uint8_t)level}};
    pipeline_run(x->d, x->g, &c, x);
}

/* remove computer [name]: the host takes a computer player out of the lobby:
 * the one named, else the last one seated. */
void cmd_remove(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    const char *arg = base->c->arg;
    struct game *g = x->g;
    int seat = -1;
    if (strncasecmp(arg, "computer", 8) != 0 || (arg[8] && arg[8] != ' ')) {
        cmd_reply_usage(x);
        return;
    }
    if (g->started) {
        cmd_reply(x, "msg.computer-lobby-only", NULL);
        return;
    }
    const char *name = arg[8] ? arg + 9 : "";
    if (name[0] && !cmd_resolve_player(x, name, &seat))
        return;
    for (unsigned i = g->nseats; !name[0] && i-- > 0;)
        if (game_seat_is_computer(g, i) && seat < 0)
            seat = (int)i;
    if (seat < 0 || !game_seat_is_computer(g, (unsigned)seat)) {
        cmd_reply(x, "msg.computer-none", NULL);
        return;
    }
    struct change c = {.type = CHANGE_LOBBY,
                       .lobby = {.type = LOBBY_LEAVE, .seat = (unsigned)seat}};
    pipeline_run(x->d, x->g, &c, x);
}

bool cmd_replace_computer(struct bot_cmd *x)
{
    char who[COMMAND_ARG_MAX];
    int seat;
    snprintf(who, sizeof who, "%s", x->base.c->arg);
    int level = computer_suffix(x->g, who);
    if (level == 0)
        return false;
    if (level < 0)
        reply_levels(x);
    else if (!who[0])
        cmd_reply_usage(x);
    else if (cmd_resolve_player(x, who, &seat)) {
        struct change c = {
            .type = CHANGE_STAND_IN, .seat = (unsigned)seat, .level = (uint8_t)level};
        pipeline_run(x->d, x->g, &c, x);
    }
    return true;
}
