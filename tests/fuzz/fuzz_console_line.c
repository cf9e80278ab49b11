/*
 * fuzz_console_line.c - the console platform's input: JSON lines, as a test
 * script, a demo or a bug report may feed them to `illegald --console`.
 *
 * Input: the bytes of the input stream. Each run builds what the daemon
 * builds (a fresh store, a dispatcher in virtual time with a fixed seed, the
 * console platform) and hands the bytes to console_input(), the path every
 * read takes, so whole games are played from one input. Output goes to
 * /dev/null; the store lives in a temporary directory, on tmpfs when there
 * is one, and is removed after each run.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "adapters/console/console.h"
#include "bot/config.h"
#include "bot/dispatcher.h"
#include "bot/log.h"
#include "bot/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];
static int devnull = -1;

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
    snprintf(dir, sizeof dir, "%s/illegald-fuzz-console-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(dir) || (devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
        perror("fuzz_console_line: setup");
        abort();
    }
    atexit(cleanup);
    return 0;
}

static void advance(void *arg, int64_t ms)
{
    dispatcher_advance(arg, ms);
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
    snprintf(path, sizeof path, "%s/store.db", dir);
    struct dispatcher_options o = {
        .config = &config, .loop = &loop, .virtual_time = true, .seeded = true, .seed = 1};
    if (store_open(&store, path, err, sizeof err) < 0) {
        fprintf(stderr, "fuzz_console_line: %s\n", err);
        abort();
    }
    o.store = store;
    if (dispatcher_new(&d, &o, err, sizeof err) < 0)
        abort();
    struct console_options co = {.in_fd = -1, .out_fd = devnull, .advance = advance, .arg = d};
    struct platform *p = console_platform_new(dispatcher_host(d), &co);
    if (!p || dispatcher_add_platform(d, p) < 0)
        abort();
    console_input(p, (const char *)data, size, true);
    dispatcher_stop(d);
    dispatcher_free(d);
    store_close(store);
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_loop_close(&loop);
    config_free(&config);
    remove_store();
    return 0;
}
