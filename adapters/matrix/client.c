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
#include <time.h>

#include <curl/curl.h>
#include <json-c/json.h>
#include <uv.h>

#include "adapters/common/curl_uv.h"
#include "client.h"

struct mx_call {
    struct mx_http *h;
    struct mx_call *prev, *next;
    char *method, *path, *body;
    long timeout_ms;
    unsigned flags;
    mx_http_cb cb;
    void *arg;
    CURL *easy;
    struct curl_slist *headers;
    char *buf;
    size_t len, cap;
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
    struct mx_call *calls;
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

static size_t on_write(char *data, size_t size, size_t n, void *userp)
{
    struct mx_call *c = userp;
    size_t add = size * n;
    if (c->len + add + 1 > c->cap) {
        size_t cap = c->cap ? c->cap : 4096;
        while (cap < c->len + add + 1)
            cap *= 2;
        if (cap > (64u << 20))
            return 0; /* a homeserver answer over 64 MiB is refused */
        char *nb = realloc(c->buf, cap);
        if (!nb)
            return 0;
        c->buf = nb;
        c->cap = cap;
    }
    memcpy(c->buf + c->len, data, add);
    c->len += add;
    c->buf[c->len] = '\0';
    return add;
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
    struct json_object *v;
    if (body && json_object_object_get_ex(body, "retry_after_ms", &v) &&
        json_object_is_type(v, json_type_int)) {
        int64_t ms = json_object_get_int64(v);
        if (ms >= 0 && ms < 86400000)
            return ms;
    }
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

void mx_http_set_token(struct mx_http *h, const char *token)
{
    free(h->auth);
    h->auth = NULL;
    if (!token)
        return;
    size_t n = strlen(token) + 32;
    h->auth = malloc(n);
    if (h->auth)
        snprintf(h->auth, n, "Authorization: Bearer %s", token);
}

void mx_http_set_backoff(struct mx_http *h, int64_t first_ms, int64_t cap_ms)
{
    h->first_ms = first_ms;
    h->cap_ms = cap_ms;
}

static CURL *make_easy(struct mx_http *h, const char *method, const char *path, const char *body,
                       long timeout_ms, bool auth, struct curl_slist **headers)
{
    CURL *e = curl_easy_init();
    if (!e)
        return NULL;
    size_t n = strlen(h->base) + strlen(path) + 1;
    char *url = malloc(n);
    if (!url) {
        curl_easy_cleanup(e);
        return NULL;
    }
    snprintf(url, n, "%s%s", h->base, path);
    curl_easy_setopt(e, CURLOPT_URL, url);
    free(url);
    curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, timeout_ms);
    curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, timeout_ms < 10000 ? timeout_ms : 10000L);
    curl_easy_setopt(e, CURLOPT_USERAGENT, "illegald");
    struct curl_slist *hd = NULL;
    hd = curl_slist_append(hd, "Accept: application/json");
    hd = curl_slist_append(hd, "Expect:");
    if (body)
        hd = curl_slist_append(hd, "Content-Type: application/json");
    if (auth && h->auth)
        hd = curl_slist_append(hd, h->auth);
    curl_easy_setopt(e, CURLOPT_HTTPHEADER, hd);
    *headers = hd;
    if (strcmp(method, "GET") != 0) {
        curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, method);
        curl_easy_setopt(e, CURLOPT_COPYPOSTFIELDS, body ? body : "");
    }
    return e;
}

static void call_unlink(struct mx_call *c)
{
    struct mx_http *h = c->h;
    if (c->prev)
        c->prev->next = c->next;
    else if (h->calls == c)
        h->calls = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
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
    call_unlink(c);
    if (c->in_flight)
        curl_uv_remove(h->curl, c->easy);
    c->in_flight = false;
    if (c->easy)
        curl_easy_cleanup(c->easy);
    curl_slist_free_all(c->headers);
    free(c->method);
    free(c->path);
    free(c->body);
    free(c->buf);
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
    c->len = 0;
    if (c->buf)
        c->buf[0] = '\0';
    c->retry_after[0] = '\0';
    curl_easy_setopt(c->easy, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(c->easy, CURLOPT_WRITEDATA, c);
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
    if (c->len > 0)
        json = json_tokener_parse(c->buf);
    if (json && !json_object_is_type(json, json_type_object)) {
        json_object_put(json);
        json = NULL;
    }
    const char *errcode = NULL;
    struct json_object *v;
    if (json && json_object_object_get_ex(json, "errcode", &v))
        errcode = json_object_get_string(v);

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
        .body = c->buf ? c->buf : "",
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
    c->method = strdup(method);
    c->path = strdup(path);
    c->body = xstrdup(body);
    c->timeout_ms = timeout_ms;
    c->flags = flags;
    c->cb = cb;
    c->arg = arg;
    uv_timer_init(h->loop, &c->timer);
    c->timer.data = c;
    c->next = h->calls;
    if (h->calls)
        h->calls->prev = c;
    h->calls = c;
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
    while (h->calls)
        call_free(h->calls);
    curl_uv_free(h->curl);
    h->curl = NULL;
    h->freeing = true;
    http_maybe_free(h);
}

struct json_object *mx_http_call_sync(struct mx_http *h, const char *method, const char *path,
                                      const char *body, long timeout_ms, long *status)
{
    struct mx_call tmp = {.h = h};
    struct curl_slist *hd = NULL;
    CURL *e = make_easy(h, method, path, body, timeout_ms, true, &hd);
    *status = 0;
    if (!e)
        return NULL;
    curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
    curl_easy_setopt(e, CURLOPT_WRITEDATA, &tmp);
    CURLcode rc = curl_easy_perform(e);
    if (rc == CURLE_OK)
        curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, status);
    curl_easy_cleanup(e);
    curl_slist_free_all(hd);
    struct json_object *json = tmp.len ? json_tokener_parse(tmp.buf) : NULL;
    free(tmp.buf);
    if (json && !json_object_is_type(json, json_type_object)) {
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
