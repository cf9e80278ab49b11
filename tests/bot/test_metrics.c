/*
 * test_metrics.c - /healthz, /readyz and /metrics follow a console game.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "console_harness.h"
#include "table_player.h"

static int port;

static int free_port(void)
{
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* GETs path and returns the whole response (status line, headers, body); caller frees. */
static char *get(const char *path)
{
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    char req[256];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", path);
    assert_int_equal(write(fd, req, (size_t)n), n);
    size_t cap = 1 << 16, len = 0;
    char *buf = malloc(cap);
    assert_non_null(buf);
    ssize_t r;
    while ((r = read(fd, buf + len, cap - len - 1)) > 0) {
        len += (size_t)r;
        if (cap - len < 4096) {
            cap *= 2;
            buf = realloc(buf, cap);
            assert_non_null(buf);
        }
    }
    close(fd);
    buf[len] = '\0';
    return buf;
}

/* The value of the first sample line starting with `series`. */
static double sample(const char *text, const char *series)
{
    for (const char *p = strstr(text, series); p; p = strstr(p + 1, series))
        if (p == text || p[-1] == '\n')
            return strtod(p + strlen(series), NULL);
    fail_msg("no sample %s", series);
    return 0;
}

static void test_metrics_follow_game(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp;
    char portstr[16];
    port = free_port();
    snprintf(portstr, sizeof portstr, "%d", port);
    setenv("ILLEGALD_METRICS_ENABLED", "true", 1);
    setenv("ILLEGALD_METRICS_PORT", portstr, 1);
    harness_init(&h, 21);
    unsetenv("ILLEGALD_METRICS_ENABLED");
    unsetenv("ILLEGALD_METRICS_PORT");
    harness_sync(&h);

    char *r = get("/healthz");
    assert_non_null(strstr(r, "HTTP/1.1 200"));
    free(r);
    r = get("/readyz");
    assert_non_null(strstr(r, "HTTP/1.1 200"));
    free(r);
    r = get("/nowhere");
    assert_non_null(strstr(r, "HTTP/1.1 404"));
    free(r);

    char *before = get("/metrics");
    assert_non_null(strstr(before, "text/plain; version=0.0.4"));
    tp_open(&tp, &h, "t1", 4, "standard");
    char *during = get("/metrics");
    assert_true(sample(during, "illegald_events_in_total{platform=\"console\"} ") >= 6);
    assert_null(strstr(before, "illegald_messages_out_total{platform=\"console\"}"));
    assert_true(sample(during, "illegald_messages_out_total{platform=\"console\"} ") >= 10);
    /* group commit: at least one commit, and no more than one per input */
    double commits = sample(during, "illegald_store_commit_seconds_count{platform=\"console\"} ");
    assert_true(commits >= 1);
    assert_true(commits <= sample(during, "illegald_events_in_total{platform=\"console\"} "));
    assert_true(sample(during, "illegald_games{platform=\"console\",phase=\"dealing\"} ") == 1);

    tp_play_to_end(&tp);
    char *after = get("/metrics");
    assert_true(sample(after, "illegald_events_in_total{platform=\"console\"} ") >
                sample(during, "illegald_events_in_total{platform=\"console\"} "));
    assert_true(sample(after, "illegald_games{platform=\"console\",phase=\"dealing\"} ") == 0);
    assert_true(sample(after, "illegald_games{platform=\"console\",phase=\"vote\"} ") == 0);
    free(before);
    free(during);
    free(after);
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_metrics_follow_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
