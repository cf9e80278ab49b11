/*
 * lobby.h - a game before its start, as a state machine like the rules.
 *
 *     (game, lobby action, now) -> (game', lobby events)
 *
 * A lobby is the part of struct game that exists before the rules do: its
 * table, host, seats and settings. lobby_apply() is its one way to change:
 * no I/O, no clock, no globals. It either changes the game and reports what
 * happened in events, or leaves it untouched and returns why not. Settings
 * and the start are the game's rules module's (core/rules.h): the start
 * hands it the seats, and its events come back to the caller.
 *
 * Invariants (checked by the tests in tests/unit/test_lobby.c):
 *   L1. A refused action leaves the game byte for byte as it was.
 *   L2. Seats hold distinct users; at most the rules' max_players of them.
 *   L3. Once started, seats never change here: the rules remove players.
 *   L4. A closed lobby accepts nothing more.
 *   L5. A rematch seats exactly the players still in the finished game, in
 *       their order, with its settings and its kicks; a lobby opened with
 *       seats (an event's table) seats exactly those, in their order.
 *   L6. Who may join is the seat rules' (bot/seats.h): a kicked user joins
 *       only once the host says "kicked none".
 *   L7. A computer's seat has an id no person's has (S12) and a name in the
 *       table's language that no other seat has; a rematch seats the same
 *       computers, and the people computers stood in for as people.
 */
#ifndef BOT_LOBBY_H
#define BOT_LOBBY_H

#include <stdint.h>

#include "core/attributes.h"
#include "game.h"

struct config;

enum lobby_action_type {
    LOBBY_OPEN,    /* a new lobby, its record filled in by game_init(), shows itself */
    LOBBY_REMATCH, /* a new lobby takes the seats and settings of `finished` */
    LOBBY_JOIN,    /* user (name) takes the next seat; or a computer, named by the lobby */
    LOBBY_LEAVE,   /* seat leaves, before the start */
    LOBBY_SET,     /* key = value: a setting of the lobby (or of the rules, once started) */
    LOBBY_START,   /* the rules begin with the seats as they are */
    LOBBY_CLOSE,   /* the lobby ends without a game (by the host, or idle) */
};

struct lobby_action {
    enum lobby_action_type type;
    const char *user, *name;     /* JOIN */
    const char *language;        /* JOIN: the player's language (a catalog code), or NULL */
    uint8_t computer;            /* JOIN: a computer of this level (1 + its index in the
                                    rules' strategies) takes the seat; user and name unused */
    unsigned seat;               /* LEAVE */
    bool kick;                   /* LEAVE: the host removes the seat (S7) */
    const char *key, *value;     /* SET */
    const struct game *finished; /* REMATCH: a game of the same rules that is over */
    const struct seat *seats;    /* OPEN: players seated at once (an event's table), or NULL */
    unsigned nseats;             /* OPEN: how many */
    const char *why;             /* CLOSE: the catalog key of the table's notice */
    const char *by;              /* CLOSE: who closed it, or NULL */
};

enum lobby_event_type {
    LOBBY_EV_OPENED,  /* the lobby is open (new, or a rematch) */
    LOBBY_EV_JOINED,  /* seat joined */
    LOBBY_EV_LEFT,    /* a seat left; the seats after it moved up */
    LOBBY_EV_SET,     /* key is now shown_value (lobby_changed: the lobby message shows it) */
    LOBBY_EV_STARTED, /* the rules began: their events are in the caller's buffer */
    LOBBY_EV_CLOSED,  /* the lobby is over */
};

/* The settings the lobby itself keeps, beside the rules module's,
 * NULL-terminated. */
extern const char *const lobby_setting_names[];

/* What one action did. */
struct lobby_events {
    unsigned n;
    enum lobby_event_type v[4];
    unsigned seat;
    const char *key; /* SET: the setting, as the user wrote it */
    char shown_value[64];
    const char *set_reply; /* SET: the catalog key of the answer */
    bool lobby_changed;    /* the lobby message must be shown again */
    bool play_rules;       /* SET on a started game: play the rules action instead */
    bool started;          /* START: the rules' events are in the caller's buffer */
};

/* Why a lobby action was refused; each has a catalog key "msg.<id>". */
enum lobby_error {
    LOBBY_OK,
    LOBBY_ERR_STARTED,      /* the game has started */
    LOBBY_ERR_JOINED,       /* the user already has a seat */
    LOBBY_ERR_FULL,         /* every seat is taken */
    LOBBY_ERR_TOO_LONG,     /* a user id or name does not fit */
    LOBBY_ERR_NAME_IS_ID,   /* the display name would pass for a seated user's id */
    LOBBY_ERR_TOO_FEW,      /* fewer seats than the rules need */
    LOBBY_ERR_BAD_KEY,      /* no setting by that name */
    LOBBY_ERR_BAD_VALUE,    /* not a value of that setting */
    LOBBY_ERR_LOBBY_ONLY,   /* that setting is fixed once the game has started */
    LOBBY_ERR_GAME_ONLY,    /* that setting is for a running game */
    LOBBY_ERR_BAD_LANGUAGE, /* "language": not a language of the catalog */
    LOBBY_ERR_RULES,        /* the rules refused the start; `rules_error` says why */
    LOBBY_ERR_NO_MEMORY,    /* memory ran out */
    LOBBY_ERR_NO_REMATCH,   /* the game to play again never started, or is another game's */
    LOBBY_ERR_CLOSED,       /* the lobby is closed */
    LOBBY_ERR_KICKED,       /* the host kicked the user (bot/seats.h, S8) */
};

/*
 * Applies a to g at `now`. On LOBBY_OK, g has changed and ev says how; on an
 * error g is unchanged (L1). `rules_events` (rules->events_size bytes)
 * receives the rules' events of a START. A SET on a started game that the
 * rules handle (a timer) is not applied here: it returns LOBBY_OK with no
 * event, ev->play_rules set and `rules_action` (rules->action_size bytes)
 * filled in, for the caller to play through the rules. LOBBY_ERR_RULES
 * leaves the rules' error code in *rules_error.
 */
enum lobby_error lobby_apply(struct game *g, const struct lobby_action *a, const struct config *cfg,
                             int64_t now, struct lobby_events *ev, void *rules_events,
                             void *rules_action, int *rules_error) MUST_USE;

/* The catalog key of a lobby error ("msg.table-full"). */
const char *lobby_error_key(enum lobby_error e);

#endif
