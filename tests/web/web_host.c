/*
 * web_host.c - a stand-in bot for the web adapter's protocol tests.
 *
 * It runs the real adapter on a libuv loop with a host whose deliver() prints
 * every input as one JSON line on stdout and answers with a few scripted
 * messages, so a websocket client can check who receives what:
 *   - any table text: a public notice "<name> said <text>", and the news that
 *     the table's game is in phase "dealing";
 *   - "!illegal secret" in a table: also a DM hand to the sender only;
 *   - "!illegal drop" in a table: also a drop with one reaction;
 *   - "!illegal probe" in a table: a DM probe, printed when answered;
 *   - a DM: a private notice back to the sender;
 *   - a reaction: a public notice naming who reacted.
 * Adapter state goes to the --state file (JSON), so a restart keeps seats.
 * The [web] limits come from the --config file (the daemon's INI format; its
 * port is ignored: --port, default 0, picks it). It prints "PORT <n>" once
 * listening, and exits 0 on SIGTERM or SIGINT.
 *
 * Usage: web_host [--port N] [--bind ADDR] [--state FILE] [--config FILE]
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>
#include <uv.h>

#include "adapters/web/web.h"
#include "bot/config.h"
#include "bot/log.h"
#include "bot/platform.h"

static struct json_object *state;
static const char *state_path;
static uv_signal_t sig_term, sig_int;

static void print_json(struct json_object *o)
{
    printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                         JSON_C_TO_STRING_NOSLASHESCAPE));
    fflush(stdout);
}

static void reply(struct platform *p, enum outbound_kind kind, const char *channel,
                  const char *user, const char *key, const char *text, struct json_object *data)
{
    struct outbound m = {
        .kind = kind,
        .channel = channel,
        .user = user,
        .key = key,
        .replace = key != NULL,
        .text = text,
        .data = data,
    };
    p->ops->send(p, &m);
    json_object_put(data);
}

static struct json_object *data_for(const char *table)
{
    struct json_object *d = json_object_new_object();
    json_object_object_add(d, "game", json_object_new_string("g1"));
    if (table)
        json_object_object_add(d, "table", json_object_new_string(table));
    return d;
}

static int host_deliver(void *ctx, struct platform *p, const struct inbound *in)
{
    (void)ctx;
    static const char *const types[] = {"message", "command", "reaction"};
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string("inbound"));
    json_object_object_add(o, "kind", json_object_new_string(types[in->type]));
    json_object_object_add(o, "channel", in->channel ? json_object_new_string(in->channel) : NULL);
    json_object_object_add(o, "user", json_object_new_string(in->user));
    json_object_object_add(o, "name", in->user_name ? json_object_new_string(in->user_name) : NULL);
    json_object_object_add(o, "moderator", json_object_new_boolean(in->moderator));
    if (in->text)
        json_object_object_add(o, "text", json_object_new_string(in->text));
    if (in->msg_key)
        json_object_object_add(o, "key", json_object_new_string(in->msg_key));
    if (in->reaction)
        json_object_object_add(o, "reaction", json_object_new_string(in->reaction));
    print_json(o);
    json_object_put(o);

    char text[512];
    const char *name = in->user_name ? in->user_name : in->user;
    if (in->type == INBOUND_REACTION) {
        if (in->channel) {
            snprintf(text, sizeof text, "grab by %s: %s on %s", name, in->reaction, in->msg_key);
            reply(p, OUT_NOTICE, in->channel, NULL, NULL, text, data_for(in->channel));
        }
        return 0;
    }
    if (!in->channel) {
        snprintf(text, sizeof text, "dm from %s: %s", name, in->text);
        reply(p, OUT_NOTICE, NULL, in->user, NULL, text, data_for(NULL));
        return 0;
    }
    snprintf(text, sizeof text, "%s said %s", name, in->text);
    struct json_object *d = data_for(in->channel);
    json_object_object_add(d, "phase", json_object_new_string("dealing"));
    reply(p, OUT_NOTICE, in->channel, NULL, NULL, text, d);
    /* as the bot does after a change: the table's game is under way */
    struct game_news news = {
        .stage = GAME_PHASE, .game = "g1", .table = in->channel, .phase = "dealing"};
    p->ops->game_changed(p, &news);
    if (strcmp(in->text, "!illegal secret") == 0) {
        char key[128];
        snprintf(key, sizeof key, "g1/hand/%s", in->user);
        snprintf(text, sizeof text, "secret hand of %s", name);
        d = data_for(in->channel);
        struct json_object *hand = json_object_new_object();
        json_object_object_add(hand, "guns", json_object_new_int(2));
        json_object_object_add(d, "hand", hand);
        reply(p, OUT_PRIVATE_VIEW, NULL, in->user, key, text, d);
    } else if (strcmp(in->text, "!illegal drop") == 0) {
        d = data_for(in->channel);
        struct json_object *list = json_object_new_array(), *c = json_object_new_object();
        json_object_object_add(c, "emoji", json_object_new_string("\xf0\x9f\x94\xab"));
        json_object_object_add(c, "card", json_object_new_string("guns"));
        json_object_array_add(list, c);
        json_object_object_add(d, "choices", list);
        json_object_object_add(d, "open", json_object_new_boolean(1));
        reply(p, OUT_TABLE_VIEW, in->channel, NULL, "g1/drop/1", "drop 1: guns", d);
    } else if (strcmp(in->text, "!illegal probe") == 0) {
        p->ops->probe_dm(p, in->user);
    }
    return 0;
}

static void host_dm_result(void *ctx, struct platform *p, const char *user, bool reachable)
{
    (void)ctx;
    (void)p;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string("dm_result"));
    json_object_object_add(o, "user", json_object_new_string(user));
    json_object_object_add(o, "reachable", json_object_new_boolean(reachable));
    print_json(o);
    json_object_put(o);
}

static char *host_state_get(void *ctx, struct platform *p, const char *key)
{
    (void)ctx;
    (void)p;
    struct json_object *v;
    if (!json_object_object_get_ex(state, key, &v))
        return NULL;
    return strdup(json_object_get_string(v));
}

/* Writes the state file whole, through a new file renamed over it, so a test
 * that reads it meanwhile never sees it half written. */
static int write_state(void)
{
    char tmp[4096];
    if (!state_path)
        return 0;
    snprintf(tmp, sizeof tmp, "%s.new", state_path);
    if (json_object_to_file_ext(tmp, state, JSON_C_TO_STRING_PLAIN) != 0 ||
        rename(tmp, state_path) != 0)
        return -1;
    return 0;
}

static int host_state_set(void *ctx, struct platform *p, const char *key, const char *value)
{
    (void)ctx;
    (void)p;
    json_object_object_add(state, key, json_object_new_string(value));
    return write_state();
}

static int host_state_del(void *ctx, struct platform *p, const char *key)
{
    (void)ctx;
    (void)p;
    json_object_object_del(state, key);
    return write_state();
}

static int host_state_each(void *ctx, struct platform *p, const char *prefix,
                           void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
    (void)ctx;
    (void)p;
    json_object_object_foreach(state, key, v)
    {
        if (strncmp(key, prefix, strlen(prefix)) == 0)
            fn(arg, key, json_object_get_string(v));
    }
    return 0;
}

static struct platform *platform;

static void on_signal(uv_signal_t *h, int signum)
{
    (void)signum;
    platform->ops->stop(platform);
    uv_close((uv_handle_t *)&sig_term, NULL);
    uv_close((uv_handle_t *)&sig_int, NULL);
    (void)h;
}

int main(int argc, char **argv)
{
    /* only the [web] keys matter to the adapter */
    const char *config_path = NULL, *bind = NULL;
    int port = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--port") == 0) {
            port = atoi(argv[i + 1]);
        } else if (strcmp(argv[i], "--bind") == 0) {
            bind = argv[i + 1];
        } else if (strcmp(argv[i], "--state") == 0) {
            state_path = argv[i + 1];
        } else if (strcmp(argv[i], "--config") == 0) {
            config_path = argv[i + 1];
        } else {
            fprintf(stderr, "usage: web_host [--port N] [--bind ADDR] [--state FILE] "
                            "[--config FILE]\n");
            return 2;
        }
    }
    struct config cfg;
    char err[256];
    if (config_init(&cfg) != 0 || config_load(&cfg, config_path, err, sizeof err) != 0) {
        fprintf(stderr, "web_host: %s\n", err);
        return 2;
    }
    cfg.web_port = port;
    if (bind) {
        free(cfg.web_bind);
        cfg.web_bind = strdup(bind);
    }
    state = state_path ? json_object_from_file(state_path) : NULL;
    if (!state || !json_object_is_type(state, json_type_object)) {
        json_object_put(state);
        state = json_object_new_object();
    }
    log_set_level(LOG_DEBUG);

    uv_loop_t loop;
    uv_loop_init(&loop);
    struct platform_host host = {
        .loop = &loop,
        .deliver = host_deliver,
        .dm_result = host_dm_result,
        .state_get = host_state_get,
        .state_defer = host_state_set, /* the file is written at once: lazy enough */
        .state_set = host_state_set,
        .state_del = host_state_del,
        .state_each = host_state_each,
    };
    platform = web_platform_new(&cfg, &host, err, sizeof err);
    config_free(&cfg);
    if (!platform) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    if (platform->ops->start(platform) != 0)
        return 1;
    printf("PORT %d\n", web_platform_port(platform));
    fflush(stdout);

    uv_signal_init(&loop, &sig_term);
    uv_signal_start(&sig_term, on_signal, SIGTERM);
    uv_signal_init(&loop, &sig_int);
    uv_signal_start(&sig_int, on_signal, SIGINT);
    uv_run(&loop, UV_RUN_DEFAULT);

    platform->ops->destroy(platform);
    int rc = uv_loop_close(&loop) == 0 ? 0 : 3;
    json_object_put(state);
    return rc;
}
