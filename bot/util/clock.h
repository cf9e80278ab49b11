/*
 * clock.h - the daemon's one clock, in milliseconds.
 *
 * The wall clock is for what people read and what is stored (log times,
 * deadlines kept across a restart); the monotonic clock is for intervals in
 * one run (timeouts, rate limits, backoff), which a change of the system time
 * must not stretch or cut.
 */
#ifndef BOT_UTIL_CLOCK_H
#define BOT_UTIL_CLOCK_H

#include <stdint.h>

/* Milliseconds since the Unix epoch (CLOCK_REALTIME). */
uint64_t clock_wall_ms(void);

/* Milliseconds on CLOCK_MONOTONIC, from an unspecified start. */
uint64_t clock_mono_ms(void);

#endif
