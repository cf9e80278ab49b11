/*
 * client.h - HTTP calls to a Matrix homeserver: libcurl's multi interface
 * driven by a libuv loop, JSON bodies, and the retry policy the
 * client-server API asks for (M_LIMIT_EXCEEDED after Retry-After or
 * retry_after_ms; 5xx and network errors with capped backoff).
 */
#ifndef ADAPTERS_MATRIX_CLIENT_H
#define ADAPTERS_MATRIX_CLIENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/util/util.h"

struct json_object;
struct uv_loop_s;
struct mx_http;
struct mx_call;

/* One finished HTTP exchange, borrowed for the callback only. */
struct mx_resp {
    long status;              /* HTTP status; 0 on a network error */
    struct json_object *json; /* parsed body, NULL if absent or not JSON */
    const char *errcode;      /* "errcode" of a Matrix error body, or NULL */
    const char *body;         /* the raw body (NUL terminated), maybe "" */
    const char *net_error;    /* curl's reason on a network error, else NULL */
};

/* What a callback wants next. */
enum mx_next {
    MX_DONE,  /* the call is over */
    MX_RETRY, /* the answer was unusable (malformed): send it again after backoff */
};

typedef enum mx_next (*mx_http_cb)(void *arg, const struct mx_resp *r);

/* Calls with MX_CALL_RETRY are repeated by the client, without calling back,
 * on network errors, 5xx and 429 answers and on 200 answers whose body is not
 * JSON; the callback then sees only final answers. */
enum { MX_CALL_RETRY = 1 << 0, MX_CALL_NOAUTH = 1 << 1, MX_CALL_ONCE = 1 << 2 };
/* MX_CALL_ONCE: a call that must not be repeated (createRoom) goes on a fresh connection,
 * because libcurl sends a request again by itself when a reused connection dies before any
 * answer. */

/* base: the homeserver URL ("https://example.org"), without a trailing slash. */
struct mx_http *mx_http_new(struct uv_loop_s *loop, const char *base);
/* Sends token as the bearer of every call from now on. Returns 0, or -1 on no
 * memory (the previous token stays). */
int mx_http_set_token(struct mx_http *h, const char *token) MUST_USE;
/* Sends no token from now on (a login). */
void mx_http_clear_token(struct mx_http *h);
/* Sets the backoff bounds in milliseconds (defaults 500 and 30000). */
void mx_http_set_backoff(struct mx_http *h, int64_t first_ms, int64_t cap_ms);

/*
 * Starts a call. path starts with "/_matrix/..." and is already escaped; body
 * is a JSON text or NULL. timeout_ms bounds one attempt. Returns a handle that
 * stays valid until the callback returned MX_DONE or mx_call_cancel().
 */
struct mx_call *mx_http_call(struct mx_http *h, const char *method, const char *path,
                             const char *body, long timeout_ms, unsigned flags, mx_http_cb cb,
                             void *arg) MUST_USE;
/* Cancels a call that has not finished; its callback is never called. */
void mx_call_cancel(struct mx_call *c);
/* Cancels every call and frees the client once libuv released its handles. */
void mx_http_free(struct mx_http *h);

/*
 * One blocking call outside the loop, for start-up checks. Fills *status
 * (0 on a network error) and returns the parsed body or NULL.
 */
struct json_object *mx_http_call_sync(struct mx_http *h, const char *method, const char *path,
                                      const char *body, long timeout_ms, long *status);

/* Escapes one path or query component into a malloc'd string. */
char *mx_escape(const char *s);

/* The delay a rate-limit answer asks for: Retry-After (seconds, or an HTTP-date) when
 * present, else the deprecated retry_after_ms of the body, else -1. Exposed for tests. */
int64_t mx_retry_after_ms(const char *retry_after_header, struct json_object *body);

#endif
