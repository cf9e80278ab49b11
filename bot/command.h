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

#include "core/rules.h"

/* Every command, in the order of the table (bot/command_table.c). */
enum command_type {
    CMD_NONE, /* not a command: ordinary chat in a table */
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
    CMD_HAND,
    CMD_OFFER,
    CMD_OFFERS,
    CMD_ACCEPT,
    CMD_DECLINE,
    CMD_CANCEL,
    CMD_VOTE,
    CMD_ABSTAIN,
    CMD_COUNT
};

/* Where a command may be typed (bits). */
enum command_place {
    CMD_IN_TABLE = 1u << 0,   /* "!illegal <word>" in a table */
    CMD_IN_PRIVATE = 1u << 1, /* in a DM ("!illegal" optional), or privately at the table */
};

/* Who may use a command; checked before its handler runs. */
enum command_who {
    CMD_ANYONE,
    CMD_HOST,   /* the game's host or a platform moderator */
    CMD_PLAYER, /* a player still in the game */
};

/* What game a command needs; found and checked before its handler runs. */
enum command_game {
    CMD_NO_GAME,  /* none: it works anywhere */
    CMD_ANY_GAME, /* the table's game, lobby or running */
    CMD_RUNNING,  /* a game that has started */
};

/* The grammar of a command's arguments, parsed into struct command. */
enum command_args {
    ARGS_NONE,      /* nothing may follow */
    ARGS_OPTIONAL,  /* arg: an optional text */
    ARGS_TEXT,      /* arg: a text */
    ARGS_NUMBER,    /* number: a positive number */
    ARGS_KEY_VALUE, /* arg: a word; arg2: a text */
    ARGS_TRADE,     /* arg: a player; arg2: cards given; "for"; arg3: cards asked */
};

/* An argument as a native (slash) command option, in the order of the text. */
struct command_option {
    const char *name;    /* "player" */
    const char *summary; /* catalog key of its description */
    bool integer;        /* an integer, else a string */
    bool required;
    bool autocomplete;         /* the platform may ask the bot for choices */
    int min, max;              /* integer bounds, when max > 0 */
    const char *before;        /* a word written before the value in the text ("for"), or NULL */
    const char *const *values; /* a fixed list of values (NULL-terminated), or NULL */
};

#define COMMAND_MAX_OPTIONS 3

struct command_ctx;

/*
 * One command: everything about it is here. Parsing, permission checks,
 * usage errors, help and native command registration all read this entry.
 */
struct command_def {
    const char *word;
    unsigned places; /* enum command_place bits */
    enum command_who who;
    enum command_game game;
    enum command_args args;
    const char *syntax;  /* catalog key: "grab <card>" */
    const char *example; /* catalog key of an example, or NULL */
    const char *summary; /* catalog key: one line on what it does */
    struct command_option options[COMMAND_MAX_OPTIONS];
    void (*run)(struct command_ctx *x);
};

/* The entry of command t (CMD_NEW .. CMD_COUNT-1). */
const struct command_def *command_def(enum command_type t);

#define COMMAND_ARG_MAX RULES_TEXT_MAX

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
 * is optional, but without it only private commands are known. A DM line may
 * start with a game id ("g7 offer ..."). On error returns the code and sets
 * c->type to the command recognised (CMD_NONE when the word was unknown), so
 * the reply can show the right usage.
 */
enum command_error command_parse(const char *line, bool in_table, struct command *c);

/* Stable identifier of a command error ("unknown", "usage", "too-long"). */
const char *command_error_id(enum command_error e);

/* Writes the usage line of command t ("!illegal grab <card>"). */
void command_usage(char *out, size_t len, const char *lang, enum command_type t);

/* Writes the help of the table's commands (`table`) or of the private ones. */
void command_help(char *out, size_t len, const char *lang, bool table);

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
