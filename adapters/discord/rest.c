/*
 * rest.c - queued, rate-limited REST requests, sent through adapters/common/curl_uv.
 */
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <uv.h>

#include "adapters/common/curl_uv.h"
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

struct rest {
    uv_loop_t *loop;
    struct curl_uv *curl;
    uv_timer_t pump_timer;
    char *api_url, *auth, *ua;
    struct rl rl;
    struct dmap queues;
    struct rq *active;
    size_t pending;
    long inflight;
    unsigned long requests, retries;
    uint64_t pump_at;
    bool closing;
    int open_handles;
};

static void pump(struct rest *r);
static void on_transfer_done(void *arg, CURL *easy, CURLcode res);

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

static void req_free(struct rest_req *q)
{
    if (q->easy) {
        curl_uv_remove(q->rest->curl, q->easy);
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
    char *m = NULL, *p = NULL, *b = NULL;
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
    if (curl_uv_add(r->curl, e, on_transfer_done, q) != 0) {
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
        curl_uv_kick(r->curl);
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
    curl_easy_cleanup(q->easy);
    q->easy = NULL;
    q->q->busy = false;
    r->inflight--;
    double body_retry = -1;
    bool body_global = false;
    if (status == 429) {
        struct json_object *j = json_tokener_parse(q->resp.data ? q->resp.data : "");
        body_retry = dj_num(j, "retry_after", -1);
        body_global = dj_bool(j, "global");
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

static void on_transfer_done(void *arg, CURL *easy, CURLcode res)
{
    struct rest_req *q = arg;
    (void)easy;
    finished(q->rest, q, res);
}

struct rest *rest_new(uv_loop_t *loop, const char *api_url, const char *token,
                      const char *user_agent, unsigned global_per_sec)
{
    struct rest *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    struct dbuf auth = {0}, ua = {0};
    size_t ulen = strlen(api_url);
    while (ulen && api_url[ulen - 1] == '/')
        ulen--;
    r->api_url = strndup(api_url, ulen);
    if (!r->api_url || dbuf_printf(&auth, "Authorization: Bot %s", token) < 0 ||
        dbuf_printf(&ua, "User-Agent: %s", user_agent) < 0 ||
        rl_init(&r->rl, global_per_sec, 1000) < 0) {
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
    r->curl = curl_uv_new(loop);
    if (!r->curl) {
        rl_free(&r->rl);
        dmap_clear(&r->queues, NULL);
        free(r->api_url);
        free(r->auth);
        free(r->ua);
        free(r);
        return NULL;
    }
    curl_uv_max_host_connections(r->curl, REST_MAX_INFLIGHT);
    uv_timer_init(loop, &r->pump_timer);
    r->pump_timer.data = r;
    r->open_handles = 1;
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
    curl_uv_free(r->curl);
    r->curl = NULL;
    uv_timer_stop(&r->pump_timer);
    uv_close((uv_handle_t *)&r->pump_timer, handle_closed);
}
