/*
 * event.h - an event: a moderator's evening of several tables and rounds.
 *
 * An event is opened in a channel (its hall) of one community, by a
 * moderator who becomes its organiser. Players sign up; channels become its
 * tables; the organiser seats the players at the tables, balanced or by
 * hand, and starts a round: a game at each table that has players, hosted
 * by the organiser, who steers each one like any host. The event's
 * leaderboard counts the results of its games (store.h, results.event).
 *
 * The record changes only through the functions here, which do no I/O and
 * keep no state of their own: each either changes the event and returns
 * EVENT_OK, or leaves it as it was and returns why not. Whether a round is
 * being played is the dispatcher's knowledge (the games it hosts), so its
 * callers check that first.
 *
 * Invariants (checked by tests/unit/test_event.c):
 *   E1. A refused change leaves the event byte for byte as it was.
 *   E2. Players are distinct users, tables distinct channels, each within
 *       EVENT_MAX_PLAYERS and EVENT_MAX_TABLES.
 *   E3. A player's table is EVENT_NO_TABLE or the index of one of the tables.
 *   E4. Balanced seating uses no more tables than the event has and seats
 *       every player; each table used gets min to max players, and their
 *       sizes differ by at most one.
 *   E5. A round starts only when every player has a table and every table
 *       with players has min to max of them (event_check_round).
 */
#ifndef BOT_EVENT_H
#define BOT_EVENT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/attributes.h"
#include "game.h"

#define EVENT_MAX_PLAYERS 64
#define EVENT_MAX_TABLES  8
#define EVENT_NAME_MAX    64
#define EVENT_NO_TABLE    (-1)

struct event_player {
    char user[GAME_TEXT_MAX];
    char name[GAME_TEXT_MAX];
    char language[8]; /* their language for private messages, or "" */
    int table;        /* index into tables, or EVENT_NO_TABLE */
};

struct event_table {
    char channel[GAME_TEXT_MAX];
    char game[GAME_ID_MAX]; /* the game of the latest round here, or "" */
};

struct event {
    char id[GAME_ID_MAX]; /* "e3" */
    char name[EVENT_NAME_MAX];
    struct platform *platform;
    char community[GAME_TEXT_MAX];
    char hall[GAME_TEXT_MAX]; /* the channel where it was opened */
    char organizer[GAME_TEXT_MAX], organizer_name[GAME_TEXT_MAX];
    unsigned round; /* rounds started so far */
    bool closed;
    uint64_t seed; /* balanced seating of round r draws from seed and r */
    unsigned nplayers;
    struct event_player players[EVENT_MAX_PLAYERS];
    unsigned ntables;
    struct event_table tables[EVENT_MAX_TABLES];
};

/* Why a change was refused; each has a catalog key (event_error_key). */
enum event_error {
    EVENT_OK,
    EVENT_ERR_JOINED,       /* the user has signed up already */
    EVENT_ERR_NOT_JOINED,   /* the user has not signed up */
    EVENT_ERR_FULL,         /* EVENT_MAX_PLAYERS have signed up */
    EVENT_ERR_TOO_LONG,     /* a user id, name or channel does not fit */
    EVENT_ERR_TABLE_EXISTS, /* the channel is a table already */
    EVENT_ERR_TABLES_FULL,  /* the event has EVENT_MAX_TABLES tables */
    EVENT_ERR_TOO_FEW,      /* fewer players than one table needs */
    EVENT_ERR_NEED_TABLES,  /* the players need more tables than there are */
    EVENT_ERR_BAD_TABLE,    /* no table by that number */
    EVENT_ERR_UNSEATED,     /* a player has no table */
    EVENT_ERR_TABLE_SIZE,   /* a table has too few or too many players */
};

/* The catalog key of an error ("msg.event-full"); EVENT_OK has none. */
const char *event_error_key(enum event_error e);

/* The index of user among the players, or -1. */
int event_player_of(const struct event *e, const char *user);

/* The index of the table at channel, or -1. */
int event_table_of(const struct event *e, const char *channel);

/* How many players sit at table t. */
unsigned event_table_count(const struct event *e, int t);

/* Signs user (name, language: NULL for none) up, without a table. */
enum event_error event_sign_up(struct event *e, const char *user, const char *name,
                               const char *language) MUST_USE;

/* Takes player i's sign-up back; the players after it move up. */
enum event_error event_withdraw(struct event *e, unsigned i) MUST_USE;

/* Makes channel a table of the event, the next by number. */
enum event_error event_add_table(struct event *e, const char *channel) MUST_USE;

/* Takes table t away; its players have no table, the tables after it move
 * up a number. */
enum event_error event_remove_table(struct event *e, unsigned t) MUST_USE;

/*
 * Seats every player afresh, balanced (E4), in an order drawn from the
 * event's seed and round: as many of the tables as can each get `min`, and
 * enough of them that none gets more than `max`. EVENT_ERR_NEED_TABLES
 * leaves in *needed the tables the players need; EVENT_ERR_TOO_FEW is for
 * fewer than min players.
 */
enum event_error event_seat_balanced(struct event *e, unsigned min, unsigned max,
                                     unsigned *needed) MUST_USE;

/* Seats player i at table t (EVENT_NO_TABLE: at none). */
enum event_error event_move(struct event *e, unsigned i, int t) MUST_USE;

/* Checks E5 for a round of a game of min to max players. On
 * EVENT_ERR_TABLE_SIZE, *table is the first table out of bounds. */
enum event_error event_check_round(const struct event *e, unsigned min, unsigned max,
                                   unsigned *table) MUST_USE;

/* Serialises the record. New object, caller owns; NULL on no memory. */
struct json_object *event_to_json(const struct event *e);

/* Restores a record written by event_to_json() into *out (platform left
 * NULL). Returns 0, or -1 with a reason in why when it is damaged (E2, E3
 * checked); *out is unchanged then. */
int event_from_json(struct event *out, const struct json_object *j, char *why,
                    size_t whylen) MUST_USE;

#endif
