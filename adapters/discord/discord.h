/*
 * discord.h - the Discord platform adapter (gateway v10 + REST v10).
 */
#ifndef ADAPTERS_DISCORD_H
#define ADAPTERS_DISCORD_H

#include <stddef.h>

#include "bot/config.h"
#include "bot/platform.h"

/*
 * Creates the adapter from the [discord] settings. cfg is only read during
 * the call. Returns NULL with a reason in err when the settings are unusable.
 */
struct platform *discord_platform_new(const struct config *cfg, const struct platform_host *host,
                                      char *err, size_t errlen);

/*
 * Hands one gateway payload (the text of one websocket message) to the
 * adapter as if its shard 0 had received it: dispatches go to the bot, other
 * opcodes are ignored. For tests and the fuzzer, which have no gateway; bad
 * payloads are dropped as the gateway drops them.
 */
void discord_gateway_input(struct platform *p, const char *payload, size_t len);

struct activity_link;
/* With [discord] activity on, fills the Discord side of l (kept by both
 * adapters; it outlives them): the Activity's pages play this platform's
 * games. Nothing with the Activity off. */
void discord_activity_link(struct platform *p, struct activity_link *l);

/* Counters for metrics and the benchmark. */
struct discord_stats {
    unsigned long rest_requests, rest_retries, rest_429, rest_429_global, rest_invalid;
    unsigned long sent, edited, reactions, delivered, dm_unreachable, lost;
    unsigned gw_connects, gw_identifies, gw_resumes, gw_zombies;
    unsigned gw_skimmed; /* chat ignored from its text, never parsed */
    int gw_fatal_code;   /* shard 0's fatal close code, 0 if none */
    int ready_shards;
    size_t rest_pending;
};
void discord_get_stats(struct platform *p, struct discord_stats *st);

#endif
