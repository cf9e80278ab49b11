/*
 * metrics.h - counters and histograms for operators, in Prometheus text form.
 *
 * One registry per daemon, owned by main() and handed to the dispatcher and to
 * every adapter through platform_host.metrics. Metric names are fixed here, so
 * a typo is a compile error; labels are the platform name and, for games, the
 * phase. Updating a metric never fails and never allocates after creation.
 */
#ifndef BOT_METRICS_H
#define BOT_METRICS_H

#include <stddef.h>
#include <stdio.h>

struct metrics;

enum metric_counter {
    METRIC_EVENTS_IN,          /* inputs delivered to the dispatcher */
    METRIC_MESSAGES_OUT,       /* messages the bot queued on a platform */
    METRIC_RATELIMIT_WAITS,    /* requests held back by a rate limit */
    METRIC_HTTP_429,           /* 429 answers (or M_LIMIT_EXCEEDED) received */
    METRIC_GATEWAY_RECONNECTS, /* gateway connections re-established */
    METRIC_GATEWAY_RESUMES,    /* gateway sessions resumed */
    METRIC_SYNC_ERRORS,        /* failed Matrix /sync requests */
    METRIC_COUNTERS
};

enum metric_histogram {
    METRIC_REST_SECONDS,         /* REST request latency, send to final answer */
    METRIC_STORE_COMMIT_SECONDS, /* store transaction latency */
    METRIC_HISTOGRAMS
};

/* Creates an empty registry. Returns NULL on no memory. */
struct metrics *metrics_new(void);

/* Frees the registry; m may be NULL. */
void metrics_free(struct metrics *m);

/* Adds delta to a counter for platform ("discord", ...). m may be NULL (then nothing happens).
 * The first 8 platform names get their own label; further names, and a NULL
 * or empty name, are counted under platform="other". A negative delta is
 * ignored. Call from the loop thread only: the registry is not locked. */
void metrics_count(struct metrics *m, enum metric_counter c, const char *platform, double delta);

/* Records one observation in seconds (buckets 0.005 to 10, and +Inf). m may
 * be NULL. NaN is ignored; a negative time counts as 0. */
void metrics_observe(struct metrics *m, enum metric_histogram h, const char *platform,
                     double seconds);

/* Called at each scrape to write gauges the registry does not keep (games by
 * phase); it writes Prometheus text lines to out. */
typedef void (*metrics_gauge_fn)(void *arg, FILE *out);

/* Sets the gauge writer. */
void metrics_set_gauges(struct metrics *m, metrics_gauge_fn fn, void *arg);

/* Writes every metric in the Prometheus text exposition format (version 0.0.4),
 * then the gauge writer's lines. Writes nothing when m is NULL. */
void metrics_write(const struct metrics *m, FILE *out);

#endif
