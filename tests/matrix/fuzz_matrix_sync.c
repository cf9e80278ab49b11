/*
 * fuzz_matrix_sync.c - /sync answer bodies, as a homeserver may send them,
 * through the Matrix adapter's real sync handling into the real dispatcher
 * (games, commands, the store).
 *
 * Input: one or more bodies separated by NUL bytes, applied in order as
 * consecutive batches, so a recorded session (a whole game) is one input.
 * The bot is @illegal:localhost; nothing reaches a network (the loop runs
 * only what is due at once, and the homeserver address refuses).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/matrix.h"
#include "bot/dispatcher.h"
#include "bot/platform.h"
#include "tests/fuzz/fuzz_host.h"

#define FUZZ_BOT "@illegal:localhost"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_host_setup("matrix");
    return 0;
}

static void feed_all(struct platform *p, uv_loop_t *loop, const uint8_t *data, size_t size)
{
    size_t at = 0;
    while (at < size) {
        const uint8_t *end = memchr(data + at, '\0', size - at);
        size_t n = end ? (size_t)(end - (data + at)) : size - at;
        matrix_feed_sync(p, (const char *)data + at, n);
        uv_run(loop, UV_RUN_NOWAIT); /* deferred work: DM probe answers, the outbox */
        at += n + 1;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_host h;
    char err[256];
    fuzz_host_config(&h);
    fuzz_host_set(&h.config.matrix_homeserver, "http://127.0.0.1:9");
    fuzz_host_set(&h.config.matrix_user_id, FUZZ_BOT);
    fuzz_host_set(&h.config.matrix_access_token, "fuzz");
    fuzz_host_set(&h.config.matrix_device_id, "FUZZDEVICE");
    fuzz_host_set(&h.config.matrix_pickle_key, "fuzz-pickle-key-0123456789");
    fuzz_host_open(&h);
    struct platform *p = matrix_platform_new(&h.config, dispatcher_host(h.d), err, sizeof err);
    if (!p || dispatcher_add_platform(h.d, p) < 0)
        abort();
    feed_all(p, &h.loop, data, size);
    fuzz_host_close(&h);
    return 0;
}
