/*
 * sim_common.c - what the games' simulators share.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_common.h"

bool sim_chance(struct rng *r, unsigned per_mille)
{
    return rng_below(r, 1000) < per_mille;
}

void sim_violation(uint64_t *count, uint64_t seed, const char *what, const char *why)
{
    if ((*count)++ < 3)
        fprintf(stderr, "seed %llu: %s%s%s\n", (unsigned long long)seed, what, why ? ": " : "",
                why ? why : "");
}

int sim_random_seat(struct rng *r, unsigned n, uint32_t active)
{
    int seats[32];
    unsigned k = 0;
    for (unsigned i = 0; i < n && i < 32; i++)
        if (active & (1u << i))
            seats[k++] = (int)i;
    return k ? seats[rng_below(r, k)] : 0;
}

int sim_random_other(struct rng *r, unsigned n, uint32_t active, int not_this)
{
    for (int tries = 0; tries < 32; tries++) {
        int t = sim_random_seat(r, n, active);
        if (t != not_this)
            return t;
    }
    return not_this;
}

bool sim_parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}
