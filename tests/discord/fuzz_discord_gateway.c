/*
 * fuzz_discord_gateway.c - gateway payloads as a Discord-compatible server
 * may send them, through the real Discord adapter into the dispatcher.
 *
 * Input: gateway messages, one per line (a payload holds no raw newline).
 * Each run builds what the daemon builds (a fresh store, a dispatcher in
 * virtual time with a fixed seed, the Discord adapter) and hands every line
 * to discord_gateway_input(), which parses it as a shard does and dispatches
 * it: slash commands, buttons, menus, messages, reactions and guild events
 * reach the bot, and the bot's answers are rendered and queued for REST. The
 * loop never runs, so nothing leaves the process. Any payload, of any shape
 * or type, must leave the process running and leak nothing.
 *
 * Each line also goes through the skimmer (skim.h), which a shard asks first
 * (and discord_gateway_input too): when it ignores a line or reads it, the
 * full parse must agree (skim_check.h), and a message it reads must give the
 * bot the same input from its spans as from the full parse (read_check.h),
 * as must an interaction the interaction skimmer (skim_ix.h) reads.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/discord/discord.h"
#include "bot/dispatcher.h"
#include "read_check.h"
#include "skim_check.h"
#include "tests/fuzz/fuzz_host.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_host_setup("discord");
    return 0;
}

/* Aborts when the skimmer and the full parse disagree on a line, or the
 * adapter's two readers of it. */
static void check_skim(struct platform *p, const char *text, size_t len)
{
    enum gw_skim got;
    int64_t seq;
    bool read;
    if (skim_check(text, len, &got, &seq) || read_check(p, text, len, &read) ||
        ix_read_check(p, text, len, &read))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_host h;
    char err[512];
    fuzz_host_config(&h);
    /* A config the adapter accepts; nothing listens at that address. */
    fuzz_host_set(&h.config.discord_token, "fuzz-token");
    fuzz_host_set(&h.config.discord_api_url, "http://127.0.0.1:9/api/v10");
    fuzz_host_set(&h.config.discord_application_id, "900000000000000002");
    fuzz_host_open(&h);
    struct platform *p = discord_platform_new(&h.config, dispatcher_host(h.d), err, sizeof err);
    if (!p || dispatcher_add_platform(h.d, p) < 0)
        abort();
    const char *text = (const char *)data, *end = text + size;
    while (text < end) {
        const char *nl = memchr(text, '\n', (size_t)(end - text));
        size_t len = nl ? (size_t)(nl - text) : (size_t)(end - text);
        check_skim(p, text, len);
        discord_gateway_input(p, text, len);
        text += len + 1;
    }
    fuzz_host_close(&h);
    return 0;
}
