/*
 * ratelimit.h - Discord REST rate limits, kept from response headers.
 *
 * Per-route buckets: a route template (method and path with ids replaced)
 * maps to the bucket hash from X-RateLimit-Bucket; the state of a bucket is
 * kept per hash and top-level resource (channel, guild, webhook + token).
 * Also the global limit (requests per second, and the block a global 429
 * asks for) and the count of invalid requests (401, 403 and 429 except
 * scope "shared") over the last 10 minutes. Pure logic: the caller passes
 * the time, so tests can drive it.
 */
#ifndef DISCORD_RATELIMIT_H
#define DISCORD_RATELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/util/map.h"

#define RL_WAIT_RELEASE      UINT64_MAX /* wait for an answer in flight, no timer */
#define RL_INVALID_WINDOW_MS (10u * 60u * 1000u)
#define RL_INVALID_RING      2048

struct rl_headers {
    char bucket[80];    /* X-RateLimit-Bucket, "" when absent */
    char scope[16];     /* X-RateLimit-Scope */
    int limit;          /* X-RateLimit-Limit, -1 when absent */
    int remaining;      /* X-RateLimit-Remaining, -1 when absent */
    double reset_after; /* X-RateLimit-Reset-After, seconds; < 0 when absent */
    double retry_after; /* Retry-After header, seconds; < 0 when absent */
    bool global;        /* X-RateLimit-Global: true */
};

struct rl {
    struct map routes;  /* route template -> bucket hash (char *) */
    struct map buckets; /* state key -> struct rl_bucket * */
    unsigned global_per_sec;
    uint64_t global_until;
    uint64_t *gwin;     /* answer times of the last gcap requests, a ring */
    unsigned gcap;      /* its slots: grown on demand up to global_per_sec */
    unsigned gpos;      /* the oldest of them */
    unsigned ginflight; /* requests bound to the global limit, let go and not answered */
    uint64_t invalid[RL_INVALID_RING];
    unsigned ninvalid, invalid_pos;
    unsigned invalid_limit; /* pause everything at this many in the window */
    /* counters for logs, metrics and the benchmark */
    unsigned long n429, n429_global, n_invalid_total;
};

/* global_per_sec: 50 for Discord; invalid_limit: well under 10,000 (the ban). */
int rl_init(struct rl *rl, unsigned global_per_sec, unsigned invalid_limit) MUST_USE;
void rl_free(struct rl *rl);

/*
 * Splits a request into its route template ("POST /channels/:id/messages")
 * and its top-level resource ("channels/123"; "" when there is none). An
 * interaction's callback counts its interaction ("interactions/55") as one.
 */
void rl_route(const char *method, const char *path, char *route, size_t routelen, char *major,
              size_t majorlen);

/*
 * Asks to send one request now. Returns 0 and counts it, or the milliseconds
 * to wait, or RL_WAIT_RELEASE when a request of the same bucket is in flight
 * and the limit is not yet known (or the global limit's worth is in flight).
 * exempt: not bound to the global limit (interaction responses). A request
 * counts against the global limit from now until a second after its
 * rl_release(), so that however late it arrives, no second of arrivals at
 * Discord holds more than the limit.
 */
uint64_t rl_acquire(struct rl *rl, const char *route, const char *major, bool exempt, uint64_t now);

/*
 * Records the answer to a request rl_acquire() let through (exempt as it was
 * asked). status 0 means no answer (a network error, or it was never sent).
 * body_retry_after (seconds, < 0 if none) and body_global come from a 429's
 * JSON body. Returns the milliseconds to wait before retrying a 429 (0
 * otherwise).
 */
uint64_t rl_release(struct rl *rl, const char *route, const char *major, bool exempt, long status,
                    const struct rl_headers *h, double body_retry_after, bool body_global,
                    uint64_t now);

/* Invalid requests (401, 403, counted 429) within the last 10 minutes. */
unsigned rl_invalid_recent(struct rl *rl, uint64_t now);

void rl_headers_init(struct rl_headers *h);
/* Parses one "Name: value" response header line into h; ignores others. */
void rl_headers_parse(struct rl_headers *h, const char *line, size_t len);

#endif
