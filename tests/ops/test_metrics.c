/*
 * test_metrics.c - the registry's Prometheus text: exact output for a small
 * case, label escaping, the "other" platform, NULL registries and gauges.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/metrics.h"

/* metrics_write's output as a malloc'd string. */
static char *render(const struct metrics *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    metrics_write(m, f);
    assert_int_equal(fclose(f), 0);
    assert_non_null(text);
    return text;
}

/* Counts the lines of text that start with prefix. */
static int lines_starting(const char *text, const char *prefix)
{
    int n = 0;
    size_t plen = strlen(prefix);
    for (const char *p = text; *p;) {
        if (strncmp(p, prefix, plen) == 0)
            n++;
        const char *nl = strchr(p, '\n');
        if (!nl)
            break;
        p = nl + 1;
    }
    return n;
}

/* An empty registry names every metric and has no samples. */
static void test_empty(void **state)
{
    (void)state;
    struct metrics *m = metrics_new();
    assert_non_null(m);
    char *text = render(m);
    assert_string_equal(
        text, "# HELP illegald_events_in_total Inputs delivered to the dispatcher.\n"
              "# TYPE illegald_events_in_total counter\n"
              "# HELP illegald_messages_out_total Messages the bot queued on a platform.\n"
              "# TYPE illegald_messages_out_total counter\n"
              "# HELP illegald_ratelimit_waits_total Requests held back by a rate limit.\n"
              "# TYPE illegald_ratelimit_waits_total counter\n"
              "# HELP illegald_http_429_total 429 answers (or M_LIMIT_EXCEEDED) received from "
              "a platform.\n"
              "# TYPE illegald_http_429_total counter\n"
              "# HELP illegald_gateway_reconnects_total Gateway connections re-established.\n"
              "# TYPE illegald_gateway_reconnects_total counter\n"
              "# HELP illegald_gateway_resumes_total Gateway sessions resumed.\n"
              "# TYPE illegald_gateway_resumes_total counter\n"
              "# HELP illegald_sync_errors_total Failed Matrix /sync requests.\n"
              "# TYPE illegald_sync_errors_total counter\n"
              "# HELP illegald_rest_request_seconds REST request latency in seconds, from "
              "send to final answer.\n"
              "# TYPE illegald_rest_request_seconds histogram\n"
              "# HELP illegald_store_commit_seconds Store transaction latency in seconds.\n"
              "# TYPE illegald_store_commit_seconds histogram\n");
    free(text);
    metrics_free(m);
}

/* One platform, two counters and three observations: the whole text. Buckets
 * are cumulative, a bound is inclusive (0.25 lands in le="0.25"), +Inf equals
 * the count, and every platform seen gets every series, at 0 if unused. */
static void test_exact_text(void **state)
{
    (void)state;
    struct metrics *m = metrics_new();
    assert_non_null(m);
    metrics_count(m, METRIC_EVENTS_IN, "discord", 1);
    metrics_count(m, METRIC_EVENTS_IN, "discord", 2);
    metrics_count(m, METRIC_HTTP_429, "discord", 0.5);
    metrics_observe(m, METRIC_REST_SECONDS, "discord", 0.25);
    metrics_observe(m, METRIC_REST_SECONDS, "discord", 3);
    metrics_observe(m, METRIC_REST_SECONDS, "discord", 0.0625);
    char *text = render(m);
    assert_string_equal(
        text, "# HELP illegald_events_in_total Inputs delivered to the dispatcher.\n"
              "# TYPE illegald_events_in_total counter\n"
              "illegald_events_in_total{platform=\"discord\"} 3\n"
              "# HELP illegald_messages_out_total Messages the bot queued on a platform.\n"
              "# TYPE illegald_messages_out_total counter\n"
              "illegald_messages_out_total{platform=\"discord\"} 0\n"
              "# HELP illegald_ratelimit_waits_total Requests held back by a rate limit.\n"
              "# TYPE illegald_ratelimit_waits_total counter\n"
              "illegald_ratelimit_waits_total{platform=\"discord\"} 0\n"
              "# HELP illegald_http_429_total 429 answers (or M_LIMIT_EXCEEDED) received from a "
              "platform.\n"
              "# TYPE illegald_http_429_total counter\n"
              "illegald_http_429_total{platform=\"discord\"} 0.5\n"
              "# HELP illegald_gateway_reconnects_total Gateway connections re-established.\n"
              "# TYPE illegald_gateway_reconnects_total counter\n"
              "illegald_gateway_reconnects_total{platform=\"discord\"} 0\n"
              "# HELP illegald_gateway_resumes_total Gateway sessions resumed.\n"
              "# TYPE illegald_gateway_resumes_total counter\n"
              "illegald_gateway_resumes_total{platform=\"discord\"} 0\n"
              "# HELP illegald_sync_errors_total Failed Matrix /sync requests.\n"
              "# TYPE illegald_sync_errors_total counter\n"
              "illegald_sync_errors_total{platform=\"discord\"} 0\n"
              "# HELP illegald_rest_request_seconds REST request latency in seconds, from send to "
              "final answer.\n"
              "# TYPE illegald_rest_request_seconds histogram\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"0.005\"} 0\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"0.01\"} 0\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"0.025\"} 0\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"0.05\"} 0\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"0.1\"} 1\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"0.25\"} 2\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"0.5\"} 2\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"1\"} 2\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"2.5\"} 2\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"5\"} 3\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"10\"} 3\n"
              "illegald_rest_request_seconds_bucket{platform=\"discord\",le=\"+Inf\"} 3\n"
              "illegald_rest_request_seconds_sum{platform=\"discord\"} 3.3125\n"
              "illegald_rest_request_seconds_count{platform=\"discord\"} 3\n"
              "# HELP illegald_store_commit_seconds Store transaction latency in seconds.\n"
              "# TYPE illegald_store_commit_seconds histogram\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"0.005\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"0.01\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"0.025\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"0.05\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"0.1\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"0.25\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"0.5\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"1\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"2.5\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"5\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"10\"} 0\n"
              "illegald_store_commit_seconds_bucket{platform=\"discord\",le=\"+Inf\"} 0\n"
              "illegald_store_commit_seconds_sum{platform=\"discord\"} 0\n"
              "illegald_store_commit_seconds_count{platform=\"discord\"} 0\n");
    free(text);
    metrics_free(m);
}

/* Values the text format reads back exactly; huge and odd observations land
 * in +Inf only; NaN, negative deltas and a negative time are not taken as is. */
static void test_values(void **state)
{
    (void)state;
    struct metrics *m = metrics_new();
    assert_non_null(m);
    metrics_count(m, METRIC_EVENTS_IN, "web", 0.1);
    metrics_count(m, METRIC_EVENTS_IN, "web", 0.2);
    metrics_count(m, METRIC_EVENTS_IN, "web", -5);
    metrics_count(m, METRIC_EVENTS_IN, "web", NAN);
    metrics_count(m, METRIC_MESSAGES_OUT, "web", 1e6);
    metrics_count(m, METRIC_SYNC_ERRORS, "web", INFINITY);
    metrics_observe(m, METRIC_STORE_COMMIT_SECONDS, "web", 1e9);
    metrics_observe(m, METRIC_STORE_COMMIT_SECONDS, "web", NAN);
    metrics_observe(m, METRIC_STORE_COMMIT_SECONDS, "web", -1);
    metrics_observe(m, METRIC_STORE_COMMIT_SECONDS, "web", 10);
    char *text = render(m);
    assert_non_null(strstr(text, "\nillegald_events_in_total{platform=\"web\"} "
                                 "0.30000000000000004\n"));
    assert_non_null(strstr(text, "\nillegald_messages_out_total{platform=\"web\"} 1000000\n"));
    assert_non_null(strstr(text, "\nillegald_sync_errors_total{platform=\"web\"} +Inf\n"));
    assert_non_null(
        strstr(text, "\nillegald_store_commit_seconds_bucket{platform=\"web\",le=\"0.005\"} 1\n"));
    assert_non_null(
        strstr(text, "\nillegald_store_commit_seconds_bucket{platform=\"web\",le=\"5\"} 1\n"));
    assert_non_null(
        strstr(text, "\nillegald_store_commit_seconds_bucket{platform=\"web\",le=\"10\"} 2\n"));
    assert_non_null(
        strstr(text, "\nillegald_store_commit_seconds_bucket{platform=\"web\",le=\"+Inf\"} 3\n"));
    assert_non_null(strstr(text, "\nillegald_store_commit_seconds_sum{platform=\"web\"} "
                                 "1000000010\n"));
    assert_non_null(strstr(text, "\nillegald_store_commit_seconds_count{platform=\"web\"} 3\n"));
    free(text);
    metrics_free(m);
}

/* Backslash, double quote and line feed in a label value are escaped; the
 * text stays one sample per line. */
static void test_label_escaping(void **state)
{
    (void)state;
    struct metrics *m = metrics_new();
    assert_non_null(m);
    metrics_count(m, METRIC_EVENTS_IN, "a\\b\"c\nd}e,f=g", 1);
    char *text = render(m);
    assert_non_null(
        strstr(text, "\nillegald_events_in_total{platform=\"a\\\\b\\\"c\\nd}e,f=g\"} 1\n"));
    assert_non_null(strstr(text, "\nillegald_rest_request_seconds_count{platform="
                                 "\"a\\\\b\\\"c\\nd}e,f=g\"} 0\n"));
    /* Every line is a comment or a sample that starts with the prefix. */
    int lines = 0;
    for (char *p = text; *p; lines++) {
        assert_true(strncmp(p, "# ", 2) == 0 || strncmp(p, "illegald_", 9) == 0);
        char *nl = strchr(p, '\n');
        assert_non_null(nl);
        p = nl + 1;
    }
    assert_int_equal(lines, 9 * 2 + 7 + 2 * 14);
    free(text);
    metrics_free(m);
}

/* Eight platforms get their own label; the ninth and later, an empty or NULL
 * name, an over-long name and "other" itself all add up under "other". */
static void test_other_platform(void **state)
{
    (void)state;
    struct metrics *m = metrics_new();
    assert_non_null(m);
    char name[16];
    for (int i = 0; i < 12; i++) {
        snprintf(name, sizeof name, "p%d", i);
        metrics_count(m, METRIC_MESSAGES_OUT, name, 1);
        metrics_count(m, METRIC_MESSAGES_OUT, name, 1); /* the same slot again */
        metrics_observe(m, METRIC_REST_SECONDS, name, 0.01);
    }
    metrics_count(m, METRIC_MESSAGES_OUT, NULL, 1);
    metrics_count(m, METRIC_MESSAGES_OUT, "", 1);
    metrics_count(m, METRIC_MESSAGES_OUT, "other", 1);
    metrics_count(m, METRIC_MESSAGES_OUT, "a-platform-name-far-too-long-to-keep", 1);
    metrics_count(m, METRIC_MESSAGES_OUT, "p3", 1);
    char *text = render(m);
    for (int i = 0; i < 8; i++) {
        char want[96];
        snprintf(want, sizeof want, "\nillegald_messages_out_total{platform=\"p%d\"} %d\n", i,
                 i == 3 ? 3 : 2);
        assert_non_null(strstr(text, want));
    }
    assert_null(strstr(text, "platform=\"p8\""));
    assert_null(strstr(text, "platform=\"p11\""));
    assert_null(strstr(text, "far-too-long"));
    assert_non_null(strstr(text, "\nillegald_messages_out_total{platform=\"other\"} 12\n"));
    assert_non_null(strstr(text, "\nillegald_rest_request_seconds_count{platform=\"other\"} 4\n"));
    assert_non_null(
        strstr(text, "\nillegald_rest_request_seconds_bucket{platform=\"other\",le=\"0.01\"} 4\n"));
    /* Nine label values, each once per counter. */
    assert_int_equal(lines_starting(text, "illegald_events_in_total{"), 9);
    assert_int_equal(lines_starting(text, "illegald_messages_out_total{platform=\"other\"}"), 1);
    free(text);
    metrics_free(m);
}

static void test_null_registry(void **state)
{
    (void)state;
    metrics_count(NULL, METRIC_EVENTS_IN, "discord", 1);
    metrics_observe(NULL, METRIC_REST_SECONDS, "discord", 1);
    metrics_set_gauges(NULL, NULL, NULL);
    metrics_free(NULL);
    char *text = render(NULL);
    assert_string_equal(text, "");
    free(text);
}

static void write_games(void *arg, FILE *out)
{
    int *calls = arg;
    (*calls)++;
    fputs("# HELP illegald_games Games by phase and platform.\n"
          "# TYPE illegald_games gauge\n"
          "illegald_games{platform=\"console\",phase=\"lobby\"} 2\n",
          out);
}

/* The gauge writer is called at each write, and its lines come last. */
static void test_gauges(void **state)
{
    (void)state;
    struct metrics *m = metrics_new();
    assert_non_null(m);
    int calls = 0;
    metrics_set_gauges(m, write_games, &calls);
    metrics_count(m, METRIC_EVENTS_IN, "console", 1);
    char *text = render(m);
    assert_int_equal(calls, 1);
    const char *tail = "\n# HELP illegald_games Games by phase and platform.\n"
                       "# TYPE illegald_games gauge\n"
                       "illegald_games{platform=\"console\",phase=\"lobby\"} 2\n";
    size_t len = strlen(text), tlen = strlen(tail);
    assert_true(len > tlen);
    assert_string_equal(text + len - tlen, tail);
    free(text);
    metrics_set_gauges(m, NULL, NULL);
    text = render(m);
    assert_null(strstr(text, "illegald_games"));
    assert_int_equal(calls, 1);
    free(text);
    metrics_free(m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),          cmocka_unit_test(test_exact_text),
        cmocka_unit_test(test_values),         cmocka_unit_test(test_label_escaping),
        cmocka_unit_test(test_other_platform), cmocka_unit_test(test_null_registry),
        cmocka_unit_test(test_gauges),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
