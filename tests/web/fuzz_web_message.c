/*
 * fuzz_web_message.c - websocket messages from a browser at the local table,
 * through the adapter's own message handler (web_on_message, in inbound.c).
 *
 * Input: frames separated by newlines, fed in order to the sockets of one
 * adapter, so a hello can seat a socket before the frames that need a seat.
 * Two sockets take turns, one frame each. The host keeps the adapter's state
 * in memory; no socket is opened (the handler queues output and only marks
 * the socket to be woken, which is left undone).
 */
#include <stdint.h>
#include <stdlib.h>

#include "adapters/web/internal.h"
#include "fuzz_web.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    log_set_level(LOG_ERROR); /* a line per seat taken would slow every run */
    return 0;
}

static unsigned long fuzz_inputs;

/* The bot's side: counts what reached it (answering would wake live sockets). */
static int fuzz_deliver(void *ctx, struct platform *p, const struct inbound *in)
{
    (void)ctx;
    (void)p;
    if (in->user && in->user_name)
        fuzz_inputs++;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uv_loop_t loop; /* never run: the handler does not touch it */
    static const struct platform_host host = {
        .loop = &loop,
        .deliver = fuzz_deliver,
        .state_get = fuzz_state_get,
        .state_set = fuzz_state_set,
        .state_del = fuzz_state_del,
    };
    struct config cfg;
    char err[128];
    if (config_init(&cfg) != 0)
        return 0;
    cfg.web_tables_per_seat = 2;
    cfg.web_queue_bytes = 65536;
    fuzz_state = json_object_new_object();
    struct platform *p = web_platform_new(&cfg, &host, err, sizeof err);
    config_free(&cfg);
    if (!p) {
        json_object_put(fuzz_state);
        return 0;
    }
    fuzz_web_frames((struct web *)p, data, size, NULL);
    p->ops->destroy(p);
    json_object_put(fuzz_state);
    return 0;
}
