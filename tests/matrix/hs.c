/*
 * hs.c - the test homeserver's core: its state and seed, accounts (tokens,
 * devices, account data, filters), the table of routes every request goes
 * through (HTTP from hs_http.c, or in process from hs_request), and the
 * control functions of hs.h that act as a user's client would.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hs_internal.h"

/* ---- helpers ---- */

uint64_t hs_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *hs_jstr(struct json_object *o, const char *k)
{
    struct json_object *v;
    if (o && json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string))
        return json_object_get_string(v);
    return NULL;
}

struct json_object *hs_jget(struct json_object *o, const char *k)
{
    struct json_object *v;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static uv_once_t empty_once = UV_ONCE_INIT;
static struct json_object *empty;

static void make_empty(void)
{
    empty = json_object_new_object();
}

struct json_object *hs_iter(struct json_object *o)
{
    if (o && json_object_is_type(o, json_type_object))
        return o;
    uv_once(&empty_once, make_empty);
    return empty;
}

struct json_object *hs_jobj(struct json_object *o, const char *k)
{
    struct json_object *v = hs_jget(o, k);
    if (!v) {
        v = json_object_new_object();
        json_object_object_add(o, k, v);
    }
    return v;
}

uint64_t hs_rnd(struct hs *hs)
{
    /* xorshift64*: small, and the same sequence for the same seed */
    hs->rng ^= hs->rng >> 12;
    hs->rng ^= hs->rng << 25;
    hs->rng ^= hs->rng >> 27;
    return hs->rng * 2685821657736338717ULL;
}

uint64_t hs_rnd_locked(struct hs *hs)
{
    uv_mutex_lock(&hs->mu);
    uint64_t r = hs_rnd(hs);
    uv_mutex_unlock(&hs->mu);
    return r;
}

bool hs_chance(struct hs *hs, unsigned in)
{
    return hs_rnd(hs) % in == 0;
}

void hs_reply(struct hs_resp *rs, int status, struct json_object *body)
{
    json_object_put(rs->body);
    rs->status = status;
    rs->body = body;
}

void hs_error(struct hs_resp *rs, int status, const char *code, const char *msg)
{
    struct json_object *b = json_object_new_object();
    json_object_object_add(b, "errcode", json_object_new_string(code));
    json_object_object_add(b, "error", json_object_new_string(msg));
    hs_reply(rs, status, b);
}

static bool is(struct hs_req *rq, const char *method)
{
    return strcmp(rq->method, method) == 0;
}

/* ---- accounts ---- */

static void add_token(struct hs *hs, const char *token, const char *user, const char *device)
{
    struct json_object *t = json_object_new_object();
    json_object_object_add(t, "user", json_object_new_string(user));
    json_object_object_add(t, "device", json_object_new_string(device));
    json_object_object_add(hs->tokens, token, t);
    hs_device_add(hs, user, device);
}

static void on_whoami(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    (void)hs;
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "user_id", json_object_new_string(rq->user));
    json_object_object_add(r, "device_id", json_object_new_string(rq->device));
    hs_reply(rs, 200, r);
}

static void on_filter(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    if (strcmp(rq->seg[1], rq->user) != 0 || !rq->body) {
        hs_error(rs, 403, "M_FORBIDDEN", "not your filter");
        return;
    }
    char id[16];
    snprintf(id, sizeof(id), "%d", ++hs->next_filter);
    json_object_object_add(hs->filters, id, json_object_get(rq->body));
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "filter_id", json_object_new_string(id));
    hs_reply(rs, 200, r);
}

/* GET and PUT /user/{userId}/account_data/{type}; a PUT moves the stream, as in Synapse. */
static void on_account_data(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    if (strcmp(rq->seg[1], rq->user) != 0) {
        hs_error(rs, 403, "M_FORBIDDEN", "Cannot get account data for other users.");
        return;
    }
    struct json_object *mine = hs_jobj(hs->account_data, rq->user);
    struct json_object *entry = hs_jget(mine, rq->seg[3]);
    if (is(rq, "GET")) {
        if (entry)
            hs_reply(rs, 200, json_object_get(hs_jget(entry, "content")));
        else
            hs_error(rs, 404, "M_NOT_FOUND", "Account data not found");
        return;
    }
    if (!rq->body || !json_object_is_type(rq->body, json_type_object)) {
        hs_error(rs, 400, "M_BAD_JSON", "Content must be a JSON object");
        return;
    }
    entry = json_object_new_object();
    json_object_object_add(entry, "content", json_object_get(rq->body));
    json_object_object_add(entry, "pos", json_object_new_int64(++hs->pos));
    json_object_object_add(mine, rq->seg[3], entry);
    hs->dirty = true;
    hs_reply(rs, 200, json_object_new_object());
}

static void on_login(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    struct json_object *body = rq->body;
    const char *type = hs_jstr(body, "type");
    const char *user = hs_jstr(hs_jget(body, "identifier"), "user");
    const char *pw = hs_jstr(body, "password");
    if (!type || strcmp(type, "m.login.password") != 0 || !user ||
        (strcmp(user, HS_BOT) != 0 && strcmp(user, "illegal") != 0) || !pw ||
        strcmp(pw, HS_BOT_PASSWORD) != 0) {
        hs_error(rs, 403, "M_FORBIDDEN", "Invalid username or password");
        return;
    }
    char dev[64], tok[96];
    const char *d = hs_jstr(body, "device_id");
    if (d)
        snprintf(dev, sizeof(dev), "%s", d);
    else
        snprintf(dev, sizeof(dev), "GEN%d", hs->next_login);
    snprintf(tok, sizeof(tok), "syt_login_%d", ++hs->next_login);
    add_token(hs, tok, HS_BOT, dev);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "user_id", json_object_new_string(HS_BOT));
    json_object_object_add(r, "access_token", json_object_new_string(tok));
    json_object_object_add(r, "device_id", json_object_new_string(dev));
    hs_reply(rs, 200, r);
}

/* ---- the routes ---- */

struct route {
    const char *method; /* "*": any */
    const char *path;   /* segments after HS_PREFIX; "*" matches one segment */
    void (*fn)(struct hs *, struct hs_req *, struct hs_resp *);
};

static const struct route routes[] = {
    {"GET", "account/whoami", on_whoami},
    {"GET", "sync", hs_sync},
    {"POST", "user/*/filter", on_filter},
    {"*", "user/*/account_data/*", on_account_data},
    {"POST", "createRoom", hs_on_create_room},
    {"POST", "rooms/*/join", hs_on_join},
    {"POST", "join/*", hs_on_join},
    {"POST", "rooms/*/leave", hs_on_leave},
    {"PUT", "rooms/*/send/*/*", hs_on_send},
    {"PUT", "rooms/*/state/*/*", hs_on_state},
    {"PUT", "rooms/*/state/*", hs_on_state},
    {"GET", "rooms/*/messages", hs_on_messages},
    {"GET", "rooms/*/members", hs_on_members},
    {"POST", "keys/upload", hs_on_keys_upload},
    {"POST", "keys/query", hs_on_keys_query},
    {"POST", "keys/claim", hs_on_keys_claim},
    {"PUT", "sendToDevice/*/*", hs_on_send_to_device},
    {"GET", "notifications", hs_on_notifications},
    {"GET", "pushrules/", hs_on_push_rules},
};

static bool route_matches(const struct route *r, struct hs_req *rq)
{
    if (strcmp(r->method, "*") != 0 && !is(rq, r->method))
        return false;
    const char *p = r->path;
    int i = 0;
    for (;;) {
        size_t n = strcspn(p, "/");
        if (i >= rq->nseg)
            return false;
        if (!(n == 1 && *p == '*') && (strlen(rq->seg[i]) != n || memcmp(p, rq->seg[i], n) != 0))
            return false;
        i++;
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    return i == rq->nseg;
}

void hs_route(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    if (rq->nseg == 1 && strcmp(rq->seg[0], "login") == 0 && is(rq, "POST")) {
        on_login(hs, rq, rs);
        return;
    }
    if (!rq->token) {
        hs_error(rs, 401, "M_MISSING_TOKEN", "Missing access token");
        return;
    }
    struct json_object *t = hs_jget(hs->tokens, rq->token);
    if (!t) {
        struct json_object *b = json_object_new_object();
        json_object_object_add(b, "errcode", json_object_new_string("M_UNKNOWN_TOKEN"));
        json_object_object_add(b, "error", json_object_new_string("Unrecognised access token"));
        json_object_object_add(b, "soft_logout", json_object_new_boolean(hs->soft_logout));
        hs_reply(rs, 401, b);
        return;
    }
    rq->user = hs_jstr(t, "user");
    rq->device = hs_jstr(t, "device");
    for (size_t i = 0; i < sizeof(routes) / sizeof(routes[0]); i++) {
        if (route_matches(&routes[i], rq)) {
            routes[i].fn(hs, rq, rs);
            return;
        }
    }
    hs_error(rs, 404, "M_UNRECOGNIZED", "Unrecognized request");
}

/* ---- life ---- */

static const char *const encryption_names[] = {"off", "invite", "all"};

const char *hs_encryption_name(enum hs_encryption e)
{
    return (unsigned)e < 3 ? encryption_names[e] : "?";
}

struct hs *hs_new(void)
{
    struct hs *hs = calloc(1, sizeof(*hs));
    hs->log = json_object_new_array();
    hs->rooms = json_object_new_object();
    hs->filters = json_object_new_object();
    hs->txns = json_object_new_object();
    hs->tokens = json_object_new_object();
    hs->account_data = json_object_new_object();
    hs->requests = json_object_new_array();
    hs->faults = json_object_new_array();
    hs->devices = json_object_new_object();
    hs->device_moved = json_object_new_object();
    hs->inbox = json_object_new_object();
    hs->notifications = json_object_new_object();
    hs->push_rules = json_object_new_object();
    hs->clear_sends = json_object_new_array();
    hs->bot_since = json_object_new_array();
    add_token(hs, HS_BOT_TOKEN, HS_BOT, "BOTDEVICE");
    const char *env = getenv("MX_HS_SEED");
    hs->seed = env && *env ? strtoull(env, NULL, 10) : hs_now_ms() ^ (uint64_t)(uintptr_t)hs;
    hs->rng = hs->seed ? hs->seed : 1;
    /* Real deployments encrypt: private chats (invite) or every new room (all). */
    hs->encryption = hs_chance(hs, 2) ? HS_ENC_INVITE : HS_ENC_ALL;
    hs->refuse_dup_annotations = hs_chance(hs, 2);
    fprintf(stderr,
            "test homeserver: seed %" PRIu64 " (replay with MX_HS_SEED=%" PRIu64
            "), encryption_enabled_by_default_for_room_type: %s, duplicate annotations %s\n",
            hs->seed, hs->seed, hs_encryption_name(hs->encryption),
            hs->refuse_dup_annotations ? "refused" : "accepted");
    uv_mutex_init(&hs->mu);
    return hs;
}

const char *hs_url(struct hs *hs)
{
    return hs->url;
}

void hs_free_state(struct hs *hs)
{
    json_object_put(hs->log);
    json_object_put(hs->rooms);
    json_object_put(hs->filters);
    json_object_put(hs->txns);
    json_object_put(hs->tokens);
    json_object_put(hs->account_data);
    json_object_put(hs->last_initial);
    json_object_put(hs->requests);
    json_object_put(hs->faults);
    json_object_put(hs->devices);
    json_object_put(hs->device_moved);
    json_object_put(hs->inbox);
    json_object_put(hs->notifications);
    json_object_put(hs->push_rules);
    json_object_put(hs->clear_sends);
    json_object_put(hs->bot_since);
    uv_mutex_destroy(&hs->mu);
    free(hs);
}

/* ---- control API ---- */

/* Unlocks and wakes the server's loop, which answers parked syncs at once. */
void hs_unlock_wake(struct hs *hs)
{
    bool dirty = hs->dirty && hs->running;
    uv_mutex_unlock(&hs->mu);
    if (dirty)
        uv_async_send(&hs->wake);
}

void hs_set_duplicate_annotations_refused(struct hs *hs, bool refused)
{
    uv_mutex_lock(&hs->mu);
    hs->refuse_dup_annotations = refused;
    uv_mutex_unlock(&hs->mu);
}

void hs_set_encryption(struct hs *hs, enum hs_encryption e)
{
    uv_mutex_lock(&hs->mu);
    hs->encryption = e;
    uv_mutex_unlock(&hs->mu);
    fprintf(stderr, "test homeserver: encryption_enabled_by_default_for_room_type: %s\n",
            hs_encryption_name(e));
}

enum hs_encryption hs_get_encryption(struct hs *hs)
{
    uv_mutex_lock(&hs->mu);
    enum hs_encryption e = hs->encryption;
    uv_mutex_unlock(&hs->mu);
    return e;
}

char *hs_register(struct hs *hs, const char *user, const char *device)
{
    char tok[160];
    uv_mutex_lock(&hs->mu);
    snprintf(tok, sizeof(tok), "syt_%s_%s_%d", user + 1, device, ++hs->next_login);
    add_token(hs, tok, user, device);
    uv_mutex_unlock(&hs->mu);
    return strdup(tok);
}

static void split_path(struct hs_req *rq, const char *path, size_t plen);

int hs_request(struct hs *hs, const char *token, const char *method, const char *path,
               struct json_object *body, struct json_object **out)
{
    struct hs_req rq = {.method = method, .token = token, .body = body};
    const char *qm = strchr(path, '?');
    size_t plen = qm ? (size_t)(qm - path) : strlen(path);
    if (plen < strlen(HS_PREFIX) || strncmp(path, HS_PREFIX, strlen(HS_PREFIX)) != 0)
        return -1;
    split_path(&rq, path + strlen(HS_PREFIX), plen - strlen(HS_PREFIX));
    rq.query = hs_parse_query(qm ? qm + 1 : NULL);
    struct hs_resp rs = {0};
    uv_mutex_lock(&hs->mu);
    hs_route(hs, &rq, &rs);
    if (rs.park) {
        /* No waiting in process: the sync answers now with what it has. */
        rs.body = hs_sync_parked(hs, rq.user, rq.device, rs.since, rs.since_td, rs.filter, true);
        rs.status = 200;
        json_object_put(rs.filter);
    }
    hs_unlock_wake(hs);
    for (int i = 0; i < rq.nseg; i++)
        free(rq.seg[i]);
    json_object_put(rq.query);
    if (out)
        *out = rs.body;
    else
        json_object_put(rs.body);
    return rs.status;
}

static void split_path(struct hs_req *rq, const char *p, size_t len)
{
    const char *end = p + len;
    while (p < end && rq->nseg < HS_MAX_SEGS) {
        const char *s = memchr(p, '/', (size_t)(end - p));
        size_t n = s ? (size_t)(s - p) : (size_t)(end - p);
        rq->seg[rq->nseg++] = hs_url_decode(p, n, false);
        p += n + (s ? 1 : 0);
        if (!s)
            break;
        if (p == end) /* a trailing slash is an empty last segment ("pushrules/") */
            rq->seg[rq->nseg++] = strdup("");
    }
}

void hs_split_path(struct hs_req *rq, const char *p, size_t len)
{
    split_path(rq, p, len);
}

struct json_object *hs_account_data(struct hs *hs, const char *user, const char *type)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *c = hs_jget(hs_jget(hs_jget(hs->account_data, user), type), "content");
    struct json_object *copy = NULL;
    if (c)
        json_object_deep_copy(c, &copy, NULL);
    uv_mutex_unlock(&hs->mu);
    return copy;
}

char *hs_direct_room(struct hs *hs, const char *user)
{
    struct json_object *direct = hs_account_data(hs, HS_BOT, "m.direct");
    struct json_object *list = hs_jget(direct, user);
    char *out = NULL;
    if (list && json_object_is_type(list, json_type_array) && json_object_array_length(list) > 0)
        out = strdup(json_object_get_string(json_object_array_get_idx(list, 0)));
    json_object_put(direct);
    return out;
}

int hs_count(struct hs *hs, const char *substr)
{
    int n = 0;
    uv_mutex_lock(&hs->mu);
    for (size_t i = 0; i < json_object_array_length(hs->requests); i++)
        if (strstr(hs_jstr(json_object_array_get_idx(hs->requests, i), "line"), substr))
            n++;
    uv_mutex_unlock(&hs->mu);
    return n;
}

char *hs_last_body(struct hs *hs, const char *substr)
{
    char *out = NULL;
    uv_mutex_lock(&hs->mu);
    for (size_t i = json_object_array_length(hs->requests); i > 0 && !out; i--) {
        struct json_object *r = json_object_array_get_idx(hs->requests, i - 1);
        if (strstr(hs_jstr(r, "line"), substr))
            out = strdup(hs_jstr(r, "body"));
    }
    uv_mutex_unlock(&hs->mu);
    return out;
}

struct json_object *hs_bodies(struct hs *hs, const char *substr)
{
    struct json_object *out = json_object_new_array();
    uv_mutex_lock(&hs->mu);
    for (size_t i = 0; i < json_object_array_length(hs->requests); i++) {
        struct json_object *r = json_object_array_get_idx(hs->requests, i);
        const char *body = hs_jstr(r, "body");
        struct json_object *b =
            strstr(hs_jstr(r, "line"), substr) && body && *body ? json_tokener_parse(body) : NULL;
        if (b)
            json_object_array_add(out, b);
    }
    uv_mutex_unlock(&hs->mu);
    return out;
}

void hs_fault(struct hs *hs, const char *substr, int status, const char *body, const char *header,
              int count)
{
    struct json_object *f = json_object_new_object();
    json_object_object_add(f, "substr", json_object_new_string(substr));
    json_object_object_add(f, "status", json_object_new_int(status));
    json_object_object_add(f, "body", json_object_new_string(body ? body : ""));
    if (header)
        json_object_object_add(f, "header", json_object_new_string(header));
    json_object_object_add(f, "count", json_object_new_int(count));
    uv_mutex_lock(&hs->mu);
    json_object_array_add(hs->faults, f);
    uv_mutex_unlock(&hs->mu);
}

void hs_faults_clear(struct hs *hs)
{
    uv_mutex_lock(&hs->mu);
    json_object_put(hs->faults);
    hs->faults = json_object_new_array();
    uv_mutex_unlock(&hs->mu);
}

void hs_revoke_tokens(struct hs *hs, bool soft_logout)
{
    uv_mutex_lock(&hs->mu);
    /* Only the bot's sessions: the test players keep theirs. */
    struct json_object *kept = json_object_new_object();
    json_object_object_foreach(hs->tokens, tok, t)
    {
        if (strcmp(hs_jstr(t, "user"), HS_BOT) != 0)
            json_object_object_add(kept, tok, json_object_get(t));
    }
    json_object_put(hs->tokens);
    hs->tokens = kept;
    hs->soft_logout = soft_logout;
    uv_mutex_unlock(&hs->mu);
}

void hs_set_max_timeline(struct hs *hs, int limit)
{
    uv_mutex_lock(&hs->mu);
    hs->max_timeline = limit;
    uv_mutex_unlock(&hs->mu);
}

void hs_set_messages_page(struct hs *hs, int events)
{
    uv_mutex_lock(&hs->mu);
    hs->messages_page = events;
    uv_mutex_unlock(&hs->mu);
}

int hs_dump(struct hs *hs, const char *path)
{
    uv_mutex_lock(&hs->mu);
    int rc = json_object_to_file_ext(path, hs->log, JSON_C_TO_STRING_PLAIN);
    uv_mutex_unlock(&hs->mu);
    return rc;
}

int hs_dump_requests(struct hs *hs, const char *path)
{
    uv_mutex_lock(&hs->mu);
    int rc = json_object_to_file_ext(path, hs->requests, JSON_C_TO_STRING_PLAIN);
    uv_mutex_unlock(&hs->mu);
    return rc;
}
