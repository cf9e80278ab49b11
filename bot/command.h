/*
 * command.h - canonical text commands, parsed into one type for every platform.
 *
 * Parsing is in two steps. command_parse() reads the words of a line; it
 * needs no game. The dispatcher then resolves names (cards, players) against
 * the game the command is for, with command_parse_cards() and
 * command_match_player().
 */
#ifndef BOT_COMMAND_H
#define BOT_COMMAND_H

#include <stdbool.h>
#include <stddef.h>

#include "core/command.h"
#include "core/rules.h"

/* The i-th command of every table (the bot's, then each rules module's),
 * from 0; NULL past the last. */
const struct command_def *command_at(size_t i);

/* The command called `word` that may be typed in `places`, or NULL: the
 * bot's, else the first module's that has one. */
const struct command_def *command_find(const char *word, unsigned places);

/* The same among the bot's commands and those of the game `rules` only (two
 * games may each have their "offer"). */
const struct command_def *command_find_in(const char *word, unsigned places,
                                          const struct rules_module *rules);

/* The module whose table holds def, or NULL for one of the bot's. */
const struct rules_module *command_module(const struct command_def *def);

/* Parse errors; the catalog key is "parse.<id>". */
enum command_error {
    CMD_OK,
    CMD_ERR_UNKNOWN,  /* an unknown command word */
    CMD_ERR_USAGE,    /* right command, wrong arguments */
    CMD_ERR_TOO_LONG, /* an argument longer than COMMAND_ARG_MAX */
};

/*
 * Parses one line. In a table (`in_table`), only lines starting with
 * "!illegal" are commands; anything else gives CMD_NONE. In a DM, "!illegal"
 * is optional, but without it only private commands are known. A DM line may
 * start with a game id ("g7 offer ..."). Ordinary chat gives CMD_OK with
 * c->def NULL. On error returns the code and sets c->def to the command
 * recognised (NULL when the word was unknown), so the reply can show the
 * right usage.
 */
enum command_error command_parse(const char *line, bool in_table, struct command *c);

/* The same for a line addressed to a game of `rules`: its commands are the
 * ones known (command_parse(): the default game's). */
enum command_error command_parse_for(const char *line, bool in_table,
                                     const struct rules_module *rules, struct command *c);

/* Stable identifier of a command error ("unknown", "usage", "too-long"). */
const char *command_error_id(enum command_error e);

/* Writes a command's syntax ("new [standard|advanced]"): its catalog text
 * with each option that has a list of values filled in by its name
 * ({variant}: the values joined by '|'), so that the modes and settings of
 * every game this build has are listed. Values that depend on the game
 * (set's settings) are game's alone when the command is about one (the
 * table's game), else every game's grouped by game. Where the build has
 * several games and the command is about none, the text is the syntax key's
 * "-games" form when the catalog has one (syntax.new-games: the game that
 * new may name). */
void command_syntax(char *out, size_t len, const char *lang, const struct command_def *def,
                    const struct rules_module *game);

/* Writes the usage line of a command ("!illegal grab <card>"), about game
 * (NULL: every game) as command_syntax() says. */
void command_usage(char *out, size_t len, const char *lang, const struct command_def *def,
                   const struct rules_module *game);

/* Writes the help of the table's commands (`table`) or of the private ones,
 * the bot's and those of the game `rules` (NULL: the default game), their
 * syntaxes about `game` (command_syntax(); NULL: every game);
 * prefix is what players type before a table command (platform.h). */
void command_help(char *out, size_t len, const char *lang, bool table, const char *prefix,
                  const struct rules_module *rules, const struct rules_module *game);

/* A display name keeps at most this many characters once cleaned. */
#define COMMAND_NAME_CHARS 48

/*
 * Cleans a display name as a platform gave it (name may be NULL), so that it
 * can be shown in table text: bytes that are not UTF-8 are dropped; control
 * characters, line breaks and bidirectional controls become spaces; runs of
 * spaces become one, leading and trailing ones go; the result keeps at most
 * COMMAND_NAME_CHARS characters and fits outlen bytes (cut at a character).
 * Returns false when nothing is left, so the caller falls back to the id.
 */
bool command_clean_name(const char *name, char *out, size_t outlen);

/* command_clean_name() for any text typed to be shown to others (a line of a
 * table's chat), keeping at most max_chars characters. */
bool command_clean_text(const char *text, size_t max_chars, char *out, size_t outlen);

/*
 * Whether a display name would pass for one of n user ids (exactly, ignoring
 * case, or as a mention of it). Returns the index of that id, or -1.
 */
int command_name_claims_id(const char *name, const char *const *ids, unsigned n);

/*
 * Matches a player name among n candidates, each with a user id and a display
 * name: "@alice", "<@123>", "alice", "Alice Smith", or an unambiguous prefix.
 * Ids (and mentions) are matched against every candidate before any display
 * name, so a name can never capture another player's id. Returns the index via *index, or an error
 * with the candidates in `choices`.
 */
enum resolve_error command_match_player(const char *text, const char *const *ids,
                                        const char *const *names, unsigned n, int *index,
                                        char *choices, size_t choiceslen);

#endif
