/*
 * fakediscord.c - the Discord test server (see fakediscord.h).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libwebsockets.h>
#include <zlib.h>

#include "fakeactivity.h"
#include "fakediscord.h"
#include "discord_limits.h"

/* The largest request body taken (Discord takes 25 MiB with files, as
 * resources/message says under Create Message; the bot sends none). */
#define BODY_MAX (8u << 20)

struct frame {
    struct frame *next;
    size_t len;
    bool binary; /* a piece of the compressed stream */
    unsigned char data[];
};

struct pss {
    int method; /* 0 GET 1 POST 2 PATCH 3 PUT 4 DELETE */
    char path[512];
    char auth[256];
    char ua[256];
    char ctype[64], accept[64], expect[64]; /* Content-Type, Accept, Expect: "" when not sent */
    char *body; /* the request's body, NUL-terminated: body_len of body_cap bytes */
    size_t body_len, body_cap;
    bool too_large; /* more than BODY_MAX came */
    int status;
    char hdrs[1024];
    unsigned char *resp; /* LWS_PRE bytes, then the answer's resp_len */
    size_t resp_len;
    bool ws;
    bool zlib; /* its upgrade asked for compress=zlib-stream */
    bool held; /* its answer is held back (fd_hold_next) until the connection closes */
};

struct force {
    char prefix[128];
    int count;
    int status; /* 429 (with retry_after and global), or another error status */
    bool global;
    double retry_after;
};

/* What the next request of a kind meets (fd_hold_next, fd_delay_next). */
enum trap_mode { TRAP_HOLD, TRAP_HOLD_APPLIED, TRAP_DELAY };

struct trap {
    enum fd_kind kind;
    enum trap_mode mode;
    double retry_after; /* TRAP_DELAY */
    char channel[32];   /* only a request to this channel, when set */
    bool armed;
};

struct fd_server {
    pthread_t thread;
    pthread_mutex_t mu;
    struct lws_context *ctx;
    volatile int stop;
    int port;
    char token[128];
    unsigned hb_ms;
    /* gateway */
    struct lws *ws;
    bool identified;
    bool withhold;
    int want_close; /* close code to send; -1: drop */
    struct frame *outq, *outq_tail;
    bool zlib;   /* the connection's messages go as one zlib stream (compress=zlib-stream) */
    z_stream zs; /* that stream, while zlib */
    char session_id[64];
    int64_t seq;
    struct json_object *log; /* array of payload strings */
    unsigned connects, identifies, resumes, heartbeats;
    /* heartbeats the gateway asked for (op 1 to the bot), and those a
     * heartbeat followed before the next ask */
    unsigned hb_asked, hb_answered;
    bool hb_pending;
    int client_close;
    int64_t intents;
    char user_agent[256];
    char ctype[64], accept[64], expect[64];              /* of the last authorised REST request */
    char ws_user_agent[256], ws_path[256], ws_args[256]; /* of the last websocket upgrade */
    /* REST */
    struct json_object *messages, *callbacks, *webhooks, *commands, *dms;
    uint64_t next_id;
    struct force forces[8];
    unsigned nforces;
    int bucket_limit;
    struct json_object *windows; /* channel -> [times] */
    double gtimes[50];
    unsigned gpos;
    unsigned long requests, r429, r429_global;
    unsigned long seed;             /* the variation's seed, printed */
    uint64_t rng;                   /* the variation's random numbers, from the seed */
    unsigned long varied;           /* fields added, removed or nulled so far */
    unsigned long invalid;          /* bodies refused as Discord would (400, 50035 or 50006) */
    struct json_object *refused;    /* [{method, path, body, errors}] of those */
    struct json_object *registered; /* scope ("global" or a guild id) -> its commands */
    unsigned long
        nonce_repeats; /* POSTs answered with the message an earlier one made (enforce_nonce) */
    /* the privileged intents the app may use, as the Developer Portal's toggles
     * say; an IDENTIFY asking for another is closed with 4014 */
    int64_t privileged;
    unsigned long refused_intents, stripped; /* 4014s; guild messages sent without content */
    /* interactions: id -> {"t": when dispatched, "token", "acked": bool} */
    struct json_object *ixs;
    unsigned ix_window_ms;    /* > 0: a first answer later than this is refused (10062) */
    unsigned ix_token_ms;     /* an interaction's token lasts this long after its dispatch */
    unsigned long ix_refused; /* callbacks and follow-ups refused */
    struct trap traps[4];
    unsigned long held;        /* requests held unanswered so far */
    unsigned long forced;      /* requests answered as fd_force_429 and fd_force_status said */
    unsigned long answered[3]; /* 2xx answers by fd_kind */
    struct fa *act;            /* the Activity's endpoints (fakeactivity.c) */
    bool activities;           /* the app has Activities enabled (its portal's toggle) */
    unsigned long changes;     /* bumped by whatever may have changed the record (fd_changes) */
};

/* Leaves the lock after what may have changed the record: a request, a
 * gateway frame, a test's call (fd_changes). */
static void unlock_changed(struct fd_server *s)
{
    s->changes++;
    pthread_mutex_unlock(&s->mu);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double fd_now(void)
{
    return now_s();
}

static void push_frame(struct fd_server *s, const void *data, size_t n, bool binary)
{
    struct frame *f = malloc(sizeof(*f) + LWS_PRE + n);
    if (!f)
        return;
    f->next = NULL;
    f->len = n;
    f->binary = binary;
    memcpy(f->data + LWS_PRE, data, n);
    if (s->outq_tail)
        s->outq_tail->next = f;
    else
        s->outq = f;
    s->outq_tail = f;
}

static unsigned vrand(struct fd_server *s, unsigned n);

/* A message into the connection's zlib stream, ended by a sync flush (its
 * last bytes 00 00 ff ff), as Discord sends it with compress=zlib-stream:
 * in one binary message, or, as the protocol allows and the seed chooses,
 * cut over two or three anywhere. */
static void queue_compressed(struct fd_server *s, const char *txt, size_t n)
{
    size_t cap = deflateBound(&s->zs, n) + 64, len;
    unsigned char *out = malloc(cap);
    if (!out)
        return;
    s->zs.next_in = (Bytef *)(uintptr_t)txt;
    s->zs.avail_in = (uInt)n;
    s->zs.next_out = out;
    s->zs.avail_out = (uInt)cap;
    if (deflate(&s->zs, Z_SYNC_FLUSH) != Z_OK || s->zs.avail_in) {
        free(out);
        return;
    }
    len = cap - s->zs.avail_out;
    unsigned pieces = len > 2 && vrand(s, 4) == 0 ? 2 + vrand(s, 2) : 1;
    size_t at = 0;
    for (unsigned i = 1; i < pieces; i++) {
        size_t cut = at + 1 + vrand(s, (unsigned)(len - at - (pieces - i)));
        push_frame(s, out + at, cut - at, true);
        at = cut;
    }
    push_frame(s, out + at, len - at, true);
    free(out);
}

static void queue_frame(struct fd_server *s, const char *txt, size_t n)
{
    if (s->zlib)
        queue_compressed(s, txt, n);
    else
        push_frame(s, txt, n, false);
}

/* A new connection's stream, or none: each compressed connection starts a
 * stream of its own, at a level the seed chooses. */
static void zlib_start(struct fd_server *s, bool on)
{
    if (s->zlib)
        deflateEnd(&s->zs);
    s->zlib = false;
    if (!on)
        return;
    memset(&s->zs, 0, sizeof(s->zs));
    s->zlib = deflateInit(&s->zs, 1 + (int)vrand(s, 9)) == Z_OK;
}

static void clear_frames(struct fd_server *s)
{
    while (s->outq) {
        struct frame *f = s->outq;
        s->outq = f->next;
        free(f);
    }
    s->outq_tail = NULL;
}

static void queue_json(struct fd_server *s, struct json_object *o)
{
    const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    queue_frame(s, t, strlen(t));
}

static void send_op(struct fd_server *s, int op, struct json_object *d)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "op", json_object_new_int(op));
    json_object_object_add(o, "d", d);
    queue_json(s, o);
    json_object_put(o);
}

/* Op 1 to the bot: the gateway asks for a heartbeat at once, whatever the
 * interval. Called locked, on a live connection. */
static void ask_heartbeat(struct fd_server *s)
{
    send_op(s, 1, NULL);
    s->hb_asked++;
    s->hb_pending = true;
}

/*
 * What the documentation allows and a real server does, chosen from the
 * seed: optional fields absent, nullable ones null, fields the adapter has
 * never heard of, partial member objects. Each dispatch's d goes through it.
 */
static unsigned vrand(struct fd_server *s, unsigned n)
{
    s->rng ^= s->rng << 13;
    s->rng ^= s->rng >> 7;
    s->rng ^= s->rng << 17;
    return (unsigned)(s->rng % n);
}

/* Fields the documentation marks optional (never one the bot needs to act;
 * a message's mentions, embeds and attachments are always there). */
static const char *const optional_fields[] = {
    "global_name",     "avatar",       "discriminator", "public_flags",  "locale", "guild_locale",
    "app_permissions", "entitlements", "version",       "joined_at",     "deaf",   "mute",
    "nonce",           "burst",        "nick",          "premium_since", NULL};
/* Fields that may be null. */
static const char *const nullable_fields[] = {"global_name", "avatar", "nick", NULL};

static struct json_object *unknown_value(struct fd_server *s)
{
    switch (vrand(s, 6)) {
    case 0:
        return json_object_new_string("from a newer API");
    case 1:
        return json_object_new_int64((int64_t)vrand(s, 1000000));
    case 2:
        return NULL;
    case 3:
        return json_object_new_object();
    case 4:
        return json_tokener_parse("[1,\"two\",{\"three\":[]}]");
    default:
        return json_tokener_parse("{\"id\":\"1\",\"options\":{\"nested\":true}}");
    }
}

static void vary(struct fd_server *s, struct json_object *o, unsigned depth)
{
    if (!o || depth > 6)
        return;
    if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            vary(s, json_object_array_get_idx(o, i), depth + 1);
        return;
    }
    if (!json_object_is_type(o, json_type_object))
        return;
    for (unsigned i = 0; optional_fields[i]; i++)
        if (json_object_object_get_ex(o, optional_fields[i], NULL) && vrand(s, 3) == 0) {
            json_object_object_del(o, optional_fields[i]);
            s->varied++;
        }
    for (unsigned i = 0; nullable_fields[i]; i++)
        if (vrand(s, 4) == 0) {
            json_object_object_add(o, nullable_fields[i], NULL);
            s->varied++;
        }
    json_object_object_foreach(o, k, v)
    {
        (void)k;
        vary(s, v, depth + 1);
    }
    if (vrand(s, 3) == 0) {
        char name[32];
        snprintf(name, sizeof(name), "fd_unknown_%u", vrand(s, 100));
        json_object_object_add(o, name, unknown_value(s));
        s->varied++;
    }
}

static void vary_dispatch(struct fd_server *s, const char *type, struct json_object *d)
{
    if (!json_object_is_type(d, json_type_object) || strcmp(type, "READY") == 0 ||
        strcmp(type, "RESUMED") == 0)
        return;
    /* a reaction's member may come partial (no user) or not at all */
    struct json_object *member;
    if (strcmp(type, "MESSAGE_REACTION_ADD") == 0 &&
        json_object_object_get_ex(d, "member", &member)) {
        unsigned how = vrand(s, 3);
        if (how == 0)
            json_object_object_del(d, "member");
        else if (how == 1)
            json_object_object_del(member, "user");
        s->varied += how < 2;
    }
    vary(s, d, 0);
}

#define INTENT_MESSAGE_CONTENT (1 << 15)
/* GUILD_MEMBERS, GUILD_PRESENCES, MESSAGE_CONTENT */
#define PRIVILEGED_INTENTS ((1 << 1) | (1 << 8) | INTENT_MESSAGE_CONTENT)

static bool mentions_bot(struct json_object *d)
{
    struct json_object *mentions = json_object_object_get(d, "mentions");
    for (size_t i = 0;
         json_object_is_type(mentions, json_type_array) && i < json_object_array_length(mentions);
         i++) {
        struct json_object *id =
            json_object_object_get(json_object_array_get_idx(mentions, i), "id");
        if (id && strcmp(json_object_get_string(id), FD_BOT_ID) == 0)
            return true;
    }
    return false;
}

static struct json_object *find_message(struct fd_server *s, const char *id);

/*
 * A message as the session's intents let the bot see it: without
 * MESSAGE_CONTENT, a guild message that does not mention the bot comes with
 * empty content, embeds, attachments and components, and no poll; DMs, and
 * messages that mention it (a reply that pings it does), keep theirs. A reply
 * carries the message it replies to, unless (as the documentation allows)
 * the server did not fetch it: chosen from the seed.
 */
static void as_seen(struct fd_server *s, struct json_object *d)
{
    struct json_object *ref = json_object_object_get(d, "message_reference"), *mid, *old;
    if (ref && json_object_object_get_ex(ref, "message_id", &mid) &&
        (old = find_message(s, json_object_get_string(mid))) && vrand(s, 4) != 0) {
        struct json_object *r = json_object_new_object(), *a = json_object_new_object();
        struct json_object *body = json_object_object_get(old, "body");
        struct json_object *content = json_object_object_get(body, "content");
        json_object_object_add(a, "id", json_object_new_string(FD_BOT_ID));
        json_object_object_add(a, "username", json_object_new_string("illegald"));
        json_object_object_add(a, "bot", json_object_new_boolean(1));
        json_object_object_add(r, "id", json_object_get(mid));
        json_object_object_add(r, "channel_id",
                               json_object_get(json_object_object_get(old, "channel")));
        json_object_object_add(r, "author", a);
        json_object_object_add(
            r, "content", json_object_new_string(content ? json_object_get_string(content) : ""));
        json_object_object_add(d, "referenced_message", r);
    }
    if (!json_object_object_get_ex(d, "guild_id", NULL) || (s->intents & INTENT_MESSAGE_CONTENT) ||
        mentions_bot(d))
        return;
    json_object_object_add(d, "content", json_object_new_string(""));
    json_object_object_add(d, "embeds", json_object_new_array());
    json_object_object_add(d, "attachments", json_object_new_array());
    json_object_object_add(d, "components", json_object_new_array());
    json_object_object_del(d, "poll");
    s->stripped++;
}

/* Logs a dispatch; queues it when the session is live. Called locked. */
static int64_t dispatch_locked(struct fd_server *s, const char *type, struct json_object *d)
{
    int64_t seq = ++s->seq;
    if (strcmp(type, "MESSAGE_CREATE") == 0)
        as_seen(s, d);
    if (strcmp(type, "INTERACTION_CREATE") == 0) {
        struct json_object *id = json_object_object_get(d, "id"), *ix = json_object_new_object();
        json_object_object_add(ix, "t", json_object_new_double(now_s()));
        json_object_object_add(ix, "token", json_object_get(json_object_object_get(d, "token")));
        struct json_object *member = json_object_object_get(d, "member");
        struct json_object *user = json_object_object_get(member ? member : d, "user");
        json_object_object_add(ix, "user", json_object_get(json_object_object_get(user, "id")));
        json_object_object_add(ix, "acked", json_object_new_boolean(0));
        if (id)
            json_object_object_add(s->ixs, json_object_get_string(id), ix);
        else
            json_object_put(ix);
    }
    vary_dispatch(s, type, d);
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "op", json_object_new_int(0));
    json_object_object_add(o, "t", json_object_new_string(type));
    json_object_object_add(o, "s", json_object_new_int64(seq));
    json_object_object_add(o, "d", d);
    const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    json_object_array_add(s->log, json_object_new_string(t));
    if (s->ws && s->identified) {
        queue_frame(s, t, strlen(t));
        /* the gateway may ask for a heartbeat at any time: now and then, after a dispatch */
        if (vrand(s, 16) == 0)
            ask_heartbeat(s);
    }
    json_object_put(o);
    return seq;
}

/* ---- the gateway's opcodes from the bot ---- */

/* Heartbeat (op 1): acknowledged (op 11) unless the test withholds the acks. */
static void on_heartbeat(struct fd_server *s, struct json_object *d)
{
    (void)d;
    s->heartbeats++;
    if (s->hb_pending) {
        s->hb_pending = false;
        s->hb_answered++;
    }
    if (!s->withhold)
        send_op(s, 11, NULL);
}

/* READY's payload for the session just identified. */
static struct json_object *ready_payload(struct fd_server *s)
{
    char url[64];
    snprintf(url, sizeof(url), "ws://127.0.0.1:%d", s->port);
    struct json_object *r = json_object_new_object(), *u = json_object_new_object();
    struct json_object *app = json_object_new_object();
    json_object_object_add(u, "id", json_object_new_string(FD_BOT_ID));
    json_object_object_add(u, "username", json_object_new_string("illegald"));
    json_object_object_add(u, "bot", json_object_new_boolean(1));
    json_object_object_add(app, "id", json_object_new_string(FD_APP_ID));
    json_object_object_add(r, "v", json_object_new_int(10));
    json_object_object_add(r, "user", u);
    json_object_object_add(r, "session_id", json_object_new_string(s->session_id));
    json_object_object_add(r, "resume_gateway_url", json_object_new_string(url));
    json_object_object_add(r, "application", app);
    json_object_object_add(r, "guilds", json_object_new_array());
    return r;
}

/* Identify (op 2): a wrong token closes with 4004, a privileged intent the app may not use
 * with 4014; else a new session starts, its log afresh, with READY. */
static void on_identify(struct fd_server *s, struct json_object *d)
{
    struct json_object *tok, *intents;
    if (!d || !json_object_object_get_ex(d, "token", &tok) ||
        strcmp(json_object_get_string(tok), s->token) != 0) {
        s->want_close = 4004;
        return;
    }
    if (json_object_object_get_ex(d, "intents", &intents))
        s->intents = json_object_get_int64(intents);
    s->identifies++;
    if (s->intents & PRIVILEGED_INTENTS & ~s->privileged) {
        s->refused_intents++;
        s->want_close = 4014;
        return;
    }
    snprintf(s->session_id, sizeof(s->session_id), "sess%u", s->identifies);
    s->seq = 0;
    json_object_put(s->log);
    s->log = json_object_new_array();
    s->identified = true;
    dispatch_locked(s, "READY", ready_payload(s));
}

/* Queues again every dispatch of the session's log after sequence number from. */
static void replay_after(struct fd_server *s, int64_t from)
{
    size_t n = json_object_array_length(s->log);
    for (size_t i = 0; i < n; i++) {
        const char *t = json_object_get_string(json_object_array_get_idx(s->log, i));
        struct json_object *e = json_tokener_parse(t), *sv;
        if (e && json_object_object_get_ex(e, "s", &sv) && json_object_get_int64(sv) > from)
            queue_frame(s, t, strlen(t));
        json_object_put(e);
    }
}

/* Resume (op 6): an unknown session or a sequence number from the future is invalid (op 9,
 * not resumable); else what the bot missed is replayed, then RESUMED. */
static void on_resume(struct fd_server *s, struct json_object *d)
{
    struct json_object *sid, *seq;
    if (!d || !json_object_object_get_ex(d, "session_id", &sid) ||
        !json_object_object_get_ex(d, "seq", &seq) || !s->session_id[0] ||
        strcmp(json_object_get_string(sid), s->session_id) != 0 ||
        json_object_get_int64(seq) > s->seq) {
        send_op(s, 9, json_object_new_boolean(0));
        return;
    }
    s->resumes++;
    s->identified = true;
    replay_after(s, json_object_get_int64(seq));
    int64_t seqn = ++s->seq;
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "op", json_object_new_int(0));
    json_object_object_add(r, "t", json_object_new_string("RESUMED"));
    json_object_object_add(r, "s", json_object_new_int64(seqn));
    json_object_object_add(r, "d", json_object_new_object());
    const char *t = json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN);
    json_object_array_add(s->log, json_object_new_string(t));
    queue_frame(s, t, strlen(t));
    json_object_put(r);
}

static const struct {
    int op;
    void (*handler)(struct fd_server *s, struct json_object *d);
} gateway_ops[] = {
    {1, on_heartbeat},
    {2, on_identify},
    {6, on_resume},
};

/* A frame from the bot: not JSON or without op closes with 4002, an unknown op with 4001. */
static void handle_gateway(struct fd_server *s, const char *txt, size_t len)
{
    struct json_object *o = json_tokener_parse(txt), *op, *d = NULL;
    (void)len;
    if (!o || !json_object_object_get_ex(o, "op", &op)) {
        s->want_close = 4002;
        json_object_put(o);
        return;
    }
    json_object_object_get_ex(o, "d", &d);
    size_t i = 0, n = sizeof(gateway_ops) / sizeof(gateway_ops[0]);
    while (i < n && gateway_ops[i].op != json_object_get_int(op))
        i++;
    if (i < n)
        gateway_ops[i].handler(s, d);
    else
        s->want_close = 4001;
    json_object_put(o);
}

/* ---- REST ---- */

static void respond(struct pss *p, int status, struct json_object *body)
{
    p->status = status;
    const char *t = body ? json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN) : "";
    size_t n = strlen(t);
    free(p->resp);
    p->resp = malloc(LWS_PRE + n + 1);
    if (!p->resp)
        n = 0;
    else
        memcpy(p->resp + LWS_PRE, t, n);
    p->resp_len = n;
}

static void add_hdr(struct pss *p, const char *name, const char *value)
{
    size_t o = strlen(p->hdrs);
    snprintf(p->hdrs + o, sizeof(p->hdrs) - o, "%s\n%s\n", name, value);
}

static struct json_object *api_error(int code, const char *msg)
{
    struct json_object *e = json_object_new_object();
    json_object_object_add(e, "code", json_object_new_int(code));
    json_object_object_add(e, "message", json_object_new_string(msg));
    return e;
}

static void too_many(struct fd_server *s, struct pss *p, double retry, bool global)
{
    s->r429++;
    if (global)
        s->r429_global++;
    struct json_object *e = json_object_new_object();
    json_object_object_add(e, "message", json_object_new_string("You are being rate limited."));
    json_object_object_add(e, "retry_after", json_object_new_double(retry));
    json_object_object_add(e, "global", json_object_new_boolean(global));
    char ra[32];
    snprintf(ra, sizeof(ra), "%.3f", retry);
    add_hdr(p, "retry-after:", ra);
    add_hdr(p, "x-ratelimit-scope:", global ? "global" : "user");
    if (global)
        add_hdr(p, "x-ratelimit-global:", "true");
    respond(p, 429, e);
    json_object_put(e);
}

static char *new_id(struct fd_server *s)
{
    static char buf[32];
    snprintf(buf, sizeof(buf), "%llu", (unsigned long long)++s->next_id);
    return buf;
}

static struct json_object *find_message(struct fd_server *s, const char *id)
{
    for (size_t i = 0; i < json_object_array_length(s->messages); i++) {
        struct json_object *m = json_object_array_get_idx(s->messages, i), *v;
        if (json_object_object_get_ex(m, "id", &v) && strcmp(json_object_get_string(v), id) == 0)
            return m;
    }
    return NULL;
}

static const char *dm_user(struct fd_server *s, const char *channel)
{
    json_object_object_foreach(s->dms, user, ch)
    {
        if (strcmp(json_object_get_string(json_object_object_get(ch, "id")), channel) == 0)
            return user;
    }
    return NULL;
}

/* The fake per-channel message bucket; returns false (and answers 429) when over. */
static bool bucket_ok(struct fd_server *s, struct pss *p, const char *channel)
{
    double now = now_s();
    struct json_object *w = json_object_object_get(s->windows, channel);
    if (!w) {
        w = json_object_new_array();
        json_object_object_add(s->windows, channel, w);
    }
    struct json_object *keep = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(w); i++) {
        double t = json_object_get_double(json_object_array_get_idx(w, i));
        if (t + 1.0 > now)
            json_object_array_add(keep, json_object_new_double(t));
    }
    json_object_object_add(s->windows, channel, keep);
    size_t used = json_object_array_length(keep);
    double oldest = used ? json_object_get_double(json_object_array_get_idx(keep, 0)) : now;
    double reset = used ? oldest + 1.0 - now : 1.0;
    add_hdr(p, "x-ratelimit-bucket:", "msgbucket0001");
    char v[32];
    snprintf(v, sizeof(v), "%d", s->bucket_limit);
    add_hdr(p, "x-ratelimit-limit:", v);
    if ((int)used >= s->bucket_limit) {
        add_hdr(p, "x-ratelimit-remaining:", "0");
        snprintf(v, sizeof(v), "%.3f", reset);
        add_hdr(p, "x-ratelimit-reset-after:", v);
        too_many(s, p, reset, false);
        return false;
    }
    json_object_array_add(keep, json_object_new_double(now));
    snprintf(v, sizeof(v), "%d", s->bucket_limit - (int)used - 1);
    add_hdr(p, "x-ratelimit-remaining:", v);
    snprintf(v, sizeof(v), "%.3f", used + 1 >= (size_t)s->bucket_limit ? reset : 1.0);
    add_hdr(p, "x-ratelimit-reset-after:", v);
    return true;
}

/* The length of an array, 0 for anything else. */
static size_t alen(struct json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* Discord's enforce_nonce: a message the bot created with the same nonce in
 * the last few minutes is returned instead of creating another. */
#define NONCE_WINDOW_S 300

static struct json_object *same_nonce(struct fd_server *s, struct json_object *body)
{
    struct json_object *nonce = json_object_object_get(body, "nonce");
    if (!nonce || !json_object_get_boolean(json_object_object_get(body, "enforce_nonce")))
        return NULL;
    for (size_t i = 0; i < alen(s->messages); i++) {
        struct json_object *m = json_object_array_get_idx(s->messages, i);
        struct json_object *old =
            json_object_object_get(json_object_object_get(m, "body"), "nonce");
        double t = json_object_get_double(json_object_object_get(m, "t"));
        if (old && strcmp(json_object_get_string(old), json_object_get_string(nonce)) == 0 &&
            t + NONCE_WINDOW_S > now_s())
            return m;
    }
    return NULL;
}

/* What a body is, for the limits it must keep (discord_limits.h). */
enum check { CHECK_CREATE, CHECK_FOLLOWUP, CHECK_EDIT, CHECK_CALLBACK, CHECK_COMMANDS };

/* Holds body against Discord's documented limits as what says; when Discord
 * would refuse it, answers as Discord does (400, 50035 with the errors, or
 * 50006 for an empty message) and records the refusal. Returns whether it
 * was refused. */
static bool refused(struct fd_server *s, struct pss *p, const char *method, const char *route,
                    struct json_object *body, enum check what)
{
    static const enum lim_where where[] = {
        [CHECK_CREATE] = LIM_CREATE, [CHECK_FOLLOWUP] = LIM_FOLLOWUP, [CHECK_EDIT] = LIM_EDIT};
    struct lim_errors e;
    lim_init(&e);
    /* LAUNCH_ACTIVITY (12) carries no data, and only an app with Activities enabled sends it */
    bool launch = what == CHECK_CALLBACK && s->activities &&
                  !json_object_object_get(body, "data") &&
                  json_object_get_int64(json_object_object_get(body, "type")) == 12;
    if (what == CHECK_CALLBACK) {
        if (!launch)
            lim_callback(&e, body);
    } else if (what == CHECK_COMMANDS)
        lim_commands(&e, body);
    else
        lim_message(&e, body, where[what]);
    if (e.n == 0) {
        lim_free(&e);
        return false;
    }
    struct json_object *a = lim_answer(&e), *r = json_object_new_object();
    respond(p, 400, a);
    json_object_object_add(r, "method", json_object_new_string(method));
    json_object_object_add(r, "path", json_object_new_string(route));
    json_object_object_add(r, "body", json_object_get(body));
    json_object_object_add(r, "errors", json_object_get(e.errors));
    json_object_array_add(s->refused, r);
    fprintf(stderr, "fakediscord: refused %s %s: %s\n", method, route,
            json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN));
    s->invalid++;
    json_object_put(a);
    lim_free(&e);
    return true;
}

/* Where the tokenizer stopped in a body it refused, shown with the bytes
 * around it (others escaped), for the refusal's record. */
static struct json_object *where_refused(const char *body, size_t len, size_t at)
{
    char shown[400];
    size_t o = 0, from = at > 60 ? at - 60 : 0;
    for (size_t i = from; i < len && i < at + 60 && o + 5 < sizeof shown; i++) {
        unsigned char c = (unsigned char)body[i];
        if (c >= 0x20 && c < 0x7F && c != '\\')
            shown[o++] = (char)c;
        else
            o += (size_t)snprintf(shown + o, sizeof shown - o, "\\x%02X", c);
    }
    shown[o] = '\0';
    struct json_object *w = json_object_new_object();
    json_object_object_add(w, "offset", json_object_new_int64((int64_t)at));
    json_object_object_add(w, "around", json_object_new_string(shown));
    return w;
}

/* The body as JSON; false (answered 400, 50109, and recorded) when it is no
 * JSON in UTF-8. */
static bool parse_body(struct fd_server *s, struct pss *p, const char *method, const char *route,
                       struct json_object **body)
{
    *body = NULL;
    if (!p->body_len)
        return true;
    struct json_tokener *tok = json_tokener_new();
    if (!tok)
        return false;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    *body = json_tokener_parse_ex(tok, p->body, (int)p->body_len);
    bool whole = *body && json_tokener_get_error(tok) == json_tokener_success;
    size_t at = json_tokener_get_parse_end(tok);
    json_tokener_free(tok);
    if (whole)
        return true;
    json_object_put(*body);
    *body = NULL;
    struct json_object *e = api_error(50109, "The request body contains invalid JSON.");
    respond(p, 400, e);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "method", json_object_new_string(method));
    json_object_object_add(r, "path", json_object_new_string(route));
    json_object_object_add(r, "invalid_json", where_refused(p->body, p->body_len, at));
    fprintf(stderr, "fakediscord: refused %s %s: no JSON in UTF-8: %s\n", method, route,
            json_object_to_json_string(json_object_object_get(r, "invalid_json")));
    json_object_array_add(s->refused, r);
    s->invalid++;
    json_object_put(e);
    return false;
}

/* What kind of request this is, for the traps: a post, an edit, or an edit
 * that takes a message's controls away and nothing else; -1 for others. */
static int request_kind(const char *method, const char *route, struct json_object *body)
{
    char a[64], b[64];
    int end = 0;
    if (strcmp(method, "POST") == 0 &&
        sscanf(route, "/channels/%63[0-9]/messages%n", a, &end) == 1 && end > 0 && !route[end])
        return FD_KIND_POST;
    if (strcmp(method, "PATCH") != 0 ||
        sscanf(route, "/channels/%63[0-9]/messages/%63[0-9]", a, b) != 2)
        return -1;
    struct json_object *components = json_object_object_get(body, "components");
    bool only_controls = components && json_object_array_length(components) == 0 &&
                         !json_object_object_get_ex(body, "content", NULL) &&
                         !json_object_object_get_ex(body, "embeds", NULL);
    return only_controls ? FD_KIND_CLOSE : FD_KIND_EDIT;
}

static struct trap *armed_trap(struct fd_server *s, enum fd_kind kind, const char *route)
{
    char channel[64] = "";
    sscanf(route, "/channels/%63[0-9]", channel);
    for (unsigned i = 0; i < sizeof s->traps / sizeof *s->traps; i++) {
        struct trap *t = &s->traps[i];
        if (t->armed && t->kind == kind && (!t->channel[0] || strcmp(t->channel, channel) == 0))
            return t;
    }
    return NULL;
}

/* The interaction whose token route names: open once it got its first
 * answer, until its token's life is over. */
enum webhook { WEBHOOK_OPEN, WEBHOOK_UNKNOWN, WEBHOOK_EXPIRED };
static enum webhook webhook_state(struct fd_server *s, const char *route)
{
    char app[64], token[128];
    if (sscanf(route, "/webhooks/%63[0-9]/%127[^/]", app, token) != 2)
        return WEBHOOK_UNKNOWN;
    json_object_object_foreach(s->ixs, id, ix)
    {
        (void)id;
        struct json_object *t = json_object_object_get(ix, "token");
        if (!t || strcmp(json_object_get_string(t), token) != 0)
            continue;
        double at = json_object_get_double(json_object_object_get(ix, "t"));
        if (now_s() > at + s->ix_token_ms / 1000.0)
            return WEBHOOK_EXPIRED;
        return json_object_get_boolean(json_object_object_get(ix, "acked")) ? WEBHOOK_OPEN
                                                                            : WEBHOOK_UNKNOWN;
    }
    return WEBHOOK_UNKNOWN;
}

/* Answers p with Discord's error object (code, message) and status. */
static void respond_error(struct pss *p, int status, int code, const char *msg)
{
    struct json_object *e = api_error(code, msg);
    respond(p, status, e);
    json_object_put(e);
}

/* The Activity's endpoints (fakeactivity.c); false when route is none of them. */
static bool activity_request(struct fd_server *s, struct pss *p, const char *method,
                             const char *route, bool bot)
{
    struct fa_answer fa;
    if (!fa_route(s->act, method, route, p->auth, bot, p->body, &fa))
        return false;
    if (fa.hang) {
        p->held = true;
        s->held++;
    } else if (fa.status == 429) {
        too_many(s, p, 0.2, false);
    } else {
        struct timespec slow = {0, (long)fa.delay_ms * 1000000L};
        if (fa.delay_ms)
            nanosleep(&slow, NULL);
        struct json_object *b = fa.body ? json_tokener_parse(fa.body) : NULL;
        respond(p, fa.status, b);
        json_object_put(b);
    }
    free(fa.body);
    return true;
}

/* The global limit, 50 requests in any second (interaction callbacks are not
 * bound to it), then what the test forced: true when p was answered so. */
static bool limited(struct fd_server *s, struct pss *p, const char *route)
{
    double gnow = now_s();
    if (strncmp(route, "/interactions/", 14) != 0) {
        double gold = s->gtimes[s->gpos];
        if (gold > 0 && gold + 1.0 > gnow) {
            too_many(s, p, gold + 1.0 - gnow, true);
            return true;
        }
        s->gtimes[s->gpos] = gnow;
        s->gpos = (s->gpos + 1) % 50;
    }
    for (unsigned i = 0; i < s->nforces; i++) {
        struct force *f = &s->forces[i];
        if (f->count > 0 && strncmp(route, f->prefix, strlen(f->prefix)) == 0) {
            f->count--;
            s->forced++;
            if (f->status == 429)
                too_many(s, p, f->retry_after, f->global);
            else
                respond_error(p, f->status, 0, "forced by the test");
            return true;
        }
    }
    return false;
}

/* The trap armed for this kind of request: put off (429), or held with
 * nothing applied (true: p is done), or held once applied (false). */
static bool trapped(struct fd_server *s, struct pss *p, int kind, const char *route)
{
    struct trap *trap = kind < 0 ? NULL : armed_trap(s, (enum fd_kind)kind, route);
    if (!trap)
        return false;
    trap->armed = false;
    if (trap->mode == TRAP_DELAY) {
        too_many(s, p, trap->retry_after, false);
        return true;
    }
    /* lost on the way: nothing applied, no answer until the connection goes;
     * or applied, and the answer lost on the way back */
    p->held = true;
    s->held++;
    return trap->mode == TRAP_HOLD;
}

static void gateway_bot(struct fd_server *s, struct pss *p)
{
    char url[64];
    snprintf(url, sizeof(url), "ws://127.0.0.1:%d", s->port);
    struct json_object *r = json_object_new_object(), *l = json_object_new_object();
    json_object_object_add(r, "url", json_object_new_string(url));
    json_object_object_add(r, "shards", json_object_new_int(1));
    json_object_object_add(l, "total", json_object_new_int(1000));
    json_object_object_add(l, "remaining", json_object_new_int(999));
    json_object_object_add(l, "reset_after", json_object_new_int(0));
    json_object_object_add(l, "max_concurrency", json_object_new_int(1));
    json_object_object_add(r, "session_start_limit", l);
    respond(p, 200, r);
    json_object_put(r);
}

/* POST /users/@me/channels: a user's DM channel, the same one each time. */
static void open_dm(struct fd_server *s, struct pss *p, struct json_object *body)
{
    const char *uid = json_object_get_string(json_object_object_get(body, "recipient_id"));
    struct json_object *ch = uid ? json_object_object_get(s->dms, uid) : NULL;
    if (!uid) {
        respond_error(p, 400, 50035, "Invalid Form Body");
        return;
    }
    if (!ch) {
        ch = json_object_new_object();
        json_object_object_add(ch, "id", json_object_new_string(new_id(s)));
        json_object_object_add(ch, "type", json_object_new_int(1));
        json_object_object_add(ch, "closed", json_object_new_boolean(0));
        json_object_object_add(s->dms, uid, ch);
    }
    respond(p, 200, ch);
}

/* PUT .../messages/<message>/reactions/<emoji, URL-encoded>/@me */
static void put_reaction(struct fd_server *s, struct pss *p, const char *message,
                         const char *encoded)
{
    struct json_object *m = find_message(s, message);
    if (!m) {
        respond_error(p, 404, 10008, "Unknown Message");
        return;
    }
    char emoji[128];
    size_t o = 0;
    for (size_t i = 0; encoded[i] && o + 1 < sizeof(emoji); i++) {
        if (encoded[i] == '%' && encoded[i + 1] && encoded[i + 2]) {
            char hx[3] = {encoded[i + 1], encoded[i + 2], 0};
            emoji[o++] = (char)strtol(hx, NULL, 16);
            i += 2;
        } else {
            emoji[o++] = encoded[i];
        }
    }
    emoji[o] = '\0';
    json_object_array_add(json_object_object_get(m, "reactions"), json_object_new_string(emoji));
    respond(p, 204, NULL);
}

/* PATCH /channels/<channel>/messages/<message>: an edit changes the fields
 * it gives and keeps the others. */
static void edit_message(struct fd_server *s, struct pss *p, const char *route, const char *channel,
                         const char *message, struct json_object *body)
{
    struct json_object *m = find_message(s, message);
    if (!m) {
        respond_error(p, 404, 10008, "Unknown Message");
        return;
    }
    if (refused(s, p, "PATCH", route, body, CHECK_EDIT) || !bucket_ok(s, p, channel))
        return;
    struct json_object *kept = json_object_object_get(m, "body");
    if (json_object_is_type(kept, json_type_object) &&
        json_object_is_type(body, json_type_object)) {
        json_object_object_foreach(body, k, v)
        {
            json_object_object_add(kept, k, json_object_get(v));
        }
    } else {
        json_object_object_add(m, "body", json_object_get(body));
    }
    int edits = json_object_get_int(json_object_object_get(m, "edits"));
    json_object_object_add(m, "edits", json_object_new_int(edits + 1));
    respond(p, 200, m);
}

/* POST /channels/<channel>/messages: refused to a closed DM; with a nonce
 * already used (enforce_nonce), the message it made. */
static void create_message(struct fd_server *s, struct pss *p, const char *route,
                           const char *channel, struct json_object *body)
{
    const char *user = dm_user(s, channel);
    struct json_object *ch = user ? json_object_object_get(s->dms, user) : NULL;
    if (ch && json_object_get_boolean(json_object_object_get(ch, "closed"))) {
        respond_error(p, 403, 50007, "Cannot send messages to this user");
        return;
    }
    if (refused(s, p, "POST", route, body, CHECK_CREATE))
        return;
    struct json_object *earlier = same_nonce(s, body);
    if (earlier) {
        s->nonce_repeats++;
        respond(p, 200, earlier);
        return;
    }
    if (!bucket_ok(s, p, channel))
        return;
    struct json_object *m = json_object_new_object();
    json_object_object_add(m, "id", json_object_new_string(new_id(s)));
    json_object_object_add(m, "channel", json_object_new_string(channel));
    json_object_object_add(m, "channel_id", json_object_new_string(channel));
    json_object_object_add(m, "body", json_object_get(body));
    json_object_object_add(m, "edits", json_object_new_int(0));
    json_object_object_add(m, "reactions", json_object_new_array());
    if (user)
        json_object_object_add(m, "dm_user", json_object_new_string(user));
    json_object_object_add(m, "t", json_object_new_double(now_s()));
    json_object_array_add(s->messages, m);
    respond(p, 200, m);
}

/* POST /interactions/<id>/<token>/callback: the first answer, once, within
 * the window when the test set one. */
static void interaction_callback(struct fd_server *s, struct pss *p, const char *method,
                                 const char *route, const char *id, struct json_object *body)
{
    struct json_object *ix = json_object_object_get(s->ixs, id);
    double t = json_object_get_double(json_object_object_get(ix, "t"));
    if (!ix || (s->ix_window_ms && now_s() > t + s->ix_window_ms / 1000.0)) {
        /* no first answer within the window: the token is gone */
        s->ix_refused++;
        respond_error(p, 404, 10062, "Unknown interaction");
        return;
    }
    if (json_object_get_boolean(json_object_object_get(ix, "acked"))) {
        s->ix_refused++;
        respond_error(p, 400, 40060, "Interaction has already been acknowledged.");
        return;
    }
    if (refused(s, p, method, route, body, CHECK_CALLBACK))
        return;
    json_object_object_add(ix, "acked", json_object_new_boolean(1));
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "id", json_object_new_string(id));
    json_object_object_add(r, "user", json_object_get(json_object_object_get(ix, "user")));
    json_object_object_add(r, "type", json_object_get(json_object_object_get(body, "type")));
    json_object_object_add(r, "data", json_object_get(json_object_object_get(body, "data")));
    json_object_object_add(r, "t", json_object_new_double(now_s()));
    json_object_array_add(s->callbacks, r);
    respond(p, 204, NULL);
}

/* /webhooks/<app>/<token>...: a follow-up (POST) or an edit of an answer,
 * through an interaction's token once it got its first answer. */
static void webhook(struct fd_server *s, struct pss *p, const char *method, const char *route,
                    struct json_object *body)
{
    enum webhook w = webhook_state(s, route);
    if (w != WEBHOOK_OPEN) {
        s->ix_refused++;
        if (w == WEBHOOK_EXPIRED)
            respond_error(p, 401, 50027, "Invalid Webhook Token");
        else
            respond_error(p, 404, 10015, "Unknown Webhook");
        return;
    }
    bool followup = strcmp(method, "POST") == 0;
    if (refused(s, p, method, route, body, followup ? CHECK_FOLLOWUP : CHECK_EDIT))
        return;
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "method", json_object_new_string(method));
    json_object_object_add(r, "path", json_object_new_string(route));
    json_object_object_add(r, "body", json_object_get(body));
    json_object_object_add(r, "t", json_object_new_double(now_s()));
    json_object_array_add(s->webhooks, r);
    struct json_object *m = json_object_new_object();
    json_object_object_add(m, "id", json_object_new_string(new_id(s)));
    respond(p, 200, m);
    json_object_put(m);
}

/* PUT a bulk overwrite of the global commands (scope "global") or of one
 * guild's (scope its id). */
static void put_commands(struct fd_server *s, struct pss *p, const char *route, const char *scope,
                         struct json_object *body)
{
    if (refused(s, p, "PUT", route, body, CHECK_COMMANDS))
        return;
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "path", json_object_new_string(route));
    json_object_object_add(r, "body", json_object_get(body));
    json_object_array_add(s->commands, r);
    json_object_object_add(s->registered, scope, json_object_get(body));
    respond(p, 200, body ? body : NULL);
}

/* The endpoint route names, answering p. */
static void route_request(struct fd_server *s, struct pss *p, const char *method, const char *route,
                          struct json_object *body)
{
    char a[64], b[64], c[128];
    int end = 0;
    bool get = strcmp(method, "GET") == 0, post = strcmp(method, "POST") == 0,
         patch = strcmp(method, "PATCH") == 0, put = strcmp(method, "PUT") == 0;
    if (get && strcmp(route, "/gateway/bot") == 0)
        gateway_bot(s, p);
    else if (post && strcmp(route, "/users/@me/channels") == 0)
        open_dm(s, p, body);
    else if (sscanf(route, "/channels/%63[0-9]/messages/%63[0-9]/reactions/%127[^/]/@me", a, b,
                    c) == 3 &&
             put)
        put_reaction(s, p, b, c);
    else if (sscanf(route, "/channels/%63[0-9]/messages/%63[0-9]", a, b) == 2 && patch)
        edit_message(s, p, route, a, b, body);
    else if (sscanf(route, "/channels/%63[0-9]/messages", a) == 1 && post)
        create_message(s, p, route, a, body);
    else if (sscanf(route, "/interactions/%63[0-9]/%127[^/]/callback", a, c) == 2)
        interaction_callback(s, p, method, route, a, body);
    else if (strncmp(route, "/webhooks/", 10) == 0)
        webhook(s, p, method, route, body);
    else if (sscanf(route, "/applications/%63[0-9]/%127[^\n]", a, c) == 2 && put &&
             (strcmp(c, "commands") == 0 ||
              (sscanf(c, "guilds/%63[0-9]/commands%n", b, &end) == 1 && !c[end])))
        put_commands(s, p, route, strcmp(c, "commands") == 0 ? "global" : b, body);
    else
        respond_error(p, 404, 0, "404: Not Found");
}

static void rest(struct fd_server *s, struct pss *p)
{
    static const char *const methods[] = {"GET", "POST", "PATCH", "PUT", "DELETE"};
    const char *method = methods[p->method];
    char path[512];
    snprintf(path, sizeof(path), "%s", p->path);
    const char *api = strstr(path, "/api/v10");
    const char *route = api ? api + 8 : path;
    s->requests++;
    p->hdrs[0] = '\0';
    char want[300];
    snprintf(want, sizeof(want), "Bot %s", s->token);
    bool bot = strcmp(p->auth, want) == 0;
    if (activity_request(s, p, method, route, bot))
        return;
    if (!bot) {
        respond_error(p, 401, 0, "401: Unauthorized");
        return;
    }
    snprintf(s->user_agent, sizeof(s->user_agent), "%s", p->ua);
    memcpy(s->ctype, p->ctype, sizeof(s->ctype));
    memcpy(s->accept, p->accept, sizeof(s->accept));
    memcpy(s->expect, p->expect, sizeof(s->expect));
    if (limited(s, p, route))
        return;
    struct json_object *body;
    if (p->too_large) {
        respond_error(p, 413, 40005, "Request entity too large");
        return;
    }
    if (!parse_body(s, p, method, route, &body))
        return;
    int kind = request_kind(method, route, body);
    if (!trapped(s, p, kind, route)) {
        route_request(s, p, method, route, body);
        if (kind >= 0 && p->status >= 200 && p->status < 300 && !p->held)
            s->answered[kind]++;
    }
    json_object_put(body);
}

/* Adds what came of the request's body; past BODY_MAX it is refused whole. */
static void append_body(struct pss *p, const void *in, size_t len)
{
    if (p->too_large || p->body_len + len > BODY_MAX) {
        p->too_large = true;
        return;
    }
    if (p->body_len + len + 1 > p->body_cap) {
        size_t cap = p->body_cap ? p->body_cap : 4096;
        while (cap < p->body_len + len + 1)
            cap *= 2;
        char *grown = realloc(p->body, cap);
        if (!grown) {
            p->too_large = true;
            return;
        }
        p->body = grown;
        p->body_cap = cap;
    }
    memcpy(p->body + p->body_len, in, len);
    p->body_len += len;
    p->body[p->body_len] = '\0';
}

static int write_response(struct lws *wsi, struct pss *p)
{
    unsigned char hb[LWS_PRE + 2048], *start = hb + LWS_PRE, *pp = start, *end = hb + sizeof(hb);
    if (lws_add_http_common_headers(wsi, (unsigned)p->status, "application/json", p->resp_len, &pp,
                                    end))
        return -1;
    char *save, *line = strtok_r(p->hdrs, "\n", &save);
    while (line) {
        char *val = strtok_r(NULL, "\n", &save);
        if (!val)
            break;
        if (lws_add_http_header_by_name(wsi, (const unsigned char *)line,
                                        (const unsigned char *)val, (int)strlen(val), &pp, end))
            return -1;
        line = strtok_r(NULL, "\n", &save);
    }
    if (lws_finalize_write_http_header(wsi, start, &pp, end))
        return -1;
    if (!p->resp_len)
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    lws_callback_on_writable(wsi);
    return 0;
}

/* A request's line and headers came: a GET or a request without a body is
 * answered now, others once their body is in (http_body_done). */
static int http_request(struct fd_server *s, struct lws *wsi, struct pss *p, const char *uri)
{
    static const enum lws_token_indexes toks[] = {WSI_TOKEN_GET_URI, WSI_TOKEN_POST_URI,
                                                  WSI_TOKEN_PATCH_URI, WSI_TOKEN_PUT_URI,
                                                  WSI_TOKEN_DELETE_URI};
    p->method = 0;
    for (int i = 0; i < 5; i++)
        if (lws_hdr_total_length(wsi, toks[i]) > 0)
            p->method = i;
    snprintf(p->path, sizeof(p->path), "%s", uri);
    p->auth[0] = p->ua[0] = '\0';
    lws_hdr_copy(wsi, p->auth, sizeof(p->auth), WSI_TOKEN_HTTP_AUTHORIZATION);
    lws_hdr_copy(wsi, p->ua, sizeof(p->ua), WSI_TOKEN_HTTP_USER_AGENT);
    p->ctype[0] = p->accept[0] = p->expect[0] = '\0';
    lws_hdr_copy(wsi, p->ctype, sizeof(p->ctype), WSI_TOKEN_HTTP_CONTENT_TYPE);
    lws_hdr_copy(wsi, p->accept, sizeof(p->accept), WSI_TOKEN_HTTP_ACCEPT);
    lws_hdr_copy(wsi, p->expect, sizeof(p->expect), WSI_TOKEN_HTTP_EXPECT);
    p->body_len = 0;
    p->too_large = false;
    char cl[32] = "";
    lws_hdr_copy(wsi, cl, sizeof(cl), WSI_TOKEN_HTTP_CONTENT_LENGTH);
    p->held = false;
    if (p->method != 0 && atoi(cl) != 0)
        return 0;
    rest(s, p);
    return p->held ? 0 : write_response(wsi, p);
}

/* The answer's body, once its headers are out. */
static int http_writeable(struct lws *wsi, struct pss *p)
{
    if (!p->resp_len)
        return 0;
    size_t n = p->resp_len;
    p->resp_len = 0;
    if (lws_write(wsi, p->resp + LWS_PRE, n, LWS_WRITE_HTTP_FINAL) != (int)n)
        return -1;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* A connection closed before a request came on it (a client killed just
 * after it connected, as the kill tests do) has no session data. */
static void http_closed(struct pss *p)
{
    if (!p)
        return;
    free(p->body);
    free(p->resp);
    p->body = NULL;
    p->resp = NULL;
    p->body_len = p->body_cap = p->resp_len = 0;
}

/* A gateway connection opened: it replaces the one before, and gets HELLO. */
static void ws_established(struct fd_server *s, struct lws *wsi, struct pss *p)
{
    p->ws = true;
    if (s->ws) {
        /* one connection at a time: the old one goes */
        lws_set_timeout(s->ws, PENDING_TIMEOUT_USER_OK, LWS_TO_KILL_ASYNC);
    }
    clear_frames(s);
    zlib_start(s, p->zlib);
    s->ws = wsi;
    s->identified = false;
    s->want_close = 0;
    s->hb_pending = false; /* an ask is answered on its own connection */
    s->connects++;
    struct json_object *d = json_object_new_object();
    json_object_object_add(d, "heartbeat_interval", json_object_new_int((int)s->hb_ms));
    send_op(s, 10, d);
    lws_callback_on_writable(wsi);
}

/* The gateway's next frame, or the close the test asked for (-1: the
 * connection is dropped or closed). */
static int ws_writeable(struct fd_server *s, struct lws *wsi)
{
    if (wsi != s->ws)
        return 0;
    if (s->want_close == -1) {
        s->want_close = 0;
        return -1;
    }
    if (s->outq) {
        struct frame *f = s->outq;
        s->outq = f->next;
        if (!s->outq)
            s->outq_tail = NULL;
        lws_write(wsi, f->data + LWS_PRE, f->len, f->binary ? LWS_WRITE_BINARY : LWS_WRITE_TEXT);
        free(f);
        if (s->outq || s->want_close)
            lws_callback_on_writable(wsi);
        return 0;
    }
    if (s->want_close > 0) {
        lws_close_reason(wsi, (enum lws_close_status)s->want_close, NULL, 0);
        s->want_close = 0;
        return -1;
    }
    return 0;
}

static void ws_receive(struct fd_server *s, struct lws *wsi, const void *in, size_t len)
{
    if (wsi != s->ws)
        return;
    char *txt = strndup(in, len);
    if (txt)
        handle_gateway(s, txt, len);
    free(txt);
    lws_callback_on_writable(wsi);
}

/* The websocket upgrade's user agent, path and query, for the tests to read,
 * and whether it asked for the transport compression. */
static void ws_upgrade(struct fd_server *s, struct lws *wsi, struct pss *p)
{
    s->ws_user_agent[0] = s->ws_path[0] = s->ws_args[0] = '\0';
    lws_hdr_copy(wsi, s->ws_user_agent, sizeof(s->ws_user_agent), WSI_TOKEN_HTTP_USER_AGENT);
    lws_hdr_copy(wsi, s->ws_path, sizeof(s->ws_path), WSI_TOKEN_GET_URI);
    lws_hdr_copy(wsi, s->ws_args, sizeof(s->ws_args), WSI_TOKEN_HTTP_URI_ARGS);
    char how[32];
    const char *c = lws_get_urlarg_by_name(wsi, "compress=", how, sizeof(how));
    p->zlib = c && strcmp(c, "zlib-stream") == 0;
}

static void ws_closed(struct fd_server *s, struct lws *wsi)
{
    if (wsi != s->ws)
        return;
    s->ws = NULL;
    s->identified = false;
    clear_frames(s);
    zlib_start(s, false);
}

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct fd_server *s = lws_context_user(lws_get_context(wsi));
    struct pss *p = user;
    int rc = 0;
    pthread_mutex_lock(&s->mu);
    switch (reason) {
    case LWS_CALLBACK_HTTP:
        rc = http_request(s, wsi, p, in);
        break;
    case LWS_CALLBACK_HTTP_BODY:
        append_body(p, in, len);
        break;
    case LWS_CALLBACK_HTTP_BODY_COMPLETION:
        rest(s, p);
        rc = p->held ? 0 : write_response(wsi, p);
        break;
    case LWS_CALLBACK_HTTP_WRITEABLE:
        rc = http_writeable(wsi, p);
        break;
    case LWS_CALLBACK_CLOSED_HTTP:
    case LWS_CALLBACK_HTTP_DROP_PROTOCOL:
        http_closed(p);
        break;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        ws_upgrade(s, wsi, p);
        break;
    case LWS_CALLBACK_ESTABLISHED:
        ws_established(s, wsi, p);
        break;
    case LWS_CALLBACK_RECEIVE:
        ws_receive(s, wsi, in, len);
        break;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        if (len >= 2) {
            const unsigned char *c = in;
            s->client_close = (c[0] << 8) | c[1];
        }
        break;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        rc = ws_writeable(s, wsi);
        break;
    case LWS_CALLBACK_CLOSED:
        ws_closed(s, wsi);
        break;
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED:
        if (s->ws && (s->outq || s->want_close))
            lws_callback_on_writable(s->ws);
        break;
    default:
        break;
    }
    unlock_changed(s);
    return rc;
}

static const struct lws_protocols protocols[] = {
    {"discord", callback, sizeof(struct pss), 0, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

static void *run(void *arg)
{
    struct fd_server *s = arg;
    while (!s->stop)
        lws_service(s->ctx, 0);
    return NULL;
}

static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t l = sizeof(a);
    if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
        getsockname(fd, (struct sockaddr *)&a, &l) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    close(fd);
    return ntohs(a.sin_port);
}

struct fd_server *fd_start(const char *token, unsigned hb_ms)
{
    return fd_start_seeded(token, hb_ms, 0);
}

unsigned long fd_seed(const struct fd_server *s)
{
    return s->seed;
}

struct fd_server *fd_start_seeded(const char *token, unsigned hb_ms, unsigned long seed)
{
    struct fd_server *s = calloc(1, sizeof(*s));
    if (!s)
        return NULL;
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    /* lws calls back into the protocol from inside lws calls made in a callback */
    pthread_mutexattr_settype(&ma, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&s->mu, &ma);
    pthread_mutexattr_destroy(&ma);
    snprintf(s->token, sizeof(s->token), "%s", token);
    s->hb_ms = hb_ms;
    s->log = json_object_new_array();
    s->messages = json_object_new_array();
    s->callbacks = json_object_new_array();
    s->webhooks = json_object_new_array();
    s->commands = json_object_new_array();
    s->refused = json_object_new_array();
    s->registered = json_object_new_object();
    s->dms = json_object_new_object();
    s->windows = json_object_new_object();
    s->ixs = json_object_new_object();
    s->ix_token_ms = LIM_TOKEN_MS;
    s->next_id = 100000000000000000ull;
    /* FD_SEED replays a run's variation; the seed is printed either way */
    const char *env = getenv("FD_SEED");
    unsigned long v = seed  ? seed
                      : env ? strtoul(env, NULL, 10)
                            : (unsigned long)time(NULL) ^ (unsigned long)getpid();
    fprintf(stderr, "fakediscord: variation seed %lu (FD_SEED=%lu replays it)\n", v, v);
    s->seed = v;
    s->rng = (uint64_t)v * 2654435761u + 0x9e3779b97f4a7c15ull;
    s->act = fa_new((uint64_t)v);
    fa_client(s->act, FD_APP_ID, "");
    s->bucket_limit = 5;
    struct lws_context_creation_info info;
    for (int tries = 0; tries < 20 && !s->ctx; tries++) {
        memset(&info, 0, sizeof(info));
        s->port = free_port();
        info.port = s->port;
        info.iface = "127.0.0.1";
        info.protocols = protocols;
        info.user = s;
        info.gid = -1;
        info.uid = -1;
        info.max_http_header_pool = 64;
        info.pt_serv_buf_size = 32 * 1024;
        s->ctx = lws_create_context(&info);
    }
    if (!s->ctx) {
        fd_stop(s);
        return NULL;
    }
    pthread_create(&s->thread, NULL, run, s);
    return s;
}

void fd_stop(struct fd_server *s)
{
    if (!s)
        return;
    if (s->ctx) {
        s->stop = 1;
        lws_cancel_service(s->ctx);
        pthread_join(s->thread, NULL);
        lws_context_destroy(s->ctx);
    }
    clear_frames(s);
    zlib_start(s, false);
    json_object_put(s->log);
    json_object_put(s->messages);
    json_object_put(s->callbacks);
    json_object_put(s->webhooks);
    json_object_put(s->commands);
    json_object_put(s->refused);
    json_object_put(s->registered);
    json_object_put(s->dms);
    json_object_put(s->windows);
    json_object_put(s->ixs);
    fa_free(s->act);
    pthread_mutex_destroy(&s->mu);
    free(s);
}

int fd_port(const struct fd_server *s)
{
    return s->port;
}

static void poke(struct fd_server *s)
{
    lws_cancel_service(s->ctx);
}

int64_t fd_dispatch(struct fd_server *s, const char *type, const char *d_json)
{
    struct json_object *d = json_tokener_parse(d_json);
    pthread_mutex_lock(&s->mu);
    int64_t seq = dispatch_locked(s, type, d);
    unlock_changed(s);
    poke(s);
    return seq;
}

void fd_withhold_acks(struct fd_server *s, bool on)
{
    pthread_mutex_lock(&s->mu);
    s->withhold = on;
    unlock_changed(s);
}

void fd_ask_heartbeat(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    if (s->ws && s->identified)
        ask_heartbeat(s);
    unlock_changed(s);
    poke(s);
}

void fd_send_raw(struct fd_server *s, const char *text)
{
    pthread_mutex_lock(&s->mu);
    if (s->ws)
        queue_frame(s, text, strlen(text));
    unlock_changed(s);
    poke(s);
}

void fd_send_oversized(struct fd_server *s, size_t bytes)
{
    char *big = malloc(bytes + 64);
    if (!big)
        return;
    size_t o = (size_t)sprintf(big, "{\"op\":0,\"t\":\"X\",\"s\":null,\"d\":\"");
    memset(big + o, 'x', bytes);
    strcpy(big + o + bytes, "\"}");
    fd_send_raw(s, big);
    free(big);
}

void fd_close(struct fd_server *s, int code)
{
    pthread_mutex_lock(&s->mu);
    if (s->ws)
        s->want_close = code;
    unlock_changed(s);
    poke(s);
}

void fd_drop(struct fd_server *s)
{
    fd_close(s, -1);
}

void fd_reconnect(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    if (s->ws)
        send_op(s, 7, NULL);
    unlock_changed(s);
    poke(s);
}

void fd_invalid_session(struct fd_server *s, bool resumable)
{
    pthread_mutex_lock(&s->mu);
    if (!resumable)
        s->session_id[0] = '\0';
    if (s->ws)
        send_op(s, 9, json_object_new_boolean(resumable));
    unlock_changed(s);
    poke(s);
}

static void force(struct fd_server *s, const char *path_prefix, int count, int status, bool global,
                  double retry_after)
{
    pthread_mutex_lock(&s->mu);
    if (s->nforces < 8) {
        struct force *f = &s->forces[s->nforces++];
        snprintf(f->prefix, sizeof(f->prefix), "%s", path_prefix);
        f->count = count;
        f->status = status;
        f->global = global;
        f->retry_after = retry_after;
    }
    unlock_changed(s);
}

void fd_force_429(struct fd_server *s, const char *path_prefix, int count, bool global,
                  double retry_after)
{
    force(s, path_prefix, count, 429, global, retry_after);
}

void fd_force_status(struct fd_server *s, const char *path_prefix, int count, int status)
{
    force(s, path_prefix, count, status, false, 0);
}

void fd_clear_forces(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    s->nforces = 0;
    unlock_changed(s);
}

static void set_trap(struct fd_server *s, enum fd_kind kind, const char *channel,
                     enum trap_mode mode, double retry)
{
    pthread_mutex_lock(&s->mu);
    for (unsigned i = 0; i < sizeof s->traps / sizeof *s->traps; i++)
        if (!s->traps[i].armed) {
            struct trap *t = &s->traps[i];
            *t = (struct trap){.kind = kind, .mode = mode, .retry_after = retry, .armed = true};
            snprintf(t->channel, sizeof t->channel, "%s", channel ? channel : "");
            break;
        }
    unlock_changed(s);
}

void fd_hold_next(struct fd_server *s, enum fd_kind kind, const char *channel, bool applied)
{
    set_trap(s, kind, channel, applied ? TRAP_HOLD_APPLIED : TRAP_HOLD, 0);
}

void fd_delay_next(struct fd_server *s, enum fd_kind kind, const char *channel, double retry_after)
{
    set_trap(s, kind, channel, TRAP_DELAY, retry_after);
}

void fd_disarm(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    memset(s->traps, 0, sizeof s->traps);
    unlock_changed(s);
}

bool fd_trap_sprung(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    bool armed = false;
    for (unsigned i = 0; i < sizeof s->traps / sizeof *s->traps; i++)
        armed = armed || s->traps[i].armed;
    unlock_changed(s);
    return !armed;
}

unsigned long fd_answered(struct fd_server *s, enum fd_kind kind)
{
    pthread_mutex_lock(&s->mu);
    unsigned long n = s->answered[kind];
    unlock_changed(s);
    return n;
}

void fd_set_privileged(struct fd_server *s, int64_t intents)
{
    pthread_mutex_lock(&s->mu);
    s->privileged = intents;
    unlock_changed(s);
}

void fd_set_interaction_window(struct fd_server *s, unsigned ms)
{
    pthread_mutex_lock(&s->mu);
    s->ix_window_ms = ms;
    unlock_changed(s);
}

void fd_set_token_life(struct fd_server *s, unsigned ms)
{
    pthread_mutex_lock(&s->mu);
    s->ix_token_ms = ms;
    unlock_changed(s);
}

void fd_dm_closed(struct fd_server *s, const char *user, bool closed)
{
    pthread_mutex_lock(&s->mu);
    struct json_object *ch = json_object_object_get(s->dms, user);
    if (!ch) {
        ch = json_object_new_object();
        json_object_object_add(ch, "id", json_object_new_string(new_id(s)));
        json_object_object_add(ch, "type", json_object_new_int(1));
        json_object_object_add(s->dms, user, ch);
    }
    json_object_object_add(ch, "closed", json_object_new_boolean(closed));
    unlock_changed(s);
}

void fd_set_bucket_limit(struct fd_server *s, int limit)
{
    pthread_mutex_lock(&s->mu);
    s->bucket_limit = limit;
    unlock_changed(s);
}

/* Whether command c may be used in a guild (or, guild false, in the bot's DM):
 * its contexts say (none listed: everywhere). */
static bool usable_in(struct json_object *c, bool guild)
{
    struct json_object *contexts = json_object_object_get(c, "contexts");
    if (!json_object_is_type(contexts, json_type_array))
        return true;
    for (size_t i = 0; i < json_object_array_length(contexts); i++)
        if (json_object_get_int(json_object_array_get_idx(contexts, i)) == (guild ? 0 : 1))
            return true;
    return false;
}

/* The option named name among o's options, or NULL. */
static struct json_object *option_named(struct json_object *o, const char *name)
{
    struct json_object *opts = json_object_object_get(o, "options");
    for (size_t i = 0; i < alen(opts); i++) {
        struct json_object *x = json_object_array_get_idx(opts, i);
        const char *n = json_object_get_string(json_object_object_get(x, "name"));
        if (n && strcmp(n, name) == 0)
            return x;
    }
    return NULL;
}

static int option_type(struct json_object *o)
{
    return json_object_get_int(json_object_object_get(o, "type"));
}

/* The command, subcommand or grouped subcommand word among cmds, or NULL. */
static struct json_object *find_leaf(struct json_object *cmds, bool guild, const char *word,
                                     char *top, size_t toplen, char *group, size_t grouplen)
{
    for (size_t i = 0; i < alen(cmds); i++) {
        struct json_object *c = json_object_array_get_idx(cmds, i), *x, *leaf = NULL;
        const char *name = json_object_get_string(json_object_object_get(c, "name"));
        if (!name || !usable_in(c, guild))
            continue;
        snprintf(group, grouplen, "%s", "");
        struct json_object *opts = json_object_object_get(c, "options");
        struct json_object *first = alen(opts) ? json_object_array_get_idx(opts, 0) : NULL;
        bool nested = first && (option_type(first) == 1 || option_type(first) == 2);
        if (strcmp(name, word) == 0 && !nested)
            leaf = c;
        else if ((x = option_named(c, word)) && option_type(x) == 1)
            leaf = x;
        for (size_t g = 0; !leaf && g < alen(opts); g++) {
            struct json_object *grp = json_object_array_get_idx(opts, g);
            if (option_type(grp) == 2 && (x = option_named(grp, word)) && option_type(x) == 1) {
                leaf = x;
                snprintf(group, grouplen, "%s",
                         json_object_get_string(json_object_object_get(grp, "name")));
            }
        }
        if (leaf) {
            snprintf(top, toplen, "%s", name);
            return leaf;
        }
    }
    return NULL;
}

bool fd_slash_route(struct fd_server *s, const char *guild, const char *word, const char *opts,
                    char *top, size_t toplen, char *group, size_t grouplen)
{
    pthread_mutex_lock(&s->mu);
    struct json_object *leaf = NULL;
    if (guild)
        leaf = find_leaf(json_object_object_get(s->registered, guild), true, word, top, toplen,
                         group, grouplen);
    if (!leaf)
        leaf = find_leaf(json_object_object_get(s->registered, "global"), guild != NULL, word, top,
                         toplen, group, grouplen);
    struct json_object *given = opts ? json_tokener_parse(opts) : NULL;
    bool ok = leaf != NULL;
    for (size_t i = 0; ok && i < alen(given); i++) {
        const char *n = json_object_get_string(
            json_object_object_get(json_object_array_get_idx(given, i), "name"));
        ok = n && option_named(leaf, n);
    }
    json_object_put(given);
    unlock_changed(s);
    return ok;
}

size_t fd_callback_count(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    size_t n = json_object_array_length(s->callbacks);
    unlock_changed(s);
    return n;
}

/* The gateway's part of the record, new objects the caller owns (under the lock). */
static struct json_object *gateway_record(struct fd_server *s)
{
    struct json_object *g = json_object_new_object();
    json_object_object_add(g, "connects", json_object_new_int((int)s->connects));
    json_object_object_add(g, "identifies", json_object_new_int((int)s->identifies));
    json_object_object_add(g, "resumes", json_object_new_int((int)s->resumes));
    json_object_object_add(g, "heartbeats", json_object_new_int((int)s->heartbeats));
    json_object_object_add(g, "heartbeats_asked", json_object_new_int((int)s->hb_asked));
    json_object_object_add(g, "asks_answered", json_object_new_int((int)s->hb_answered));
    json_object_object_add(g, "client_close", json_object_new_int(s->client_close));
    json_object_object_add(g, "intents", json_object_new_int64(s->intents));
    json_object_object_add(g, "refused_intents",
                           json_object_new_int64((int64_t)s->refused_intents));
    json_object_object_add(g, "ready", json_object_new_boolean(s->identified));
    json_object_object_add(g, "connected", json_object_new_boolean(s->ws != NULL));
    json_object_object_add(g, "seq", json_object_new_int64(s->seq));
    json_object_object_add(g, "user_agent", json_object_new_string(s->user_agent));
    json_object_object_add(g, "rest_content_type", json_object_new_string(s->ctype));
    json_object_object_add(g, "rest_accept", json_object_new_string(s->accept));
    json_object_object_add(g, "rest_expect", json_object_new_string(s->expect));
    json_object_object_add(g, "ws_user_agent", json_object_new_string(s->ws_user_agent));
    json_object_object_add(g, "ws_path", json_object_new_string(s->ws_path));
    json_object_object_add(g, "ws_args", json_object_new_string(s->ws_args));
    json_object_object_add(g, "compressed", json_object_new_boolean(s->zlib));
    return g;
}

struct json_object *fd_snapshot(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "messages", json_object_get(s->messages));
    json_object_object_add(o, "callbacks", json_object_get(s->callbacks));
    json_object_object_add(o, "webhooks", json_object_get(s->webhooks));
    json_object_object_add(o, "commands", json_object_get(s->commands));
    json_object_object_add(o, "refused", json_object_get(s->refused));
    json_object_object_add(o, "dms", json_object_get(s->dms));
    json_object_object_add(o, "requests", json_object_new_int64((int64_t)s->requests));
    json_object_object_add(o, "r429", json_object_new_int64((int64_t)s->r429));
    json_object_object_add(o, "r429_global", json_object_new_int64((int64_t)s->r429_global));
    json_object_object_add(o, "varied", json_object_new_int64((int64_t)s->varied));
    json_object_object_add(o, "invalid", json_object_new_int64((int64_t)s->invalid));
    json_object_object_add(o, "nonce_repeats", json_object_new_int64((int64_t)s->nonce_repeats));
    json_object_object_add(o, "ix_refused", json_object_new_int64((int64_t)s->ix_refused));
    json_object_object_add(o, "stripped", json_object_new_int64((int64_t)s->stripped));
    json_object_object_add(o, "held", json_object_new_int64((int64_t)s->held));
    json_object_object_add(o, "forced", json_object_new_int64((int64_t)s->forced));
    json_object_object_add(o, "gateway", gateway_record(s));
    /* a deep copy, so the caller's thread owns every object */
    const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    struct json_object *copy = json_tokener_parse(t);
    json_object_put(o);
    pthread_mutex_unlock(&s->mu); /* a reader: no change */
    return copy;
}

struct json_object *fd_gateway(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    struct json_object *g = gateway_record(s);
    pthread_mutex_unlock(&s->mu); /* a reader: no change */
    return g;
}

unsigned long fd_changes(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    unsigned long n = s->changes;
    pthread_mutex_unlock(&s->mu);
    return n;
}

/* ---- the Activity (fakeactivity.c) ---- */

void fd_activity_client(struct fd_server *s, const char *client_id, const char *secret)
{
    pthread_mutex_lock(&s->mu);
    fa_client(s->act, client_id, secret);
    unlock_changed(s);
}

void fd_activity_instance(struct fd_server *s, const char *instance, const char *channel,
                          const char *guild, const char *users_json)
{
    struct json_object *users = json_tokener_parse(users_json);
    pthread_mutex_lock(&s->mu);
    fa_instance(s->act, instance, channel, guild, users);
    unlock_changed(s);
    json_object_put(users);
}

void fd_activity_code(struct fd_server *s, const char *user, const char *name, char *out,
                      size_t len)
{
    pthread_mutex_lock(&s->mu);
    fa_code(s->act, user, name, out, len);
    unlock_changed(s);
}

void fd_set_activities(struct fd_server *s, bool on)
{
    pthread_mutex_lock(&s->mu);
    s->activities = on;
    unlock_changed(s);
}

void fd_activity_vary(struct fd_server *s, bool on)
{
    pthread_mutex_lock(&s->mu);
    fa_vary(s->act, on);
    unlock_changed(s);
}

void fd_activity_hang(struct fd_server *s, int n)
{
    pthread_mutex_lock(&s->mu);
    fa_hang(s->act, n);
    unlock_changed(s);
}

struct json_object *fd_activity_record(struct fd_server *s)
{
    pthread_mutex_lock(&s->mu);
    struct json_object *r = fa_record(s->act);
    unlock_changed(s);
    return r;
}
