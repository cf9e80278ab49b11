/*
 * timers.c - deadlines and the reminders before them.
 *
 * In real time one libuv timer is armed for the earliest thing due across all
 * games; in virtual time the console moves the clock and everything due on
 * the way fires in order.
 */
#include <stdio.h>

#include "computers.h"
#include "config.h"
#include "dispatch.h"
#include "log.h"
#include "render.h"
#include "store.h"

/* Reminders go out only in steps long enough to need them: players forget a
 * deadline in a long step, not in a short one, and every reminder is one
 * more message. The table hears a minute and ten seconds before the end; the
 * players a step still waits for are told in private when a quarter of it is
 * left, which is hours ahead in a game played over days. */
#define REMIND_MIN_STEP_MS 120000

static const struct reminder {
    uint8_t bit;     /* in game.reminders_sent */
    int64_t lead_ms; /* before the deadline; 0: a quarter of the step */
    const char *key; /* what the table is told; NULL: private reminders */
} reminders[] = {
    {1, 60000, "msg.reminder-60"},
    {2, 10000, "msg.reminder-10"},
    {4, 0, NULL},
};

static int64_t lead_of(const struct game *g, const struct reminder *r)
{
    return r->lead_ms ? r->lead_ms : g->phase_length / 4;
}

static bool wants_reminder(const struct game *g, const struct reminder *r)
{
    return !(g->reminders_sent & r->bit) && g->phase_length >= REMIND_MIN_STEP_MS &&
           g->phase_length >= 3 * lead_of(g, r);
}

/* When a lobby closes for being idle: never before its scheduled start. */
static int64_t lobby_due(const struct dispatcher *d, const struct game *g)
{
    int64_t idle = g->lobby_activity + d->config->lobby_idle_seconds * 1000;
    return g->start_at > idle ? g->start_at : idle;
}

/* When seat i's player is due an absence warning, or 0: only while the
 * current step waits for them (a player who has voted is not absent), counted
 * from their last move or the step's start, whichever is later. */
static int64_t absent_due(const struct dispatcher *d, const struct game *g, unsigned i)
{
    const struct seat *s = &g->seats[i];
    if (!d->config->absent_seconds || s->last_move < 0 || s->absent_warned || s->open ||
        s->computer || !game_active(g, i) || !g->rules->needs(g->state, i))
        return 0;
    int64_t since = s->last_move, step = g->tracked_deadline - g->phase_length;
    if (g->tracked_deadline && step > since)
        since = step;
    return since + d->config->absent_seconds * 1000;
}

/* When this game next needs attention (a reminder, its deadline, an absence
 * warning, a computer's move, or a lobby's closing), or 0. */
static int64_t game_due(const struct dispatcher *d, const struct game *g)
{
    if (!g->started)
        return g->start_at && !g->probes_pending && g->start_at < lobby_due(d, g) ? g->start_at
                                                                                  : lobby_due(d, g);
    int64_t dl = g->rules->deadline(g->state), due = dl;
    for (size_t i = 0; dl && i < sizeof reminders / sizeof *reminders; i++)
        if (wants_reminder(g, &reminders[i]) && dl - lead_of(g, &reminders[i]) < due)
            due = dl - lead_of(g, &reminders[i]);
    for (unsigned i = 0; i < g->nseats; i++) {
        int64_t a = absent_due(d, g, i);
        if (a && (!due || a < due))
            due = a;
    }
    int64_t c = computers_due(g);
    return c && (!due || c < due) ? c : due;
}

static int64_t next_due(const struct dispatcher *d)
{
    int64_t best = 0;
    for (unsigned i = 0; i < d->ngames; i++) {
        int64_t t = game_due(d, d->games[i]);
        if (t && (!best || t < best))
            best = t;
    }
    return best;
}

/* Handles one game's reminders and deadline at `now`. Returns true when the
 * game was finished (and freed). */
static bool fire_game(struct dispatcher *d, struct game *g, int64_t now)
{
    unsigned before = d->ngames;
    if (!g->started) {
        if (g->start_at && now >= g->start_at && !g->probes_pending) {
            commands_scheduled_start(d, g);
            return d->ngames < before;
        }
        if (now < lobby_due(d, g))
            return false;
        struct change c = {.type = CHANGE_LOBBY,
                           .lobby = {.type = LOBBY_CLOSE, .why = "msg.lobby-expired"}};
        pipeline_run(d, g, &c, NULL);
        return d->ngames < before;
    }
    for (unsigned i = 0; i < g->nseats && d->ngames == before; i++) {
        int64_t a = absent_due(d, g, i);
        if (a && now >= a) {
            struct change c = {.type = CHANGE_ABSENT, .seat = i};
            pipeline_run(d, g, &c, NULL);
        }
    }
    int64_t dl = g->rules->deadline(g->state);
    for (size_t i = 0; i < sizeof reminders / sizeof *reminders && dl; i++) {
        const struct reminder *r = &reminders[i];
        int64_t lead = lead_of(g, r);
        if (!wants_reminder(g, r) || now < dl - lead)
            continue;
        /* A table reminder caught up late (after a restart) would say the
         * wrong time; a private one says the time left, once it is not over. */
        bool timely = dl - now > lead / 2;
        struct change c = {.type = CHANGE_REMINDER,
                           .reminder = r->bit,
                           .reminder_key = r->key && timely ? r->key : NULL,
                           .nudge = !r->key && now < dl};
        pipeline_run(d, g, &c, NULL);
    }
    if (dl && now >= dl)
        pipeline_steer(d, g, RULES_TICK, 0, 0, NULL);
    /* A computer moves on the game that follows the deadline, as a person
     * whose move comes late (P5). */
    if (d->ngames == before)
        computers_act(d, g, now);
    return d->ngames < before;
}

void timers_fire_game(struct dispatcher *d, struct game *g, int64_t now)
{
    int64_t due = game_due(d, g);
    if (due && due <= now)
        fire_game(d, g, now);
}

/* Games the clock changes in one turn before it commits them and goes on:
 * a turn holds a snapshot of every game it changed until its commit, so
 * thousands of lobbies closing at once are committed in batches rather than
 * held all together. */
#define TIMERS_BATCH_GAMES 256

void timers_fire_due(struct dispatcher *d, int64_t now)
{
    for (unsigned i = 0; i < d->ngames;) {
        struct game *g = d->games[i];
        int64_t due = game_due(d, g);
        bool gone = due && due <= now && fire_game(d, g, now);
        if (d->turn.ngames >= TIMERS_BATCH_GAMES)
            turn_flush(d);
        if (!gone)
            i++; /* else the last game moved into slot i */
    }
}

static void rearm(struct dispatcher *d);

static void on_timer(uv_timer_t *t)
{
    struct dispatcher *d = t->data;
    int64_t now = dispatcher_now(d);
    if (!turn_retry_wait(d, now)) /* after a failed commit, wait a moment (rearm) */
        timers_fire_due(d, now);
    rearm(d);
}

/* Before the loop waits: the changes of this turn may have moved a deadline. */
static void on_prepare(uv_prepare_t *h)
{
    struct dispatcher *d = h->data;
    if (d->timers_stale)
        rearm(d);
}

void timers_start(struct dispatcher *d)
{
    uv_timer_init(d->loop, &d->timer);
    uv_prepare_init(d->loop, &d->prepare);
    d->timer.data = d->prepare.data = d;
    d->timer_ready = true;
    uv_prepare_start(&d->prepare, on_prepare);
    /* Deadlines that passed while the daemon was down fire now. */
    timers_fire_due(d, dispatcher_now(d));
    rearm(d);
}

void timers_stop(struct dispatcher *d)
{
    if (!d->timer_ready)
        return;
    d->timer_ready = false;
    uv_timer_stop(&d->timer);
    uv_prepare_stop(&d->prepare);
    uv_close((uv_handle_t *)&d->timer, NULL);
    uv_close((uv_handle_t *)&d->prepare, NULL);
}

/* Arms the loop timer for the next reminder or deadline. */
static void rearm(struct dispatcher *d)
{
    d->timers_stale = false;
    if (d->virtual_time || !d->timer_ready || d->stopped)
        return;
    int64_t due = next_due(d);
    if (!due) {
        uv_timer_stop(&d->timer);
        return;
    }
    if (turn_retry_wait(d, due))
        due = d->turn.retry_after;
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
        timers_fire_due(d, d->vnow);
    }
    d->vnow = target;
    turn_flush(d);
    char clock[32];
    snprintf(clock, sizeof clock, "%lld", (long long)d->vnow);
    if (store_meta_set(d->store, "clock", clock) < 0)
        log_error("store", NULL, "could not save the clock");
}
