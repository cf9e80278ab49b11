/*
 * http.c - the libwebsockets callback: pages, the websocket, pings.
 */
#include "internal.h"

/* ---- HTTP and websocket callback ---- */

#define PRESENCE_DELAY_US (200 * LWS_US_PER_MS) /* a reload closes and opens at once */

static bool user_online(const struct web *w, const char *user)
{
    for (const struct conn *o = LIST_FIRST(&w->conns); o; o = LIST_NEXT(o, link))
        if (o->user && strcmp(o->user, user) == 0 && !o->closing)
            return true;
    return false;
}

/* Whether a and b see each other's presence: two local table sockets, or two
 * pages inside Discord in the same channel. */
static bool same_room(const struct conn *a, const struct conn *b)
{
    if (a->activity != b->activity)
        return false;
    return !a->activity ||
           (a->act_channel && b->act_channel && strcmp(a->act_channel, b->act_channel) == 0);
}

/* {"type":"presence","online":[user ids]}: the seats of like's room with a socket open. */
static struct json_object *presence_of(const struct web *w, const struct conn *like)
{
    struct json_object *o = json_object_new_object(), *online = json_object_new_array();
    for (const struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link)) {
        if (!c->user || !same_room(c, like))
            continue;
        bool seen = false;
        for (const struct conn *e = LIST_FIRST(&w->conns); e != c && !seen; e = LIST_NEXT(e, link))
            seen = e->user && same_room(e, like) && strcmp(e->user, c->user) == 0;
        if (!seen)
            json_object_array_add(online, json_object_new_string(c->user));
    }
    json_object_object_add(o, "type", json_object_new_string("presence"));
    json_object_object_add(o, "online", online);
    return o;
}

/* Who is online, to every seated socket: the local table's list to its
 * sockets, each Discord channel's to its pages. Each room's list is made and
 * written out once, at its first socket, and queued to the room's sockets from
 * there on: made for every page, it cost 700 pages in one channel seconds. */
static void presence_run(lws_sorted_usec_list_t *sul)
{
    struct web *w = lws_container_of(sul, struct web, presence_sul);
    w->presence_armed = false;
    uint64_t run = ++w->presence_runs;
    for (struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link)) {
        if (!c->user || c->presence_run == run)
            continue;
        struct json_object *o = presence_of(w, c);
        size_t len;
        const char *text = json_object_to_json_string_length(
            o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
        for (struct conn *d = c; d && text; d = LIST_NEXT(d, link)) {
            if (d->user && d->presence_run != run && same_room(c, d)) {
                d->presence_run = run;
                web_conn_queue(d, text, len);
            }
        }
        json_object_put(o);
    }
    web_wake_all(w);
}

void web_presence_changed(struct web *w)
{
    if (!w->ctx || w->presence_armed)
        return;
    w->presence_armed = true;
    lws_sul_schedule(w->ctx, 0, &w->presence_sul, presence_run, PRESENCE_DELAY_US);
}

/* A websocket closed: forgets it, then the tables and the seat nobody holds any more. */
void web_conn_leave(struct web *w, struct conn *c)
{
    if (c->user)
        log_debug(MOD, NULL, "%s left", c->user);
    web_conn_unlink(w, c);
    if (c->user && !user_online(w, c->user))
        web_presence_changed(w);
    for (unsigned i = 0; i < c->nopen; i++) {
        struct scope *t = web_scope_find(w, c->open[i], false);
        if (t)
            web_table_drop_if_empty(w, t);
    }
    if (c->user)
        web_seat_release(w, c->user);
    web_conn_free(c);
    c->w = NULL;
    web_wake_all(w);
}

lws_usec_t web_ping_interval(const struct web *w)
{
    return (lws_usec_t)w->idle_secs * LWS_US_PER_SEC / 3;
}

/* Every idle_seconds / 3, pings the seated sockets: a live browser's pong keeps it open. */
void web_ping_run(lws_sorted_usec_list_t *sul)
{
    struct web *w = lws_container_of(sul, struct web, ping_sul);
    for (struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link)) {
        if (c->user && !c->closing) {
            c->want_ping = true;
            web_conn_wake(c);
        }
    }
    web_wake_all(w);
    lws_sul_schedule(w->ctx, 0, &w->ping_sul, web_ping_run, web_ping_interval(w));
}

static const struct web_asset *asset_find(const char *path)
{
    if (strcmp(path, "/") == 0)
        path = "/index.html";
    for (size_t i = 0; i < web_nassets; i++)
        if (strcmp(web_assets[i].path, path) == 0)
            return &web_assets[i];
    return NULL;
}

/* With the Activity: lws's own security headers would forbid Discord's frame,
 * so the page's are written here, the same but for who may frame it. */
#define ACTIVITY_CSP                                                                               \
    "default-src 'none'; img-src 'self' data:; script-src 'self'; font-src 'self'; "               \
    "style-src 'self'; connect-src 'self' ws: wss:; base-uri 'none'; form-action 'self'; "         \
    "frame-ancestors https://discord.com https://*.discord.com https://*.discordsays.com"

static int activity_headers(struct lws *wsi, unsigned char **p, unsigned char *end)
{
    static const char *const h[][2] = {
        {"content-security-policy:", ACTIVITY_CSP},
        {"x-content-type-options:", "nosniff"},
        {"referrer-policy:", "no-referrer"},
    };
    for (size_t i = 0; i < sizeof h / sizeof h[0]; i++)
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)h[i][0],
                                        (const unsigned char *)h[i][1], (int)strlen(h[i][1]), p,
                                        end))
            return -1;
    return 0;
}

/* The path without the prefix Discord's proxy maps ("/.proxy/ws" is "/ws"),
 * when the Activity is on. */
static const char *unproxied(const struct web *w, const char *path)
{
    if (w->act && strncmp(path, "/.proxy/", 8) == 0)
        return path + 7;
    return path;
}

static int http_start(struct web *w, struct conn *c, struct lws *wsi, const char *path)
{
    path = unproxied(w, path);
    const struct web_asset *a = asset_find(path);
    bool host_ok = web_host_allowed(w, wsi);
    const char *type = a ? a->type : NULL;
    size_t len = a ? a->len : 0;
    free(c->body);
    c->body = NULL;
    if (!host_ok)
        web_host_refused(wsi);
    else if (!a && strncmp(path, "/invite", 7) == 0)
        c->body = web_invite(w, path, &type, &len); /* made for this request */
    else if (!a && strcmp(path, "/games.json") == 0)
        c->body = web_games_http(&type, &len);
    else if (!a)
        c->body = web_activity_http(w, path, &type, &len);
    if ((!a && !c->body) || !host_ok) {
        if (lws_return_http_status(wsi, host_ok ? HTTP_STATUS_NOT_FOUND : HTTP_STATUS_FORBIDDEN,
                                   NULL))
            return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    unsigned char buf[LWS_PRE + 1536];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    /* lws adds the security headers (CSP: no inline script or style, nosniff, deny framing) */
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, type, len, &p, end) ||
        (w->act && activity_headers(wsi, &p, end)) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-cache", 8, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    c->asset = a;
    c->body_len = len;
    c->http_off = 0;
    lws_callback_on_writable(wsi);
    return 0;
}

static int http_write(struct conn *c, struct lws *wsi)
{
    const unsigned char *data = c->asset ? c->asset->data : (const unsigned char *)c->body;
    if (!data)
        return 0;
    unsigned char buf[LWS_PRE + WEB_CHUNK];
    size_t left = c->body_len - c->http_off;
    size_t n = left > WEB_CHUNK ? WEB_CHUNK : left;
    memcpy(buf + LWS_PRE, data + c->http_off, n);
    bool last = n == left;
    if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
        return -1;
    c->http_off += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    c->asset = NULL;
    free(c->body);
    c->body = NULL;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* Refuses websockets on other paths, for other hosts and from pages of other origins. */
static int ws_filter(struct web *w, struct lws *wsi)
{
    char uri[64], origin[256], host[WEB_HOST_LEN];
    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0 ||
        strcmp(unproxied(w, uri), "/ws") != 0)
        return 1;
    if (!web_host_allowed(w, wsi)) {
        web_host_refused(wsi);
        return 1;
    }
    if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) <= 0)
        return 0; /* not a browser: no cross-site concern */
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0 ||
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) < 0)
        return 1;
    if (w->act && strcasecmp(origin, w->act_origin) == 0)
        return 0; /* a page inside Discord, through its proxy */
    const char *o = origin;
    if (strncmp(o, "http://", 7) == 0)
        o += 7;
    else if (strncmp(o, "https://", 8) == 0)
        o += 8;
    if (strcasecmp(o, host) != 0) {
        log_warn(MOD, NULL, "refused a websocket from origin %s", origin);
        return 1;
    }
    return 0;
}

/* ---- the callback, a handler a reason ---- */

/* What lws handed the callback: the adapter (never NULL in a handler), the connection's lws
 * handle, its user memory (a struct conn, or the peer's address for the network filter, or
 * NULL), and the reason's own argument. */
struct lws_call {
    struct web *w;
    struct lws *wsi;
    void *user;
    void *in;
    size_t len;
};

/* Each returns what lws asks of its reason: 0 to carry on, nonzero to close (or refuse). */

static int peer_filter(const struct lws_call *x)
{
    return web_peer_admit(x->w, x->user);
}

static int peer_created(const struct lws_call *x)
{
    web_peer_created(x->w, x->wsi);
    return 0;
}

static int peer_destroyed(const struct lws_call *x)
{
    web_peer_destroyed(x->w, x->wsi);
    return 0;
}

static int http_request(const struct lws_call *x)
{
    return x->user ? http_start(x->w, x->user, x->wsi, x->in ? (const char *)x->in : "/") : -1;
}

static int http_writeable(const struct lws_call *x)
{
    return x->user ? http_write(x->user, x->wsi) : 0;
}

static int http_closed(const struct lws_call *x)
{
    struct conn *c = x->user;
    if (c) {
        free(c->body); /* an answer cut short */
        c->body = NULL;
    }
    return 0;
}

static int ws_upgrade(const struct lws_call *x)
{
    return ws_filter(x->w, x->wsi);
}

static int ws_established(const struct lws_call *x)
{
    struct conn *c = x->user;
    web_conn_init(x->w, c, x->wsi);
    snprintf(c->addr, sizeof c->addr, "%s", web_peer_addr(x->w, x->wsi));
    lws_set_timeout(x->wsi, PENDING_TIMEOUT_USER_OK, x->w->hello_secs);
    return 0;
}

static int ws_receive(const struct lws_call *x)
{
    struct conn *c = x->user;
    if (!c || !c->w)
        return -1;
    web_on_receive(x->w, c, x->in, x->len);
    /* a seated socket that talks is alive; before hello, the deadline holds */
    if (c->user)
        lws_set_timeout(x->wsi, PENDING_TIMEOUT_USER_OK, x->w->idle_secs);
    web_wake_all(x->w);
    return 0;
}

static int ws_pong(const struct lws_call *x)
{
    const struct conn *c = x->user;
    if (c && c->w && c->user)
        lws_set_timeout(x->wsi, PENDING_TIMEOUT_USER_OK, x->w->idle_secs);
    return 0;
}

static int ws_writeable(const struct lws_call *x)
{
    struct conn *c = x->user;
    return c && c->w ? web_conn_write(c) : -1;
}

static int ws_closed(const struct lws_call *x)
{
    struct conn *c = x->user;
    if (c && c->w)
        web_conn_leave(x->w, c);
    return 0;
}

/* The reasons the adapter acts on; any other needs nothing of it. stopped: what the reason
 * gets once the adapter stopped, when only connections closing remain (what would start
 * work is refused). */
static const struct {
    enum lws_callback_reasons reason;
    int (*handler)(const struct lws_call *x);
    int stopped;
} reasons[] = {
    {LWS_CALLBACK_FILTER_NETWORK_CONNECTION, peer_filter, -1},
    {LWS_CALLBACK_WSI_CREATE, peer_created, 0},
    {LWS_CALLBACK_WSI_DESTROY, peer_destroyed, 0},
    {LWS_CALLBACK_HTTP, http_request, -1},
    {LWS_CALLBACK_HTTP_WRITEABLE, http_writeable, 0},
    {LWS_CALLBACK_CLOSED_HTTP, http_closed, 0},
    {LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION, ws_upgrade, 0},
    {LWS_CALLBACK_ESTABLISHED, ws_established, 0},
    {LWS_CALLBACK_RECEIVE, ws_receive, -1},
    {LWS_CALLBACK_RECEIVE_PONG, ws_pong, 0},
    {LWS_CALLBACK_SERVER_WRITEABLE, ws_writeable, 0},
    {LWS_CALLBACK_CLOSED, ws_closed, 0},
};

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_context *lctx = lws_get_context(wsi);
    struct shim *shim = lctx ? lws_context_user(lctx) : NULL;
    const struct lws_call x = {shim ? shim->w : NULL, wsi, user, in, len};

    for (size_t i = 0; i < sizeof reasons / sizeof reasons[0]; i++)
        if (reasons[i].reason == reason)
            return x.w ? reasons[i].handler(&x) : reasons[i].stopped;
    return 0;
}

const struct lws_protocols web_protocols[] = {
    {"illegal", callback, sizeof(struct conn), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};
