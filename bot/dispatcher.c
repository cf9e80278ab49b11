/*
 * dispatcher.c - games, commands, permissions, persistence and the clock.
 *
 * Every change follows the same path: validate, apply to the rules state,
 * commit to the store, then render and send. If the commit fails, the game
 * is put back as it was and the user is told; nothing is announced that is
 * not on disk.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>
#include <uv.h>

#include "command.h"
#include "config.h"
#include "core/catalog.h"
#include "dispatcher.h"
#include "game.h"
#include "log.h"
#include "metrics.h"
#include "render.h"
#include "store.h"

#define MAX_PLATFORMS 8
#define TEXT_MAX      2048

/* Reminders go out this long before a deadline, for phases long enough to need them. */
#define REMIND_LONG_MS  60000
#define REMIND_SHORT_MS 10000

struct dispatcher {
    const struct config *config;
    struct store *store;
    struct metrics *metrics;
    uv_loop_t *loop;
    struct platform_host host;
    struct platform *platforms[MAX_PLATFORMS];
    unsigned nplatforms;

    struct game **games; /* lobbies and running games; finished ones are dropped */
    unsigned ngames, cap;
    uint64_t next_game; /* number of the next game id */

    bool virtual_time;
    int64_t vnow;
    bool seeded;
    uint64_t seed;

    uv_timer_t timer;
    bool timer_ready;
    bool stopped;
};

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

struct emit_ctx {
    struct dispatcher *d;
    struct game *g;
};

static void emit_to_platform(void *arg, const struct outbound *m)
{
    struct emit_ctx *ctx = arg;
    struct platform *p = ctx->g->platform;
    metrics_count(ctx->d->metrics, METRIC_MESSAGES_OUT, p->ops->name, 1);
    if (p->ops->send(p, m) < 0)
        log_warn("dispatch", ctx->g->id, "%s could not queue a message", p->ops->name);
}

/* Answers the sender of `in`. Private answers go by DM, or ephemerally when
 * the platform gave a reply token; table answers go to the table. */
static void reply(struct platform *p, const struct inbound *in, bool private_answer,
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

static void reply_key(struct platform *p, const struct inbound *in, bool private_answer,
                      const char *lang, const char *key, const char *const *vars)
{
    char text[TEXT_MAX];
    render_fill(text, sizeof text, lang, key, vars);
    reply(p, in, private_answer,
          strncmp(key, "error.", 6) == 0 || strncmp(key, "resolve.", 8) == 0 ? OUT_ERROR
                                                                             : OUT_NOTICE,
          text);
}

static void announce(struct game *g, const char *key, const char *const *vars)
{
    char text[TEXT_MAX];
    render_fill(text, sizeof text, g->language, key, vars);
    struct outbound m = {.kind = OUT_NOTICE, .channel = g->table, .text = text};
    metrics_count(g->platform->host->metrics, METRIC_MESSAGES_OUT, g->platform->ops->name, 1);
    if (g->platform->ops->send(g->platform, &m) < 0)
        log_warn("dispatch", g->id, "could not queue an announcement");
}

/* --- games --------------------------------------------------------------- */

static struct game *find_game_at(struct dispatcher *d, struct platform *p, const char *table)
{
    for (unsigned i = 0; i < d->ngames; i++)
        if (d->games[i]->platform == p && strcmp(d->games[i]->table, table) == 0)
            return d->games[i];
    return NULL;
}

static struct game *find_game_id(struct dispatcher *d, struct platform *p, const char *id)
{
    for (unsigned i = 0; i < d->ngames; i++)
        if (d->games[i]->platform == p && strcasecmp(d->games[i]->id, id) == 0)
            return d->games[i];
    return NULL;
}

static int add_game(struct dispatcher *d, struct game *g)
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

static void drop_game(struct dispatcher *d, struct game *g)
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

/* Writes the game (and the clock, in virtual time) in one transaction. */
static int save_game(struct dispatcher *d, struct game *g, bool finished)
{
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

static void render_all(struct dispatcher *d, struct game *g, const struct il_events *ev)
{
    struct emit_ctx ctx = {d, g};
    for (unsigned i = 0; i < ev->n; i++)
        render_event(g, &ev->v[i], emit_to_platform, &ctx);
}

static void rearm(struct dispatcher *d);

/* Commits what a successful apply produced, or undoes it. Returns 0 or -1. */
static int commit_events(struct dispatcher *d, struct game *g, const struct game *before,
                         const struct il_events *ev)
{
    track_deadline(d, g);
    if (save_game(d, g, is_over(g)) < 0) {
        *g = *before;
        return -1;
    }
    render_all(d, g, ev);
    if (is_over(g)) {
        log_info("dispatch", g->id, "game over");
        drop_game(d, g);
    }
    rearm(d);
    return 0;
}

/*
 * Applies a rules action. On a rules error, `in` (when given) gets the reason;
 * on a store error the game is restored and `in` is told. Returns the rules
 * error, or IL_ERR_COUNT for a store failure. The game may be freed when it ends.
 */
static enum il_error play(struct dispatcher *d, struct game *g, const struct il_action *a,
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
            reply_key(p, in, true, g->language, key, NULL);
        }
        goto out;
    }
    if (ev->n == 0)
        goto out;
    if (commit_events(d, g, before, ev) < 0) {
        if (in)
            reply_key(p, in, true, g->language, "msg.store-failed", NULL);
        e = IL_ERR_COUNT;
    }
out:
    free(before);
    free(ev);
    return e;
}

static uint64_t game_seed(struct dispatcher *d, uint64_t number)
{
    uint64_t seed;
    if (d->seeded) {
        struct rng r;
        rng_seed(&r, d->seed ^ (number * 0x9e3779b97f4a7c15ULL));
        return rng_next(&r);
    }
    if (getrandom(&seed, sizeof seed, 0) != (ssize_t)sizeof seed) {
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ number;
    }
    return seed;
}

static void default_config(const struct config *c, enum il_variant v, struct il_config *out)
{
    il_config_default(out, v);
    out->timer_ms[IL_TIMER_SESSION] =
        (v == IL_VARIANT_CASUAL ? c->casual_session_seconds : c->session_seconds) * 1000;
    out->timer_ms[IL_TIMER_REVEAL] = c->reveal_seconds * 1000;
    out->timer_ms[IL_TIMER_GRAB] = c->grab_seconds * 1000;
    out->timer_ms[IL_TIMER_DEBATE] = c->debate_seconds * 1000;
    out->timer_ms[IL_TIMER_VOTE] = c->vote_seconds * 1000;
}

static void lobby_update(struct dispatcher *d, struct game *g)
{
    struct emit_ctx ctx = {d, g};
    render_lobby(g, emit_to_platform, &ctx);
}

/* --- table commands ------------------------------------------------------ */

static bool may_moderate(const struct game *g, const struct inbound *in)
{
    return in->moderator || strcmp(g->host, in->user) == 0;
}

static void copy_text(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

static void cmd_new(struct dispatcher *d, struct platform *p, const struct inbound *in,
                    const struct command *c, struct game *existing)
{
    const char *lang = d->config->language;
    if (existing) {
        const char *vars[] = {"id", existing->id, NULL};
        reply_key(p, in, false, lang, "msg.game-exists", vars);
        return;
    }
    int variant = c->arg[0] ? il_variant_from_id(c->arg) : il_variant_from_id(d->config->variant);
    if (variant < 0) {
        const char *vars[] = {"usage", catalog_text(lang, "usage.new"), NULL};
        reply_key(p, in, false, lang, "parse.usage", vars);
        return;
    }
    if (strlen(in->channel) >= GAME_TEXT_MAX || strlen(in->user) >= GAME_TEXT_MAX ||
        (in->user_name && strlen(in->user_name) >= GAME_TEXT_MAX)) {
        reply_key(p, in, false, lang, "parse.too-long", NULL);
        return;
    }
    struct game *g = calloc(1, sizeof *g);
    if (!g || add_game(d, g) < 0) {
        free(g);
        reply_key(p, in, false, lang, "msg.store-failed", NULL);
        return;
    }
    uint64_t number = d->next_game++;
    snprintf(g->id, sizeof g->id, "g%llu", (unsigned long long)number);
    g->platform = p;
    copy_text(g->table, sizeof g->table, in->channel);
    copy_text(g->host, sizeof g->host, in->user);
    copy_text(g->host_name, sizeof g->host_name, in->user_name ? in->user_name : in->user);
    copy_text(g->language, sizeof g->language, lang);
    default_config(d->config, (enum il_variant)variant, &g->config);
    g->seed = game_seed(d, number);
    rng_seed(&g->rng, g->seed);
    if (save_game(d, g, false) < 0) {
        d->next_game--;
        drop_game(d, g);
        reply_key(p, in, false, lang, "msg.store-failed", NULL);
        return;
    }
    log_info("dispatch", g->id, "new %s game at %s/%s", il_variant_id(g->config.variant),
             p->ops->name, g->table);
    lobby_update(d, g);
}

static void cmd_join(struct dispatcher *d, struct platform *p, const struct inbound *in,
                     struct game *g)
{
    if (g->started) {
        reply_key(p, in, false, g->language, "msg.already-started", NULL);
        return;
    }
    if (game_seat_of(g, in->user) >= 0) {
        reply_key(p, in, false, g->language, "msg.already-joined", NULL);
        return;
    }
    if (g->nseats == IL_MAX_PLAYERS) {
        reply_key(p, in, false, g->language, "msg.table-full", NULL);
        return;
    }
    if (strlen(in->user) >= GAME_TEXT_MAX) {
        reply_key(p, in, false, g->language, "parse.too-long", NULL);
        return;
    }
    struct seat *s = &g->seats[g->nseats++];
    memset(s, 0, sizeof *s);
    copy_text(s->user, sizeof s->user, in->user);
    copy_text(s->name, sizeof s->name, in->user_name ? in->user_name : in->user);
    g->probes_pending = 0;
    if (save_game(d, g, false) < 0) {
        g->nseats--;
        reply_key(p, in, false, g->language, "msg.store-failed", NULL);
        return;
    }
    const char *vars[] = {"player", s->name, "id", g->id, NULL};
    announce(g, "msg.joined", vars);
    lobby_update(d, g);
}

/* Removes a lobby seat. Returns 0, or -1 when it could not be saved. */
static int lobby_remove(struct dispatcher *d, struct game *g, unsigned seat)
{
    struct game before = *g;
    char name[GAME_TEXT_MAX];
    copy_text(name, sizeof name, game_seat_name(g, seat));
    memmove(&g->seats[seat], &g->seats[seat + 1], (g->nseats - seat - 1) * sizeof g->seats[0]);
    g->nseats--;
    g->probes_pending = 0;
    if (save_game(d, g, false) < 0) {
        *g = before;
        return -1;
    }
    const char *vars[] = {"player", name, "id", g->id, NULL};
    announce(g, "msg.left", vars);
    lobby_update(d, g);
    return 0;
}

static void kick_seat(struct dispatcher *d, struct platform *p, const struct inbound *in,
                      struct game *g, unsigned seat)
{
    if (!g->started) {
        if (lobby_remove(d, g, seat) < 0)
            reply_key(p, in, false, g->language, "msg.store-failed", NULL);
        return;
    }
    struct il_action a = {.type = IL_ACT_KICK, .player = IL_GM, .target = (int8_t)seat};
    play(d, g, &a, p, in);
}

static void finish_start(struct dispatcher *d, struct game *g)
{
    char names[1024];
    size_t n = 0;
    names[0] = '\0';
    for (unsigned i = 0; i < g->nseats; i++) {
        if (!g->seats[i].dm_unreachable)
            continue;
        int w = snprintf(names + n, sizeof names - n, "%s%s", n ? ", " : "", game_seat_name(g, i));
        if (w > 0 && (size_t)w < sizeof names - n)
            n += (size_t)w;
    }
    if (n) {
        const char *vars[] = {"players", names, NULL};
        announce(g, "msg.dms-closed", vars);
        return;
    }
    struct game *before = malloc(sizeof *before);
    struct il_events *ev = malloc(sizeof *ev);
    if (!before || !ev) {
        free(before);
        free(ev);
        log_error("dispatch", g->id, "out of memory");
        return;
    }
    *before = *g;
    ev->n = 0;
    enum il_error e =
        il_game_setup(&g->state, &g->config, g->nseats, dispatcher_now(d), &g->rng, ev);
    if (e != IL_OK) {
        char key[64];
        snprintf(key, sizeof key, "error.%s", il_error_id(e));
        *g = *before;
        announce(g, key, NULL);
    } else {
        g->started = true;
        if (commit_events(d, g, before, ev) < 0)
            announce(g, "msg.store-failed", NULL);
        else
            log_info("dispatch", g->id, "started with %u players", g->nseats);
    }
    free(before);
    free(ev);
}

static void cmd_start(struct platform *p, const struct inbound *in, struct game *g)
{
    if (g->started) {
        reply_key(p, in, false, g->language, "msg.already-started", NULL);
        return;
    }
    if (g->nseats < IL_MIN_PLAYERS) {
        char count[8];
        snprintf(count, sizeof count, "%u", g->nseats);
        const char *vars[] = {"count", count, NULL};
        reply_key(p, in, false, g->language, "msg.too-few", vars);
        return;
    }
    if (g->probes_pending)
        return;
    /* The game only starts once every player is known to get DMs: the
     * answers may come later, through dm_result(). */
    announce(g, "msg.checking-dms", NULL);
    g->probes_pending = g->nseats;
    char users[IL_MAX_PLAYERS][GAME_TEXT_MAX];
    unsigned n = g->nseats;
    for (unsigned i = 0; i < n; i++) {
        g->seats[i].dm_unreachable = false;
        copy_text(users[i], sizeof users[i], g->seats[i].user);
    }
    for (unsigned i = 0; i < n; i++)
        p->ops->probe_dm(p, users[i]);
}

static void on_dm_result(void *ctx, struct platform *p, const char *user, bool reachable)
{
    struct dispatcher *d = ctx;
    for (unsigned i = 0; i < d->ngames; i++) {
        struct game *g = d->games[i];
        int seat;
        if (g->platform != p || g->started || !g->probes_pending ||
            (seat = game_seat_of(g, user)) < 0)
            continue;
        g->seats[seat].dm_unreachable = !reachable;
        if (--g->probes_pending == 0)
            finish_start(d, g);
    }
}

static void phase_text(const struct game *g, char *out, size_t len)
{
    const struct il_game *s = &g->state;
    char session[8], drop[8], kase[8], cases[8], key[32];
    snprintf(session, sizeof session, "%u", s->session);
    snprintf(drop, sizeof drop, "%u", s->drops);
    snprintf(kase, sizeof kase, "%u", s->case_index + 1);
    snprintf(cases, sizeof cases, "%u", s->ncases);
    snprintf(key, sizeof key, "phase.%s", il_phase_id(s->phase));
    const char *vars[] = {"session", session, "drop", drop, "case", kase, "cases", cases, NULL};
    render_fill(out, len, g->language, key, vars);
}

static void cmd_status(struct dispatcher *d, struct platform *p, const struct inbound *in,
                       struct game *g)
{
    char players[1024], count[8], phase[256], left[64];
    size_t n = 0;
    players[0] = '\0';
    for (unsigned i = 0; i < g->nseats; i++) {
        if (g->started && !g->state.players[i].active)
            continue;
        int w =
            snprintf(players + n, sizeof players - n, "%s%s", n ? ", " : "", game_seat_name(g, i));
        if (w > 0 && (size_t)w < sizeof players - n)
            n += (size_t)w;
    }
    snprintf(count, sizeof count, "%u", g->nseats);
    if (!g->started) {
        const char *vars[] = {"id",    g->id, "variant", il_variant_id(g->config.variant),
                              "count", count, "players", players,
                              NULL};
        reply_key(p, in, false, g->language, "msg.status-lobby", vars);
        return;
    }
    phase_text(g, phase, sizeof phase);
    int64_t remaining = g->state.paused ? g->state.paused_remaining
                                        : il_game_deadline(&g->state) - dispatcher_now(d);
    render_duration(left, sizeof left, g->language, remaining > 0 ? remaining : 0);
    const char *vars[] = {
        "id",      g->id,
        "variant", il_variant_id(g->config.variant),
        "phase",   phase,
        "paused",  g->state.paused ? catalog_text(g->language, "msg.status-paused") : "",
        "left",    left,
        "players", players,
        NULL};
    reply_key(p, in, false, g->language, "msg.status-game", vars);
}

/* Parses "90", "90s", "3m", "2h" into milliseconds; -1 when invalid. */
static int64_t parse_duration(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v <= 0 || v > 7LL * 24 * 3600)
        return -1;
    int64_t unit = 1000;
    if (strcasecmp(end, "m") == 0 || strcasecmp(end, "min") == 0)
        unit = 60000;
    else if (strcasecmp(end, "h") == 0)
        unit = 3600000;
    else if (*end && strcasecmp(end, "s") != 0)
        return -1;
    return (int64_t)v * unit;
}

/* "resources guns,alcohol,..." or "random": the GM's choice of resources. */
static int parse_resource_set(const char *text, const char *lang, uint8_t *mask)
{
    struct il_bundle b;
    char word[64], choices[256];
    if (strcasecmp(text, "random") == 0) {
        *mask = 0;
        return 0;
    }
    if (command_parse_cards(text, 0xff, lang, &b, word, sizeof word, choices, sizeof choices) !=
        RESOLVE_OK)
        return -1;
    *mask = 0;
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        if (b.n[r] > 1)
            return -1;
        if (b.n[r])
            *mask |= (uint8_t)(1u << r);
    }
    return 0;
}

static void cmd_set(struct dispatcher *d, struct platform *p, const struct inbound *in,
                    struct game *g, const struct command *c)
{
    const char *vars[] = {"key", c->arg, "value", c->arg2, NULL};
    int timer = il_timer_from_id(c->arg);
    if (strcmp(c->arg, "variant") == 0 || strcmp(c->arg, "resources") == 0) {
        if (g->started) {
            reply_key(p, in, false, g->language, "msg.set-lobby-only", vars);
            return;
        }
        struct game before = *g;
        if (strcmp(c->arg, "variant") == 0) {
            int v = il_variant_from_id(c->arg2);
            if (v < 0) {
                reply_key(p, in, false, g->language, "msg.set-bad-value", vars);
                return;
            }
            /* The session length follows the variant unless set afterwards. */
            default_config(d->config, (enum il_variant)v, &g->config);
            g->config.resources = before.config.resources;
        } else if (parse_resource_set(c->arg2, g->language, &g->config.resources) < 0) {
            reply_key(p, in, false, g->language, "msg.set-bad-value", vars);
            return;
        }
        if (save_game(d, g, false) < 0) {
            *g = before;
            reply_key(p, in, false, g->language, "msg.store-failed", NULL);
            return;
        }
        reply_key(p, in, false, g->language, "msg.set-done", vars);
        lobby_update(d, g);
        return;
    }
    if (timer < 0) {
        reply_key(p, in, false, g->language, "msg.set-bad-key", vars);
        return;
    }
    int64_t ms = parse_duration(c->arg2);
    if (ms < IL_TIMER_MIN_MS || ms > IL_TIMER_MAX_MS) {
        reply_key(p, in, false, g->language, "msg.set-bad-value", vars);
        return;
    }
    if (g->started) {
        struct il_action a = {.type = IL_ACT_SET_TIMER, .player = IL_GM, .timer = timer, .ms = ms};
        play(d, g, &a, p, in);
        return;
    }
    int64_t old = g->config.timer_ms[timer];
    g->config.timer_ms[timer] = ms;
    if (save_game(d, g, false) < 0) {
        g->config.timer_ms[timer] = old;
        reply_key(p, in, false, g->language, "msg.store-failed", NULL);
        return;
    }
    reply_key(p, in, false, g->language, "msg.set-done", vars);
}

static bool resolve_player(struct platform *p, const struct inbound *in, const struct game *g,
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
    reply_key(p, in, private_answer, g->language,
              e == RESOLVE_AMBIGUOUS ? "resolve.ambiguous-player" : "resolve.unknown-player", vars);
    return false;
}

static void resolve_error_reply(struct platform *p, const struct inbound *in, const struct game *g,
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
    reply_key(p, in, private_answer, g->language, keys[e], vars);
}

static void cmd_grab(struct dispatcher *d, struct platform *p, const struct inbound *in,
                     struct game *g, const char *card)
{
    int seat = game_seat_of(g, in->user);
    char choices[512];
    int res;
    if (seat < 0 || !g->state.players[seat].active) {
        reply_key(p, in, false, g->language, "msg.not-player", NULL);
        return;
    }
    enum resolve_error e =
        command_parse_resource(card, g->state.in_play, g->language, &res, choices, sizeof choices);
    if (e != RESOLVE_OK) {
        resolve_error_reply(p, in, g, e, card, choices, false);
        return;
    }
    struct il_action a = {.type = IL_ACT_GRAB, .player = (int8_t)seat, .resource = (uint8_t)res};
    play(d, g, &a, p, in);
}

static void table_command(struct dispatcher *d, struct platform *p, const struct inbound *in,
                          const struct command *c)
{
    struct game *g = find_game_at(d, p, in->channel);
    const char *lang = g ? g->language : d->config->language;

    switch (c->type) {
    case CMD_NEW:
        cmd_new(d, p, in, c, g);
        return;
    case CMD_HELP:
        reply_key(p, in, false, lang, "msg.help-table", NULL);
        return;
    case CMD_RULES:
        reply_key(p, in, false, lang, "msg.rules", NULL);
        return;
    default:
        break;
    }
    if (!g) {
        reply_key(p, in, false, lang, "msg.no-game", NULL);
        return;
    }
    int seat = game_seat_of(g, in->user);
    bool moderator_only = c->type == CMD_PAUSE || c->type == CMD_RESUME || c->type == CMD_EXTEND ||
                          c->type == CMD_NEXT || c->type == CMD_KICK || c->type == CMD_END ||
                          c->type == CMD_SET || c->type == CMD_START;
    if (moderator_only && !may_moderate(g, in)) {
        reply_key(p, in, false, lang, "msg.not-moderator", NULL);
        return;
    }
    bool needs_game = c->type == CMD_PAUSE || c->type == CMD_RESUME || c->type == CMD_EXTEND ||
                      c->type == CMD_NEXT || c->type == CMD_GRAB;
    if (needs_game && !g->started) {
        reply_key(p, in, false, lang, "msg.not-started", NULL);
        return;
    }
    struct il_action a = {.player = IL_GM};
    switch (c->type) {
    case CMD_JOIN:
        cmd_join(d, p, in, g);
        return;
    case CMD_LEAVE:
        if (seat < 0 || (g->started && !g->state.players[seat].active))
            reply_key(p, in, false, lang, "msg.not-joined", NULL);
        else
            kick_seat(d, p, in, g, (unsigned)seat);
        return;
    case CMD_START:
        cmd_start(p, in, g);
        return;
    case CMD_STATUS:
        cmd_status(d, p, in, g);
        return;
    case CMD_GRAB:
        cmd_grab(d, p, in, g, c->arg);
        return;
    case CMD_KICK:
        if (resolve_player(p, in, g, c->arg, false, &seat))
            kick_seat(d, p, in, g, (unsigned)seat);
        return;
    case CMD_SET:
        cmd_set(d, p, in, g, c);
        return;
    case CMD_END:
        if (!g->started) {
            struct game copy = *g;
            const char *vars[] = {"id", copy.id, "player", in->user_name ? in->user_name : in->user,
                                  NULL};
            if (save_game(d, g, true) < 0) {
                reply_key(p, in, false, lang, "msg.store-failed", NULL);
                return;
            }
            drop_game(d, g);
            announce(&copy, "msg.ended", vars);
            return;
        }
        a.type = IL_ACT_END;
        break;
    case CMD_PAUSE:
        a.type = IL_ACT_PAUSE;
        break;
    case CMD_RESUME:
        a.type = IL_ACT_RESUME;
        break;
    case CMD_NEXT:
        a.type = IL_ACT_NEXT;
        break;
    case CMD_EXTEND:
        a.type = IL_ACT_EXTEND;
        a.ms = c->number * 60000;
        break;
    default:
        return;
    }
    play(d, g, &a, p, in);
}

/* --- private commands ---------------------------------------------------- */

/* Finds the running game a private command is for; answers the user if none. */
static struct game *private_game(struct dispatcher *d, struct platform *p, const struct inbound *in,
                                 const struct command *c)
{
    const char *lang = d->config->language;
    struct game *g = NULL;
    if (in->channel) {
        g = find_game_at(d, p, in->channel);
    } else if (c->game[0]) {
        g = find_game_id(d, p, c->game);
        if (!g || game_seat_of(g, in->user) < 0) {
            const char *vars[] = {"id", c->game, NULL};
            reply_key(p, in, true, lang, "msg.no-such-game", vars);
            return NULL;
        }
    } else {
        char list[1024];
        size_t n = 0;
        unsigned count = 0;
        const char *example = NULL;
        list[0] = '\0';
        for (unsigned i = 0; i < d->ngames; i++) {
            struct game *x = d->games[i];
            if (x->platform != p || !x->started || game_seat_of(x, in->user) < 0)
                continue;
            g = x;
            example = x->id;
            count++;
            int w =
                snprintf(list + n, sizeof list - n, "%s%s (%s)", n ? ", " : "", x->id, x->table);
            if (w > 0 && (size_t)w < sizeof list - n)
                n += (size_t)w;
        }
        if (count > 1) {
            const char *vars[] = {"games", list, "example", example, NULL};
            reply_key(p, in, true, lang, "msg.which-game", vars);
            return NULL;
        }
    }
    if (!g || game_seat_of(g, in->user) < 0) {
        reply_key(p, in, true, lang, "msg.not-in-game", NULL);
        return NULL;
    }
    if (!g->started) {
        reply_key(p, in, true, g->language, "msg.not-started", NULL);
        return NULL;
    }
    return g;
}

static void cmd_offers(struct platform *p, const struct inbound *in, const struct game *g, int seat)
{
    char list[TEXT_MAX], line[1024], give[256], ask[256], id[16];
    size_t n = 0;
    list[0] = '\0';
    for (unsigned i = 0; i < g->state.noffers; i++) {
        const struct il_offer *o = &g->state.offers[i];
        if (o->from != seat && o->to != seat)
            continue;
        snprintf(id, sizeof id, "%u", o->id);
        render_cards(give, sizeof give, g->language, &o->give);
        render_cards(ask, sizeof ask, g->language, &o->ask);
        const char *vars[] = {"id",   id,
                              "from", game_seat_name(g, o->from),
                              "to",   game_seat_name(g, o->to),
                              "give", give,
                              "ask",  ask,
                              NULL};
        render_fill(line, sizeof line, g->language, "msg.offer-line", vars);
        int w = snprintf(list + n, sizeof list - n, "%s%s", n ? "; " : "", line);
        if (w > 0 && (size_t)w < sizeof list - n)
            n += (size_t)w;
    }
    if (!n) {
        reply_key(p, in, true, g->language, "msg.no-offers", NULL);
        return;
    }
    const char *vars[] = {"list", list, NULL};
    reply_key(p, in, true, g->language, "msg.offers", vars);
}

static void cmd_offer(struct dispatcher *d, struct platform *p, const struct inbound *in,
                      struct game *g, int seat, const struct command *c)
{
    struct il_action a = {.type = IL_ACT_OFFER, .player = (int8_t)seat};
    char word[COMMAND_ARG_MAX], choices[512];
    int target;
    if (!resolve_player(p, in, g, c->arg, true, &target))
        return;
    a.target = (int8_t)target;
    enum resolve_error e = command_parse_cards(c->arg2, g->state.in_play, g->language, &a.give,
                                               word, sizeof word, choices, sizeof choices);
    if (e == RESOLVE_OK)
        e = command_parse_cards(c->arg3, g->state.in_play, g->language, &a.ask, word, sizeof word,
                                choices, sizeof choices);
    if (e != RESOLVE_OK) {
        resolve_error_reply(p, in, g, e, word, choices, true);
        return;
    }
    play(d, g, &a, p, in);
}

static void private_command(struct dispatcher *d, struct platform *p, const struct inbound *in,
                            const struct command *c)
{
    if (c->type == CMD_DM_HELP) {
        reply_key(p, in, true, d->config->language, "msg.help-dm", NULL);
        return;
    }
    struct game *g = private_game(d, p, in, c);
    if (!g)
        return;
    int seat = game_seat_of(g, in->user);
    if (!g->state.players[seat].active) {
        reply_key(p, in, true, g->language, "msg.not-player", NULL);
        return;
    }
    struct il_action a = {.player = (int8_t)seat, .offer_id = (uint32_t)c->number};
    switch (c->type) {
    case CMD_HAND: {
        struct emit_ctx ctx = {d, g};
        render_hand(g, (unsigned)seat, true, emit_to_platform, &ctx);
        return;
    }
    case CMD_OFFERS:
        cmd_offers(p, in, g, seat);
        return;
    case CMD_OFFER:
        cmd_offer(d, p, in, g, seat, c);
        return;
    case CMD_VOTE: {
        int target;
        if (!resolve_player(p, in, g, c->arg, true, &target))
            return;
        a.type = IL_ACT_VOTE;
        a.target = (int8_t)target;
        break;
    }
    case CMD_ACCEPT:
        a.type = IL_ACT_ACCEPT;
        break;
    case CMD_DECLINE:
        a.type = IL_ACT_DECLINE;
        break;
    case CMD_CANCEL:
        a.type = IL_ACT_CANCEL;
        break;
    case CMD_ABSTAIN:
        a.type = IL_ACT_ABSTAIN;
        break;
    default:
        return;
    }
    play(d, g, &a, p, in);
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
    struct game *g = find_game_id(d, p, id);
    if (!g || !g->started || g->state.drops != drop || g->state.phase != IL_PHASE_DROP_GRAB)
        return;
    int seat = game_seat_of(g, in->user);
    if (seat < 0)
        return;
    /* Late, early and second grabs by reaction are ignored without a word:
     * the drop message itself shows what is left. */
    struct il_action a = {.type = IL_ACT_GRAB, .player = (int8_t)seat, .resource = (uint8_t)res};
    play(d, g, &a, p, NULL);
}

static int on_deliver(void *ctx, struct platform *p, const struct inbound *in)
{
    struct dispatcher *d = ctx;
    const char *lang = d->config->language;
    struct command c;

    if (d->stopped || !in->user || !in->user[0])
        return -1;
    metrics_count(d->metrics, METRIC_EVENTS_IN, p->ops->name, 1);
    if (in->type == INBOUND_REACTION) {
        on_reaction(d, p, in);
        return 0;
    }
    if (!in->text)
        return -1;
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
        reply_key(p, in, private_cmd || !in->channel, lang, key, vars);
        return -1;
    }
    if (private_cmd) {
        private_command(d, p, in, &c);
    } else if (!in->channel) {
        reply_key(p, in, true, lang, "msg.help-dm", NULL);
    } else {
        table_command(d, p, in, &c);
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

/* --- timers -------------------------------------------------------------- */

static bool wants_reminder(const struct game *g, int64_t lead, uint8_t bit)
{
    return !(g->reminders_sent & bit) && g->phase_length > lead + lead / 2;
}

/* When this game next needs attention (a reminder or its deadline), or 0. */
static int64_t game_due(const struct game *g)
{
    if (!g->started)
        return 0;
    int64_t dl = il_game_deadline(&g->state);
    if (!dl)
        return 0;
    if (wants_reminder(g, REMIND_LONG_MS, 1))
        return dl - REMIND_LONG_MS;
    if (wants_reminder(g, REMIND_SHORT_MS, 2))
        return dl - REMIND_SHORT_MS;
    return dl;
}

static int64_t next_due(const struct dispatcher *d)
{
    int64_t best = 0;
    for (unsigned i = 0; i < d->ngames; i++) {
        int64_t t = game_due(d->games[i]);
        if (t && (!best || t < best))
            best = t;
    }
    return best;
}

/* Handles one game's reminders and deadline at `now`. Returns true when the
 * game was finished (and freed). */
static bool fire_game(struct dispatcher *d, struct game *g, int64_t now)
{
    int64_t dl = il_game_deadline(&g->state);
    static const struct {
        int64_t lead;
        uint8_t bit;
        const char *key;
    } reminders[] = {{REMIND_LONG_MS, 1, "msg.reminder-60"},
                     {REMIND_SHORT_MS, 2, "msg.reminder-10"}};
    for (unsigned i = 0; i < 2 && dl; i++) {
        if (!wants_reminder(g, reminders[i].lead, reminders[i].bit) || now < dl - reminders[i].lead)
            continue;
        g->reminders_sent |= reminders[i].bit;
        /* A reminder caught up late (after a restart) would say the wrong time. */
        if (dl - now > reminders[i].lead / 2) {
            if (save_game(d, g, false) == 0)
                announce(g, reminders[i].key, NULL);
        }
    }
    if (!dl || now < dl)
        return false;
    unsigned before = d->ngames;
    struct il_action tick = {.type = IL_ACT_TICK, .player = IL_GM};
    play(d, g, &tick, NULL, NULL);
    return d->ngames < before;
}

static void fire_due(struct dispatcher *d, int64_t now)
{
    for (unsigned i = 0; i < d->ngames;) {
        struct game *g = d->games[i];
        int64_t due = game_due(g);
        if (due && due <= now && fire_game(d, g, now))
            continue; /* the last game moved into slot i */
        i++;
    }
}

static void on_timer(uv_timer_t *t)
{
    struct dispatcher *d = t->data;
    fire_due(d, dispatcher_now(d));
    rearm(d);
}

static void rearm(struct dispatcher *d)
{
    if (d->virtual_time || !d->timer_ready || d->stopped)
        return;
    int64_t due = next_due(d);
    if (!due) {
        uv_timer_stop(&d->timer);
        return;
    }
    int64_t wait = due - dispatcher_now(d);
    uv_timer_start(&d->timer, on_timer, wait > 0 ? (uint64_t)wait : 0, 0);
}

void dispatcher_advance(struct dispatcher *d, int64_t ms)
{
    int64_t target = d->vnow + (ms > 0 ? ms : 0);
    for (;;) {
        int64_t due = next_due(d);
        if (!due || due > target)
            break;
        if (due > d->vnow)
            d->vnow = due;
        fire_due(d, d->vnow);
    }
    d->vnow = target;
    char clock[32];
    snprintf(clock, sizeof clock, "%lld", (long long)d->vnow);
    if (store_meta_set(d->store, "clock", clock) < 0)
        log_error("store", NULL, "could not save the clock");
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
    d->host.dm_result = on_dm_result;
    d->host.state_get = on_state_get;
    d->host.state_set = on_state_set;
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
    if (d->nplatforms == MAX_PLATFORMS)
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
        strcmp(g->table, table) != 0 || add_game(d, g) < 0) {
        log_error("dispatch", id, "cannot restore the game (%s); it stays in the store", why);
        free(g);
        json_object_put(j);
        r->failed++;
        return 0;
    }
    json_object_put(j);
    g->platform = p;
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
        fire_due(d, dispatcher_now(d));
        rearm(d);
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
