/*
 * fuzz_discord_skim_ix.c - the interaction skimmer (adapters/discord/
 * skim_ix.h) against the full parse: one gateway message an input. Each
 * input the skimmer reads is read by one Discord adapter (built once, with
 * a guild whose moderators it knows) from the skimmer's spans and from
 * json-c's parse; an input on which the two readers disagree in any member
 * the adapter reads, or the full parse reads no INTERACTION_CREATE of that
 * sequence, aborts (read_check.h). The gateway target also checks this, but
 * builds a whole daemon for each input: this one reaches far more of the
 * reader's shapes.
 */
#include <stdint.h>
#include <stdlib.h>

#include "read_check.h"
#include "tests/fuzz/fuzz_host.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct fuzz_host host;
static struct platform *adapter;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_host_setup("discord_skim_ix");
    if (!(adapter = read_check_adapter(&host)))
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    bool read;
    if (ix_read_check(adapter, (const char *)data, size, &read))
        abort();
    return 0;
}
