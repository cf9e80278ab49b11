/*
 * clock.c - CLOCK_REALTIME and CLOCK_MONOTONIC in milliseconds.
 *
 * clock_gettime cannot fail with these clocks on any system the daemon
 * supports (both are POSIX and the pointer is valid), so its result is not
 * checked.
 */
#include <time.h>

#include "clock.h"

static uint64_t read_ms(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t clock_wall_ms(void)
{
    return read_ms(CLOCK_REALTIME);
}

uint64_t clock_mono_ms(void)
{
    return read_ms(CLOCK_MONOTONIC);
}
