/*
 * table_commands.c - lobbies, the start, moderation and grabs: "!illegal ..."
 *
 * Anyone may open a lobby and join it; the host (its creator) and platform
 * moderators steer the game. Nothing here reveals a secret: answers to table
 * commands may go to the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "config.h"
#include "core/catalog.h"
#include "dispatch.h"
#include "log.h"
#include "render.h"

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
    render_lobby(g, dispatch_emit, &ctx);
}

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
        dispatch_reply_key(p, in, false, lang, "msg.game-exists", vars);
        return;
    }
    int variant = c->arg[0] ? il_variant_from_id(c->arg) : il_variant_from_id(d->config->variant);
    if (variant < 0) {
        const char *vars[] = {"usage", catalog_text(lang, "usage.new"), NULL};
        dispatch_reply_key(p, in, false, lang, "parse.usage", vars);
        return;
    }
    if (strlen(in->channel) >= GAME_TEXT_MAX || strlen(in->user) >= GAME_TEXT_MAX ||
        (in->user_name && strlen(in->user_name) >= GAME_TEXT_MAX)) {
        dispatch_reply_key(p, in, false, lang, "parse.too-long", NULL);
        return;
    }
    unsigned hosted = 0;
    for (unsigned i = 0; i < d->ngames; i++)
        if (d->games[i]->platform == p && !d->games[i]->started &&
            strcmp(d->games[i]->host, in->user) == 0)
            hosted++;
    if (hosted >= (unsigned)d->config->lobbies_per_host) {
        char max[16];
        snprintf(max, sizeof max, "%d", d->config->lobbies_per_host);
        const char *vars[] = {"max", max, NULL};
        dispatch_reply_key(p, in, false, lang, "msg.lobby-limit", vars);
        return;
    }
    struct game *g = calloc(1, sizeof *g);
    if (!g || dispatch_game_add(d, g) < 0) {
        free(g);
        dispatch_reply_key(p, in, false, lang, "msg.store-failed", NULL);
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
    if (dispatch_save(d, g, false) < 0) {
        d->next_game--;
        dispatch_game_drop(d, g);
        dispatch_reply_key(p, in, false, lang, "msg.store-failed", NULL);
        return;
    }
    log_info("dispatch", g->id, "new %s game at %s/%s", il_variant_id(g->config.variant),
             p->ops->name, g->table);
    lobby_update(d, g);
    char idle[64];
    render_duration(idle, sizeof idle, g->language, d->config->lobby_idle_seconds * 1000);
    const char *vars[] = {"id", g->id, "idle", idle, NULL};
    dispatch_announce(g, "msg.lobby-expiry", vars);
    timers_rearm(d);
}

static void cmd_join(struct dispatcher *d, struct platform *p, const struct inbound *in,
                     struct game *g)
{
    if (g->started) {
        dispatch_reply_key(p, in, false, g->language, "msg.already-started", NULL);
        return;
    }
    if (game_seat_of(g, in->user) >= 0) {
        dispatch_reply_key(p, in, false, g->language, "msg.already-joined", NULL);
        return;
    }
    if (g->nseats == IL_MAX_PLAYERS) {
        dispatch_reply_key(p, in, false, g->language, "msg.table-full", NULL);
        return;
    }
    if (strlen(in->user) >= GAME_TEXT_MAX) {
        dispatch_reply_key(p, in, false, g->language, "parse.too-long", NULL);
        return;
    }
    const char *ids[IL_MAX_PLAYERS];
    for (unsigned i = 0; i < g->nseats; i++)
        ids[i] = g->seats[i].user;
    if (in->user_name && command_name_claims_id(in->user_name, ids, g->nseats) >= 0) {
        const char *vars[] = {"name", in->user_name, NULL};
        dispatch_reply_key(p, in, false, g->language, "msg.name-is-id", vars);
        return;
    }
    struct seat *s = &g->seats[g->nseats++];
    memset(s, 0, sizeof *s);
    copy_text(s->user, sizeof s->user, in->user);
    copy_text(s->name, sizeof s->name, in->user_name ? in->user_name : in->user);
    g->probes_pending = 0;
    if (dispatch_save(d, g, false) < 0) {
        g->nseats--;
        dispatch_reply_key(p, in, false, g->language, "msg.store-failed", NULL);
        return;
    }
    lobby_update(d, g); /* the lobby message itself shows who joined */
}

/* Removes a lobby seat. Returns 0, or -1 when it could not be saved. */
static int lobby_remove(struct dispatcher *d, struct game *g, unsigned seat)
{
    struct game before = *g;
    memmove(&g->seats[seat], &g->seats[seat + 1], (g->nseats - seat - 1) * sizeof g->seats[0]);
    g->nseats--;
    g->probes_pending = 0;
    if (dispatch_save(d, g, false) < 0) {
        *g = before;
        return -1;
    }
    lobby_update(d, g);
    return 0;
}

static void kick_seat(struct dispatcher *d, struct platform *p, const struct inbound *in,
                      struct game *g, unsigned seat)
{
    if (!g->started) {
        if (lobby_remove(d, g, seat) < 0)
            dispatch_reply_key(p, in, false, g->language, "msg.store-failed", NULL);
        return;
    }
    struct il_action a = {.type = IL_ACT_KICK, .player = IL_GM, .target = (int8_t)seat};
    dispatch_play(d, g, &a, p, in);
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
        dispatch_announce(g, "msg.dms-closed", vars);
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
        dispatch_announce(g, key, NULL);
    } else {
        g->started = true;
        if (dispatch_commit(d, g, before, ev) < 0)
            dispatch_announce(g, "msg.store-failed", NULL);
        else
            log_info("dispatch", g->id, "started with %u players", g->nseats);
    }
    free(before);
    free(ev);
}

static void cmd_start(struct platform *p, const struct inbound *in, struct game *g)
{
    if (g->started) {
        dispatch_reply_key(p, in, false, g->language, "msg.already-started", NULL);
        return;
    }
    if (g->nseats < IL_MIN_PLAYERS) {
        char count[8];
        snprintf(count, sizeof count, "%u", g->nseats);
        const char *vars[] = {"count", count, NULL};
        dispatch_reply_key(p, in, false, g->language, "msg.too-few", vars);
        return;
    }
    if (g->probes_pending)
        return;
    /* The game only starts once every player is known to get DMs: the
     * answers may come later, through dm_result(). */
    dispatch_announce(g, "msg.checking-dms", NULL);
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

void commands_dm_result(void *ctx, struct platform *p, const char *user, bool reachable)
{
    struct dispatcher *d = ctx;
    for (unsigned i = 0; i < d->ngames; i++) {
        struct game *g = d->games[i];
        int seat;
        if (g->platform != p || (seat = game_seat_of(g, user)) < 0)
            continue;
        if (g->started) {
            /* Some platforms only learn it from a failed DM: tell the table once,
             * without a word of what the DM held. */
            bool was = g->seats[seat].dm_unreachable;
            g->seats[seat].dm_unreachable = !reachable;
            if (!reachable && !was && g->state.players[seat].active) {
                const char *vars[] = {"player", game_seat_name(g, (unsigned)seat), NULL};
                dispatch_announce(g, "msg.dm-lost", vars);
            }
            continue;
        }
        if (!g->probes_pending)
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
        dispatch_reply_key(p, in, false, g->language, "msg.status-lobby", vars);
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
    dispatch_reply_key(p, in, false, g->language, "msg.status-game", vars);
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
    if (strcmp(c->arg, "ballots") == 0) {
        bool poll = strcmp(c->arg2, "poll") == 0;
        if (!poll && strcmp(c->arg2, "private") != 0) {
            dispatch_reply_key(p, in, false, g->language, "msg.set-bad-value", vars);
            return;
        }
        bool old = g->poll_ballots;
        g->poll_ballots = poll;
        if (dispatch_save(d, g, false) < 0) {
            g->poll_ballots = old;
            dispatch_reply_key(p, in, false, g->language, "msg.store-failed", NULL);
            return;
        }
        dispatch_reply_key(p, in, false, g->language, poll ? "msg.ballots-poll" : "msg.set-done",
                           vars);
        return;
    }
    if (strcmp(c->arg, "variant") == 0 || strcmp(c->arg, "resources") == 0) {
        if (g->started) {
            dispatch_reply_key(p, in, false, g->language, "msg.set-lobby-only", vars);
            return;
        }
        struct game before = *g;
        if (strcmp(c->arg, "variant") == 0) {
            int v = il_variant_from_id(c->arg2);
            if (v < 0) {
                dispatch_reply_key(p, in, false, g->language, "msg.set-bad-value", vars);
                return;
            }
            /* The session length follows the variant unless set afterwards. */
            default_config(d->config, (enum il_variant)v, &g->config);
            g->config.resources = before.config.resources;
        } else if (parse_resource_set(c->arg2, g->language, &g->config.resources) < 0) {
            dispatch_reply_key(p, in, false, g->language, "msg.set-bad-value", vars);
            return;
        }
        if (dispatch_save(d, g, false) < 0) {
            *g = before;
            dispatch_reply_key(p, in, false, g->language, "msg.store-failed", NULL);
            return;
        }
        dispatch_reply_key(p, in, false, g->language, "msg.set-done", vars);
        lobby_update(d, g);
        return;
    }
    if (timer < 0) {
        dispatch_reply_key(p, in, false, g->language, "msg.set-bad-key", vars);
        return;
    }
    int64_t ms = parse_duration(c->arg2);
    if (ms < IL_TIMER_MIN_MS || ms > IL_TIMER_MAX_MS) {
        dispatch_reply_key(p, in, false, g->language, "msg.set-bad-value", vars);
        return;
    }
    if (g->started) {
        struct il_action a = {.type = IL_ACT_SET_TIMER, .player = IL_GM, .timer = timer, .ms = ms};
        dispatch_play(d, g, &a, p, in);
        return;
    }
    int64_t old = g->config.timer_ms[timer];
    g->config.timer_ms[timer] = ms;
    if (dispatch_save(d, g, false) < 0) {
        g->config.timer_ms[timer] = old;
        dispatch_reply_key(p, in, false, g->language, "msg.store-failed", NULL);
        return;
    }
    char duration[64];
    render_duration(duration, sizeof duration, g->language, ms);
    const char *done[] = {"key", c->arg, "value", duration, NULL};
    dispatch_reply_key(p, in, false, g->language, "msg.set-done", done);
}

static void cmd_grab(struct dispatcher *d, struct platform *p, const struct inbound *in,
                     struct game *g, const char *card)
{
    int seat = game_seat_of(g, in->user);
    char choices[512];
    int res;
    if (seat < 0 || !g->state.players[seat].active) {
        dispatch_reply_key(p, in, false, g->language, "msg.not-player", NULL);
        return;
    }
    enum resolve_error e =
        command_parse_resource(card, g->state.in_play, g->language, &res, choices, sizeof choices);
    if (e != RESOLVE_OK) {
        dispatch_resolve_error(p, in, g, e, card, choices, false);
        return;
    }
    struct il_action a = {.type = IL_ACT_GRAB, .player = (int8_t)seat, .resource = (uint8_t)res};
    dispatch_play(d, g, &a, p, in);
}

void commands_table(struct dispatcher *d, struct platform *p, const struct inbound *in,
                    const struct command *c)
{
    struct game *g = dispatch_game_at(d, p, in->channel);
    const char *lang = g ? g->language : d->config->language;

    switch (c->type) {
    case CMD_NEW:
        cmd_new(d, p, in, c, g);
        return;
    case CMD_HELP:
        dispatch_reply_key(p, in, false, lang, "msg.help-table", NULL);
        return;
    case CMD_RULES:
        dispatch_reply_key(p, in, false, lang, "msg.rules", NULL);
        return;
    default:
        break;
    }
    if (!g) {
        dispatch_reply_key(p, in, false, lang, "msg.no-game", NULL);
        return;
    }
    int seat = game_seat_of(g, in->user);
    bool moderator_only = c->type == CMD_PAUSE || c->type == CMD_RESUME || c->type == CMD_EXTEND ||
                          c->type == CMD_NEXT || c->type == CMD_KICK || c->type == CMD_END ||
                          c->type == CMD_SET || c->type == CMD_START;
    if (moderator_only && !may_moderate(g, in)) {
        dispatch_reply_key(p, in, false, lang, "msg.not-moderator", NULL);
        return;
    }
    bool needs_game = c->type == CMD_PAUSE || c->type == CMD_RESUME || c->type == CMD_EXTEND ||
                      c->type == CMD_NEXT || c->type == CMD_GRAB;
    if (needs_game && !g->started) {
        dispatch_reply_key(p, in, false, lang, "msg.not-started", NULL);
        return;
    }
    struct il_action a = {.player = IL_GM};
    switch (c->type) {
    case CMD_JOIN:
        cmd_join(d, p, in, g);
        return;
    case CMD_LEAVE:
        if (seat < 0 || (g->started && !g->state.players[seat].active))
            dispatch_reply_key(p, in, false, lang, "msg.not-joined", NULL);
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
        if (dispatch_resolve_player(p, in, g, c->arg, false, &seat))
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
            if (dispatch_save(d, g, true) < 0) {
                dispatch_reply_key(p, in, false, lang, "msg.store-failed", NULL);
                return;
            }
            dispatch_game_drop(d, g);
            dispatch_announce(&copy, "msg.ended", vars);
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
    dispatch_play(d, g, &a, p, in);
}
