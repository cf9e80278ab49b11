/*
 * gateway.c - Discord gateway shards on libwebsockets with a foreign libuv loop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>

#include <json-c/json.h>
#include <libwebsockets.h>
#include <uv.h>

#include "bot/log.h"
#include "bot/util/buf.h"
#include "bot/util/clock.h"
#include "core/json.h"
#include "gateway.h"
#include "inflate.h"
#include "skim.h"
#include "skim_ix.h"
#include "util.h"

#define MOD "discord"

enum op {
    OP_DISPATCH = 0,
    OP_HEARTBEAT = 1,
    OP_IDENTIFY = 2,
    OP_RESUME = 6,
    OP_RECONNECT = 7,
    OP_INVALID_SESSION = 9,
    OP_HELLO = 10,
    OP_HEARTBEAT_ACK = 11,
};

#define CLOSE_RESUMABLE          4000 /* our close code when we mean to resume: never 1000/1001 */
#define CLOSE_DISALLOWED_INTENTS 4014 /* a privileged intent the app may not use */
/*
 * A close frame (RFC 6455 opcode 8) with our code. lws 4.1 as a client sends
 * no close frame for lws_close_reason() followed by returning -1 from the
 * writeable callback (the socket is just closed, so the peer sees no code);
 * lws_write() with lws's own value for a close frame (4, between
 * LWS_WRITE_HTTP and LWS_WRITE_PING in its ABI-stable enum) sends it masked.
 */
#define WS_WRITE_CLOSE      ((enum lws_write_protocol)4)
#define BACKOFF_BASE_MS     500u
#define BACKOFF_CAP_MS      60000u
#define IDENTIFY_GAP_MS     5000u
#define GW_SESSION_TEXT_MAX 1024 /* a stored session; Discord's resume URLs are short */
#define GW_LWS_FDS          8    /* lws's own pipe, beyond each shard's old and new socket */
/* An inflated message's buffer is kept for the next up to this size (chat is
 * a few KB); a larger one (a big guild's GUILD_CREATE) is given back. */
#define GW_RX_KEPT 16384

struct sendbuf {
    TAILQ_ENTRY(sendbuf) link;
    size_t len;
    bool heartbeat;
    unsigned char data[]; /* LWS_PRE bytes, then the payload */
};

struct shard {
    struct gw *gw;
    int id;
    struct lws *wsi;
    uv_timer_t hb_timer;    /* heartbeats */
    uv_timer_t retry_timer; /* reconnects and delayed identify */
    uv_timer_t send_timer;  /* waits for room in the send window */
    uint64_t hb_interval;
    bool acked, hello, ready, stopped;
    int peer_close;     /* close code the server sent, 0 if none */
    int want_close;     /* close code we are about to send, 0 if none */
    int64_t delay_next; /* -1: backoff; otherwise the delay before reconnecting */
    unsigned failures;
    char *session_id, *resume_url;
    char *session_head; /* the stored session's text up to its sequence: see session_set */
    size_t session_head_len;
    char state_key[32]; /* where the session is stored: "discord.gateway.<id>" */
    int64_t seq, handled_seq;
    bool following;              /* the host follows the stored session (save_session) */
    uint64_t seq_moves;          /* its version: a count of the sequences taken */
    unsigned identified_intents; /* the intents of its last IDENTIFY */
    TAILQ_HEAD(, sendbuf) sendq; /* heartbeats first, then in the order sent */
    uint64_t sends[GW_SEND_LIMIT];
    unsigned send_pos;
    struct buf rx; /* the message being received, at most GW_MAX_RECV bytes */
    bool rx_overflow;
    struct gw_zstream zs; /* the connection's compressed stream, when the gateway compresses */
    bool identify_pending;
    struct gw_shard_stats st;
};

struct gw {
    uv_loop_t *loop;
    void *foreign[1];
    struct lws_context *ctx;
    const char *token, *user_agent;
    unsigned intents, optional; /* asked for; dropped rather than fatal when refused */
    struct gw_ops ops;
    void *ud;
    bool tls;      /* the context set TLS up: the gateway URL is wss:// */
    bool compress; /* ask for transport compression (gw_start) */
    char *url;
    int planned_shards; /* gw_new's count, which sizes lws's tables; gw_start makes them */
    int nshards;        /* the shards in shards[]: 0 until gw_start succeeds */
    struct shard *shards;
    int max_concurrency;
    uint64_t *last_identify; /* per rate-limit key */
    uint64_t identify_not_before;
    bool closing, destroying;
    unsigned finalize_ticks;
    uv_timer_t close_timer;
    int open_handles;
};

static void connect_shard(struct shard *s);
static void shard_closed(struct shard *s);
static void clear_sendq(struct shard *s);
static void request_close(struct shard *s, int code, int64_t reconnect_delay);

static void on_close_timer(uv_timer_t *t)
{
    gw_close(t->data);
}

/*
 * Sets the session to resume (id NULL: none). Its stored text but for the
 * sequence is built here once, since the sequence changes with every event
 * and save_session runs that often. Returns 0, or -1 with no session when
 * out of memory or when the text would not fit GW_SESSION_TEXT_MAX: the
 * shard then identifies afresh next time instead of resuming.
 */
static int session_set(struct shard *s, const char *id, const char *url)
{
    static const char seq_key[] = ",\"seq\":";
    free(s->session_id);
    free(s->resume_url);
    free(s->session_head);
    s->session_id = s->resume_url = s->session_head = NULL;
    if (!id)
        return 0;
    struct json_object *o = json_object_new_object();
    if (o) {
        json_object_object_add(o, "session_id", json_object_new_string(id));
        if (url)
            json_object_object_add(o, "resume_url", json_object_new_string(url));
    }
    size_t n = 0;
    const char *text = o ? json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &n) : NULL;
    /* the text ends in '}', where the sequence goes; room is left for it */
    if (text && n > 1 && n + sizeof(seq_key) + 24 <= GW_SESSION_TEXT_MAX &&
        (s->session_head = malloc(n - 1 + sizeof(seq_key)))) {
        memcpy(s->session_head, text, n - 1);
        memcpy(s->session_head + n - 1, seq_key, sizeof(seq_key));
        s->session_head_len = n - 1 + sizeof(seq_key) - 1;
    }
    json_object_put(o);
    s->session_id = strdup(id);
    s->resume_url = url ? strdup(url) : NULL;
    if (!s->session_head || !s->session_id || (url && !s->resume_url)) {
        log_warn(MOD, NULL, "shard %d: cannot keep the session to resume; identifying next time",
                 s->id);
        session_set(s, NULL, NULL);
        return -1;
    }
    return 0;
}

static void maybe_free(struct gw *g)
{
    if (!g->closing || g->open_handles > 0)
        return;
    for (int i = 0; i < g->nshards; i++) {
        struct shard *s = &g->shards[i];
        clear_sendq(s);
        session_set(s, NULL, NULL);
        buf_free(&s->rx);
        gw_zstream_reset(&s->zs);
    }
    free(g->shards);
    free(g->last_identify);
    free(g->url);
    free(g);
}

static void handle_closed(uv_handle_t *h)
{
    struct gw *g = h->data;
    g->open_handles--;
    maybe_free(g);
}

static void shard_handle_closed(uv_handle_t *h)
{
    struct shard *s = h->data;
    struct gw *g = s->gw;
    g->open_handles--;
    maybe_free(g);
}

/*
 * The stored session's text with the sequence as it stands, into out (cap
 * bytes). False when there is no session, or no room (session_set leaves
 * room in GW_SESSION_TEXT_MAX). The host calls it as it commits when it
 * follows the session (save_session).
 */
static bool session_text(void *arg, char *out, size_t cap)
{
    struct shard *s = arg;
    char digits[20];
    size_t n = s->session_head_len, ndigits = 0;
    if (!s->session_head || n + sizeof(digits) + 2 > cap)
        return false;
    /* by hand: snprintf was most of its cost when it ran for every event */
    uint64_t seq = s->seq > 0 ? (uint64_t)s->seq : 0;
    do {
        digits[ndigits++] = (char)('0' + seq % 10);
        seq /= 10;
    } while (seq);
    memcpy(out, s->session_head, n);
    while (ndigits)
        out[n++] = digits[--ndigits];
    out[n++] = '}';
    out[n] = '\0';
    return true;
}

/*
 * Stores what a resume needs. A new or forgotten session is written at once;
 * the sequence that moves with every event is deferred (lazy): a crash then
 * resumes from an older sequence and Discord replays the events after it.
 * That is safe because the stored sequence is written with every commit of
 * the bot, and it is taken before the event is handled: an event whose change
 * reached the disk is never replayed, and one that did not is handled anew.
 * Where the host follows the session (gw_ops.state_follow), a lazy save only
 * moves seq_moves, and the host reads session_text() as it commits: the
 * sequence it stores is then the one taken last before that commit, the same
 * as a value handed over at every event would be, for no work per event.
 */
static void save_session(struct shard *s, bool lazy)
{
    struct gw *g = s->gw;
    char text[GW_SESSION_TEXT_MAX];
    if (lazy && s->following)
        s->seq_moves++;
    else if (!session_text(s, text, sizeof(text)))
        g->ops.state_set(g->ud, s->state_key, "");
    else if (lazy)
        g->ops.state_defer(g->ud, s->state_key, text);
    else
        g->ops.state_set(g->ud, s->state_key, text);
}

/* Asks the host to follow the session (on) or to stop (off), before the shard goes. */
static void follow_session(struct shard *s, bool on)
{
    struct gw *g = s->gw;
    if (on && g->ops.state_follow)
        s->following =
            g->ops.state_follow(g->ud, s->state_key, &s->seq_moves, session_text, s) == 0;
    else if (!on && s->following) {
        g->ops.state_follow(g->ud, s->state_key, NULL, NULL, NULL);
        s->following = false;
    }
}

static void load_session(struct shard *s)
{
    struct gw *g = s->gw;
    char *v = g->ops.state_get(g->ud, s->state_key);
    if (!v)
        return;
    struct json_object *o = json_tokener_parse(v);
    free(v);
    const char *id = jget_str(o, "session_id"), *url = jget_str(o, "resume_url");
    int64_t seq;
    if (id && jget_int64(o, "seq", &seq) == 0 && seq >= 0 && session_set(s, id, url) == 0) {
        s->seq = s->handled_seq = seq;
        log_info(MOD, NULL, "shard %d: resuming stored session at sequence %lld", s->id,
                 (long long)s->seq);
    }
    json_object_put(o);
}

static void forget_session(struct shard *s)
{
    session_set(s, NULL, NULL);
    s->seq = s->handled_seq = 0;
    save_session(s, false);
}

/* Queues one payload; heartbeats go first. Returns 0, or -1 when it is too
 * large or there is no memory (logged): the caller reconnects to try again. */
static MUST_USE int shard_send(struct shard *s, struct json_object *o, bool heartbeat)
{
    const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    size_t n = strlen(txt);
    if (n >= GW_MAX_SEND) {
        log_error(MOD, NULL, "shard %d: refusing to send a %zu-byte gateway payload", s->id, n);
        return -1;
    }
    struct sendbuf *b = malloc(sizeof(*b) + LWS_PRE + n);
    if (!b) {
        log_error(MOD, NULL, "shard %d: no memory for a gateway payload", s->id);
        return -1;
    }
    b->len = n;
    b->heartbeat = heartbeat;
    memcpy(b->data + LWS_PRE, txt, n);
    if (heartbeat)
        TAILQ_INSERT_HEAD(&s->sendq, b, link);
    else
        TAILQ_INSERT_TAIL(&s->sendq, b, link);
    if (s->wsi)
        lws_callback_on_writable(s->wsi);
    return 0;
}

static void clear_sendq(struct shard *s)
{
    struct sendbuf *b;
    while ((b = TAILQ_FIRST(&s->sendq))) {
        TAILQ_REMOVE(&s->sendq, b, link);
        free(b);
    }
    memset(s->sends, 0, sizeof(s->sends));
    s->send_pos = 0;
}

static void send_heartbeat(struct shard *s)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "op", json_object_new_int(OP_HEARTBEAT));
    json_object_object_add(o, "d", s->seq ? json_object_new_int64(s->seq) : NULL);
    int rc = shard_send(s, o, true);
    json_object_put(o);
    if (rc < 0) {
        /* a heartbeat that cannot go would make the session a zombie: start again */
        request_close(s, CLOSE_RESUMABLE, -1);
        return;
    }
    s->st.heartbeats++;
}

/* Asks lws to close the connection with code (never 1000/1001 when we resume). */
static void request_close(struct shard *s, int code, int64_t reconnect_delay)
{
    s->delay_next = reconnect_delay;
    uv_timer_stop(&s->hb_timer);
    if (!s->wsi)
        return;
    s->want_close = code;
    lws_callback_on_writable(s->wsi);
}

static void on_heartbeat(uv_timer_t *t)
{
    struct shard *s = t->data;
    if (!s->wsi)
        return;
    if (!s->acked) {
        s->st.zombies++;
        log_warn(MOD, NULL,
                 "shard %d: no heartbeat ACK since the last beat; reconnecting to resume", s->id);
        request_close(s, CLOSE_RESUMABLE, 0);
        return;
    }
    s->acked = false;
    send_heartbeat(s);
}

static void send_identify(struct shard *s);

static void on_identify_timer(uv_timer_t *t)
{
    send_identify(t->data);
}

static void send_identify(struct shard *s)
{
    struct gw *g = s->gw;
    uint64_t now = clock_mono_ms();
    int key = s->id % g->max_concurrency;
    uint64_t at = g->identify_not_before;
    if (g->last_identify[key] && g->last_identify[key] + IDENTIFY_GAP_MS > at)
        at = g->last_identify[key] + IDENTIFY_GAP_MS;
    if (at > now) {
        s->identify_pending = true;
        uv_timer_start(&s->retry_timer, on_identify_timer, at - now, 0);
        return;
    }
    s->identify_pending = false;
    if (!s->wsi)
        return;
    g->last_identify[key] = now;
    struct json_object *o = json_object_new_object(), *d = json_object_new_object();
    struct json_object *props = json_object_new_object(), *shard = json_object_new_array();
    json_object_object_add(props, "os", json_object_new_string("linux"));
    json_object_object_add(props, "browser", json_object_new_string("illegald"));
    json_object_object_add(props, "device", json_object_new_string("illegald"));
    json_object_array_add(shard, json_object_new_int(s->id));
    json_object_array_add(shard, json_object_new_int(g->nshards));
    json_object_object_add(d, "token", json_object_new_string(g->token));
    json_object_object_add(d, "intents", json_object_new_int64(g->intents));
    s->identified_intents = g->intents;
    json_object_object_add(d, "properties", props);
    json_object_object_add(d, "shard", shard);
    json_object_object_add(o, "op", json_object_new_int(OP_IDENTIFY));
    json_object_object_add(o, "d", d);
    int rc = shard_send(s, o, false);
    json_object_put(o);
    if (rc < 0) {
        request_close(s, CLOSE_RESUMABLE, -1);
        return;
    }
    s->st.identifies++;
    log_info(MOD, NULL, "shard %d/%d: identifying", s->id, g->nshards);
}

static void send_resume(struct shard *s)
{
    struct json_object *o = json_object_new_object(), *d = json_object_new_object();
    json_object_object_add(d, "token", json_object_new_string(s->gw->token));
    json_object_object_add(d, "session_id", json_object_new_string(s->session_id));
    json_object_object_add(d, "seq", json_object_new_int64(s->seq));
    json_object_object_add(o, "op", json_object_new_int(OP_RESUME));
    json_object_object_add(o, "d", d);
    int rc = shard_send(s, o, false);
    json_object_put(o);
    if (rc < 0) {
        request_close(s, CLOSE_RESUMABLE, -1);
        return;
    }
    s->st.resumes++;
    log_info(MOD, NULL, "shard %d: resuming session at sequence %lld", s->id, (long long)s->seq);
}

/* Takes a dispatch's sequence number before the dispatch is handled. Returns
 * false when it was handled already (a replay after a resume); READY never is. */
static bool take_sequence(struct shard *s, int64_t seq, bool ready)
{
    if (seq > s->seq)
        s->seq = seq;
    if (seq && seq <= s->handled_seq && !ready)
        return false;
    if (seq)
        s->handled_seq = seq;
    s->st.seq = s->handled_seq;
    if (s->session_id && seq)
        save_session(s, true); /* before the event: a commit it causes carries it */
    return true;
}

static void handle_dispatch(struct shard *s, const char *t, struct json_object *d, int64_t seq)
{
    struct gw *g = s->gw;
    if (seq > s->seq)
        s->seq = seq; /* READY stores it at once, below */
    if (t && strcmp(t, "READY") == 0) {
        const char *sid = jget_str(d, "session_id"), *url = jget_str(d, "resume_gateway_url");
        session_set(s, sid, url);
        s->ready = s->st.ready = true;
        s->failures = 0;
        s->handled_seq = seq;
        log_info(MOD, NULL, "shard %d: ready", s->id);
        save_session(s, false);
    } else if (t && strcmp(t, "RESUMED") == 0) {
        s->ready = s->st.ready = true;
        s->failures = 0;
        log_info(MOD, NULL, "shard %d: resumed", s->id);
    }
    if (!take_sequence(s, seq, t && strcmp(t, "READY") == 0))
        return; /* replayed: handled already */
    if (!g->closing && t)
        g->ops.dispatch(g->ud, s->id, t, d, seq);
}

struct json_object *gw_decode(const char *txt, size_t len, struct gw_payload *p)
{
    memset(p, 0, sizeof(*p));
    if (len > GW_MAX_RECV)
        return NULL;
    struct json_tokener *tok = json_tokener_new();
    struct json_object *o = tok ? json_tokener_parse_ex(tok, txt, (int)len) : NULL;
    /* one JSON value and nothing after it but whitespace */
    if (o && tok && json_tokener_get_parse_end(tok) < len) {
        for (size_t i = json_tokener_get_parse_end(tok); i < len; i++)
            if (txt[i] != ' ' && txt[i] != '\n' && txt[i] != '\r' && txt[i] != '\t') {
                json_object_put(o);
                o = NULL;
                break;
            }
    }
    json_tokener_free(tok);
    int64_t op;
    if (jget_int64(o, "op", &op) < 0 || op < 0 || op > 255) {
        json_object_put(o);
        return NULL;
    }
    p->op = (int)op;
    p->d = jget(o, "d");
    p->type = jget_str(o, "t");
    p->seq = jget_int64_or(o, "s", 0);
    if (p->seq < 0)
        p->seq = 0;
    return o;
}

/* The payloads the skimmer reads without a parse: handled here (true), or
 * false for handle_message() to parse. Without ops.message, a message the
 * skimmer would read is parsed. */
static bool handle_skimmed(struct shard *s, const char *txt, size_t len)
{
    int64_t seq;
    struct gw_message message;
    struct gw_interaction ix;
    switch (gw_skim(txt, len, &seq, s->gw->ops.message ? &message : NULL)) {
    case GW_SKIM_IGNORE:
        s->st.skimmed++;
        take_sequence(s, seq, false);
        return true;
    case GW_SKIM_MESSAGE:
        /* handle_dispatch()'s way for a MESSAGE_CREATE, with no parse */
        if (take_sequence(s, seq, false) && !s->gw->closing)
            s->gw->ops.message(s->gw->ud, s->id, &message, seq);
        return true;
    case GW_SKIM_PARSE:
        if (s->gw->ops.interaction && gw_skim_ix(txt, len, &seq, &ix)) {
            if (take_sequence(s, seq, false) && !s->gw->closing)
                s->gw->ops.interaction(s->gw->ud, s->id, &ix, seq);
            return true;
        }
        break;
    }
    return false;
}

/* HELLO: the heartbeat starts (its first beat at a random point of the
 * interval), then the session resumes or a new one identifies. */
static void on_hello(struct shard *s, struct json_object *d)
{
    int64_t iv = jget_int64_or(d, "heartbeat_interval", 0);
    if (iv <= 0 || iv > 3600000) {
        log_warn(MOD, NULL, "shard %d: HELLO without a heartbeat interval", s->id);
        request_close(s, CLOSE_RESUMABLE, -1);
        return;
    }
    s->hb_interval = (uint64_t)iv;
    s->hello = true;
    s->acked = true;
    uint64_t first = (uint64_t)((double)s->hb_interval * dc_random());
    uv_timer_start(&s->hb_timer, on_heartbeat, first, s->hb_interval);
    if (s->session_id)
        send_resume(s);
    else
        send_identify(s);
}

/* INVALID_SESSION: d says whether the session may be resumed; if not, it is
 * forgotten and a new one identifies after 1 to 5 s. */
static void on_invalid_session(struct shard *s, struct json_object *d)
{
    bool resumable = d && json_object_is_type(d, json_type_boolean) && json_object_get_boolean(d);
    log_info(MOD, NULL, "shard %d: invalid session (%s)", s->id,
             resumable ? "resumable" : "not resumable");
    if (resumable && s->session_id) {
        request_close(s, CLOSE_RESUMABLE, 0);
    } else {
        forget_session(s);
        request_close(s, CLOSE_RESUMABLE, 1000 + (int64_t)(dc_random() * 4000.0));
    }
}

static void handle_message(struct shard *s, const char *txt, size_t len)
{
    if (handle_skimmed(s, txt, len))
        return;
    struct gw_payload p;
    struct json_object *o = gw_decode(txt, len, &p);
    if (!o) {
        log_warn(MOD, NULL, "shard %d: ignoring a malformed gateway payload (%zu bytes)", s->id,
                 len);
        return;
    }
    switch (p.op) {
    case OP_HELLO:
        on_hello(s, p.d);
        break;
    case OP_HEARTBEAT:
        send_heartbeat(s);
        break;
    case OP_HEARTBEAT_ACK:
        s->acked = true;
        break;
    case OP_RECONNECT:
        log_info(MOD, NULL, "shard %d: the gateway asked for a reconnect", s->id);
        request_close(s, CLOSE_RESUMABLE, 0);
        break;
    case OP_INVALID_SESSION:
        on_invalid_session(s, p.d);
        break;
    case OP_DISPATCH:
        handle_dispatch(s, p.type, p.d, p.seq);
        break;
    default:
        break;
    }
    json_object_put(o);
}

static void on_send_window(uv_timer_t *t)
{
    struct shard *s = t->data;
    if (s->wsi)
        lws_callback_on_writable(s->wsi);
}

static void write_next(struct shard *s)
{
    if (s->want_close) {
        unsigned char frame[LWS_PRE + 2];
        frame[LWS_PRE] = (unsigned char)(s->want_close >> 8);
        frame[LWS_PRE + 1] = (unsigned char)(s->want_close & 0xff);
        /* for a close frame lws returns the bytes of the whole frame (8 as a
         * client: header, mask, code), not the 2 of the code: only < 0 fails */
        if (lws_write(s->wsi, frame + LWS_PRE, 2, WS_WRITE_CLOSE) < 0)
            log_warn(MOD, NULL, "shard %d: could not send the close frame", s->id);
        return;
    }
    struct sendbuf *b = TAILQ_FIRST(&s->sendq);
    if (!b)
        return;
    uint64_t now = clock_mono_ms();
    uint64_t oldest = s->sends[s->send_pos];
    if (oldest && oldest + GW_SEND_WINDOW_MS > now) {
        /* 120 sends in the last 60 s: wait for the window */
        uv_timer_start(&s->send_timer, on_send_window, oldest + GW_SEND_WINDOW_MS - now, 0);
        return;
    }
    TAILQ_REMOVE(&s->sendq, b, link);
    s->sends[s->send_pos] = now;
    s->send_pos = (s->send_pos + 1) % GW_SEND_LIMIT;
    lws_write(s->wsi, b->data + LWS_PRE, b->len, LWS_WRITE_TEXT);
    free(b);
    if (!TAILQ_EMPTY(&s->sendq))
        lws_callback_on_writable(s->wsi);
}

static const char *fatal_reason(int code)
{
    switch (code) {
    case 4004:
        return "authentication failed: the bot token is wrong or was reset; set [discord] token";
    case 4010:
        return "invalid shard: check [discord] shards";
    case 4011:
        return "sharding required: the bot is in too many guilds for one shard; set [discord] "
               "shards or leave it at 0 to use Discord's recommendation";
    case 4012:
        return "invalid API version: the gateway URL must speak v10";
    case 4013:
        return "invalid intents: the intents value is wrong (a bug in illegald)";
    case CLOSE_DISALLOWED_INTENTS:
        return "disallowed intents: enable the Message Content intent in the Developer Portal "
               "(Bot > Privileged Gateway Intents), or set [discord] message_content = auto";
    default:
        return NULL;
    }
}

/* Discord refused a privileged intent: every shard goes on without the
 * optional ones, and the adapter hears of it once. */
static void drop_optional_intents(struct gw *g)
{
    unsigned dropped = g->intents & g->optional;
    if (!dropped)
        return; /* another shard dropped them already */
    g->intents &= ~g->optional;
    if (g->ops.intents_dropped)
        g->ops.intents_dropped(g->ud, dropped);
}

static void on_retry(uv_timer_t *t)
{
    struct shard *s = t->data;
    if (!s->gw->closing && !s->stopped && !s->wsi)
        connect_shard(s);
}

static void shard_closed(struct shard *s)
{
    struct gw *g = s->gw;
    s->wsi = NULL;
    s->hello = s->ready = s->st.ready = false;
    s->want_close = 0;
    uv_timer_stop(&s->hb_timer);
    uv_timer_stop(&s->retry_timer);
    uv_timer_stop(&s->send_timer);
    clear_sendq(s);
    buf_free(&s->rx);
    gw_zstream_reset(&s->zs);
    if (g->closing) {
        bool all = true;
        for (int i = 0; i < g->nshards; i++)
            if (g->shards[i].wsi)
                all = false;
        if (all)
            uv_timer_start(&g->close_timer, on_close_timer, 0, 0);
        return;
    }
    int code = s->peer_close;
    s->peer_close = 0;
    if (code == CLOSE_DISALLOWED_INTENTS && (s->identified_intents & g->optional)) {
        drop_optional_intents(g);
        log_info(MOD, NULL, "shard %d: identifying again without the refused intents", s->id);
        forget_session(s);
        s->delay_next = -1;
        uv_timer_start(&s->retry_timer, on_retry, 0, 0);
        return;
    }
    const char *fatal = fatal_reason(code);
    if (fatal) {
        s->stopped = s->st.stopped = true;
        s->st.fatal_code = code;
        log_error(MOD, NULL, "shard %d stopped: gateway close %d, %s", s->id, code, fatal);
        return;
    }
    if (code == 4007 || code == 4009) {
        log_info(MOD, NULL, "shard %d: close %d, starting a new session", s->id, code);
        forget_session(s);
    }
    uint64_t delay;
    if (s->delay_next >= 0) {
        delay = (uint64_t)s->delay_next;
    } else {
        uint64_t ms = BACKOFF_BASE_MS;
        for (unsigned i = 0; i < s->failures && ms < BACKOFF_CAP_MS; i++)
            ms *= 2;
        if (ms > BACKOFF_CAP_MS)
            ms = BACKOFF_CAP_MS;
        delay = ms / 2 + (uint64_t)(dc_random() * (double)(ms / 2));
        s->failures++;
        log_info(MOD, NULL, "shard %d: connection lost (close %d); reconnecting in %llu ms", s->id,
                 code, (unsigned long long)delay);
    }
    s->delay_next = -1;
    uv_timer_start(&s->retry_timer, on_retry, delay, 0);
}

/* Gives up on the message being received, too large (over GW_MAX_RECV) or
 * not held for want of memory, and reconnects: the rest of it is ignored
 * until then, and resuming has Discord send it again. */
static void drop_message(struct shard *s, bool large)
{
    if (large)
        log_warn(MOD, NULL, "shard %d: gateway message over %u bytes; reconnecting", s->id,
                 GW_MAX_RECV);
    else
        log_error(MOD, NULL, "shard %d: no memory for a gateway message; reconnecting", s->id);
    s->rx_overflow = true;
    buf_free(&s->rx);
    request_close(s, large ? LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE : CLOSE_RESUMABLE, 0);
}

/* A text frame's piece of a message: handled where lws holds it when the
 * message comes whole, as most do, else gathered in s->rx. */
static void receive_text(struct shard *s, struct lws *wsi, const char *in, size_t len)
{
    bool last = lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi);
    if (!s->rx.len && len <= s->rx.max && last) {
        if (len)
            handle_message(s, in, len);
        return;
    }
    if (buf_append(&s->rx, in, len) < 0) {
        drop_message(s, s->rx.len + len > s->rx.max);
        return;
    }
    if (last) {
        size_t n = s->rx.len;
        char *msg = buf_take(&s->rx);
        if (n)
            handle_message(s, msg, n);
        free(msg);
    }
}

/* A binary frame's piece: the next of the compressed stream
 * ("compress=zlib-stream"), inflated into s->rx until a message ends. */
static void receive_compressed(struct shard *s, const void *in, size_t len)
{
    switch (gw_inflate_feed(&s->zs, in, len, &s->rx)) {
    case GW_INFLATE_MORE:
        return;
    case GW_INFLATE_DONE:
        if (s->rx.len)
            handle_message(s, s->rx.data, s->rx.len);
        if (s->rx.cap > GW_RX_KEPT)
            buf_free(&s->rx);
        else
            buf_reset(&s->rx);
        return;
    case GW_INFLATE_TOO_LARGE:
        drop_message(s, true);
        return;
    case GW_INFLATE_NO_MEMORY:
        drop_message(s, false);
        return;
    case GW_INFLATE_CORRUPT:
        log_warn(MOD, NULL, "shard %d: the gateway's compressed stream is corrupt; reconnecting",
                 s->id);
        s->rx_overflow = true;
        buf_free(&s->rx);
        request_close(s, CLOSE_RESUMABLE, 0);
        return;
    }
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    (void)user;
    struct shard *s = lws_get_opaque_user_data(wsi);
    switch (reason) {
    case LWS_CALLBACK_CLIENT_ESTABLISHED:
        if (!s)
            return -1;
        s->st.connects++;
        s->rx_overflow = false;
        gw_zstream_reset(&s->zs); /* a new connection, a new stream */
        break;
    case LWS_CALLBACK_CLIENT_RECEIVE:
        if (!s)
            return -1;
        if (s->rx_overflow)
            break;
        if (lws_frame_is_binary(wsi))
            receive_compressed(s, in, len);
        else
            receive_text(s, wsi, in, len);
        break;
    case LWS_CALLBACK_CLIENT_WRITEABLE:
        if (!s)
            return -1;
        write_next(s);
        if (s->want_close)
            return -1;
        break;
    case LWS_CALLBACK_CLIENT_APPEND_HANDSHAKE_HEADER: {
        /* the same User-Agent as on REST (Discord asks for one on every request) */
        unsigned char **pp = in, *end = *pp + len;
        const char *ua = s ? s->gw->user_agent : NULL;
        if (ua && lws_add_http_header_by_token(wsi, WSI_TOKEN_HTTP_USER_AGENT,
                                               (const unsigned char *)ua, (int)strlen(ua), pp, end))
            return -1;
        break;
    }
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if (s && len >= 2) {
            const unsigned char *p = in;
            s->peer_close = (p[0] << 8) | p[1];
        }
        break;
    case LWS_CALLBACK_CLIENT_CONNECTION_ERROR:
        if (s) {
            log_warn(MOD, NULL, "shard %d: gateway connection failed: %.*s", s->id,
                     in ? (int)len : 7, in ? (const char *)in : "unknown");
            shard_closed(s);
        }
        break;
    case LWS_CALLBACK_CLIENT_CLOSED:
        if (s)
            shard_closed(s);
        break;
    default:
        break;
    }
    return 0;
}

static const struct lws_protocols protocols[] = {
    {"discord-gateway", callback, 0, 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

void gw_request_path(const char *p, bool compress, char *out, size_t len)
{
    /* lws gives the path without its leading '/', or "/" when there is none */
    while (*p == '/')
        p++;
    if (strchr(p, '?'))
        snprintf(out, len, "/%s", p);
    else
        snprintf(out, len, "/%s?v=10&encoding=json%s", p, compress ? "&compress=zlib-stream" : "");
}

static void connect_shard(struct shard *s)
{
    struct gw *g = s->gw;
    const char *base = s->session_id && s->resume_url ? s->resume_url : g->url;
    if (base == s->resume_url && g->tls != gw_url_tls(base))
        base = g->url; /* a resume URL of the other scheme: the context has (no) TLS for it */
    char url[512], path[600];
    snprintf(url, sizeof(url), "%s", base);
    const char *prot, *addr, *p;
    int port;
    if (lws_parse_uri(url, &prot, &addr, &port, &p)) {
        log_error(MOD, NULL, "shard %d: cannot parse gateway URL", s->id);
        s->stopped = s->st.stopped = true;
        return;
    }
    bool tls = gw_url_tls(base);
    gw_request_path(p, g->compress, path, sizeof(path));
    struct lws_client_connect_info ci;
    memset(&ci, 0, sizeof(ci));
    ci.context = g->ctx;
    ci.address = addr;
    ci.port = port;
    ci.path = path;
    ci.host = addr;
    ci.origin = addr;
    ci.ssl_connection = tls ? LCCSCF_USE_SSL : 0;
    ci.local_protocol_name = protocols[0].name;
    ci.opaque_user_data = s;
    ci.pwsi = &s->wsi;
    s->peer_close = 0;
    s->want_close = 0;
    s->acked = true;
    clear_sendq(s);
    if (!lws_client_connect_via_info(&ci)) {
        s->wsi = NULL;
        if (!uv_is_active((uv_handle_t *)&s->retry_timer))
            shard_closed(s); /* lws did not report it through the callback */
    }
}

bool gw_url_tls(const char *url)
{
    return strncasecmp(url, "wss://", 6) == 0 || strncasecmp(url, "https://", 8) == 0;
}

struct gw *gw_new(uv_loop_t *loop, const char *token, const char *user_agent, unsigned intents,
                  unsigned optional, const struct gw_ops *ops, void *ud, bool tls, int nshards)
{
    struct gw *g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    g->planned_shards = nshards < 1 ? 1 : nshards;
    g->loop = loop;
    g->token = token;
    g->user_agent = user_agent;
    g->intents = intents;
    g->optional = optional & intents;
    g->ops = *ops;
    g->ud = ud;
    g->tls = tls;
    g->foreign[0] = loop;
    lws_set_log_level(LLL_ERR, NULL);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof(info));
    info.port = CONTEXT_PORT_NO_LISTEN;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV | (tls ? LWS_SERVER_OPTION_DO_SSL_GLOBAL_INIT : 0);
    info.foreign_loops = g->foreign;
    info.user = g;
    info.gid = -1;
    info.uid = -1;
    /* lws sizes its descriptor tables by this, else by the process's limit */
    info.fd_limit_per_thread = (unsigned)(2 * g->planned_shards + GW_LWS_FDS);
    /* lws writes NULL here once the context is wholly freed (see gw_close) */
    info.pcontext = &g->ctx;
    g->ctx = lws_create_context(&info);
    if (!g->ctx) {
        free(g);
        return NULL;
    }
    uv_timer_init(loop, &g->close_timer);
    g->close_timer.data = g;
    g->open_handles = 1;
    return g;
}

int gw_start(struct gw *g, const char *url, int max_concurrency, uint64_t delay_ms, bool compress)
{
    g->compress = compress;
    if (max_concurrency < 1)
        max_concurrency = 1;
    g->url = strdup(url);
    g->shards = calloc((size_t)g->planned_shards, sizeof(*g->shards));
    g->last_identify = calloc((size_t)max_concurrency, sizeof(*g->last_identify));
    if (!g->url || !g->shards || !g->last_identify)
        return -1;
    g->nshards = g->planned_shards;
    g->max_concurrency = max_concurrency;
    g->identify_not_before = clock_mono_ms() + delay_ms;
    for (int i = 0; i < g->nshards; i++) {
        struct shard *s = &g->shards[i];
        s->gw = g;
        s->id = i;
        snprintf(s->state_key, sizeof(s->state_key), "discord.gateway.%d", i);
        s->delay_next = -1;
        TAILQ_INIT(&s->sendq);
        buf_init(&s->rx, GW_MAX_RECV);
        uv_timer_init(g->loop, &s->hb_timer);
        uv_timer_init(g->loop, &s->retry_timer);
        uv_timer_init(g->loop, &s->send_timer);
        s->hb_timer.data = s;
        s->retry_timer.data = s;
        s->send_timer.data = s;
        g->open_handles += 3;
        load_session(s);
        follow_session(s, true);
        connect_shard(s);
    }
    return 0;
}

int gw_shard_count(const struct gw *g)
{
    return g->nshards;
}

void gw_shard_stats(const struct gw *g, int shard, struct gw_shard_stats *st)
{
    if (shard < 0 || shard >= g->nshards) {
        memset(st, 0, sizeof(*st));
        return;
    }
    *st = g->shards[shard].st;
}

static void close_handles(struct gw *g)
{
    for (int i = 0; i < g->nshards; i++) {
        struct shard *s = &g->shards[i];
        if (s->session_id)
            save_session(s, false);
        follow_session(s, false);
        uv_timer_stop(&s->hb_timer);
        uv_timer_stop(&s->retry_timer);
        uv_close((uv_handle_t *)&s->hb_timer, shard_handle_closed);
        uv_close((uv_handle_t *)&s->retry_timer, shard_handle_closed);
        uv_timer_stop(&s->send_timer);
        uv_close((uv_handle_t *)&s->send_timer, shard_handle_closed);
    }
    uv_close((uv_handle_t *)&g->close_timer, handle_closed);
}

/* How often, and how many times, the final lws_context_destroy() is tried. */
#define FINALIZE_TICK_MS 10u
#define FINALIZE_TICKS   300u

static void count_closing(uv_handle_t *h, void *arg)
{
    if (uv_is_closing(h))
        ++*(unsigned *)arg;
}

/*
 * lws 4.1 with a foreign loop destroys a context in two calls. The first
 * lws_context_destroy() closes every wsi and lws's own libuv handles (timers,
 * the cancel pipe), whose close callbacks run later on our loop; lws does not
 * finish by itself on a foreign loop. A second lws_context_destroy() frees the
 * context, the TLS client context and the per-thread buffers, and may unload
 * the libuv event-lib plugin, so it must wait until no close callback is
 * pending on the loop: a close callback left pointing into the unloaded plugin
 * would crash. This timer makes that second call once nothing is closing; lws
 * then writes NULL to g->ctx through info.pcontext.
 */
static void on_finalize(uv_timer_t *t)
{
    struct gw *g = t->data;
    unsigned closing = 0;
    uv_walk(g->loop, count_closing, &closing);
    if (closing && ++g->finalize_ticks < FINALIZE_TICKS)
        return;
    if (g->ctx && !closing)
        lws_context_destroy(g->ctx);
    if (g->ctx)
        log_warn(MOD, NULL, "the websocket library did not finish closing; leaving it");
    g->ctx = NULL;
    uv_timer_stop(&g->close_timer);
    close_handles(g);
}

/*
 * First call: asks every open shard to close (code 4000 keeps the session
 * resumable) and waits up to 2 s. Second call (all closed, or the timer):
 * starts destroying the lws context, and on_finalize completes it.
 */
void gw_close(struct gw *g)
{
    if (!g->closing) {
        g->closing = true;
        bool any = false;
        for (int i = 0; i < g->nshards; i++) {
            struct shard *s = &g->shards[i];
            uv_timer_stop(&s->retry_timer);
            uv_timer_stop(&s->hb_timer);
            if (s->wsi) {
                any = true;
                request_close(s, CLOSE_RESUMABLE, -1);
            }
        }
        uv_timer_start(&g->close_timer, on_close_timer, any ? 2000 : 0, 0);
        return;
    }
    if (g->destroying || !g->ctx)
        return;
    g->destroying = true;
    uv_timer_stop(&g->close_timer);
    for (int i = 0; i < g->nshards; i++)
        if (g->shards[i].wsi)
            lws_set_opaque_user_data(g->shards[i].wsi, NULL);
    lws_context_destroy(g->ctx);
    uv_timer_start(&g->close_timer, on_finalize, 0, FINALIZE_TICK_MS);
}
