/*
 * config.c - default set-ups and timer bounds.
 */
#include <string.h>

#include "internal.h"

void il_config_default(struct il_config *c, enum il_variant v)
{
    memset(c, 0, sizeof *c);
    c->variant = v;
    c->resources = 0;
    c->timer_ms[IL_TIMER_SESSION] = (il_variant_casual(v) ? 20 : 3) * 60 * 1000;
    c->timer_ms[IL_TIMER_REVEAL] = 2 * 1000;
    c->timer_ms[IL_TIMER_GRAB] = 30 * 1000;
    c->timer_ms[IL_TIMER_DEBATE] = 60 * 1000;
    c->timer_ms[IL_TIMER_VOTE] = 30 * 1000;
}

bool il_timer_ok(int64_t ms)
{
    return ms >= IL_TIMER_MIN_MS && ms <= IL_TIMER_MAX_MS;
}
