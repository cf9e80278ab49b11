/*
 * hs_http.c - the test homeserver's HTTP front: HTTP/1.1 with keep-alive on
 * libuv in the server's own thread, the log of requests, injected faults,
 * and long-polled /sync requests parked until the stream moves.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hs_internal.h"

#define MAX_BODY   (1u << 20)
#define MAX_HEADER (64u << 10)

struct conn {
    uv_tcp_t tcp;
    struct hs *hs;
    struct conn *next;
    char *buf;
    size_t len, cap;
    bool closing;
    bool lose_reply; /* handle the request, then close instead of answering */
    bool hold_reply; /* handle the request, then never answer */
    /* A parked /sync. */
    bool parked;
    char *user, *device;
    long since, since_td;
    struct json_object *filter;
    uint64_t deadline;
};

static void on_closed(uv_handle_t *h)
{
    struct conn *c = h->data;
    json_object_put(c->filter);
    free(c->user);
    free(c->device);
    free(c->buf);
    free(c);
}

static void conn_close(struct conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    struct hs *hs = c->hs;
    for (struct conn **pp = &hs->conns; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    uv_close((uv_handle_t *)&c->tcp, on_closed);
}

static void on_written(uv_write_t *w, int status)
{
    (void)status;
    free(w->data);
    free(w);
}

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 401:
        return "Unauthorized";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 429:
        return "Too Many Requests";
    case 500:
        return "Internal Server Error";
    case 502:
        return "Bad Gateway";
    default:
        return "Status";
    }
}

static void respond_raw(struct conn *c, int status, const char *body, const char *header)
{
    if (c->hold_reply) {
        c->hold_reply = false;
        return;
    }
    if (c->lose_reply) {
        c->lose_reply = false;
        conn_close(c);
        return;
    }
    size_t bl = strlen(body);
    size_t n = bl + 512 + (header ? strlen(header) : 0);
    char *out = malloc(n);
    uv_write_t *w = malloc(sizeof(*w));
    if (!out || !w) {
        free(out);
        free(w);
        conn_close(c);
        return;
    }
    int hl = snprintf(out, n,
                      "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: "
                      "%zu\r\n%s%s\r\n",
                      status, reason(status), bl, header ? header : "", header ? "\r\n" : "");
    memcpy(out + hl, body, bl);
    uv_buf_t b = uv_buf_init(out, (unsigned)(hl + (int)bl));
    w->data = out;
    if (uv_write(w, (uv_stream_t *)&c->tcp, &b, 1, on_written) != 0) {
        free(out);
        free(w);
        conn_close(c);
    }
}

static void respond(struct conn *c, int status, struct json_object *body)
{
    respond_raw(c, status, json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN), NULL);
    json_object_put(body);
}

static int unhex(int ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = tolower(ch);
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

char *hs_url_decode(const char *s, size_t n, bool query)
{
    char *out = malloc(n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%' && i + 2 < n && unhex(s[i + 1]) >= 0 && unhex(s[i + 2]) >= 0) {
            out[o++] = (char)(unhex(s[i + 1]) * 16 + unhex(s[i + 2]));
            i += 2;
        } else if (query && s[i] == '+') {
            out[o++] = ' ';
        } else {
            out[o++] = s[i];
        }
    }
    out[o] = '\0';
    return out;
}

struct json_object *hs_parse_query(const char *q)
{
    struct json_object *o = json_object_new_object();
    while (q && *q) {
        size_t n = strcspn(q, "&");
        const char *eq = memchr(q, '=', n);
        if (eq) {
            char *k = hs_url_decode(q, (size_t)(eq - q), true);
            char *v = hs_url_decode(eq + 1, n - (size_t)(eq - q) - 1, true);
            json_object_object_add(o, k, json_object_new_string(v));
            free(k);
            free(v);
        }
        q += n;
        if (*q == '&')
            q++;
    }
    return o;
}

/* ---- parked syncs ---- */

static void serve_parked(struct hs *hs)
{
    uint64_t now = hs_now_ms();
    for (struct conn *c = hs->conns; c; c = c->next) {
        if (!c->parked || c->closing)
            continue;
        struct json_object *r = hs_sync_parked(hs, c->user, c->device, c->since, c->since_td,
                                               c->filter, now >= c->deadline);
        if (r) {
            c->parked = false;
            json_object_put(c->filter);
            c->filter = NULL;
            respond(c, 200, r);
        }
    }
}

static void on_tick(uv_timer_t *t)
{
    struct hs *hs = t->data;
    uv_mutex_lock(&hs->mu);
    serve_parked(hs);
    uv_mutex_unlock(&hs->mu);
}

/* ---- requests ---- */

static void record(struct hs *hs, const char *line, const char *body)
{
    struct json_object *rec = json_object_new_object();
    json_object_object_add(rec, "line", json_object_new_string(line));
    json_object_object_add(rec, "body", json_object_new_string(body));
    json_object_object_add(rec, "ms", json_object_new_int64((int64_t)hs_now_ms()));
    json_object_array_add(hs->requests, rec);
}

/* Applies the first fault that matches line; true when the request is answered by it. */
static bool apply_fault(struct hs *hs, struct conn *c, const char *line)
{
    for (size_t i = 0; i < json_object_array_length(hs->faults); i++) {
        struct json_object *f = json_object_array_get_idx(hs->faults, i);
        int count = json_object_get_int(hs_jget(f, "count"));
        if (count <= 0 || !strstr(line, hs_jstr(f, "substr")))
            continue;
        json_object_object_add(f, "count", json_object_new_int(count - 1));
        int status = json_object_get_int(hs_jget(f, "status"));
        if (status < 0) {
            if (status == -2)
                c->hold_reply = true;
            else
                c->lose_reply = true;
            return false;
        }
        if (status == 0)
            conn_close(c);
        else
            respond_raw(c, status, hs_jstr(f, "body"), hs_jstr(f, "header"));
        return true;
    }
    return false;
}

static void park(struct conn *c, struct hs_req *rq, struct hs_resp *rs)
{
    c->parked = true;
    free(c->user);
    free(c->device);
    c->user = strdup(rq->user);
    c->device = strdup(rq->device);
    c->since = rs->since;
    c->since_td = rs->since_td;
    c->filter = rs->filter;
    rs->filter = NULL;
    c->deadline = rs->deadline;
}

static void handle(struct hs *hs, struct conn *c, const char *method, const char *target,
                   const char *auth, const char *body_text)
{
    const char *qm = strchr(target, '?');
    size_t plen = qm ? (size_t)(qm - target) : strlen(target);
    char line[2048];
    snprintf(line, sizeof(line), "%s %.*s", method, (int)plen, target);
    record(hs, line, body_text);
    if (apply_fault(hs, c, line))
        return;
    if (plen < strlen(HS_PREFIX) || strncmp(target, HS_PREFIX, strlen(HS_PREFIX)) != 0) {
        respond_raw(c, 404, "{\"errcode\":\"M_UNRECOGNIZED\",\"error\":\"unknown endpoint\"}",
                    NULL);
        return;
    }
    struct hs_req rq = {.method = method};
    hs_split_path(&rq, target + strlen(HS_PREFIX), plen - strlen(HS_PREFIX));
    rq.query = hs_parse_query(qm ? qm + 1 : NULL);
    rq.body = *body_text ? json_tokener_parse(body_text) : NULL;
    if (auth && strncmp(auth, "Bearer ", 7) == 0)
        rq.token = auth + 7;
    struct hs_resp rs = {0};
    hs_route(hs, &rq, &rs);
    if (rs.park)
        park(c, &rq, &rs);
    else
        respond(c, rs.status, rs.body);
    for (int i = 0; i < rq.nseg; i++)
        free(rq.seg[i]);
    json_object_put(rq.query);
    json_object_put(rq.body);
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    buf->base = malloc(suggested);
    buf->len = buf->base ? suggested : 0;
}

/* Handles every complete request in the buffer. */
static void parse(struct conn *c)
{
    struct hs *hs = c->hs;
    while (!c->closing && !c->parked && c->len > 0) {
        char *hend = NULL;
        for (size_t i = 0; i + 3 < c->len; i++) {
            if (memcmp(c->buf + i, "\r\n\r\n", 4) == 0) {
                hend = c->buf + i;
                break;
            }
        }
        if (!hend) {
            if (c->len > MAX_HEADER)
                conn_close(c);
            return;
        }
        size_t hlen = (size_t)(hend - c->buf) + 4;
        *hend = '\0';
        char method[16] = "", target[8192] = "";
        if (sscanf(c->buf, "%15s %8191s", method, target) != 2) {
            conn_close(c);
            return;
        }
        size_t clen = 0;
        char auth[512] = "";
        for (char *l = strstr(c->buf, "\r\n"); l; l = strstr(l, "\r\n")) {
            l += 2;
            if (strncasecmp(l, "Content-Length:", 15) == 0)
                clen = strtoul(l + 15, NULL, 10);
            else if (strncasecmp(l, "Authorization:", 14) == 0)
                sscanf(l + 14, " %511[^\r]", auth);
        }
        if (clen > MAX_BODY) {
            conn_close(c);
            return;
        }
        if (c->len < hlen + clen) {
            *hend = '\r';
            return;
        }
        char *body = malloc(clen + 1);
        memcpy(body, c->buf + hlen, clen);
        body[clen] = '\0';
        memmove(c->buf, c->buf + hlen + clen, c->len - hlen - clen);
        c->len -= hlen + clen;
        uv_mutex_lock(&hs->mu);
        handle(hs, c, method, target, auth[0] ? auth : NULL, body);
        if (hs->dirty) {
            hs->dirty = false;
            serve_parked(hs);
        }
        uv_mutex_unlock(&hs->mu);
        free(body);
    }
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct conn *c = s->data;
    if (n < 0) {
        free(buf->base);
        conn_close(c);
        return;
    }
    if (n > 0 && !c->closing) {
        if (c->len + (size_t)n > c->cap) {
            size_t cap = c->cap ? c->cap : 8192;
            while (cap < c->len + (size_t)n)
                cap *= 2;
            c->buf = realloc(c->buf, cap);
            c->cap = cap;
        }
        memcpy(c->buf + c->len, buf->base, (size_t)n);
        c->len += (size_t)n;
        parse(c);
    }
    free(buf->base);
}

static void on_connection(uv_stream_t *server, int status)
{
    struct hs *hs = server->data;
    if (status < 0)
        return;
    struct conn *c = calloc(1, sizeof(*c));
    c->hs = hs;
    uv_tcp_init(&hs->loop, &c->tcp);
    c->tcp.data = c;
    if (uv_accept(server, (uv_stream_t *)&c->tcp) != 0) {
        uv_close((uv_handle_t *)&c->tcp, on_closed);
        return;
    }
    c->next = hs->conns;
    hs->conns = c;
    uv_read_start((uv_stream_t *)&c->tcp, on_alloc, on_read);
}

static void on_wake(uv_async_t *a)
{
    struct hs *hs = a->data;
    uv_mutex_lock(&hs->mu);
    bool running = hs->running;
    if (running && hs->dirty) {
        hs->dirty = false;
        serve_parked(hs);
    }
    uv_mutex_unlock(&hs->mu);
    if (running)
        return;
    while (hs->conns)
        conn_close(hs->conns);
    uv_close((uv_handle_t *)&hs->server, NULL);
    uv_close((uv_handle_t *)&hs->tick, NULL);
    uv_close((uv_handle_t *)&hs->wake, NULL);
}

static void thread_main(void *arg)
{
    struct hs *hs = arg;
    uv_run(&hs->loop, UV_RUN_DEFAULT);
}

int hs_start(struct hs *hs)
{
    uv_loop_init(&hs->loop);
    uv_tcp_init(&hs->loop, &hs->server);
    hs->server.data = hs;
    struct sockaddr_in addr;
    uv_ip4_addr("127.0.0.1", 0, &addr);
    if (uv_tcp_bind(&hs->server, (const struct sockaddr *)&addr, 0) != 0 ||
        uv_listen((uv_stream_t *)&hs->server, 64, on_connection) != 0)
        return -1;
    struct sockaddr_in bound;
    int len = sizeof(bound);
    uv_tcp_getsockname(&hs->server, (struct sockaddr *)&bound, &len);
    hs->port = ntohs(bound.sin_port);
    snprintf(hs->url, sizeof(hs->url), "http://127.0.0.1:%d", hs->port);
    uv_async_init(&hs->loop, &hs->wake, on_wake);
    hs->wake.data = hs;
    uv_timer_init(&hs->loop, &hs->tick);
    hs->tick.data = hs;
    uv_timer_start(&hs->tick, on_tick, 10, 10);
    hs->running = true;
    uv_thread_create(&hs->thread, thread_main, hs);
    return hs->port;
}

void hs_free(struct hs *hs)
{
    if (hs->running) {
        uv_mutex_lock(&hs->mu);
        hs->running = false;
        uv_mutex_unlock(&hs->mu);
        uv_async_send(&hs->wake);
        uv_thread_join(&hs->thread);
        uv_loop_close(&hs->loop);
    }
    hs_free_state(hs);
}
