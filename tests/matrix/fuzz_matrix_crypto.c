/*
 * fuzz_matrix_crypto.c - encrypted events and to-device messages, as a
 * homeserver may deliver them, through the Matrix adapter's real path: the
 * sync handling, Olm and Megolm decryption, the store of keys and waiting
 * events, and on into the real dispatcher.
 *
 * Input: /sync bodies separated by NUL bytes, as fuzz_matrix_sync takes them.
 * The bot is @illegal:localhost on device FUZZDEVICE, with the account of
 * fuzz_crypto_account.h (its pickle, with one-time keys the seeds' Olm
 * messages were made from), so that the seed corpus decrypts: players share
 * room keys over Olm and send encrypted commands, and the bad shapes around
 * them (tests/matrix/gen_crypto_corpus.c wrote both).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/matrix/matrix.h"
#include "bot/dispatcher.h"
#include "bot/platform.h"
#include "fuzz_crypto_account.h"
#include "tests/fuzz/fuzz_host.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_host_setup("matrix-crypto");
    return 0;
}

/* The bot's account, as the adapter stores it, before the adapter starts. */
static void put_account(struct platform *p)
{
    struct json_object *rec = json_object_new_object();
    json_object_object_add(rec, "user", json_object_new_string(FUZZ_CRYPTO_BOT));
    json_object_object_add(rec, "device", json_object_new_string(FUZZ_CRYPTO_DEVICE));
    json_object_object_add(rec, "p", json_object_new_string(FUZZ_CRYPTO_ACCOUNT));
    json_object_object_add(rec, "uploaded", json_object_new_boolean(1));
    json_object_object_add(rec, "fallback_ms", json_object_new_int64(1));
    const struct platform_host *h = p->host;
    if (h->state_set(h->ctx, p, "e2e/account", json_object_to_json_string(rec)) != 0)
        abort();
    json_object_put(rec);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_host h;
    char err[256];
    fuzz_host_config(&h);
    fuzz_host_set(&h.config.matrix_homeserver, "http://127.0.0.1:9");
    fuzz_host_set(&h.config.matrix_user_id, FUZZ_CRYPTO_BOT);
    fuzz_host_set(&h.config.matrix_access_token, "fuzz");
    fuzz_host_set(&h.config.matrix_device_id, FUZZ_CRYPTO_DEVICE);
    fuzz_host_set(&h.config.matrix_pickle_key, FUZZ_CRYPTO_PICKLE_KEY);
    fuzz_host_open(&h);
    struct platform *p = matrix_platform_new(&h.config, dispatcher_host(h.d), err, sizeof err);
    if (!p || dispatcher_add_platform(h.d, p) < 0)
        abort();
    put_account(p);
    size_t at = 0;
    while (at < size) {
        const uint8_t *end = memchr(data + at, '\0', size - at);
        size_t n = end ? (size_t)(end - (data + at)) : size - at;
        matrix_feed_sync(p, (const char *)data + at, n);
        uv_run(&h.loop, UV_RUN_NOWAIT); /* deferred work: the outbox, probes, the pump */
        at += n + 1;
    }
    fuzz_host_close(&h);
    return 0;
}
