/*
 * ops_http.c - the operators' HTTP listener, served by libwebsockets on the
 * daemon's libuv loop.
 *
 * libwebsockets listens, accepts, reads, writes, times out and closes; its
 * raw-socket role hands this file the bytes of each connection. The request
 * head is read here, strictly, because the answers are part of the contract
 * (tests/ops/test_http.c): lws's own HTTP parser is lenient where this one
 * must refuse (it decodes "%68ealthz" into "healthz", takes "GET  /x" with
 * two spaces, prefixes "/" to a path without it, and answers an unknown
 * method 403 instead of 405). One request per connection, answered and closed:
 *
 *   adopt ─► READING ──(blank line)──► WRITING ──(written)──► DRAINING ──► closed
 *               │                          ▲                   (FIN sent;
 *               └──(431, 400, 408)─────────┘                    read and drop
 *                                                               until EOF)
 *
 * The request head must arrive whole within OPS_HTTP_TIMEOUT_MS of the accept
 * and fit in OPS_HTTP_MAX_REQUEST bytes; a body, or anything sent after the
 * head, is never read as a request. After the answer the write side is shut
 * down and what the client still sends is read and dropped for a short while,
 * so closing a socket with unread input does not reset the connection before
 * the client has read the answer (a 431 in particular). A client that ends its
 * input halfway through a head is answered 400 as lws closes the connection.
 *
 * At most OPS_HTTP_MAX_CONNS connections are open at once: the context is
 * given that many descriptors besides its listener, and lws stops accepting
 * when they are taken, so new clients wait in the kernel's backlog until one
 * closes.
 *
 * The context runs on the daemon's loop, which lws does not own: stopping
 * destroys it in two steps, the second once the loop has closed the handles
 * the first closed (finalize()), and the struct ops_http goes with it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <libwebsockets.h>
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
/* Descriptors of the context besides the connections: its listener. lws
 * stops accepting once they are all taken (test_cap holds it to exactly
 * OPS_HTTP_MAX_CONNS). */
#define OPS_HTTP_LWS_FDS     1
#define OPS_HTTP_FINALIZE_MS 10 /* how often the second destroy looks whether it may run */

enum conn_state { CONN_READING, CONN_WRITING, CONN_DRAINING };

/* One connection: lws allocates it with the wsi (per_session_data_size),
 * zeroed, and frees it after LWS_CALLBACK_RAW_CLOSE. */
struct conn {
    struct ops_http *h;
    struct lws *wsi;
    enum conn_state state;
    size_t len;     /* bytes in buf */
    size_t scan;    /* where the search for the end of the head resumes */
    size_t line;    /* where the current line starts */
    size_t start;   /* where the request line starts (after leading blank lines) */
    size_t dropped; /* bytes read and dropped while draining */
    char *response; /* LWS_PRE bytes, then the answer */
    size_t response_len;
    char buf[OPS_HTTP_MAX_REQUEST];
};

struct ops_http {
    uv_loop_t *loop;
    struct lws_context *ctx; /* NULL once lws has freed it (info.pcontext) */
    void *loops[1];
    uv_timer_t finalize;
    struct metrics *metrics;
    const struct ops_http_checks *checks;
    int port;
    bool stopping;
};

struct request {
    const char *method;
    size_t method_len;
    const char *target;
    size_t target_len;
    char minor; /* the x of HTTP/1.x */
    int hosts;  /* Host header fields seen */
};

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

/* The answer's bytes, after LWS_PRE bytes lws may use. NULL on no memory. */
static char *format_answer(int status, const char *content_type, const char *extra,
                           const char *body, size_t body_len, bool head, size_t *len)
{
    char date[64];
    http_date(date, sizeof date);
    struct buf out;
    buf_init(&out, OPS_HTTP_MAX_RESPONSE);
    if (buf_printf(&out,
                   "%*s"
                   "HTTP/1.1 %d %s\r\n"
                   "Date: %s\r\n"
                   "Content-Type: %s\r\n"
                   "Content-Length: %zu\r\n"
                   "Cache-Control: no-store\r\n"
                   "%s"
                   "Connection: close\r\n"
                   "\r\n",
                   LWS_PRE, "", status, reason_phrase(status), date, content_type, body_len,
                   extra ? extra : "") < 0 ||
        (!head && buf_append(&out, body, body_len) < 0)) {
        buf_free(&out);
        return NULL;
    }
    *len = out.len - LWS_PRE;
    return buf_take(&out);
}

/* Queues one whole answer and moves on to writing it. body is copied; on
 * HEAD only its length is sent. */
static void respond(struct conn *c, int status, const char *content_type, const char *extra,
                    const char *body, size_t body_len, bool head)
{
    c->state = CONN_WRITING;
    lws_rx_flow_control(c->wsi, 0); /* nothing more is read as a request */
    lws_set_timer_usecs(c->wsi, (lws_usec_t)OPS_HTTP_LINGER_MS * 1000);
    c->response =
        format_answer(status, content_type, extra, body, body_len, head, &c->response_len);
    if (!c->response) /* the answers are far below the cap: no memory */
        log_error("ops", NULL, "no memory for an answer of %zu bytes", body_len);
    lws_callback_on_writable(c->wsi); /* without an answer, the connection closes there */
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

/* --- the connection's life ------------------------------------------------ */

/* Bytes of a connection that is reading its head. */
static void take_input(struct conn *c, const char *in, size_t n)
{
    size_t room = sizeof c->buf - c->len;
    memcpy(c->buf + c->len, in, n < room ? n : room);
    c->len += n < room ? n : room;
    size_t head_end = find_head_end(c);
    if (head_end)
        handle_request(c, head_end);
    else if (c->len == sizeof c->buf)
        respond_text(c, 431, "request header fields too large\n", false);
}

/* The answer is out when lws holds none of it: the write side is shut
 * down, and what the client still sends is dropped until its EOF. Returns
 * -1 to close the connection. */
static int write_answer(struct conn *c)
{
    if (c->state != CONN_WRITING)
        return 0;
    if (c->response) {
        char *r = c->response;
        c->response = NULL;
        int n = lws_write(c->wsi, (unsigned char *)r + LWS_PRE, c->response_len, LWS_WRITE_RAW);
        free(r);
        if (n < (int)c->response_len)
            return -1;
    }
    if (lws_partial_buffered(c->wsi)) {
        lws_callback_on_writable(c->wsi);
        return 0;
    }
    if (c->response_len == 0 || shutdown(lws_get_socket_fd(c->wsi), SHUT_WR) != 0)
        return -1; /* no answer (no memory), or the socket is gone */
    c->state = CONN_DRAINING;
    lws_rx_flow_control(c->wsi, 1);
    return 0;
}

/* lws closes a connection at its end of input: one that ended halfway
 * through a head hears why first, written as its last bytes. */
static void answer_cut_head(struct conn *c)
{
    if (c->state != CONN_READING || c->len <= c->start)
        return;
    size_t len;
    char *r = format_answer(400, text_plain, NULL, "bad request\n", 12, false, &len);
    if (r && send(lws_get_socket_fd(c->wsi), r + LWS_PRE, len, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
        log_debug("ops", NULL, "a client left before its answer");
    free(r);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct conn *c = user;
    switch (reason) {
    case LWS_CALLBACK_RAW_ADOPT:
        c->h = lws_context_user(lws_get_context(wsi));
        c->wsi = wsi;
        c->state = CONN_READING;
        lws_set_timer_usecs(wsi, (lws_usec_t)OPS_HTTP_TIMEOUT_MS * 1000);
        return 0;
    case LWS_CALLBACK_RAW_RX:
        if (c->state == CONN_READING) {
            take_input(c, in, len);
        } else if (c->state == CONN_DRAINING) {
            c->dropped += len;
            if (c->dropped > OPS_HTTP_LINGER_MAX)
                return -1;
        }
        return 0;
    case LWS_CALLBACK_RAW_WRITEABLE:
        return write_answer(c);
    case LWS_CALLBACK_TIMER:
        if (c->state != CONN_READING)
            return -1; /* the answer took, or the client lingered, too long */
        if (c->len <= c->start)
            return -1; /* said nothing: nothing to answer */
        respond_text(c, 408, "request timeout\n", false);
        return 0;
    case LWS_CALLBACK_RAW_CLOSE:
        if (c) {
            answer_cut_head(c);
            free(c->response);
            c->response = NULL;
        }
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {"ops", callback, sizeof(struct conn), 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* --- starting and stopping ----------------------------------------------- */

static void lws_log(int level, const char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    log_write(level == LLL_ERR ? LOG_ERROR : LOG_WARN, "lws", NULL, "%.*s", (int)n, line);
}

static void count_closing(uv_handle_t *handle, void *arg)
{
    if (uv_is_closing(handle))
        ++*(unsigned *)arg;
}

static void on_finalized(uv_handle_t *handle)
{
    free(handle->data);
}

/* The second lws_context_destroy() frees the context; it may run only once
 * the loop has closed every handle the first one closed, whose callbacks
 * point into lws. Then the server goes. */
static void finalize(uv_timer_t *timer)
{
    struct ops_http *h = timer->data;
    unsigned closing = 0;
    uv_walk(h->loop, count_closing, &closing);
    if (closing)
        return;
    if (h->ctx)
        lws_context_destroy(h->ctx);
    uv_close((uv_handle_t *)&h->finalize, on_finalized);
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

/* Whether addr can be bound: lws says only that it could not listen, so the
 * reason (the port in use, most often) is found by trying first. */
static int try_bind(const struct sockaddr_storage *addr)
{
    int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return uv_translate_sys_error(errno);
    int one = 1, rc = 0;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one); /* as lws binds */
    socklen_t len =
        addr->ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
    if (bind(fd, (const struct sockaddr *)addr, len) != 0)
        rc = uv_translate_sys_error(errno);
    close(fd);
    return rc;
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
    int rc = port ? try_bind(&addr) : 0;
    if (rc < 0) {
        snprintf(err, errlen, "bind %s port %d: %s", bind, port, uv_strerror(rc));
        return -1;
    }
    struct ops_http *h = calloc(1, sizeof *h);
    if (!h) {
        snprintf(err, errlen, "no memory");
        return -1;
    }
    h->loop = loop;
    h->metrics = metrics;
    h->checks = checks;
    h->loops[0] = loop;
    char iface[INET6_ADDRSTRLEN];
    if (addr.ss_family == AF_INET6)
        uv_ip6_name((struct sockaddr_in6 *)&addr, iface, sizeof iface);
    else
        uv_ip4_name((struct sockaddr_in *)&addr, iface, sizeof iface);
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = port;
    info.iface = iface;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN |
                   LWS_SERVER_OPTION_ADOPT_APPLY_LISTEN_ACCEPT_CONFIG |
                   (addr.ss_family == AF_INET6 ? 0 : LWS_SERVER_OPTION_DISABLE_IPV6);
    info.listen_accept_role = "raw-skt";
    info.listen_accept_protocol = "ops";
    info.foreign_loops = h->loops;
    info.user = h;
    info.gid = -1;
    info.uid = -1;
    info.fd_limit_per_thread = OPS_HTTP_MAX_CONNS + OPS_HTTP_LWS_FDS;
    info.pcontext = &h->ctx; /* lws writes NULL there once the context is freed */
    h->ctx = lws_create_context(&info);
    struct lws_vhost *vh = h->ctx ? lws_get_vhost_by_name(h->ctx, "default") : NULL;
    h->port = vh ? lws_get_vhost_listen_port(vh) : -1;
    uv_timer_init(loop, &h->finalize);
    h->finalize.data = h;
    if (h->port <= 0) {
        snprintf(err, errlen, "listen %s port %d: the listener could not start", bind, port);
        ops_http_stop(h);
        return -1;
    }
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
    if (h->ctx)
        lws_context_destroy(h->ctx); /* the first step: every connection closes */
    uv_timer_start(&h->finalize, finalize, 0, OPS_HTTP_FINALIZE_MS);
}
