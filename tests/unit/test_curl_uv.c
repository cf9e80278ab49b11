/*
 * test_curl_uv.c - curl transfers on the libuv loop, against a loopback server.
 *
 * The server is the daemon's own operators' listener, on the same loop.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <uv.h>

#include "adapters/common/curl_uv.h"
#include "bot/ops_http.h"

#define TRANSFERS 20

struct result {
    CURLcode code;
    long status;
    char body[64];
    size_t len;
    bool done;
};

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
    struct result *r = arg;
    size_t add = size * n;
    if (r->len + add < sizeof r->body) {
        memcpy(r->body + r->len, data, add);
        r->len += add;
    }
    return add;
}

static void on_done(void *arg, CURL *easy, CURLcode code)
{
    struct result *r = arg;
    r->code = code;
    r->done = true;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_cleanup(easy);
}

static bool always(void *arg)
{
    (void)arg;
    return true;
}

static CURL *get(const char *url, struct result *r)
{
    CURL *e = curl_easy_init();
    assert_non_null(e);
    curl_easy_setopt(e, CURLOPT_URL, url);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, r);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 10000L);
    return e;
}

static void test_transfers(void **state)
{
    (void)state;
    uv_loop_t loop;
    struct ops_http *server;
    struct ops_http_checks checks = {always, always, NULL};
    char err[256], url[128];
    static struct result results[TRANSFERS], cancelled, refused;
    assert_int_equal(uv_loop_init(&loop), 0);
    assert_int_equal(ops_http_start(&server, &loop, "127.0.0.1", 0, NULL, &checks, err, sizeof err),
                     0);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/healthz", ops_http_port(server));

    struct curl_uv *c = curl_uv_new(&loop);
    assert_non_null(c);
    for (int i = 0; i < TRANSFERS; i++)
        assert_int_equal(curl_uv_add(c, get(url, &results[i]), on_done, &results[i]), 0);
    /* One transfer is withdrawn before it runs: no callback for it. */
    CURL *gone = get(url, &cancelled);
    assert_int_equal(curl_uv_add(c, gone, on_done, &cancelled), 0);
    curl_uv_remove(c, gone);
    curl_easy_cleanup(gone);
    assert_int_equal(curl_uv_running(c), TRANSFERS);
    /* A port nobody listens on: the transfer ends with an error, not a hang. */
    ops_http_stop(NULL);
    assert_int_equal(curl_uv_add(c, get("http://127.0.0.1:1/", &refused), on_done, &refused), 0);

    while (curl_uv_running(c) > 0)
        uv_run(&loop, UV_RUN_ONCE);
    for (int i = 0; i < TRANSFERS; i++) {
        assert_true(results[i].done);
        assert_int_equal(results[i].code, CURLE_OK);
        assert_int_equal(results[i].status, 200);
        assert_memory_equal(results[i].body, "ok\n", 3);
    }
    assert_false(cancelled.done);
    assert_true(refused.done);
    assert_int_not_equal(refused.code, CURLE_OK);

    /* Freeing with a transfer in flight: no callback, nothing left open. */
    static struct result late;
    CURL *late_easy = get(url, &late);
    assert_int_equal(curl_uv_add(c, late_easy, on_done, &late), 0);
    uv_run(&loop, UV_RUN_NOWAIT);
    curl_uv_free(c);
    curl_easy_cleanup(late_easy);
    ops_http_stop(server);
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_false(late.done);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transfers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
