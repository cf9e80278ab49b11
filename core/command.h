/*
 * command.h - what a command is: its entry in a command table, the line as
 * parsed, and what its handler is given.
 *
 * The bot has a table of the commands every game shares (the lobby, the
 * host's steering); each rules module has a table of its own (a player's
 * moves). Entries of both have the same form and their handlers the same
 * signature, so parsing, permission checks, usage errors, help and native
 * command registration treat every command alike.
 */
#ifndef CORE_COMMAND_H
#define CORE_COMMAND_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

struct rules_module;
struct rules_msg;
struct rules_table;

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
    ARGS_DURATION,  /* ms: a duration ("90s", "2h", "1d"; a bare number is minutes) */
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
    /* Or values known when asked (the games this build has, their modes):
     * writes at most max into out and returns how many. NULL: none. */
    unsigned (*values_of)(const char **out, unsigned max);
    /* And where they depend on the game (set's settings): game's values, as
     * values_of writes them. NULL: they do not. */
    unsigned (*values_in)(const struct rules_module *game, const char **out, unsigned max);
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

#define COMMAND_ARG_MAX 256

/*
 * A parsed line. Text arguments are copied into the struct (truncated lines
 * are refused), so it owns no memory.
 */
struct command {
    const struct command_def *def; /* NULL: not a command, or an unknown word */
    bool table;                    /* came as "!illegal ..." */
    char game[16];                 /* "g7" when the user named the game, else "" */
    char arg[COMMAND_ARG_MAX];     /* first argument: variant, resource, player, key */
    char arg2[COMMAND_ARG_MAX];    /* SET value; OFFER: the cards given */
    char arg3[COMMAND_ARG_MAX];    /* OFFER: the cards asked */
    long number;                   /* ACCEPT/DECLINE/CANCEL offer id */
    int64_t ms;                    /* EXTEND: the duration */
};

/*
 * What the bot offers a handler: every answer and every change goes through
 * these, so a handler of a rules module does no I/O of its own.
 */
struct command_host {
    /* Answers the user with a catalog text (privately for private commands). */
    void (*reply)(struct command_ctx *x, const char *key, const char *const *vars);
    /* Resolves a player name among the game's active seats; answers the user
     * and returns false when it does not resolve. */
    bool (*player)(struct command_ctx *x, const char *text, int *seat);
    /* Plays a rules action of the game, through the one path of every change.
     * The game may end (and be freed) with it: read nothing of x->state after. */
    void (*play)(struct command_ctx *x, const void *action);
    /* Sends a message the handler rendered (to the user's seat or the table). */
    void (*show)(struct command_ctx *x, const struct rules_msg *m);
};

/* What a handler is given: the command and the game it is for, all checked. */
struct command_ctx {
    const struct command *c;
    const char *lang;                /* the game's language, else the daemon's */
    int seat;                        /* the user's seat in the game, or -1 */
    const void *state;               /* the game's rules state; NULL when it needs no game */
    const struct rules_table *table; /* the game's table; NULL when it needs no game */
    const struct command_host *host;
};

#endif
