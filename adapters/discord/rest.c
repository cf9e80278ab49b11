/*
 * rest.c - queued, rate-limited REST requests on libcurl multi + libuv.
 */
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <uv.h>

#include "rest.h"

#define REST_MAX_BODY        (4u << 20)
#define REST_BACKOFF_BASE_MS 250u
#define REST_BACKOFF_CAP_MS  30000u
/* Requests in flight at once: no more than curl's connections to the host,
 * so that a request leaves when the rate limiter lets it, not later from
 * curl's own queue (a late burst could break the global 50/s). */
#define REST_MAX_INFLIGHT 16L

struct rq {
    char *name;
    struct rest_req *head, *tail;
    bool busy;
    struct rq *prev, *next; /* the list of queues with requests */
};

struct rest_req {
    struct rest_req *next;
    struct rq *q;
    struct rest *rest;
    char *method, *path, *body;
    unsigned flags;
    rest_prepare_fn prepare;
    rest_done_fn done;
    void *ud;
    unsigned attempts;
    uint64_t not_before;
    char route[256], major[160];
    CURL *easy;
    struct curl_slist *hdrs;
    struct dbuf resp;
    struct rl_headers rh;
};

struct csock {
    uv_poll_t poll;
    curl_socket_t fd;
    struct rest *rest;
    struct csock *prev, *next;
};

struct rest {
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t curl_timer, pump_timer;
    char *api_url, *auth, *ua;
    struct rl rl;
    struct dmap queues;
    struct rq *active;
    struct csock *socks;
    size_t pending;
    long inflight;
    unsigned long requests, retries;
    uint64_t pump_at;
    bool closing;
    int open_handles;
};

static void pump(struct rest *r);
static void check_done(struct rest *r);

static void on_pump(uv_timer_t *t)
{
    pump(t->data);
}

static void maybe_free(struct rest *r)
{
    if (!r->closing || r->open_handles > 0)
        return;
    rl_free(&r->rl);
    dmap_clear(&r->queues, NULL);
    free(r->api_url);
    free(r->auth);
    free(r->ua);
    free(r);
}

static void handle_closed(uv_handle_t *h)
{
    struct rest *r = h->data;
    r->open_handles--;
    maybe_free(r);
}

static void sock_closed(uv_handle_t *h)
{
    struct csock *s = h->data;
    struct rest *r = s->rest;
    free(s);
    r->open_handles--;
    maybe_free(r);
}

static void sock_unlink(struct rest *r, struct csock *s)
{
    if (s->prev)
        s->prev->next = s->next;
    else
        r->socks = s->next;
    if (s->next)
        s->next->prev = s->prev;
    uv_poll_stop(&s->poll);
    uv_close((uv_handle_t *)&s->poll, sock_closed);
}

static void req_free(struct rest_req *q)
{
    if (q->easy) {
        curl_multi_remove_handle(q->rest->multi, q->easy);
        curl_easy_cleanup(q->easy);
    }
    curl_slist_free_all(q->hdrs);
    dbuf_free(&q->resp);
    free(q->method);
    free(q->path);
    free(q->body);
    free(q);
}

static void schedule(struct rest *r, uint64_t delay)
{
    if (r->closing)
        return;
    uint64_t at = dc_now_ms() + delay;
    if (uv_is_active((uv_handle_t *)&r->pump_timer) && r->pump_at <= at)
        return;
    r->pump_at = at;
    uv_timer_start(&r->pump_timer, on_pump, delay, 0);
}

static void queue_activate(struct rest *r, struct rq *q)
{
    if (q->prev || q->next || r->active == q)
        return;
    q->next = r->active;
    if (r->active)
        r->active->prev = q;
    r->active = q;
}

/* Moves a queue to the end of the active list: with more queues than
 * requests allowed in flight, each gets its turn. */
static void queue_to_tail(struct rest *r, struct rq *q)
{
    if (!q->next)
        return;
    if (q->prev)
        q->prev->next = q->next;
    else
        r->active = q->next;
    q->next->prev = q->prev;
    struct rq *last = q->next;
    while (last->next)
        last = last->next;
    last->next = q;
    q->prev = last;
    q->next = NULL;
}

static void queue_pop(struct rest *r, struct rq *q)
{
    struct rest_req *head = q->head;
    q->head = head->next;
    if (!q->head)
        q->tail = NULL;
    r->pending--;
    if (q->head)
        return;
    if (q->prev)
        q->prev->next = q->next;
    else if (r->active == q)
        r->active = q->next;
    if (q->next)
        q->next->prev = q->prev;
    dmap_del(&r->queues, q->name);
    free(q->name);
    free(q);
}

static int dup_or_null(char **dst, const char *s)
{
    *dst = NULL;
    if (!s)
        return 0;
    *dst = strdup(s);
    return *dst ? 0 : -1;
}

int rest_req_set(struct rest_req *q, const char *method, const char *path, const char *body)
{
    char *m, *p, *b;
    if (dup_or_null(&m, method) < 0 || dup_or_null(&p, path) < 0 || dup_or_null(&b, body) < 0) {
        free(m);
        free(p);
        return -1;
    }
    free(q->method);
    free(q->path);
    free(q->body);
    q->method = m;
    q->path = p;
    q->body = b;
    return 0;
}

const char *rest_req_method(const struct rest_req *q)
{
    return q->method;
}

int rest_enqueue(struct rest *r, const char *queue, const char *method, const char *path,
                 const char *body, unsigned flags, rest_prepare_fn prepare, rest_done_fn done,
                 void *ud)
{
    if (r->closing)
        return -1;
    struct rest_req *q = calloc(1, sizeof(*q));
    if (!q || rest_req_set(q, method, path, body) < 0) {
        free(q);
        return -1;
    }
    struct rq *rq = dmap_get(&r->queues, queue);
    if (!rq) {
        rq = calloc(1, sizeof(*rq));
        if (rq)
            rq->name = strdup(queue);
        if (!rq || !rq->name || dmap_put(&r->queues, queue, rq, NULL) < 0) {
            if (rq)
                free(rq->name);
            free(rq);
            req_free(q);
            return -1;
        }
    }
    q->rest = r;
    q->q = rq;
    q->flags = flags;
    q->prepare = prepare;
    q->done = done;
    q->ud = ud;
    if ((flags & REST_FRONT) && rq->head && !rq->busy) {
        q->next = rq->head;
        rq->head = q;
    } else if ((flags & REST_FRONT) && rq->head) {
        /* the head is in flight: go right after it */
        q->next = rq->head->next;
        rq->head->next = q;
        if (rq->tail == rq->head)
            rq->tail = q;
    } else {
        if (rq->tail)
            rq->tail->next = q;
        else
            rq->head = q;
        rq->tail = q;
    }
    r->pending++;
    queue_activate(r, rq);
    schedule(r, 0);
    return 0;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct rest_req *q = ud;
    size_t len = size * n;
    if (q->resp.len + len > REST_MAX_BODY || dbuf_add(&q->resp, p, len) < 0)
        return 0;
    return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    struct rest_req *q = ud;
    rl_headers_parse(&q->rh, p, size * n);
    return size * n;
}

static int start(struct rest *r, struct rest_req *q)
{
    struct dbuf url = {0};
    if (dbuf_printf(&url, "%s%s", r->api_url, q->path) < 0)
        return -1;
    CURL *e = curl_easy_init();
    if (!e) {
        dbuf_free(&url);
        return -1;
    }
    curl_slist_free_all(q->hdrs);
    q->hdrs = NULL;
    q->hdrs = curl_slist_append(q->hdrs, r->auth);
    q->hdrs = curl_slist_append(q->hdrs, r->ua);
    if (q->body)
        q->hdrs = curl_slist_append(q->hdrs, "Content-Type: application/json");
    q->hdrs = curl_slist_append(q->hdrs, "Expect:");
    curl_easy_setopt(e, CURLOPT_URL, url.data);
    dbuf_free(&url);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, q->hdrs);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 30000L);
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, q);
    curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, q);
    curl_easy_setopt(e, CURLOPT_PRIVATE, q);
    if (strcmp(q->method, "GET") == 0) {
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, q->method);
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, q->body ? (long)strlen(q->body) : 0L);
        curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, q->body ? q->body : "");
    }
    dbuf_free(&q->resp);
    dbuf_add(&q->resp, "", 0);
    rl_headers_init(&q->rh);
    q->easy = e;
    if (curl_multi_add_handle(r->multi, e) != CURLM_OK) {
        curl_easy_cleanup(e);
        q->easy = NULL;
        return -1;
    }
    q->q->busy = true;
    r->requests++;
    r->inflight++;
    return 0;
}

static void pump(struct rest *r)
{
    if (r->closing)
        return;
    uint64_t now = dc_now_ms();
    uint64_t wake = UINT64_MAX;
    unsigned long started = r->requests;
    struct rq *next;
    for (struct rq *rq = r->active; rq && r->inflight < REST_MAX_INFLIGHT; rq = next) {
        next = rq->next;
        while (rq && !rq->busy) {
            struct rest_req *q = rq->head;
            if (q->not_before > now) {
                if (q->not_before < wake)
                    wake = q->not_before;
                break;
            }
            if (q->prepare && q->prepare(q, q->ud) == 1) {
                bool last = q->next == NULL;
                queue_pop(r, rq);
                q->done(q, 0, "", q->ud);
                req_free(q);
                if (last)
                    rq = NULL;
                continue;
            }
            rl_route(q->method, q->path, q->route, sizeof(q->route), q->major, sizeof(q->major));
            uint64_t w = rl_acquire(&r->rl, q->route, q->major, q->flags & REST_NO_GLOBAL, now);
            if (w == 0) {
                if (start(r, q) < 0)
                    q->not_before = now + REST_BACKOFF_BASE_MS;
                else
                    break;
            } else if (w != RL_WAIT_RELEASE && now + w < wake) {
                wake = now + w;
            }
            break;
        }
    }
    if (wake != UINT64_MAX)
        schedule(r, wake - now);
    if (r->requests != started) {
        /* let curl write the new requests now, not on a later turn of a busy
         * loop: they were counted against the limits at this moment */
        int running;
        curl_multi_socket_action(r->multi, CURL_SOCKET_TIMEOUT, 0, &running);
        check_done(r);
    }
}

static uint64_t backoff(unsigned attempts)
{
    uint64_t ms = REST_BACKOFF_BASE_MS;
    for (unsigned i = 1; i < attempts && ms < REST_BACKOFF_CAP_MS; i++)
        ms *= 2;
    if (ms > REST_BACKOFF_CAP_MS)
        ms = REST_BACKOFF_CAP_MS;
    return ms / 2 + (uint64_t)(dc_random() * (double)(ms / 2));
}

static void finished(struct rest *r, struct rest_req *q, CURLcode res)
{
    long status = 0;
    uint64_t now = dc_now_ms();
    if (res == CURLE_OK)
        curl_easy_getinfo(q->easy, CURLINFO_RESPONSE_CODE, &status);
    curl_multi_remove_handle(r->multi, q->easy);
    curl_easy_cleanup(q->easy);
    q->easy = NULL;
    q->q->busy = false;
    r->inflight--;
    double body_retry = -1;
    bool body_global = false;
    if (status == 429) {
        struct json_object *j = json_tokener_parse(q->resp.data ? q->resp.data : "");
        struct json_object *v;
        if (j && json_object_object_get_ex(j, "retry_after", &v))
            body_retry = json_object_get_double(v);
        if (j && json_object_object_get_ex(j, "global", &v))
            body_global = json_object_get_boolean(v);
        json_object_put(j);
    }
    uint64_t wait =
        rl_release(&r->rl, q->route, q->major, status, &q->rh, body_retry, body_global, now);
    struct rq *rq = q->q;
    if (status == 429 || status == 0 || status >= 500) {
        q->attempts++;
        r->retries++;
        q->not_before = now + (status == 429 ? wait : backoff(q->attempts));
        queue_to_tail(r, rq);
        schedule(r, 0);
        return;
    }
    bool more = q->next != NULL;
    queue_pop(r, rq);
    if (more)
        queue_to_tail(r, rq);
    q->done(q, status, q->resp.data ? q->resp.data : "", q->ud);
    req_free(q);
    schedule(r, 0);
}

static void check_done(struct rest *r)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(r->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        struct rest_req *q = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&q);
        finished(r, q, m->data.result);
    }
}

static void on_poll(uv_poll_t *h, int status, int events)
{
    struct csock *s = h->data;
    struct rest *r = s->rest;
    int flags = 0;
    if (status < 0)
        flags = CURL_CSELECT_ERR;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    int running;
    curl_multi_socket_action(r->multi, s->fd, flags, &running);
    check_done(r);
}

static int on_socket(CURL *e, curl_socket_t fd, int what, void *ud, void *sockp)
{
    (void)e;
    struct rest *r = ud;
    struct csock *s = sockp;
    if (what == CURL_POLL_REMOVE) {
        if (s) {
            curl_multi_assign(r->multi, fd, NULL);
            sock_unlink(r, s);
        }
        return 0;
    }
    if (!s) {
        s = calloc(1, sizeof(*s));
        if (!s)
            return -1;
        if (uv_poll_init_socket(r->loop, &s->poll, fd) != 0) {
            free(s);
            return -1;
        }
        s->fd = fd;
        s->rest = r;
        s->poll.data = s;
        s->next = r->socks;
        if (r->socks)
            r->socks->prev = s;
        r->socks = s;
        r->open_handles++;
        curl_multi_assign(r->multi, fd, s);
    }
    int events = 0;
    if (what == CURL_POLL_IN || what == CURL_POLL_INOUT)
        events |= UV_READABLE;
    if (what == CURL_POLL_OUT || what == CURL_POLL_INOUT)
        events |= UV_WRITABLE;
    uv_poll_start(&s->poll, events, on_poll);
    return 0;
}

static void on_curl_timer(uv_timer_t *t)
{
    struct rest *r = t->data;
    int running;
    curl_multi_socket_action(r->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    check_done(r);
}

static int on_timer(CURLM *m, long ms, void *ud)
{
    (void)m;
    struct rest *r = ud;
    if (ms < 0)
        uv_timer_stop(&r->curl_timer);
    else
        uv_timer_start(&r->curl_timer, on_curl_timer, (uint64_t)ms, 0);
    return 0;
}

struct rest *rest_new(uv_loop_t *loop, const char *api_url, const char *token,
                      const char *user_agent)
{
    static int curl_ready;
    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return NULL;
        curl_ready = 1;
    }
    struct rest *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    struct dbuf auth = {0}, ua = {0};
    size_t ulen = strlen(api_url);
    while (ulen && api_url[ulen - 1] == '/')
        ulen--;
    r->api_url = strndup(api_url, ulen);
    if (!r->api_url || dbuf_printf(&auth, "Authorization: Bot %s", token) < 0 ||
        dbuf_printf(&ua, "User-Agent: %s", user_agent) < 0 || rl_init(&r->rl, 50, 1000) < 0) {
        dbuf_free(&auth);
        dbuf_free(&ua);
        free(r->api_url);
        free(r->rl.gwin);
        free(r);
        return NULL;
    }
    r->auth = auth.data;
    r->ua = ua.data;
    r->loop = loop;
    dmap_init(&r->queues);
    r->multi = curl_multi_init();
    curl_multi_setopt(r->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(r->multi, CURLMOPT_SOCKETDATA, r);
    curl_multi_setopt(r->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(r->multi, CURLMOPT_TIMERDATA, r);
    curl_multi_setopt(r->multi, CURLMOPT_MAX_HOST_CONNECTIONS, REST_MAX_INFLIGHT);
    uv_timer_init(loop, &r->curl_timer);
    uv_timer_init(loop, &r->pump_timer);
    r->curl_timer.data = r;
    r->pump_timer.data = r;
    r->open_handles = 2;
    return r;
}

size_t rest_pending(const struct rest *r)
{
    return r->pending;
}

void rest_get_stats(const struct rest *r, struct rest_stats *s)
{
    s->requests = r->requests;
    s->retries = r->retries;
    s->n429 = r->rl.n429;
    s->n429_global = r->rl.n429_global;
    s->invalid = r->rl.n_invalid_total;
}

void rest_close(struct rest *r)
{
    if (r->closing)
        return;
    r->closing = true; /* done() below may not queue anything new */
    while (r->active) {
        struct rq *rq = r->active;
        struct rest_req *q = rq->head;
        queue_pop(r, rq);
        q->done(q, -1, "", q->ud);
        req_free(q);
    }
    curl_multi_cleanup(r->multi);
    r->multi = NULL;
    while (r->socks)
        sock_unlink(r, r->socks);
    uv_timer_stop(&r->curl_timer);
    uv_timer_stop(&r->pump_timer);
    uv_close((uv_handle_t *)&r->curl_timer, handle_closed);
    uv_close((uv_handle_t *)&r->pump_timer, handle_closed);
}
