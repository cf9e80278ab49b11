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
#include "core/catalog.h"
#include "dispatch.h"
#include "log.h"
#include "metrics.h"
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
    metrics_count(ctx->d->metrics, METRIC_MESSAGES_OUT, p->ops->name, 1);
    if (p->ops->send(p, m) < 0)
        log_warn("dispatch", ctx->g->id, "%s could not queue a message", p->ops->name);
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
    render_fill(text, sizeof text, lang, key, vars);
    dispatch_reply(p, in, private_answer,
                   strncmp(key, "error.", 6) == 0 || strncmp(key, "resolve.", 8) == 0 ? OUT_ERROR
                                                                                      : OUT_NOTICE,
                   text);
}

void dispatch_announce(struct game *g, const char *key, const char *const *vars)
{
    char text[DISPATCH_TEXT_MAX];
    render_fill(text, sizeof text, g->language, key, vars);
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
            free(g);
            return;
        }
}

static bool is_over(const struct game *g)
{
    return g->started && g->state.phase == IL_PHASE_OVER;
}

int dispatch_save(struct dispatcher *d, struct game *g, bool finished)
{
    /* Every change to a lobby is saved here: that is its activity. */
    if (!g->started)
        g->lobby_activity = dispatcher_now(d);
    struct json_object *j = game_to_json(g);
    if (!j) {
        log_error("store", g->id, "out of memory serialising the game");
        return -1;
    }
    const char *text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
    char clock[32], counter[32];
    snprintf(clock, sizeof clock, "%lld", (long long)d->vnow);
    snprintf(counter, sizeof counter, "%llu", (unsigned long long)d->next_game);
    int rc = -1;
    uint64_t started = uv_hrtime();
    if (store_begin(d->store) == 0) {
        if (store_game_put(d->store, g->id, g->platform->ops->name, g->table, finished, text) ==
                0 &&
            store_meta_set(d->store, "next_game", counter) == 0 &&
            (!d->virtual_time || store_meta_set(d->store, "clock", clock) == 0) &&
            store_commit(d->store) == 0)
            rc = 0;
        else
            store_rollback(d->store);
    }
    json_object_put(j);
    metrics_observe(d->metrics, METRIC_STORE_COMMIT_SECONDS, g->platform->ops->name,
                    (double)(uv_hrtime() - started) / 1e9);
    if (rc < 0)
        log_error("store", g->id, "could not save the game");
    return rc;
}

/* Keeps the reminder bookkeeping in step with the rules' deadline. */
static void track_deadline(struct dispatcher *d, struct game *g)
{
    int64_t dl = il_game_deadline(&g->state);
    if (dl != g->tracked_deadline) {
        g->tracked_deadline = dl;
        g->phase_length = dl ? dl - dispatcher_now(d) : 0;
        g->reminders_sent = 0;
    }
}

int dispatch_commit(struct dispatcher *d, struct game *g, const struct game *before,
                    const struct il_events *ev)
{
    struct emit_ctx ctx = {d, g};
    track_deadline(d, g);
    render_note(g, ev);
    if (dispatch_save(d, g, is_over(g)) < 0) {
        *g = *before;
        return -1;
    }
    render_events(g, ev, dispatch_emit, &ctx);
    if (is_over(g)) {
        log_info("dispatch", g->id, "game over");
        dispatch_game_drop(d, g);
    }
    timers_rearm(d);
    return 0;
}

enum il_error dispatch_play(struct dispatcher *d, struct game *g, const struct il_action *a,
                            struct platform *p, const struct inbound *in)
{
    struct game *before = malloc(sizeof *before);
    struct il_events *ev = malloc(sizeof *ev);
    enum il_error e = IL_ERR_COUNT;
    if (!before || !ev) {
        log_error("dispatch", g->id, "out of memory");
        goto out;
    }
    *before = *g;
    ev->n = 0;
    e = il_game_apply(&g->state, a, dispatcher_now(d), &g->rng, ev);
    if (e != IL_OK) {
        if (in) {
            char key[64];
            snprintf(key, sizeof key, "error.%s", il_error_id(e));
            dispatch_reply_key(p, in, true, g->language, key, NULL);
        }
        goto out;
    }
    if (ev->n == 0)
        goto out;
    if (dispatch_commit(d, g, before, ev) < 0) {
        if (in)
            dispatch_reply_key(p, in, true, g->language, "msg.store-failed", NULL);
        e = IL_ERR_COUNT;
    }
out:
    free(before);
    free(ev);
    return e;
}

bool dispatch_resolve_player(struct platform *p, const struct inbound *in, const struct game *g,
                             const char *text, bool private_answer, int *seat)
{
    const char *ids[IL_MAX_PLAYERS], *names[IL_MAX_PLAYERS];
    int map[IL_MAX_PLAYERS];
    unsigned n = 0;
    char choices[1024];
    for (unsigned i = 0; i < g->nseats; i++) {
        if (g->started && !g->state.players[i].active)
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
    dispatch_reply_key(
        p, in, private_answer, g->language,
        e == RESOLVE_AMBIGUOUS ? "resolve.ambiguous-player" : "resolve.unknown-player", vars);
    return false;
}

void dispatch_resolve_error(struct platform *p, const struct inbound *in, const struct game *g,
                            enum resolve_error e, const char *word, const char *choices,
                            bool private_answer)
{
    static const char *const keys[] = {
        [RESOLVE_UNKNOWN] = "resolve.unknown-card",
        [RESOLVE_AMBIGUOUS] = "resolve.ambiguous-card",
        [RESOLVE_NOT_TRADABLE] = "resolve.not-tradable",
        [RESOLVE_BAD_COUNT] = "resolve.bad-count",
    };
    const char *vars[] = {"word", word, "choices", choices, NULL};
    dispatch_reply_key(p, in, private_answer, g->language, keys[e], vars);
}

/* --- inputs -------------------------------------------------------------- */

/* A reaction on a drop message is a grab; any other reaction means nothing. */
static void on_reaction(struct dispatcher *d, struct platform *p, const struct inbound *in)
{
    char id[GAME_ID_MAX];
    unsigned drop;
    int res = render_emoji_resource(in->reaction);
    if (!in->msg_key || res < 0 || sscanf(in->msg_key, "%23[^/]/drop/%u", id, &drop) != 2)
        return;
    struct game *g = dispatch_game_by_id(d, p, id);
    if (!g || !g->started || g->state.drops != drop || g->state.phase != IL_PHASE_DROP_GRAB)
        return;
    int seat = game_seat_of(g, in->user);
    if (seat < 0)
        return;
    /* Late, early and second grabs by reaction are ignored without a word:
     * the drop message itself shows what is left. */
    struct il_action a = {.type = IL_ACT_GRAB, .player = (int8_t)seat, .resource = (uint8_t)res};
    dispatch_play(d, g, &a, p, NULL);
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
    if (c.type == CMD_NONE && e == CMD_OK)
        return 0;
    bool private_cmd = c.type >= CMD_HAND;
    if (e != CMD_OK) {
        char key[32];
        const char *usage = catalog_text(lang, command_usage_key(c.type));
        const char *vars[] = {"usage", usage ? usage : "", "help",
                              catalog_text(lang, in->channel ? "msg.help-table" : "msg.help-dm"),
                              NULL};
        snprintf(key, sizeof key, "parse.%s", command_error_id(e));
        dispatch_reply_key(p, in, private_cmd || !in->channel, lang, key, vars);
        return -1;
    }
    if (private_cmd) {
        commands_private(d, p, in, &c);
    } else if (!in->channel) {
        dispatch_reply_key(p, in, true, lang, "msg.help-dm", NULL);
    } else {
        commands_table(d, p, in, &c);
    }
    return 0;
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
        unsigned lobby = 0, phases[IL_PHASE_OVER + 1] = {0};
        for (unsigned i = 0; i < d->ngames; i++) {
            const struct game *g = d->games[i];
            if (g->platform != d->platforms[p])
                continue;
            if (g->started)
                phases[g->state.phase]++;
            else
                lobby++;
        }
        const char *name = d->platforms[p]->ops->name;
        fprintf(out, "illegald_games{platform=\"%s\",phase=\"lobby\"} %u\n", name, lobby);
        for (unsigned ph = 0; ph < IL_PHASE_OVER; ph++)
            fprintf(out, "illegald_games{platform=\"%s\",phase=\"%s\"} %u\n", name,
                    il_phase_id((enum il_phase)ph), phases[ph]);
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
        free(g);
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
        free(d->games[i]);
    free(d->games);
    free(d);
}
