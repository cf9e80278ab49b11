/*
 * strategy.h - computer players: a strategy plays one seat of a game from
 * what that seat may know, and nothing else.
 *
 * A rules module lists its strategies (levels: "easy", "normal") in
 * rules_module.strategies, and builds a seat's view with
 * rules_module.seat_view(): the seat's private part (roles, hand, its own
 * offers and votes), the public table, and the events of the last change
 * that were shown to that seat (the table's, and its own). A strategy is
 * handed that view and its own memory, never the state: it cannot read what
 * its seat may not, because it is never given it. The module's build holds
 * the line too: its strategies are compiled apart, where the state's struct
 * is not declared (core/README.md, "Computer players").
 *
 * A strategy answers with the actions a person in that seat could send, in
 * the form the module's apply() takes: the form every person's move has
 * once an adapter and a command handler have read it (a typed line, a
 * button and a reaction all end as one), so the host plays a computer's
 * action through the same pipeline, checks and messages as a person's.
 *
 * How the host drives a computer seat:
 *
 *   1. When a computer takes a seat (at the start, or standing in for an
 *      absent person), the host makes its memory (memory_size bytes) with
 *      start(), from a seed of its own (drawn from the game's seeded rng,
 *      so a replay draws the same).
 *   2. After every change of the game, before the change is stored, for
 *      each computer seat: seat_view(state, seat, events, view); when it
 *      returns true (the seat was shown something), observe(memory, view,
 *      now). The memory is then stored with the change, in the same commit.
 *   3. When wake(memory) is due (0: never, until the next change), the host
 *      calls act(memory, view, now, action) with a fresh view (no events).
 *      When it returns true, the host plays `action` as that seat's move,
 *      through the one pipeline; that change comes back to step 2. The host
 *      calls act again while wake() stays due, at most RULES_ACTS_IN_A_ROW
 *      times in a row (a strategy that answers no action always moves its
 *      wake past now). The memory act changed is stored with that turn.
 *
 * The wake time is the strategy's "thinking": a person's delay before a
 * move, already scaled by the pace given to start(). A host on the wall
 * clock waits for it; under virtual time the clock jumps to it, so games
 * run at once and still in a person's order. act may be called later than
 * wake (a busy loop, a restart) or again after a change; it decides from
 * the view of that moment, so it never plays a stale move.
 *
 * Memory is plain data with no pointers. The same seed, views and times
 * give the same memory and the same actions, byte for byte. Nothing of a
 * decision lives outside the stored memory, so a crash between two steps
 * (kill -9 while a computer "thinks") loses nothing and doubles nothing:
 * the host restores the memory and asks again at the stored wake time.
 */
#ifndef CORE_STRATEGY_H
#define CORE_STRATEGY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;

/* The pace of a person: the delays a strategy answers with (percent). 0 acts
 * at once; 100 thinks as long as a person would. */
#define RULES_PACE_HUMAN 100

/* How many actions the host takes from one computer without a change
 * between them that moves its wake (a guard, not a rule of any game). */
#define RULES_ACTS_IN_A_ROW 16

/* One level of computer player. Every function is pure: no I/O, no clock,
 * no globals; its randomness comes from the rng kept in its memory. */
struct rules_strategy {
    /* The level's name, as the host types it ("easy"); NULL ends a list. */
    const char *id;
    /* The size of its memory: plain data, stored with the game. */
    size_t memory_size;

    /* Starts a memory: no knowledge yet, its own rng seeded from `seed`,
     * thinking at `pace` percent of a person's pace. */
    void (*start)(void *memory, uint64_t seed, unsigned pace);
    /* Takes in what view shows (the state of the seat's table, and the
     * events of one change it was shown), and plans its next moves. */
    void (*observe)(void *memory, const void *view, int64_t now);
    /* Decides at `now`, from view: writes one action (the module's
     * action_size bytes) and returns true, or returns false with nothing
     * to do now. Either way it updates its wake time. */
    bool (*act)(void *memory, const void *view, int64_t now, void *action);
    /* When act() wants to be called next (ms, like now), or 0 for not until
     * the next change. */
    int64_t (*wake)(const void *memory);

    /* Adds the memory's fields to `out`. Returns 0 or -1 (no memory). */
    int (*save)(const void *memory, struct json_object *out);
    /* Reads them back, checking every value; the memory is the one saved,
     * byte for byte. Returns 0, or -1 with a reason in why. */
    int (*load)(void *memory, const struct json_object *in, char *why, size_t whylen);
};

#endif
