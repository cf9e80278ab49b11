/*
 * harness.c - the recording platform host for the Matrix adapter tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adapters/matrix/matrix.h"
#include "harness.h"
#include "inbound_json.h"

static int on_deliver(void *ctx, struct platform *p, const struct inbound *in)
{
    (void)p;
    struct th *t = ctx;
    struct json_object *o = inbound_to_json(in);
    json_object_array_add(t->inbox, o);
    return 0;
}

static void on_dm_result(void *ctx, struct platform *p, const char *user, bool reachable)
{
    (void)p;
    struct th *t = ctx;
    json_object_object_add(t->dm, user, json_object_new_boolean(reachable));
}

static char *on_state_get(void *ctx, struct platform *p, const char *key)
{
    (void)p;
    struct th *t = ctx;
    struct json_object *v;
    if (!json_object_object_get_ex(t->state, key, &v))
        return NULL;
    return strdup(json_object_get_string(v));
}

static void on_sent(void *ctx, struct platform *p, int64_t outbox_id)
{
    (void)p;
    struct th *t = ctx;
    if (t->killed)
        return;
    char k[24];
    snprintf(k, sizeof k, "%lld", (long long)outbox_id);
    json_object_object_add(t->confirmed, k, json_object_new_int(th_confirmed(t, outbox_id) + 1));
}

int th_confirmed(struct th *t, int64_t outbox_id)
{
    char k[24];
    struct json_object *v;
    snprintf(k, sizeof k, "%lld", (long long)outbox_id);
    return json_object_object_get_ex(t->confirmed, k, &v) ? json_object_get_int(v) : 0;
}

/* Whether the process is dead for the store: th_kill_at's write came (then the loop stops). */
static bool dead_at(struct th *t, const char *key, const char *value)
{
    if (!t->killed && t->kill_key && strcmp(key, t->kill_key) == 0 &&
        strcmp(value, t->kill_value) == 0) {
        t->killed = true;
        uv_stop(&t->loop);
        /* a dead process sends nothing: what the adapter would send next never arrives */
        hs_fault(t->hs, "/_matrix/", 0, NULL, NULL, 1 << 20);
    }
    return t->killed;
}

static int on_state_set(void *ctx, struct platform *p, const char *key, const char *value)
{
    (void)p;
    struct th *t = ctx;
    if (dead_at(t, key, value))
        return 0;
    json_object_object_add(t->state, key, json_object_new_string(value));
    if (t->lazy) /* written now: an older deferred value must not follow it */
        json_object_object_del(t->lazy, key);
    return 0;
}

/* As the daemon's store: on disk with the next commit (here th_stop), "" forgets the key. */
static int on_state_defer(void *ctx, struct platform *p, const char *key, const char *value)
{
    (void)p;
    struct th *t = ctx;
    if (dead_at(t, key, value))
        return 0;
    json_object_object_add(t->lazy, key, json_object_new_string(value));
    return 0;
}

/* As the daemon's store: the key is forgotten now (and a deferred value of it with it). */
static int on_state_del(void *ctx, struct platform *p, const char *key)
{
    (void)p;
    struct th *t = ctx;
    if (dead_at(t, key, ""))
        return 0;
    json_object_object_del(t->state, key);
    if (t->lazy)
        json_object_object_del(t->lazy, key);
    return 0;
}

static int on_state_each(void *ctx, struct platform *p, const char *prefix,
                         void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
    (void)p;
    struct th *t = ctx;
    json_object_object_foreach(t->state, k, v)
    {
        if (strncmp(k, prefix, strlen(prefix)) == 0)
            fn(arg, k, json_object_get_string(v));
    }
    return 0;
}

/* The deferred writes reach the store. */
static void lazy_commit(struct th *t)
{
    if (!t->lazy)
        return;
    json_object_object_foreach(t->lazy, k, v)
    {
        if (*json_object_get_string(v))
            json_object_object_add(t->state, k, json_object_get(v));
        else
            json_object_object_del(t->state, k);
    }
    json_object_put(t->lazy);
    t->lazy = json_object_new_object();
}

void th_defer_writes(struct th *t)
{
    if (!t->lazy)
        t->lazy = json_object_new_object();
    t->host.state_defer = on_state_defer;
}

void th_init(struct th *t, struct hs *hs)
{
    memset(t, 0, sizeof(*t));
    uv_loop_init(&t->loop);
    t->hs = hs;
    t->state = json_object_new_object();
    t->inbox = json_object_new_array();
    t->dm = json_object_new_object();
    t->confirmed = json_object_new_object();
    t->host.loop = &t->loop;
    t->host.ctx = t;
    t->host.deliver = on_deliver;
    t->host.dm_result = on_dm_result;
    t->host.state_get = on_state_get;
    t->host.state_set = on_state_set;
    t->host.state_each = on_state_each;
    t->host.state_del = on_state_del;
    t->host.sent = on_sent;
    t->cfg.matrix_homeserver = (char *)hs_url(hs);
    t->cfg.matrix_user_id = HS_BOT;
    t->cfg.matrix_access_token = HS_BOT_TOKEN;
    t->cfg.matrix_moderator_power_level = 50;
    t->cfg.matrix_pickle_key = "harness-pickle-key-0123456789";
    t->cfg.matrix_rooms_per_inviter = 3;
    t->cfg.matrix_max_rooms = 1000;
}

int th_start(struct th *t)
{
    char err[256] = "";
    t->p = matrix_platform_new(&t->cfg, &t->host, err, sizeof(err));
    if (!t->p) {
        fprintf(stderr, "matrix_platform_new: %s\n", err);
        return -2;
    }
    int rc = t->p->ops->start(t->p);
    if (rc != 0) {
        t->p->ops->destroy(t->p);
        t->p = NULL;
        uv_run(&t->loop, UV_RUN_DEFAULT);
    }
    return rc;
}

/* Destroys the adapter without stopping it first: nothing it would write on its way out. */
static void destroy(struct th *t)
{
    t->p->ops->destroy(t->p);
    t->p = NULL;
    uv_run(&t->loop, UV_RUN_DEFAULT);
}

void th_stop(struct th *t)
{
    if (!t->p)
        return;
    t->p->ops->stop(t->p);
    destroy(t);
    lazy_commit(t);
}

static void th_kill_at_clear(struct th *t)
{
    free(t->kill_key);
    free(t->kill_value);
    t->kill_key = t->kill_value = NULL;
    t->killed = false;
}

void th_kill_at(struct th *t, const char *key, const char *value)
{
    th_kill_at_clear(t);
    t->kill_key = strdup(key);
    t->kill_value = strdup(value);
}

bool th_killed(struct th *t)
{
    return t->killed;
}

void th_crash(struct th *t)
{
    if (t->lazy) {
        json_object_put(t->lazy);
        t->lazy = json_object_new_object();
    }
    if (t->p)
        destroy(t);
    if (t->killed)
        hs_faults_clear(t->hs);
    th_kill_at_clear(t);
}

void th_free(struct th *t)
{
    th_stop(t);
    uv_loop_close(&t->loop);
    json_object_put(t->state);
    json_object_put(t->inbox);
    json_object_put(t->dm);
    json_object_put(t->confirmed);
    json_object_put(t->lazy);
    th_kill_at_clear(t);
}

static void on_wake(uv_timer_t *timer)
{
    (void)timer;
}

bool th_run_until(struct th *t, bool (*pred)(struct th *, void *), void *arg, int ms)
{
    uv_timer_t tick;
    uv_timer_init(&t->loop, &tick);
    uv_timer_start(&tick, on_wake, 5, 5);
    uint64_t end = uv_now(&t->loop) + (uint64_t)ms;
    bool ok = pred(t, arg);
    while (!ok && uv_now(&t->loop) < end) {
        uv_run(&t->loop, UV_RUN_ONCE);
        ok = pred(t, arg);
    }
    uv_close((uv_handle_t *)&tick, NULL);
    uv_run(&t->loop, UV_RUN_NOWAIT);
    return ok;
}

static bool never(struct th *t, void *arg)
{
    (void)t;
    (void)arg;
    return false;
}

void th_run_for(struct th *t, int ms)
{
    th_run_until(t, never, NULL, ms);
}

static bool inbox_has(struct th *t, void *arg)
{
    return json_object_array_length(t->inbox) >= *(size_t *)arg;
}

bool th_wait_inbox(struct th *t, size_t n, int ms)
{
    return th_run_until(t, inbox_has, &n, ms);
}

struct bot_wait {
    const char *type;
    size_t n;
    bool raw; /* the server's log, not the readers' view */
};

void th_add_reader(struct th *t, struct hs_player *p)
{
    if (t->nreaders < sizeof(t->readers) / sizeof(t->readers[0]))
        t->readers[t->nreaders++] = p;
}

int th_check_no_clear_sends(struct th *t)
{
    struct json_object *leaks = hs_bot_clear_sends(t->hs);
    int rc = json_object_array_length(leaks) > 0 ? -1 : 0;
    if (rc)
        fprintf(stderr, "the bot sent in clear into encrypted rooms: %s\n",
                json_object_to_json_string(leaks));
    json_object_put(leaks);
    return rc;
}

struct json_object *th_bot_events(struct th *t, const char *type)
{
    return hs_bot_events_read(t->hs, t->readers, t->nreaders, type);
}

static bool bot_has(struct th *t, void *arg)
{
    struct bot_wait *w = arg;
    struct json_object *evs = w->raw ? hs_bot_events(t->hs, w->type) : th_bot_events(t, w->type);
    bool ok = json_object_array_length(evs) >= w->n;
    json_object_put(evs);
    return ok;
}

bool th_wait_bot_events(struct th *t, const char *type, size_t n, int ms)
{
    struct bot_wait w = {type, n, false};
    return th_run_until(t, bot_has, &w, ms);
}

bool th_wait_bot_sent(struct th *t, const char *type, size_t n, int ms)
{
    struct bot_wait w = {type, n, true};
    return th_run_until(t, bot_has, &w, ms);
}

static bool is_ready(struct th *t, void *arg)
{
    (void)arg;
    struct json_object *v;
    return json_object_object_get_ex(t->state, "since", &v) &&
           hs_count(t->hs, "GET /_matrix/client/v3/sync") >= 2;
}

bool th_wait_ready(struct th *t, int ms)
{
    return th_run_until(t, is_ready, NULL, ms);
}

int th_send(struct th *t, enum outbound_kind kind, const char *channel, const char *user,
            const char *key, bool replace, const char *text, const char *data_json)
{
    struct json_object *data = data_json ? json_tokener_parse(data_json) : NULL;
    struct outbound o = {
        .kind = kind,
        .channel = channel,
        .user = user,
        .key = key,
        .replace = replace,
        .text = text,
        .data = data,
    };
    int rc = t->p->ops->send(t->p, &o);
    json_object_put(data);
    return rc;
}

int th_send_stored(struct th *t, int64_t outbox_id, const char *channel, const char *text)
{
    return th_send_kept(t, outbox_id, OUT_NOTICE, channel, NULL, text, NULL);
}

int th_send_kept(struct th *t, int64_t outbox_id, enum outbound_kind kind, const char *channel,
                 const char *key, const char *text, const char *data_json)
{
    struct json_object *data = data_json ? json_tokener_parse(data_json) : NULL;
    struct outbound o = {.kind = kind,
                         .channel = channel,
                         .key = key,
                         .text = text,
                         .data = data,
                         .outbox_id = outbox_id};
    int rc = t->p->ops->send(t->p, &o);
    json_object_put(data);
    return rc;
}

const char *th_in_str(struct th *t, size_t i, const char *field)
{
    struct json_object *o = json_object_array_get_idx(t->inbox, i);
    struct json_object *v;
    if (!o || !json_object_object_get_ex(o, field, &v))
        return NULL;
    return json_object_get_string(v);
}
