/*
 * ops_http.h - the operators' HTTP listener: /healthz, /readyz, /metrics.
 *
 * Off by default; when on, it binds to loopback unless told otherwise. It
 * speaks just enough HTTP/1.1 for probes and Prometheus: GET and HEAD, one
 * request per connection, small bounded requests. libwebsockets serves the
 * sockets, on the daemon's loop, as it serves the local table and the
 * Discord gateway.
 */
#ifndef BOT_OPS_HTTP_H
#define BOT_OPS_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include "util/util.h"

struct uv_loop_s;
struct metrics;
struct ops_http;

/* Called on the loop thread at each probe. A NULL checks, or a NULL function
 * in it, counts as passing. */
struct ops_http_checks {
    bool (*healthy)(void *arg); /* alive, with the store writable */
    bool (*ready)(void *arg);   /* every configured platform connected */
    void *arg;
};

/*
 * Listens on bind:port (port 0 picks a free one) on loop. bind is an IPv4 or
 * IPv6 literal, or "localhost" for 127.0.0.1. Returns 0 and *out, or -1 with
 * a reason in err (and *out NULL; what was allocated is released on the
 * loop's next turn). checks and metrics are borrowed and must outlive the
 * listener.
 *
 * Answers: /healthz and /readyz 200 or 503; /metrics 200 with
 * metrics_write()'s text; 404 for any other path, 405 for a method other than
 * GET and HEAD, 400 for a malformed request, 431 for a head over 8 KiB. Every
 * answer has Content-Length and Connection: close. A client has 10 seconds to
 * send its request head; at most 64 connections are served at once, and
 * further clients wait in the backlog.
 */
int ops_http_start(struct ops_http **out, struct uv_loop_s *loop, const char *bind, int port,
                   struct metrics *metrics, const struct ops_http_checks *checks, char *err,
                   size_t errlen) MUST_USE;

/* The port actually bound. */
int ops_http_port(const struct ops_http *h);

/* Closes the listener and every open connection; the memory is released once
 * the loop has run the close callbacks. h may be NULL. */
void ops_http_stop(struct ops_http *h);

#endif
