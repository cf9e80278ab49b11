/*
 * pipeline.c - the one path of every change to a game.
 *
 *     snapshot -> apply -> commit -> render -> send -> reap
 *
 * Invariants:
 *   P1. Nothing is sent about a change before it is committed to the store.
 *   P2. A change that is refused, or that cannot be committed, leaves the
 *       game as it was before it (the snapshot is put back).
 *   P3. A game that is over or closed is committed as finished, then dropped
 *       from memory; nothing else frees a game that has been stored.
 *   P4. No other code saves or restores a game.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/catalog.h"
#include "dispatch.h"
#include "log.h"
#include "metrics.h"
#include "render.h"
#include "store.h"

/* Everything one change produced, for rendering. */
struct outcome {
    struct lobby_events lobby;
    struct il_events rules;
    const char *notice; /* a table notice of the dispatcher's own (a reminder) */
};

static bool is_finished(const struct game *g)
{
    return g->closed || (g->started && g->state.phase == IL_PHASE_OVER);
}

/* Writes g (and the game counter and virtual clock) in one transaction. */
static int commit(struct dispatcher *d, struct game *g)
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
    if (text && store_begin(d->store) == 0) {
        if (store_game_put(d->store, g->id, g->platform->ops->name, g->table, is_finished(g),
                           text) == 0 &&
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
static void track_deadline(struct game *g, int64_t now)
{
    int64_t dl = g->started ? il_game_deadline(&g->state) : 0;
    if (dl != g->tracked_deadline) {
        g->tracked_deadline = dl;
        g->phase_length = dl ? dl - now : 0;
        g->reminders_sent = 0;
    }
}

/* Answers a refused lobby action with its reason. */
static void refuse_lobby(struct command_ctx *x, const struct game *g, enum lobby_error e,
                         const struct lobby_action *a, enum il_error rules_error)
{
    char count[8], key[64];
    snprintf(count, sizeof count, "%u", g->nseats);
    const char *vars[] = {"count", count,    "name", a->name ? a->name : "", "key", a->key,
                          "value", a->value, NULL};
    if (e == LOBBY_ERR_RULES) {
        snprintf(key, sizeof key, "error.%s", il_error_id(rules_error));
        cmd_reply(x, key, NULL);
        return;
    }
    cmd_reply(x, lobby_error_key(e), vars);
}

/* Applies c to g. Returns 1 when g changed, 0 when there was nothing to do,
 * -1 when it was refused (and answered). */
static int apply(struct dispatcher *d, struct game *g, const struct change *c,
                 struct command_ctx *cause, int64_t now, struct outcome *out)
{
    switch (c->type) {
    case CHANGE_OPEN:
        g->lobby_activity = now;
        return 1;
    case CHANGE_LOBBY: {
        struct il_action rules;
        enum il_error rules_error = IL_OK;
        enum lobby_error e =
            lobby_apply(g, &c->lobby, d->config, now, &out->lobby, &rules, &rules_error);
        if (e != LOBBY_OK) {
            if (cause)
                refuse_lobby(cause, g, e, &c->lobby, rules_error);
            return -1;
        }
        if (out->lobby.play_rules) {
            struct change play = {.type = CHANGE_RULES, .rules = rules};
            return apply(d, g, &play, cause, now, out);
        }
        return out->lobby.n ? 1 : 0;
    }
    case CHANGE_RULES: {
        enum il_error e = il_game_apply(&g->state, &c->rules, now, &g->rng, &out->rules);
        if (e != IL_OK) {
            if (cause) {
                char key[64];
                snprintf(key, sizeof key, "error.%s", il_error_id(e));
                bool was = cause->private_answer;
                cause->private_answer = true;
                cmd_reply(cause, key, NULL);
                cause->private_answer = was;
            }
            return -1;
        }
        return out->rules.n ? 1 : 0;
    }
    case CHANGE_REMINDER:
        g->reminders_sent |= c->reminder;
        out->notice = c->reminder_key;
        return 1;
    }
    return 0;
}

/* Sends what a committed change produced. */
static void render(struct dispatcher *d, struct game *g, const struct change *c,
                   struct command_ctx *cause, const struct outcome *out)
{
    struct emit_ctx ctx = {d, g};
    const struct lobby_events *lev = &out->lobby;
    if (c->type == CHANGE_OPEN) {
        render_lobby(g, dispatch_emit, &ctx);
        char idle[64];
        render_duration(idle, sizeof idle, g->language, d->config->lobby_idle_seconds * 1000);
        const char *vars[] = {"id", g->id, "idle", idle, NULL};
        dispatch_announce(g, "msg.lobby-expiry", vars);
        return;
    }
    for (unsigned i = 0; i < lev->n; i++) {
        if (lev->v[i] == LOBBY_EV_SET && cause) {
            const char *vars[] = {"key", lev->key, "value", lev->shown_value, NULL};
            cmd_reply(cause, lev->set_reply, vars);
        } else if (lev->v[i] == LOBBY_EV_CLOSED) {
            char idle[64];
            render_duration(idle, sizeof idle, g->language, d->config->lobby_idle_seconds * 1000);
            const char *vars[] = {"id",   g->id, "player", c->lobby.by ? c->lobby.by : "",
                                  "idle", idle,  NULL};
            dispatch_announce(g, c->lobby.why, vars);
        }
    }
    if (lev->lobby_changed && !lev->rules.n)
        render_lobby(g, dispatch_emit, &ctx);
    if (lev->rules.n)
        render_events(g, &lev->rules, dispatch_emit, &ctx);
    if (out->rules.n)
        render_events(g, &out->rules, dispatch_emit, &ctx);
    if (out->notice)
        dispatch_announce(g, out->notice, NULL);
}

int pipeline_run(struct dispatcher *d, struct game *g, const struct change *c,
                 struct command_ctx *cause)
{
    int rc = -1;
    struct game *before = malloc(sizeof *before);
    struct outcome *out = malloc(sizeof *out);
    if (!before || !out) {
        log_error("dispatch", g->id, "out of memory");
        if (cause)
            cmd_reply(cause, "msg.store-failed", NULL);
        goto done;
    }
    /* snapshot */
    *before = *g;
    memset(out, 0, sizeof *out);
    int64_t now = dispatcher_now(d);
    /* apply */
    int changed = apply(d, g, c, cause, now, out);
    if (changed <= 0) {
        *g = *before;
        rc = changed;
        goto done;
    }
    track_deadline(g, now);
    render_note(g, out->lobby.rules.n ? &out->lobby.rules : &out->rules);
    /* commit */
    if (commit(d, g) < 0) {
        *g = *before;
        if (cause)
            cmd_reply(cause, "msg.store-failed", NULL);
        goto done;
    }
    /* render and send */
    render(d, g, c, cause, out);
    rc = 0;
    /* reap */
    if (is_finished(g)) {
        log_info("dispatch", g->id, g->closed ? "lobby closed" : "game over");
        dispatch_game_drop(d, g);
    }
    timers_rearm(d);
done:
    free(before);
    free(out);
    return rc;
}

int pipeline_play(struct dispatcher *d, struct game *g, const struct il_action *a,
                  struct command_ctx *cause)
{
    struct change c = {.type = CHANGE_RULES, .rules = *a};
    return pipeline_run(d, g, &c, cause);
}
