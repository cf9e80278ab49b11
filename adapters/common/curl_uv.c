/*
 * curl_uv.c - curl multi_socket on libuv: one uv_poll per socket, one timer.
 *
 * A socket's uv_poll lives as long as the socket, not as long as one
 * transfer: curl keeps connections open between requests and, when it closes
 * one, goes through on_close_socket (every easy handle added here has it), so
 * a request on a kept connection costs no handle set-up and, usually, no
 * epoll_ctl. Between transfers a kept socket is watched for reading only,
 * and the first event on it (the server closed it) stops the watch: curl
 * finds the connection dead when it next looks at it.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <sys/queue.h>
#include <unistd.h>
#include <uv.h>

#include "curl_uv.h"

struct transfer {
    CURL *easy;
    curl_uv_done_fn done;
    void *arg;
    LIST_ENTRY(transfer) link; /* in transfers, or in spare when done */
};

struct sock {
    uv_poll_t poll;
    curl_socket_t fd;
    struct curl_uv *c;
    int events; /* what poll watches now (UV_READABLE, UV_WRITABLE), 0 when stopped */
    bool kept;  /* curl does not watch it now: an idle connection in its cache */
    LIST_ENTRY(sock) link;
};

struct curl_uv {
    uv_loop_t *loop;
    CURLM *multi;
    uv_timer_t timer;
    LIST_HEAD(, transfer) transfers;
    /* Finished transfers' records, for the next ones: as many as were ever
     * running at once, freed with c (a malloc and a free a transfer less). */
    LIST_HEAD(, transfer) spare;
    LIST_HEAD(, sock) socks;
    unsigned running;
    unsigned open_handles; /* libuv handles whose close callback is pending or not run */
    unsigned depth;        /* nesting of callbacks into the user, to defer a free */
    bool freeing;
};

static void maybe_release(struct curl_uv *c)
{
    if (!c->freeing || c->open_handles || c->depth)
        return;
    while (!LIST_EMPTY(&c->spare)) {
        struct transfer *t = LIST_FIRST(&c->spare);
        LIST_REMOVE(t, link);
        free(t);
    }
    free(c);
}

static void on_handle_closed(uv_handle_t *h)
{
    struct curl_uv *c = h->data;
    c->open_handles--;
    maybe_release(c);
}

static void on_sock_closed(uv_handle_t *h)
{
    struct sock *s = h->data;
    struct curl_uv *c = s->c;
    free(s);
    c->open_handles--;
    maybe_release(c);
}

static void sock_close(struct sock *s)
{
    LIST_REMOVE(s, link);
    uv_poll_stop(&s->poll);
    uv_close((uv_handle_t *)&s->poll, on_sock_closed);
}

/* Takes t out of the running transfers and keeps it for a later one. */
static void transfer_unlink(struct curl_uv *c, struct transfer *t)
{
    LIST_REMOVE(t, link);
    LIST_INSERT_HEAD(&c->spare, t, link);
    c->running--;
}

/* Hands every finished transfer back to its owner. */
static void collect(struct curl_uv *c)
{
    CURLMsg *m;
    int left;
    c->depth++;
    while (!c->freeing && (m = curl_multi_info_read(c->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        CURL *easy = m->easy_handle;
        CURLcode result = m->data.result;
        struct transfer *t = NULL;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&t);
        curl_multi_remove_handle(c->multi, easy);
        curl_uv_done_fn done = t->done;
        void *arg = t->arg;
        transfer_unlink(c, t); /* spare from here: a transfer done adds may take it */
        done(arg, easy, result);
    }
    c->depth--;
    maybe_release(c);
}

static struct sock *sock_find(struct curl_uv *c, curl_socket_t fd)
{
    struct sock *s;
    LIST_FOREACH(s, &c->socks, link)
    if (s->fd == fd)
        return s;
    return NULL;
}

/* curl closes its sockets here: the poll handle goes first, while the fd it
 * watches is still open. */
static int on_close_socket(void *userp, curl_socket_t fd)
{
    struct curl_uv *c = userp;
    struct sock *s = sock_find(c, fd);
    if (s)
        sock_close(s);
    return close(fd) == 0 ? 0 : 1;
}

static void on_poll(uv_poll_t *p, int status, int events);

/* Watches s for events (0: not at all). libuv's uv_poll_start takes the fd
 * out of epoll and puts it back even when nothing changes, two syscalls that
 * a kept connection's next request would pay each time: skipped when the
 * events are the same. */
static void sock_watch(struct sock *s, int events)
{
    if (events == s->events)
        return;
    if (!events)
        uv_poll_stop(&s->poll);
    else if (uv_poll_start(&s->poll, events, on_poll) != 0)
        return; /* as before: curl's timeout ends the transfer */
    s->events = events;
}

static void on_poll(uv_poll_t *p, int status, int events)
{
    struct sock *s = p->data;
    struct curl_uv *c = s->c;
    if (s->kept) {
        sock_watch(s, 0);
        return;
    }
    int flags = status < 0 ? CURL_CSELECT_ERR : 0;
    int running;
    if (events & UV_READABLE)
        flags |= CURL_CSELECT_IN;
    if (events & UV_WRITABLE)
        flags |= CURL_CSELECT_OUT;
    curl_multi_socket_action(c->multi, s->fd, flags, &running);
    collect(c);
}

static int on_socket(CURL *e, curl_socket_t fd, int what, void *userp, void *socketp)
{
    struct curl_uv *c = userp;
    struct sock *s = socketp ? socketp : sock_find(c, fd);
    (void)e;
    if (what == CURL_POLL_REMOVE) {
        if (s) {
            s->kept = true;
            sock_watch(s, UV_READABLE);
        }
        return 0;
    }
    if (!s) {
        s = calloc(1, sizeof *s);
        if (!s || uv_poll_init_socket(c->loop, &s->poll, fd) != 0) {
            free(s);
            return -1;
        }
        s->fd = fd;
        s->c = c;
        s->poll.data = s;
        LIST_INSERT_HEAD(&c->socks, s, link);
        c->open_handles++;
    }
    s->kept = false;
    curl_multi_assign(c->multi, fd, s);
    int events = 0;
    if (what & CURL_POLL_IN)
        events |= UV_READABLE;
    if (what & CURL_POLL_OUT)
        events |= UV_WRITABLE;
    sock_watch(s, events);
    return 0;
}

static void on_timeout(uv_timer_t *t)
{
    struct curl_uv *c = t->data;
    int running;
    curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    collect(c);
}

static int on_timer(CURLM *m, long ms, void *userp)
{
    struct curl_uv *c = userp;
    (void)m;
    if (ms < 0)
        uv_timer_stop(&c->timer);
    else
        uv_timer_start(&c->timer, on_timeout, (uint64_t)ms, 0);
    return 0;
}

struct curl_uv *curl_uv_new(uv_loop_t *loop)
{
    static bool curl_ready;
    if (!curl_ready) {
        if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
            return NULL;
        curl_ready = true;
    }
    struct curl_uv *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->loop = loop;
    LIST_INIT(&c->transfers);
    LIST_INIT(&c->spare);
    LIST_INIT(&c->socks);
    c->multi = curl_multi_init();
    if (!c->multi || uv_timer_init(loop, &c->timer) != 0) {
        if (c->multi)
            curl_multi_cleanup(c->multi);
        free(c);
        return NULL;
    }
    c->timer.data = c;
    c->open_handles = 1;
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETDATA, c);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERDATA, c);
    return c;
}

int curl_uv_add(struct curl_uv *c, CURL *easy, curl_uv_done_fn done, void *arg)
{
    if (c->freeing)
        return -1;
    struct transfer *t = LIST_FIRST(&c->spare);
    if (t)
        LIST_REMOVE(t, link);
    else if (!(t = malloc(sizeof *t)))
        return -1;
    t->easy = easy;
    t->done = done;
    t->arg = arg;
    curl_easy_setopt(easy, CURLOPT_PRIVATE, t);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETFUNCTION, on_close_socket);
    curl_easy_setopt(easy, CURLOPT_CLOSESOCKETDATA, c);
    if (curl_multi_add_handle(c->multi, easy) != CURLM_OK) {
        LIST_INSERT_HEAD(&c->spare, t, link);
        return -1;
    }
    LIST_INSERT_HEAD(&c->transfers, t, link);
    c->running++;
    return 0;
}

void curl_uv_remove(struct curl_uv *c, CURL *easy)
{
    struct transfer *t = NULL;
    curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&t);
    if (!t)
        return;
    curl_multi_remove_handle(c->multi, easy);
    curl_easy_setopt(easy, CURLOPT_PRIVATE, NULL);
    transfer_unlink(c, t);
}

void curl_uv_keep_connections(struct curl_uv *c, long n)
{
    curl_multi_setopt(c->multi, CURLMOPT_MAX_HOST_CONNECTIONS, n);
    curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, n);
}

void curl_uv_kick(struct curl_uv *c)
{
    int running;
    curl_multi_socket_action(c->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    collect(c);
}

unsigned curl_uv_running(const struct curl_uv *c)
{
    return c->running;
}

void curl_uv_free(struct curl_uv *c)
{
    if (!c || c->freeing)
        return;
    while (!LIST_EMPTY(&c->transfers))
        curl_uv_remove(c, LIST_FIRST(&c->transfers)->easy);
    c->freeing = true;
    /* No callbacks into a half-freed driver: the sockets are closed below. */
    curl_multi_setopt(c->multi, CURLMOPT_SOCKETFUNCTION, NULL);
    curl_multi_setopt(c->multi, CURLMOPT_TIMERFUNCTION, NULL);
    curl_multi_cleanup(c->multi);
    c->multi = NULL;
    while (!LIST_EMPTY(&c->socks))
        sock_close(LIST_FIRST(&c->socks));
    uv_timer_stop(&c->timer);
    uv_close((uv_handle_t *)&c->timer, on_handle_closed);
}
