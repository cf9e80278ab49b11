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

#include "core/illegal/illegal.h"

enum command_type {
    CMD_NONE, /* not a command: ordinary chat in a table */
    /* Table commands: "!illegal <word>". */
    CMD_NEW,
    CMD_JOIN,
    CMD_LEAVE,
    CMD_START,
    CMD_STATUS,
    CMD_RULES,
    CMD_HELP,
    CMD_GRAB,
    CMD_PAUSE,
    CMD_RESUME,
    CMD_EXTEND,
    CMD_NEXT,
    CMD_KICK,
    CMD_END,
    CMD_SET,
    /* Private commands, typed in a DM. */
    CMD_HAND,
    CMD_OFFER,
    CMD_OFFERS,
    CMD_ACCEPT,
    CMD_DECLINE,
    CMD_CANCEL,
    CMD_VOTE,
    CMD_ABSTAIN,
    CMD_DM_HELP,
};

#define COMMAND_ARG_MAX 256

/*
 * A parsed line. Text arguments are copied into the struct (truncated lines
 * are refused), so it owns no memory.
 */
struct command {
    enum command_type type;
    bool table;                 /* came as "!illegal ..." */
    char game[16];              /* "g7" when the user named the game, else "" */
    char arg[COMMAND_ARG_MAX];  /* first argument: variant, resource, player, key */
    char arg2[COMMAND_ARG_MAX]; /* SET value; OFFER: the cards given */
    char arg3[COMMAND_ARG_MAX]; /* OFFER: the cards asked */
    long number;                /* ACCEPT/DECLINE/CANCEL offer id; EXTEND minutes */
};

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
 * is optional. A DM line may start with a game id ("g7 offer ..."). On error
 * returns the code and sets c->type to the command recognised (CMD_NONE when
 * the word was unknown), so the reply can show the right usage.
 */
enum command_error command_parse(const char *line, bool in_table, struct command *c);

/* Stable identifier of a command error ("unknown", "usage", "too-long"). */
const char *command_error_id(enum command_error e);

/* The catalog key of the usage line of a command ("usage.offer"), or NULL. */
const char *command_usage_key(enum command_type t);

/* Why a card list or a name did not resolve. */
enum resolve_error {
    RESOLVE_OK,
    RESOLVE_UNKNOWN,      /* no card or player by that name: `choices` lists them */
    RESOLVE_AMBIGUOUS,    /* several match: `choices` lists them */
    RESOLVE_NOT_TRADABLE, /* a role or suspect card was named */
    RESOLVE_BAD_COUNT,    /* a count of 0, over 99, or a count with no card */
};

/*
 * Parses a card list such as "2 guns 1 alcohol", "guns, luxury cars" or
 * "nothing", matching names loosely (case, singular or plural, unambiguous
 * prefixes) against the resources in `in_play` (bit mask). `lang` picks the
 * display names. On RESOLVE_UNKNOWN/AMBIGUOUS, `word` receives the word that
 * failed and `choices` a comma-separated list of candidates.
 */
enum resolve_error command_parse_cards(const char *text, unsigned in_play, const char *lang,
                                       struct il_bundle *out, char *word, size_t wordlen,
                                       char *choices, size_t choiceslen);

/* Matches a single resource name (for grab). Same rules and outputs. */
enum resolve_error command_parse_resource(const char *text, unsigned in_play, const char *lang,
                                          int *resource, char *choices, size_t choiceslen);

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
