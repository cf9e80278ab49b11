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
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "adapters/discord/discord.h"
#include "bot/config.h"
#include "bot/dispatcher.h"
#include "bot/log.h"
#include "bot/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void remove_store(void)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal", "-lock"};
    char path[128];
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(path, sizeof path, "%s/store.db%s", dir, suffixes[i]);
        unlink(path);
    }
}

static void cleanup(void)
{
    remove_store();
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    log_set_level(LOG_ERROR); /* bad input is logged as it should be: keep the run quiet */
    snprintf(dir, sizeof dir, "%s/illegald-fuzz-discord-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz_discord_gateway: setup");
        abort();
    }
    atexit(cleanup);
    return 0;
}

/* A config the adapter accepts; replaces what config_init() set. */
static void set(char **field, const char *value)
{
    free(*field);
    *field = strdup(value);
    if (!*field)
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct config config;
    struct store *store = NULL;
    struct dispatcher *d = NULL;
    uv_loop_t loop;
    char path[128], err[512];

    if (config_init(&config) < 0 || uv_loop_init(&loop) < 0)
        abort();
    set(&config.discord_token, "fuzz-token");
    set(&config.discord_api_url, "http://127.0.0.1:9/api/v10");
    set(&config.discord_application_id, "900000000000000002");
    snprintf(path, sizeof path, "%s/store.db", dir);
    struct dispatcher_options o = {
        .config = &config, .loop = &loop, .virtual_time = true, .seeded = true, .seed = 1};
    if (store_open(&store, path, err, sizeof err) < 0) {
        fprintf(stderr, "fuzz_discord_gateway: %s\n", err);
        abort();
    }
    o.store = store;
    if (dispatcher_new(&d, &o, err, sizeof err) < 0)
        abort();
    struct platform *p = discord_platform_new(&config, dispatcher_host(d), err, sizeof err);
    if (!p || dispatcher_add_platform(d, p) < 0)
        abort();
    const char *text = (const char *)data, *end = text + size;
    while (text < end) {
        const char *nl = memchr(text, '\n', (size_t)(end - text));
        size_t len = nl ? (size_t)(nl - text) : (size_t)(end - text);
        discord_gateway_input(p, text, len);
        text += len + 1;
    }
    dispatcher_stop(d);
    dispatcher_free(d);
    store_close(store);
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_loop_close(&loop);
    config_free(&config);
    remove_store();
    return 0;
}
