/*
 * frames.c - small helpers, and the frames written to each socket, one fragment per
 * WRITEABLE callback.
 */
#include "core/modules.h"
#include "internal.h"

/* ---- small helpers ---- */

void web_sha256_hex(const char *a, const char *b, char out[65])
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

bool web_valid_token(const char *t, size_t len)
{
    if (len < WEB_TOKEN_MIN || len > WEB_TOKEN_MAX)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)t[i]) && t[i] != '-' && t[i] != '_')
            return false;
    return true;
}

/* A display name: 1..24 bytes of letters, digits, '-', '_', '.' or non-ASCII UTF-8. */
bool web_valid_name(const char *s, size_t len)
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
bool web_table_id(const char *s, size_t len, char out[WEB_TABLE_MAX + 1])
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
const char *web_get_str(struct json_object *o, const char *name, size_t *len)
{
    struct json_object *v = jget_type(o, name, json_type_string);
    if (!v)
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

/* The games this build has and their modes, for the page's choice of a new
 * game: [{"id": "illegal", "modes": ["standard", ...], "mode_keys":
 * "illegal.variant", "min": 4, "max": 8}], the default first. The page names
 * a game by its catalog key <id>.game and a mode by <mode_keys>.<mode>. */
struct json_object *web_games_json(void)
{
    struct json_object *games = json_object_new_array();
    for (size_t i = 0; games && i < rules_count(); i++) {
        const struct rules_module *m = rules_at(i);
        struct json_object *g = json_object_new_object(), *modes = json_object_new_array();
        if (!g || !modes) {
            json_object_put(g);
            json_object_put(modes);
            continue;
        }
        for (const char *const *mode = m->modes; mode && *mode; mode++)
            json_object_array_add(modes, json_object_new_string(*mode));
        json_object_object_add(g, "id", json_object_new_string(m->id));
        json_object_object_add(g, "modes", modes);
        json_object_object_add(g, "mode_keys", json_object_new_string(m->mode_keys));
        json_object_object_add(g, "min", json_object_new_int((int)m->min_players));
        json_object_object_add(g, "max", json_object_new_int((int)m->max_players));
        json_object_array_add(games, g);
    }
    return games;
}

char *web_games_http(const char **type, size_t *len)
{
    struct json_object *games = web_games_json();
    const char *text = json_object_to_json_string_ext(games, JSON_C_TO_STRING_PLAIN);
    char *body = text ? strdup(text) : NULL;
    json_object_put(games);
    *type = "application/json; charset=utf-8";
    *len = body ? strlen(body) : 0;
    return body;
}

/*
 * Output is queued without calling libwebsockets, and web_conn_wake() only marks
 * the socket; web_wake_all() asks for the WRITEABLE callbacks once the handler
 * returns. So the message handler runs without a live connection (fuzzing).
 */
void web_conn_wake(struct conn *c)
{
    c->want_write = true;
}

void web_wake_all(struct web *w)
{
    for (struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link)) {
        if (c->want_write && c->wsi) /* (a fuzzed socket has none) */
            lws_callback_on_writable(c->wsi);
        c->want_write = false;
    }
}

/* Frees the head frame, written or dropped. */
static void conn_pop_frame(struct conn *c)
{
    struct frame *f = STAILQ_FIRST(&c->queue);
    STAILQ_REMOVE_HEAD(&c->queue, link);
    c->qbytes -= f->len;
    if (c->w)
        c->w->queued -= f->len;
    free(f);
}

static void conn_clear_queue(struct conn *c)
{
    while (!STAILQ_EMPTY(&c->queue))
        conn_pop_frame(c);
    c->qoff = 0;
}

/* Closes c once it can be written to; what it had queued is dropped now. */
void web_conn_kill(struct conn *c)
{
    if (c->closing)
        return;
    c->closing = true;
    conn_clear_queue(c);
    web_conn_wake(c);
}

void web_conn_finish(struct conn *c)
{
    c->finish = true;
    web_conn_wake(c);
}

static void conn_drop_slow(struct conn *c, const char *why)
{
    log_warn(MOD, NULL, "dropping a socket of %s: %zu bytes queued, %zu to all sockets (%s)",
             c->user ? c->user : "-", c->qbytes, c->w ? c->w->queued : 0, why);
    web_conn_kill(c);
}

/* Makes room for len more bytes in all: drops the sockets with the most queued. */
static void queue_make_room(struct web *w, size_t len)
{
    while (w->queued + len > w->queue_max) {
        struct conn *worst = NULL;
        for (struct conn *o = LIST_FIRST(&w->conns); o; o = LIST_NEXT(o, link))
            if (!o->closing && o->qbytes > 0 && (!worst || o->qbytes > worst->qbytes))
                worst = o;
        if (!worst)
            return;
        conn_drop_slow(worst, "queue_bytes");
    }
}

void web_conn_queue(struct conn *c, const char *json, size_t len)
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
        web_conn_kill(c);
        return;
    }
    f->len = len;
    memcpy(f->buf + LWS_PRE, json, len);
    STAILQ_INSERT_TAIL(&c->queue, f, link);
    c->qbytes += len;
    if (c->w)
        c->w->queued += len;
    web_conn_wake(c);
}

void web_conn_queue_obj(struct conn *c, struct json_object *o)
{
    size_t len;
    const char *s = json_object_to_json_string_length(
        o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    if (s)
        web_conn_queue(c, s, len);
}

void web_send_error(struct conn *c, const char *code, const char *fmt, ...)
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
    web_conn_queue_obj(c, o);
    json_object_put(o);
}

/* Writes the next fragment of the head frame. Returns -1 to close the socket. */
int web_conn_write(struct conn *c)
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
        if (!STAILQ_EMPTY(&c->queue))
            lws_callback_on_writable(c->wsi);
        return 0;
    }
    struct frame *f = STAILQ_FIRST(&c->queue);
    if (!f && c->finish) {
        static const char said[] = "refused";
        lws_close_reason(c->wsi, LWS_CLOSE_STATUS_NORMAL, (unsigned char *)said, sizeof said - 1);
        return -1;
    }
    if (!f)
        return 0;
    size_t left = f->len - c->qoff;
    size_t n = left > WEB_CHUNK ? WEB_CHUNK : left;
    int flags = lws_write_ws_flags(LWS_WRITE_TEXT, c->qoff == 0, n == left);
    if (lws_write(c->wsi, f->buf + LWS_PRE + c->qoff, n, (enum lws_write_protocol)flags) < (int)n)
        return -1;
    c->qoff += n;
    if (c->qoff == f->len) {
        c->qoff = 0;
        conn_pop_frame(c);
    }
    if (!STAILQ_EMPTY(&c->queue) || c->finish)
        lws_callback_on_writable(c->wsi);
    return 0;
}

void web_conn_free(struct conn *c)
{
    conn_clear_queue(c);
    for (unsigned i = 0; i < c->nopen; i++)
        free(c->open[i]);
    c->nopen = 0;
    free(c->user);
    free(c->name);
    free(c->rx);
    free(c->act_channel);
    free(c->act_guild);
    free(c->act_dm);
    c->user = c->name = c->rx = NULL;
    c->act_channel = c->act_guild = c->act_dm = NULL;
    c->activity = false;
}

/* A new websocket of w: c cleared, its queue empty, first in w->conns. */
void web_conn_init(struct web *w, struct conn *c, struct lws *wsi)
{
    memset(c, 0, sizeof *c);
    c->w = w;
    c->wsi = wsi;
    STAILQ_INIT(&c->queue);
    LIST_INSERT_HEAD(&w->conns, c, link);
    w->nconns++;
}

void web_conn_unlink(struct web *w, struct conn *c)
{
    LIST_REMOVE(c, link);
    w->nconns--;
}

bool web_conn_follows(const struct conn *c, const char *table)
{
    for (unsigned i = 0; i < c->nopen; i++)
        if (strcmp(c->open[i], table) == 0)
            return true;
    return false;
}
