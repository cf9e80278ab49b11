/*
 * floor_bot.c - bench_vs_discordjs's third bot: the least a bot can do for
 * the benchmark's job, on plain POSIX sockets and epoll, libc alone, one
 * thread, every socket non-blocking. It keeps one gateway websocket (an
 * RFC 6455 client, handshake and frames by hand), identifies, heartbeats, and
 * answers each MESSAGE_CREATE whose content starts with "!illegal" with one
 * POST of a fixed body on kept-alive HTTP/1.1 connections (up to NCONNS,
 * opened on demand, one request at a time each, a FIFO in front). Every other
 * message is read and dropped.
 *
 * Why: on a small VM most of a command's CPU is the kernel's (loopback TCP,
 * epoll, waking the pinned bot), whatever the bot is written in. Measured by
 * the same driver on the same fake servers, this bot shows that floor, so
 * illegald's figures can be read as what it costs above what the machine
 * itself sets.
 *
 * It finds what it needs by byte searches in the raw JSON, in the field
 * order and the compact form the test server writes: the first "op" and
 * "s", "content":"!illegal, and "channel_id" and "id" first in "d". A real
 * bot needs a JSON reader and Discord's session life (resume, op 7 and 9,
 * reconnecting, rate limits, missed ACKs): none of that is here, so its
 * figures are a floor, not a bot.
 *
 * Environment (the discord.js reference bot's, plus the gateway):
 *   BENCH_GATEWAY  ws://HOST:PORT[/path]     HOST a numeric IPv4 address
 *   BENCH_API      http://HOST:PORT[/prefix]  requests go to prefix/v10/...
 *   BENCH_TOKEN    the bot's token
 *   BENCH_REPLY    the JSON body of every answer (default {"content":"status"});
 *                  the message_id of a message_reference in it becomes the
 *                  command's id, so that the answer replies to the command
 * Exits 0 on SIGTERM, 1 on any error (said on stderr).
 *
 * Built with FLOOR_LIBCURL (bench_floor_curl), the same bot hands its REST
 * requests to libcurl's multi interface on the same epoll loop instead of
 * writing HTTP/1.1 itself, with the same headers and body: what libcurl
 * alone adds to the floor, so that its share of illegald's figures is seen
 * apart from illegald's own.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>
#ifdef FLOOR_LIBCURL
#include <curl/curl.h>
#endif

#define MSG_MAX      (1024 * 1024) /* a gateway message, one frame or assembled */
#define GW_TX_CAP    4096
#define NCONNS       8
#define REQ_CAP      (64 * 1024) /* one request, head and body */
#define RESP_CAP     (16 * 1024) /* a response head; bodies pass through and are dropped */
#define BODY_MAX     (60 * 1024)
#define FIFO_CAP     16384
#define ID_MAX       20 /* digits of a snowflake */
#define TOKEN_MAX    200
#define HOST_MAX     64
#define URL_PATH_MAX 256
#define TAG_GW       NCONNS /* epoll tags: 0 .. NCONNS-1 are the REST connections */
#define TAG_TIMER    (NCONNS + 1)
#define TAG_CURL     (NCONNS + 2) /* + fd: libcurl's sockets */
#define INTENTS      33281        /* GUILDS | GUILD_MESSAGES | MESSAGE_CONTENT */
#define WS_GUID      "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

struct req {
    char channel[ID_MAX + 1];
    char msg[ID_MAX + 1]; /* the command's id, when the body replies to it */
};

enum conn_state { C_CLOSED, C_CONNECTING, C_IDLE, C_BUSY };
enum resp_state {
    R_HEAD,
    R_LENGTH,
    R_CHUNK_SIZE,
    R_CHUNK_DATA,
    R_CHUNK_END,
    R_TRAILER,
    R_UNTIL_EOF,
    R_DONE
};

struct conn {
    int fd;
    enum conn_state st;
    bool out;    /* EPOLLOUT asked for */
    bool reused; /* it answered before: see conn_eof() */
    bool close_after;
    enum resp_state rs;
    unsigned long long left; /* body bytes still to come (length or chunk) */
    struct req req;          /* the request on it, sent again after a keep-alive race */
    size_t tx_len, tx_off, rx_len;
    char tx[REQ_CAP];
    char rx[RESP_CAP];
};

#ifdef FLOOR_LIBCURL
/* A request libcurl carries: its URL and body live as long as the transfer. */
struct xfer {
    CURL *easy; /* kept from one request to the next */
    bool busy;
    char url[HOST_MAX + URL_PATH_MAX + 64];
    char body[BODY_MAX + ID_MAX];
};
#endif

enum gw_state { G_CONNECTING, G_UPGRADING, G_OPEN };

struct bot {
    int ep, timer;
    struct sockaddr_in gw_addr, api_addr;
    char gw_host[HOST_MAX], gw_path[URL_PATH_MAX], api_host[HOST_MAX], api_path[URL_PATH_MAX];
    const char *token;
    /* a request is req_start CHANNEL req_mid LENGTH "\r\n\r\n" body_pre MSG_ID body_post */
    char req_start[URL_PATH_MAX + 32], req_mid[HOST_MAX + TOKEN_MAX + 160];
    size_t start_len, mid_len, pre_len, post_len;
    const char *body_pre, *body_post;
    bool splice; /* the body replies: the command's id goes between pre and post */
    /* gateway */
    int gw;
    enum gw_state gst;
    bool gw_out;
    bool frag;       /* a fragmented message is being assembled in msg */
    char accept[32]; /* the Sec-WebSocket-Accept the server must answer */
    long long seq;   /* the last dispatch's sequence number, -1 before any */
    uint64_t rng;    /* frame masks */
    size_t rx_len, msg_len, tx_len, tx_off;
    unsigned char rx[MSG_MAX + 14], msg[MSG_MAX], tx[GW_TX_CAP]; /* 14: the longest frame head */
    /* REST */
#ifdef FLOOR_LIBCURL
    CURLM *multi;
    long long curl_due; /* when libcurl wants its timeout (monotonic ms), -1 for never */
    struct curl_slist *headers;
    struct xfer xfers[NCONNS];
#else
    struct conn conns[NCONNS];
#endif
    struct req fifo[FIFO_CAP];
    size_t head, count;
};

static volatile sig_atomic_t stopping;

static void on_term(int sig)
{
    (void)sig;
    stopping = 1;
}

static int fail_msg(const char *what)
{
    fprintf(stderr, "bench_floor_bot: %s\n", what);
    return -1;
}

static int fail_errno(const char *what)
{
    fprintf(stderr, "bench_floor_bot: %s: %s\n", what, strerror(errno));
    return -1;
}

/* ---- the handshake's hash and encoding (FIPS 180-4 SHA-1, RFC 4648 base64) ---- */

static uint32_t rol(uint32_t x, unsigned n)
{
    return x << n | x >> (32 - n);
}

static void sha1(const unsigned char *m, size_t len, unsigned char out[20])
{
    uint32_t h[5] = {0x67452301, 0xEFCDAB89, 0x98BADCFE, 0x10325476, 0xC3D2E1F0};
    size_t blocks = (len + 9 + 63) / 64; /* the message, 0x80, the 64-bit length */
    for (size_t blk = 0; blk < blocks; blk++) {
        unsigned char p[64];
        for (size_t i = 0; i < 64; i++) {
            size_t k = blk * 64 + i;
            p[i] = k < len ? m[k] : k == len ? 0x80 : 0;
        }
        if (blk == blocks - 1)
            for (unsigned i = 0; i < 8; i++)
                p[63 - i] = (unsigned char)((uint64_t)len * 8 >> (8 * i));
        uint32_t w[80];
        for (unsigned t = 0; t < 16; t++)
            w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
                   (uint32_t)p[4 * t + 2] << 8 | p[4 * t + 3];
        for (unsigned t = 16; t < 80; t++)
            w[t] = rol(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
        uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
        for (unsigned t = 0; t < 80; t++) {
            uint32_t f, k;
            if (t < 20) {
                f = (b & c) | (~b & d);
                k = 0x5A827999;
            } else if (t < 40) {
                f = b ^ c ^ d;
                k = 0x6ED9EBA1;
            } else if (t < 60) {
                f = (b & c) | (b & d) | (c & d);
                k = 0x8F1BBCDC;
            } else {
                f = b ^ c ^ d;
                k = 0xCA62C1D6;
            }
            uint32_t tmp = rol(a, 5) + f + e + k + w[t];
            e = d;
            d = c;
            c = rol(b, 30);
            b = a;
            a = tmp;
        }
        h[0] += a;
        h[1] += b;
        h[2] += c;
        h[3] += d;
        h[4] += e;
    }
    for (unsigned i = 0; i < 20; i++)
        out[i] = (unsigned char)(h[i / 4] >> (24 - 8 * (i % 4)));
}

/* out holds 4 * ((n + 2) / 3) + 1 bytes. */
static void base64(const unsigned char *in, size_t n, char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        *out++ = abc[v >> 18 & 63];
        *out++ = abc[v >> 12 & 63];
        *out++ = i + 1 < n ? abc[v >> 6 & 63] : '=';
        *out++ = i + 2 < n ? abc[v & 63] : '=';
    }
    *out = '\0';
}

/* ---- small parsers over bounded bytes (nothing read is NUL-terminated) ---- */

/* The next line of [*p, end) into [*line, *le), without its CR LF; false at the end. */
static bool next_line(const char **p, const char *end, const char **line, const char **le)
{
    if (*p >= end)
        return false;
    const char *nl = memchr(*p, '\n', (size_t)(end - *p));
    const char *stop = nl ? nl : end;
    *line = *p;
    *le = stop > *p && stop[-1] == '\r' ? stop - 1 : stop;
    *p = nl ? nl + 1 : end;
    return true;
}

/* Whether header line [p, *le) is named name; sets *v to its value and trims *le. */
static bool header_is(const char *p, const char **le, const char *name, const char **v)
{
    size_t n = strlen(name);
    if ((size_t)(*le - p) <= n || strncasecmp(p, name, n) != 0 || p[n] != ':')
        return false;
    for (p += n + 1; p < *le && (*p == ' ' || *p == '\t'); p++)
        ;
    while (*le > p && ((*le)[-1] == ' ' || (*le)[-1] == '\t'))
        (*le)--;
    *v = p;
    return true;
}

/* [p, e) as a number in base 10 or 16, at least one digit, up to max_digits; stops at
 * the first other character when stop_ok. */
static bool parse_num(const char *p, const char *e, unsigned base, unsigned max_digits,
                      bool stop_ok, unsigned long long *out)
{
    unsigned long long v = 0;
    unsigned n = 0;
    for (; p < e; p++, n++) {
        int d = *p >= '0' && *p <= '9'                 ? *p - '0'
                : base == 16 && *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
                : base == 16 && *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
                                                       : -1;
        if (d < 0) {
            if (!stop_ok)
                return false;
            break;
        }
        if (n == max_digits)
            return false;
        v = v * base + (unsigned)d;
    }
    *out = v;
    return n > 0;
}

/* The non-negative integer after the first key in [t, t + n), or -1 (absent, null). */
static long long number_after(const char *t, size_t n, const char *key)
{
    size_t kl = strlen(key);
    const char *k = memmem(t, n, key, kl), *e = t + n;
    unsigned long long v;
    if (!k)
        return -1;
    for (k += kl; k < e && (*k == ' ' || *k == '\t' || *k == '\n' || *k == '\r'); k++)
        ;
    return parse_num(k, e, 10, 18, true, &v) ? (long long)v : -1;
}

/* The snowflake (a JSON string of digits) after the first key in [t, e) into out. */
static bool id_after(const char *t, const char *e, const char *key, char out[ID_MAX + 1])
{
    size_t kl = strlen(key), n = 0;
    const char *p = memmem(t, (size_t)(e - t), key, kl);
    if (!p)
        return false;
    for (p += kl; p < e && *p >= '0' && *p <= '9' && n < ID_MAX; p++)
        out[n++] = *p;
    out[n] = '\0';
    return n > 0 && p < e && *p == '"';
}

/* ---- sockets ---- */

static int watch(struct bot *b, int op, int fd, uint32_t tag, bool out)
{
    struct epoll_event ev = {.events = EPOLLIN | (out ? EPOLLOUT : 0), .data.u32 = tag};
    return epoll_ctl(b->ep, op, fd, &ev) == 0 ? 0 : fail_errno("epoll_ctl");
}

/* Asks for EPOLLOUT only while something waits to be sent (or a connect to end). */
static int want_out(struct bot *b, int fd, uint32_t tag, bool *cur, bool want)
{
    if (*cur == want)
        return 0;
    *cur = want;
    return watch(b, EPOLL_CTL_MOD, fd, tag, want);
}

static int open_socket(struct bot *b, const struct sockaddr_in *a, uint32_t tag, int *fd)
{
    int one = 1;
    *fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (*fd < 0)
        return fail_errno("socket");
    /* one write per request or frame: nothing to gain from Nagle's wait */
    if (setsockopt(*fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) != 0)
        return fail_errno("TCP_NODELAY");
    if (connect(*fd, (const struct sockaddr *)a, sizeof(*a)) != 0 && errno != EINPROGRESS)
        return fail_errno("connect");
    return watch(b, EPOLL_CTL_ADD, *fd, tag, true);
}

static int connect_result(int fd, const char *what)
{
    int err = 0;
    socklen_t l = sizeof(err);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &l) != 0)
        return fail_errno(what);
    errno = err;
    return err ? fail_errno(what) : 0;
}

/* Sends buf[*off, len) as far as the socket takes it; the rest waits for EPOLLOUT.
 * -1 with errno set on an error. No EINTR: SIGTERM, the one caught signal, is
 * only let through in epoll_pwait. */
static int send_some(int fd, const void *buf, size_t len, size_t *off)
{
    while (*off < len) {
        ssize_t n = send(fd, (const char *)buf + *off, len - *off, MSG_NOSIGNAL);
        if (n < 0)
            return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
        *off += (size_t)n;
    }
    return 0;
}

/* ---- the gateway ---- */

static int gw_flush(struct bot *b)
{
    if (send_some(b->gw, b->tx, b->tx_len, &b->tx_off) != 0)
        return fail_errno("gateway send");
    bool pending = b->tx_off < b->tx_len;
    if (!pending)
        b->tx_len = b->tx_off = 0;
    return want_out(b, b->gw, TAG_GW, &b->gw_out, pending);
}

/* One whole client frame; clients mask every frame (RFC 6455 5.3). */
static int ws_send(struct bot *b, unsigned opcode, const void *payload, size_t len)
{
    size_t hdr = len < 126 ? 6 : 8; /* GW_TX_CAP keeps len under 64 KiB */
    if (len > GW_TX_CAP || b->tx_len + hdr + len > GW_TX_CAP)
        return fail_msg("gateway send buffer full");
    unsigned char *f = b->tx + b->tx_len;
    f[0] = (unsigned char)(0x80 | opcode);
    if (len < 126) {
        f[1] = (unsigned char)(0x80 | len);
    } else {
        f[1] = 0x80 | 126;
        f[2] = (unsigned char)(len >> 8);
        f[3] = (unsigned char)len;
    }
    /* The mask guards proxies against bytes a script chose (RFC 6455 10.3); on
     * loopback to a test server a fast generator seeded by getrandom does. */
    b->rng ^= b->rng << 13;
    b->rng ^= b->rng >> 7;
    b->rng ^= b->rng << 17;
    unsigned char *mask = f + hdr - 4;
    memcpy(mask, &b->rng, 4);
    const unsigned char *p = payload;
    for (size_t i = 0; i < len; i++)
        f[hdr + i] = p[i] ^ mask[i & 3];
    b->tx_len += hdr + len;
    return gw_flush(b);
}

static int ws_text(struct bot *b, const char *json, int n)
{
    if (n < 0 || n >= GW_TX_CAP)
        return fail_msg("gateway payload too long");
    return ws_send(b, 0x1, json, (size_t)n);
}

static int heartbeat(struct bot *b)
{
    char p[48];
    int n = b->seq >= 0 ? snprintf(p, sizeof(p), "{\"op\":1,\"d\":%lld}", b->seq)
                        : snprintf(p, sizeof(p), "{\"op\":1,\"d\":null}");
    return ws_text(b, p, n);
}

static int hello(struct bot *b, const char *t, size_t n)
{
    long long ms = number_after(t, n, "\"heartbeat_interval\":");
    if (ms <= 0)
        return fail_msg("HELLO without a heartbeat interval");
    struct itimerspec its = {.it_interval = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000}};
    its.it_value = its.it_interval;
    if (timerfd_settime(b->timer, 0, &its, NULL) != 0)
        return fail_errno("timerfd_settime");
    char p[GW_TX_CAP];
    return ws_text(b, p,
                   snprintf(p, sizeof(p),
                            "{\"op\":2,\"d\":{\"token\":\"%s\",\"intents\":%d,\"properties\":"
                            "{\"os\":\"linux\",\"browser\":\"bench_floor_bot\","
                            "\"device\":\"bench_floor_bot\"}}}",
                            b->token, INTENTS));
}

static int pump(struct bot *b);

/* A command: its answer joins the FIFO. */
static int command(struct bot *b, const char *t, size_t n)
{
    struct req r = {.msg = ""};
    const char *d = memmem(t, n, "\"d\":{", 5);
    if (!d || !id_after(d, t + n, "\"channel_id\":\"", r.channel) ||
        (b->splice && !id_after(d, t + n, "\"id\":\"", r.msg))) {
        fprintf(stderr, "bench_floor_bot: a command without its channel or id, not answered\n");
        return 0;
    }
    if (b->count == FIFO_CAP)
        return fail_msg("too many answers waiting");
    b->fifo[(b->head + b->count++) % FIFO_CAP] = r;
    return pump(b);
}

static int gw_message(struct bot *b, const char *t, size_t n)
{
    static const char cmd[] = "\"content\":\"!illegal", create[] = "\"t\":\"MESSAGE_CREATE\"";
    switch (number_after(t, n, "\"op\":")) {
    case 0: {
        long long s = number_after(t, n, "\"s\":");
        if (s >= 0)
            b->seq = s;
        /* the cheap test first: most dispatches are chat */
        if (memmem(t, n, cmd, sizeof(cmd) - 1) && memmem(t, n, create, sizeof(create) - 1))
            return command(b, t, n);
        return 0;
    }
    case 1:
        return heartbeat(b);
    case 10:
        return hello(b, t, n);
    default: /* 11 is the ACK; 7 and 9 would need a reconnect the benchmark never asks for */
        return 0;
    }
}

static int gw_frame(struct bot *b, bool fin, unsigned op, const unsigned char *p, size_t len)
{
    switch (op) {
    case 0x0: /* continuation */
        if (!b->frag)
            return fail_msg("continuation frame outside a message");
        if (b->msg_len + len > MSG_MAX)
            return fail_msg("gateway message too long");
        memcpy(b->msg + b->msg_len, p, len);
        b->msg_len += len;
        if (!fin)
            return 0;
        b->frag = false;
        return gw_message(b, (const char *)b->msg, b->msg_len);
    case 0x1: /* text: Discord's JSON */
        if (b->frag)
            return fail_msg("new message inside a fragmented one");
        if (fin)
            return gw_message(b, (const char *)p, len);
        b->frag = true;
        memcpy(b->msg, p, len);
        b->msg_len = len;
        return 0;
    case 0x8: { /* close: answered with its code, and the bot is done */
        unsigned code = len >= 2 ? (unsigned)p[0] << 8 | p[1] : 0;
        (void)ws_send(b, 0x8, p, len >= 2 ? 2 : 0); /* best effort: the bot stops anyway */
        fprintf(stderr, "bench_floor_bot: the gateway closed the session (code %u)\n", code);
        return -1;
    }
    case 0x9:
        return ws_send(b, 0xA, p, len);
    case 0xA:
        return 0;
    default: /* binary (compressed or ETF, never asked for) and reserved opcodes */
        return fail_msg("unexpected websocket opcode");
    }
}

/* Handles every whole frame in rx; a partial one waits for more. */
static int gw_frames(struct bot *b)
{
    size_t pos = 0;
    int rc = 0;
    while (rc == 0 && b->rx_len - pos >= 2) {
        const unsigned char *f = b->rx + pos;
        size_t avail = b->rx_len - pos, hdr = 2;
        unsigned long long len = f[1] & 0x7f;
        if ((f[0] & 0x70) || (f[1] & 0x80))
            return fail_msg("reserved bits or a masked frame from the server");
        if (len == 126) {
            if (avail < 4)
                break;
            len = (unsigned long long)f[2] << 8 | f[3];
            hdr = 4;
        } else if (len == 127) {
            if (avail < 10)
                break;
            len = 0;
            for (unsigned i = 0; i < 8; i++)
                len = len << 8 | f[2 + i];
            hdr = 10;
        }
        unsigned op = f[0] & 0x0f;
        if ((op & 0x8) && (len > 125 || !(f[0] & 0x80)))
            return fail_msg("bad control frame");
        if (len > MSG_MAX)
            return fail_msg("gateway frame too long");
        if (avail - hdr < len)
            break;
        rc = gw_frame(b, f[0] & 0x80, op, f + hdr, (size_t)len);
        pos += hdr + (size_t)len;
    }
    memmove(b->rx, b->rx + pos, b->rx_len - pos);
    b->rx_len -= pos;
    return rc;
}

static int gw_connected(struct bot *b)
{
    unsigned char nonce[16], digest[20];
    char key[25], both[sizeof(key) + sizeof(WS_GUID)];
    if (connect_result(b->gw, "gateway connect") != 0)
        return -1;
    if (getrandom(nonce, sizeof(nonce), 0) != sizeof(nonce) ||
        getrandom(&b->rng, sizeof(b->rng), 0) != sizeof(b->rng))
        return fail_errno("getrandom");
    b->rng |= 1; /* xorshift never leaves 0 */
    base64(nonce, sizeof(nonce), key);
    int n = snprintf(both, sizeof(both), "%s%s", key, WS_GUID);
    sha1((const unsigned char *)both, (size_t)n, digest);
    base64(digest, sizeof(digest), b->accept);
    n = snprintf((char *)b->tx, sizeof(b->tx),
                 "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                 "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
                 b->gw_path, b->gw_host, key);
    if (n < 0 || (size_t)n >= sizeof(b->tx))
        return fail_msg("gateway upgrade request too long");
    b->tx_len = (size_t)n;
    b->tx_off = 0;
    b->gst = G_UPGRADING;
    return gw_flush(b);
}

/* The answer to the upgrade; the first frames may have come with it. */
static int gw_upgraded(struct bot *b)
{
    const char *h = (const char *)b->rx, *p = h, *line, *le, *v;
    const char *end = memmem(h, b->rx_len, "\r\n\r\n", 4);
    bool accepted = false;
    if (!end)
        return b->rx_len < sizeof(b->rx) ? 0 : fail_msg("gateway upgrade answer too long");
    if (!next_line(&p, end, &line, &le) || le - line < 12 || memcmp(line, "HTTP/1.1 101", 12))
        return fail_msg("the gateway refused the websocket upgrade");
    /* the accept proves a websocket server read this key (RFC 6455 4.1) */
    while (next_line(&p, end, &line, &le))
        if (header_is(line, &le, "Sec-WebSocket-Accept", &v))
            accepted = (size_t)(le - v) == strlen(b->accept) &&
                       memcmp(v, b->accept, (size_t)(le - v)) == 0;
    if (!accepted)
        return fail_msg("wrong or missing Sec-WebSocket-Accept");
    size_t head = (size_t)(end - h) + 4;
    memmove(b->rx, b->rx + head, b->rx_len - head);
    b->rx_len -= head;
    b->gst = G_OPEN;
    return gw_frames(b);
}

static int gw_event(struct bot *b, uint32_t ev)
{
    if (b->gst == G_CONNECTING)
        return ev & (EPOLLOUT | EPOLLERR | EPOLLHUP) ? gw_connected(b) : 0;
    if ((ev & EPOLLOUT) && gw_flush(b) != 0)
        return -1;
    if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR)))
        return 0;
    /* a frame fits rx whole, so rx is never full here; one recv per wake-up,
     * the level-triggered epoll says when more waits */
    size_t room = sizeof(b->rx) - b->rx_len;
    if (room == 0)
        return fail_msg("gateway buffer full");
    ssize_t n = recv(b->gw, b->rx + b->rx_len, room, 0);
    if (n == 0)
        return fail_msg("the gateway closed the connection");
    if (n < 0)
        return errno == EAGAIN ? 0 : fail_errno("gateway recv");
    b->rx_len += (size_t)n;
    return b->gst == G_UPGRADING ? gw_upgraded(b) : gw_frames(b);
}

/* ---- REST ---- */

#ifndef FLOOR_LIBCURL

/* Whether the comma-separated list [v, e) holds word (case-insensitive). */
static bool has_token(const char *v, const char *e, const char *word)
{
    size_t n = strlen(word);
    while (v < e) {
        while (v < e && (*v == ' ' || *v == '\t' || *v == ','))
            v++;
        const char *t = v;
        while (v < e && *v != ',' && *v != ' ' && *v != '\t')
            v++;
        if ((size_t)(v - t) == n && strncasecmp(t, word, n) == 0)
            return true;
    }
    return false;
}

static void put(char *buf, size_t cap, size_t *len, const char *s, size_t n, bool *over)
{
    if (*len + n > cap) {
        *over = true;
        return;
    }
    memcpy(buf + *len, s, n);
    *len += n;
}

static void conn_close(struct conn *c)
{
    close(c->fd); /* and so out of the epoll set */
    c->fd = -1;
    c->st = C_CLOSED;
    c->out = false;
    c->rx_len = c->tx_len = c->tx_off = 0;
}

static void consume(struct conn *c, size_t n)
{
    memmove(c->rx, c->rx + n, c->rx_len - n);
    c->rx_len -= n;
}

static int conn_eof(struct bot *b, struct conn *c)
{
    if (c->st == C_BUSY && c->rs != R_UNTIL_EOF) {
        /* A kept-alive connection the server closed as the request went out
         * (nothing of the answer came): the request goes again, first. Any
         * other close loses an answer, and the benchmark would wait for it. */
        if (!c->reused || c->rs != R_HEAD || c->rx_len)
            return fail_msg("the REST server closed the connection before answering");
        if (b->count == FIFO_CAP)
            return fail_msg("too many answers waiting");
        b->head = (b->head + FIFO_CAP - 1) % FIFO_CAP;
        b->fifo[b->head] = c->req;
        b->count++;
    }
    conn_close(c);
    return pump(b);
}

/* Sends what waits on c; a connection the server reset goes the way of conn_eof(). */
static int conn_flush(struct bot *b, struct conn *c)
{
    if (send_some(c->fd, c->tx, c->tx_len, &c->tx_off) != 0)
        return errno == EPIPE || errno == ECONNRESET ? conn_eof(b, c) : fail_errno("REST send");
    return want_out(b, c->fd, (uint32_t)(c - b->conns), &c->out, c->tx_off < c->tx_len);
}

static int conn_send(struct bot *b, struct conn *c, const struct req *r)
{
    char num[24];
    size_t ml = strlen(r->msg), cl = strlen(r->channel), len = 0;
    int nl = snprintf(num, sizeof(num), "%zu", b->pre_len + ml + b->post_len);
    bool over = false;
    put(c->tx, REQ_CAP, &len, b->req_start, b->start_len, &over);
    put(c->tx, REQ_CAP, &len, r->channel, cl, &over);
    put(c->tx, REQ_CAP, &len, b->req_mid, b->mid_len, &over);
    put(c->tx, REQ_CAP, &len, num, (size_t)nl, &over);
    put(c->tx, REQ_CAP, &len, "\r\n\r\n", 4, &over);
    put(c->tx, REQ_CAP, &len, b->body_pre, b->pre_len, &over);
    put(c->tx, REQ_CAP, &len, r->msg, ml, &over);
    put(c->tx, REQ_CAP, &len, b->body_post, b->post_len, &over);
    if (over)
        return fail_msg("request longer than its buffer");
    c->req = *r;
    c->tx_len = len;
    c->tx_off = 0;
    c->st = C_BUSY;
    c->rs = R_HEAD;
    return conn_flush(b, c);
}

/* Gives waiting answers to idle connections, opening new ones while fewer are
 * on the way than answers wait. */
static int pump(struct bot *b)
{
    while (b->count > 0) {
        struct conn *idle = NULL, *closed = NULL;
        size_t connecting = 0;
        for (struct conn *c = b->conns; c < b->conns + NCONNS; c++) {
            if (c->st == C_IDLE && !idle)
                idle = c;
            else if (c->st == C_CLOSED && !closed)
                closed = c;
            else if (c->st == C_CONNECTING)
                connecting++;
        }
        if (idle) {
            struct req r = b->fifo[b->head];
            b->head = (b->head + 1) % FIFO_CAP;
            b->count--;
            if (conn_send(b, idle, &r) != 0)
                return -1;
        } else if (closed && connecting < b->count) {
            if (open_socket(b, &b->api_addr, (uint32_t)(closed - b->conns), &closed->fd) != 0)
                return -1;
            closed->st = C_CONNECTING;
            closed->out = true;
            closed->reused = false;
        } else {
            return 0;
        }
    }
    return 0;
}

/* The status line and headers: 1 when read, 0 when more must come, -1 on error. */
static int resp_head(struct conn *c)
{
    const char *p = c->rx, *line, *le, *v;
    const char *end = memmem(c->rx, c->rx_len, "\r\n\r\n", 4);
    unsigned long long len = 0, status;
    bool has_len = false, chunked = false;
    if (!end)
        return c->rx_len < RESP_CAP ? 0 : fail_msg("REST answer's head too long");
    /* HTTP/1.x NNN */
    if (!next_line(&p, end, &line, &le) || le - line < 12 || memcmp(line, "HTTP/1.", 7) != 0 ||
        line[8] != ' ' || !parse_num(line + 9, line + 12, 10, 3, false, &status))
        return fail_msg("not an HTTP/1 answer");
    bool keep = line[7] != '0'; /* HTTP/1.0 closes unless it says keep-alive */
    while (next_line(&p, end, &line, &le)) {
        if (header_is(line, &le, "Content-Length", &v)) {
            if (!parse_num(v, le, 10, 18, false, &len))
                return fail_msg("bad Content-Length");
            has_len = true;
        } else if (header_is(line, &le, "Transfer-Encoding", &v)) {
            chunked = has_token(v, le, "chunked");
        } else if (header_is(line, &le, "Connection", &v)) {
            keep = has_token(v, le, "close") ? false : keep || has_token(v, le, "keep-alive");
        }
    }
    consume(c, (size_t)(end - c->rx) + 4);
    if (status < 200) /* an interim answer: the final one follows */
        return 1;
    if (status > 299)
        fprintf(stderr, "bench_floor_bot: REST answered %llu\n", status);
    c->close_after = !keep;
    c->left = len;
    c->rs = status == 204 || status == 304 ? R_DONE
            : chunked                      ? R_CHUNK_SIZE
            : has_len                      ? R_LENGTH
                                           : R_UNTIL_EOF;
    return 1;
}

/* Reads the answer in rx as far as it goes, dropping the body: 1 when whole, 0
 * when more must come, -1 on a malformed one. */
static int resp_parse(struct conn *c)
{
    for (;;) {
        size_t take;
        const char *nl;
        switch (c->rs) {
        case R_HEAD: {
            int r = resp_head(c);
            if (r <= 0)
                return r;
            break;
        }
        case R_LENGTH:
        case R_CHUNK_DATA:
            take = c->rx_len < c->left ? c->rx_len : (size_t)c->left;
            consume(c, take);
            c->left -= take;
            if (c->left)
                return 0;
            c->rs = c->rs == R_LENGTH ? R_DONE : R_CHUNK_END;
            break;
        case R_CHUNK_END:
            if (c->rx_len < 2)
                return 0;
            if (memcmp(c->rx, "\r\n", 2) != 0)
                return fail_msg("chunk not followed by CR LF");
            consume(c, 2);
            c->rs = R_CHUNK_SIZE;
            break;
        case R_CHUNK_SIZE:
        case R_TRAILER:
            nl = memmem(c->rx, c->rx_len, "\r\n", 2);
            if (!nl)
                return c->rx_len < RESP_CAP ? 0 : fail_msg("chunk line too long");
            if (c->rs == R_TRAILER)
                c->rs = nl == c->rx ? R_DONE : R_TRAILER;
            else if (!parse_num(c->rx, nl, 16, 15, true, &c->left))
                return fail_msg("bad chunk size");
            else
                c->rs = c->left ? R_CHUNK_DATA : R_TRAILER;
            consume(c, (size_t)(nl - c->rx) + 2);
            break;
        case R_UNTIL_EOF: /* the body ends with the connection: conn_eof() */
            c->rx_len = 0;
            return 0;
        case R_DONE:
            return 1;
        }
    }
}

static int conn_event(struct bot *b, struct conn *c, uint32_t ev)
{
    uint32_t tag = (uint32_t)(c - b->conns);
    if (c->st == C_CONNECTING) {
        if (!(ev & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
            return 0;
        if (connect_result(c->fd, "REST connect") != 0)
            return -1;
        c->st = C_IDLE;
        return want_out(b, c->fd, tag, &c->out, false) != 0 ? -1 : pump(b);
    }
    if ((ev & EPOLLOUT) && c->tx_off < c->tx_len) {
        if (conn_flush(b, c) != 0)
            return -1;
        if (c->st != C_BUSY) /* reset: closed, or already opened again */
            return 0;
    }
    if (!(ev & (EPOLLIN | EPOLLHUP | EPOLLERR)))
        return 0;
    /* rx is never full here: a head that fills it fails, body bytes are dropped */
    size_t room = RESP_CAP - c->rx_len;
    if (room == 0)
        return fail_msg("REST buffer full");
    ssize_t n = recv(c->fd, c->rx + c->rx_len, room, 0);
    if (n == 0 || (n < 0 && errno == ECONNRESET))
        return conn_eof(b, c);
    if (n < 0)
        return errno == EAGAIN ? 0 : fail_errno("REST recv");
    if (c->st != C_BUSY)
        return fail_msg("the REST server sent bytes nobody asked for");
    c->rx_len += (size_t)n;
    int r = resp_parse(c);
    if (r <= 0)
        return r;
    if (c->rx_len)
        return fail_msg("the REST server sent more than its answer");
    if (c->close_after) {
        conn_close(c);
    } else {
        c->st = C_IDLE;
        c->reused = true;
    }
    return pump(b);
}

static int rest_init(struct bot *b)
{
    for (unsigned i = 0; i < NCONNS; i++)
        b->conns[i].fd = -1;
    return 0;
}

static int rest_event(struct bot *b, uint32_t tag, uint32_t ev)
{
    return conn_event(b, &b->conns[tag], ev);
}

/* The sockets' REST has no timer of its own. */
static int rest_wait_ms(const struct bot *b)
{
    (void)b;
    return -1;
}

static int rest_tick(struct bot *b)
{
    (void)b;
    return 0;
}

#else /* FLOOR_LIBCURL */

static int on_curl_socket(CURL *easy, curl_socket_t fd, int what, void *user, void *sockp)
{
    (void)easy;
    (void)sockp;
    struct bot *b = user;
    if (what == CURL_POLL_REMOVE) {
        epoll_ctl(b->ep, EPOLL_CTL_DEL, fd, NULL); /* libcurl may have closed it already */
        return 0;
    }
    struct epoll_event ev = {
        .events = (what & CURL_POLL_IN ? EPOLLIN : 0) | (what & CURL_POLL_OUT ? EPOLLOUT : 0),
        .data.u32 = TAG_CURL + (uint32_t)fd,
    };
    if (epoll_ctl(b->ep, EPOLL_CTL_MOD, fd, &ev) == 0 ||
        (errno == ENOENT && epoll_ctl(b->ep, EPOLL_CTL_ADD, fd, &ev) == 0))
        return 0;
    return fail_errno("epoll_ctl for libcurl");
}

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* libcurl's timer is kept in memory and becomes epoll's timeout, as an event
 * loop does: no system call to set it. */
static int on_curl_timer(CURLM *multi, long ms, void *user)
{
    (void)multi;
    struct bot *b = user;
    b->curl_due = ms < 0 ? -1 : now_ms() + ms;
    return 0;
}

static size_t drop_body(char *data, size_t size, size_t n, void *user)
{
    (void)data;
    (void)user;
    return size * n;
}

static int rest_init(struct bot *b)
{
    static const char *const headers[] = {"Content-Type: application/json", "Accept:"};
    char auth[TOKEN_MAX + 32];
    snprintf(auth, sizeof(auth), "Authorization: Bot %s", b->token);
    b->curl_due = -1;
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK || !(b->multi = curl_multi_init()) ||
        !(b->headers = curl_slist_append(NULL, auth)))
        return fail_msg("libcurl's set-up");
    for (size_t i = 0; i < sizeof(headers) / sizeof(*headers); i++)
        if (!curl_slist_append(b->headers, headers[i]))
            return fail_msg("libcurl's headers");
    curl_multi_setopt(b->multi, CURLMOPT_SOCKETFUNCTION, on_curl_socket);
    curl_multi_setopt(b->multi, CURLMOPT_SOCKETDATA, b);
    curl_multi_setopt(b->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer);
    curl_multi_setopt(b->multi, CURLMOPT_TIMERDATA, b);
    curl_multi_setopt(b->multi, CURLMOPT_MAX_HOST_CONNECTIONS, (long)NCONNS);
    for (struct xfer *x = b->xfers; x < b->xfers + NCONNS; x++) {
        CURL *e = x->easy = curl_easy_init();
        if (!e)
            return fail_msg("curl_easy_init");
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, b->headers);
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, drop_body);
        curl_easy_setopt(e, CURLOPT_PRIVATE, x);
        curl_easy_setopt(e, CURLOPT_TCP_NODELAY, 1L);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L); /* no SIGPIPE handler set around each call */
    }
    return 0;
}

/* Hands waiting answers to free transfers. */
static int pump(struct bot *b)
{
    for (struct xfer *x = b->xfers; b->count > 0 && x < b->xfers + NCONNS; x++) {
        if (x->busy)
            continue;
        const struct req *r = &b->fifo[b->head];
        int ul = snprintf(x->url, sizeof(x->url), "http://%s%s/v10/channels/%s/messages",
                          b->api_host, b->api_path, r->channel);
        int bl = snprintf(x->body, sizeof(x->body), "%.*s%s%s", (int)b->pre_len, b->body_pre,
                          r->msg, b->body_post);
        if (ul < 0 || (size_t)ul >= sizeof(x->url) || bl < 0 || (size_t)bl >= sizeof(x->body))
            return fail_msg("request longer than its buffer");
        b->head = (b->head + 1) % FIFO_CAP;
        b->count--;
        curl_easy_setopt(x->easy, CURLOPT_URL, x->url);
        curl_easy_setopt(x->easy, CURLOPT_POSTFIELDSIZE, (long)bl);
        curl_easy_setopt(x->easy, CURLOPT_POSTFIELDS, x->body);
        if (curl_multi_add_handle(b->multi, x->easy) != CURLM_OK)
            return fail_msg("curl_multi_add_handle");
        x->busy = true;
    }
    return 0;
}

/* Frees the transfers libcurl has ended and gives their turn to the next answers. */
static int transfers_done(struct bot *b)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(b->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        struct xfer *x = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&x);
        if (m->data.result != CURLE_OK)
            return fail_msg(curl_easy_strerror(m->data.result));
        curl_multi_remove_handle(b->multi, m->easy_handle);
        x->busy = false;
    }
    return pump(b);
}

static int rest_event(struct bot *b, uint32_t tag, uint32_t ev)
{
    int running;
    int bits = (ev & EPOLLIN ? CURL_CSELECT_IN : 0) | (ev & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
               (ev & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
    curl_socket_t fd = (curl_socket_t)(tag - TAG_CURL);
    if (curl_multi_socket_action(b->multi, fd, bits, &running) != CURLM_OK)
        return fail_msg("curl_multi_socket_action");
    return transfers_done(b);
}

/* epoll's timeout: until libcurl's timer, or none. */
static int rest_wait_ms(const struct bot *b)
{
    if (b->curl_due < 0)
        return -1;
    long long left = b->curl_due - now_ms();
    return left <= 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

/* libcurl's timeout, when it is due. */
static int rest_tick(struct bot *b)
{
    int running;
    if (b->curl_due < 0 || now_ms() < b->curl_due)
        return 0;
    b->curl_due = -1;
    if (curl_multi_socket_action(b->multi, CURL_SOCKET_TIMEOUT, 0, &running) != CURLM_OK)
        return fail_msg("curl_multi_socket_action");
    return transfers_done(b);
}

#endif /* FLOOR_LIBCURL */

/* ---- set-up ---- */

static int bad_url(const char *url, const char *why)
{
    fprintf(stderr, "bench_floor_bot: %s: %s\n", url, why);
    return -1;
}

/* scheme://A.B.C.D[:PORT][/path]: the address, "host:port" for Host, the path. */
static int parse_url(const char *url, const char *scheme, struct sockaddr_in *a, char *host,
                     char *path)
{
    size_t sl = strlen(scheme);
    if (strncmp(url, scheme, sl) != 0)
        return bad_url(url, "not the expected scheme");
    const char *h = url + sl, *e = h + strcspn(h, "/?"), *colon = memchr(h, ':', (size_t)(e - h));
    char ip[16];
    unsigned long long port = 80;
    size_t il = (size_t)((colon ? colon : e) - h);
    if (il == 0 || il >= sizeof(ip) || (size_t)(e - h) >= HOST_MAX ||
        (colon && (!parse_num(colon + 1, e, 10, 5, false, &port) || port == 0 || port > 65535)))
        return bad_url(url, "bad host or port");
    memcpy(ip, h, il);
    ip[il] = '\0';
    memcpy(host, h, (size_t)(e - h));
    host[e - h] = '\0';
    *a = (struct sockaddr_in){.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    /* numeric only: a name lookup would load NSS modules the floor has no use for */
    if (inet_pton(AF_INET, ip, &a->sin_addr) != 1)
        return bad_url(url, "the host must be an IPv4 address");
    int n = snprintf(path, URL_PATH_MAX, "%s%s", *e == '/' ? "" : "/", e);
    if (n < 0 || n >= URL_PATH_MAX)
        return bad_url(url, "path too long");
    return 0;
}

static int configure(struct bot *b)
{
    const char *gw = getenv("BENCH_GATEWAY"), *api = getenv("BENCH_API");
    const char *reply = getenv("BENCH_REPLY");
    b->token = getenv("BENCH_TOKEN");
    if (!gw || !api || !b->token)
        return fail_msg("BENCH_GATEWAY, BENCH_API and BENCH_TOKEN are needed");
    if (!reply)
        reply = "{\"content\":\"status\"}";
    /* the token goes as is into JSON and a header */
    size_t tl = strlen(b->token);
    bool plain = tl > 0 && tl <= TOKEN_MAX;
    for (size_t i = 0; plain && i < tl; i++)
        plain =
            b->token[i] > ' ' && b->token[i] <= '~' && b->token[i] != '"' && b->token[i] != '\\';
    if (!plain)
        return fail_msg("BENCH_TOKEN: up to 200 printable characters, no quote or backslash");
    if (strlen(reply) > BODY_MAX)
        return fail_msg("BENCH_REPLY too long");
    if (parse_url(gw, "ws://", &b->gw_addr, b->gw_host, b->gw_path) != 0 ||
        parse_url(api, "http://", &b->api_addr, b->api_host, b->api_path) != 0)
        return -1;
    size_t gl = strlen(b->gw_path), al = strlen(b->api_path);
    if (!strchr(b->gw_path, '?')) {
        int n = snprintf(b->gw_path + gl, URL_PATH_MAX - gl, "?v=10&encoding=json");
        if (n < 0 || (size_t)n >= URL_PATH_MAX - gl)
            return fail_msg("BENCH_GATEWAY: path too long");
    }
    if (b->api_path[al - 1] == '/')
        b->api_path[al - 1] = '\0';
    /* as discord.js does: BENCH_API names the API's root, the version follows */
    int n = snprintf(b->req_start, sizeof(b->req_start), "POST %s/v10/channels/", b->api_path);
    int m = snprintf(b->req_mid, sizeof(b->req_mid),
                     "/messages HTTP/1.1\r\nHost: %s\r\nAuthorization: Bot %s\r\n"
                     "Content-Type: application/json\r\nContent-Length: ",
                     b->api_host, b->token);
    if (n < 0 || (size_t)n >= sizeof(b->req_start) || m < 0 || (size_t)m >= sizeof(b->req_mid))
        return fail_msg("request head too long");
    b->start_len = (size_t)n;
    b->mid_len = (size_t)m;
    /* a message_reference's message_id: the command's id goes in its place */
    const char *ref = strstr(reply, "\"message_reference\":{"), *id = NULL;
    if (ref) {
        const char *close = strchr(ref, '}');
        id = strstr(ref, "\"message_id\":\"");
        if (id && close && id > close)
            id = NULL;
    }
    b->splice = id != NULL;
    b->body_pre = reply;
    b->pre_len = id ? (size_t)(id - reply) + 14 : strlen(reply);
    b->body_post = id ? reply + b->pre_len + strspn(reply + b->pre_len, "0123456789") : "";
    b->post_len = strlen(b->body_post);
    return 0;
}

int main(void)
{
    static struct bot b;
    int rc = 1;
    sigset_t term, wait_mask;
    struct sigaction sa = {.sa_handler = on_term};
    /* SIGTERM only while waiting, so no system call elsewhere is interrupted */
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    if (sigprocmask(SIG_BLOCK, &term, &wait_mask) != 0 || sigaction(SIGTERM, &sa, NULL) != 0) {
        fail_errno("signals");
        goto fail;
    }
    sigdelset(&wait_mask, SIGTERM);
    b.seq = -1;
    if (configure(&b) != 0)
        goto fail;
    b.ep = epoll_create1(EPOLL_CLOEXEC);
    b.timer = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (b.ep < 0 || b.timer < 0) {
        fail_errno("epoll or timerfd");
        goto fail;
    }
    if (rest_init(&b) != 0)
        goto fail;
    b.gst = G_CONNECTING;
    b.gw_out = true;
    if (watch(&b, EPOLL_CTL_ADD, b.timer, TAG_TIMER, false) != 0 ||
        open_socket(&b, &b.gw_addr, TAG_GW, &b.gw) != 0)
        goto fail;
    while (!stopping) {
        struct epoll_event ev[16];
        int n = epoll_pwait(b.ep, ev, 16, rest_wait_ms(&b), &wait_mask);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            fail_errno("epoll_pwait");
            goto fail;
        }
        for (int i = 0; i < n; i++) {
            uint32_t tag = ev[i].data.u32;
            uint64_t ticks;
            int r;
            if (tag == TAG_GW)
                r = gw_event(&b, ev[i].events);
            else if (tag == TAG_TIMER)
                r = read(b.timer, &ticks, sizeof(ticks)) == sizeof(ticks) ? heartbeat(&b) : 0;
            else
                r = rest_event(&b, tag, ev[i].events);
            if (r != 0)
                goto fail;
        }
        if (rest_tick(&b) != 0)
            goto fail;
    }
    /* a clean goodbye, best effort; the kernel closes the sockets */
    if (b.gst == G_OPEN)
        (void)ws_send(&b, 0x8, "\x03\xe8", 2); /* 1000, normal closure */
    rc = 0;
fail:
    return rc;
}
