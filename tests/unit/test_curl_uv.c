/*
 * test_curl_uv.c - curl transfers on the libuv loop, against loopback servers.
 *
 * The first server is the daemon's own operators' listener, which closes each
 * connection; the second, below, keeps its connections open between requests
 * and closes them when the test says, as a REST server's idle timeout does.
 */
#define _GNU_SOURCE /* memmem */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>
#include <uv.h>

#include "adapters/common/curl_uv.h"
#include "bot/ops_http.h"

#define TRANSFERS 20

struct result {
    CURLcode code;
    long status;
    long connects; /* new connections the transfer made */
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

/* As on_done, but the test cleans the handle up itself. */
static void on_done_keep(void *arg, CURL *easy, CURLcode code)
{
    struct result *r = arg;
    r->code = code;
    r->done = true;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &r->status);
    curl_easy_getinfo(easy, CURLINFO_NUM_CONNECTS, &r->connects);
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

/* The keep-alive server: answers each request it reads with "ok" and keeps
 * the connection; kept_close_all() closes every connection it holds. */
#define KEPT_CONNS 4

struct kept_server {
    uv_tcp_t listener;
    uv_tcp_t conns[KEPT_CONNS];
    bool open[KEPT_CONNS];
    char buf[KEPT_CONNS][1024];
    size_t len[KEPT_CONNS];
    unsigned accepted, requests;
    uv_write_t writes[KEPT_CONNS];
};

static struct kept_server kept;

static void kept_alloc(uv_handle_t *h, size_t hint, uv_buf_t *b)
{
    size_t i = (size_t)((uv_tcp_t *)h - kept.conns);
    (void)hint;
    *b = uv_buf_init(kept.buf[i] + kept.len[i], (unsigned)(sizeof kept.buf[i] - kept.len[i]));
}

static void kept_closed(uv_handle_t *h)
{
    kept.open[(uv_tcp_t *)h - kept.conns] = false;
}

static void kept_read(uv_stream_t *st, ssize_t n, const uv_buf_t *b)
{
    static char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n";
    size_t i = (size_t)((uv_tcp_t *)st - kept.conns);
    (void)b;
    if (n < 0) {
        uv_close((uv_handle_t *)st, kept_closed);
        return;
    }
    kept.len[i] += (size_t)n;
    char *end = memmem(kept.buf[i], kept.len[i], "\r\n\r\n", 4);
    if (!end)
        return;
    kept.len[i] = 0; /* curl sends a GET's request in one piece and waits */
    kept.requests++;
    uv_buf_t out = uv_buf_init(answer, (unsigned)strlen(answer));
    assert_int_equal(uv_write(&kept.writes[i], st, &out, 1, NULL), 0);
}

static void kept_accept(uv_stream_t *l, int status)
{
    assert_int_equal(status, 0);
    size_t i = 0;
    while (i < KEPT_CONNS && kept.open[i])
        i++;
    assert_true(i < KEPT_CONNS);
    uv_tcp_init(l->loop, &kept.conns[i]);
    assert_int_equal(uv_accept(l, (uv_stream_t *)&kept.conns[i]), 0);
    kept.open[i] = true;
    kept.len[i] = 0;
    kept.accepted++;
    uv_read_start((uv_stream_t *)&kept.conns[i], kept_alloc, kept_read);
}

static void kept_close_all(void)
{
    for (size_t i = 0; i < KEPT_CONNS; i++)
        if (kept.open[i] && !uv_is_closing((uv_handle_t *)&kept.conns[i]))
            uv_close((uv_handle_t *)&kept.conns[i], kept_closed);
}

static unsigned loop_turns;

static void count_turn(uv_check_t *h)
{
    (void)h;
    loop_turns++;
}

static void stop_loop(uv_timer_t *t)
{
    uv_stop(t->loop);
}

/* Runs transfers one after another on the kept server; returns the new connections they made. */
static long sequential(uv_loop_t *loop, struct curl_uv *c, const char *url, int n)
{
    long made = 0;
    for (int i = 0; i < n; i++) {
        struct result r = {0};
        CURL *e = get(url, &r);
        assert_int_equal(curl_uv_add(c, e, on_done_keep, &r), 0);
        while (!r.done)
            uv_run(loop, UV_RUN_ONCE);
        assert_int_equal(r.code, CURLE_OK);
        assert_int_equal(r.status, 200);
        made += r.connects;
        curl_easy_cleanup(e);
    }
    return made;
}

/* Requests reuse one connection; a connection the server closes while idle
 * neither spins the loop nor fails the next request; freeing the driver
 * closes what it kept. */
static void test_kept_connections(void **state)
{
    (void)state;
    uv_loop_t loop;
    struct sockaddr_in addr;
    char url[128];
    assert_int_equal(uv_loop_init(&loop), 0);
    memset(&kept, 0, sizeof kept);
    uv_tcp_init(&loop, &kept.listener);
    uv_ip4_addr("127.0.0.1", 0, &addr);
    assert_int_equal(uv_tcp_bind(&kept.listener, (const struct sockaddr *)&addr, 0), 0);
    assert_int_equal(uv_listen((uv_stream_t *)&kept.listener, 8, kept_accept), 0);
    int len = sizeof addr;
    uv_tcp_getsockname(&kept.listener, (struct sockaddr *)&addr, &len);
    snprintf(url, sizeof url, "http://127.0.0.1:%d/", ntohs(addr.sin_port));

    struct curl_uv *c = curl_uv_new(&loop);
    assert_non_null(c);
    assert_int_equal(sequential(&loop, c, url, 10), 1);
    assert_int_equal(kept.accepted, 1);
    assert_int_equal(kept.requests, 10);

    /* The server drops the idle connection: the loop sleeps until the timer. */
    kept_close_all();
    uv_check_t check;
    uv_timer_t timer;
    uv_check_init(&loop, &check);
    uv_check_start(&check, count_turn);
    uv_timer_init(&loop, &timer);
    uv_timer_start(&timer, stop_loop, 100, 0);
    loop_turns = 0;
    uv_run(&loop, UV_RUN_DEFAULT);
    assert_true(loop_turns < 10);
    uv_close((uv_handle_t *)&check, NULL);
    uv_close((uv_handle_t *)&timer, NULL);

    assert_int_equal(sequential(&loop, c, url, 3), 1);
    assert_int_equal(kept.accepted, 2);

    /* Freeing closes the kept connection: the server reads its end. */
    curl_uv_free(c);
    uv_close((uv_handle_t *)&kept.listener, NULL);
    uv_run(&loop, UV_RUN_DEFAULT);
    for (size_t i = 0; i < KEPT_CONNS; i++)
        assert_false(kept.open[i]);
    assert_int_equal(uv_loop_close(&loop), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_transfers),
        cmocka_unit_test(test_kept_connections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
