/*
 * matrix.c - the platform ops: construction, start-up checks, send, DM probes,
 * stop; and the small helpers the other files share.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>
#include <uv.h>

#include "../../bot/config.h"
#include "../../bot/log.h"
#include "client.h"
#include "matrix.h"
#include "mx.h"

#define MOD              "matrix"
#define START_TIMEOUT_MS 15000

char *mx_state_get(struct mx *m, const char *key)
{
    const struct platform_host *h = m->base.host;
    return h->state_get ? h->state_get(h->ctx, &m->base, key) : NULL;
}

int mx_state_put(struct mx *m, const char *key, const char *value)
{
    const struct platform_host *h = m->base.host;
    if (h->state_set && h->state_set(h->ctx, &m->base, key, value) != 0) {
        log_error(MOD, NULL, "cannot store %s", key);
        return -1;
    }
    return 0;
}

void mx_state_set(struct mx *m, const char *key, const char *value)
{
    if (mx_state_put(m, key, value) != 0)
        return; /* logged there; the caller goes on */
}

void mx_state_defer(struct mx *m, const char *key, const char *value)
{
    const struct platform_host *h = m->base.host;
    if (!h->state_defer) { /* a host without lazy state writes it at once */
        mx_state_set(m, key, value);
        return;
    }
    if (h->state_defer(h->ctx, &m->base, key, value) != 0)
        log_error(MOD, NULL, "cannot store %s", key);
}

void mx_state_del(struct mx *m, const char *key)
{
    const struct platform_host *h = m->base.host;
    if (h->state_del && h->state_del(h->ctx, &m->base, key) != 0)
        log_error(MOD, NULL, "cannot forget %s", key);
}

void mx_state_each(struct mx *m, const char *prefix,
                   void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
    const struct platform_host *h = m->base.host;
    if (h->state_each && h->state_each(h->ctx, &m->base, prefix, fn, arg) != 0)
        log_error(MOD, NULL, "cannot read the stored %s keys", prefix);
}

struct json_object *mx_state_get_json(struct mx *m, const char *key)
{
    char *s = mx_state_get(m, key);
    if (!s)
        return NULL;
    struct json_object *v = json_tokener_parse(s);
    free(s);
    return v;
}

void mx_state_set_json(struct mx *m, const char *key, struct json_object *v)
{
    mx_state_set(m, key, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

void mx_state_defer_json(struct mx *m, const char *key, struct json_object *v)
{
    mx_state_defer(m, key, json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
}

static void cancel_calls(struct mx *m)
{
    mx_call_cancel(m->sync_call);
    m->sync_call = NULL;
    mx_call_cancel(m->boot_call);
    m->boot_call = NULL;
    for (int i = 0; i < MX_SEND_LANES; i++) {
        mx_call_cancel(m->lanes[i].call);
        m->lanes[i].call = NULL;
        free(m->lanes[i].txn);
        free(m->lanes[i].target);
        m->lanes[i].txn = m->lanes[i].target = NULL;
    }
}

void mx_fail(struct mx *m, const char *why)
{
    log_error(MOD, NULL,
              "%s; the Matrix adapter stops. Check [matrix] access_token (or password "
              "and device_id) and restart.",
              why);
    m->phase = MX_FAILED;
    cancel_calls(m);
    uv_timer_stop(&m->poll_timer);
    uv_timer_stop(&m->dm_timer);
}

static void run_probes(struct mx *m);

static void on_defer(uv_timer_t *t)
{
    struct mx *m = t->data;
    struct json_object *answers = m->probe_answers;
    m->probe_answers = json_object_new_object();
    json_object_object_foreach(answers, user, ok)
    {
        if (m->phase == MX_STOPPED)
            break;
        m->base.host->dm_result(m->base.host->ctx, &m->base, user, json_object_get_boolean(ok));
    }
    json_object_put(answers);
    if (m->phase == MX_SYNCING) {
        run_probes(m);
        mx_pump(m);
    }
}

void mx_defer(struct mx *m)
{
    if (m->phase != MX_STOPPED)
        uv_timer_start(&m->defer, on_defer, 0, 0);
}

/* Answers the probes waiting for the room list: a known DM room, or a new one. */
static void run_probes(struct mx *m)
{
    if (m->phase != MX_SYNCING)
        return;
    struct json_object *todo = NULL;
    if (json_object_deep_copy(m->probes, &todo, NULL) != 0)
        return;
    json_object_object_foreach(todo, user, waiting)
    {
        if (!json_object_get_boolean(waiting))
            continue;
        if (mx_dm_room(m, user)) {
            json_object_object_del(m->probes, user);
            json_object_object_add(m->probe_answers, user, json_object_new_boolean(1));
            mx_defer(m);
        } else if (!jget_type(m->dm_creating, user, json_type_boolean)) {
            if (mx_dm_ensure(m, user) != 0) {
                json_object_object_del(m->probes, user);
                json_object_object_add(m->probe_answers, user, json_object_new_boolean(0));
                mx_defer(m);
            }
        } else {
            bool ok;
            if (jget_bool(m->dm_creating, user, &ok) == 0 && !ok) {
                json_object_object_del(m->probes, user);
                json_object_object_add(m->probe_answers, user, json_object_new_boolean(0));
                mx_defer(m);
            }
        }
    }
    json_object_put(todo);
}

static void mx_probe_dm(struct platform *p, const char *user)
{
    struct mx *m = (struct mx *)p;
    bool ok;
    if (jget_bool(m->dm_creating, user, &ok) == 0 && !ok)
        json_object_object_del(m->dm_creating, user); /* a new chance after a failure */
    json_object_object_add(m->probes, user, json_object_new_boolean(1));
    if (m->phase == MX_SYNCING)
        mx_defer(m);
}

static int mx_send(struct platform *p, const struct outbound *o)
{
    struct mx *m = (struct mx *)p;
    if (m->phase == MX_STOPPED)
        return -1;
    return mx_send_outbound(m, o);
}

char *mx_login_body(struct mx *m)
{
    struct json_object *b = json_object_new_object();
    json_object_object_add(b, "type", json_object_new_string("m.login.password"));
    struct json_object *ident = json_object_new_object();
    json_object_object_add(ident, "type", json_object_new_string("m.id.user"));
    json_object_object_add(ident, "user", json_object_new_string(m->user_id));
    json_object_object_add(b, "identifier", ident);
    json_object_object_add(b, "password", json_object_new_string(m->password));
    if (m->device_id)
        json_object_object_add(b, "device_id", json_object_new_string(m->device_id));
    json_object_object_add(b, "initial_device_display_name", json_object_new_string("illegald"));
    char *s = strdup(json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN));
    json_object_put(b);
    return s;
}

/* Stores the session of a password login: the token is reused at the next start, because
 * every login makes a new token and transaction ids are scoped to a token. */
static void auth_store(struct mx *m)
{
    struct json_object *v = json_object_new_object();
    json_object_object_add(v, "user_id", json_object_new_string(m->user_id));
    json_object_object_add(v, "access_token", json_object_new_string(m->token));
    if (m->device_id)
        json_object_object_add(v, "device_id", json_object_new_string(m->device_id));
    mx_state_set_json(m, "auth", v);
    json_object_put(v);
}

int mx_login_done(struct mx *m, long status, struct json_object *answer)
{
    const char *token = jget_str(answer, "access_token");
    if (status != 200 || !token) {
        const char *ec = jget_str(answer, "errcode");
        log_error(MOD, NULL, "login as %s refused: HTTP %ld %s", m->user_id, status, ec ? ec : "");
        return -1;
    }
    char *t = strdup(token);
    const char *dev = jget_str(answer, "device_id");
    char *d = dev ? strdup(dev) : NULL;
    const char *uid = jget_str(answer, "user_id");
    char *u = uid ? strdup(uid) : NULL;
    if (!t || (dev && !d) || (uid && !u) || mx_http_set_token(m->http, token) < 0) {
        log_error(MOD, NULL, "no memory to keep the login as %s", m->user_id);
        free(t);
        free(d);
        free(u);
        return -1;
    }
    free(m->token);
    m->token = t;
    if (d && !m->device_id)
        log_info(MOD, NULL, "logged in as new device %s; it is kept in the store", d);
    if (d) {
        free(m->device_id);
        m->device_id = d;
    }
    if (u) {
        free(m->user_id);
        m->user_id = u;
    }
    auth_store(m);
    mx_e2e_logged_in(m);
    log_info(MOD, NULL, "logged in as %s (device %s)", m->user_id,
             m->device_id ? m->device_id : "?");
    return 0;
}

/* Logs in with the password and the stable device id. Returns 0, -1 if refused, or 1 if the
 * homeserver cannot be reached (the asynchronous start then retries with backoff). */
static int password_login(struct mx *m)
{
    char *body = mx_login_body(m);
    if (!body)
        return -1;
    long status;
    mx_http_clear_token(m->http);
    struct json_object *r = mx_http_call_sync(m->http, "POST", "/_matrix/client/v3/login", body,
                                              START_TIMEOUT_MS, &status);
    free(body);
    int rc;
    if (status == 0 || status >= 500 || status == 429) {
        log_warn(MOD, NULL,
                 "cannot reach the homeserver %s to log in (HTTP %ld); retrying in the "
                 "background with backoff",
                 m->hs, status);
        rc = 1;
    } else {
        rc = mx_login_done(m, status, r);
    }
    json_object_put(r);
    return rc;
}

void mx_token_rejected(struct mx *m, const char *where)
{
    if (m->phase == MX_STOPPED || m->phase == MX_FAILED || m->relogin)
        return;
    if (!m->password || !m->user_id) {
        char why[160];
        snprintf(why, sizeof(why), "the homeserver rejected the access token (%s)", where);
        mx_fail(m, why);
        return;
    }
    log_warn(MOD, NULL, "the homeserver rejected the access token (%s); logging in again", where);
    mx_state_del(m, "auth");
    m->relogin = true;
    mx_call_cancel(m->sync_call);
    m->sync_call = NULL;
    mx_call_cancel(m->boot_call);
    m->boot_call = NULL;
    json_object_put(m->batch);
    m->batch = NULL;
    json_object_put(m->gaps);
    m->gaps = NULL;
    mx_sync_begin(m, true);
}

/* Checks the token once before going asynchronous, so a wrong token stops start-up with a
 * clear reason. Network trouble is not fatal here: the asynchronous start retries. */
static int check_token(struct mx *m)
{
    long status;
    struct json_object *r = mx_http_call_sync(m->http, "GET", "/_matrix/client/v3/account/whoami",
                                              NULL, START_TIMEOUT_MS, &status);
    const char *ec = jget_str(r, "errcode");
    int rc = 0;
    if (status == 401 || (ec && strcmp(ec, "M_UNKNOWN_TOKEN") == 0)) {
        bool is_soft = jget_true(r, "soft_logout");
        if (m->password && m->user_id) {
            log_warn(MOD, NULL, "access token rejected (%s%s); logging in with the password",
                     ec ? ec : "HTTP 401", is_soft ? ", soft logout" : "");
            mx_state_del(m, "auth");
            rc = password_login(m);
        } else {
            log_error(MOD, NULL, "the homeserver rejected [matrix] access_token (%s%s): %s",
                      ec ? ec : "HTTP 401", is_soft ? ", soft_logout" : "",
                      is_soft ? "the session expired; log in again to get a new token, or set "
                                "password and device_id so the bot logs in by itself"
                              : "the token is unknown or was logged out; create a new one");
            rc = -1;
        }
    } else if (status == 0) {
        log_warn(MOD, NULL, "cannot reach the homeserver %s yet; retrying in the background",
                 m->hs);
    } else if (status >= 400 && status < 500 && status != 429) {
        log_error(MOD, NULL, "whoami refused: HTTP %ld %s", status, ec ? ec : "");
        rc = -1;
    }
    json_object_put(r);
    return rc;
}

/* With a password, the session of an earlier login of the same user is reused, also over a
 * configured token: that login happened because the configured token was rejected. */
static void load_auth(struct mx *m)
{
    if (!m->password)
        return;
    struct json_object *v = mx_state_get_json(m, "auth");
    const char *uid = jget_str(v, "user_id"), *tok = jget_str(v, "access_token");
    const char *dev = jget_str(v, "device_id");
    if (uid && tok && m->user_id && strcmp(uid, m->user_id) == 0 &&
        (!m->device_id || (dev && strcmp(dev, m->device_id) == 0))) {
        free(m->token);
        m->token = strdup(tok);
        if (dev && !m->device_id)
            m->device_id = strdup(dev);
    }
    json_object_put(v);
}

static void load_state(struct mx *m)
{
    load_auth(m);
    mx_rooms_load(m);
    mx_direct_load(m);
    free(m->since);
    m->since = mx_state_get(m, "since");
    char *txn = mx_state_get(m, "txn");
    if (txn) {
        m->txn = strtoull(txn, NULL, 10);
        free(txn);
    }
    mx_outbox_load(m);
    struct json_object *v = mx_state_get_json(m, "polls");
    if (v && json_object_is_type(v, json_type_object)) {
        json_object_put(m->polls);
        m->polls = v;
    } else {
        json_object_put(v);
    }
    v = mx_state_get_json(m, "tables");
    if (v && json_object_is_type(v, json_type_object)) {
        json_object_put(m->tables);
        m->tables = v;
    } else {
        json_object_put(v);
    }
    v = mx_state_get_json(m, "votes");
    if (v && json_object_is_type(v, json_type_object)) {
        json_object_put(m->votes);
        m->votes = v;
    } else {
        json_object_put(v);
    }
    v = mx_state_get_json(m, "inflight");
    if (v && json_object_is_type(v, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(v); i++) {
            const char *id = json_object_get_string(json_object_array_get_idx(v, i));
            if (id)
                mx_seen_add(m, id);
        }
        json_object_put(m->inflight);
        m->inflight = v;
    } else {
        json_object_put(v);
    }
    if (json_object_array_length(m->outbox) > 0)
        log_info(MOD, NULL, "%zu messages still to send from before the restart",
                 json_object_array_length(m->outbox));
}

static int mx_start(struct platform *p)
{
    struct mx *m = (struct mx *)p;
    if (m->phase != MX_IDLE)
        return -1;
    m->http = mx_http_new(m->loop, m->hs);
    if (!m->http) {
        log_error(MOD, NULL, "cannot start the HTTP client");
        return -1;
    }
    load_state(m);
    m->order = clock_wall_ms() * 1000;
    int rc = 0;
    if (m->token) {
        rc = mx_http_set_token(m->http, m->token) < 0 ? -1 : check_token(m);
    } else {
        rc = password_login(m);
    }
    if (rc < 0)
        goto fail;
    mx_sync_begin(m, rc > 0);
    return 0;
fail:
    m->phase = MX_FAILED;
    mx_http_free(m->http);
    m->http = NULL;
    return -1;
}

static void free_mx(struct mx *m);

void mx_handle_closed(uv_handle_t *h)
{
    struct mx *m = h->data;
    if (--m->handles_open == 0 && m->destroyed)
        free_mx(m);
}

static void mx_stop(struct platform *p)
{
    struct mx *m = (struct mx *)p;
    if (m->phase == MX_STOPPED)
        return;
    m->phase = MX_STOPPED;
    cancel_calls(m);
    uv_timer_stop(&m->poll_timer);
    uv_timer_stop(&m->defer);
    uv_timer_stop(&m->dm_timer);
    mx_http_free(m->http);
    m->http = NULL;
    mx_e2e_stop(m);
    /* The timers are closed here, before the daemon walks the loop to close what is left. */
    if (!uv_is_closing((uv_handle_t *)&m->poll_timer))
        uv_close((uv_handle_t *)&m->poll_timer, mx_handle_closed);
    if (!uv_is_closing((uv_handle_t *)&m->defer))
        uv_close((uv_handle_t *)&m->defer, mx_handle_closed);
    if (!uv_is_closing((uv_handle_t *)&m->dm_timer))
        uv_close((uv_handle_t *)&m->dm_timer, mx_handle_closed);
}

static void free_mx(struct mx *m)
{
    free(m->hs);
    free(m->user_id);
    free(m->token);
    free(m->password);
    free(m->device_id);
    free(m->invite_allow);
    free(m->filter_id);
    free(m->since);
    json_object_put(m->warned);
    json_object_put(m->tables);
    mx_rooms_free(m);
    mx_e2e_free(m);
    json_object_put(m->direct);
    json_object_put(m->dm_creating);
    json_object_put(m->direct_pending);
    json_object_put(m->dm_recheck);
    json_object_put(m->dm_created);
    json_object_put(m->probes);
    json_object_put(m->probe_answers);
    json_object_put(m->joining);
    json_object_put(m->outbox);
    json_object_put(m->keys);
    json_object_put(m->polls);
    json_object_put(m->votes);
    json_object_put(m->sent);
    json_object_put(m->inflight);
    json_object_put(m->batch);
    json_object_put(m->gaps);
    for (size_t i = 0; i < MX_SEEN_MAX; i++)
        free(m->seen[i]);
    free(m);
}

static void mx_destroy(struct platform *p)
{
    struct mx *m = (struct mx *)p;
    mx_stop(p);
    if (m->password) /* do not keep the secret longer than needed */
        memset(m->password, 0, strlen(m->password));
    m->destroyed = true;
    if (m->handles_open == 0)
        free_mx(m);
}

static void mx_channel_name_op(struct platform *p, const char *channel, char *out, size_t len)
{
    mx_channel_name((struct mx *)p, channel, out, len);
}

static void mx_game_changed(struct platform *p, const struct game_news *n)
{
    mx_tables_note((struct mx *)p, n->table, n->stage != GAME_ENDED);
}

/* Logged in, its start-up chain done, and long-polling /sync: what /readyz
 * reports. False while it logs in or takes its first snapshot, and for good
 * once the homeserver refused it (MX_FAILED). */
static bool mx_connected(struct platform *p)
{
    return ((struct mx *)p)->phase == MX_SYNCING;
}

static const struct platform_ops matrix_ops = {
    .name = "matrix",
    .caps = PLATFORM_CAP_DM | PLATFORM_CAP_REACTIONS | PLATFORM_CAP_POLLS | PLATFORM_CAP_EDITS,
    /* its own outbox holds a message once send() queued it; the bot's holds it from the
     * commit of its change until then (a kill -9 in between lost it) */
    .confirms_sends = true,
    /* a homeserver limits the messages of the bot's account: a computer's move,
     * about one message, at most once a second at a table */
    .computer_gap_ms = 1000,
    .start = mx_start,
    .send = mx_send,
    .probe_dm = mx_probe_dm,
    .game_changed = mx_game_changed,
    .channel_name = mx_channel_name_op,
    .connected = mx_connected,
    .stop = mx_stop,
    .destroy = mx_destroy,
};

static char *dup_opt(const char *s)
{
    return s && *s ? strdup(s) : NULL;
}

struct platform *matrix_platform_new(const struct config *cfg, const struct platform_host *host,
                                     char *err, size_t errlen)
{
    if (!cfg->matrix_homeserver || !*cfg->matrix_homeserver) {
        snprintf(err, errlen, "[matrix] homeserver is not set");
        return NULL;
    }
    if (strncmp(cfg->matrix_homeserver, "http://", 7) != 0 &&
        strncmp(cfg->matrix_homeserver, "https://", 8) != 0) {
        snprintf(err, errlen, "[matrix] homeserver must start with https:// (or http://)");
        return NULL;
    }
    bool token = cfg->matrix_access_token && *cfg->matrix_access_token;
    bool password = cfg->matrix_password && *cfg->matrix_password;
    if (!token && !password) {
        snprintf(err, errlen, "[matrix] needs access_token, or user_id and password");
        return NULL;
    }
    if (!token && (!cfg->matrix_user_id || !*cfg->matrix_user_id)) {
        snprintf(err, errlen, "[matrix] a password login needs user_id");
        return NULL;
    }
    if (!host || !host->loop || !host->deliver || !host->dm_result) {
        snprintf(err, errlen, "matrix: incomplete platform host");
        return NULL;
    }
    struct mx *m = calloc(1, sizeof(*m));
    if (!m) {
        snprintf(err, errlen, "out of memory");
        return NULL;
    }
    m->base.ops = &matrix_ops;
    m->base.host = host;
    m->loop = host->loop;
    SLIST_INIT(&m->rooms);
    LIST_INIT(&m->reqs);
    m->hs = strdup(cfg->matrix_homeserver);
    m->user_id = dup_opt(cfg->matrix_user_id);
    m->token = dup_opt(cfg->matrix_access_token);
    m->password = dup_opt(cfg->matrix_password);
    m->device_id = dup_opt(cfg->matrix_device_id);
    m->invite_allow = dup_opt(cfg->matrix_invite_allow);
    m->mod_level = cfg->matrix_moderator_power_level;
    m->rooms_per_inviter = cfg->matrix_rooms_per_inviter;
    m->max_rooms = cfg->matrix_max_rooms;
    m->language = cfg->language;
    m->direct = json_object_new_object();
    m->dm_creating = json_object_new_object();
    m->direct_pending = json_object_new_object();
    m->dm_recheck = json_object_new_object();
    m->dm_created = json_object_new_object();
    m->probes = json_object_new_object();
    m->probe_answers = json_object_new_object();
    m->joining = json_object_new_object();
    m->outbox = json_object_new_array();
    m->keys = json_object_new_object();
    m->polls = json_object_new_object();
    m->votes = json_object_new_object();
    m->sent = json_object_new_object();
    m->inflight = json_object_new_array();
    m->warned = json_object_new_object();
    m->tables = json_object_new_object();
    uv_timer_init(m->loop, &m->poll_timer);
    uv_timer_init(m->loop, &m->defer);
    uv_timer_init(m->loop, &m->dm_timer);
    m->poll_timer.data = m;
    m->defer.data = m;
    m->dm_timer.data = m;
    m->handles_open = 3;
    if (!m->hs || !m->direct || !m->outbox || !m->sent) {
        snprintf(err, errlen, "out of memory");
        mx_destroy(&m->base);
        return NULL;
    }
    if (mx_e2e_new(m, cfg, err, errlen) != 0) {
        mx_destroy(&m->base);
        return NULL;
    }
    return &m->base;
}

int matrix_feed_sync(struct platform *p, const char *body, size_t len)
{
    struct mx *m = (struct mx *)p;
    if (m->phase == MX_IDLE) {
        m->http = mx_http_new(m->loop, m->hs);
        if (!m->http)
            return -1;
        load_state(m);
        if (m->token && mx_http_set_token(m->http, m->token) < 0)
            return -1;
        if (!m->since && !(m->since = strdup("s0")))
            return -1;
        if (!m->filter_id && !(m->filter_id = strdup("0")))
            return -1;
        m->phase = MX_SYNCING;
        mx_e2e_start(m);
    }
    m->syncs_started++; /* as a long poll would: one-time key counts are current */
    if (m->phase != MX_SYNCING || m->sync_call || m->batch)
        return -1; /* stopped, or a gap of the last batch is still being filled */
    struct json_tokener *tok = json_tokener_new();
    if (!tok)
        return -1;
    struct json_object *v = len <= INT32_MAX ? json_tokener_parse_ex(tok, body, (int)len) : NULL;
    json_tokener_free(tok);
    int rc = v && json_object_is_type(v, json_type_object) ? mx_sync_apply(m, v) : -1;
    json_object_put(v);
    mx_sync_settle(m);
    return rc;
}

void mx_probes_after_snapshot(struct mx *m)
{
    run_probes(m);
}
