/*
 * rng.h - the seeded pseudo-random generator every rules module draws from.
 *
 * xoshiro256** seeded through splitmix64. The caller owns the generator and
 * passes it into the core, so the same seed and the same actions replay the
 * same game. The state is four words and can be stored and restored as is.
 */
#ifndef CORE_RNG_H
#define CORE_RNG_H

#include <stdint.h>

struct rng {
    uint64_t s[4];
};

/* Seeds the generator from one 64-bit value; any value, zero included, is fine. */
void rng_seed(struct rng *r, uint64_t seed);

/* Returns the next 64 random bits. */
uint64_t rng_next(struct rng *r);

/* Returns a uniform integer in [0, bound), without modulo bias. bound must be > 0. */
uint32_t rng_below(struct rng *r, uint32_t bound);

/* Shuffles n bytes in place (Fisher-Yates). */
void rng_shuffle_bytes(struct rng *r, uint8_t *v, uint32_t n);

#endif
