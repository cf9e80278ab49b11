/*
 * game.h - a hosted game: its table, its seats, and the rules state.
 *
 * A game lives at one table (a channel of one platform) from "!illegal new"
 * until it ends. Before the start it is a lobby: seats fill up and the host may
 * change settings. After the start, seat i of the lobby is seat i of the
 * rules. What the game is (its rules, settings and state) belongs to its
 * rules module (core/rules.h); this record is the same for every game.
 */
#ifndef BOT_GAME_H
#define BOT_GAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include "core/attributes.h"
#include "core/rng.h"
#include "core/rules.h"

struct platform;
struct json_object;
struct game_chat;

#define GAME_ID_MAX       24
#define GAME_TEXT_MAX     256 /* user ids, display names and table ids */
#define GAME_MAX_WATCHERS 4   /* Game Masters following a game's view at once */
#define GAME_MAX_INSIDERS 32  /* users a game remembers as knowing its secrets (bot/seats.h) */
#define GAME_MAX_KICKED   16  /* users a game remembers as kicked (bot/seats.h) */

struct seat {
    char user[GAME_TEXT_MAX];
    char name[GAME_TEXT_MAX];
    bool dm_unreachable; /* the last DM probe failed */
    bool reminders_off;  /* the player muted the private reminders */
    bool open;           /* offered to someone else: the next to join takes it over */
    int64_t last_move;   /* when the player last changed the game (ms), set at the start;
                            -1: unknown (a record from before it was kept) */
    bool absent_warned;  /* told of their absence since last_move */
    char language[8];    /* the player's language for private messages; "": the table's */
    /* A computer plays the seat (bot/computers.h): 1 + the index of its level
     * in rules->strategies, or 0 for a person. */
    uint8_t computer;
    /* With computer: it stands in for the seat's person (user and name are
     * theirs), who gets the seat back the moment they act again (S14). */
    bool standin;
};

struct game;
struct user_games;

/* One seat in the index of its player's games (bot/games.c). */
struct seat_link {
    TAILQ_ENTRY(seat_link) next; /* the player's next seat, in any game */
    struct game *g;
    struct user_games *user; /* the index entry of the player; NULL: not indexed */
};

/*
 * Where the dispatcher keeps a hosted game: its place in the indexes
 * (games.c), the deadline heap (timers.c) and the loop turn (turn.c). None of
 * it belongs to the game's record, so a snapshot put back keeps it as it is
 * (game_put_back).
 */
struct game_links {
    bool hosted;                             /* in the indexes */
    struct seat_link seats[RULES_MAX_SEATS]; /* seat i, as the player index has it */
    struct user_games *host;                 /* counted among its host's lobbies, or NULL */
    unsigned *community;                     /* counted among its community's lobbies, or NULL */
    bool lobby;                              /* counted among the lobbies */
    int phase;                               /* its slot in the games-by-phase counts, or -1 */
    size_t heap;            /* 1 + its place in the deadline heap; 0: nothing due */
    int64_t due;            /* when it next needs the clock, as the heap has it */
    uint64_t order;         /* when it was hosted: games due at once fire in this order */
    LIST_ENTRY(game) stale; /* among the games whose due time is to be found again */
    bool is_stale;
    unsigned turn; /* 1 + its place among the loop turn's games, or 0 */
    size_t firing; /* 1 + its place among the games being fired, or 0 */
    bool refill;   /* read from its record by the start, unchanged since: refill.c writes its
                      image */
};

struct game {
    char id[GAME_ID_MAX]; /* "g7" */
    struct platform *platform;
    char table[GAME_TEXT_MAX];
    char host[GAME_TEXT_MAX];      /* user id of the creator, who may moderate */
    char host_name[GAME_TEXT_MAX]; /* their display name */
    char language[8];
    char community[GAME_TEXT_MAX]; /* the table's server (see inbound.community); "": none */
    char event[GAME_ID_MAX];       /* the event it is played in (event.h), or "" */
    bool started;
    unsigned nseats;
    struct seat seats[RULES_MAX_SEATS];
    uint64_t seed;
    struct rng rng;
    /* The game's rules, and their state: rules->state_size bytes, owned by
     * the game (game_free). Its settings exist from the lobby on; the rules'
     * game once started. */
    const struct rules_module *rules;
    void *state;

    /* Reminders: which were sent for the deadline they refer to. */
    int64_t tracked_deadline;
    int64_t phase_length;
    uint8_t reminders_sent;

    /* A lobby's last change (ms); it closes once idle for [game] lobby_idle_seconds. */
    int64_t lobby_activity;
    /* When the host scheduled the start (ms), or 0. */
    int64_t start_at;

    /* Who follows the Game Master's view ("gm follow"): it is sent to them
     * in private and kept up to date after every change. */
    char watchers[GAME_MAX_WATCHERS][GAME_TEXT_MAX];
    unsigned nwatchers;

    /* The seat rules' memory (bot/seats.h, docs/seats.md), as hashes of user
     * ids: who has seen secrets a seat does not know (S4), and who the host
     * kicked, from this game or the one it plays again (S8). */
    uint64_t insiders[GAME_MAX_INSIDERS];
    unsigned ninsiders;
    uint64_t kicked[GAME_MAX_KICKED];
    unsigned nkicked;

    /* The table's chat, on a platform without its own (chat.h); NULL: none.
     * Never changed in place: a new line makes a new block. */
    struct game_chat *chat;

    /* Computer players (bot/computers.h). minds: nseats memories of
     * game_mind_size() bytes each, the strategies' whole state, stored with
     * the game; NULL until a computer plays a seat of the running game. */
    void *minds;
    uint8_t stand_in;        /* the table's setting: a computer of level stand_in - 1 plays for
                                a player absent [game] absent_seconds; 0: off */
    uint8_t computers_named; /* computers seated so far: the next one's number */
    int64_t computers_asked; /* when a computer was last asked to move (ms), or 0 */
    int64_t computers_moved; /* when one last moved (ms), or 0: the platform's pace */

    /* Lobby start in progress: DM probes still unanswered. Not stored. */
    unsigned probes_pending;

    /* Closed without a game (ended by the host, or idle): deleted from the
     * store, then dropped (turn.c, T8). Not stored otherwise. */
    bool closed;

    struct game_links links; /* not the record: see struct game_links */
};

/*
 * Makes g a new lobby of `rules` in `mode` (NULL: the module's default).
 * Allocates g->state. Returns 0; -1 when the mode does not exist (g holds
 * nothing to free) or memory runs out.
 */
int game_init(struct game *g, const struct rules_module *rules, const char *mode,
              const struct rules_defaults *defaults) MUST_USE;

/* Frees g and its state. NULL is fine. */
void game_free(struct game *g);

/* The size of one seat's computer memory in g->minds: the largest of its
 * module's levels, rounded up for alignment. */
size_t game_mind_size(const struct game *g);

/* Seat i's computer memory, or NULL when g has none. */
void *game_mind(const struct game *g, unsigned i);

/* The level playing seat i, or NULL for a person. */
const struct rules_strategy *game_seat_level(const struct game *g, unsigned i);

/* Whether seat i is a computer's own (not a person's it stands in for):
 * its private messages go nowhere. */
bool game_seat_is_computer(const struct game *g, unsigned i);

/* Puts g back as `before` was (a copy of g taken earlier, whose state was
 * saved apart in before_state), keeping g's state buffer and its links. A
 * chat block or computers' memories of g that are not before's (made since,
 * or before holds a copy of them) are freed: g owns before's from now on. */
void game_put_back(struct game *g, const struct game *before, const void *before_state);

/* Whether seat i still plays: seated, and not removed by the rules. */
bool game_active(const struct game *g, unsigned i);

/* Whether g is over or closed: stored as finished, then no longer hosted. */
bool game_finished(const struct game *g);

/* The view of g's table its rules module renders with (t), and the arrays it
 * points to, which point into g. */
struct game_view {
    struct rules_table t;
    const char *users[RULES_MAX_SEATS], *names[RULES_MAX_SEATS], *langs[RULES_MAX_SEATS];
};

/* Fills v from g; v is valid while g's seats do not change. */
void game_view(const struct game *g, struct game_view *v);

/* The language seat i reads private messages in: its own, else the table's. */
const char *game_seat_language(const struct game *g, unsigned i);

/* Returns the seat of user, or -1. */
int game_seat_of(const struct game *g, const char *user);

/* A display name for seat i: the name if known, else the user id. */
const char *game_seat_name(const struct game *g, unsigned i);

/* Writes the display names of every seat, comma-separated, into out. */
void game_seat_names(const struct game *g, char *out, size_t len);

/* Serialises the whole record (lobby, seats, rules state, rng). New object, caller owns. */
struct json_object *game_to_json(const struct game *g);

/*
 * Restores a record written by game_to_json() into g (platform left NULL),
 * allocating g->state (freed by game_free(), also on failure). Returns 0, or
 * -1 with a reason in why when the record is damaged.
 */
int game_from_json(struct game *g, const struct json_object *j, char *why, size_t whylen) MUST_USE;

#endif
