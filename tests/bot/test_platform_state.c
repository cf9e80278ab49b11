/*
 * test_platform_state.c - what the dispatcher keeps for a platform
 * (platform_host's state_get, state_set, state_defer, state_follow and
 * state_del): each key under the platform's name, kept apart from another
 * platform's, and a key too long for the store's key refused rather than cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/dispatcher.h"
#include "bot/platform.h"
#include "bot/store.h"
#include "tests/fuzz/fuzz_host.h"

static const struct platform_ops alpha_ops = {.name = "alpha"};
static const struct platform_ops beta_ops = {.name = "beta"};

static void assert_state(const struct platform_host *host, struct platform *p, const char *key,
                         const char *want)
{
    char *got = host->state_get(host->ctx, p, key);
    if (want) {
        assert_non_null(got);
        assert_string_equal(got, want);
    } else {
        assert_null(got);
    }
    free(got);
}

static bool follow_text(void *arg, char *out, size_t cap)
{
    (void)arg;
    assert_true(cap > 2);
    strcpy(out, "43");
    return true;
}

static void test_keys(void **state)
{
    (void)state;
    struct fuzz_host h;
    fuzz_host_config(&h);
    fuzz_host_open(&h);
    const struct platform_host *host = dispatcher_host(h.d);
    struct platform alpha = {&alpha_ops, host}, beta = {&beta_ops, host};

    assert_int_equal(host->state_set(host->ctx, &alpha, "k", "one"), 0);
    assert_int_equal(host->state_set(host->ctx, &beta, "k", "two"), 0);
    assert_state(host, &alpha, "k", "one");
    assert_state(host, &beta, "k", "two");
    /* deferred: seen at once, and on disk once flushed */
    assert_int_equal(host->state_defer(host->ctx, &alpha, "seq", "41"), 0);
    assert_int_equal(host->state_defer(host->ctx, &alpha, "seq", "42"), 0);
    assert_state(host, &alpha, "seq", "42");
    assert_int_equal(store_flush_lazy(h.store), 0);
    char *stored = store_meta_get(h.store, "alpha/seq");
    assert_non_null(stored);
    assert_string_equal(stored, "42");
    free(stored);
    /* followed: read under the platform's name when it moved, at the next flush */
    uint64_t version = 0;
    assert_int_equal(host->state_follow(host->ctx, &alpha, "seq", &version, follow_text, NULL), 0);
    version++;
    assert_int_equal(store_flush_lazy(h.store), 0);
    assert_state(host, &alpha, "seq", "43");
    assert_int_equal(host->state_follow(host->ctx, &alpha, "seq", NULL, NULL, NULL), 0);
    assert_int_equal(host->state_del(host->ctx, &alpha, "k"), 0);
    assert_state(host, &alpha, "k", NULL);
    assert_state(host, &beta, "k", "two");

    /* "alpha/" and the key fill 255 bytes: kept; one more byte: refused, not cut */
    char key[300];
    memset(key, 'x', sizeof(key));
    key[255 - strlen("alpha/")] = '\0';
    assert_int_equal(host->state_set(host->ctx, &alpha, key, "longest"), 0);
    assert_state(host, &alpha, key, "longest");
    size_t n = strlen(key);
    key[n] = 'x';
    key[n + 1] = '\0';
    assert_int_equal(host->state_set(host->ctx, &alpha, key, "too long"), -1);
    assert_int_equal(host->state_defer(host->ctx, &alpha, key, "too long"), -1);
    assert_int_equal(host->state_follow(host->ctx, &alpha, key, &version, follow_text, NULL), -1);
    assert_int_equal(host->state_del(host->ctx, &alpha, key), -1);
    assert_state(host, &alpha, key, NULL);
    key[n] = '\0';
    assert_state(host, &alpha, key, "longest");
    fuzz_host_close(&h);
}

int main(void)
{
    fuzz_host_setup("platform-state");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_keys)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
