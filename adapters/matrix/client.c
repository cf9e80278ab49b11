/*
 * client.c - HTTP calls to the homeserver, with the Matrix retry policy.
 *
 * Transfers run on the daemon's loop through adapters/common/curl_uv. A call
 * that must be retried waits on its own timer and then starts a new transfer.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <uv.h>

#include "adapters/common/curl_uv.h"
#include "bot/util/buf.h"
#include "core/json.h"
#include "client.h"

#define MX_BODY_MAX   (64u << 20) /* a homeserver answer over 64 MiB is refused */
#define MX_URL_MAX    (16u << 10)
#define MX_HEADER_MAX 4096u /* the Authorization header */

struct mx_call {
    struct mx_http *h;
    LIST_ENTRY(mx_call) link; /* in the client's calls */
    char *method, *path, *body;
    long timeout_ms;
    unsigned flags;
    mx_http_cb cb;
    void *arg;
    CURL *easy;
    struct curl_slist *headers;
    struct buf resp; /* the answer's body, at most MX_BODY_MAX bytes */
    char retry_after[64];
    uv_timer_t timer;
    int attempts;
    bool in_flight; /* the transfer is in curl_uv */
};

struct mx_http {
    uv_loop_t *loop;
    struct curl_uv *curl;
    char *base;
    char *auth;
    int64_t first_ms, cap_ms;
    LIST_HEAD(, mx_call) calls;
    int closing; /* libuv handles whose close callback is pending */
    bool freeing;
};

static void http_maybe_free(struct mx_http *h)
{
    if (h->freeing && h->closing == 0) {
        free(h->base);
        free(h->auth);
        free(h);
    }
}

/* curl's write callback: the body into b. Too large or no memory fails the
 * transfer, which the caller sees as a network error (retried when it asked). */
static size_t on_write(char *data, size_t size, size_t n, void *userp)
{
    struct buf *b = userp;
    return buf_append(b, data, size * n) == 0 ? size * n : 0;
}

static size_t on_header(char *data, size_t size, size_t n, void *userp)
{
    struct mx_call *c = userp;
    size_t len = size * n;
    static const char name[] = "retry-after:";
    if (len > sizeof(name) - 1 && strncasecmp(data, name, sizeof(name) - 1) == 0) {
        size_t i = sizeof(name) - 1;
        while (i < len && (data[i] == ' ' || data[i] == '\t'))
            i++;
        size_t j = 0;
        while (i < len && j + 1 < sizeof(c->retry_after) && data[i] != '\r' && data[i] != '\n')
            c->retry_after[j++] = data[i++];
        c->retry_after[j] = '\0';
    }
    return len;
}

int64_t mx_retry_after_ms(const char *header, struct json_object *body)
{
    if (header && *header) {
        char *end;
        long long secs = strtoll(header, &end, 10);
        while (*end == ' ')
            end++;
        if (end != header && *end == '\0' && secs >= 0 && secs < 86400)
            return (int64_t)secs * 1000;
        /* Retry-After may also be an HTTP-date (RFC 9110): wait until then. */
        time_t when = curl_getdate(header, NULL);
        if (when != (time_t)-1) {
            time_t now = time(NULL);
            if (when <= now)
                return 0;
            if (when - now < 86400)
                return (int64_t)(when - now) * 1000;
        }
    }
    int64_t ms;
    if (jget_int64(body, "retry_after_ms", &ms) == 0 && ms >= 0 && ms < 86400000)
        return ms;
    return -1;
}

static char *xstrdup(const char *s)
{
    return s ? strdup(s) : NULL;
}

struct mx_http *mx_http_new(uv_loop_t *loop, const char *base)
{
    struct mx_http *h = calloc(1, sizeof(*h));
    if (!h)
        return NULL;
    h->loop = loop;
    LIST_INIT(&h->calls);
    h->base = strdup(base);
    h->curl = curl_uv_new(loop);
    h->first_ms = 500;
    h->cap_ms = 30000;
    if (!h->base || !h->curl) {
        curl_uv_free(h->curl);
        free(h->base);
        free(h);
        return NULL;
    }
    size_t bl = strlen(h->base);
    while (bl > 0 && h->base[bl - 1] == '/')
        h->base[--bl] = '\0';
    return h;
}

int mx_http_set_token(struct mx_http *h, const char *token)
{
    struct buf b;
    buf_init(&b, MX_HEADER_MAX);
    if (buf_printf(&b, "Authorization: Bearer %s", token) < 0)
        return -1;
    free(h->auth);
    h->auth = buf_take(&b);
    return 0;
}

void mx_http_clear_token(struct mx_http *h)
{
    free(h->auth);
    h->auth = NULL;
}

void mx_http_set_backoff(struct mx_http *h, int64_t first_ms, int64_t cap_ms)
{
    h->first_ms = first_ms;
    h->cap_ms = cap_ms;
}

/* Appends header line to *list. Returns 0, or -1 on no memory (*list unchanged). */
static MUST_USE int add_header(struct curl_slist **list, const char *line)
{
    struct curl_slist *l = curl_slist_append(*list, line);
    if (!l)
        return -1;
    *list = l;
    return 0;
}

/* A transfer for one request, with its headers in *headers (the caller frees both).
 * NULL on no memory. */
static CURL *make_easy(struct mx_http *h, const char *method, const char *path, const char *body,
                       long timeout_ms, bool auth, struct curl_slist **headers)
{
    struct buf url;
    buf_init(&url, MX_URL_MAX);
    struct curl_slist *hd = NULL;
    CURL *e = curl_easy_init();
    if (!e || buf_printf(&url, "%s%s", h->base, path) < 0 ||
        add_header(&hd, "Accept: application/json") < 0 || add_header(&hd, "Expect:") < 0 ||
        (body && add_header(&hd, "Content-Type: application/json") < 0) ||
        (auth && h->auth && add_header(&hd, h->auth) < 0))
        goto fail;
    curl_easy_setopt(e, CURLOPT_URL, url.data);
    buf_free(&url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "illegald");
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hd);
    *headers = hd;
    if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, body ? body : "");
    }
    return e;
fail:
    buf_free(&url);
    curl_slist_free_all(hd);
    if (e)
        curl_easy_cleanup(e);
    return NULL;
}

static void on_call_closed(uv_handle_t *handle)
{
    struct mx_call *c = handle->data;
    struct mx_http *h = c->h;
    free(c);
    h->closing--;
    http_maybe_free(h);
}

static void call_free(struct mx_call *c)
{
    struct mx_http *h = c->h;
    LIST_REMOVE(c, link);
    if (c->in_flight)
        curl_uv_remove(h->curl, c->easy);
    c->in_flight = false;
    if (c->easy)
        curl_easy_cleanup(c->easy);
    curl_slist_free_all(c->headers);
    free(c->method);
    free(c->path);
    free(c->body);
    buf_free(&c->resp);
    uv_timer_stop(&c->timer);
    h->closing++;
    uv_close((uv_handle_t *)&c->timer, on_call_closed);
}

static void on_transfer_done(void *arg, CURL *easy, CURLcode result);

static int call_launch(struct mx_call *c)
{
    struct mx_http *h = c->h;
    if (c->easy) {
        curl_easy_cleanup(c->easy);
        curl_slist_free_all(c->headers);
        c->headers = NULL;
    }
    c->easy = make_easy(h, c->method, c->path, c->body, c->timeout_ms, !(c->flags & MX_CALL_NOAUTH),
                        &c->headers);
    if (!c->easy)
        return -1;
    if (c->flags & MX_CALL_ONCE)
        curl_easy_setopt(c->easy, CURLOPT_FRESH_CONNECT, 1L);
    buf_reset(&c->resp);
    c->retry_after[0] = '\0';
    curl_easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c->easy, CURLOPT_WRITEDATA, &c->resp);
    curl_easy_setopt(c->easy, CURLOPT_HEADERFUNCTION, on_header);
    curl_easy_setopt(c->easy, CURLOPT_HEADERDATA, c);
    if (curl_uv_add(h->curl, c->easy, on_transfer_done, c) != 0)
        return -1;
    c->in_flight = true;
    return 0;
}

static void on_retry(uv_timer_t *t)
{
    struct mx_call *c = t->data;
    if (call_launch(c) != 0) {
        /* Out of memory: try again later rather than lose the call. */
        uv_timer_start(&c->timer, on_retry, (uint64_t)c->h->cap_ms, 0);
    }
}

static int64_t backoff_ms(struct mx_call *c)
{
    int64_t d = c->h->first_ms;
    for (int i = 0; i < c->attempts && d < c->h->cap_ms; i++)
        d *= 2;
    return d < c->h->cap_ms ? d : c->h->cap_ms;
}

static void schedule_retry(struct mx_call *c, int64_t delay_ms)
{
    if (delay_ms < 0)
        delay_ms = backoff_ms(c);
    c->attempts++;
    uv_timer_start(&c->timer, on_retry, (uint64_t)delay_ms, 0);
}

static void finish(struct mx_call *c, CURLcode result)
{
    long status = 0;
    if (result == CURLE_OK)
        curl_easy_getinfo(c->easy, CURLINFO_RESPONSE_CODE, &status);
    c->in_flight = false;

    struct json_object *json = NULL;
    if (c->resp.len > 0)
        json = json_tokener_parse(c->resp.data);
    if (json && !jobj(json)) {
        json_object_put(json);
        json = NULL;
    }
    const char *errcode = jget_str(json, "errcode");

    if (c->flags & MX_CALL_RETRY) {
        bool again = false;
        int64_t delay = -1;
        if (status == 0 || status >= 500 || (status == 200 && !json)) {
            again = true;
        } else if (status == 429) {
            again = true;
            delay = mx_retry_after_ms(c->retry_after, json);
        }
        if (again) {
            json_object_put(json);
            schedule_retry(c, delay);
            return;
        }
    }
    struct mx_resp r = {
        .status = status,
        .json = json,
        .errcode = errcode,
        .body = c->resp.data ? c->resp.data : "",
        .net_error = result == CURLE_OK ? NULL : curl_easy_strerror(result),
    };
    enum mx_next next = c->cb ? c->cb(c->arg, &r) : MX_DONE;
    json_object_put(json);
    if (next == MX_RETRY)
        schedule_retry(c, -1);
    else
        call_free(c);
}

static void on_transfer_done(void *arg, CURL *easy, CURLcode result)
{
    (void)easy;
    finish(arg, result);
}

struct mx_call *mx_http_call(struct mx_http *h, const char *method, const char *path,
                             const char *body, long timeout_ms, unsigned flags, mx_http_cb cb,
                             void *arg)
{
    struct mx_call *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->h = h;
    buf_init(&c->resp, MX_BODY_MAX);
    c->method = strdup(method);
    c->path = strdup(path);
    c->body = xstrdup(body);
    c->timeout_ms = timeout_ms;
    c->flags = flags;
    c->cb = cb;
    c->arg = arg;
    uv_timer_init(h->loop, &c->timer);
    c->timer.data = c;
    LIST_INSERT_HEAD(&h->calls, c, link);
    if (!c->method || !c->path || (body && !c->body) || call_launch(c) != 0) {
        call_free(c);
        return NULL;
    }
    return c;
}

void mx_call_cancel(struct mx_call *c)
{
    if (c)
        call_free(c);
}

void mx_http_free(struct mx_http *h)
{
    if (!h)
        return;
    while (!LIST_EMPTY(&h->calls))
        call_free(LIST_FIRST(&h->calls));
    curl_uv_free(h->curl);
    h->curl = NULL;
    h->freeing = true;
    http_maybe_free(h);
}

struct json_object *mx_http_call_sync(struct mx_http *h, const char *method, const char *path,
                                      const char *body, long timeout_ms, long *status)
{
    struct buf resp;
    buf_init(&resp, MX_BODY_MAX);
    struct curl_slist *hd = NULL;
    CURL *e = make_easy(h, method, path, body, timeout_ms, true, &hd);
    *status = 0;
    if (!e)
        return NULL;
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &resp);
    CURLcode rc = curl_easy_perform(e);
    if (rc == CURLE_OK)
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(e);
    curl_slist_free_all(hd);
    struct json_object *json = resp.len ? json_tokener_parse(resp.data) : NULL;
    buf_free(&resp);
    if (json && !jobj(json)) {
        json_object_put(json);
        json = NULL;
    }
    return json;
}

char *mx_escape(const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = strlen(s);
    char *out = malloc(n * 3 + 1);
    if (!out)
        return NULL;
    char *o = out;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (isalnum(*p) || *p == '-' || *p == '_' || *p == '.' || *p == '~') {
            *o++ = (char)*p;
        } else {
            *o++ = '%';
            *o++ = hex[*p >> 4];
            *o++ = hex[*p & 15];
        }
    }
    *o = '\0';
    return out;
}
