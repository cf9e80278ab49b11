/*
 * util.h - what the Discord adapter's files share: the utility library
 * (bot/util/), a random number for jitter, and the cap on command texts
 * the adapter builds.
 */
#ifndef DISCORD_UTIL_H
#define DISCORD_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/util/buf.h"
#include "bot/util/clock.h"
#include "core/json.h"
#include "bot/util/map.h"

/* A random double in [0, 1), for jitter only: never for secrets. */
double dc_random(void);

/* The longest command text built from a slash command or the trade builder. */
#define DC_COMMAND_TEXT_MAX (64u << 10)

#endif
