/*
 * test_http.c - the operators' listener over real loopback sockets.
 *
 * Each test runs the listener on a uv loop in the main thread and a client
 * with plain blocking sockets in another thread. The client only records what
 * went wrong (cmocka's asserts are not for other threads); when it is done it
 * wakes the loop, which stops the listener, and the loop must then end with
 * every handle closed. The listener is built with OPS_HTTP_TIMEOUT_MS = 1500
 * (tests/ops/CMakeLists.txt).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <uv.h>

#include "bot/log.h"
#include "bot/metrics.h"
#include "bot/ops_http.h"

#define TIMEOUT_MS 1500 /* OPS_HTTP_TIMEOUT_MS of this build */
#define MAX_CONNS  64
#define REPLY_MAX  65536

struct server {
    uv_loop_t loop;
    uv_async_t done;
    struct ops_http *h;
    struct metrics *m;
    struct ops_http_checks checks;
    atomic_bool healthy, ready;
    int port;
    void (*client)(struct server *s);
    int open_fds[8]; /* sockets the client leaves open across the stop */
    int nopen;
    pthread_mutex_t lock;
    char fail[1024];
};

static void fail_at(struct server *s, int line, const char *what)
{
    pthread_mutex_lock(&s->lock);
    if (!s->fail[0])
        snprintf(s->fail, sizeof s->fail, "line %d: %s", line, what);
    pthread_mutex_unlock(&s->lock);
}

#define CHECK(s, cond)                                                                             \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fail_at(s, __LINE__, #cond);                                                           \
            return;                                                                                \
        }                                                                                          \
    } while (0)

static bool is_healthy(void *arg)
{
    return atomic_load(&((struct server *)arg)->healthy);
}

static bool is_ready(void *arg)
{
    return atomic_load(&((struct server *)arg)->ready);
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* --- the client side ------------------------------------------------------ */

static int dial(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    struct timeval tv = {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    struct sockaddr_in sin = {0};
    sin.sin_family = AF_INET;
    sin.sin_port = htons((uint16_t)port);
    sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, (struct sockaddr *)&sin, sizeof sin) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static bool send_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        p += n;
        len -= (size_t)n;
    }
    return true;
}

/* Reads until the server closes. Returns the length (NUL-terminated in buf),
 * or -1 on an error, a reset or a 5 s silence. */
static ssize_t read_all(int fd, char *buf, size_t cap)
{
    size_t len = 0;
    for (;;) {
        if (len + 1 >= cap)
            return -1;
        ssize_t n = recv(fd, buf + len, cap - 1 - len, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        len += (size_t)n;
    }
    buf[len] = '\0';
    return (ssize_t)len;
}

/* Sends one request on a new connection and reads the whole answer. */
static ssize_t exchange(int port, const char *req, size_t len, char *buf, size_t cap)
{
    int fd = dial(port);
    if (fd < 0)
        return -1;
    ssize_t n = send_all(fd, req, len) ? read_all(fd, buf, cap) : -1;
    close(fd);
    return n;
}

struct reply {
    int status;
    long content_length;
    bool connection_close;
    char content_type[128];
    char allow[64];
    const char *body;
    size_t body_len;
};

/* Splits an answer; false if it is not a well-formed HTTP/1.1 answer with a
 * Content-Length. */
static bool parse_reply(const char *raw, size_t len, struct reply *r)
{
    memset(r, 0, sizeof *r);
    r->content_length = -1;
    const char *end = strstr(raw, "\r\n\r\n");
    if (!end || sscanf(raw, "HTTP/1.1 %3d ", &r->status) != 1)
        return false;
    const char *p = strstr(raw, "\r\n") + 2;
    while (p < end + 2) {
        const char *eol = strstr(p, "\r\n");
        if (strncasecmp(p, "Content-Length: ", 16) == 0)
            r->content_length = strtol(p + 16, NULL, 10);
        else if (strncasecmp(p, "Connection: close\r\n", 19) == 0)
            r->connection_close = true;
        else if (strncasecmp(p, "Content-Type: ", 14) == 0)
            snprintf(r->content_type, sizeof r->content_type, "%.*s", (int)(eol - p - 14), p + 14);
        else if (strncasecmp(p, "Allow: ", 7) == 0)
            snprintf(r->allow, sizeof r->allow, "%.*s", (int)(eol - p - 7), p + 7);
        p = eol + 2;
    }
    r->body = end + 4;
    r->body_len = len - (size_t)(r->body - raw);
    return r->content_length >= 0 && r->connection_close;
}

/* GETs (or HEADs) path and checks the framing; returns the status, or -1. */
static int request(struct server *s, const char *method, const char *path, struct reply *r,
                   char *buf, size_t cap)
{
    char req[512];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", method, path);
    ssize_t got = exchange(s->port, req, (size_t)n, buf, cap);
    if (got < 0 || !parse_reply(buf, (size_t)got, r))
        return -1;
    bool head = strcmp(method, "HEAD") == 0;
    if (r->body_len != (head ? 0 : (size_t)r->content_length))
        return -1;
    return r->status;
}

static bool body_is(const struct reply *r, const char *want)
{
    return r->body_len == strlen(want) && memcmp(r->body, want, r->body_len) == 0;
}

/* --- the server side ------------------------------------------------------ */

static void on_done(uv_async_t *async)
{
    struct server *s = async->data;
    ops_http_stop(s->h);
    uv_close((uv_handle_t *)async, NULL);
}

static void *client_main(void *arg)
{
    struct server *s = arg;
    s->client(s);
    uv_async_send(&s->done);
    return NULL;
}

/* Starts the listener, runs client in a thread, stops the listener once the
 * client is done, and checks that nothing was left open. */
static void run(void (*client)(struct server *s))
{
    struct server *s = calloc(1, sizeof *s);
    assert_non_null(s);
    pthread_mutex_init(&s->lock, NULL);
    atomic_init(&s->healthy, true);
    atomic_init(&s->ready, true);
    s->client = client;
    s->checks = (struct ops_http_checks){is_healthy, is_ready, s};
    assert_int_equal(uv_loop_init(&s->loop), 0);
    s->m = metrics_new();
    assert_non_null(s->m);
    metrics_count(s->m, METRIC_EVENTS_IN, "discord", 7);
    metrics_observe(s->m, METRIC_REST_SECONDS, "discord", 0.2);
    char err[256] = "";
    assert_int_equal(
        ops_http_start(&s->h, &s->loop, "127.0.0.1", 0, s->m, &s->checks, err, sizeof err), 0);
    s->port = ops_http_port(s->h);
    assert_true(s->port > 0 && s->port < 65536);
    assert_int_equal(uv_async_init(&s->loop, &s->done, on_done), 0);
    s->done.data = s;

    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, client_main, s), 0);
    assert_int_equal(uv_run(&s->loop, UV_RUN_DEFAULT), 0);
    pthread_join(thread, NULL);
    assert_int_equal(uv_loop_close(&s->loop), 0);

    /* Sockets left open across the stop were closed by the server. */
    for (int i = 0; i < s->nopen; i++) {
        char buf[4096];
        ssize_t n = read_all(s->open_fds[i], buf, sizeof buf);
        if (n < 0 && errno != ECONNRESET)
            fail_at(s, __LINE__, "a connection outlived ops_http_stop");
        close(s->open_fds[i]);
    }
    metrics_free(s->m);
    pthread_mutex_destroy(&s->lock);
    char fail[sizeof s->fail];
    memcpy(fail, s->fail, sizeof fail);
    free(s);
    if (fail[0])
        fail_msg("%s", fail);
}

/* --- the tests ------------------------------------------------------------ */

static void client_paths(struct server *s)
{
    char buf[REPLY_MAX];
    struct reply r;
    CHECK(s, request(s, "GET", "/healthz", &r, buf, sizeof buf) == 200);
    CHECK(s, body_is(&r, "ok\n"));
    CHECK(s, strcmp(r.content_type, "text/plain; charset=utf-8") == 0);
    CHECK(s, request(s, "GET", "/readyz", &r, buf, sizeof buf) == 200);
    CHECK(s, body_is(&r, "ok\n"));

    atomic_store(&s->healthy, false);
    atomic_store(&s->ready, false);
    CHECK(s, request(s, "GET", "/healthz", &r, buf, sizeof buf) == 503);
    CHECK(s, request(s, "GET", "/readyz", &r, buf, sizeof buf) == 503);
    CHECK(s, body_is(&r, "not ready\n"));
    atomic_store(&s->healthy, true);
    CHECK(s, request(s, "GET", "/healthz", &r, buf, sizeof buf) == 200);
    CHECK(s, request(s, "GET", "/readyz", &r, buf, sizeof buf) == 503);
    atomic_store(&s->ready, true);

    CHECK(s, request(s, "GET", "/metrics", &r, buf, sizeof buf) == 200);
    CHECK(s, strcmp(r.content_type, "text/plain; version=0.0.4; charset=utf-8") == 0);
    CHECK(s, strncmp(r.body, "# HELP illegald_events_in_total ", 32) == 0);
    CHECK(s, strstr(r.body, "\nillegald_events_in_total{platform=\"discord\"} 7\n") != NULL);
    CHECK(s, strstr(r.body, "\nillegald_rest_request_seconds_count{platform=\"discord\"} 1\n"));

    CHECK(s, request(s, "GET", "/", &r, buf, sizeof buf) == 404);
    CHECK(s, body_is(&r, "not found\n"));
    CHECK(s, request(s, "GET", "/healthz/", &r, buf, sizeof buf) == 404);
    CHECK(s, request(s, "GET", "/metricsx", &r, buf, sizeof buf) == 404);
    CHECK(s, request(s, "GET", "/%68ealthz", &r, buf, sizeof buf) == 404);
    CHECK(s, request(s, "GET", "/healthz?verbose=1", &r, buf, sizeof buf) == 200);
    CHECK(s, request(s, "GET", "http://127.0.0.1:9108/readyz", &r, buf, sizeof buf) == 200);
    CHECK(s, request(s, "GET", "http://127.0.0.1", &r, buf, sizeof buf) == 404);

    /* HTTP/1.0 without Host; leading blank line; bare LF line ends. */
    static const char *const fine[] = {
        "GET /healthz HTTP/1.0\r\n\r\n",
        "\r\nGET /healthz HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /healthz HTTP/1.1\nHost: x\nUser-Agent: probe\n\n",
        "GET /healthz HTTP/1.1\r\nhOsT:x\r\nX-Empty:\r\nX-Tab:\ta\tb\r\n\r\n",
        "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello",
    };
    for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
        ssize_t n = exchange(s->port, fine[i], strlen(fine[i]), buf, sizeof buf);
        CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r));
        CHECK(s, r.status == 200 && body_is(&r, "ok\n"));
    }
}

/* A head that arrives a byte at a time, and two requests in one write: the
 * first is answered, the second never read as a request. */
static void client_pieces(struct server *s)
{
    char buf[REPLY_MAX];
    struct reply r;
    const char *req = "GET /readyz HTTP/1.1\r\nHost: x\r\n\r\n";
    int fd = dial(s->port);
    CHECK(s, fd >= 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    for (size_t i = 0; req[i]; i++) {
        CHECK(s, send_all(fd, req + i, 1));
        if (i % 8 == 0)
            sleep_ms(5);
    }
    ssize_t n = read_all(fd, buf, sizeof buf);
    close(fd);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 200);

    const char *two = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
                      "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    n = exchange(s->port, two, strlen(two), buf, sizeof buf);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 200);
    CHECK(s, r.body_len == (size_t)r.content_length);
    CHECK(s, strstr(r.body, "HTTP/1.1") == NULL);
}

static void test_pieces(void **state)
{
    (void)state;
    run(client_pieces);
}

static void test_paths(void **state)
{
    (void)state;
    run(client_paths);
}

static void client_head(struct server *s)
{
    char buf[REPLY_MAX];
    struct reply r;
    CHECK(s, request(s, "GET", "/metrics", &r, buf, sizeof buf) == 200);
    long get_len = r.content_length;
    CHECK(s, get_len > 100);
    CHECK(s, request(s, "HEAD", "/metrics", &r, buf, sizeof buf) == 200);
    CHECK(s, r.content_length == get_len && r.body_len == 0);
    CHECK(s, strcmp(r.content_type, "text/plain; version=0.0.4; charset=utf-8") == 0);
    CHECK(s, request(s, "HEAD", "/healthz", &r, buf, sizeof buf) == 200);
    CHECK(s, r.content_length == 3 && r.body_len == 0);
    CHECK(s, request(s, "HEAD", "/nowhere", &r, buf, sizeof buf) == 404);
    CHECK(s, r.body_len == 0 && r.content_length == 10);
}

static void test_head(void **state)
{
    (void)state;
    run(client_head);
}

static void client_methods(struct server *s)
{
    char buf[REPLY_MAX];
    struct reply r;
    static const char *const methods[] = {"POST", "PUT",   "DELETE", "OPTIONS",
                                          "get",  "PATCH", "BREW"};
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++) {
        CHECK(s, request(s, methods[i], "/healthz", &r, buf, sizeof buf) == 405);
        CHECK(s, strcmp(r.allow, "GET, HEAD") == 0);
        CHECK(s, body_is(&r, "method not allowed\n"));
    }
    const char *star = "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n";
    ssize_t n = exchange(s->port, star, strlen(star), buf, sizeof buf);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 405);
}

static void test_methods(void **state)
{
    (void)state;
    run(client_methods);
}

struct raw {
    const char *text;
    size_t len;
};
#define RAW(literal)                                                                               \
    {                                                                                              \
        literal, sizeof(literal) - 1                                                               \
    }

static void client_malformed(struct server *s)
{
    static const struct raw bad[] = {
        RAW("GET /healthz\r\n\r\n"),
        RAW("GET\r\n\r\n"),
        RAW("GET  /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW(" GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz  HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1 \r\nHost: x\r\n\r\n"),
        RAW("GET\t/healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz HTTP/2.0\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz HTTP/1.10\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz HTTP/1.\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz http/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz FTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("G(T /healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET ftp://x/healthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET /hea\x01lthz HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET /h\xc3\xa9 HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz\rX HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1\r\nHost: a\0b\r\n\r\n"),
        RAW("GET /he\0althz HTTP/1.1\r\nHost: x\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1\r\nHost : x\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1\r\nHost: x\r\n: empty name\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1\r\nHost: x\r\nX: a\rb\r\n\r\n"),
        RAW("GET /healthz HTTP/1.1\r\nHost: x\r\nX: \x7f\r\n\r\n"),
        RAW("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03\n\n"),
    };
    char buf[REPLY_MAX];
    struct reply r;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ssize_t n = exchange(s->port, bad[i].text, bad[i].len, buf, sizeof buf);
        if (n <= 0 || !parse_reply(buf, (size_t)n, &r) || r.status != 400 ||
            !body_is(&r, "bad request\n")) {
            char what[64];
            snprintf(what, sizeof what, "bad request %zu not answered 400", i);
            fail_at(s, __LINE__, what);
            return;
        }
    }

    /* A head cut short by the client's end of input. */
    int fd = dial(s->port);
    CHECK(s, fd >= 0);
    const char *part = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
    CHECK(s, send_all(fd, part, strlen(part)));
    shutdown(fd, SHUT_WR);
    ssize_t n = read_all(fd, buf, sizeof buf);
    close(fd);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 400);

    /* A connection opened and closed without a word. */
    fd = dial(s->port);
    CHECK(s, fd >= 0);
    close(fd);

    /* Random bytes, then the listener still answers. */
    unsigned seed = 7;
    for (int round = 0; round < 50; round++) {
        char junk[512];
        size_t len = 1 + (size_t)(rand_r(&seed) % (sizeof junk - 3));
        for (size_t i = 0; i < len; i++)
            junk[i] = (char)(rand_r(&seed) & 0xff);
        memcpy(junk + len, "\n\n", 2);
        n = exchange(s->port, junk, len + 2, buf, sizeof buf);
        CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r));
        CHECK(s, r.status == 400 || r.status == 405 || r.status == 404);
    }
    CHECK(s, request(s, "GET", "/healthz", &r, buf, sizeof buf) == 200);
}

static void test_malformed(void **state)
{
    (void)state;
    run(client_malformed);
}

/* A request of exactly total bytes: its one header is padded to fit. */
static char *padded_request(size_t total)
{
    const char *head = "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Pad: ";
    const char *tail = "\r\n\r\n";
    char *req = malloc(total + 1);
    if (!req)
        return NULL;
    size_t hl = strlen(head), tl = strlen(tail);
    memcpy(req, head, hl);
    memset(req + hl, 'a', total - hl - tl);
    memcpy(req + total - tl, tail, tl);
    req[total] = '\0';
    return req;
}

static void client_oversized(struct server *s)
{
    char buf[REPLY_MAX];
    struct reply r;
    char *req = padded_request(8192);
    CHECK(s, req != NULL);
    ssize_t n = exchange(s->port, req, 8192, buf, sizeof buf);
    free(req);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 200);

    req = padded_request(8193);
    CHECK(s, req != NULL);
    n = exchange(s->port, req, 8193, buf, sizeof buf);
    free(req);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 431);
    CHECK(s, body_is(&r, "request header fields too large\n"));

    /* Much more than the limit: the answer still arrives, not a reset. */
    req = padded_request(40000);
    CHECK(s, req != NULL);
    n = exchange(s->port, req, 40000, buf, sizeof buf);
    free(req);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 431);

    CHECK(s, request(s, "GET", "/healthz", &r, buf, sizeof buf) == 200);
}

static void test_oversized(void **state)
{
    (void)state;
    run(client_oversized);
}

/* A client that says nothing is closed without an answer after the timeout;
 * one that stops halfway gets 408. Both within the timeout and a margin. */
static void client_slow(struct server *s)
{
    char buf[REPLY_MAX];
    struct reply r;
    double start = now_ms();
    int quiet = dial(s->port);
    int half = dial(s->port);
    int trickle = dial(s->port);
    CHECK(s, quiet >= 0 && half >= 0 && trickle >= 0);
    CHECK(s, send_all(half, "GET /heal", 9));
    /* One byte every 200 ms: the deadline counts from the accept. */
    const char *req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    size_t sent = 0;
    while (now_ms() - start < TIMEOUT_MS + 300 && sent < strlen(req)) {
        if (!send_all(trickle, req + sent, 1))
            break;
        sent++;
        sleep_ms(200);
    }
    ssize_t n = read_all(quiet, buf, sizeof buf);
    double quiet_ms = now_ms() - start;
    CHECK(s, n == 0);
    n = read_all(half, buf, sizeof buf);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 408);
    n = read_all(trickle, buf, sizeof buf);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 408);
    close(quiet);
    close(half);
    close(trickle);
    CHECK(s, quiet_ms >= TIMEOUT_MS - 100 && quiet_ms < TIMEOUT_MS + 2000);
    CHECK(s, request(s, "GET", "/healthz", &r, buf, sizeof buf) == 200);
}

static void test_slow_clients(void **state)
{
    (void)state;
    run(client_slow);
}

struct worker {
    struct server *s;
    int ok;
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    static const char *const paths[] = {"/healthz", "/readyz", "/metrics", "/nope"};
    static const int want[] = {200, 200, 200, 404};
    char *buf = malloc(REPLY_MAX);
    if (!buf)
        return NULL;
    for (int i = 0; i < 10; i++) {
        struct reply r;
        if (request(w->s, "GET", paths[i % 4], &r, buf, REPLY_MAX) == want[i % 4])
            w->ok++;
    }
    free(buf);
    return NULL;
}

/* Many clients at once, under and at the cap of 64 connections. */
static void client_concurrent(struct server *s)
{
    enum { WORKERS = 24 };
    pthread_t threads[WORKERS];
    struct worker workers[WORKERS];
    for (int i = 0; i < WORKERS; i++) {
        workers[i] = (struct worker){s, 0};
        CHECK(s, pthread_create(&threads[i], NULL, worker_main, &workers[i]) == 0);
    }
    int ok = 0;
    for (int i = 0; i < WORKERS; i++) {
        pthread_join(threads[i], NULL);
        ok += workers[i].ok;
    }
    CHECK(s, ok == WORKERS * 10);
}

static void test_concurrent(void **state)
{
    (void)state;
    run(client_concurrent);
}

/* 64 idle connections fill the listener; the 65th waits unanswered until one
 * of them goes away, then is served. */
static void client_cap(struct server *s)
{
    int idle[MAX_CONNS];
    for (int i = 0; i < MAX_CONNS; i++) {
        idle[i] = dial(s->port);
        CHECK(s, idle[i] >= 0);
    }
    int extra = dial(s->port);
    CHECK(s, extra >= 0);
    const char *req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(s, send_all(extra, req, strlen(req)));
    struct pollfd pfd = {extra, POLLIN, 0};
    CHECK(s, poll(&pfd, 1, 300) == 0);
    close(idle[0]);
    char buf[REPLY_MAX];
    struct reply r;
    double start = now_ms();
    ssize_t n = read_all(extra, buf, sizeof buf);
    CHECK(s, n > 0 && parse_reply(buf, (size_t)n, &r) && r.status == 200);
    CHECK(s, now_ms() - start < TIMEOUT_MS / 2);
    close(extra);
    for (int i = 1; i < MAX_CONNS; i++)
        close(idle[i]);
}

static void test_cap(void **state)
{
    (void)state;
    run(client_cap);
}

/* Stopping closes connections that are still open, in every state. */
static void client_open_at_stop(struct server *s)
{
    for (int i = 0; i < 3; i++) {
        int fd = dial(s->port);
        CHECK(s, fd >= 0);
        s->open_fds[s->nopen++] = fd;
    }
    CHECK(s, send_all(s->open_fds[1], "GET /heal", 9));
    /* One that has its answer and keeps the connection open. */
    const char *req = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n";
    CHECK(s, send_all(s->open_fds[2], req, strlen(req)));
    sleep_ms(200);
}

static void test_stop_with_open_connections(void **state)
{
    (void)state;
    run(client_open_at_stop);
}

/* --- binding ------------------------------------------------------------- */

static int start_on(uv_loop_t *loop, const char *bind, int port, struct ops_http **h, char *err,
                    size_t errlen)
{
    err[0] = '\0';
    return ops_http_start(h, loop, bind, port, NULL, NULL, err, errlen);
}

/* Lets close callbacks run, then checks that the loop holds nothing. */
static void finish_loop(uv_loop_t *loop)
{
    assert_int_equal(uv_run(loop, UV_RUN_DEFAULT), 0);
    assert_int_equal(uv_loop_close(loop), 0);
}

static void test_bind(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    struct ops_http *a = NULL, *b = NULL;
    char err[256];

    assert_int_equal(start_on(&loop, "localhost", 0, &a, err, sizeof err), 0);
    int port = ops_http_port(a);
    assert_true(port > 0);
    /* The same port again is refused with a reason. */
    assert_int_equal(start_on(&loop, "127.0.0.1", port, &b, err, sizeof err), -1);
    assert_null(b);
    assert_non_null(strstr(err, "address already in use"));
    ops_http_stop(a);
    ops_http_stop(NULL);
    assert_int_equal(ops_http_port(NULL), -1);

    static const char *const bad[] = {"example.com", "",       "127.0.0.1:80",
                                      "256.0.0.1",   "::1::2", "[::1]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(start_on(&loop, bad[i], 0, &b, err, sizeof err), -1);
        assert_null(b);
        assert_non_null(strstr(err, "not an IPv4 or IPv6 address"));
    }
    assert_int_equal(start_on(&loop, NULL, 0, &b, err, sizeof err), -1);
    assert_int_equal(start_on(&loop, "127.0.0.1", 65536, &b, err, sizeof err), -1);
    assert_non_null(strstr(err, "port"));
    assert_int_equal(start_on(&loop, "127.0.0.1", -1, &b, err, sizeof err), -1);
    assert_int_equal(ops_http_start(&b, &loop, "nope", 0, NULL, NULL, NULL, 0), -1);

    /* IPv6 loopback, where the machine has it; no checks means healthy. */
    if (start_on(&loop, "::1", 0, &b, err, sizeof err) == 0) {
        assert_true(ops_http_port(b) > 0);
        ops_http_stop(b);
    } else {
        print_message("IPv6 loopback unavailable (%s); skipped\n", err);
    }
    finish_loop(&loop);
}

/* Stopping right after starting, before the loop ever ran. */
static void test_stop_at_once(void **state)
{
    (void)state;
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    struct ops_http *h = NULL;
    char err[256];
    assert_int_equal(start_on(&loop, "127.0.0.1", 0, &h, err, sizeof err), 0);
    ops_http_stop(h);
    finish_loop(&loop);
}

int main(void)
{
    log_set_level(LOG_WARN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bind),         cmocka_unit_test(test_stop_at_once),
        cmocka_unit_test(test_paths),        cmocka_unit_test(test_pieces),
        cmocka_unit_test(test_head),         cmocka_unit_test(test_methods),
        cmocka_unit_test(test_malformed),    cmocka_unit_test(test_oversized),
        cmocka_unit_test(test_slow_clients), cmocka_unit_test(test_concurrent),
        cmocka_unit_test(test_cap),          cmocka_unit_test(test_stop_with_open_connections),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
