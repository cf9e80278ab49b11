/*
 * util.c - a random number for jitter.
 */
#include "util.h"

double dc_random(void)
{
    /* xorshift64*, seeded once from the clock: jitter only, never secrets */
    static uint64_t state;
    if (!state)
        state = (clock_wall_ms() << 20) ^ clock_mono_ms() ^ 0x9e3779b97f4a7c15ull;
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (double)((state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}
