/*
 * dispatcher.c - the games, and the one path every change takes.
 *
 * Every change follows the same path: validate, apply to the rules state,
 * commit to the store, then render and send. If the commit fails, the game
 * is put back as it was and the user is told; nothing is announced that is
 * not on disk. Commands live in table_commands.c and player_commands.c, the
 * clock in timers.c.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "config.h"
#include "core/modules.h"
#include "core/catalog.h"
#include "dispatch.h"
#include "log.h"
#include "metrics.h"
#include "core/text.h"
#include "render.h"
#include "store.h"

/* --- clock --------------------------------------------------------------- */

int64_t dispatcher_now(const struct dispatcher *d)
{
    if (d->virtual_time)
        return d->vnow;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* --- sending ------------------------------------------------------------- */

void dispatch_emit(void *arg, const struct outbound *m)
{
    struct emit_ctx *ctx = arg;
    struct platform *p = ctx->g->platform;
    struct outbound o = *m;
    o.cause = ctx->cause;
    metrics_count(ctx->d->metrics, METRIC_MESSAGES_OUT, p->ops->name, 1);
    if (p->ops->send(p, &o) < 0)
        log_warn("dispatch", ctx->g->id, "%s could not queue a message", p->ops->name);
}

void dispatch_emit_rules(void *arg, const struct rules_msg *m)
{
    struct emit_ctx *ctx = arg;
    const struct game *g = ctx->g;
    char key[MSG_KEY_MAX];
    struct outbound o = {.kind = m->kind, .replace = m->replace, .text = m->text, .data = m->data};
    if (m->audience == MSG_TABLE)
        o.channel = g->table;
    else if (m->audience >= 0 && (unsigned)m->audience < g->nseats)
        o.user = g->seats[m->audience].user;
    else
        return; /* a seat that does not exist: a module bug, and no one to tell */
    if (m->key && msg_key_format(m->key, key, sizeof key) == 0) {
        o.key = key;
        o.key_parts = m->key;
    }
    dispatch_emit(arg, &o);
}

void dispatch_reply(struct platform *p, const struct inbound *in, bool private_answer,
                    enum outbound_kind kind, const char *text)
{
    metrics_count(p->host->metrics, METRIC_MESSAGES_OUT, p->ops->name, 1);
    struct outbound m = {.kind = kind, .text = text, .reply_to = in->reply_to};
    if (!private_answer && in->channel)
        m.channel = in->channel;
    else if (private_answer && in->channel && in->reply_to)
        m.channel = in->channel;
    else
        m.user = in->user;
    if (p->ops->send(p, &m) < 0)
        log_warn("dispatch", NULL, "%s could not queue a reply", p->ops->name);
}

void dispatch_reply_key(struct platform *p, const struct inbound *in, bool private_answer,
                        const char *lang, const char *key, const char *const *vars)
{
    char text[DISPATCH_TEXT_MAX];
    text_fill(text, sizeof text, lang, key, vars);
    dispatch_reply(p, in, private_answer,
                   strncmp(key, "error.", 6) == 0 || strncmp(key, "resolve.", 8) == 0 ? OUT_ERROR
                                                                                      : OUT_NOTICE,
                   text);
}

void dispatch_announce(struct game *g, const char *key, const char *const *vars)
{
    char text[DISPATCH_TEXT_MAX];
    text_fill(text, sizeof text, g->language, key, vars);
    struct outbound m = {.kind = OUT_NOTICE, .channel = g->table, .text = text};
    metrics_count(g->platform->host->metrics, METRIC_MESSAGES_OUT, g->platform->ops->name, 1);
    if (g->platform->ops->send(g->platform, &m) < 0)
        log_warn("dispatch", g->id, "could not queue an announcement");
}

/* --- games --------------------------------------------------------------- */

struct game *dispatch_game_at(struct dispatcher *d, struct platform *p, const char *table)
{
    for (unsigned i = 0; i < d->ngames; i++)
        if (d->games[i]->platform == p && strcmp(d->games[i]->table, table) == 0)
            return d->games[i];
    return NULL;
}

struct game *dispatch_game_by_id(struct dispatcher *d, struct platform *p, const char *id)
{
    for (unsigned i = 0; i < d->ngames; i++)
        if (d->games[i]->platform == p && strcasecmp(d->games[i]->id, id) == 0)
            return d->games[i];
    return NULL;
}

int dispatch_game_add(struct dispatcher *d, struct game *g)
{
    if (d->ngames == d->cap) {
        unsigned cap = d->cap ? d->cap * 2 : 16;
        struct game **v = realloc(d->games, cap * sizeof *v);
        if (!v)
            return -1;
        d->games = v;
        d->cap = cap;
    }
    d->games[d->ngames++] = g;
    return 0;
}

void dispatch_game_drop(struct dispatcher *d, struct game *g)
{
    for (unsigned i = 0; i < d->ngames; i++)
        if (d->games[i] == g) {
            d->games[i] = d->games[--d->ngames];
            game_free(g);
            return;
        }
}

void cmd_reply(struct bot_cmd *x, const char *key, const char *const *vars)
{
    if (x->in)
        dispatch_reply_key(x->p, x->in, x->private_answer, x->base.lang, key, vars);
    else
        dispatch_announce(x->g, key, vars); /* no input: the table asked, by the clock */
}

/* --- what handlers are offered (struct command_host) ---------------------- */

static void host_reply(struct command_ctx *x, const char *key, const char *const *vars)
{
    cmd_reply(bot_cmd(x), key, vars);
}

static void host_reply_text(struct command_ctx *base, const char *text)
{
    struct bot_cmd *x = bot_cmd(base);
    dispatch_reply(x->p, x->in, x->private_answer, OUT_NOTICE, text);
}

static bool host_player(struct command_ctx *x, const char *text, int *seat)
{
    return cmd_resolve_player(bot_cmd(x), text, seat);
}

static void host_play(struct command_ctx *base, const void *action)
{
    struct bot_cmd *x = bot_cmd(base);
    pipeline_play(x->d, x->g, action, x);
}

static void host_show(struct command_ctx *base, const struct rules_msg *m)
{
    struct bot_cmd *x = bot_cmd(base);
    struct emit_ctx ctx = {x->d, x->g, x->in};
    dispatch_emit_rules(&ctx, m);
}

static const struct command_host command_host = {
    .reply = host_reply,
    .reply_text = host_reply_text,
    .player = host_player,
    .play = host_play,
    .show = host_show,
};

bool cmd_resolve_player(struct bot_cmd *x, const char *text, int *seat)
{
    const struct game *g = x->g;
    const char *ids[RULES_MAX_SEATS], *names[RULES_MAX_SEATS];
    int map[RULES_MAX_SEATS];
    unsigned n = 0;
    char choices[1024];
    for (unsigned i = 0; i < g->nseats; i++) {
        if (!game_active(g, i))
            continue;
        ids[n] = g->seats[i].user;
        names[n] = g->seats[i].name;
        map[n++] = (int)i;
    }
    int index;
    enum resolve_error e =
        command_match_player(text, ids, names, n, &index, choices, sizeof choices);
    if (e == RESOLVE_OK) {
        *seat = map[index];
        return true;
    }
    const char *vars[] = {"word", text, "choices", choices, NULL};
    cmd_reply(x, e == RESOLVE_AMBIGUOUS ? "resolve.ambiguous-player" : "resolve.unknown-player",
              vars);
    return false;
}

/* --- inputs -------------------------------------------------------------- */

/* Finds the running game a private command is for; answers the user if none. */
static struct game *private_game(struct bot_cmd *x)
{
    struct dispatcher *d = x->d;
    const struct inbound *in = x->in;
    struct game *g = NULL;
    if (in->channel) {
        g = dispatch_game_at(d, x->p, in->channel);
    } else if (x->base.c->game[0]) {
        g = dispatch_game_by_id(d, x->p, x->base.c->game);
        if (!g || game_seat_of(g, in->user) < 0) {
            const char *vars[] = {"id", x->base.c->game, NULL};
            cmd_reply(x, "msg.no-such-game", vars);
            return NULL;
        }
    } else {
        char list[1024];
        size_t n = 0;
        unsigned count = 0;
        const char *example = NULL;
        list[0] = '\0';
        for (unsigned i = 0; i < d->ngames; i++) {
            struct game *y = d->games[i];
            if (y->platform != x->p || !y->started || game_seat_of(y, in->user) < 0)
                continue;
            g = y;
            example = y->id;
            count++;
            int w =
                snprintf(list + n, sizeof list - n, "%s%s (%s)", n ? ", " : "", y->id, y->table);
            if (w > 0 && (size_t)w < sizeof list - n)
                n += (size_t)w;
        }
        if (count > 1) {
            const char *vars[] = {"games", list, "example", example, NULL};
            cmd_reply(x, "msg.which-game", vars);
            return NULL;
        }
    }
    if (!g || game_seat_of(g, in->user) < 0) {
        cmd_reply(x, "msg.not-in-game", NULL);
        return NULL;
    }
    return g;
}

void commands_run(struct bot_cmd *x)
{
    const struct command_def *def = x->base.c->def;
    const struct inbound *in = x->in;
    if (!(def->places & CMD_IN_PRIVATE) && !in->channel) {
        /* A table command sent to the bot in private: say what works here. */
        char help[DISPATCH_TEXT_MAX];
        command_help(help, sizeof help, x->base.lang, false);
        dispatch_reply(x->p, in, true, OUT_NOTICE, help);
        return;
    }
    if (def->game != CMD_NO_GAME) {
        if (def->places & CMD_IN_TABLE) {
            x->g = dispatch_game_at(x->d, x->p, in->channel);
            if (!x->g) {
                cmd_reply(x, "msg.no-game", NULL);
                return;
            }
        } else if (!(x->g = private_game(x))) {
            return;
        }
        x->base.lang = x->g->language;
        x->base.seat = game_seat_of(x->g, in->user);
        x->base.state = x->g->state;
        x->base.table = &x->table;
        game_table(x->g, &x->table, x->users, x->names);
    }
    if (def->who == CMD_HOST && !in->moderator && strcmp(x->g->host, in->user) != 0) {
        cmd_reply(x, "msg.not-moderator", NULL);
        return;
    }
    if (def->game == CMD_RUNNING && !x->g->started) {
        cmd_reply(x, "msg.not-started", NULL);
        return;
    }
    if (def->who == CMD_PLAYER &&
        (x->base.seat < 0 || !game_active(x->g, (unsigned)x->base.seat))) {
        cmd_reply(x, "msg.not-player", NULL);
        return;
    }
    def->run(&x->base);
}

/* A reaction on one of a game's messages may be a move (a grab of a drop
 * card); its rules module says. Anything else means nothing. */
static void on_reaction(struct dispatcher *d, struct platform *p, const struct inbound *in)
{
    struct msg_key key;
    if (!in->msg_key || !in->reaction || msg_key_parse(in->msg_key, &key) < 0)
        return;
    struct game *g = dispatch_game_by_id(d, p, key.game);
    int seat;
    if (!g || !g->started || (seat = game_seat_of(g, in->user)) < 0 ||
        !game_active(g, (unsigned)seat))
        return;
    void *action = calloc(1, g->rules->action_size);
    if (!action)
        return;
    /* Late, early and second grabs by reaction are ignored without a word:
     * the drop message itself shows what is left. */
    if (g->rules->reaction(g->state, &key, in->reaction, (unsigned)seat, action))
        pipeline_play(d, g, action, NULL);
    free(action);
}

static int on_deliver(void *ctx, struct platform *p, const struct inbound *in)
{
    struct dispatcher *d = ctx;
    const char *lang = d->config->language;
    struct command c;

    if (d->stopped || !in->user || !in->user[0])
        return -1;
    /* Display names enter the bot here and only here: clean them once, so no
     * name can break a line of table text or fake one of the bot's. */
    char name[GAME_TEXT_MAX];
    struct inbound clean = *in;
    clean.user_name = command_clean_name(in->user_name, name, sizeof name) ? name : NULL;
    in = &clean;
    metrics_count(d->metrics, METRIC_EVENTS_IN, p->ops->name, 1);
    if (in->type == INBOUND_REACTION) {
        on_reaction(d, p, in);
        return 0;
    }
    if (!in->text)
        return -1;
    if (!in->channel && commands_stranger(d, p, in))
        return 0;
    /* Typed text in a table is chat unless it starts with "!illegal";
     * native commands are always commands. */
    bool in_table = in->channel && in->type == INBOUND_MESSAGE;
    enum command_error e = command_parse(in->text, in_table, &c);
    if (!c.def && e == CMD_OK)
        return 0;
    struct bot_cmd cmd = {.base = {.c = &c, .lang = lang, .seat = -1, .host = &command_host}};
    struct bot_cmd *x = &cmd;
    x->d = d;
    x->p = p;
    x->in = in;
    /* Private commands are answered in private, even their mistakes. */
    x->private_answer = (c.def && !(c.def->places & CMD_IN_TABLE)) || !in->channel;
    int rc = 0;
    if (e != CMD_OK) {
        char key[32], usage[512], help[DISPATCH_TEXT_MAX];
        usage[0] = '\0';
        if (c.def)
            command_usage(usage, sizeof usage, lang, c.def);
        command_help(help, sizeof help, lang, in->channel != NULL);
        const char *vars[] = {"usage", usage, "help", help, NULL};
        snprintf(key, sizeof key, "parse.%s", command_error_id(e));
        cmd_reply(x, key, vars);
        rc = -1;
    } else {
        commands_run(x);
    }
    return rc;
}

/* --- platform state ------------------------------------------------------ */

static char *on_state_get(void *ctx, struct platform *p, const char *key)
{
    struct dispatcher *d = ctx;
    char full[256];
    snprintf(full, sizeof full, "%s/%s", p->ops->name, key);
    return store_meta_get(d->store, full);
}

static int on_state_set(void *ctx, struct platform *p, const char *key, const char *value)
{
    struct dispatcher *d = ctx;
    char full[256];
    snprintf(full, sizeof full, "%s/%s", p->ops->name, key);
    return store_meta_set(d->store, full, value);
}

static int on_state_del(void *ctx, struct platform *p, const char *key)
{
    struct dispatcher *d = ctx;
    char full[256];
    snprintf(full, sizeof full, "%s/%s", p->ops->name, key);
    return store_meta_delete(d->store, full);
}

/* --- life cycle ---------------------------------------------------------- */

/* Games by platform and phase ("lobby" before the start), for /metrics. */
static void write_gauges(void *arg, FILE *out)
{
    const struct dispatcher *d = arg;
    fprintf(out, "# HELP illegald_games Games hosted now, by platform and phase.\n"
                 "# TYPE illegald_games gauge\n");
    for (unsigned p = 0; p < d->nplatforms; p++) {
        const char *name = d->platforms[p]->ops->name;
        unsigned lobby = 0;
        for (unsigned i = 0; i < d->ngames; i++)
            lobby += d->games[i]->platform == d->platforms[p] && !d->games[i]->started;
        fprintf(out, "illegald_games{platform=\"%s\",phase=\"lobby\"} %u\n", name, lobby);
        /* Every phase of every module, so a series exists before its first game. */
        for (size_t m = 0; m < rules_count(); m++) {
            const struct rules_module *rules = rules_at(m);
            const char *phase;
            for (unsigned ph = 0; (phase = rules->phase_at(ph)); ph++) {
                unsigned count = 0;
                for (unsigned i = 0; i < d->ngames; i++) {
                    const struct game *g = d->games[i];
                    count += g->platform == d->platforms[p] && g->started && g->rules == rules &&
                             strcmp(rules->phase(g->state), phase) == 0;
                }
                fprintf(out, "illegald_games{platform=\"%s\",phase=\"%s\"} %u\n", name, phase,
                        count);
            }
        }
    }
}

bool dispatcher_ready(const struct dispatcher *d)
{
    if (d->stopped)
        return false;
    for (unsigned i = 0; i < d->nplatforms; i++) {
        struct platform *p = d->platforms[i];
        if (p->ops->connected && !p->ops->connected(p))
            return false;
    }
    return true;
}

bool dispatcher_healthy(const struct dispatcher *d)
{
    return store_writable(d->store) == 0;
}

int dispatcher_new(struct dispatcher **out, const struct dispatcher_options *o, char *err,
                   size_t errlen)
{
    struct dispatcher *d = calloc(1, sizeof *d);
    if (!d) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    d->config = o->config;
    d->store = o->store;
    d->metrics = o->metrics;
    d->loop = o->loop;
    d->virtual_time = o->virtual_time;
    d->seeded = o->seeded;
    d->seed = o->seed;
    d->next_game = 1;
    d->host.loop = o->loop;
    d->host.ctx = d;
    d->host.metrics = o->metrics;
    d->host.deliver = on_deliver;
    d->host.dm_result = commands_dm_result;
    d->host.state_get = on_state_get;
    d->host.state_set = on_state_set;
    d->host.state_del = on_state_del;
    metrics_set_gauges(o->metrics, write_gauges, d);
    *out = d;
    return 0;
}

const struct platform_host *dispatcher_host(struct dispatcher *d)
{
    return &d->host;
}

int dispatcher_add_platform(struct dispatcher *d, struct platform *p)
{
    if (d->nplatforms == DISPATCH_MAX_PLATFORMS)
        return -1;
    d->platforms[d->nplatforms++] = p;
    return 0;
}

unsigned dispatcher_game_count(const struct dispatcher *d)
{
    return d->ngames;
}

struct restore_ctx {
    struct dispatcher *d;
    int failed;
};

static int restore_one(void *arg, const char *id, const char *platform, const char *table,
                       const char *record)
{
    struct restore_ctx *r = arg;
    struct dispatcher *d = r->d;
    struct platform *p = NULL;
    for (unsigned i = 0; i < d->nplatforms; i++)
        if (strcmp(d->platforms[i]->ops->name, platform) == 0)
            p = d->platforms[i];
    if (!p) {
        log_warn("dispatch", id, "kept in the store: platform %s is not configured", platform);
        return 0;
    }
    struct json_object *j = json_tokener_parse(record);
    struct game *g = calloc(1, sizeof *g);
    char why[128] = "not JSON";
    if (!j || !g || game_from_json(g, j, why, sizeof why) < 0 || strcmp(g->id, id) != 0 ||
        strcmp(g->table, table) != 0 || dispatch_game_add(d, g) < 0) {
        log_error("dispatch", id, "cannot restore the game (%s); it stays in the store", why);
        game_free(g);
        json_object_put(j);
        r->failed++;
        return 0;
    }
    json_object_put(j);
    g->platform = p;
    if (!g->started && !g->lobby_activity)
        g->lobby_activity = dispatcher_now(d);
    return 0;
}

int dispatcher_start(struct dispatcher *d, char *err, size_t errlen)
{
    char *v = store_meta_get(d->store, "next_game");
    if (v) {
        d->next_game = strtoull(v, NULL, 10);
        free(v);
    }
    if (d->virtual_time && (v = store_meta_get(d->store, "clock"))) {
        d->vnow = strtoll(v, NULL, 10);
        free(v);
    }
    struct restore_ctx r = {d, 0};
    if (store_games_active(d->store, restore_one, &r) < 0) {
        snprintf(err, errlen, "cannot read the games from the store");
        return -1;
    }
    log_info("dispatch", NULL, "restored %u games", d->ngames);
    for (unsigned i = 0; i < d->nplatforms; i++)
        if (d->platforms[i]->ops->start(d->platforms[i]) < 0) {
            snprintf(err, errlen, "platform %s failed to start", d->platforms[i]->ops->name);
            return -1;
        }
    if (!d->virtual_time) {
        uv_timer_init(d->loop, &d->timer);
        d->timer.data = d;
        d->timer_ready = true;
        /* Deadlines that passed while the daemon was down fire now. */
        timers_fire_due(d, dispatcher_now(d));
        timers_rearm(d);
    }
    return 0;
}

void dispatcher_stop(struct dispatcher *d)
{
    if (d->stopped)
        return;
    d->stopped = true;
    for (unsigned i = 0; i < d->nplatforms; i++)
        d->platforms[i]->ops->stop(d->platforms[i]);
    if (d->timer_ready) {
        uv_timer_stop(&d->timer);
        uv_close((uv_handle_t *)&d->timer, NULL);
    }
}

void dispatcher_free(struct dispatcher *d)
{
    if (!d)
        return;
    for (unsigned i = 0; i < d->nplatforms; i++)
        d->platforms[i]->ops->destroy(d->platforms[i]);
    for (unsigned i = 0; i < d->ngames; i++)
        game_free(d->games[i]);
    free(d->games);
    free(d);
}
