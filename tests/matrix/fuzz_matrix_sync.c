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

#include <uv.h>

#include "adapters/matrix/matrix.h"
#include "bot/config.h"
#include "bot/dispatcher.h"
#include "bot/log.h"
#include "bot/platform.h"
#include "bot/store.h"

#define FUZZ_BOT "@illegal:localhost"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    struct config cfg;
    struct store *store = NULL;
    struct dispatcher *d = NULL;
    struct platform *p = NULL;
    uv_loop_t loop;
    char err[256];

    log_set_level(LOG_ERROR);
    if (uv_loop_init(&loop) != 0)
        return 0;
    if (config_init(&cfg) != 0)
        goto fail;
    free(cfg.matrix_homeserver);
    free(cfg.matrix_user_id);
    free(cfg.matrix_access_token);
    cfg.matrix_homeserver = strdup("http://127.0.0.1:9");
    cfg.matrix_user_id = strdup(FUZZ_BOT);
    cfg.matrix_access_token = strdup("fuzz");
    if (store_open(&store, ":memory:", err, sizeof err) < 0)
        goto fail;
    struct dispatcher_options o = {
        .config = &cfg, .store = store, .loop = &loop, .virtual_time = true, .seeded = true};
    if (dispatcher_new(&d, &o, err, sizeof err) < 0)
        goto fail;
    p = matrix_platform_new(&cfg, dispatcher_host(d), err, sizeof err);
    if (!p || dispatcher_add_platform(d, p) < 0)
        goto fail;
    feed_all(p, &loop, data, size);
fail:
    if (d) {
        dispatcher_stop(d);
        dispatcher_free(d);
    } else if (p) {
        p->ops->destroy(p);
    }
    uv_run(&loop, UV_RUN_DEFAULT);
    uv_loop_close(&loop);
    store_close(store);
    config_free(&cfg);
    return 0;
}
