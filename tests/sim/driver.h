/*
 * driver.h - plays whole games of Illegal with random actions, legal and not,
 * checking the rules engine after every step. Shared by the simulator, the
 * benchmark and the core tests.
 */
#ifndef TESTS_SIM_DRIVER_H
#define TESTS_SIM_DRIVER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/illegal/illegal.h"

struct sim_opts {
    unsigned players;
    enum il_variant variant;
    bool verify; /* check invariants and rejected actions after every step */
    /* Called with the game after every accepted action, when set. */
    void (*on_state)(const struct il_game *g, void *arg);
    void *arg;
};

struct sim_stats {
    uint64_t games;
    uint64_t actions;
    uint64_t rejected;
    uint64_t violations;
    uint64_t accepted[IL_ACT_SCHEDULE + 1]; /* by action type */
    uint64_t errors[IL_ERR_COUNT];          /* by refusal */
};

/* Plays one complete game from `seed`; adds to st. The final game goes to
 * *out when out is not NULL. Returns the violations found in this game. */
uint64_t sim_play(const struct sim_opts *o, uint64_t seed, struct sim_stats *st,
                  struct il_game *out);

#endif
