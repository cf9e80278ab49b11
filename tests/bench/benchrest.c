/*
 * benchrest.c - the benchmark's REST server; see benchrest.h.
 */
#include "benchrest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>

#include "fakediscord.h"

#define BR_CONNS   512 /* undici opens a connection per request in flight */
#define BR_BUF     (256 * 1024)
#define BR_PENDING 4096 /* commands awaiting an answer, per channel */
#define BR_LAT     200000

struct conn {
    int fd;
    size_t len;
    char *buf;
};

struct pending {
    double t[BR_PENDING];
    unsigned char measure[BR_PENDING];
    unsigned head, tail;
};

struct br_server {
    pthread_t thread;
    pthread_mutex_t mu;
    volatile int stop;
    int lfd, port;
    struct conn conns[BR_CONNS];
    struct fd_server *gw;
    unsigned long posts, next_id;
    unsigned long callbacks; /* interaction callbacks (a slash command's first answer) */
    double first_post;
    struct pending pend[BR_CHANNELS];
    double *lat;
    size_t nlat;
    char *first_body;
};

void br_channel_id(unsigned i, char *out, size_t len)
{
    snprintf(out, len, "5500000000000%05u", i);
}

static int channel_index(const char *id)
{
    char want[32];
    for (unsigned i = 0; i < BR_CHANNELS; i++) {
        br_channel_id(i, want, sizeof(want));
        if (strcmp(want, id) == 0)
            return (int)i;
    }
    return -1;
}

static void send_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        p += w;
        n -= (size_t)w;
    }
}

static void reply(int fd, const char *body)
{
    char head[160];
    size_t n = strlen(body);
    int h = snprintf(head, sizeof(head),
                     "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n\r\n",
                     n);
    send_all(fd, head, (size_t)h);
    send_all(fd, body, n);
}

/* A posted message: recorded, answered with the message, echoed on the gateway. */
static void post_message(struct br_server *s, int fd, const char *channel, const char *body)
{
    double now = fd_now();
    struct json_object *in = json_tokener_parse(body), *v;
    struct json_object *m = json_object_new_object(), *author = json_object_new_object();
    char id[32];
    pthread_mutex_lock(&s->mu);
    snprintf(id, sizeof(id), "%lu", s->next_id++);
    s->posts++;
    if (s->first_post == 0)
        s->first_post = now;
    if (!s->first_body)
        s->first_body = strdup(body);
    int ci = channel_index(channel);
    if (ci >= 0) {
        struct pending *p = &s->pend[ci];
        if (p->head != p->tail) {
            unsigned k = p->head++ % BR_PENDING;
            if (p->measure[k] && s->nlat < BR_LAT)
                s->lat[s->nlat++] = (now - p->t[k]) * 1000.0;
        }
    }
    pthread_mutex_unlock(&s->mu);
    json_object_object_add(m, "id", json_object_new_string(id));
    json_object_object_add(m, "channel_id", json_object_new_string(channel));
    json_object_object_add(author, "id", json_object_new_string(FD_BOT_ID));
    json_object_object_add(author, "username", json_object_new_string("bench-bot"));
    json_object_object_add(author, "discriminator", json_object_new_string("0"));
    json_object_object_add(author, "global_name", NULL);
    json_object_object_add(author, "avatar", NULL);
    json_object_object_add(author, "bot", json_object_new_boolean(1));
    json_object_object_add(m, "author", author);
    const char *text =
        in && json_object_object_get_ex(in, "content", &v) && v ? json_object_get_string(v) : "";
    json_object_object_add(m, "content", json_object_new_string(text));
    json_object_object_add(m, "timestamp",
                           json_object_new_string("2026-01-01T00:00:00.000000+00:00"));
    json_object_object_add(m, "edited_timestamp", NULL);
    json_object_object_add(m, "tts", json_object_new_boolean(0));
    json_object_object_add(m, "mention_everyone", json_object_new_boolean(0));
    json_object_object_add(m, "mentions", json_object_new_array());
    json_object_object_add(m, "mention_roles", json_object_new_array());
    json_object_object_add(m, "attachments", json_object_new_array());
    if (in && json_object_object_get_ex(in, "embeds", &v) && v)
        json_object_object_add(m, "embeds", json_object_get(v));
    else
        json_object_object_add(m, "embeds", json_object_new_array());
    if (in && json_object_object_get_ex(in, "components", &v) && v)
        json_object_object_add(m, "components", json_object_get(v));
    json_object_object_add(m, "pinned", json_object_new_boolean(0));
    json_object_object_add(m, "type", json_object_new_int(0));
    json_object_object_add(m, "flags", json_object_new_int(0));
    reply(fd, json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN));
    /* the echo, as a guild message */
    json_object_object_add(m, "guild_id", json_object_new_string(FD_GUILD_ID));
    struct json_object *member = json_object_new_object();
    json_object_object_add(member, "roles", json_object_new_array());
    json_object_object_add(m, "member", member);
    pthread_mutex_lock(&s->mu);
    if (s->gw)
        fd_dispatch(s->gw, "MESSAGE_CREATE", json_object_to_json_string_ext(m, 0));
    pthread_mutex_unlock(&s->mu);
    json_object_put(m);
    json_object_put(in);
}

static void handle(struct br_server *s, int fd, const char *method, const char *path,
                   const char *body)
{
    const char *route = strstr(path, "/v10/");
    char channel[64];
    route = route ? route + 4 : path;
    if (strcmp(method, "GET") == 0 && strncmp(route, "/gateway/bot", 12) == 0) {
        char out[256];
        pthread_mutex_lock(&s->mu);
        int port = s->gw ? fd_port(s->gw) : 0;
        pthread_mutex_unlock(&s->mu);
        snprintf(out, sizeof(out),
                 "{\"url\":\"ws://127.0.0.1:%d\",\"shards\":1,\"session_start_limit\":"
                 "{\"total\":1000,\"remaining\":999,\"reset_after\":0,\"max_concurrency\":1}}",
                 port);
        reply(fd, out);
    } else if (strcmp(method, "POST") == 0 &&
               sscanf(route, "/channels/%63[0-9]/messages", channel) == 1 &&
               strstr(route, "/messages/") == NULL) {
        post_message(s, fd, channel, body);
    } else if (strcmp(method, "POST") == 0 && strncmp(route, "/interactions/", 14) == 0 &&
               strstr(route, "/callback")) {
        pthread_mutex_lock(&s->mu);
        s->callbacks++;
        pthread_mutex_unlock(&s->mu);
        reply(fd, "{}");
    } else if (strcmp(method, "PUT") == 0 && strstr(route, "/commands")) {
        reply(fd, "[]");
    } else {
        reply(fd, "{}");
    }
}

/* Handles every whole request in c's buffer; false when the connection must close. */
static int serve(struct br_server *s, struct conn *c)
{
    for (;;) {
        c->buf[c->len] = '\0';
        char *end = strstr(c->buf, "\r\n\r\n");
        if (!end)
            return c->len < BR_BUF - 1;
        size_t head = (size_t)(end - c->buf) + 4, clen = 0;
        for (char *h = strstr(c->buf, "\r\n"); h && h < end; h = strstr(h + 2, "\r\n"))
            if (strncasecmp(h + 2, "content-length:", 15) == 0)
                clen = strtoul(h + 17, NULL, 10);
        if (head + clen > BR_BUF - 1)
            return 0;
        if (c->len < head + clen)
            return 1;
        char method[16], path[512];
        if (sscanf(c->buf, "%15s %511s", method, path) != 2)
            return 0;
        char saved = c->buf[head + clen];
        c->buf[head + clen] = '\0';
        handle(s, c->fd, method, path, c->buf + head);
        c->buf[head + clen] = saved;
        memmove(c->buf, c->buf + head + clen, c->len - head - clen);
        c->len -= head + clen;
    }
}

static void *run(void *arg)
{
    struct br_server *s = arg;
    struct pollfd pfd[BR_CONNS + 1];
    while (!s->stop) {
        pfd[0] = (struct pollfd){.fd = s->lfd, .events = POLLIN};
        for (int i = 0; i < BR_CONNS; i++)
            pfd[i + 1] = (struct pollfd){.fd = s->conns[i].fd, .events = POLLIN};
        if (poll(pfd, BR_CONNS + 1, 100) <= 0)
            continue;
        if (pfd[0].revents & POLLIN) {
            int fd = accept(s->lfd, NULL, NULL);
            int one = 1, placed = 0;
            for (int i = 0; fd >= 0 && i < BR_CONNS && !placed; i++)
                if (s->conns[i].fd < 0) {
                    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
                    s->conns[i].fd = fd;
                    s->conns[i].len = 0;
                    placed = 1;
                }
            if (fd >= 0 && !placed)
                close(fd);
        }
        for (int i = 0; i < BR_CONNS; i++) {
            struct conn *c = &s->conns[i];
            if (c->fd < 0 || !(pfd[i + 1].revents & (POLLIN | POLLHUP | POLLERR)))
                continue;
            ssize_t n = read(c->fd, c->buf + c->len, BR_BUF - 1 - c->len);
            if (n <= 0 || (c->len += (size_t)n, !serve(s, c))) {
                close(c->fd);
                c->fd = -1;
            }
        }
    }
    return NULL;
}

struct br_server *br_start(void)
{
    struct br_server *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    s->lfd = -1;
    for (int i = 0; i < BR_CONNS; i++)
        s->conns[i].fd = -1;
    s->lat = calloc(BR_LAT, sizeof(*s->lat));
    if (!s->lat)
        goto fail;
    for (int i = 0; i < BR_CONNS; i++)
        if (!(s->conns[i].buf = malloc(BR_BUF)))
            goto fail;
    pthread_mutex_init(&s->mu, NULL);
    s->next_id = 990000000000000001ul;
    s->lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t al = sizeof(a);
    int one = 1;
    setsockopt(s->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (s->lfd < 0 || bind(s->lfd, (struct sockaddr *)&a, sizeof(a)) != 0 ||
        listen(s->lfd, 512) != 0 || getsockname(s->lfd, (struct sockaddr *)&a, &al) != 0)
        goto fail;
    s->port = ntohs(a.sin_port);
    if (pthread_create(&s->thread, NULL, run, s) != 0)
        goto fail;
    return s;
fail:
    if (s->lfd >= 0)
        close(s->lfd);
    for (int i = 0; i < BR_CONNS; i++)
        free(s->conns[i].buf);
    free(s->lat);
    free(s);
    return NULL;
}

void br_stop(struct br_server *s)
{
    if (!s)
        return;
    s->stop = 1;
    pthread_join(s->thread, NULL);
    close(s->lfd);
    for (int i = 0; i < BR_CONNS; i++) {
        if (s->conns[i].fd >= 0)
            close(s->conns[i].fd);
        free(s->conns[i].buf);
    }
    pthread_mutex_destroy(&s->mu);
    free(s->lat);
    free(s->first_body);
    free(s);
}

int br_port(const struct br_server *s)
{
    return s->port;
}

void br_attach(struct br_server *s, struct fd_server *gw)
{
    pthread_mutex_lock(&s->mu);
    s->gw = gw;
    s->posts = 0;
    s->callbacks = 0;
    s->first_post = 0;
    s->nlat = 0;
    memset(s->pend, 0, sizeof(s->pend));
    pthread_mutex_unlock(&s->mu);
}

void br_expect(struct br_server *s, unsigned i, double t, int measure)
{
    pthread_mutex_lock(&s->mu);
    struct pending *p = &s->pend[i % BR_CHANNELS];
    if (p->tail - p->head < BR_PENDING) {
        unsigned k = p->tail++ % BR_PENDING;
        p->t[k] = t;
        p->measure[k] = (unsigned char)measure;
    }
    pthread_mutex_unlock(&s->mu);
}

unsigned long br_posts(struct br_server *s)
{
    pthread_mutex_lock(&s->mu);
    unsigned long n = s->posts;
    pthread_mutex_unlock(&s->mu);
    return n;
}

unsigned long br_callbacks(struct br_server *s)
{
    pthread_mutex_lock(&s->mu);
    unsigned long n = s->callbacks;
    pthread_mutex_unlock(&s->mu);
    return n;
}

double br_first_post(struct br_server *s)
{
    pthread_mutex_lock(&s->mu);
    double t = s->first_post;
    pthread_mutex_unlock(&s->mu);
    return t;
}

size_t br_take_latencies(struct br_server *s, double *out, size_t max)
{
    pthread_mutex_lock(&s->mu);
    size_t n = s->nlat < max ? s->nlat : max;
    memcpy(out, s->lat, n * sizeof(*out));
    s->nlat = 0;
    pthread_mutex_unlock(&s->mu);
    return n;
}

char *br_first_body(struct br_server *s)
{
    pthread_mutex_lock(&s->mu);
    char *b = s->first_body ? strdup(s->first_body) : NULL;
    pthread_mutex_unlock(&s->mu);
    return b;
}
