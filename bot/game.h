/*
 * game.h - a hosted game: its table, its seats, and the rules state.
 *
 * A game lives at one table (a channel of one platform) from "!illegal new"
 * until it ends. Before the start it is a lobby: seats fill up and the host may
 * change settings. After the start, `state` holds the rules engine's game,
 * and seat i of the lobby is seat i of the rules.
 */
#ifndef BOT_GAME_H
#define BOT_GAME_H

#include <stdbool.h>
#include <stdint.h>

#include "core/illegal/illegal.h"
#include "core/rng.h"

struct platform;
struct json_object;

#define GAME_ID_MAX   24
#define GAME_TEXT_MAX 256 /* user ids, display names and table ids */

struct seat {
    char user[GAME_TEXT_MAX];
    char name[GAME_TEXT_MAX];
    bool dm_unreachable; /* the last DM probe failed */
};

/* Who took a drop card, when nobody (yet) or nobody known did. */
#define GAME_DROP_ON_TABLE (-1)
#define GAME_DROP_UNKNOWN  (-2) /* taken, in a record older than this field */

/*
 * The drop as the table sees it. The rules clear their drop as soon as it
 * ends, and never say who took which card; this record keeps both, so that
 * every edit of the drop message, the last one included, lists each card
 * and who took it. Kept in step by render_note().
 */
struct game_drop {
    uint8_t number;              /* 1..4; 0 before the first drop */
    uint8_t count;               /* cards shown so far */
    uint8_t cards[IL_RESOURCES]; /* resources, in reveal order */
    int8_t taker[IL_RESOURCES];  /* seat that took each card, or GAME_DROP_* */
    uint8_t leftover;            /* bit i: card i was handed out, not grabbed */
    bool open, done;             /* grabbing has begun; the drop is over */
};

struct game {
    char id[GAME_ID_MAX]; /* "g7" */
    struct platform *platform;
    char table[GAME_TEXT_MAX];
    char host[GAME_TEXT_MAX];      /* user id of the creator, who may moderate */
    char host_name[GAME_TEXT_MAX]; /* their display name */
    char language[8];
    bool started;
    unsigned nseats;
    struct seat seats[IL_MAX_PLAYERS];
    struct il_config config;
    bool
        poll_ballots; /* tribunal votes as a native poll in the table, where the platform has one */
    uint64_t seed;
    struct rng rng;
    struct il_game state;
    struct game_drop drop;

    /* Reminders: which were sent for the deadline they refer to. */
    int64_t tracked_deadline;
    int64_t phase_length;
    uint8_t reminders_sent;

    /* A lobby's last change (ms); it closes once idle for [game] lobby_idle_seconds. */
    int64_t lobby_activity;

    /* Lobby start in progress: DM probes still unanswered. Not stored. */
    unsigned probes_pending;

    /* Closed without a game (ended by the host, or idle): stored as finished,
     * then dropped. Not stored otherwise. */
    bool closed;
};

/* Returns the seat of user, or -1. */
int game_seat_of(const struct game *g, const char *user);

/* A display name for seat i: the name if known, else the user id. */
const char *game_seat_name(const struct game *g, unsigned i);

/* Serialises the whole record (lobby, seats, rules state, rng). New object, caller owns. */
struct json_object *game_to_json(const struct game *g);

/*
 * Restores a record written by game_to_json() into g (platform left NULL).
 * Returns 0, or -1 with a reason in why when the record is damaged.
 */
int game_from_json(struct game *g, const struct json_object *j, char *why, size_t whylen);

#endif
