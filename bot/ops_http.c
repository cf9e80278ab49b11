/*
 * ops_http.c - the operators' HTTP listener on the daemon's libuv loop.
 *
 * One request per connection, answered and closed:
 *
 *   accept ─► READING ──(blank line)──► WRITING ──(written)──► DRAINING ──► closed
 *                │                          ▲                    (FIN sent;
 *                └──(431, 400, timeout)─────┘                     read and drop
 *                                                                 until EOF)
 *
 * The request head must arrive whole within OPS_HTTP_TIMEOUT_MS and fit in
 * OPS_HTTP_MAX_REQUEST bytes; a body, or anything sent after the head, is never
 * read as a request. After the answer the write side is shut down and what the
 * client still sends is read and dropped for a short while, so closing a
 * socket with unread input does not reset the connection before the client has
 * read the answer (a 431 in particular).
 *
 * At most OPS_HTTP_MAX_CONNS connections are open at once. When that many are,
 * the listener stops accepting and new clients wait in the kernel's backlog
 * until one closes; nothing is allocated for them.
 *
 * Every connection is in h->conns from accept until both of its handles have
 * closed; the struct ops_http itself is freed once the listener has closed
 * and that list is empty.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <time.h>

#include <arpa/inet.h>
#include <uv.h>

#include "log.h"
#include "metrics.h"
#include "ops_http.h"
#include "util/buf.h"

#ifndef OPS_HTTP_TIMEOUT_MS
#define OPS_HTTP_TIMEOUT_MS 10000 /* the whole request head must arrive within this */
#endif
#define OPS_HTTP_LINGER_MS    2000        /* reading and dropping input after the answer */
#define OPS_HTTP_LINGER_MAX   (64 * 1024) /* bytes dropped before giving up on a client */
#define OPS_HTTP_MAX_CONNS    64
#define OPS_HTTP_MAX_REQUEST  8192       /* request line and headers, with the blank line */
#define OPS_HTTP_MAX_RESPONSE (1u << 20) /* an answer: the metrics text is the longest */
#define OPS_HTTP_BACKLOG      128

enum conn_state { CONN_READING, CONN_WRITING, CONN_DRAINING, CONN_CLOSING };

struct conn {
    uv_tcp_t tcp;
    uv_timer_t timer;
    uv_write_t write_req;
    uv_shutdown_t shutdown_req;
    struct ops_http *h;
    LIST_ENTRY(conn) link; /* in the server's conns */
    enum conn_state state;
    int open_handles; /* handles not yet closed; freed at 0 */
    size_t len;       /* bytes in buf */
    size_t scan;      /* where the search for the end of the head resumes */
    size_t line;      /* where the current line starts */
    size_t start;     /* where the request line starts (after leading blank lines) */
    size_t dropped;   /* bytes read and dropped while draining */
    char *response;
    char buf[OPS_HTTP_MAX_REQUEST];
};

struct ops_http {
    uv_loop_t *loop;
    uv_tcp_t listener;
    struct metrics *metrics;
    const struct ops_http_checks *checks;
    LIST_HEAD(, conn) conns;
    int nconns;
    int port;
    bool accept_pending;  /* a client waits to be accepted until a connection closes */
    bool stopping;        /* ops_http_stop() was called, or the start failed */
    bool listener_closed; /* the listener's close callback ran */
};

struct request {
    const char *method;
    size_t method_len;
    const char *target;
    size_t target_len;
    char minor; /* the x of HTTP/1.x */
    int hosts;  /* Host header fields seen */
};

static void conn_close(struct conn *c);
static void accept_one(struct ops_http *h);

static void maybe_free_server(struct ops_http *h)
{
    if (h->listener_closed && h->nconns == 0)
        free(h);
}

/* --- closing ------------------------------------------------------------- */

static void on_conn_handle_closed(uv_handle_t *handle)
{
    struct conn *c = handle->data;
    if (--c->open_handles > 0)
        return;
    struct ops_http *h = c->h;
    LIST_REMOVE(c, link);
    h->nconns--;
    free(c->response);
    free(c);
    if (h->stopping) {
        maybe_free_server(h);
        return;
    }
    if (h->accept_pending) {
        h->accept_pending = false;
        accept_one(h);
    }
}

/* Closes both handles; a write or shutdown in flight is cancelled and its
 * callback runs before the close callbacks. Safe to call twice. */
static void conn_close(struct conn *c)
{
    if (c->state == CONN_CLOSING)
        return;
    c->state = CONN_CLOSING;
    uv_close((uv_handle_t *)&c->tcp, on_conn_handle_closed);
    uv_close((uv_handle_t *)&c->timer, on_conn_handle_closed);
}

/* --- answering ----------------------------------------------------------- */

static const char *reason_phrase(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 408:
        return "Request Timeout";
    case 431:
        return "Request Header Fields Too Large";
    case 503:
        return "Service Unavailable";
    default:
        return "Internal Server Error";
    }
}

/* An IMF-fixdate (RFC 9110, 5.6.7), spelled without the locale. */
static void http_date(char *buf, size_t len)
{
    static const char days[7][4] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char months[12][4] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t now = time(NULL);
    struct tm tm;
    if (!gmtime_r(&now, &tm) || tm.tm_wday < 0 || tm.tm_wday > 6 || tm.tm_mon < 0 ||
        tm.tm_mon > 11) {
        snprintf(buf, len, "Thu, 01 Jan 1970 00:00:00 GMT");
        return;
    }
    snprintf(buf, len, "%s, %02d %s %04d %02d:%02d:%02d GMT", days[tm.tm_wday], tm.tm_mday,
             months[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static void on_drain_timeout(uv_timer_t *timer)
{
    conn_close(timer->data);
}

static void on_shutdown(uv_shutdown_t *req, int status);

static void on_written(uv_write_t *req, int status)
{
    struct conn *c = req->data;
    if (c->state == CONN_CLOSING)
        return;
    if (status < 0) {
        conn_close(c);
        return;
    }
    c->shutdown_req.data = c;
    if (uv_shutdown(&c->shutdown_req, (uv_stream_t *)&c->tcp, on_shutdown) < 0)
        conn_close(c);
}

/* Sends one whole answer and moves on to closing. body is copied; on HEAD
 * only its length is sent. */
static void respond(struct conn *c, int status, const char *content_type, const char *extra,
                    const char *body, size_t body_len, bool head)
{
    uv_read_stop((uv_stream_t *)&c->tcp);
    c->state = CONN_WRITING;
    uv_timer_stop(&c->timer);
    int linger =
        OPS_HTTP_LINGER_MS < OPS_HTTP_TIMEOUT_MS ? OPS_HTTP_LINGER_MS : OPS_HTTP_TIMEOUT_MS;
    uv_timer_start(&c->timer, on_drain_timeout, (uint64_t)linger, 0);

    char date[64];
    http_date(date, sizeof date);
    struct buf out;
    buf_init(&out, OPS_HTTP_MAX_RESPONSE);
    if (buf_printf(&out,
                   "HTTP/1.1 %d %s\r\n"
                   "Date: %s\r\n"
                   "Content-Type: %s\r\n"
                   "Content-Length: %zu\r\n"
                   "Cache-Control: no-store\r\n"
                   "%s"
                   "Connection: close\r\n"
                   "\r\n",
                   status, reason_phrase(status), date, content_type, body_len,
                   extra ? extra : "") < 0 ||
        (!head && buf_append(&out, body, body_len) < 0)) {
        /* no memory (the answers are far below the cap): the client sees the connection close */
        log_error("ops", NULL, "no memory for an answer of %zu bytes", body_len);
        buf_free(&out);
        conn_close(c);
        return;
    }
    size_t len = out.len;
    c->response = buf_take(&out);
    uv_buf_t buf = uv_buf_init(c->response, (unsigned)len);
    c->write_req.data = c;
    if (uv_write(&c->write_req, (uv_stream_t *)&c->tcp, &buf, 1, on_written) < 0)
        conn_close(c);
}

static const char text_plain[] = "text/plain; charset=utf-8";

static void respond_text(struct conn *c, int status, const char *text, bool head)
{
    respond(c, status, text_plain, NULL, text, strlen(text), head);
}

static bool check(const struct ops_http *h, bool ready)
{
    const struct ops_http_checks *k = h->checks;
    bool (*fn)(void *) = !k ? NULL : ready ? k->ready : k->healthy;
    return fn ? fn(k->arg) : true;
}

static void respond_metrics(struct conn *c, bool head)
{
    char *body = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&body, &len);
    if (!f) {
        respond_text(c, 500, "cannot write the metrics\n", head);
        return;
    }
    metrics_write(c->h->metrics, f);
    bool failed = ferror(f) != 0;
    if (fclose(f) != 0 || failed || !body) {
        free(body);
        respond_text(c, 500, "cannot write the metrics\n", head);
        return;
    }
    respond(c, 200, "text/plain; version=0.0.4; charset=utf-8", NULL, body, len, head);
    free(body);
}

/* --- parsing ------------------------------------------------------------- */

/* tchar in RFC 9110, 5.6.2: the characters of a method or a field name. */
static bool is_tchar(unsigned char ch)
{
    if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'))
        return true;
    return ch && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

/* Parses "METHOD SP target SP HTTP/1.x" (p..end, without the line end). */
static bool parse_request_line(const char *p, const char *end, struct request *r)
{
    r->method = p;
    while (p < end && is_tchar((unsigned char)*p))
        p++;
    r->method_len = (size_t)(p - r->method);
    if (r->method_len == 0 || p == end || *p != ' ')
        return false;
    r->target = ++p;
    while (p < end && (unsigned char)*p > 0x20 && (unsigned char)*p < 0x7f)
        p++;
    r->target_len = (size_t)(p - r->target);
    if (r->target_len == 0 || p == end || *p != ' ')
        return false;
    p++;
    if (end - p != 8 || memcmp(p, "HTTP/1.", 7) != 0 || p[7] < '0' || p[7] > '9')
        return false;
    r->minor = p[7];
    return true;
}

/* Checks one header field line: name ":" value, with no space before the
 * colon, no line folding, and no control character but HTAB in the value. */
static bool parse_field(const char *p, const char *end, struct request *r)
{
    const char *name = p;
    while (p < end && is_tchar((unsigned char)*p))
        p++;
    if (p == name || p == end || *p != ':')
        return false;
    if (p - name == 4 && strncasecmp(name, "host", 4) == 0)
        r->hosts++;
    for (p++; p < end; p++) {
        unsigned char ch = (unsigned char)*p;
        if ((ch < 0x20 && ch != '\t') || ch == 0x7f)
            return false;
    }
    return true;
}

/* The path of the target, without its query: origin-form "/path?query", or
 * absolute-form "http://host/path". Returns false for any other form. */
static bool target_path(const struct request *r, const char **path, size_t *len)
{
    const char *p = r->target, *end = r->target + r->target_len;
    if (*p != '/') {
        size_t scheme = r->target_len >= 7 && strncasecmp(p, "http://", 7) == 0    ? 7
                        : r->target_len >= 8 && strncasecmp(p, "https://", 8) == 0 ? 8
                                                                                   : 0;
        if (scheme == 0)
            return false;
        p += scheme;
        while (p < end && *p != '/' && *p != '?')
            p++;
        if (p == end || *p == '?') {
            *path = "/";
            *len = 1;
            return true;
        }
    }
    const char *q = p;
    while (q < end && *q != '?' && *q != '#')
        q++;
    *path = p;
    *len = (size_t)(q - p);
    return true;
}

static bool path_is(const char *path, size_t len, const char *want)
{
    return len == strlen(want) && memcmp(path, want, len) == 0;
}

/* Answers the request head in buf[c->start, head_end). */
static void handle_request(struct conn *c, size_t head_end)
{
    const char *p = c->buf + c->start, *end = c->buf + head_end;
    struct request r = {0};
    bool first = true;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl > p && nl[-1] == '\r' ? nl - 1 : nl;
        if (line_end == p) /* the blank line */
            break;
        if (memchr(p, '\r', (size_t)(line_end - p)) || memchr(p, '\0', (size_t)(line_end - p))) {
            respond_text(c, 400, "bad request\n", false);
            return;
        }
        if (first ? !parse_request_line(p, line_end, &r) : !parse_field(p, line_end, &r)) {
            respond_text(c, 400, "bad request\n", false);
            return;
        }
        first = false;
        p = nl + 1;
    }
    /* HTTP/1.1 requires exactly one Host field (RFC 9112, 3.2). */
    if (first || r.hosts > 1 || (r.minor != '0' && r.hosts == 0)) {
        respond_text(c, 400, "bad request\n", false);
        return;
    }
    bool head = r.method_len == 4 && memcmp(r.method, "HEAD", 4) == 0;
    bool get = r.method_len == 3 && memcmp(r.method, "GET", 3) == 0;
    if (!get && !head) {
        const char *body = "method not allowed\n";
        respond(c, 405, text_plain, "Allow: GET, HEAD\r\n", body, strlen(body), false);
        return;
    }
    const char *path;
    size_t len;
    if (!target_path(&r, &path, &len)) {
        respond_text(c, 400, "bad request\n", head);
        return;
    }
    if (path_is(path, len, "/healthz")) {
        if (check(c->h, false))
            respond_text(c, 200, "ok\n", head);
        else
            respond_text(c, 503, "unhealthy\n", head);
    } else if (path_is(path, len, "/readyz")) {
        if (check(c->h, true))
            respond_text(c, 200, "ok\n", head);
        else
            respond_text(c, 503, "not ready\n", head);
    } else if (path_is(path, len, "/metrics")) {
        respond_metrics(c, head);
    } else {
        respond_text(c, 404, "not found\n", head);
    }
}

/* Looks for the blank line that ends the head in the bytes just read. Lines
 * end in CRLF or, leniently, a bare LF; blank lines before the request line
 * are skipped (RFC 9112, 2.2). Returns the offset past the blank line, or 0. */
static size_t find_head_end(struct conn *c)
{
    for (; c->scan < c->len; c->scan++) {
        if (c->buf[c->scan] != '\n')
            continue;
        size_t line_len = c->scan - c->line;
        bool blank = line_len == 0 || (line_len == 1 && c->buf[c->line] == '\r');
        c->line = c->scan + 1;
        if (!blank)
            continue;
        if (c->line - line_len - 1 == c->start) {
            c->start = c->line;
            continue;
        }
        return ++c->scan;
    }
    return 0;
}

/* --- reading ------------------------------------------------------------- */

static void on_alloc(uv_handle_t *handle, size_t suggested, uv_buf_t *buf)
{
    (void)suggested;
    struct conn *c = handle->data;
    if (c->state == CONN_DRAINING) {
        *buf = uv_buf_init(c->buf, sizeof c->buf);
        return;
    }
    *buf = uv_buf_init(c->buf + c->len, (unsigned)(sizeof c->buf - c->len));
}

static void on_read(uv_stream_t *stream, ssize_t nread, const uv_buf_t *buf)
{
    (void)buf;
    struct conn *c = stream->data;
    if (c->state == CONN_CLOSING)
        return;
    if (c->state == CONN_DRAINING) {
        if (nread < 0) {
            conn_close(c);
        } else {
            c->dropped += (size_t)nread;
            if (c->dropped > OPS_HTTP_LINGER_MAX)
                conn_close(c);
        }
        return;
    }
    if (nread == UV_EOF && c->len > c->start) {
        respond_text(c, 400, "bad request\n", false); /* a head cut short */
        return;
    }
    if (nread < 0) {
        conn_close(c);
        return;
    }
    c->len += (size_t)nread;
    size_t head_end = find_head_end(c);
    if (head_end)
        handle_request(c, head_end);
    else if (c->len == sizeof c->buf)
        respond_text(c, 431, "request header fields too large\n", false);
}

static void on_shutdown(uv_shutdown_t *req, int status)
{
    struct conn *c = req->data;
    if (c->state == CONN_CLOSING)
        return;
    if (status < 0) {
        conn_close(c);
        return;
    }
    c->state = CONN_DRAINING;
    if (uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read) < 0)
        conn_close(c);
}

static void on_request_timeout(uv_timer_t *timer)
{
    struct conn *c = timer->data;
    if (c->state != CONN_READING)
        return;
    if (c->len > c->start)
        respond_text(c, 408, "request timeout\n", false);
    else
        conn_close(c); /* said nothing: nothing to answer */
}

/* --- accepting ----------------------------------------------------------- */

static void accept_one(struct ops_http *h)
{
    struct conn *c = calloc(1, sizeof *c);
    if (!c) {
        log_error("ops", NULL, "no memory for a connection");
        h->accept_pending = true; /* retried when a connection closes */
        return;
    }
    c->h = h;
    c->state = CONN_READING;
    LIST_INSERT_HEAD(&h->conns, c, link);
    h->nconns++;
    uv_tcp_init(h->loop, &c->tcp);
    uv_timer_init(h->loop, &c->timer);
    c->tcp.data = c;
    c->timer.data = c;
    c->open_handles = 2;
    int rc = uv_accept((uv_stream_t *)&h->listener, (uv_stream_t *)&c->tcp);
    if (rc == 0)
        rc = uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
    if (rc == 0)
        rc = uv_timer_start(&c->timer, on_request_timeout, OPS_HTTP_TIMEOUT_MS, 0);
    if (rc < 0) {
        log_warn("ops", NULL, "accept: %s", uv_strerror(rc));
        conn_close(c);
    }
}

static void on_connection(uv_stream_t *server, int status)
{
    struct ops_http *h = server->data;
    if (h->stopping)
        return;
    if (status < 0) {
        log_warn("ops", NULL, "listener: %s", uv_strerror(status));
        return;
    }
    /* Leaving the client unaccepted makes libuv stop watching the listener
     * until uv_accept() is called, when a connection closes. */
    if (h->nconns >= OPS_HTTP_MAX_CONNS) {
        h->accept_pending = true;
        return;
    }
    accept_one(h);
}

/* --- starting and stopping ----------------------------------------------- */

static void on_listener_closed(uv_handle_t *handle)
{
    struct ops_http *h = handle->data;
    h->listener_closed = true;
    maybe_free_server(h);
}

/* Fills addr from an IPv4 or IPv6 literal, or "localhost" (127.0.0.1). */
static int parse_bind(const char *bind, int port, struct sockaddr_storage *addr)
{
    if (!bind || !*bind)
        return UV_EINVAL;
    if (strcmp(bind, "localhost") == 0)
        bind = "127.0.0.1";
    if (uv_ip4_addr(bind, port, (struct sockaddr_in *)addr) == 0)
        return 0;
    if (strchr(bind, ':') && uv_ip6_addr(bind, port, (struct sockaddr_in6 *)addr) == 0)
        return 0;
    return UV_EINVAL;
}

int ops_http_start(struct ops_http **out, struct uv_loop_s *loop, const char *bind, int port,
                   struct metrics *metrics, const struct ops_http_checks *checks, char *err,
                   size_t errlen)
{
    char dummy[1];
    if (!err || errlen == 0) {
        err = dummy;
        errlen = sizeof dummy;
    }
    *out = NULL;
    if (port < 0 || port > 65535) {
        snprintf(err, errlen, "port %d is not between 0 and 65535", port);
        return -1;
    }
    struct sockaddr_storage addr;
    memset(&addr, 0, sizeof addr);
    if (parse_bind(bind, port, &addr) < 0) {
        snprintf(err, errlen, "bind address \"%s\" is not an IPv4 or IPv6 address",
                 bind ? bind : "");
        return -1;
    }
    struct ops_http *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "no memory");
        return -1;
    }
    LIST_INIT(&h->conns);
    h->loop = loop;
    h->metrics = metrics;
    h->checks = checks;
    int rc = uv_tcp_init(loop, &h->listener);
    if (rc < 0) {
        snprintf(err, errlen, "listener: %s", uv_strerror(rc));
        free(h);
        return -1;
    }
    h->listener.data = h;
    const char *step = "bind";
    rc = uv_tcp_bind(&h->listener, (const struct sockaddr *)&addr, 0);
    if (rc == 0) {
        step = "listen";
        rc = uv_listen((uv_stream_t *)&h->listener, OPS_HTTP_BACKLOG, on_connection);
    }
    struct sockaddr_storage bound;
    int bound_len = sizeof bound;
    if (rc == 0) {
        step = "getsockname";
        rc = uv_tcp_getsockname(&h->listener, (struct sockaddr *)&bound, &bound_len);
    }
    if (rc < 0) {
        snprintf(err, errlen, "%s %s port %d: %s", step, bind, port, uv_strerror(rc));
        h->stopping = true;
        uv_close((uv_handle_t *)&h->listener, on_listener_closed);
        return -1;
    }
    h->port = ntohs(bound.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&bound)->sin6_port
                                                : ((struct sockaddr_in *)&bound)->sin_port);
    log_info("ops", NULL, "listening on %s port %d", bind, h->port);
    *out = h;
    return 0;
}

int ops_http_port(const struct ops_http *h)
{
    return h ? h->port : -1;
}

void ops_http_stop(struct ops_http *h)
{
    if (!h || h->stopping)
        return;
    h->stopping = true;
    h->accept_pending = false;
    struct conn *c;
    LIST_FOREACH(c, &h->conns, link)
    conn_close(c);
    uv_close((uv_handle_t *)&h->listener, on_listener_closed);
}
