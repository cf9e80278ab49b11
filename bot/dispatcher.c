/*
 * dispatcher.c - where every input enters, and the daemon's life cycle.
 *
 * An input from an adapter is cleaned here and becomes a command
 * (commands.c) or a reaction to one of a game's messages; either way any
 * change then takes the one path of pipeline.c. Start-up restores the games
 * from the store (restore.c), and the platforms' small state lives in it too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "core/modules.h"
#include "core/catalog.h"
#include "dispatch.h"
#include "log.h"
#include "metrics.h"
#include "core/text.h"
#include "render.h"
#include "seats.h"
#include "store.h"

/* --- inputs -------------------------------------------------------------- */

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
    commands_back(d, g, seat, NULL);
    void *action = calloc(1, g->rules->action_size);
    if (!action)
        return;
    /* A reaction the rules read as no move (on a message whose moment has
     * passed or not come, an emoji that means nothing) passes without a
     * word: the message shows it. A move they refuse ("you already took a
     * card in this drop") is told to its player alone, as the typed command
     * would be, so that no reaction goes unanswered for a reason only the
     * rules know (README.md, "Choices the bot makes"). */
    struct bot_cmd cause = {.base = {.lang = g->language, .seat = seat},
                            .d = d,
                            .p = p,
                            .in = in,
                            .g = g,
                            .private_answer = true};
    if (g->rules->reaction(g->state, &key, in->reaction, (unsigned)seat, action))
        pipeline_play(d, g, action, &cause);
    free(action);
}

static int on_deliver(void *ctx, struct platform *p, const struct inbound *in)
{
    struct dispatcher *d = ctx;
    if (d->stopped || !in->user || !in->user[0])
        return -1;
    if (seats_is_computer_id(in->user)) { /* S12: nobody speaks for a computer */
        log_warn("dispatch", NULL, "%s: an input from a computer's id is refused", p->ops->name);
        return -1;
    }
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
    return commands_handle(d, p, in);
}

static void on_flush_turn(void *ctx)
{
    turn_flush(ctx);
}

/* A message left the outbox: deleted with the next commit, or within a second. */
static void on_sent(void *ctx, struct platform *p, int64_t outbox_id)
{
    struct dispatcher *d = ctx;
    if (outbox_id > 0 && store_outbox_sent(d->store, outbox_id) < 0)
        log_error("store", NULL, "out of memory: a message of %s may be sent twice", p->ops->name);
}

/* --- platform state ------------------------------------------------------ */

#define STATE_KEY_MAX 256

/* The store's key for a platform's state, "<platform>/<key>", into full
 * (STATE_KEY_MAX bytes). false when it would not fit: such a key is refused
 * rather than cut, since a cut key could name another key's state. Built
 * without snprintf, for the gateway writes its sequence for every event. */
static bool state_key(char *full, const struct platform *p, const char *key)
{
    size_t np = strlen(p->ops->name), nk = strlen(key);
    if (np + 1 + nk >= STATE_KEY_MAX) {
        log_error("store", NULL, "%s: platform state key too long (%zu bytes)", p->ops->name, nk);
        return false;
    }
    memcpy(full, p->ops->name, np);
    full[np] = '/';
    memcpy(full + np + 1, key, nk + 1);
    return true;
}

static char *on_state_get(void *ctx, struct platform *p, const char *key)
{
    struct dispatcher *d = ctx;
    char full[STATE_KEY_MAX];
    return state_key(full, p, key) ? store_meta_get(d->store, full) : NULL;
}

static int on_state_set(void *ctx, struct platform *p, const char *key, const char *value)
{
    struct dispatcher *d = ctx;
    char full[STATE_KEY_MAX];
    return state_key(full, p, key) ? store_meta_set(d->store, full, value) : -1;
}

static int on_state_defer(void *ctx, struct platform *p, const char *key, const char *value)
{
    struct dispatcher *d = ctx;
    char full[STATE_KEY_MAX];
    return state_key(full, p, key) ? store_meta_set_lazy(d->store, full, value) : -1;
}

static int on_state_follow(void *ctx, struct platform *p, const char *key, const uint64_t *version,
                           bool (*text)(void *arg, char *out, size_t cap), void *arg)
{
    struct dispatcher *d = ctx;
    char full[STATE_KEY_MAX];
    return state_key(full, p, key) ? store_meta_follow(d->store, full, version, text, arg) : -1;
}

/* Deferred state that no game commit carried yet goes to disk on its own. */
static void on_flush(uv_timer_t *t)
{
    struct dispatcher *d = t->data;
    if (store_flush_lazy(d->store) < 0)
        log_warn("store", NULL, "could not write platform state; trying again in a second");
}

static int on_state_del(void *ctx, struct platform *p, const char *key)
{
    struct dispatcher *d = ctx;
    char full[STATE_KEY_MAX];
    return state_key(full, p, key) ? store_meta_delete(d->store, full) : -1;
}

struct state_walk {
    size_t skip; /* "<platform>/" */
    void (*fn)(void *arg, const char *key, const char *value);
    void *arg;
};

static void state_one(void *arg, const char *key, const char *value)
{
    struct state_walk *w = arg;
    w->fn(w->arg, key + w->skip, value);
}

static int on_state_each(void *ctx, struct platform *p, const char *prefix,
                         void (*fn)(void *arg, const char *key, const char *value), void *arg)
{
    struct dispatcher *d = ctx;
    char full[STATE_KEY_MAX];
    if (!state_key(full, p, prefix))
        return -1;
    struct state_walk w = {strlen(p->ops->name) + 1, fn, arg};
    return store_meta_each(d->store, full, state_one, &w);
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
        fprintf(out, "illegald_games{platform=\"%s\",phase=\"lobby\"} %u\n", name,
                d->hosted[p].lobbies);
        /* Every phase of every module, so a series exists before its first game. */
        for (size_t m = 0; m < rules_count(); m++) {
            const struct rules_module *rules = rules_at(m);
            const char *phase;
            for (unsigned ph = 0; (phase = rules->phase_at(ph)); ph++)
                fprintf(out, "illegald_games{platform=\"%s\",phase=\"%s\"} %u\n", name, phase,
                        dispatch_games_in_phase(d, p, rules, ph));
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

bool dispatcher_settled(const struct dispatcher *d)
{
    if (!dispatcher_ready(d))
        return false;
    for (unsigned i = 0; i < d->nplatforms; i++) {
        struct platform *p = d->platforms[i];
        if (p->ops->starting && p->ops->starting(p))
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
    /* One seat's view at a time, for the computer players (computers.c). */
    size_t view = 1;
    for (size_t m = 0; m < rules_count(); m++)
        if (rules_at(m)->view_size > view)
            view = rules_at(m)->view_size;
    if (!(d->view = malloc(view))) {
        free(d);
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
    d->next_event = 1;
    STAILQ_INIT(&d->turn.held);
    LIST_INIT(&d->due.stale);
    d->host.loop = o->loop;
    d->host.ctx = d;
    d->host.metrics = o->metrics;
    d->host.deliver = on_deliver;
    d->host.flush = on_flush_turn;
    d->host.sent = on_sent;
    d->host.dm_result = commands_dm_result;
    d->host.state_get = on_state_get;
    d->host.state_set = on_state_set;
    d->host.state_defer = on_state_defer;
    d->host.state_follow = on_state_follow;
    d->host.state_del = on_state_del;
    d->host.state_each = on_state_each;
    d->host.complete = dispatch_complete;
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
    dispatch_platform_clear(d, d->nplatforms);
    d->platforms[d->nplatforms++] = p;
    return 0;
}

unsigned dispatcher_game_count(const struct dispatcher *d)
{
    return dispatch_game_count(d);
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
    if ((v = store_meta_get(d->store, "next_event"))) {
        d->next_event = strtoull(v, NULL, 10);
        free(v);
    }
    if (dispatch_restore(d) < 0) {
        snprintf(err, errlen, "cannot read the games and events from the store");
        return -1;
    }
    log_info("dispatch", NULL, "restored %u games", dispatch_game_count(d));
    turn_start(d);
    for (unsigned i = 0; i < d->nplatforms; i++) {
        struct platform *p = d->platforms[i];
        if (p->ops->start(p) < 0) {
            snprintf(err, errlen, "platform %s failed to start", p->ops->name);
            return -1;
        }
        /* What a crash left unsent goes first: it is older than anything new. */
        if (p->ops->confirms_sends && outbox_replay(d, p) < 0) {
            snprintf(err, errlen, "cannot read the outbox of %s from the store", p->ops->name);
            return -1;
        }
    }
    commands_resume_starts(d);
    if (!d->virtual_time)
        timers_start(d);
    uv_timer_init(d->loop, &d->flush);
    d->flush.data = d;
    uv_timer_start(&d->flush, on_flush, DISPATCH_FLUSH_MS, DISPATCH_FLUSH_MS);
    uv_unref((uv_handle_t *)&d->flush); /* housekeeping: it keeps no loop running */
    refill_start(d);
    return 0;
}

void dispatcher_stop(struct dispatcher *d)
{
    if (d->stopped)
        return;
    turn_stop(d); /* what the last turn holds goes out before the platforms stop */
    d->stopped = true;
    for (unsigned i = 0; i < d->nplatforms; i++)
        d->platforms[i]->ops->stop(d->platforms[i]);
    timers_stop(d);
    refill_stop(d);
    if (uv_is_active((uv_handle_t *)&d->flush))
        uv_close((uv_handle_t *)&d->flush, NULL); /* store_close() writes what is left */
}

void dispatcher_free(struct dispatcher *d)
{
    if (!d)
        return;
    for (unsigned i = 0; i < d->nplatforms; i++)
        d->platforms[i]->ops->destroy(d->platforms[i]);
    turn_free(d);
    refill_free(d);
    dispatch_games_free(d);
    timers_free(d);
    free(d->view);
    free(d);
}
