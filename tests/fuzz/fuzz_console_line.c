/*
 * fuzz_console_line.c - the console platform's input: JSON lines, as a test
 * script, a demo or a bug report may feed them to `illegald --console`.
 *
 * Input: the bytes of the input stream. Each run builds what the daemon
 * builds (a fresh store, a dispatcher in virtual time with a fixed seed, the
 * console platform) and hands the bytes to console_input(), the path every
 * read takes, so whole games are played from one input; then the
 * dispatcher's indexes are checked against its games. Output goes to
 * /dev/null; the store lives in a temporary directory, on tmpfs when there
 * is one, and is removed after each run.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "adapters/console/console.h"
#include "bot/dispatcher.h"
#include "fuzz_host.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int devnull = -1;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_host_setup("console");
    if ((devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) < 0) {
        perror("fuzz_console_line: /dev/null");
        abort();
    }
    return 0;
}

static void advance(void *arg, int64_t ms)
{
    dispatcher_advance(arg, ms);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_host h;
    fuzz_host_config(&h);
    fuzz_host_open(&h);
    struct console_options co = {.in_fd = -1, .out_fd = devnull, .advance = advance, .arg = h.d};
    struct platform *p = console_platform_new(dispatcher_host(h.d), &co);
    if (!p || dispatcher_add_platform(h.d, p) < 0)
        abort();
    console_input(p, (const char *)data, size, true);
    char why[256]; /* the indexes of the games stay true to them (bot/games.c) */
    if (dispatcher_check(h.d, why, sizeof why) != 0) {
        fprintf(stderr, "fuzz_console_line: %s\n", why);
        abort();
    }
    fuzz_host_close(&h);
    return 0;
}
