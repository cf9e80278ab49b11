/*
 * command_table.c - the commands every game shares, one entry each.
 *
 * An entry says where a command may be typed, who may use it, which game it
 * needs, how its arguments read, its words in the catalog, its native
 * command options, and its handler. The dispatcher checks place, game and
 * permission from here before the handler runs, so a handler only does its
 * command's own work. A game's own commands are in its rules module's table
 * (core/rules.h: commands), in the same form; command_at() lists both.
 */
#include <string.h>

#include "command.h"
#include "core/modules.h"
#include "dispatch.h"

#define TABLE   CMD_IN_TABLE
#define PRIVATE CMD_IN_PRIVATE

/* The games `new` may name: every module's id. */
static unsigned game_ids(const char **out, unsigned max)
{
    unsigned n = 0;
    for (size_t i = 0; i < rules_count() && n < max; i++)
        out[n++] = rules_at(i)->id;
    return n;
}

/* Whether word is among the n words of list. */
static bool has(const char *const *list, unsigned n, const char *word)
{
    for (unsigned k = 0; k < n; k++)
        if (strcmp(list[k], word) == 0)
            return true;
    return false;
}

/* The modes `new` may name: every module's, each once. */
static unsigned game_modes(const char **out, unsigned max)
{
    unsigned n = 0;
    for (size_t i = 0; i < rules_count(); i++)
        for (const char *const *m = rules_at(i)->modes; m && *m && n < max; m++)
            if (!has(out, n, *m))
                out[n++] = *m;
    return n;
}

/* Adds the settings `set` takes in game to the n names of out, each once. */
static unsigned add_settings(const struct rules_module *game, const char **out, unsigned n,
                             unsigned max)
{
    for (const struct rules_setting *s = rules_settings(game); s->name && n < max; s++)
        if ((s->where & (RULES_IN_LOBBY | RULES_IN_GAME)) && !has(out, n, s->name))
            out[n++] = s->name;
    return n;
}

static unsigned add_lobby_settings(const char **out, unsigned n, unsigned max)
{
    for (const char *const *l = lobby_setting_names; *l && n < max; l++)
        out[n++] = *l;
    return n;
}

/* The settings `set` takes: every module's, each once, then the lobby's own. */
static unsigned setting_names(const char **out, unsigned max)
{
    unsigned n = 0;
    for (size_t i = 0; i < rules_count(); i++)
        n = add_settings(rules_at(i), out, n, max);
    return add_lobby_settings(out, n, max);
}

/* The settings `set` takes at a table of game: its own, then the lobby's. */
static unsigned settings_of(const struct rules_module *game, const char **out, unsigned max)
{
    return add_lobby_settings(out, add_settings(game, out, 0, max), max);
}

static const char *const on_off[] = {"on", "off", NULL};
static const char *const follow_stop[] = {"follow", "stop", NULL};
static const char *const computer[] = {"computer", NULL};
static const char *const all[] = {"all", NULL};
static const char *const server[] = {"server", NULL};

static const struct command_def table[] = {
    {"new",
     TABLE,
     CMD_ANYONE,
     CMD_NO_GAME,
     ARGS_OPTIONAL,
     "syntax.new",
     NULL,
     "summary.new",
     {{.name = "game", .summary = "slash.option.game", .values_of = game_ids},
      {.name = "variant", .summary = "slash.option.variant", .values_of = game_modes}},
     cmd_new},
    {"rematch",
     TABLE,
     CMD_ANYONE,
     CMD_NO_GAME,
     ARGS_NONE,
     "syntax.rematch",
     NULL,
     "summary.rematch",
     {{0}},
     cmd_rematch},
    {"join",
     TABLE,
     CMD_ANYONE,
     CMD_ANY_GAME,
     ARGS_NONE,
     "syntax.join",
     NULL,
     "summary.join",
     {{0}},
     cmd_join},
    {"leave",
     TABLE,
     CMD_ANYONE,
     CMD_ANY_GAME,
     ARGS_NONE,
     "syntax.leave",
     NULL,
     "summary.leave",
     {{0}},
     cmd_leave},
    {"add",
     TABLE,
     CMD_HOST,
     CMD_ANY_GAME,
     ARGS_TEXT,
     "syntax.add",
     NULL,
     "summary.add",
     {{.name = "player", .summary = "slash.option.computer", .required = true, .values = computer},
      {.name = "level", .summary = "slash.option.level"}},
     cmd_add},
    {"remove",
     TABLE,
     CMD_HOST,
     CMD_ANY_GAME,
     ARGS_TEXT,
     "syntax.remove",
     NULL,
     "summary.remove",
     {{.name = "player", .summary = "slash.option.computer", .required = true, .values = computer},
      {.name = "name", .summary = "slash.option.player", .autocomplete = true}},
     cmd_remove},
    {"start",
     TABLE,
     CMD_HOST,
     CMD_ANY_GAME,
     ARGS_NONE,
     "syntax.start",
     NULL,
     "summary.start",
     {{0}},
     cmd_start},
    {"status",
     TABLE,
     CMD_ANYONE,
     CMD_ANY_GAME,
     ARGS_NONE,
     "syntax.status",
     NULL,
     "summary.status",
     {{0}},
     cmd_status},
    {"rules",
     TABLE,
     CMD_ANYONE,
     CMD_NO_GAME,
     ARGS_NONE,
     "syntax.rules",
     NULL,
     "summary.rules",
     {{0}},
     cmd_rules},
    {"help",
     TABLE | PRIVATE,
     CMD_ANYONE,
     CMD_NO_GAME,
     ARGS_OPTIONAL,
     "syntax.help",
     NULL,
     "summary.help",
     {{0}},
     cmd_help},
    {"pause",
     TABLE,
     CMD_HOST,
     CMD_RUNNING,
     ARGS_NONE,
     "syntax.pause",
     NULL,
     "summary.pause",
     {{0}},
     cmd_pause},
    {"resume",
     TABLE,
     CMD_HOST,
     CMD_RUNNING,
     ARGS_NONE,
     "syntax.resume",
     NULL,
     "summary.resume",
     {{0}},
     cmd_resume},
    {"extend",
     TABLE,
     CMD_HOST,
     CMD_RUNNING,
     ARGS_DURATION,
     "syntax.extend",
     NULL,
     "summary.extend",
     {{.name = "duration", .summary = "slash.option.duration", .required = true}},
     cmd_extend},
    {"next",
     TABLE,
     CMD_HOST,
     CMD_RUNNING,
     ARGS_NONE,
     "syntax.next",
     NULL,
     "summary.next",
     {{0}},
     cmd_next},
    {"kick",
     TABLE,
     CMD_HOST,
     CMD_ANY_GAME,
     ARGS_TEXT,
     "syntax.kick",
     NULL,
     "summary.kick",
     {{.name = "player", .summary = "slash.option.player", .required = true, .autocomplete = true}},
     cmd_kick},
    {"end",
     TABLE,
     CMD_HOST,
     CMD_ANY_GAME,
     ARGS_NONE,
     "syntax.end",
     NULL,
     "summary.end",
     {{0}},
     cmd_end},
    {"set",
     TABLE,
     CMD_HOST,
     CMD_ANY_GAME,
     ARGS_KEY_VALUE,
     "syntax.set",
     NULL,
     "summary.set",
     {{.name = "key",
       .summary = "slash.option.key",
       .required = true,
       .values_of = setting_names,
       .values_in = settings_of},
      {.name = "value", .summary = "slash.option.value", .required = true}},
     cmd_set},
    {"replace",
     TABLE,
     CMD_HOST,
     CMD_RUNNING,
     ARGS_TEXT,
     "syntax.replace",
     NULL,
     "summary.replace",
     {{.name = "player", .summary = "slash.option.player", .required = true, .autocomplete = true},
      {.name = "computer", .summary = "slash.option.computer", .values = computer},
      {.name = "level", .summary = "slash.option.level"}},
     cmd_replace},
    {"reminders",
     PRIVATE,
     CMD_PLAYER,
     CMD_RUNNING,
     ARGS_TEXT,
     "syntax.reminders",
     NULL,
     "summary.reminders",
     {{.name = "state", .summary = "slash.option.state", .required = true, .values = on_off}},
     cmd_reminders},
    {"stats",
     TABLE,
     CMD_ANYONE,
     CMD_NO_GAME,
     ARGS_OPTIONAL,
     "syntax.stats",
     NULL,
     "summary.stats",
     {{.name = "player", .summary = "slash.option.player"}},
     cmd_stats},
    {"leaderboard",
     TABLE,
     CMD_ANYONE,
     CMD_NO_GAME,
     ARGS_OPTIONAL,
     "syntax.leaderboard",
     NULL,
     "summary.leaderboard",
     {{.name = "who", .summary = "slash.option.who", .values = all}},
     cmd_leaderboard},
    {"default",
     TABLE,
     CMD_ANYONE, /* to read; a moderator changes it (cmd_default) */
     CMD_NO_GAME,
     ARGS_OPTIONAL,
     "syntax.default",
     NULL,
     "summary.default",
     {{.name = "game", .summary = "slash.option.game", .values_of = game_ids},
      {.name = "where", .summary = "slash.option.where", .values = server}},
     cmd_default},
    {"event",
     TABLE,
     CMD_ANYONE,
     CMD_NO_GAME,
     ARGS_TEXT,
     "syntax.event",
     "example.event",
     "summary.event",
     {{.name = "action",
       .summary = "slash.option.action",
       .required = true,
       .values = event_actions},
      {.name = "details", .summary = "slash.option.details"}},
     cmd_event},
    {"gm",
     TABLE,
     CMD_HOST,
     CMD_RUNNING,
     ARGS_OPTIONAL,
     "syntax.gm",
     NULL,
     "summary.gm",
     {{.name = "mode", .summary = "slash.option.mode", .values = follow_stop}},
     cmd_gm},
    {"language",
     PRIVATE,
     CMD_PLAYER,
     CMD_ANY_GAME,
     ARGS_TEXT,
     "syntax.language",
     NULL,
     "summary.language",
     {{.name = "code", .summary = "slash.option.language", .required = true}},
     cmd_language},
};

const struct command_def *command_at(size_t i)
{
    if (i < sizeof table / sizeof *table)
        return &table[i];
    i -= sizeof table / sizeof *table;
    for (size_t m = 0; m < rules_count(); m++) {
        const struct command_def *c = rules_at(m)->commands;
        for (; c && c->word; c++, i--)
            if (i == 0)
                return c;
    }
    return NULL;
}

/* Whether def is a command of the bot's own table. */
static bool is_bots(const struct command_def *def)
{
    return def >= table && def < table + sizeof table / sizeof *table;
}

const struct rules_module *command_module(const struct command_def *def)
{
    for (size_t m = 0; !is_bots(def) && m < rules_count(); m++)
        for (const struct command_def *c = rules_at(m)->commands; c && c->word; c++)
            if (c == def)
                return rules_at(m);
    return NULL;
}

const struct command_def *command_find_in(const char *word, unsigned places,
                                          const struct rules_module *rules)
{
    const struct command_def *def;
    for (size_t i = 0; (def = command_at(i)); i++)
        if ((def->places & places) && strcmp(def->word, word) == 0 &&
            (is_bots(def) || command_module(def) == rules))
            return def;
    return NULL;
}

const struct command_def *command_find(const char *word, unsigned places)
{
    const struct command_def *def;
    for (size_t i = 0; (def = command_at(i)); i++)
        if ((def->places & places) && strcmp(def->word, word) == 0)
            return def;
    return NULL;
}
