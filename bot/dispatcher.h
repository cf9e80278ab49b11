/*
 * dispatcher.h - the one place that decides what an input means.
 *
 * The dispatcher owns every hosted game. It resolves which game an input
 * belongs to and whether its sender may act, turns commands into rules
 * actions, commits each accepted action to the store, and only then renders
 * the resulting events into messages for the game's platform. It also keeps
 * the clock: deadlines (and the reminders before them) fire from one libuv
 * timer, or, in virtual time, only when dispatcher_advance() is called.
 */
#ifndef BOT_DISPATCHER_H
#define BOT_DISPATCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/attributes.h"
#include "platform.h"

struct config;
struct metrics;
struct store;
struct dispatcher;

struct dispatcher_options {
    const struct config *config; /* borrowed; outlives the dispatcher */
    struct store *store;         /* borrowed; outlives the dispatcher */
    struct uv_loop_s *loop;
    bool virtual_time; /* time moves only through dispatcher_advance() */
    bool seeded;       /* derive every game's seed from `seed`, for reproducible games */
    uint64_t seed;
    struct metrics *metrics; /* borrowed; may be NULL */
};

/* Creates a dispatcher. Returns 0, or -1 with a reason in err. */
int dispatcher_new(struct dispatcher **out, const struct dispatcher_options *o, char *err,
                   size_t errlen) MUST_USE;

/* The host interface adapters are created with. Valid as long as d. */
const struct platform_host *dispatcher_host(struct dispatcher *d);

/* Adds a platform; d owns it from now on and destroys it. Returns 0 or -1. */
int dispatcher_add_platform(struct dispatcher *d, struct platform *p) MUST_USE;

/*
 * Restores every unfinished game of the added platforms from the store, starts
 * the platforms and arms the timers. A deadline that passed while the daemon
 * was down fires at once. Returns 0, or -1 with a reason in err.
 */
int dispatcher_start(struct dispatcher *d, char *err, size_t errlen) MUST_USE;

/* The current time in milliseconds (virtual or wall clock). */
int64_t dispatcher_now(const struct dispatcher *d);

/* Virtual time: moves the clock forward by ms, firing every deadline on the way in order. */
void dispatcher_advance(struct dispatcher *d, int64_t ms);

/* Number of games hosted now (lobbies included). */
unsigned dispatcher_game_count(const struct dispatcher *d);

/* Checks the invariants of the games' indexes and of the clock's heap
 * against every hosted game, for tests (a walk over all games, and more).
 * Returns 0, or -1 with the first one broken in why. */
int dispatcher_check(struct dispatcher *d, char *why, size_t len) MUST_USE;

/* True when every platform reports itself connected (for /readyz). */
bool dispatcher_ready(const struct dispatcher *d);

/* True when the daemon is ready and no platform's start is still waiting
 * for an answer (platform_ops.starting): the start's work is done. */
bool dispatcher_settled(const struct dispatcher *d);

/* True when the store can be written (for /healthz). */
bool dispatcher_healthy(const struct dispatcher *d);

/* Stops the platforms and the timer; inputs are refused afterwards. */
void dispatcher_stop(struct dispatcher *d);

/* Frees the dispatcher, its games and its platforms. d may be NULL. */
void dispatcher_free(struct dispatcher *d);

#endif
