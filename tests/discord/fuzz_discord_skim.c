/*
 * fuzz_discord_skim.c - the gateway skimmer (adapters/discord/skim.h) alone,
 * against the full parse: one gateway message an input. It runs the
 * skimmer's reader many times faster than the gateway target, which builds a
 * whole daemon for each input, so it reaches far more of the reader's byte
 * patterns (a quote, a backslash or a control byte anywhere in a block of
 * 16 or a word of 8).
 * An input on which the skimmer and the full parse disagree aborts.
 */
#include <stdint.h>
#include <stdlib.h>

#include "skim_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    enum gw_skim got;
    int64_t seq;
    if (skim_check((const char *)data, size, &got, &seq))
        abort();
    return 0;
}
