/*
 * computers.h - computer players at a game's seats: the host side of
 * core/strategy.h.
 *
 * A computer plays a seat from the seat's view and its own memory, which the
 * game keeps (g->minds) and stores with every change. The host drives it:
 *
 *   - at the start, and when a computer begins to stand in for a person, its
 *     memory is made with the level's start(), from a seed drawn from the
 *     game's own rng (a replay draws the same);
 *   - after every change of the game, in the pipeline before the change is
 *     stored, each computer seat shown any of its events takes them in
 *     (observe());
 *   - when its wake time is due, which is one more due time of its game
 *     (timers.c), it is asked for its move (act()), which is played as its
 *     seat's move through the pipeline, like a person's.
 *
 * Invariants:
 *   K1. A computer is handed its seat's view and nothing else: the state
 *       never reaches a strategy (rules_module.seat_view builds the view).
 *   K2. Its memory changes only inside a change or a turn the store commits
 *       (turn.c keeps a copy to undo): a kill -9 loses nothing and doubles
 *       nothing, since a move decided but not committed is decided again
 *       from the same stored memory.
 *   K3. A game asks its computers at most once a millisecond, and lets them
 *       move no faster than its platform allows (platform_ops.computer_gap_ms).
 *   K4. The private messages of a computer's own seat go nowhere: it has no
 *       platform user (send.c). A computer standing in for a person plays the
 *       person's seat, whose messages still go to the person.
 */
#ifndef BOT_COMPUTERS_H
#define BOT_COMPUTERS_H

#include <stddef.h>
#include <stdint.h>

#include "core/attributes.h"
#include "game.h"

struct dispatcher;

/* The level numbered n (1 + its index in rules->strategies), or NULL. */
const struct rules_strategy *computers_level(const struct rules_module *rules, unsigned n);

/* The number of the level named id (any case), or 0. */
unsigned computers_level_named(const struct rules_module *rules, const char *id);

/* Writes the name of g's computer number n (from 1) into out: a computer's
 * name in the table's language ("Ada-bot"), that no seat of g has yet. */
void computers_name(const struct game *g, unsigned n, char *out, size_t len);

/* g has just started (its setup's events in `events`): each computer seat's
 * memory is made and takes in what it was dealt. Returns 0, or -1 on no
 * memory (then the start must not happen). */
int computers_begin(struct dispatcher *d, struct game *g, const void *events) MUST_USE;

/* After a change of g with its rules' events: each computer seat shown any
 * of them takes them in. */
void computers_observe(struct dispatcher *d, struct game *g, const void *events);

/* A computer of `level` begins to play seat for its person (S14): its memory,
 * taking in the seat as it stands. Returns 0, or -1 on no memory (nothing
 * changed). */
int computers_stand_in(struct dispatcher *d, struct game *g, unsigned seat,
                       unsigned level) MUST_USE;

/* When g next asks one of its computers for a move (ms), or 0. */
int64_t computers_due(const struct game *g);

/* Asks the computer of g due first at `now` for its move, and plays it as its
 * seat's, through the pipeline. g may finish (and leave the hosted games). */
void computers_act(struct dispatcher *d, struct game *g, int64_t now);

#endif
