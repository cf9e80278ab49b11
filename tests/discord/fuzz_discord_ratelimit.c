/*
 * fuzz_discord_ratelimit.c - an answer's header lines, one input a run: what
 * the rate limiter reads from them (adapters/discord/ratelimit.h) must be
 * what the plain reader of tests/discord/rate_check.c reads. A disagreement
 * aborts.
 */
#include <stdint.h>
#include <stdlib.h>

#include "rate_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!rate_check((const char *)data, size))
        abort();
    return 0;
}
