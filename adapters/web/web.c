/*
 * web.c - the local table: libwebsockets serves the page and a websocket on
 * the host's libuv loop; browsers hold seats by a random token.
 *
 * Shape of the adapter:
 *   - seats: sha256(token) -> user id and display name, kept in the store
 *     under "seat:<hex>" so a restart keeps them; a user id is derived from the
 *     token alone, so a socket can only ever act for its own seat;
 *   - scopes: every table and every user has a bounded cache of the frames
 *     the bot sent there (keyed frames replaced in place), replayed to a socket
 *     that opens the table or says hello, so a reload shows the game again;
 *   - connections: one per websocket, with a queue of outgoing frames written
 *     one fragment per WRITEABLE callback;
 *   - limits, so that one client cannot lock the others out: connections
 *     (HTTP and websocket) at once and per client address, counted from
 *     accept() to close; a deadline for hello, then pings and a hang-up for a
 *     silent socket; output queued per socket and in all; tables one seat may
 *     open before a game starts there; and only the Host names configured.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libwebsockets.h>
#include <openssl/evp.h>
#include <uv.h>

#include "adapters/web/assets.h"
#include "adapters/web/web.h"
#include "bot/config.h"
#include "bot/log.h"
#include "bot/platform.h"

#define MOD "web"

#define WEB_MAX_FRAME  8192             /* largest inbound message, bytes */
#define WEB_MAX_OPEN   16               /* tables one socket follows */
#define WEB_CACHE_MAX  256              /* frames kept per table or user */
#define WEB_MAX_TABLES 256              /* tables the adapter remembers */
#define WEB_QUEUE_MAX  (4u << 20)       /* bytes queued to one socket before it is dropped */
#define WEB_FD_SPARE   64               /* descriptors left to the rest of the daemon */
#define WEB_HOSTS_MAX  64               /* names in the list of allowed Host names */
#define WEB_HOST_LEN   256              /* bytes in a Host header */
#define WEB_ADDR_LEN   INET6_ADDRSTRLEN /* bytes in a client address as text */
#define WEB_CHUNK      4096             /* bytes written per WRITEABLE callback */
#define WEB_NAME_MAX   24               /* bytes in a display name */
#define WEB_TABLE_MAX  32               /* bytes in a table id */
#define WEB_TEXT_MAX   2000             /* bytes in a typed command */
#define WEB_KEY_MAX    128              /* bytes in a message key */
#define WEB_TOKEN_MIN  16
#define WEB_TOKEN_MAX  128

struct frame {
    struct frame *next;
    size_t len;
    unsigned char buf[]; /* LWS_PRE bytes of headroom, then len bytes */
};

struct cached {
    char *key; /* NULL for a message never referred to again */
    char *json;
};

/* The frames sent to one table (is_user false) or one user's DMs. */
struct scope {
    struct scope *next;
    char *id;
    bool is_user;
    struct cached *items;
    size_t n, cap;
    /* tables only: what the list of tables shows, once a game opened there */
    char *phase;
    int players;
    bool listed;
    char *creator; /* the user who opened it first, until it is listed */
};

struct seat {
    struct seat *next;
    char hash[65];
    char *user;
    char *name;
};

struct probe {
    struct probe *next;
    char *user;
};

struct web;

/* libwebsockets' per-connection data, for HTTP and websocket alike. */
struct conn {
    struct web *w; /* NULL once the adapter stopped */
    struct lws *wsi;
    struct conn *prev, *next;
    /* websocket */
    char *user, *name;
    char *open[WEB_MAX_OPEN];
    unsigned nopen;
    char *rx;
    size_t rxlen;
    bool in_msg, rx_over, rx_binary;
    struct frame *qhead, *qtail;
    size_t qbytes, qoff;
    bool closing, want_write, want_ping;
    /* HTTP */
    const struct web_asset *asset;
    size_t http_off;
};

/* Lives as long as the lws context (lws frees it), so late callbacks are safe. */
struct shim {
    struct web *w;
};

/* An open connection (from accept() to close) and its client's address. */
struct peer {
    struct lws *wsi;
    char addr[WEB_ADDR_LEN];
};

struct web {
    struct platform base;
    char *bind;
    int cfg_port;
    int port;
    /* limits, from [web] */
    unsigned max_conns, max_per_addr, tables_per_seat;
    int hello_secs, idle_secs;
    size_t queue_max;
    char *hosts_cfg;
    char *hosts[WEB_HOSTS_MAX]; /* Host names allowed, lower case, IPv6 without brackets */
    unsigned nhosts;
    struct peer *peers; /* max_conns of them */
    unsigned npeers;
    char pending_addr[WEB_ADDR_LEN]; /* accepted, not yet a wsi */
    bool pending;
    size_t queued; /* bytes queued to all sockets */
    lws_sorted_usec_list_t ping_sul;
    struct lws_context *ctx;  /* set while started */
    struct lws_context *lctx; /* set until lws has wholly destroyed the context */
    struct shim *shim;
    struct conn *conns;
    unsigned nconns;
    struct scope *scopes;
    unsigned ntables;
    struct seat *seats;
    struct probe *probes;
    lws_sorted_usec_list_t probe_sul;
    bool probe_armed;
    uint64_t order;
    bool started;
};

/* ---- small helpers ---- */

static void sha256_hex(const char *a, const char *b, char out[65])
{
    unsigned char md[32];
    unsigned int mdlen = 0;
    EVP_MD_CTX *c = EVP_MD_CTX_new();
    if (!c || !EVP_DigestInit_ex(c, EVP_sha256(), NULL) || !EVP_DigestUpdate(c, a, strlen(a)) ||
        !EVP_DigestUpdate(c, b, strlen(b)) || !EVP_DigestFinal_ex(c, md, &mdlen) || mdlen != 32) {
        /* only on no memory: an unusable hash that no token maps to */
        memset(out, '0', 64);
    } else {
        for (int i = 0; i < 32; i++)
            snprintf(out + 2 * i, 3, "%02x", md[i]);
    }
    out[64] = '\0';
    EVP_MD_CTX_free(c);
}

static bool valid_token(const char *t, size_t len)
{
    if (len < WEB_TOKEN_MIN || len > WEB_TOKEN_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)t[i]) && t[i] != '-' && t[i] != '_')
            return false;
    return true;
}

/* A display name: 1..24 bytes of letters, digits, '-', '_', '.' or non-ASCII UTF-8. */
static bool valid_name(const char *s, size_t len)
{
    if (len < 1 || len > WEB_NAME_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80)
            continue;
        if (!isalnum(c) && c != '-' && c != '_' && c != '.')
            return false;
    }
    return true;
}

/* Normalises a table name into its id in out: lower case, spaces to '-'. */
static bool table_id(const char *s, size_t len, char out[WEB_TABLE_MAX + 1])
{
    if (len < 1 || len > WEB_TABLE_MAX)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ')
            c = '-';
        c = (unsigned char)tolower(c);
        if (!isalnum(c) && c != '-' && c != '_')
            return false;
        out[i] = (char)c;
    }
    out[len] = '\0';
    return true;
}

/* The string member `name` of o, its length in *len, or NULL (absent, not a string, has NUL). */
static const char *get_str(struct json_object *o, const char *name, size_t *len)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, name, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    const char *s = json_object_get_string(v);
    size_t n = (size_t)json_object_get_string_len(v);
    if (strlen(s) != n)
        return NULL;
    if (len)
        *len = n;
    return s;
}

/* ---- outgoing frames ---- */

/*
 * Output is queued without calling libwebsockets, and conn_wake() only marks
 * the socket; wake_all() asks for the WRITEABLE callbacks once the handler
 * returns. So the message handler runs without a live connection (fuzzing).
 */
static void conn_wake(struct conn *c)
{
    c->want_write = true;
}

static void wake_all(struct web *w)
{
    for (struct conn *c = w->conns; c; c = c->next) {
        if (c->want_write)
            lws_callback_on_writable(c->wsi);
        c->want_write = false;
    }
}

static void conn_clear_queue(struct conn *c)
{
    struct frame *f = c->qhead;
    while (f) {
        struct frame *next = f->next;
        free(f);
        f = next;
    }
    if (c->w)
        c->w->queued -= c->qbytes;
    c->qhead = c->qtail = NULL;
    c->qbytes = c->qoff = 0;
}

/* Closes c once it can be written to; what it had queued is dropped now. */
static void conn_kill(struct conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    conn_clear_queue(c);
    conn_wake(c);
}

static void conn_drop_slow(struct conn *c, const char *why)
{
    log_warn(MOD, NULL, "dropping a socket of %s: %zu bytes queued, %zu to all sockets (%s)",
             c->user ? c->user : "-", c->qbytes, c->w ? c->w->queued : 0, why);
    conn_kill(c);
}

/* Makes room for len more bytes in all: drops the sockets with the most queued. */
static void queue_make_room(struct web *w, size_t len)
{
    while (w->queued + len > w->queue_max) {
        struct conn *worst = NULL;
        for (struct conn *o = w->conns; o; o = o->next)
            if (!o->closing && o->qbytes > 0 && (!worst || o->qbytes > worst->qbytes))
                worst = o;
        if (!worst)
            return;
        conn_drop_slow(worst, "queue_bytes");
    }
}

static void conn_queue(struct conn *c, const char *json, size_t len)
{
    if (c->closing)
        return;
    if (c->qbytes + len > WEB_QUEUE_MAX) {
        conn_drop_slow(c, "too slow");
        return;
    }
    if (c->w) {
        queue_make_room(c->w, len);
        if (c->closing)
            return;
    }
    struct frame *f = malloc(sizeof *f + LWS_PRE + len);
    if (!f) {
        conn_kill(c);
        return;
    }
    f->next = NULL;
    f->len = len;
    memcpy(f->buf + LWS_PRE, json, len);
    if (c->qtail)
        c->qtail->next = f;
    else
        c->qhead = f;
    c->qtail = f;
    c->qbytes += len;
    if (c->w)
        c->w->queued += len;
    conn_wake(c);
}

static void conn_queue_obj(struct conn *c, struct json_object *o)
{
    size_t len;
    const char *s = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    if (s)
        conn_queue(c, s, len);
}

static void send_error(struct conn *c, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void send_error(struct conn *c, const char *code, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string("error"));
    json_object_object_add(o, "error", json_object_new_string(code));
    json_object_object_add(o, "text", json_object_new_string(text));
    conn_queue_obj(c, o);
    json_object_put(o);
}

/* Writes the next fragment of the head frame. Returns -1 to close the socket. */
static int conn_write(struct conn *c)
{
    if (c->closing) {
        static const char reason[] = "too slow";
        lws_close_reason(c->wsi, LWS_CLOSE_STATUS_POLICY_VIOLATION, (unsigned char *)reason,
                         sizeof reason - 1);
        return -1;
    }
    if (c->want_ping && c->qoff == 0) {
        /* a fragmented frame goes out whole before a ping; the pong echoes its one byte */
        unsigned char ping[LWS_PRE + 1];
        ping[LWS_PRE] = 'p';
        c->want_ping = false;
        if (lws_write(c->wsi, ping + LWS_PRE, 1, LWS_WRITE_PING) < 1)
            return -1;
        if (c->qhead)
            lws_callback_on_writable(c->wsi);
        return 0;
    }
    struct frame *f = c->qhead;
    if (!f)
        return 0;
    size_t left = f->len - c->qoff;
    size_t n = left > WEB_CHUNK ? WEB_CHUNK : left;
    int flags = lws_write_ws_flags(LWS_WRITE_TEXT, c->qoff == 0, n == left);
    if (lws_write(c->wsi, f->buf + LWS_PRE + c->qoff, n, (enum lws_write_protocol)flags) < (int)n)
        return -1;
    c->qoff += n;
    if (c->qoff == f->len) {
        c->qhead = f->next;
        if (!c->qhead)
            c->qtail = NULL;
        c->qbytes -= f->len;
        c->w->queued -= f->len;
        c->qoff = 0;
        free(f);
    }
    if (c->qhead)
        lws_callback_on_writable(c->wsi);
    return 0;
}

static void conn_free(struct conn *c)
{
    conn_clear_queue(c);
    for (unsigned i = 0; i < c->nopen; i++)
        free(c->open[i]);
    c->nopen = 0;
    free(c->user);
    free(c->name);
    free(c->rx);
    c->user = c->name = c->rx = NULL;
}

static void conn_unlink(struct web *w, struct conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else if (w->conns == c)
        w->conns = c->next;
    if (c->next)
        c->next->prev = c->prev;
    c->prev = c->next = NULL;
    w->nconns--;
}

static bool conn_follows(const struct conn *c, const char *table)
{
    for (unsigned i = 0; i < c->nopen; i++)
        if (strcmp(c->open[i], table) == 0)
            return true;
    return false;
}

/* ---- scopes: tables and users, with their cached frames ---- */

static struct scope *scope_find(struct web *w, const char *id, bool is_user)
{
    for (struct scope *s = w->scopes; s; s = s->next)
        if (s->is_user == is_user && strcmp(s->id, id) == 0)
            return s;
    return NULL;
}

static void scope_free(struct scope *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->items[i].key);
        free(s->items[i].json);
    }
    free(s->items);
    free(s->id);
    free(s->phase);
    free(s->creator);
    free(s);
}

static struct scope *scope_new(struct web *w, const char *id, bool is_user)
{
    struct scope *s = calloc(1, sizeof *s);
    if (!s || !(s->id = strdup(id))) {
        free(s);
        return NULL;
    }
    s->is_user = is_user;
    s->next = w->scopes;
    w->scopes = s;
    if (!is_user)
        w->ntables++;
    return s;
}

static struct json_object *tables_json(struct web *w)
{
    struct json_object *o = json_object_new_object();
    struct json_object *a = json_object_new_array();
    for (struct scope *s = w->scopes; s; s = s->next) {
        if (s->is_user || !s->listed)
            continue;
        struct json_object *t = json_object_new_object();
        json_object_object_add(t, "id", json_object_new_string(s->id));
        json_object_object_add(t, "phase", s->phase ? json_object_new_string(s->phase) : NULL);
        json_object_object_add(t, "players", json_object_new_int(s->players));
        json_object_array_add(a, t);
    }
    json_object_object_add(o, "type", json_object_new_string("tables"));
    json_object_object_add(o, "tables", a);
    return o;
}

static void tables_broadcast(struct web *w)
{
    struct json_object *o = tables_json(w);
    for (struct conn *c = w->conns; c; c = c->next)
        if (c->user)
            conn_queue_obj(c, o);
    json_object_put(o);
}

static void tables_save(struct web *w)
{
    struct json_object *a = json_object_new_array();
    for (struct scope *s = w->scopes; s; s = s->next)
        if (!s->is_user && s->listed)
            json_object_array_add(a, json_object_new_string(s->id));
    const char *str = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
    if (w->base.host->state_set && str)
        w->base.host->state_set(w->base.host->ctx, &w->base, "tables", str);
    json_object_put(a);
}

/* The table scope for id, made if new (listed only once a game opens there). NULL when full. */
static struct scope *table_get(struct web *w, const char *id)
{
    struct scope *s = scope_find(w, id, false);
    if (s)
        return s;
    if (w->ntables >= WEB_MAX_TABLES)
        return NULL;
    return scope_new(w, id, false);
}

static bool table_followed(const struct web *w, const char *id)
{
    for (const struct conn *c = w->conns; c; c = c->next)
        if (conn_follows(c, id))
            return true;
    return false;
}

/* Forgets table t when nobody follows it and no game runs there (none yet, or over). */
static void table_drop_if_empty(struct web *w, struct scope *t)
{
    if (table_followed(w, t->id))
        return;
    bool listed = t->listed;
    if (listed && (!t->phase || strcmp(t->phase, "over") != 0))
        return;
    struct scope **pp = &w->scopes;
    while (*pp != t)
        pp = &(*pp)->next;
    *pp = t->next;
    w->ntables--;
    scope_free(t);
    if (listed) {
        tables_save(w);
        tables_broadcast(w);
    }
}

/* How many tables user opened that have no game yet. */
static unsigned tables_opened_by(const struct web *w, const char *user)
{
    unsigned n = 0;
    for (const struct scope *s = w->scopes; s; s = s->next)
        if (!s->is_user && !s->listed && s->creator && strcmp(s->creator, user) == 0)
            n++;
    return n;
}

static void tables_load(struct web *w)
{
    if (!w->base.host->state_get)
        return;
    char *str = w->base.host->state_get(w->base.host->ctx, &w->base, "tables");
    if (!str)
        return;
    struct json_object *a = json_tokener_parse(str);
    free(str);
    if (a && json_object_is_type(a, json_type_array)) {
        size_t n = json_object_array_length(a);
        /* the list is saved newest first: add oldest first to keep that order */
        for (size_t i = n; i-- > 0;) {
            struct json_object *v = json_object_array_get_idx(a, i);
            char id[WEB_TABLE_MAX + 1];
            const char *s = json_object_get_string(v);
            struct scope *t = NULL;
            if (json_object_is_type(v, json_type_string) && table_id(s, strlen(s), id) &&
                !scope_find(w, id, false) && w->ntables < WEB_MAX_TABLES)
                t = scope_new(w, id, false);
            if (t)
                t->listed = true;
        }
    }
    json_object_put(a);
}

/* Keeps json under key in s: replaces the keyed frame when asked, drops the oldest when full. */
static void scope_cache(struct scope *s, const char *key, bool replace, const char *json)
{
    char *copy = strdup(json);
    if (!copy)
        return;
    if (key) {
        for (size_t i = 0; i < s->n; i++) {
            if (!s->items[i].key || strcmp(s->items[i].key, key) != 0)
                continue;
            if (replace) {
                /* move it last, so a replay shows frames in the order of their latest state */
                struct cached it = s->items[i];
                free(it.json);
                it.json = copy;
                memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof *s->items);
                s->items[s->n - 1] = it;
                return;
            }
            /* a new message now answers to the key; the old one stays as history */
            free(s->items[i].key);
            s->items[i].key = NULL;
        }
    }
    if (s->n == WEB_CACHE_MAX) {
        free(s->items[0].key);
        free(s->items[0].json);
        memmove(&s->items[0], &s->items[1], (s->n - 1) * sizeof *s->items);
        s->n--;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct cached *items = realloc(s->items, cap * sizeof *items);
        if (!items) {
            free(copy);
            return;
        }
        s->items = items;
        s->cap = cap;
    }
    s->items[s->n].key = key ? strdup(key) : NULL;
    s->items[s->n].json = copy;
    s->n++;
}

static bool scope_has_key(const struct scope *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->items[i].key && strcmp(s->items[i].key, key) == 0)
            return true;
    return false;
}

static void scope_replay(struct conn *c, const struct scope *s)
{
    for (size_t i = 0; i < s->n; i++)
        conn_queue(c, s->items[i].json, strlen(s->items[i].json));
}

/* ---- seats ---- */

/* The store key that reserves a name for one seat: "name:" and the name in lower case. */
static void name_key(const char *name, char key[6 + WEB_NAME_MAX + 1])
{
    size_t n = strlen(name);
    memcpy(key, "name:", 5);
    for (size_t i = 0; i < n && i < WEB_NAME_MAX; i++)
        key[5 + i] = (char)tolower((unsigned char)name[i]);
    key[5 + (n < WEB_NAME_MAX ? n : WEB_NAME_MAX)] = '\0';
}

/* Whether name belongs to a seat other than s: in memory, or reserved in the store. */
static bool name_taken(struct web *w, const struct seat *s, const char *name)
{
    for (struct seat *o = w->seats; o; o = o->next)
        if (o != s && o->name && strcasecmp(o->name, name) == 0)
            return true;
    if (!w->base.host->state_get)
        return false;
    char key[6 + WEB_NAME_MAX + 1];
    name_key(name, key);
    char *owner = w->base.host->state_get(w->base.host->ctx, &w->base, key);
    bool taken = owner && owner[0] && strcmp(owner, s->hash) != 0;
    free(owner);
    return taken;
}

static void name_reserve(struct web *w, const char *name, const char *hash)
{
    if (!w->base.host->state_set)
        return;
    char key[6 + WEB_NAME_MAX + 1];
    name_key(name, key);
    w->base.host->state_set(w->base.host->ctx, &w->base, key, hash);
}

/* Deletes the store row that reserved a name the seat gave up. */
static void name_release(struct web *w, const char *name)
{
    if (!w->base.host->state_del)
        return;
    char key[6 + WEB_NAME_MAX + 1];
    name_key(name, key);
    if (w->base.host->state_del(w->base.host->ctx, &w->base, key) != 0)
        log_warn(MOD, NULL, "could not release the name %s", name);
}

static void seat_free(struct seat *s)
{
    free(s->user);
    free(s->name);
    free(s);
}

/* Forgets the seat of user in memory once no socket holds it (the store keeps it). */
static void seat_release(struct web *w, const char *user)
{
    for (const struct conn *c = w->conns; c; c = c->next)
        if (c->user && strcmp(c->user, user) == 0)
            return;
    for (struct seat **pp = &w->seats; *pp; pp = &(*pp)->next) {
        if (strcmp((*pp)->user, user) == 0) {
            struct seat *s = *pp;
            *pp = s->next;
            seat_free(s);
            return;
        }
    }
}

static void seat_save(struct web *w, const struct seat *s)
{
    if (!w->base.host->state_set)
        return;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "user", json_object_new_string(s->user));
    json_object_object_add(o, "name", json_object_new_string(s->name));
    char key[80];
    snprintf(key, sizeof key, "seat:%s", s->hash);
    const char *str = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    if (str && w->base.host->state_set(w->base.host->ctx, &w->base, key, str) != 0)
        log_warn(MOD, NULL, "could not store the seat of %s", s->user);
    json_object_put(o);
}

/*
 * The seat of token: from memory (*fresh false), or else read from the store
 * or new with no name yet (*fresh true: not yet in w->seats; the caller links
 * it once the hello succeeds, or frees it).
 */
static struct seat *seat_get(struct web *w, const char *token, bool *fresh)
{
    char hash[65];
    sha256_hex("", token, hash);
    *fresh = false;
    for (struct seat *s = w->seats; s; s = s->next)
        if (strcmp(s->hash, hash) == 0)
            return s;
    struct seat *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    memcpy(s->hash, hash, sizeof hash);
    char uid[65];
    sha256_hex("illegald-web-user\n", token, uid);
    char user[18];
    user[0] = 'w';
    memcpy(user + 1, uid, 16);
    user[17] = '\0';
    s->user = strdup(user);
    if (w->base.host->state_get) {
        char key[80];
        snprintf(key, sizeof key, "seat:%s", hash);
        char *str = w->base.host->state_get(w->base.host->ctx, &w->base, key);
        struct json_object *o = str ? json_tokener_parse(str) : NULL;
        free(str);
        const char *name = o ? get_str(o, "name", NULL) : NULL;
        if (name && valid_name(name, strlen(name)))
            s->name = strdup(name);
        json_object_put(o);
    }
    if (!s->user) {
        seat_free(s);
        return NULL;
    }
    *fresh = true;
    return s;
}

/* ---- inbound ---- */

static void deliver(struct web *w, struct conn *c, enum inbound_type type, const char *channel,
                    const char *text, const char *key, const char *reaction)
{
    struct inbound in = {
        .type = type,
        .channel = channel,
        .user = c->user,
        .user_name = c->name,
        .moderator = false,
        .text = text,
        .msg_key = key,
        .reaction = reaction,
        .order = ++w->order,
    };
    w->base.host->deliver(w->base.host->ctx, &w->base, &in);
}

static void on_hello(struct web *w, struct conn *c, struct json_object *o)
{
    size_t tlen = 0, nlen = 0;
    const char *token = get_str(o, "token", &tlen);
    const char *name = get_str(o, "name", &nlen);
    if (!token || !valid_token(token, tlen)) {
        send_error(c, "bad-token", "the seat token must be %d to %d letters, digits, '-' or '_'",
                   WEB_TOKEN_MIN, WEB_TOKEN_MAX);
        return;
    }
    if (name && nlen == 0)
        name = NULL;
    if (name && !valid_name(name, nlen)) {
        send_error(c, "bad-name",
                   "a name is 1 to %d letters, digits, '-', '_' or '.', without spaces",
                   WEB_NAME_MAX);
        return;
    }
    bool fresh;
    struct seat *s = seat_get(w, token, &fresh);
    if (!s) {
        send_error(c, "internal", "out of memory");
        return;
    }
    if (c->user && strcmp(c->user, s->user) != 0) {
        send_error(c, "already-seated", "this connection already holds another seat");
        goto refused;
    }
    if (!name && !s->name) {
        send_error(c, "bad-name", "pick a name first");
        goto refused;
    }
    if (name && (!s->name || strcmp(name, s->name) != 0)) {
        if (name_taken(w, s, name)) {
            send_error(c, "name-taken", "the name %s is taken: pick another", name);
            goto refused;
        }
        char *copy = strdup(name);
        if (!copy) {
            send_error(c, "internal", "out of memory");
            goto refused;
        }
        if (s->name && strcasecmp(s->name, name) != 0)
            name_release(w, s->name);
        free(s->name);
        s->name = copy;
        name_reserve(w, s->name, s->hash);
        seat_save(w, s);
    }
    if (fresh) {
        s->next = w->seats;
        w->seats = s;
    }
    bool first = c->user == NULL;
    free(c->user);
    free(c->name);
    c->user = strdup(s->user);
    c->name = strdup(s->name);
    if (!c->user || !c->name) {
        send_error(c, "internal", "out of memory");
        conn_kill(c);
        return;
    }
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "type", json_object_new_string("welcome"));
    json_object_object_add(r, "user", json_object_new_string(c->user));
    json_object_object_add(r, "name", json_object_new_string(c->name));
    conn_queue_obj(c, r);
    json_object_put(r);
    if (!first)
        return;
    log_info(MOD, NULL, "%s (%s) took their seat", c->user, c->name);
    r = tables_json(w);
    conn_queue_obj(c, r);
    json_object_put(r);
    struct scope *dm = scope_find(w, c->user, true);
    if (dm)
        scope_replay(c, dm);
    return;

refused:
    if (fresh)
        seat_free(s);
}

/* Reads "channel": a table id into id (true), null or absent (true, id empty), or bad (false). */
static bool get_channel(struct json_object *o, char id[WEB_TABLE_MAX + 1])
{
    struct json_object *v;
    id[0] = '\0';
    if (!json_object_object_get_ex(o, "channel", &v) || json_object_is_type(v, json_type_null))
        return true;
    size_t len;
    const char *s = get_str(o, "channel", &len);
    return s && table_id(s, len, id);
}

/* Follows table id on c (replaying its frames). Returns false with an error sent. */
static bool conn_open(struct web *w, struct conn *c, const char *id)
{
    if (conn_follows(c, id))
        return true;
    if (c->nopen == WEB_MAX_OPEN) {
        send_error(c, "too-many-tables", "close a table first: one page follows at most %d",
                   WEB_MAX_OPEN);
        return false;
    }
    struct scope *t = scope_find(w, id, false);
    if (!t && tables_opened_by(w, c->user) >= w->tables_per_seat) {
        send_error(c, "too-many-tables", "start a game at one of your %u new tables first",
                   w->tables_per_seat);
        return false;
    }
    if (!t && (t = table_get(w, id)) != NULL && !(t->creator = strdup(c->user))) {
        table_drop_if_empty(w, t);
        t = NULL;
    }
    if (!t) {
        send_error(c, "too-many-tables", "this server already has %d tables", WEB_MAX_TABLES);
        return false;
    }
    char *copy = strdup(id);
    if (!copy) {
        send_error(c, "internal", "out of memory");
        table_drop_if_empty(w, t);
        return false;
    }
    c->open[c->nopen++] = copy;
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "type", json_object_new_string("opened"));
    json_object_object_add(r, "channel", json_object_new_string(id));
    conn_queue_obj(c, r);
    json_object_put(r);
    scope_replay(c, t);
    return true;
}

static void on_open(struct web *w, struct conn *c, struct json_object *o, bool open)
{
    char id[WEB_TABLE_MAX + 1];
    if (!get_channel(o, id) || !id[0]) {
        send_error(c, "bad-channel", "a table name is 1 to %d letters, digits, spaces, '-' or '_'",
                   WEB_TABLE_MAX);
        return;
    }
    if (open) {
        conn_open(w, c, id);
        return;
    }
    for (unsigned i = 0; i < c->nopen; i++) {
        if (strcmp(c->open[i], id) != 0)
            continue;
        free(c->open[i]);
        c->open[i] = c->open[--c->nopen];
        struct scope *t = scope_find(w, id, false);
        if (t)
            table_drop_if_empty(w, t);
        break;
    }
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "type", json_object_new_string("closed"));
    json_object_object_add(r, "channel", json_object_new_string(id));
    conn_queue_obj(c, r);
    json_object_put(r);
}

static void on_say(struct web *w, struct conn *c, struct json_object *o, enum inbound_type type)
{
    char id[WEB_TABLE_MAX + 1];
    if (!get_channel(o, id)) {
        send_error(c, "bad-channel", "channel is a table name, or null for your trading room");
        return;
    }
    size_t len;
    const char *text = get_str(o, "text", &len);
    if (!text || len == 0 || len > WEB_TEXT_MAX) {
        send_error(c, "bad-text", "text is a command of 1 to %d bytes", WEB_TEXT_MAX);
        return;
    }
    if (id[0] && !conn_open(w, c, id))
        return;
    deliver(w, c, type, id[0] ? id : NULL, text, NULL, NULL);
}

static void on_react(struct web *w, struct conn *c, struct json_object *o)
{
    size_t klen = 0, rlen = 0;
    const char *key = get_str(o, "key", &klen);
    const char *reaction = get_str(o, "reaction", &rlen);
    if (!key || klen == 0 || klen > WEB_KEY_MAX || !reaction || rlen == 0 || rlen > 32) {
        send_error(c, "bad-reaction", "a reaction needs the message's key and an emoji");
        return;
    }
    /* only a message this socket can see: one of its tables, or its own DMs */
    const char *channel = NULL;
    bool found = false;
    for (unsigned i = 0; i < c->nopen && !found; i++) {
        struct scope *t = scope_find(w, c->open[i], false);
        if (t && scope_has_key(t, key)) {
            channel = t->id;
            found = true;
        }
    }
    if (!found) {
        struct scope *dm = scope_find(w, c->user, true);
        found = dm && scope_has_key(dm, key);
    }
    if (!found) {
        send_error(c, "unknown-message", "no message %s here to react to", key);
        return;
    }
    deliver(w, c, INBOUND_REACTION, channel, NULL, key, reaction);
}

static void on_message(struct web *w, struct conn *c, const char *buf, size_t len)
{
    struct json_tokener *tok = json_tokener_new_ex(16);
    if (!tok) {
        send_error(c, "internal", "out of memory");
        return;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
    bool complete = json_tokener_get_error(tok) == json_tokener_success &&
                    json_tokener_get_parse_end(tok) == len;
    json_tokener_free(tok);
    if (!o || !complete) {
        json_object_put(o);
        send_error(c, "bad-json", "a frame is one JSON object in UTF-8");
        return;
    }
    const char *type = json_object_is_type(o, json_type_object) ? get_str(o, "type", NULL) : NULL;
    if (!type) {
        send_error(c, "bad-frame", "a frame is a JSON object with a \"type\"");
    } else if (strcmp(type, "hello") == 0) {
        on_hello(w, c, o);
    } else if (!c->user) {
        send_error(c, "hello-first", "say hello with your seat token first");
    } else if (strcmp(type, "say") == 0) {
        on_say(w, c, o, INBOUND_MESSAGE);
    } else if (strcmp(type, "command") == 0) {
        on_say(w, c, o, INBOUND_COMMAND);
    } else if (strcmp(type, "react") == 0) {
        on_react(w, c, o);
    } else if (strcmp(type, "open") == 0) {
        on_open(w, c, o, true);
    } else if (strcmp(type, "close") == 0) {
        on_open(w, c, o, false);
    } else if (strcmp(type, "tables") == 0) {
        struct json_object *r = tables_json(w);
        conn_queue_obj(c, r);
        json_object_put(r);
    } else {
        send_error(c, "unknown-type", "unknown frame type: %.40s", type);
    }
    json_object_put(o);
}

static void on_receive(struct web *w, struct conn *c, const void *in, size_t len)
{
    if (!c->in_msg) {
        c->in_msg = true;
        c->rxlen = 0;
        c->rx_over = false;
        c->rx_binary = lws_frame_is_binary(c->wsi) != 0;
    }
    if (!c->rx_over && !c->rx_binary) {
        if (c->rxlen + len > WEB_MAX_FRAME) {
            c->rx_over = true;
        } else {
            if (!c->rx && !(c->rx = malloc(WEB_MAX_FRAME + 1))) {
                conn_kill(c);
                return;
            }
            memcpy(c->rx + c->rxlen, in, len);
            c->rxlen += len;
        }
    }
    if (!lws_is_final_fragment(c->wsi) || lws_remaining_packet_payload(c->wsi) > 0)
        return;
    c->in_msg = false;
    if (c->rx_binary)
        send_error(c, "binary", "frames are JSON text, not binary");
    else if (c->rx_over)
        send_error(c, "too-large", "a frame is at most %d bytes", WEB_MAX_FRAME);
    else
        on_message(w, c, c->rx, c->rxlen);
}

/* ---- connections: counted per client address, from accept() to close ---- */

static void addr_string(const struct sockaddr_storage *sa, char out[WEB_ADDR_LEN])
{
    const void *a = NULL;
    if (sa->ss_family == AF_INET)
        a = &((const struct sockaddr_in *)sa)->sin_addr;
    else if (sa->ss_family == AF_INET6)
        a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
    if (!a || !inet_ntop(sa->ss_family, a, out, WEB_ADDR_LEN))
        snprintf(out, WEB_ADDR_LEN, "?");
}

/* At accept(): whether the client at a may open one more connection (0) or is refused (1). */
static int peer_admit(struct web *w, const struct lws_filter_network_conn_args *a)
{
    char addr[WEB_ADDR_LEN];
    addr_string(&a->cli_addr, addr);
    if (w->npeers >= w->max_conns) {
        log_warn(MOD, NULL, "refused a connection from %s: %u open (max_connections)", addr,
                 w->npeers);
        return 1;
    }
    unsigned same = 0;
    for (unsigned i = 0; i < w->npeers; i++)
        if (strcmp(w->peers[i].addr, addr) == 0)
            same++;
    if (same >= w->max_per_addr) {
        log_warn(MOD, NULL, "refused a connection from %s: %u open from there (max_per_address)",
                 addr, same);
        return 1;
    }
    /* lws makes the connection's wsi next, in this same call (LWS_CALLBACK_WSI_CREATE) */
    memcpy(w->pending_addr, addr, sizeof addr);
    w->pending = true;
    return 0;
}

static void peer_created(struct web *w, struct lws *wsi)
{
    if (!w->pending)
        return; /* the listening socket */
    w->pending = false;
    if (w->npeers < w->max_conns) {
        w->peers[w->npeers].wsi = wsi;
        memcpy(w->peers[w->npeers].addr, w->pending_addr, WEB_ADDR_LEN);
        w->npeers++;
    }
}

static void peer_destroyed(struct web *w, struct lws *wsi)
{
    for (unsigned i = 0; i < w->npeers; i++) {
        if (w->peers[i].wsi == wsi) {
            w->peers[i] = w->peers[--w->npeers];
            return;
        }
    }
}

/* ---- Host names: only those configured, so a rebound DNS name cannot reach us ---- */

static int host_add(struct web *w, const char *name, size_t len)
{
    if (len >= 2 && name[0] == '[' && name[len - 1] == ']') {
        name++;
        len -= 2;
    }
    if (len == 0)
        return 0;
    if (w->nhosts == WEB_HOSTS_MAX || len >= WEB_HOST_LEN) {
        log_error(MOD, NULL, "[web] hosts: at most %d names of %d bytes", WEB_HOSTS_MAX,
                  WEB_HOST_LEN - 1);
        return -1;
    }
    char *copy = strndup(name, len);
    if (!copy) {
        log_error(MOD, NULL, "out of memory");
        return -1;
    }
    for (size_t i = 0; i < len; i++)
        copy[i] = (char)tolower((unsigned char)copy[i]);
    w->hosts[w->nhosts++] = copy;
    return 0;
}

static void hosts_free(struct web *w)
{
    for (unsigned i = 0; i < w->nhosts; i++)
        free(w->hosts[i]);
    w->nhosts = 0;
}

/*
 * The allowed Host names: [web] hosts (comma-separated), or by default the
 * bind address, localhost, 127.0.0.1 and ::1, and when bound to every
 * interface, the addresses of this machine's interfaces.
 */
static int hosts_init(struct web *w, bool any)
{
    if (w->hosts_cfg) {
        for (const char *p = w->hosts_cfg; *p;) {
            p += strspn(p, ", \t");
            size_t n = strcspn(p, ", \t");
            if (host_add(w, p, n) != 0)
                return -1;
            p += n;
        }
        return 0;
    }
    static const char *const local[] = {"localhost", "127.0.0.1", "::1"};
    for (size_t i = 0; i < sizeof local / sizeof local[0]; i++)
        if (host_add(w, local[i], strlen(local[i])) != 0)
            return -1;
    if (!any)
        return host_add(w, w->bind, strlen(w->bind));
    uv_interface_address_t *ifs;
    int nifs;
    if (uv_interface_addresses(&ifs, &nifs) != 0) {
        log_warn(MOD, NULL, "cannot list this machine's addresses: only local names are allowed");
        return 0;
    }
    int rc = 0;
    for (int i = 0; i < nifs && rc == 0; i++) {
        char addr[WEB_ADDR_LEN];
        addr_string((const struct sockaddr_storage *)&ifs[i].address, addr);
        rc = host_add(w, addr, strlen(addr));
    }
    uv_free_interface_addresses(ifs, nifs);
    return rc;
}

/* Whether the request's Host header names an allowed host and this server's port. */
static bool host_allowed(const struct web *w, struct lws *wsi)
{
    char host[WEB_HOST_LEN];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HOST) <= 0 ||
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) < 0)
        return false;
    const char *name = host, *port = NULL;
    size_t len;
    if (host[0] == '[') {
        const char *end = strchr(host, ']');
        if (!end)
            return false;
        name = host + 1;
        len = (size_t)(end - name);
        if (end[1] == ':')
            port = end + 2;
        else if (end[1])
            return false;
    } else {
        const char *colon = strchr(host, ':');
        len = colon ? (size_t)(colon - host) : strlen(host);
        if (colon)
            port = colon + 1;
    }
    char want[8];
    snprintf(want, sizeof want, "%d", w->port);
    if (port ? strcmp(port, want) != 0 : w->port != 80)
        return false;
    for (unsigned i = 0; i < w->nhosts; i++)
        if (strlen(w->hosts[i]) == len && strncasecmp(w->hosts[i], name, len) == 0)
            return true;
    return false;
}

static void host_refused(struct lws *wsi)
{
    char host[WEB_HOST_LEN] = "";
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) < 0)
        host[0] = '\0';
    log_warn(MOD, NULL, "refused a request for host \"%.64s\" (not in [web] hosts)", host);
}

/* ---- HTTP and websocket callback ---- */

/* A websocket closed: forgets it, then the tables and the seat nobody holds any more. */
static void conn_leave(struct web *w, struct conn *c)
{
    if (c->user)
        log_debug(MOD, NULL, "%s left", c->user);
    conn_unlink(w, c);
    for (unsigned i = 0; i < c->nopen; i++) {
        struct scope *t = scope_find(w, c->open[i], false);
        if (t)
            table_drop_if_empty(w, t);
    }
    if (c->user)
        seat_release(w, c->user);
    conn_free(c);
    c->w = NULL;
    wake_all(w);
}

static lws_usec_t ping_interval(const struct web *w)
{
    return (lws_usec_t)w->idle_secs * LWS_US_PER_SEC / 3;
}

/* Every idle_seconds / 3, pings the seated sockets: a live browser's pong keeps it open. */
static void ping_run(lws_sorted_usec_list_t *sul)
{
    struct web *w = lws_container_of(sul, struct web, ping_sul);
    for (struct conn *c = w->conns; c; c = c->next) {
        if (c->user && !c->closing) {
            c->want_ping = true;
            conn_wake(c);
        }
    }
    wake_all(w);
    lws_sul_schedule(w->ctx, 0, &w->ping_sul, ping_run, ping_interval(w));
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

static int http_start(struct web *w, struct conn *c, struct lws *wsi, const char *path)
{
    const struct web_asset *a = asset_find(path);
    bool host_ok = host_allowed(w, wsi);
    if (!host_ok)
        host_refused(wsi);
    if (!a || !host_ok) {
        if (lws_return_http_status(wsi, host_ok ? HTTP_STATUS_NOT_FOUND : HTTP_STATUS_FORBIDDEN,
                                   NULL))
            return -1;
        return lws_http_transaction_completed(wsi) ? -1 : 0;
    }
    unsigned char buf[LWS_PRE + 1024];
    unsigned char *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    /* lws adds the security headers (CSP: no inline script or style, nosniff, deny framing) */
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, a->type, a->len, &p, end) ||
        lws_add_http_header_by_name(wsi, (const unsigned char *)"cache-control:",
                                    (const unsigned char *)"no-cache", 8, &p, end) ||
        lws_finalize_write_http_header(wsi, start, &p, end))
        return -1;
    c->asset = a;
    c->http_off = 0;
    lws_callback_on_writable(wsi);
    return 0;
}

static int http_write(struct conn *c, struct lws *wsi)
{
    if (!c->asset)
        return 0;
    unsigned char buf[LWS_PRE + WEB_CHUNK];
    size_t left = c->asset->len - c->http_off;
    size_t n = left > WEB_CHUNK ? WEB_CHUNK : left;
    memcpy(buf + LWS_PRE, c->asset->data + c->http_off, n);
    bool last = n == left;
    if (lws_write(wsi, buf + LWS_PRE, n, last ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) < (int)n)
        return -1;
    c->http_off += n;
    if (!last) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    c->asset = NULL;
    return lws_http_transaction_completed(wsi) ? -1 : 0;
}

/* Refuses websockets on other paths, for other hosts and from pages of other origins. */
static int ws_filter(struct web *w, struct lws *wsi)
{
    char uri[64], origin[256], host[WEB_HOST_LEN];
    if (lws_hdr_copy(wsi, uri, sizeof uri, WSI_TOKEN_GET_URI) < 0 || strcmp(uri, "/ws") != 0)
        return 1;
    if (!host_allowed(w, wsi)) {
        host_refused(wsi);
        return 1;
    }
    if (lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN) <= 0)
        return 0; /* not a browser: no cross-site concern */
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) < 0 ||
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) < 0)
        return 1;
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

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in,
                    size_t len)
{
    struct lws_context *lctx = lws_get_context(wsi);
    struct shim *shim = lctx ? lws_context_user(lctx) : NULL;
    struct web *w = shim ? shim->w : NULL;
    struct conn *c = user;

    if (!w) {
        /* the adapter stopped: only connections closing remain */
        return reason == LWS_CALLBACK_HTTP || reason == LWS_CALLBACK_RECEIVE ||
                       reason == LWS_CALLBACK_FILTER_NETWORK_CONNECTION
                   ? -1
                   : 0;
    }
    switch (reason) {
    case LWS_CALLBACK_FILTER_NETWORK_CONNECTION:
        return peer_admit(w, user);
    case LWS_CALLBACK_WSI_CREATE:
        peer_created(w, wsi);
        return 0;
    case LWS_CALLBACK_WSI_DESTROY:
        peer_destroyed(w, wsi);
        return 0;
    case LWS_CALLBACK_HTTP:
        return c ? http_start(w, c, wsi, in ? (const char *)in : "/") : -1;
    case LWS_CALLBACK_HTTP_WRITEABLE:
        return c ? http_write(c, wsi) : 0;
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        return ws_filter(w, wsi);
    case LWS_CALLBACK_ESTABLISHED:
        memset(c, 0, sizeof *c);
        c->w = w;
        c->wsi = wsi;
        c->next = w->conns;
        if (w->conns)
            w->conns->prev = c;
        w->conns = c;
        w->nconns++;
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, w->hello_secs);
        return 0;
    case LWS_CALLBACK_RECEIVE:
        if (!c || !c->w)
            return -1;
        on_receive(w, c, in, len);
        /* a seated socket that talks is alive; before hello, the deadline holds */
        if (c->user)
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, w->idle_secs);
        wake_all(w);
        return 0;
    case LWS_CALLBACK_RECEIVE_PONG:
        if (c && c->w && c->user)
            lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, w->idle_secs);
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE:
        if (!c || !c->w)
            return -1;
        return conn_write(c);
    case LWS_CALLBACK_CLOSED:
        if (c && c->w)
            conn_leave(w, c);
        return 0;
    default:
        return 0;
    }
}

static const struct lws_protocols protocols[] = {
    {"illegal", callback, sizeof(struct conn), 4096, 0, NULL, 0},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* ---- platform ops ---- */

static void lws_log(int level, const char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    enum log_level l = level == LLL_ERR ? LOG_ERROR : level == LLL_WARN ? LOG_WARN : LOG_DEBUG;
    log_write(l, MOD, NULL, "lws: %.*s", (int)n, line);
}

/*
 * Keeps max_connections under the process's descriptor limit, so that
 * accept() never fails with EMFILE (which libwebsockets retries at once,
 * forever). Returns the connections allowed.
 */
static unsigned conns_within_fd_limit(unsigned want)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return want;
    rlim_t room = rl.rlim_cur > 2 * WEB_FD_SPARE ? rl.rlim_cur - WEB_FD_SPARE : rl.rlim_cur / 2;
    if (want <= room)
        return want;
    log_warn(MOD, NULL,
             "max_connections %u is over what %llu descriptors allow: %llu connections at once",
             want, (unsigned long long)rl.rlim_cur, (unsigned long long)room);
    return (unsigned)room;
}

/*
 * Whether something already listens on host:port (host NULL: every
 * interface). Asked before libwebsockets starts, because a context that fails
 * to listen on a loop that never ran cannot be taken down cleanly: it unloads
 * its event library while its loop handles are still open.
 */
static bool port_in_use(const char *host, int port)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC,
                             .ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE | AI_NUMERICHOST | AI_NUMERICSERV};
    struct addrinfo *res = NULL;
    char service[16];
    bool in_use = false;
    if (port <= 0)
        return false; /* any free port will do */
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(host, service, &hints, &res) != 0)
        return false; /* a name lws resolves itself: let it say what is wrong */
    int fd = socket(res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) == 0 &&
        bind(fd, res->ai_addr, res->ai_addrlen) != 0)
        in_use = errno == EADDRINUSE;
    if (fd >= 0)
        close(fd);
    freeaddrinfo(res);
    return in_use;
}

static int web_start(struct platform *p)
{
    struct web *w = (struct web *)p;
    if (w->ctx)
        return 0;
    lws_set_log_level(LLL_ERR | LLL_WARN, lws_log);
    bool any = !w->bind[0] || strcmp(w->bind, "0.0.0.0") == 0 || strcmp(w->bind, "*") == 0;
    bool any_v6 = strcmp(w->bind, "::") == 0;
    w->max_conns = conns_within_fd_limit(w->max_conns);
    free(w->peers);
    w->npeers = 0;
    w->pending = false;
    hosts_free(w);
    if (!(w->peers = calloc(w->max_conns, sizeof *w->peers)) || hosts_init(w, any || any_v6) != 0) {
        log_error(MOD, NULL, "out of memory, or bad [web] hosts");
        return -1;
    }

    if (port_in_use(any ? NULL : w->bind, w->cfg_port)) {
        log_error(MOD, NULL,
                  "port %d on %s is in use by another program: stop it, or set [web] port",
                  w->cfg_port, any ? "every interface" : w->bind);
        return -1;
    }
    struct shim *shim = calloc(1, sizeof *shim);
    if (!shim) {
        log_error(MOD, NULL, "out of memory");
        return -1;
    }
    shim->w = w;
    void *loops[1] = {p->host->loop};
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = w->cfg_port;
    bool v6 = strchr(w->bind, ':') != NULL;
    info.iface = any ? NULL : w->bind;
    info.protocols = protocols;
    info.options = LWS_SERVER_OPTION_LIBUV | LWS_SERVER_OPTION_UV_NO_SIGSEGV_SIGFPE_SPIN |
                   LWS_SERVER_OPTION_HTTP_HEADERS_SECURITY_BEST_PRACTICES_ENFORCE;
    if (!v6)
        info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.foreign_loops = loops;
    info.user = shim;
    info.external_baggage_free_on_destroy = shim;
    info.gid = -1;
    info.uid = -1;
    info.server_string = "illegald";
    info.pcontext = &w->lctx;
    info.timeout_secs = 30;
    w->shim = shim;
    w->ctx = w->lctx = lws_create_context(&info);
    if (!w->ctx) {
        free(shim);
        w->shim = NULL;
        log_error(MOD, NULL, "cannot listen on %s port %d (address in use or not local?)",
                  w->bind[0] ? w->bind : "*", w->cfg_port);
        return -1;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(w->ctx, "default");
    w->port = vh ? lws_get_vhost_listen_port(vh) : -1;
    if (w->port <= 0) {
        log_error(MOD, NULL, "the listening socket has no port");
        shim->w = NULL;
        lws_context_destroy(w->ctx);
        w->ctx = NULL;
        w->shim = NULL;
        return -1;
    }
    w->started = true;
    lws_sul_schedule(w->ctx, 0, &w->ping_sul, ping_run, ping_interval(w));
    log_info(MOD, NULL, "local table at http://%s:%d/ (plain HTTP)",
             any ? "0.0.0.0" : (v6 ? "[::]" : w->bind), w->port);
    if (any)
        log_info(MOD, NULL, "listening on every interface: anyone on this network can join");
    return 0;
}

static void send_to_scope(struct web *w, const struct outbound *m, const char *json, size_t len)
{
    for (struct conn *c = w->conns; c; c = c->next) {
        if (!c->user)
            continue;
        if (m->user ? strcmp(c->user, m->user) == 0 : conn_follows(c, m->channel))
            conn_queue(c, json, len);
    }
}

static const char *const kind_names[] = {
    [OUT_NOTICE] = "notice", [OUT_LOBBY] = "lobby", [OUT_HAND] = "hand",
    [OUT_OFFER] = "offer",   [OUT_DROP] = "drop",   [OUT_VOTE] = "vote",
    [OUT_RESULT] = "result", [OUT_ERROR] = "error", [OUT_GAME_OVER] = "game_over",
};

/*
 * Updates what the table list shows from a message's data; a message with a
 * phase means a game is open there, which lists the table. Returns true when
 * the list changed.
 */
/* The bot's news of a game: the table list shows each table's phase and
 * seats, and a table is listed once its first game opens. */
static void web_game_changed(struct platform *p, const struct game_news *n)
{
    struct web *w = (struct web *)p;
    char id[WEB_TABLE_MAX + 1];
    if (!table_id(n->table, strlen(n->table), id) || strcmp(id, n->table) != 0)
        return; /* not a table of this platform */
    struct scope *t = table_get(w, id);
    if (!t)
        return;
    bool changed = t->players != (int)n->seats;
    t->players = (int)n->seats;
    if (!t->phase || strcmp(n->phase, t->phase) != 0) {
        char *copy = strdup(n->phase);
        if (copy) {
            free(t->phase);
            t->phase = copy;
            changed = true;
        }
    }
    if (!t->listed) {
        t->listed = true;
        free(t->creator);
        t->creator = NULL;
        tables_save(w);
        tables_broadcast(w);
    } else if (changed) {
        tables_broadcast(w);
    }
}

static int web_send(struct platform *p, const struct outbound *m)
{
    struct web *w = (struct web *)p;
    if ((!m->channel) == (!m->user) || (unsigned)m->kind > OUT_GAME_OVER || !m->text)
        return -1;
    struct json_object *data = (struct json_object *)m->data;

    /* the table this message is about: its channel, or a DM's data.table */
    const char *table = m->channel;
    struct json_object *v;
    if (!table && data && json_object_object_get_ex(data, "table", &v) &&
        json_object_is_type(v, json_type_string))
        table = json_object_get_string(v);
    char id[WEB_TABLE_MAX + 1];
    if (m->channel && (!table_id(m->channel, strlen(m->channel), id) ||
                       strcmp(id, m->channel) != 0 || !table_get(w, id)))
        return -1; /* not a table of this platform */

    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string("message"));
    json_object_object_add(o, "kind", json_object_new_string(kind_names[m->kind]));
    json_object_object_add(o, "channel", m->channel ? json_object_new_string(m->channel) : NULL);
    json_object_object_add(o, "table", table ? json_object_new_string(table) : NULL);
    json_object_object_add(o, "dm", json_object_new_boolean(m->user != NULL));
    json_object_object_add(o, "key", m->key ? json_object_new_string(m->key) : NULL);
    json_object_object_add(o, "replace", json_object_new_boolean(m->replace));
    json_object_object_add(o, "text", json_object_new_string(m->text));
    json_object_object_add(o, "data", data ? json_object_get(data) : NULL);
    size_t len;
    const char *json = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    int rc = -1;
    if (json) {
        struct scope *s = m->user ? scope_find(w, m->user, true) : scope_find(w, m->channel, false);
        if (!s && m->user)
            s = scope_new(w, m->user, true);
        if (s)
            scope_cache(s, m->key, m->replace, json);
        send_to_scope(w, m, json, len);
        if (m->channel && s)
            table_drop_if_empty(w, s); /* a game over at a table nobody follows */
        rc = 0;
    }
    json_object_put(o);
    wake_all(w);
    return rc;
}

static void probe_run(lws_sorted_usec_list_t *sul)
{
    struct web *w = lws_container_of(sul, struct web, probe_sul);
    w->probe_armed = false;
    struct probe *list = w->probes;
    w->probes = NULL;
    while (list) {
        struct probe *next = list->next;
        /* every seat can receive DMs: they wait in its trading room until it connects */
        if (w->base.host->dm_result)
            w->base.host->dm_result(w->base.host->ctx, &w->base, list->user, true);
        free(list->user);
        free(list);
        list = next;
    }
}

static void web_probe_dm(struct platform *p, const char *user)
{
    struct web *w = (struct web *)p;
    struct probe *pr = calloc(1, sizeof *pr);
    if (!pr || !(pr->user = strdup(user))) {
        free(pr);
        if (w->base.host->dm_result)
            w->base.host->dm_result(w->base.host->ctx, p, user, false);
        return;
    }
    /* answered from the loop, never from inside the caller */
    struct probe **tail = &w->probes;
    while (*tail)
        tail = &(*tail)->next;
    *tail = pr;
    if (w->ctx && !w->probe_armed) {
        w->probe_armed = true;
        lws_sul_schedule(w->ctx, 0, &w->probe_sul, probe_run, 1);
    }
}

static void web_stop(struct platform *p)
{
    struct web *w = (struct web *)p;
    if (!w->ctx)
        return;
    lws_sul_cancel(&w->probe_sul);
    lws_sul_cancel(&w->ping_sul);
    w->probe_armed = false;
    for (struct conn *c = w->conns; c; c = c->next) {
        conn_free(c);
        c->w = NULL;
    }
    w->conns = NULL;
    w->nconns = 0;
    w->npeers = 0; /* lws destroys their wsi with the context */
    w->shim->w = NULL;
    lws_context_destroy(w->ctx);
    w->ctx = NULL;
    w->shim = NULL;
    log_info(MOD, NULL, "local table closed");
}

static void web_destroy(struct platform *p)
{
    struct web *w = (struct web *)p;
    if (!w)
        return;
    web_stop(p);
    /* with a foreign loop, a second destroy once the loop ran finishes the job */
    if (w->lctx)
        lws_context_destroy(w->lctx);
    while (w->scopes) {
        struct scope *next = w->scopes->next;
        scope_free(w->scopes);
        w->scopes = next;
    }
    while (w->seats) {
        struct seat *next = w->seats->next;
        seat_free(w->seats);
        w->seats = next;
    }
    while (w->probes) {
        struct probe *next = w->probes->next;
        free(w->probes->user);
        free(w->probes);
        w->probes = next;
    }
    free(w->peers);
    hosts_free(w);
    free(w->hosts_cfg);
    free(w->bind);
    free(w);
}

static const struct platform_ops web_ops = {
    .name = "web",
    .caps = PLATFORM_CAP_DM | PLATFORM_CAP_REACTIONS | PLATFORM_CAP_BUTTONS | PLATFORM_CAP_EDITS,
    .start = web_start,
    .send = web_send,
    .probe_dm = web_probe_dm,
    .game_changed = web_game_changed,
    .stop = web_stop,
    .destroy = web_destroy,
};

struct platform *web_platform_new(const struct config *cfg, const struct platform_host *host,
                                  char *err, size_t errlen)
{
    if (!cfg || !host || !host->loop || !host->deliver) {
        snprintf(err, errlen, "web: the host gives no loop or no deliver()");
        return NULL;
    }
    if (cfg->web_port < 0 || cfg->web_port > 65535) {
        snprintf(err, errlen, "web: port %d is not 0..65535", cfg->web_port);
        return NULL;
    }
    if (cfg->web_max_connections < 1 || cfg->web_max_per_address < 1 ||
        cfg->web_hello_seconds < 1 || cfg->web_idle_seconds < 1 || cfg->web_tables_per_seat < 1 ||
        cfg->web_queue_bytes < 1) {
        snprintf(err, errlen, "web: the limits in [web] must be positive");
        return NULL;
    }
    struct web *w = calloc(1, sizeof *w);
    if (!w || !(w->bind = strdup(cfg->web_bind ? cfg->web_bind : "127.0.0.1")) ||
        (cfg->web_hosts && !(w->hosts_cfg = strdup(cfg->web_hosts)))) {
        if (w)
            free(w->bind);
        free(w);
        snprintf(err, errlen, "web: out of memory");
        return NULL;
    }
    w->base.ops = &web_ops;
    w->base.host = host;
    w->cfg_port = cfg->web_port;
    w->max_conns = (unsigned)cfg->web_max_connections;
    w->max_per_addr = (unsigned)cfg->web_max_per_address;
    w->hello_secs = cfg->web_hello_seconds;
    w->idle_secs = cfg->web_idle_seconds;
    w->tables_per_seat = (unsigned)cfg->web_tables_per_seat;
    w->queue_max = (size_t)cfg->web_queue_bytes;
    w->port = -1;
    tables_load(w);
    return &w->base;
}

int web_platform_port(struct platform *p)
{
    struct web *w = (struct web *)p;
    return w && w->ctx ? w->port : -1;
}
