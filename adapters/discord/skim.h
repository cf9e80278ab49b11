/*
 * skim.h - a gateway message the adapter would ignore, told from its text.
 */
#ifndef DISCORD_SKIM_H
#define DISCORD_SKIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Whether the gateway message txt (len bytes) is a dispatch the adapter
 * ignores: a MESSAGE_CREATE in a guild channel whose content does not start
 * with "!illegal". Then *seq is its sequence ("s"; 0 when null or absent),
 * which the shard still takes. False when it is anything else, or when the
 * skimmer is not sure: the caller then parses it properly. When it returns
 * true, gw_decode() reads the same message as a well-formed dispatch with
 * that type and sequence (the fuzz target checks it).
 */
bool gw_skim_ignorable(const char *txt, size_t len, int64_t *seq);

#endif
