/*
 * driver.h - plays whole games of Palm & Drewes' Illegal with random
 * actions, legal and not, checking the rules engine after every step.
 * Shared by palm-drewes-sim and the tests.
 */
#ifndef TESTS_PALM_DREWES_DRIVER_H
#define TESTS_PALM_DREWES_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/palm-drewes/palm_drewes.h"

struct pd_sim_opts {
    unsigned players;
    bool verify;    /* check invariants, refusals and events after every step */
    bool roundtrip; /* store every state as JSON text and go on from what is read back */
    int32_t series; /* the series goal of every game (PD_SERIES_OFF: none) */
    /* Called with the game and the step's events after every accepted action. */
    void (*on_step)(const struct pd_game *g, const struct pd_events *ev, void *arg);
    void *arg;
};

struct pd_sim_stats {
    uint64_t games, actions, rejected, violations;
    uint64_t accepted[PD_ACT_TYPES]; /* by action type */
    uint64_t errors[PD_ERR_COUNT];   /* by refusal */
    uint64_t played[PD_CARDS];       /* cards played, by card */
    uint64_t ends[PD_END_PLAYERS + 1];
    uint64_t events[PD_EV_TYPES];
    uint64_t turns;
    unsigned max_events; /* the most events one action made */
};

/* Plays one complete game from `seed`, carrying *series (when not NULL) in
 * and out; adds to st. The final game goes to *out when not NULL. Returns the
 * violations found in this game. */
uint64_t pd_sim_play(const struct pd_sim_opts *o, uint64_t seed, struct pd_series *series,
                     struct pd_sim_stats *st, struct pd_game *out);

/* Checks the events of one step against what the rules promise of them: an
 * audience that exists, private events for their one seat, a blind offer's
 * cards hidden from its receiver. Returns a broken promise, or NULL. */
const char *pd_sim_check_events(const struct pd_game *g, const struct pd_events *ev);

/* Games of computer players (computers.c), driven through the rules module
 * as a host drives them, on a virtual clock. */
struct pd_comp_opts {
    unsigned players;
    unsigned pace;    /* percent of a person's delays */
    const char *mode; /* the preset, NULL for the default */
    bool roundtrip;   /* store the game and every memory after every change */
    bool verbose;     /* tell every refused move */
};

struct pd_comp_stats {
    uint64_t games, moves, refused, violations, timeouts, turns, wins;
    uint64_t errors[PD_ERR_COUNT];
    uint64_t ends[PD_END_PLAYERS + 1];
    uint64_t events[PD_EV_TYPES];
    int64_t score_sum, winning_sum;
};

/* Plays one whole game of computers from seed; adds to st. Returns the
 * violations found in it. */
uint64_t pd_comp_play(const struct pd_comp_opts *o, uint64_t seed, struct pd_comp_stats *st);

#endif
