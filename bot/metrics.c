/*
 * metrics.c - the operators' registry: counters and latency histograms per
 * platform, written in the Prometheus text exposition format 0.0.4.
 *
 * Everything lives in one fixed-size struct allocated by metrics_new(), so an
 * update is a table look-up and an addition: it never allocates and never
 * fails. Platforms get a slot the first time they are named, up to
 * METRICS_PLATFORMS of them; any further name, an empty or over-long name, and
 * the name "other" itself are all counted under platform="other", so a
 * misbehaving caller cannot grow the number of series without bound.
 *
 * The registry is not locked: every caller runs on the daemon's one loop
 * thread.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics.h"

#define METRICS_PLATFORMS   8  /* named platforms; one more slot is "other" */
#define METRICS_NAME_MAX    32 /* longest platform name kept, with its NUL */
#define METRICS_OTHER       METRICS_PLATFORMS
#define METRICS_SLOTS       (METRICS_PLATFORMS + 1)
#define METRICS_OTHER_LABEL "other"

/* Upper bounds of the latency buckets, in seconds; +Inf is implied. The label
 * text is kept beside each bound so the output never depends on how printf
 * happens to round a double. */
static const double bucket_bounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
static const char *const bucket_labels[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
                                            "0.5",   "1",    "2.5",   "5",    "10"};
#define METRICS_BUCKETS (sizeof bucket_bounds / sizeof bucket_bounds[0])
_Static_assert(sizeof bucket_bounds / sizeof bucket_bounds[0] ==
                   sizeof bucket_labels / sizeof bucket_labels[0],
               "every bucket bound has its label");

struct metric_desc {
    const char *name;
    const char *help; /* no backslash or newline: written as is */
};

static const struct metric_desc counter_desc[] = {
    [METRIC_EVENTS_IN] = {"illegald_events_in_total", "Inputs delivered to the dispatcher."},
    [METRIC_MESSAGES_OUT] = {"illegald_messages_out_total",
                             "Messages the bot queued on a platform."},
    [METRIC_RATELIMIT_WAITS] = {"illegald_ratelimit_waits_total",
                                "Requests held back by a rate limit."},
    [METRIC_HTTP_429] = {"illegald_http_429_total",
                         "429 answers (or M_LIMIT_EXCEEDED) received from a platform."},
    [METRIC_GATEWAY_RECONNECTS] = {"illegald_gateway_reconnects_total",
                                   "Gateway connections re-established."},
    [METRIC_GATEWAY_RESUMES] = {"illegald_gateway_resumes_total", "Gateway sessions resumed."},
    [METRIC_SYNC_ERRORS] = {"illegald_sync_errors_total", "Failed Matrix /sync requests."},
};
_Static_assert(sizeof counter_desc / sizeof counter_desc[0] == METRIC_COUNTERS,
               "every counter has a name");

static const struct metric_desc histogram_desc[] = {
    [METRIC_REST_SECONDS] = {"illegald_rest_request_seconds",
                             "REST request latency in seconds, from send to final answer."},
    [METRIC_STORE_COMMIT_SECONDS] = {"illegald_store_commit_seconds",
                                     "Store transaction latency in seconds."},
};
_Static_assert(sizeof histogram_desc / sizeof histogram_desc[0] == METRIC_HISTOGRAMS,
               "every histogram has a name");

struct histogram {
    unsigned long long buckets[METRICS_BUCKETS]; /* per bucket, not cumulative */
    unsigned long long count;                    /* every observation, so also +Inf */
    double sum;
};

struct metrics {
    char platform[METRICS_PLATFORMS][METRICS_NAME_MAX];
    int platforms;   /* slots of platform[] in use */
    bool other_used; /* whether anything was counted under "other" */
    double counter[METRIC_COUNTERS][METRICS_SLOTS];
    struct histogram histogram[METRIC_HISTOGRAMS][METRICS_SLOTS];
    metrics_gauge_fn gauges;
    void *gauges_arg;
};

struct metrics *metrics_new(void)
{
    return calloc(1, sizeof(struct metrics));
}

void metrics_free(struct metrics *m)
{
    free(m);
}

/* The slot of platform name, taking a free one for a new name. */
static int slot_of(struct metrics *m, const char *name)
{
    size_t len = name ? strnlen(name, METRICS_NAME_MAX) : 0;
    if (len == 0 || len == METRICS_NAME_MAX || strcmp(name, METRICS_OTHER_LABEL) == 0) {
        m->other_used = true;
        return METRICS_OTHER;
    }
    for (int i = 0; i < m->platforms; i++)
        if (strcmp(m->platform[i], name) == 0)
            return i;
    if (m->platforms == METRICS_PLATFORMS) {
        m->other_used = true;
        return METRICS_OTHER;
    }
    memcpy(m->platform[m->platforms], name, len + 1);
    return m->platforms++;
}

void metrics_count(struct metrics *m, enum metric_counter c, const char *platform, double delta)
{
    /* A counter only goes up; a negative or NaN delta would break rate(). */
    if (!m || (unsigned)c >= METRIC_COUNTERS || !(delta >= 0))
        return;
    m->counter[c][slot_of(m, platform)] += delta;
}

void metrics_observe(struct metrics *m, enum metric_histogram h, const char *platform,
                     double seconds)
{
    if (!m || (unsigned)h >= METRIC_HISTOGRAMS || isnan(seconds))
        return;
    if (seconds < 0) /* a clock stepped backwards: the request took no time */
        seconds = 0;
    struct histogram *hg = &m->histogram[h][slot_of(m, platform)];
    size_t b = 0;
    while (b < METRICS_BUCKETS && seconds > bucket_bounds[b])
        b++;
    if (b < METRICS_BUCKETS)
        hg->buckets[b]++;
    hg->count++;
    hg->sum += seconds;
}

void metrics_set_gauges(struct metrics *m, metrics_gauge_fn fn, void *arg)
{
    if (!m)
        return;
    m->gauges = fn;
    m->gauges_arg = arg;
}

/* Writes v as the text format reads floats (Go's ParseFloat): the shortest
 * decimal that reads back as v, and +Inf, -Inf, NaN spelled its way. */
static void write_value(FILE *out, double v)
{
    if (isnan(v)) {
        fputs("NaN", out);
        return;
    }
    if (isinf(v)) {
        fputs(v > 0 ? "+Inf" : "-Inf", out);
        return;
    }
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    fputs(buf, out);
}

/* Writes a label value: backslash, double quote and line feed are escaped as
 * \\, \" and \n; every other byte goes out as it is. */
static void write_label_value(FILE *out, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '\\':
            fputs("\\\\", out);
            break;
        case '"':
            fputs("\\\"", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        default:
            putc(*s, out);
        }
    }
}

static const char *slot_name(const struct metrics *m, int slot)
{
    return slot == METRICS_OTHER ? METRICS_OTHER_LABEL : m->platform[slot];
}

/* The slots to write, in order: named platforms, then "other" if it was used. */
static int slots_to_write(const struct metrics *m, int *slots)
{
    int n = 0;
    for (int i = 0; i < m->platforms; i++)
        slots[n++] = i;
    if (m->other_used)
        slots[n++] = METRICS_OTHER;
    return n;
}

static void write_header(FILE *out, const struct metric_desc *d, const char *type)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", d->name, d->help, d->name, type);
}

static void write_platform_label(FILE *out, const struct metrics *m, int slot)
{
    fputs("platform=\"", out);
    write_label_value(out, slot_name(m, slot));
    putc('"', out);
}

static void write_histogram(FILE *out, const struct metrics *m, const char *name, int slot,
                            const struct histogram *hg)
{
    unsigned long long cumulative = 0;
    for (size_t b = 0; b < METRICS_BUCKETS; b++) {
        cumulative += hg->buckets[b];
        fprintf(out, "%s_bucket{", name);
        write_platform_label(out, m, slot);
        fprintf(out, ",le=\"%s\"} %llu\n", bucket_labels[b], cumulative);
    }
    fprintf(out, "%s_bucket{", name);
    write_platform_label(out, m, slot);
    fprintf(out, ",le=\"+Inf\"} %llu\n", hg->count);
    fprintf(out, "%s_sum{", name);
    write_platform_label(out, m, slot);
    fputs("} ", out);
    write_value(out, hg->sum);
    fprintf(out, "\n%s_count{", name);
    write_platform_label(out, m, slot);
    fprintf(out, "} %llu\n", hg->count);
}

void metrics_write(const struct metrics *m, FILE *out)
{
    if (!m || !out)
        return;
    int slots[METRICS_SLOTS];
    int n = slots_to_write(m, slots);

    for (int c = 0; c < METRIC_COUNTERS; c++) {
        const struct metric_desc *d = &counter_desc[c];
        write_header(out, d, "counter");
        for (int i = 0; i < n; i++) {
            fprintf(out, "%s{", d->name);
            write_platform_label(out, m, slots[i]);
            fputs("} ", out);
            write_value(out, m->counter[c][slots[i]]);
            putc('\n', out);
        }
    }
    for (int h = 0; h < METRIC_HISTOGRAMS; h++) {
        const struct metric_desc *d = &histogram_desc[h];
        write_header(out, d, "histogram");
        for (int i = 0; i < n; i++)
            write_histogram(out, m, d->name, slots[i], &m->histogram[h][slots[i]]);
    }
    if (m->gauges)
        m->gauges(m->gauges_arg, out);
}
