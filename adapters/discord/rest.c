/*
 * rest.c - queued, rate-limited REST requests, sent through adapters/common/curl_uv.
 */
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <uv.h>

#include "adapters/common/curl_uv.h"
#include "rest.h"
#include "util.h"

#define REST_MAX_BODY        (4u << 20) /* an answer's body */
#define REST_MAX_URL         (16u << 10)
#define REST_MAX_HEADER      4096u /* Authorization, User-Agent */
#define REST_BACKOFF_BASE_MS 250u
#define REST_BACKOFF_CAP_MS  30000u
#define REST_TRANSFER_MS     30000L /* the longest one transfer may take */
#define REST_METHOD_MAX      8u     /* a method's bytes with its NUL: DELETE is the longest used */
/* Requests in flight at once: no more than curl's connections to the host,
 * so that a request leaves when the rate limiter lets it, not later from
 * curl's own queue (a late burst could break the global 50/s). Under a
 * backlog more in flight means more answers read at each wake-up: 32 cost
 * about an eighth less CPU a command at full load than 16, and 8 more
 * (docs/benchmarks.md, `full-load`). */
#define REST_MAX_INFLIGHT 32L
/* Queues left without a request kept for their next one (a channel's next
 * message), so that a request to a recent channel costs no queue's allocation
 * and map entry; past this the longest unused goes. About 150 bytes each
 * (the queue with its name, the map's entry and copy of the name): 38 KB at most. */
#define REST_QUEUES_KEPT 256u
/* An answer's buffer up to this size is kept for a later request's answer
 * (a message's is about 1 KB): one kept per request in flight at most. */
#define REST_ANSWER_KEPT 4096u

/* A body of this size or more is sent with an empty "Expect:" among its
 * headers: libcurl (since 7.69) would ask the server for a 100-continue
 * answer, and wait up to a second for it, before a POST body of more than
 * 1 MB. Below it the header would only cost each request its walks. */
#define REST_EXPECT_FROM (1u << 20)

/* The header lists every request shares (struct rest's hdrs). */
enum hdrs_kind { HDRS_PLAIN, HDRS_JSON, HDRS_JSON_LARGE, HDRS_KINDS };

/* An easy handle and the URL it sends to, kept together between requests:
 * curl reads the URL handle during the transfer. */
struct handle {
    CURL *easy;
    CURLU *url;  /* the API's URL, parsed once; a plain path is set into it */
    bool parsed; /* url was parsed whole for the last request (not plain) */
    /* What the handle's options hold from its last request, so that start()
     * sets only what changes (CURLOPT_CUSTOMREQUEST copies its string) */
    char custom[REST_METHOD_MAX]; /* CURLOPT_CUSTOMREQUEST, "" for none */
    long timeout;                 /* CURLOPT_TIMEOUT_MS, 0 for none */
    struct curl_slist *hdrs;      /* CURLOPT_HTTPHEADER */
};

struct rq {
    STAILQ_HEAD(, rest_req) reqs; /* empty: the queue is kept (struct rest's kept) */
    bool busy;                    /* its first request is in flight */
    TAILQ_ENTRY(rq) link;         /* in active when it has requests, else in kept */
    char name[];                  /* allocated with it */
};

struct rest_req {
    STAILQ_ENTRY(rest_req) link;
    struct rq *q;
    struct rest *rest;
    char method[REST_METHOD_MAX];
    char *path, *body; /* in text, or NULL for no body */
    char *text;        /* path and body, each with its NUL: text_in, or owned (rest_req_set) */
    unsigned flags;
    rest_prepare_fn prepare;
    rest_done_fn done;
    void *ud;
    unsigned attempts;
    uint64_t not_before;
    uint64_t deadline;       /* 0, or when it is worth nothing any more */
    struct handle h;         /* h.easy NULL when not in flight */
    struct buf resp;         /* the answer's body, at most REST_MAX_BODY bytes */
    struct curl_slist *hdrs; /* its own headers (rest_enqueue_as), or NULL: the client's */
    /* From here on written before they are read, at every start (the pump's
     * rl_route, start's rl_headers_init): enqueue leaves them unzeroed. */
    char route[256], major[160];
    struct rl_headers rh;
    /* The path and body given to enqueue(), laid out after the request in
     * its one allocation: a request costs one malloc, not five. */
    char text_in[];
};

struct rest {
    uv_loop_t *loop;
    struct curl_uv *curl;
    uv_timer_t pump_timer;
    char *api_url;
    CURLU *base;    /* api_url parsed, copied into each new handle */
    char *api_path; /* its path, without a last '/'; NULL: every URL is parsed whole */
    char *ua;       /* the User-Agent header line */
    struct buf url; /* the last request's URL (curl copies it): its memory is kept */
    struct curl_slist *hdrs[HDRS_KINDS];   /* every request's headers, built once */
    struct handle idle[REST_MAX_INFLIGHT]; /* handles kept for the next requests */
    unsigned nidle;
    struct buf answers[REST_MAX_INFLIGHT]; /* answers' buffers kept (REST_ANSWER_KEPT) */
    unsigned nanswers;
    struct rl rl;
    struct map queues;       /* queue name -> struct rq, active or kept */
    TAILQ_HEAD(, rq) active; /* the queues with requests, in turn */
    TAILQ_HEAD(, rq) kept;   /* the queues without, the longest unused first */
    unsigned nkept;
    size_t pending;
    long inflight;
    unsigned long requests, retries;
    uint64_t pump_at;
    bool closing;
    int open_handles;
};

static void pump(struct rest *r);
static MUST_USE int add_header(struct curl_slist **list, const char *h);
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
    map_clear(&r->queues, free); /* every queue is kept by now */
    while (r->nanswers)
        buf_free(&r->answers[--r->nanswers]);
    free(r->api_url);
    free(r->api_path);
    curl_url_cleanup(r->base);
    free(r->ua);
    buf_free(&r->url);
    for (int k = 0; k < HDRS_KINDS; k++)
        curl_slist_free_all(r->hdrs[k]);
    free(r);
}

static void handle_closed(uv_handle_t *h)
{
    struct rest *r = h->data;
    r->open_handles--;
    maybe_free(r);
}

static void handle_free(struct handle *h)
{
    curl_easy_cleanup(h->easy);
    curl_url_cleanup(h->url);
}

static void req_free(struct rest_req *q)
{
    if (q->h.easy) {
        curl_uv_remove(q->rest->curl, q->h.easy);
        handle_free(&q->h);
    }
    struct rest *r = q->rest;
    if (q->resp.cap && q->resp.cap <= REST_ANSWER_KEPT && r->nanswers < REST_MAX_INFLIGHT &&
        !r->closing)
        r->answers[r->nanswers++] = q->resp;
    else
        buf_free(&q->resp);
    curl_slist_free_all(q->hdrs);
    if (q->text != q->text_in)
        free(q->text);
    free(q);
}

static void schedule(struct rest *r, uint64_t delay)
{
    if (r->closing)
        return;
    uint64_t at = clock_mono_ms() + delay;
    if (uv_is_active((uv_handle_t *)&r->pump_timer) && r->pump_at <= at)
        return;
    r->pump_at = at;
    uv_timer_start(&r->pump_timer, on_pump, delay, 0);
}

/* Moves a queue to the end of the active list: with more queues than
 * requests allowed in flight, each gets its turn. */
static void queue_to_tail(struct rest *r, struct rq *q)
{
    TAILQ_REMOVE(&r->active, q, link);
    TAILQ_INSERT_TAIL(&r->active, q, link);
}

/* Takes the first request off q; a queue left empty is kept, and the
 * longest unused kept one goes when there are too many. */
static void queue_pop(struct rest *r, struct rq *q)
{
    STAILQ_REMOVE_HEAD(&q->reqs, link);
    r->pending--;
    if (!STAILQ_EMPTY(&q->reqs))
        return;
    TAILQ_REMOVE(&r->active, q, link);
    TAILQ_INSERT_TAIL(&r->kept, q, link);
    if (++r->nkept <= REST_QUEUES_KEPT)
        return;
    struct rq *old = TAILQ_FIRST(&r->kept);
    TAILQ_REMOVE(&r->kept, old, link);
    r->nkept--;
    map_del(&r->queues, old->name);
    free(old);
}

/* The bytes path and body take in a request's text, NULs included. */
static size_t text_size(const char *path, const char *body)
{
    return strlen(path) + 1 + (body ? strlen(body) + 1 : 0);
}

/* Writes path and body into q->text (room for text_size() bytes) and points
 * q->path and q->body at them. */
static void req_text_fill(struct rest_req *q, const char *path, const char *body)
{
    size_t n = strlen(path) + 1;
    memcpy(q->text, path, n);
    q->path = q->text;
    q->body = NULL;
    if (body) {
        q->body = q->text + n;
        memcpy(q->body, body, strlen(body) + 1);
    }
}

/* Copies method into q. Returns 0, or -1 when it is too long. */
static int set_method(struct rest_req *q, const char *method)
{
    size_t n = strlen(method);
    if (n >= sizeof q->method)
        return -1;
    memmove(q->method, method, n + 1); /* method may be q's own */
    return 0;
}

int rest_req_set(struct rest_req *q, const char *method, const char *path, const char *body)
{
    if (strlen(method) >= sizeof q->method)
        return -1;
    char *text = malloc(text_size(path, body));
    if (!text)
        return -1;
    char *old = q->text != q->text_in ? q->text : NULL; /* path or body may lie in it */
    q->text = text;
    req_text_fill(q, path, body);
    free(old);
    return set_method(q, method);
}

const char *rest_req_method(const struct rest_req *q)
{
    return q->method;
}

int rest_enqueue(struct rest *r, const char *queue, const char *method, const char *path,
                 const char *body, unsigned flags, rest_prepare_fn prepare, rest_done_fn done,
                 void *ud)
{
    return rest_enqueue_until(r, queue, method, path, body, flags, 0, prepare, done, ud);
}

/* The queue named name, made active: a new one first in turn, a kept one
 * again. NULL on no memory. */
static struct rq *queue_active(struct rest *r, const char *name)
{
    struct rq *rq = map_get(&r->queues, name);
    if (rq && STAILQ_EMPTY(&rq->reqs)) {
        TAILQ_REMOVE(&r->kept, rq, link);
        r->nkept--;
        TAILQ_INSERT_HEAD(&r->active, rq, link);
    } else if (!rq) {
        size_t n = strlen(name) + 1;
        rq = calloc(1, sizeof(*rq) + n);
        if (!rq || map_put(&r->queues, name, rq, NULL) < 0) {
            free(rq);
            return NULL;
        }
        memcpy(rq->name, name, n);
        STAILQ_INIT(&rq->reqs);
        TAILQ_INSERT_HEAD(&r->active, rq, link);
    }
    return rq;
}

/* rest_enqueue_until() with the request's own headers (taken on success), or NULL. */
static int enqueue(struct rest *r, const char *queue, const char *method, const char *path,
                   const char *body, unsigned flags, uint64_t deadline, rest_prepare_fn prepare,
                   rest_done_fn done, void *ud, struct curl_slist *hdrs)
{
    if (r->closing)
        return -1;
    struct rest_req *q = malloc(sizeof(*q) + text_size(path, body));
    if (!q)
        return -1;
    memset(q, 0, offsetof(struct rest_req, route));
    q->text = q->text_in;
    req_text_fill(q, path, body);
    if (set_method(q, method) < 0) {
        free(q);
        return -1;
    }
    struct rq *rq = queue_active(r, queue);
    if (!rq) {
        free(q);
        return -1;
    }
    buf_init(&q->resp, REST_MAX_BODY);
    q->rest = r;
    q->q = rq;
    q->flags = flags;
    q->deadline = deadline;
    q->prepare = prepare;
    q->done = done;
    q->ud = ud;
    q->hdrs = hdrs;
    struct rest_req *head = STAILQ_FIRST(&rq->reqs);
    if ((flags & REST_FRONT) && head && !rq->busy)
        STAILQ_INSERT_HEAD(&rq->reqs, q, link);
    else if ((flags & REST_FRONT) && head) /* the head is in flight: go right after it */
        STAILQ_INSERT_AFTER(&rq->reqs, head, q, link);
    else
        STAILQ_INSERT_TAIL(&rq->reqs, q, link);
    r->pending++;
    schedule(r, 0);
    return 0;
}

int rest_enqueue_until(struct rest *r, const char *queue, const char *method, const char *path,
                       const char *body, unsigned flags, uint64_t deadline, rest_prepare_fn prepare,
                       rest_done_fn done, void *ud)
{
    return enqueue(r, queue, method, path, body, flags, deadline, prepare, done, ud, NULL);
}

int rest_enqueue_as(struct rest *r, const char *queue, const char *method, const char *path,
                    const char *body, const char *auth, bool form, uint64_t deadline,
                    rest_done_fn done, void *ud)
{
    struct buf line;
    buf_init(&line, REST_MAX_HEADER);
    struct curl_slist *h = NULL;
    if (add_header(&h, r->ua) < 0 || add_header(&h, "Expect:") < 0 ||
        (body && add_header(&h, form ? "Content-Type: application/x-www-form-urlencoded"
                                     : "Content-Type: application/json") < 0) ||
        (auth &&
         (buf_printf(&line, "Authorization: %s", auth) < 0 || add_header(&h, line.data) < 0)))
        goto fail;
    buf_free(&line);
    if (enqueue(r, queue, method, path, body, REST_NO_GLOBAL, deadline, NULL, done, ud, h) < 0) {
        curl_slist_free_all(h);
        return -1;
    }
    return 0;
fail:
    buf_free(&line);
    curl_slist_free_all(h);
    return -1;
}

static size_t on_body(char *p, size_t size, size_t n, void *ud)
{
    struct rest_req *q = ud;
    size_t len = size * n;
    if (buf_append(&q->resp, p, len) < 0)
        return 0; /* too large or no memory: curl fails the transfer, which is retried */
    return len;
}

static size_t on_header(char *p, size_t size, size_t n, void *ud)
{
    struct rest_req *q = ud;
    rl_headers_parse(&q->rh, p, size * n);
    return size * n;
}

/* Appends header h to *list. Returns 0, or -1 on no memory (*list unchanged). */
static MUST_USE int add_header(struct curl_slist **list, const char *h)
{
    struct curl_slist *l = curl_slist_append(*list, h);
    if (!l)
        return -1;
    *list = l;
    return 0;
}

/* A handle for the next request into h: a kept one, with the options the
 * last request left (start() sets every one that varies again, as curl allows
 * between transfers: resetting cost more than the rest of the set-up), or a
 * new one with those that never vary. Returns 0, or -1 on no memory. */
static int take_handle(struct rest *r, struct handle *h)
{
    if (r->nidle) {
        *h = r->idle[--r->nidle];
        return 0;
    }
    *h = (struct handle){.easy = curl_easy_init(), .url = curl_url_dup(r->base)};
    if (!h->easy || !h->url) {
        handle_free(h);
        return -1;
    }
    curl_easy_setopt(h->easy, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h->easy, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    curl_easy_setopt(h->easy, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h->easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(h->easy, CURLOPT_CURLU, h->url);
    return 0;
}

/* Keeps h for a later request, or frees it when enough are kept. */
static void give_back_handle(struct rest *r, struct handle *h)
{
    /* a kept handle must not point at a body its request is about to free */
    curl_easy_setopt(h->easy, CURLOPT_POSTFIELDS, NULL);
    if (r->nidle < REST_MAX_INFLIGHT && !r->closing)
        r->idle[r->nidle++] = *h;
    else
        handle_free(h);
    h->easy = NULL;
}

/* Whether path can go into a parsed URL as it is: it starts with '/' and
 * holds only letters, digits and / - _ % @, so a whole parse would find no
 * query, fragment or dot segment in it and change nothing. */
static bool plain_path(const char *path)
{
    if (*path != '/')
        return false;
    for (const char *c = path; *c; c++)
        if (!isalnum((unsigned char)*c) && !strchr("/-_%@", *c))
            return false;
    return true;
}

/* Points h at the API's path. curl parses a URL given as text for every
 * transfer and writes it back out (about 15,000 instructions); a handle's URL
 * was parsed once, so a plain path only replaces its path. Anything else is
 * parsed whole, as curl would. CURLOPT_URL keeps curl's own record of the URL
 * (its effective URL); CURLOPT_CURLU, set on the handle, overrides it for the
 * transfer. Returns 0, or -1 on no memory or a URL curl refuses. */
static int set_url(struct rest *r, struct handle *h, const char *path)
{
    struct buf *url = &r->url;
    buf_reset(url);
    bool plain = r->api_path && plain_path(path);
    if (plain && h->parsed) { /* the last request's whole URL goes */
        CURLU *fresh = curl_url_dup(r->base);
        if (!fresh)
            return -1;
        curl_url_cleanup(h->url);
        h->url = fresh;
        h->parsed = false;
        curl_easy_setopt(h->easy, CURLOPT_CURLU, h->url);
    }
    if (buf_puts(url, r->api_url) < 0 || buf_puts(url, path) < 0)
        return -1;
    CURLUcode uc;
    if (plain) /* api_url ends with api_path: the URL's path is the text's end */
        uc = curl_url_set(h->url, CURLUPART_PATH,
                          url->data + strlen(r->api_url) - strlen(r->api_path), 0);
    else
        uc = curl_url_set(h->url, CURLUPART_URL, url->data,
                          CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME);
    h->parsed = !plain;
    if (uc != CURLUE_OK)
        return -1;
    curl_easy_setopt(h->easy, CURLOPT_URL, url->data);
    return 0;
}

/* Starts q. Returns 0, or -1 on no memory (the caller tries again later). */
static MUST_USE int start(struct rest *r, struct rest_req *q)
{
    struct handle h;
    if (take_handle(r, &h) < 0)
        return -1;
    CURL *e = h.easy;
    if (set_url(r, &h, q->path) < 0)
        goto fail;
    /* a request with a deadline may not outlast it; a kept handle's last limit goes */
    uint64_t now = clock_mono_ms();
    long limit = REST_TRANSFER_MS;
    if (q->deadline && q->deadline < now + REST_TRANSFER_MS)
        limit = q->deadline > now ? (long)(q->deadline - now) : 1L;
    if (limit != h.timeout)
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, h.timeout = limit);
    size_t body_len = q->body ? strlen(q->body) : 0;
    struct curl_slist *hdrs = q->hdrs                       ? q->hdrs
                              : !q->body                    ? r->hdrs[HDRS_PLAIN]
                              : body_len < REST_EXPECT_FROM ? r->hdrs[HDRS_JSON]
                                                            : r->hdrs[HDRS_JSON_LARGE];
    if (hdrs != h.hdrs)
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, h.hdrs = hdrs);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, q);
    curl_easy_setopt(e, CURLOPT_HEADERDATA, q);
    bool get = strcmp(q->method, "GET") == 0;
    const char *custom = get ? "" : q->method; /* a kept handle's last method goes */
    if (strcmp(custom, h.custom) != 0) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, get ? NULL : custom);
        memcpy(h.custom, custom, strlen(custom) + 1);
    }
    if (get) { /* always: give_back_handle's CURLOPT_POSTFIELDS made it a POST */
        curl_easy_setopt(e, CURLOPT_HTTPGET, 1L);
    } else {
        /* not copied: q->body outlives its transfer (freed by req_free) */
        curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE, (long)body_len);
        curl_easy_setopt(e, CURLOPT_POSTFIELDS, q->body ? q->body : "");
    }
    if (!q->resp.data && r->nanswers) /* a retry keeps its own */
        q->resp = r->answers[--r->nanswers];
    buf_reset(&q->resp);
    rl_headers_init(&q->rh);
    if (curl_uv_add(r->curl, e, on_transfer_done, q) != 0)
        goto fail;
    q->h = h;
    q->q->busy = true;
    r->requests++;
    r->inflight++;
    return 0;
fail:
    give_back_handle(r, &h);
    return -1;
}

static void wake_at(uint64_t *wake, uint64_t at)
{
    if (at < *wake)
        *wake = at;
}

/* Ends rq's first request with status, unsent. Returns rq, or NULL when that
 * was its last request (rq is kept or freed then). */
static struct rq *end_first(struct rest *r, struct rq *rq, long status)
{
    struct rest_req *q = STAILQ_FIRST(&rq->reqs);
    bool last = STAILQ_NEXT(q, link) == NULL;
    queue_pop(r, rq);
    q->done(q, status, "", q->ud);
    req_free(q);
    return last ? NULL : rq;
}

/* Starts q when the rate limits let it go now; else notes in *wake when
 * they may. */
static void try_start(struct rest *r, struct rest_req *q, uint64_t now, uint64_t *wake)
{
    rl_route(q->method, q->path, q->route, sizeof(q->route), q->major, sizeof(q->major));
    uint64_t w = rl_acquire(&r->rl, q->route, q->major, q->flags & REST_NO_GLOBAL, now);
    if (w == 0) {
        if (start(r, q) == 0)
            return;
        /* not sent after all: what it was counted against is given back */
        struct rl_headers none;
        rl_headers_init(&none);
        rl_release(&r->rl, q->route, q->major, q->flags & REST_NO_GLOBAL, 0, &none, -1, false, now);
        q->not_before = now + REST_BACKOFF_BASE_MS;
        wake_at(wake, q->not_before);
    } else if (w != RL_WAIT_RELEASE) {
        wake_at(wake, now + w);
    }
}

/* The first request of rq that may go, started unless rq has one in flight;
 * those worth nothing any more end on the way. */
static void pump_queue(struct rest *r, struct rq *rq, uint64_t now, uint64_t *wake)
{
    while (rq && !rq->busy) {
        struct rest_req *q = STAILQ_FIRST(&rq->reqs);
        if (q->deadline && (q->deadline <= now || q->not_before >= q->deadline)) {
            /* worth nothing any more: it ends here, and the queue goes on */
            rq = end_first(r, rq, REST_EXPIRED);
            continue;
        }
        if (q->not_before > now) {
            wake_at(wake, q->not_before);
            return;
        }
        int prep = q->prepare ? q->prepare(q, q->ud) : 0;
        if (prep < 0) {
            q->not_before = now + REST_BACKOFF_BASE_MS;
            wake_at(wake, q->not_before);
            return;
        }
        if (prep == 1) {
            rq = end_first(r, rq, 0);
            continue;
        }
        try_start(r, q, now, wake);
        return;
    }
}

static void pump(struct rest *r)
{
    if (r->closing)
        return;
    uint64_t now = clock_mono_ms();
    uint64_t wake = UINT64_MAX;
    unsigned long started = r->requests;
    struct rq *rq, *next;
    for (rq = TAILQ_FIRST(&r->active); rq && r->inflight < REST_MAX_INFLIGHT; rq = next) {
        next = TAILQ_NEXT(rq, link);
        pump_queue(r, rq, now, &wake);
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
    uint64_t now = clock_mono_ms();
    if (res == CURLE_OK)
        curl_easy_getinfo(q->h.easy, CURLINFO_RESPONSE_CODE, &status);
    give_back_handle(r, &q->h);
    q->q->busy = false;
    r->inflight--;
    double body_retry = -1;
    bool body_global = false;
    if (status == 429) {
        struct json_object *j = json_tokener_parse(q->resp.data ? q->resp.data : "");
        if (jget_double(j, "retry_after", &body_retry) < 0)
            body_retry = -1;
        body_global = jget_true(j, "global");
        json_object_put(j);
    }
    uint64_t wait = rl_release(&r->rl, q->route, q->major, q->flags & REST_NO_GLOBAL, status,
                               &q->rh, body_retry, body_global, now);
    struct rq *rq = q->q;
    if (status == 429 || status == 0 || status >= 500) {
        q->attempts++;
        r->retries++;
        q->not_before = now + (status == 429 ? wait : backoff(q->attempts));
        queue_to_tail(r, rq);
        schedule(r, 0);
        return;
    }
    bool more = STAILQ_NEXT(q, link) != NULL;
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

/* The headers of every request of a kind: the token, the User-Agent, and no
 * Accept header (libcurl's own "any type", which the API does not need: 13
 * bytes a request less through libcurl's printf, about 80 instructions each);
 * with a body, its type; with a large one, no "Expect: 100-continue" wait.
 * Only a large body's list holds the empty "Expect:": libcurl walks the whole
 * list for each header it might add, so an entry costs every request. NULL on
 * no memory. */
static struct curl_slist *header_list(const char *auth, const char *ua, enum hdrs_kind kind)
{
    const char *const lines[] = {
        auth, ua, "Accept:", kind != HDRS_PLAIN ? "Content-Type: application/json" : NULL,
        kind == HDRS_JSON_LARGE ? "Expect:" : NULL};
    struct curl_slist *list = NULL;
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++)
        if (lines[i] && add_header(&list, lines[i]) < 0) {
            curl_slist_free_all(list);
            return NULL;
        }
    return list;
}

/* Parses api_url once into r->base and notes its path, which ends api_url
 * (else, with a query in it, r->api_path stays NULL and each request's URL
 * is parsed whole). A URL curl refuses leaves base empty: every request then
 * fails to start, and is tried again, as it failed in curl before. Returns 0,
 * or -1 on no memory. */
static int parse_base(struct rest *r)
{
    if (!(r->base = curl_url()))
        return -1;
    char *path = NULL;
    if (curl_url_set(r->base, CURLUPART_URL, r->api_url,
                     CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK ||
        curl_url_get(r->base, CURLUPART_PATH, &path, 0) != CURLUE_OK)
        return 0;
    size_t n = strlen(path), ulen = strlen(r->api_url);
    if (n && path[n - 1] == '/')
        n--;
    if (n <= ulen && memcmp(r->api_url + ulen - n, path, n) == 0)
        r->api_path = strndup(path, n);
    curl_free(path);
    return 0;
}

struct rest *rest_new(uv_loop_t *loop, const char *api_url, const char *token,
                      const char *user_agent, unsigned global_per_sec)
{
    struct rest *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    struct buf auth, ua;
    buf_init(&auth, REST_MAX_HEADER);
    buf_init(&ua, REST_MAX_HEADER);
    bool rl_ready = false;
    size_t ulen = strlen(api_url);
    while (ulen && api_url[ulen - 1] == '/')
        ulen--;
    r->api_url = strndup(api_url, ulen);
    buf_init(&r->url, REST_MAX_URL);
    if (!r->api_url || buf_printf(&auth, "Authorization: Bot %s", token) < 0 ||
        buf_printf(&ua, "User-Agent: %s", user_agent) < 0 || !(r->ua = strdup(ua.data)) ||
        parse_base(r) < 0)
        goto fail;
    for (int k = 0; k < HDRS_KINDS; k++)
        if (!(r->hdrs[k] = header_list(auth.data, ua.data, k)))
            goto fail;
    if (rl_init(&r->rl, global_per_sec, 1000) < 0)
        goto fail;
    rl_ready = true;
    r->curl = curl_uv_new(loop);
    if (!r->curl)
        goto fail;
    buf_free(&auth);
    buf_free(&ua);
    r->loop = loop;
    map_init(&r->queues);
    TAILQ_INIT(&r->active);
    TAILQ_INIT(&r->kept);
    curl_uv_keep_connections(r->curl, REST_MAX_INFLIGHT);
    uv_timer_init(loop, &r->pump_timer);
    r->pump_timer.data = r;
    r->open_handles = 1;
    return r;
fail:
    buf_free(&auth);
    buf_free(&ua);
    if (rl_ready)
        rl_free(&r->rl);
    else
        free(r->rl.gwin);
    for (int k = 0; k < HDRS_KINDS; k++)
        curl_slist_free_all(r->hdrs[k]);
    curl_url_cleanup(r->base);
    free(r->api_url);
    free(r->api_path);
    free(r->ua);
    buf_free(&r->url);
    free(r);
    return NULL;
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
    struct rq *rq;
    while ((rq = TAILQ_FIRST(&r->active))) {
        struct rest_req *q = STAILQ_FIRST(&rq->reqs);
        queue_pop(r, rq);
        q->done(q, REST_STOPPED, "", q->ud);
        req_free(q);
    }
    while (r->nidle)
        handle_free(&r->idle[--r->nidle]);
    curl_uv_free(r->curl);
    r->curl = NULL;
    uv_timer_stop(&r->pump_timer);
    uv_close((uv_handle_t *)&r->pump_timer, handle_closed);
}
