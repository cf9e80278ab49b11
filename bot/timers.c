/*
 * timers.c - deadlines and the reminders before them.
 *
 * Each game's next due time (a reminder, its deadline, an absence warning, a
 * computer's move, a lobby's closing) is kept in a binary heap, found again
 * only for the games that changed (timers_changed: the pipeline's changes and
 * undos, and a computer asked without a move), so what the clock costs a
 * turn does not grow with the number of games. In real time one libuv timer is armed for the
 * heap's first; in virtual time the console moves the clock and everything
 * due on the way fires in order.
 *
 * Invariants:
 *   C1. A hosted game is in the heap with links.due == game_due() whenever
 *       it is not stale; a stale game is in d->due.stale and is placed again
 *       before the heap is read (refresh).
 *   C2. A game leaves the heap, the stale list and the firing list when it
 *       leaves the hosted games (timers_forget).
 *   C3. timers_fire_due() fires each game due at its time once.
 */
#include <stdio.h>
#include <stdlib.h>

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

/* --- the heap of due games ------------------------------------------------ */

/* Games due at the same time fire in the order they were hosted, which is
 * the order they were opened (a restart hosts them in that order too). */
static bool earlier(const struct game *a, const struct game *b)
{
    return a->links.due < b->links.due ||
           (a->links.due == b->links.due && a->links.order < b->links.order);
}

static void heap_set(struct due_heap *h, size_t i, struct game *g)
{
    h->v[i] = g;
    g->links.heap = i + 1;
}

static void sift_up(struct due_heap *h, size_t i)
{
    struct game *g = h->v[i];
    while (i > 0 && earlier(g, h->v[(i - 1) / 2])) {
        heap_set(h, i, h->v[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(h, i, g);
}

static void sift_down(struct due_heap *h, size_t i)
{
    struct game *g = h->v[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && earlier(h->v[c + 1], h->v[c]))
            c++;
        if (!earlier(h->v[c], g))
            break;
        heap_set(h, i, h->v[c]);
        i = c;
    }
    heap_set(h, i, g);
}

/* After a burst the heap's array shrinks back (kept as it is when there is
 * no memory for the smaller one). */
static void heap_shrink(struct due_heap *h)
{
    if (h->cap <= 64 || h->n * 4 >= h->cap)
        return;
    struct game **v = realloc(h->v, h->cap / 2 * sizeof *v);
    if (v) {
        h->v = v;
        h->cap /= 2;
    }
}

static void heap_remove(struct due_heap *h, struct game *g)
{
    size_t i = g->links.heap - 1;
    g->links.heap = 0;
    struct game *last = h->v[--h->n];
    if (i != h->n) {
        heap_set(h, i, last);
        sift_down(h, i);
        sift_up(h, last->links.heap - 1);
    }
    heap_shrink(h);
}

/* Puts g where its due time `due` (0: nothing) says. Returns 0, or -1 on no
 * memory: g then stays out of the heap, and stale (refresh tries again). */
static int heap_place(struct due_heap *h, struct game *g, int64_t due)
{
    if (!due) {
        if (g->links.heap)
            heap_remove(h, g);
        return 0;
    }
    if (!g->links.heap) {
        if (h->n == h->cap) {
            size_t cap = h->cap ? h->cap * 2 : 64;
            struct game **v = realloc(h->v, cap * sizeof *v);
            if (!v)
                return -1;
            h->v = v;
            h->cap = cap;
        }
        g->links.due = due;
        heap_set(h, h->n++, g);
        sift_up(h, h->n - 1);
        return 0;
    }
    size_t i = g->links.heap - 1;
    g->links.due = due;
    sift_up(h, i);
    if (g->links.heap - 1 == i)
        sift_down(h, i);
    return 0;
}

void timers_changed(struct dispatcher *d, struct game *g)
{
    if (g->links.is_stale)
        return;
    g->links.is_stale = true;
    LIST_INSERT_HEAD(&d->due.stale, g, links.stale);
}

void timers_forget(struct dispatcher *d, struct game *g)
{
    if (g->links.is_stale) {
        LIST_REMOVE(g, links.stale);
        g->links.is_stale = false;
    }
    if (g->links.heap)
        heap_remove(&d->due, g);
    if (g->links.firing)
        d->due.firing[g->links.firing - 1] = NULL;
    g->links.firing = 0;
}

/* Finds again the due time of every game that changed since the last look. */
static void refresh(struct dispatcher *d)
{
    struct game *next;
    for (struct game *g = LIST_FIRST(&d->due.stale); g; g = next) {
        next = LIST_NEXT(g, links.stale);
        if (heap_place(&d->due, g, game_due(d, g)) < 0) {
            log_error("timers", g->id, "out of memory: its deadline waits for the next change");
            continue;
        }
        LIST_REMOVE(g, links.stale);
        g->links.is_stale = false;
    }
}

/* The earliest due time of any game, or 0. */
static int64_t next_due(struct dispatcher *d)
{
    refresh(d);
    return d->due.n ? d->due.v[0]->links.due : 0;
}

/* Handles one game's reminders, deadline and computers' moves at `now`. g
 * may leave the hosted games (it is freed when the turn ends). */
static void fire_game(struct dispatcher *d, struct game *g, int64_t now)
{
    if (!g->started) {
        if (g->start_at && now >= g->start_at && !g->probes_pending) {
            commands_scheduled_start(d, g);
            return;
        }
        if (now < lobby_due(d, g))
            return;
        struct change c = {.type = CHANGE_LOBBY,
                           .lobby = {.type = LOBBY_CLOSE, .why = "msg.lobby-expired"}};
        pipeline_run(d, g, &c, NULL);
        return;
    }
    for (unsigned i = 0; i < g->nseats && g->links.hosted; i++) {
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
     * whose move comes late (P5), if the game is still hosted. */
    if (g->links.hosted)
        computers_act(d, g, now);
}

/* Takes every game due at `now` out of the heap into the firing list. */
static int collect_due(struct dispatcher *d, int64_t now)
{
    struct due_heap *h = &d->due;
    h->nfiring = 0;
    while (h->n && h->v[0]->links.due <= now) {
        if (h->nfiring == h->capfiring) {
            size_t cap = h->capfiring ? h->capfiring * 2 : 16;
            struct game **v = realloc(h->firing, cap * sizeof *v);
            if (!v)
                return h->nfiring ? 0 : -1; /* what is collected fires; the rest next time */
            h->firing = v;
            h->capfiring = cap;
        }
        struct game *g = h->v[0];
        heap_remove(h, g);
        h->firing[h->nfiring++] = g;
        g->links.firing = h->nfiring;
    }
    return 0;
}

void timers_fire_game(struct dispatcher *d, struct game *g, int64_t now)
{
    int64_t due = game_due(d, g);
    if (due && due <= now) {
        timers_changed(d, g); /* wherever its changes put it */
        fire_game(d, g, now);
    }
}

/* Games the clock changes in one turn before it commits them and goes on:
 * a turn holds a snapshot of every game it changed until its commit, so
 * thousands of lobbies closing at once are committed in batches rather than
 * held all together. */
#define TIMERS_BATCH_GAMES 256

void timers_fire_due(struct dispatcher *d, int64_t now)
{
    refresh(d);
    if (collect_due(d, now) < 0) {
        log_error("timers", NULL, "out of memory: deadlines wait");
        return;
    }
    /* Each game fires once; one that leaves meanwhile is NULL in the list
     * (timers_forget). */
    for (size_t i = 0; i < d->due.nfiring; i++) {
        struct game *g = d->due.firing[i];
        if (!g)
            continue;
        g->links.firing = 0;
        timers_changed(d, g); /* back into the heap, wherever its changes put it */
        fire_game(d, g, now);
        if (d->turn.ngames >= TIMERS_BATCH_GAMES)
            turn_flush(d);
    }
    d->due.nfiring = 0;
    if (d->due.capfiring > TIMERS_BATCH_GAMES) { /* a burst keeps no list of its size */
        free(d->due.firing);
        d->due.firing = NULL;
        d->due.capfiring = 0;
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
    if (!LIST_EMPTY(&d->due.stale))
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

struct heap_check {
    struct dispatcher *d;
    char *why;
    size_t len;
};

/* C1 for one game. */
static void check_due(const char *key, void *val, void *arg)
{
    (void)key;
    struct heap_check *c = arg;
    const struct game *g = val;
    const struct due_heap *h = &c->d->due;
    if (c->why[0] || g->links.is_stale)
        return;
    int64_t due = game_due(c->d, g);
    size_t at = g->links.heap;
    bool placed = at ? at <= h->n && h->v[at - 1] == g && g->links.due == due : !due;
    if (!placed)
        snprintf(c->why, c->len, "%s: not in the heap at its due time (C1)", g->id);
}

void timers_check(struct dispatcher *d, char *why, size_t len)
{
    const struct due_heap *h = &d->due;
    if (why[0])
        return;
    for (size_t i = 1; i < h->n && !why[0]; i++)
        if (earlier(h->v[i], h->v[(i - 1) / 2]) || h->v[i]->links.heap != i + 1)
            snprintf(why, len, "%s: out of the heap's order (C1)", h->v[i]->id);
    struct heap_check c = {d, why, len};
    map_each(&d->games, check_due, &c);
}

void timers_free(struct dispatcher *d)
{
    free(d->due.v);
    free(d->due.firing);
    d->due = (struct due_heap){0};
    LIST_INIT(&d->due.stale);
}

/* Arms the loop timer for the next reminder or deadline. */
static void rearm(struct dispatcher *d)
{
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
