/*
 * rest.h - Discord's REST API over libcurl's multi interface on a libuv loop.
 *
 * Requests go into named queues. Each queue sends one request at a time, in
 * order, so messages to one channel keep their order. A request leaves its
 * queue only when it got a final answer: a 429 waits as long as Discord says
 * and goes again, 5xx and network errors retry with capped exponential
 * backoff, other statuses are final (401 and 403 are never retried).
 */
#ifndef DISCORD_REST_H
#define DISCORD_REST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/util/util.h"
#include "ratelimit.h"

struct uv_loop_s;
struct rest;
struct rest_req;

enum {
    REST_FRONT = 1 << 0,     /* put the request at the front of its queue */
    REST_NO_GLOBAL = 1 << 1, /* not bound to the global limit (interaction responses) */
};

/*
 * Called just before the request is sent; may change it with rest_req_set().
 * Returns 0 to send it, 1 to drop it (done is then called with status 0), or
 * -1 when it could not be changed for want of memory: it is tried again later.
 */
typedef int (*rest_prepare_fn)(struct rest_req *r, void *ud);
/*
 * The final answer. status is the HTTP status, 0 when the request was
 * dropped by prepare, REST_STOPPED when the client stopped before it was
 * answered, or REST_EXPIRED when its deadline passed first (see
 * rest_enqueue_until). body is the response body (NUL-terminated), never NULL.
 */
#define REST_STOPPED (-1)
#define REST_EXPIRED (-2)
typedef void (*rest_done_fn)(struct rest_req *r, long status, const char *body, void *ud);

struct rest_stats {
    unsigned long requests, retries, n429, n429_global, invalid;
};

/* user_agent is sent as is; token is sent as "Authorization: Bot <token>".
 * global_per_sec: requests per second in all (Discord's global limit, 50). */
struct rest *rest_new(struct uv_loop_s *loop, const char *api_url, const char *token,
                      const char *user_agent, unsigned global_per_sec);

/* Queues a request; method, path and body are copied. body is JSON or NULL.
 * Returns 0, or -1 on no memory or a method of more than 7 bytes. */
int rest_enqueue(struct rest *r, const char *queue, const char *method, const char *path,
                 const char *body, unsigned flags, rest_prepare_fn prepare, rest_done_fn done,
                 void *ud) MUST_USE;
/* rest_enqueue() for a request that is worth nothing after deadline (a
 * clock_mono_ms() time; 0: none): it is retried only until then, its
 * transfer may not outlast it, and it ends with REST_EXPIRED without a final
 * answer by then. */
int rest_enqueue_until(struct rest *r, const char *queue, const char *method, const char *path,
                       const char *body, unsigned flags, uint64_t deadline, rest_prepare_fn prepare,
                       rest_done_fn done, void *ud) MUST_USE;

/* rest_enqueue_until() of a request made for someone else than the bot (the
 * OAuth2 endpoints): auth is the whole Authorization value ("Bearer <token>"),
 * or NULL for none; with form the body is application/x-www-form-urlencoded.
 * Not bound to the global limit, which is the bot's. Returns 0, or -1 on no
 * memory. */
int rest_enqueue_as(struct rest *r, const char *queue, const char *method, const char *path,
                    const char *body, const char *auth, bool form, uint64_t deadline,
                    rest_done_fn done, void *ud) MUST_USE;

/* For prepare: replaces the method, path and body (body may be NULL), each
 * copied. Returns 0, or -1 on no memory or a method of more than 7 bytes (q
 * unchanged). */
int rest_req_set(struct rest_req *q, const char *method, const char *path,
                 const char *body) MUST_USE;
const char *rest_req_method(const struct rest_req *q);

/* Requests waiting or in flight. */
size_t rest_pending(const struct rest *r);
void rest_get_stats(const struct rest *r, struct rest_stats *s);

/*
 * Cancels everything (done gets -1) and closes the loop handles. The
 * structure frees itself once the loop has closed them.
 */
void rest_close(struct rest *r);

#endif
