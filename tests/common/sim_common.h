/*
 * sim_common.h - what the games' simulators (tests/sim, tests/palm-drewes)
 * share: the driver's own dice, a seat drawn among those still playing,
 * violations reported with the seed that replays them, and their options.
 */
#ifndef TESTS_SIM_COMMON_H
#define TESTS_SIM_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include "core/rng.h"

/* True per_mille times in a thousand. */
bool sim_chance(struct rng *r, unsigned per_mille);

/* Counts a violation in *count and prints the first three, with the seed. */
void sim_violation(uint64_t *count, uint64_t seed, const char *what, const char *why);

/* A seat drawn among the n whose bit is set in `active`, or 0 when none is. */
int sim_random_seat(struct rng *r, unsigned n, uint32_t active);

/* Another such seat than not_this, or not_this when none is found. */
int sim_random_other(struct rng *r, unsigned n, uint32_t active, int not_this);

/* Reads a whole unsigned decimal number. */
bool sim_parse_u64(const char *s, uint64_t *out);

#endif
