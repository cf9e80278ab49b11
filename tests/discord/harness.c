/*
 * harness.c - the test host for the Discord adapter.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "adapters/discord/discord.h"
#include "harness.h"
#include "inbound_json.h"

static void complete(void *ctx, struct platform *p, const char *channel, const char *user,
                     const char *word, const char *option, const char *typed,
                     void (*add)(void *arg, const char *name, const char *value), void *arg)
{
    struct harness *h = ctx;
    (void)p;
    json_object_put(h->completed);
    h->completed = json_object_new_object();
    json_object_object_add(h->completed, "channel",
                           channel ? json_object_new_string(channel) : NULL);
    json_object_object_add(h->completed, "user", json_object_new_string(user));
    json_object_object_add(h->completed, "word", json_object_new_string(word));
    json_object_object_add(h->completed, "option", json_object_new_string(option));
    json_object_object_add(h->completed, "typed", json_object_new_string(typed));
    for (size_t i = 0; h->completions && i < json_object_array_length(h->completions); i++) {
        struct json_object *c = json_object_array_get_idx(h->completions, i);
        add(arg, json_object_get_string(json_object_array_get_idx(c, 0)),
            json_object_get_string(json_object_array_get_idx(c, 1)));
    }
}

static int deliver(void *ctx, struct platform *p, const struct inbound *in)
{
    struct harness *h = ctx;
    struct json_object *o = inbound_to_json(in);
    json_object_array_add(h->inputs, o);
    if (h->auto_reply && in->reply_to) {
        struct outbound m = {.kind = OUT_NOTICE,
                             .channel = in->channel,
                             .user = in->channel ? NULL : in->user,
                             .text = h->auto_reply,
                             .reply_to = in->reply_to,
                             .cause = in};
        p->ops->send(p, &m);
    }
    if (h->auto_answer && in->type == INBOUND_MESSAGE) {
        struct outbound m = {.kind = OUT_NOTICE,
                             .channel = in->channel,
                             .user = in->channel ? NULL : in->user,
                             .text = h->auto_answer,
                             .cause = in};
        p->ops->send(p, &m);
    }
    if (h->auto_dm) {
        /* as the bot does: a notice that follows from this input says so */
        struct outbound m = {.kind = OUT_NOTICE, .user = in->user, .text = h->auto_dm, .cause = in};
        p->ops->send(p, &m);
    }
    return 0;
}

static void dm_result(void *ctx, struct platform *p, const char *user, bool reachable)
{
    struct harness *h = ctx;
    (void)p;
    json_object_object_add(h->probes, user, json_object_new_boolean(reachable));
}

static char *state_get(void *ctx, struct platform *p, const char *key)
{
    struct harness *h = ctx;
    (void)p;
    struct json_object *v = json_object_object_get(h->state, key);
    return v ? strdup(json_object_get_string(v)) : NULL;
}

static int state_set(void *ctx, struct platform *p, const char *key, const char *value)
{
    struct harness *h = ctx;
    (void)p;
    json_object_object_add(h->state, key, json_object_new_string(value));
    return 0;
}

static int state_del(void *ctx, struct platform *p, const char *key)
{
    struct harness *h = ctx;
    (void)p;
    json_object_object_del(h->state, key);
    return 0;
}

static void sent(void *ctx, struct platform *p, int64_t outbox_id)
{
    struct harness *h = ctx;
    (void)p;
    json_object_array_add(h->sent, json_object_new_int64(outbox_id));
}

void h_init(struct harness *h, unsigned hb_ms, bool gateway_direct)
{
    /* the app may read message content unless a test says otherwise */
    h_init_intents(h, hb_ms, gateway_direct, FD_INTENT_MESSAGE_CONTENT, NULL);
}

void h_init_intents(struct harness *h, unsigned hb_ms, bool gateway_direct, int64_t privileged,
                    const char *message_content)
{
    memset(h, 0, sizeof(*h));
    uv_loop_init(&h->loop);
    h->srv = fd_start("test-token", hb_ms);
    if (!h->srv) {
        fprintf(stderr, "cannot start the fake Discord server\n");
        abort();
    }
    fd_set_privileged(h->srv, privileged);
    h->host.loop = &h->loop;
    h->host.ctx = h;
    h->host.deliver = deliver;
    h->host.complete = complete;
    h->host.dm_result = dm_result;
    h->host.state_get = state_get;
    h->host.state_set = state_set;
    h->host.state_del = state_del;
    h->host.sent = sent;
    h->inputs = json_object_new_array();
    h->probes = json_object_new_object();
    h->state = json_object_new_object();
    h->sent = json_object_new_array();
    static char api[64], gw[64];
    snprintf(api, sizeof(api), "http://127.0.0.1:%d/api/v10", fd_port(h->srv));
    snprintf(gw, sizeof(gw), "ws://127.0.0.1:%d", fd_port(h->srv));
    h->cfg.discord_token = "test-token";
    h->cfg.discord_api_url = api;
    h->cfg.discord_gateway_url = gateway_direct ? gw : NULL;
    h->cfg.discord_application_id = FD_APP_ID;
    h->cfg.discord_message_content = (char *)message_content;
    /* the gateway's transport compression, on or off as the fake's seed says
     * (printed), so the adapter's tests read both over their runs */
    h->cfg.discord_compression = fd_seed(h->srv) & 1;
    h_start_adapter(h);
}

void h_start_adapter(struct harness *h)
{
    char err[256] = "";
    h->p = discord_platform_new(&h->cfg, &h->host, err, sizeof(err));
    if (!h->p || h->p->ops->start(h->p) < 0) {
        fprintf(stderr, "adapter: %s\n", err);
        abort();
    }
}

void h_stop_adapter(struct harness *h)
{
    if (!h->p)
        return;
    h->p->ops->stop(h->p);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    h->p->ops->destroy(h->p);
    uv_run(&h->loop, UV_RUN_DEFAULT);
    h->p = NULL;
}

void h_fini(struct harness *h)
{
    h_stop_adapter(h);
    fd_stop(h->srv);
    uv_loop_close(&h->loop);
    json_object_put(h->inputs);
    json_object_put(h->probes);
    json_object_put(h->state);
    json_object_put(h->sent);
    json_object_put(h->completions);
    json_object_put(h->completed);
    h->completions = h->completed = NULL;
}

static void nap(void)
{
    struct timespec ts = {0, 2 * 1000 * 1000};
    nanosleep(&ts, NULL);
}

bool h_run_until(struct harness *h, bool (*pred)(struct harness *), unsigned timeout_ms)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        uv_run(&h->loop, UV_RUN_NOWAIT);
        if (pred(h))
            return true;
        clock_gettime(CLOCK_MONOTONIC, &t);
        long ms = (t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000;
        if (ms > (long)timeout_ms)
            return pred(h);
        nap();
    }
}

static bool never(struct harness *h)
{
    (void)h;
    return false;
}

void h_run_for(struct harness *h, unsigned ms)
{
    h_run_until(h, never, ms);
}

int h_count_inputs(struct harness *h)
{
    return (int)json_object_array_length(h->inputs);
}

struct json_object *h_snapshot(struct harness *h)
{
    return fd_snapshot(h->srv);
}

int h_gw(struct harness *h, const char *field)
{
    struct json_object *s = h_snapshot(h);
    struct json_object *v = json_object_object_get(json_object_object_get(s, "gateway"), field);
    int n = json_object_get_int(v);
    json_object_put(s);
    return n;
}

bool h_ready(struct harness *h)
{
    struct discord_stats st;
    discord_get_stats(h->p, &st);
    return st.ready_shards > 0;
}

bool h_registered(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    bool yes = json_object_array_length(json_object_object_get(s, "commands")) > 0;
    json_object_put(s);
    return yes && h_ready(h);
}

long long h_message(struct harness *h, const char *id, const char *channel, const char *guild,
                    const char *user, const char *text)
{
    struct json_object *d = json_object_new_object(), *a = json_object_new_object();
    json_object_object_add(d, "id", json_object_new_string(id));
    json_object_object_add(d, "channel_id", json_object_new_string(channel));
    if (guild)
        json_object_object_add(d, "guild_id", json_object_new_string(guild));
    json_object_object_add(a, "id", json_object_new_string(user));
    json_object_object_add(a, "username", json_object_new_string(user));
    json_object_object_add(d, "author", a);
    json_object_object_add(d, "content", json_object_new_string(text));
    if (guild) {
        struct json_object *m = json_object_new_object();
        json_object_object_add(m, "roles", json_object_new_array());
        json_object_object_add(d, "member", m);
    }
    long long seq = fd_dispatch(h->srv, "MESSAGE_CREATE",
                                json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN));
    json_object_put(d);
    return seq;
}
