/*
 * rules.h - the one interface between the bot and a game's rules.
 *
 * The bot hosts games without knowing any: it seats players, checks who may
 * do what, stores, sends and keeps time. Everything particular to a game is
 * in its rules module, a table of functions over the module's own state.
 * core/illegal/ is the first module. The interface is shaped so that the two
 * other games of the rulebooks fit it as they are: a turn-based card game
 * for 2-6 (Palm & Drewes' Illegal: its turn order is its phase, and a turn
 * timer its deadline) and a worker-placement game with hidden money
 * (Counterfeiters: hidden money is a private message, like a hand).
 *
 * Every function is pure: no I/O, no clock (`now` is given), no globals;
 * randomness comes from the rng it is given. The state is plain data of
 * state_size bytes with no pointers, so the bot can copy it for a snapshot,
 * put it back when a commit fails, and store it as it lies in memory for
 * the next start of the same build (bot/image.h).
 */
#ifndef CORE_RULES_H
#define CORE_RULES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "command.h"
#include "message.h"
#include "rng.h"
#include "strategy.h"

struct json_object;

/* The most seats any module allows: the size of the bot's seat list. */
#define RULES_MAX_SEATS 8

/* The room a module has for one change's events (a module with more is a
 * build error: see rules_module.events_size). */
#define RULES_EVENTS_MAX (64 * 1024)

/*
 * What a module sees of the table a game is played at, to write messages:
 * its game id, language and seats. The bot owns it.
 */
struct rules_table {
    const char *game;    /* "g7" */
    const char *channel; /* the table's id on its platform, for every message's data */
    const char *lang;
    unsigned nseats;
    const char *const *users; /* user id of each seat */
    const char *const *names; /* display name of each seat */
    const char *const *langs; /* each seat's language for its private messages */
};

/* Why a name a user typed (a card, a player) did not resolve. */
enum resolve_error {
    RESOLVE_OK,
    RESOLVE_UNKNOWN,      /* no card or player by that name: `choices` lists them */
    RESOLVE_AMBIGUOUS,    /* several match: `choices` lists them */
    RESOLVE_NOT_TRADABLE, /* a role or suspect card was named */
    RESOLVE_BAD_COUNT,    /* a count of 0, over 99, or a count with no card */
};

/* A player's result of a finished game, for statistics. */
struct rules_result {
    bool played; /* still in the game at its end (not removed) */
    int score;
    unsigned rank; /* 1 for the best; tied scores share a rank */
    bool won;
    bool tally;   /* the one thing the game counts of a player's games, {tally} in its stats_line
                     (Illegal: found out, a suspect card of theirs came back to them; Palm &
                     Drewes: called the Day of Reckoning) */
    bool aborted; /* the game ended early (the host's end, too few players): nobody won it,
                     and it counts in no statistics */
};

/* One step a game may take from phase to phase, as phase() names them ("" for
 * the lobby, before setup): a module lists every step its rules make. */
struct rules_transition {
    const char *from, *to;
};

/* The most settings a module may declare. */
#define RULES_SETTINGS_MAX 24

/* What a setting's value is. */
enum rules_setting_kind {
    RULES_DURATION, /* seconds within [min, max]; `set` takes "90s", "2h" */
    RULES_CHOICE,   /* one of values[]; a default is its index there */
    RULES_WORDS,    /* words the module reads itself ("guns, alcohol", "hold, close-early") */
};

/* Where a setting may be changed (bits). */
enum rules_setting_where {
    RULES_IN_LOBBY = 1u << 0,  /* `set` before the start */
    RULES_IN_GAME = 1u << 1,   /* `set` once started (the module makes it an action) */
    RULES_IN_CONFIG = 1u << 2, /* its default in the daemon's [game.<module>] section */
};

/*
 * One setting of a module: everything the config loader, `set`, the lobby,
 * help and native command options know of it. A module lists them in
 * rules_module.settings_table, ended by an entry with no name; the value of a
 * default is written only there.
 */
struct rules_setting {
    const char *name; /* as `set` takes it ("session"); its config key is the name with '-' as
                         '_', and "_seconds" after a duration ("session_seconds") */
    enum rules_setting_kind kind;
    unsigned where;            /* enum rules_setting_where bits */
    int64_t def, min, max;     /* the default (seconds, or a choice's index); a duration's bounds */
    const char *const *values; /* RULES_CHOICE: its values, NULL-terminated, as typed */
    const char *label;         /* catalog key: what it is, in a few words ("dealing session") */
    const char *help;          /* catalog key: one line on what it does */
};

/*
 * The daemon's defaults of a module's settings, one value per entry of its
 * table (rules_module.settings_table), the table's own defaults unless the
 * configuration changed them. rules_defaults_init() fills one.
 */
struct rules_defaults {
    int64_t value[RULES_SETTINGS_MAX];
};

/* Receives one completion of what a user types: what they read, and what it
 * types (a user id for a player's name). Both borrowed for the call. */
typedef void (*rules_choice_fn)(void *arg, const char *name, const char *value);

/* What a lobby setting did. */
enum rules_set_result {
    RULES_SET_DONE,      /* the state changed; `shown` is the value as the table reads it */
    RULES_SET_PLAY,      /* not a setting to change here: play `action` through the rules */
    RULES_SET_BAD_KEY,   /* no such setting */
    RULES_SET_BAD_VALUE, /* not a value of that setting */
    RULES_SET_LOCKED,    /* fixed once the game has started */
    RULES_SET_GAME_ONLY, /* a setting of a running game: not in the lobby */
};

/* How the host steers a running game: every module understands these. */
enum rules_steer {
    RULES_TICK,   /* time has passed: fire the deadline if it is due */
    RULES_PAUSE,  /* freeze the clock */
    RULES_RESUME, /* restart it */
    RULES_EXTEND, /* add `ms` to the current deadline */
    RULES_NEXT,   /* end the current step now */
    RULES_END,    /* go straight to the end and the scores */
    RULES_REMOVE, /* take `seat` out of the game (kicked, or left) */
};

struct rules_module {
    /* Stored with each game, so a record is read by the module that wrote it. */
    const char *id;
    /* How many may play: the lobby refuses to start with fewer, to seat more. */
    unsigned min_players, max_players;
    /* The sizes the bot allocates: the state, one change's events, one action. */
    size_t state_size, events_size, action_size;

    /* -- The lobby ------------------------------------------------------ */

    /* Its settings, ended by an entry with no name (see struct rules_setting).
     * NULL: a module still without one has no [game.<id>] keys, and lists the
     * names `set` takes in setting_names ("series, turn"). */
    const struct rules_setting *settings_table;
    const char *setting_names;
    /* The ways it can be played ("standard", "casual"), NULL-terminated: what
     * `new <mode>` takes. */
    const char *const *modes;
    /* The catalog keys of the modes' names: this, a dot and the mode
     * ("illegal.variant" for Illegal's: illegal.variant.casual). */
    const char *mode_keys;
    /* Catalog keys: the rules in a few lines (`rules`), and a player's
     * statistics line in its words ({player} {count} {wins} {average}, and
     * {tally}: how often the thing it counts happened, struct rules_result). */
    const char *rules_summary, *stats_line;
    /* Its settings may also be written in the daemon's plain [game] section,
     * as before games had sections of their own (Illegal's, for old files). */
    bool config_in_game_section;

    /* Sets up a lobby's settings for `mode` ("standard"; NULL: the default
     * the daemon's settings give). Returns 0, or -1 when the mode does not exist. */
    int (*init)(void *state, const char *mode, const struct rules_defaults *defaults);
    /* Sets up a lobby's settings as those of `finished`, a game of this
     * module that has ended: a rematch plays by the same settings. */
    void (*rematch)(void *state, const void *finished);
    /* The mode the lobby shows ("casual"). */
    const char *(*mode)(const void *state);
    /* The i-th ready-made set of settings the host may pick with "set preset
     * <id>" (i from 0), or NULL past the last: a string that lives as long as
     * the program. */
    const char *(*preset_at)(unsigned i);
    /* Describes the lobby's settings: one field each in `out` (durations in
     * seconds; "preset": the id of the preset they equal, or null) and one
     * line for the lobby message in text. Returns 0, or -1 (no memory). */
    int (*settings)(const void *state, const char *lang, const struct rules_defaults *defaults,
                    struct json_object *out, char *text, size_t len);
    /* Changes a setting by its name, as the host typed it. Before the start it
     * changes the state; once started the module may ask for an action. */
    enum rules_set_result (*set)(void *state, bool started, const char *key, const char *value,
                                 const char *lang, const struct rules_defaults *defaults,
                                 char *shown, size_t shownlen, void *action);

    /* -- The rules ------------------------------------------------------ */

    /* Starts the game with nseats players. Returns 0 or an error (error_id). */
    int (*setup)(void *state, unsigned nseats, int64_t now, struct rng *rng, void *events);
    /* Applies an action. Returns 0 with its events, or an error with the
     * state unchanged. */
    int (*apply)(void *state, const void *action, int64_t now, struct rng *rng, void *events);
    /* Whether `events` holds anything: with none, nothing is stored or sent. */
    bool (*has_events)(const void *events);
    /* Writes the action of a steering command (as the GM) into action. */
    void (*steer)(void *action, enum rules_steer s, unsigned seat, int64_t ms);
    /* Names an error code: its catalog key is error_keys followed by the id
     * ("<id>.error.": "illegal.error.", so "illegal.error.paused"). */
    const char *(*error_id)(int error);
    const char *error_keys;

    /* -- What the bot needs to know of a running game -------------------- */

    /* When the game next needs a RULES_TICK (ms, like now), or 0. */
    int64_t (*deadline)(const void *state);
    /* Whether the game has ended (scores are out). */
    bool (*over)(const void *state);
    /* Seat's result once the game is over. */
    void (*result)(const void *state, unsigned seat, struct rules_result *out);
    /* Whether a seat still plays (not removed). */
    bool (*active)(const void *state, unsigned seat);
    /* What seat must still do in the current step, as the catalog key of a
     * private reminder ("illegal.msg.nudge-vote"), or NULL when nothing waits on them. */
    const char *(*needs)(const void *state, unsigned seat);
    /* Whether the clock is paused. */
    bool (*paused)(const void *state);
    /* The id of the current phase ("session", "vote"), for metrics and hooks:
     * a string that lives as long as the program. */
    const char *(*phase)(const void *state);
    /* The i-th phase id a running game can be in (i from 0), or NULL past
     * the last: the labels of the games-by-phase gauge. */
    const char *(*phase_at)(unsigned i);
    /* Every phase change one setup or apply can make, ended by an entry with
     * no from: debug builds check each change against it (bot/pipeline.c),
     * and the module's own apply checks its invariants there. */
    const struct rules_transition *transitions;

    /* -- The store ------------------------------------------------------ */

    /* Adds the state's fields to a game's record. Returns 0 or -1 (no memory). */
    int (*save)(const void *state, bool started, struct json_object *record);
    /* Reads them back, checking every value and the rules' invariants.
     * Returns 0, or -1 with a reason in why. */
    int (*load)(void *state, bool started, unsigned nseats, const struct json_object *record,
                char *why, size_t whylen);

    /* -- Commands and messages ------------------------------------------ */

    /* The topics of its messages' keys ("hand": per user; "offer": a number
     * and a user), ended by one with no topic; another game may share a
     * topic only with the same parts (tests/unit/test_modules.c). */
    const struct msg_topic *topics;

    /* The module's own commands (a player's moves), in the form of the bot's
     * table, ended by an entry with no word: the bot parses, checks and
     * answers them like its own. */
    const struct command_def *commands;

    /* Brings the state's record of what the table was shown up to date with
     * one change's events; called before the change is stored. */
    void (*note)(void *state, const void *events);
    /* Renders one change's events, made at `now` (what time left is counted
     * from). */
    void (*render)(const void *state, const struct rules_table *t, const void *events, int64_t now,
                   rules_emit_fn emit, void *arg);
    /* Renders a seat's private view (roles, hand). `fresh`: a new message,
     * not an edit of the last one. */
    void (*render_private)(const void *state, const struct rules_table *t, unsigned seat,
                           bool fresh, rules_emit_fn emit, void *arg);
    /* Renders, for someone who has just taken seat over from another player,
     * what the seat has done in the step under way that they may still
     * change and the questions open to it, at `now` (what time left is
     * counted from): in Illegal its votes on the cases open now, in Palm &
     * Drewes' its prompts. May emit nothing. */
    void (*render_taken)(const void *state, const struct rules_table *t, unsigned seat, int64_t now,
                         rules_emit_fn emit, void *arg);
    /* Writes what the Game Master sees of a running game: every seat's roles
     * and cards, open offers, the drop, the votes so far. Secret: the bot
     * gives it only to a host or moderator who does not play. */
    void (*gm_view)(const void *state, const struct rules_table *t, char *out, size_t len);
    /* Writes the status line of a running game (phase, time left). */
    void (*status)(const void *state, const struct rules_table *t, int64_t now, char *out,
                   size_t len);
    /* Completes what seat is typing as `option` of its command `word`, for a
     * platform that offers choices as one types: each player, card or value
     * it may name now that starts as typed. May be NULL. */
    void (*complete)(const void *state, const struct rules_table *t, unsigned seat,
                     const char *word, const char *option, const char *typed, rules_choice_fn add,
                     void *arg);
    /* Maps a reaction on one of its messages to an action of seat. Returns
     * true when it is one. */
    bool (*reaction)(const void *state, const struct msg_key *key, const char *emoji, unsigned seat,
                     void *action);

    /* -- Computer players (core/strategy.h) ------------------------------ */

    /* The size of a seat's view, the only thing a strategy is handed. */
    size_t view_size;
    /* Writes into view what seat may know now: its own roles, hand, offers
     * and votes, the public table, and those of `events` (one change's; NULL
     * for none) that were shown to seat. Returns whether any were. */
    bool (*seat_view)(const void *state, unsigned seat, const void *events, void *view);
    /* Its levels of computer player, the default first, ended by an entry
     * with no id. */
    const struct rules_strategy *strategies;
};

/* Whether a change from phase `from` to phase `to` is in the list. */
bool rules_transition_ok(const struct rules_transition *list, const char *from, const char *to);

/* The entry of `table` called name (as typed, any case), or NULL. */
const struct rules_setting *rules_setting_find(const struct rules_setting *table, const char *name);

/* Finds key in table, and whether it may be set now (before the start, or
 * once `started`): RULES_SET_DONE with *row set when it may, else
 * RULES_SET_BAD_KEY, RULES_SET_LOCKED or RULES_SET_GAME_ONLY. What every
 * module's `set` begins with. */
enum rules_set_result rules_setting_check(const struct rules_setting *table, const char *key,
                                          bool started, const struct rules_setting **row);

/* Its index in its module's table. */
unsigned rules_setting_index(const struct rules_module *m, const struct rules_setting *s);

/* m's settings table; an empty one for a module without. */
const struct rules_setting *rules_settings(const struct rules_module *m);

/* Fills d with the defaults m's table gives. */
void rules_defaults_init(const struct rules_module *m, struct rules_defaults *d);

/* Writes the names `set` takes, "preset, variant, session", into out. */
void rules_setting_names(const struct rules_module *m, char *out, size_t len);

/* Writes s's key in the configuration ("casual_session_seconds") into out. */
void rules_setting_config_key(const struct rules_setting *s, char *out, size_t len);

/* Reads a configuration value of s: a duration's whole seconds within its
 * bounds, a choice's value. Returns 0 with *value set, or -1 with the reason
 * in why. */
int rules_setting_parse_config(const struct rules_setting *s, const char *text, int64_t *value,
                               char *why, size_t whylen);

/* Writes a value of s as the configuration reads it ("180", "casual"). */
void rules_setting_config_text(const struct rules_setting *s, int64_t value, char *out, size_t len);

#endif
