/*
 * turn.c - one commit per loop turn: the group commit.
 *
 * Every input and timer of a loop turn changes games in memory only; what it
 * sends is held. When the turn ends (the loop's check and prepare phases, or
 * a flush asked for by an adapter), every changed game is written in one
 * transaction, one fsync, and only then is anything held handed to the
 * adapters, in the order it was made.
 *
 * Invariants:
 *   T1. No message about a change leaves before the change is on disk.
 *   T2. If the turn's commit fails, every game the turn changed is put back
 *       as it was at the start of the turn (games it opened are gone again),
 *       the messages about those changes are dropped, and every input that
 *       asked for one is told, once, that it did not happen.
 *   T3. Messages reach each platform in the order they were made.
 *   T4. A game that finished in the turn leaves the hosted games at once but
 *       is freed only after the turn, so T2 can put it back.
 *   T5. For a platform that confirms delivery, each message about a change is
 *       written to the store's outbox in the change's transaction and stays
 *       there until the platform reports it sent (outbox.c sends what a
 *       crash left there at the next start).
 *   T6. A game that ends is written with its players' results (the
 *       statistics) in the same transaction: both or neither.
 *   T7. Events (event.h) are games' peers here: every event the turn
 *       touched is written in the turn's transaction and put back with the
 *       games if it fails; a closed event leaves memory once committed.
 *   T8. A lobby that closes without a game (ended, or idle) is deleted from
 *       the store in the turn's transaction, not kept as finished: nothing
 *       of it is worth keeping, and a flood of lobbies must not grow the
 *       store for good.
 */
#include <json-c/json.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "event.h"
#include "image.h"
#include "log.h"
#include "metrics.h"
#include "store.h"

/* Writes the results of every player still in g, a game that is over; an
 * aborted game leaves none: it counts in no statistics. */
static int put_results(struct store *store, const struct game *g)
{
    unsigned computers = 0;
    for (unsigned i = 0; i < g->nseats; i++)
        computers += game_active(g, i) && g->seats[i].computer;
    for (unsigned i = 0; i < g->nseats; i++) {
        struct rules_result r;
        const struct rules_strategy *level = game_seat_level(g, i);
        g->rules->result(g->state, i, &r);
        if (!r.played || r.aborted)
            continue;
        struct store_result row = {.platform = g->platform->ops->name,
                                   .community = g->community,
                                   .event = g->event,
                                   .game = g->id,
                                   .user = g->seats[i].user,
                                   .name = game_seat_name(g, i),
                                   .score = r.score,
                                   .rank = (int)r.rank,
                                   .won = r.won,
                                   .tally = r.tally,
                                   .module = g->rules->id,
                                   .computers = computers,
                                   .level = game_seat_is_computer(g, i) ? level->id : NULL};
        if (store_result_put(store, &row) < 0)
            return -1;
    }
    return 0;
}

/* A wait after a failed commit before the clock's changes are tried again,
 * so that a full disk is not retried in a busy loop. */
#define TURN_RETRY_MS 1000

/* An event the turn touched, with its record before (NULL: opened now). */
struct turn_event {
    struct event *e;
    struct event *before;
};

struct turn_game {
    struct game *g;
    struct game before; /* .state points at state_before, .minds at minds_before */
    void *state_before;
    void *minds_before; /* the computers' memories (K2 in computers.h), or NULL */
    bool created;       /* opened in this turn: it had no "before" */
    bool changed;       /* a change was applied: it must be written */
    bool dropped;       /* out of the hosted games; freed after the turn */
};

enum held_type {
    HELD_MESSAGE,   /* sent once the turn is committed */
    HELD_NEWS,      /* game_changed(), once committed */
    HELD_IF_FAILED, /* an answer sent only if the commit fails */
};

struct held {
    STAILQ_ENTRY(held) next;
    enum held_type type;
    struct platform *p;
    bool about_change; /* made while a change was rendered: dropped if it is undone */
    bool repeated;     /* IF_FAILED: the same words to the same reader, held before */
    struct outbound m;
    struct inbound cause; /* m.cause points here when there was one */
    struct msg_key key_parts;
    struct game_news news;
    size_t room; /* bytes of text */
    char text[]; /* every string of m, cause and news, one after another */
};

/* A held record's text has room for at least this much, and one of exactly
 * this size is kept when it is let go, up to TURN_HELD_KEPT of them in struct
 * turn (dispatch.h): a turn's few messages then cost no malloc and free each
 * (about 1.1 KB a record, 4.4 KB at most). */
#define TURN_HELD_ROOM 512u

/* Copies s into *at and returns the copy; NULL stays NULL. */
static const char *copy_in(char **at, const char *s)
{
    if (!s)
        return NULL;
    size_t n = strlen(s) + 1;
    memcpy(*at, s, n);
    const char *copy = *at;
    *at += n;
    return copy;
}

static size_t size_of(const char *s)
{
    return s ? strlen(s) + 1 : 0;
}

/* A held record, zeroed, whose text holds n bytes: a kept one when it fits. */
static struct held *held_new(struct dispatcher *d, size_t n)
{
    struct held *h;
    size_t room = n < TURN_HELD_ROOM ? TURN_HELD_ROOM : n;
    if (room == TURN_HELD_ROOM && d->turn.nheld_kept) {
        h = d->turn.held_kept[--d->turn.nheld_kept];
        memset(h, 0, sizeof *h);
    } else if (!(h = calloc(1, sizeof *h + room))) {
        return NULL;
    }
    h->room = room;
    return h;
}

/* Lets h go: kept for a later record when it is of the kept size and there
 * is a place, else freed. */
static void held_free(struct dispatcher *d, struct held *h)
{
    if (h->type != HELD_NEWS)
        json_object_put((struct json_object *)h->m.data);
    if (h->room == TURN_HELD_ROOM && d->turn.nheld_kept < TURN_HELD_KEPT)
        d->turn.held_kept[d->turn.nheld_kept++] = h;
    else
        free(h);
}

static int hold(struct dispatcher *d, struct held *h)
{
    h->about_change = d->turn.rendering;
    STAILQ_INSERT_TAIL(&d->turn.held, h, next);
    return 0;
}

int turn_hold_message(struct dispatcher *d, struct platform *p, const struct outbound *m)
{
    const struct inbound *c = m->cause;
    size_t n = size_of(m->channel) + size_of(m->user) + size_of(m->key) + size_of(m->text) +
               size_of(m->reply_to);
    if (c)
        n += size_of(c->channel) + size_of(c->user) + size_of(c->user_name) + size_of(c->text) +
             size_of(c->msg_key) + size_of(c->reaction) + size_of(c->reply_to);
    struct held *h = held_new(d, n);
    if (!h)
        return -1;
    char *at = h->text;
    h->type = d->turn.if_failed ? HELD_IF_FAILED : HELD_MESSAGE;
    h->p = p;
    h->m = *m;
    h->m.channel = copy_in(&at, m->channel);
    h->m.user = copy_in(&at, m->user);
    h->m.key = copy_in(&at, m->key);
    h->m.text = copy_in(&at, m->text);
    h->m.reply_to = copy_in(&at, m->reply_to);
    if (m->key_parts) {
        h->key_parts = *m->key_parts;
        h->m.key_parts = &h->key_parts;
    }
    if (c) {
        h->cause = *c;
        h->cause.channel = copy_in(&at, c->channel);
        h->cause.user = copy_in(&at, c->user);
        h->cause.user_name = copy_in(&at, c->user_name);
        h->cause.text = copy_in(&at, c->text);
        h->cause.msg_key = copy_in(&at, c->msg_key);
        h->cause.reaction = copy_in(&at, c->reaction);
        h->cause.reply_to = copy_in(&at, c->reply_to);
        h->m.cause = &h->cause;
    }
    /* The renderers build each message's data anew and release it after the
     * emit, so a reference keeps it as it was. */
    json_object_get((struct json_object *)m->data);
    return hold(d, h);
}

int turn_hold_news(struct dispatcher *d, struct platform *p, const struct game_news *n)
{
    struct held *h = held_new(d, size_of(n->game) + size_of(n->table) + size_of(n->phase));
    if (!h)
        return -1;
    char *at = h->text;
    h->type = HELD_NEWS;
    h->p = p;
    h->news = *n;
    h->news.game = copy_in(&at, n->game);
    h->news.table = copy_in(&at, n->table);
    h->news.phase = copy_in(&at, n->phase);
    return hold(d, h);
}

static struct turn_game *find(struct dispatcher *d, const struct game *g)
{
    return g->links.turn ? &d->turn.games[g->links.turn - 1] : NULL;
}

/* At the turn's first touch: the id counters, which an undo puts back. */
static void note_counters(struct dispatcher *d)
{
    if (d->turn.ngames || d->turn.nevents)
        return;
    d->turn.next_game = d->next_game;
    d->turn.next_event = d->next_event;
}

/* The entry of g in this turn, made (with g's snapshot) on first touch. */
static struct turn_game *touch(struct dispatcher *d, struct game *g, bool created)
{
    struct turn_game *t = find(d, g);
    if (t)
        return t;
    if (d->turn.ngames == d->turn.cap) {
        unsigned cap = d->turn.cap ? d->turn.cap * 2 : 8;
        struct turn_game *v = realloc(d->turn.games, cap * sizeof *v);
        if (!v)
            return NULL;
        d->turn.games = v;
        d->turn.cap = cap;
    }
    void *state = created ? NULL : malloc(g->rules->state_size);
    size_t minds = created || !g->minds ? 0 : g->nseats * game_mind_size(g);
    void *minds_before = minds ? malloc(minds) : NULL;
    if ((!created && !state) || (minds && !minds_before)) {
        free(state);
        free(minds_before);
        return NULL;
    }
    note_counters(d);
    t = &d->turn.games[d->turn.ngames++];
    *t = (struct turn_game){
        .g = g, .created = created, .state_before = state, .minds_before = minds_before};
    g->links.turn = d->turn.ngames;
    if (!created) {
        t->before = *g;
        memcpy(state, g->state, g->rules->state_size);
        t->before.state = state;
        if (minds)
            memcpy(minds_before, g->minds, minds);
        t->before.minds = minds_before;
    }
    return t;
}

int turn_created(struct dispatcher *d, struct game *g)
{
    return touch(d, g, true) ? 0 : -1;
}

int turn_snapshot(struct dispatcher *d, struct game *g)
{
    return touch(d, g, false) ? 0 : -1;
}

void turn_chat_replaced(struct dispatcher *d, struct game *g, struct game_chat *old)
{
    struct turn_game *t = find(d, g);
    if (!t || t->created || old != t->before.chat)
        free(old); /* made in this turn: no snapshot holds it */
}

void turn_changed(struct dispatcher *d, struct game *g)
{
    struct turn_game *t = find(d, g);
    if (t)
        t->changed = true;
}

void turn_drop_game(struct dispatcher *d, struct game *g)
{
    dispatch_game_remove(d, g);
    struct turn_game *t = find(d, g);
    if (t)
        t->dropped = true; /* freed after the turn (T4) */
    else
        game_free(g);
}

int turn_event_touch(struct dispatcher *d, struct event *e, bool created)
{
    for (unsigned i = 0; i < d->turn.nevents; i++)
        if (d->turn.events[i].e == e)
            return 0;
    if (d->turn.nevents == d->turn.capevents) {
        unsigned cap = d->turn.capevents ? d->turn.capevents * 2 : 4;
        struct turn_event *v = realloc(d->turn.events, cap * sizeof *v);
        if (!v)
            return -1;
        d->turn.events = v;
        d->turn.capevents = cap;
    }
    struct event *before = NULL;
    if (!created && !(before = malloc(sizeof *before)))
        return -1;
    if (before)
        *before = *e;
    note_counters(d);
    d->turn.events[d->turn.nevents++] = (struct turn_event){.e = e, .before = before};
    return 0;
}

bool turn_retry_wait(const struct dispatcher *d, int64_t now)
{
    return now < d->turn.retry_after;
}

/* Writes g's row, its record and image (an unfinished game's), or deletes a
 * lobby that closed without a game (T8), and the results and readers of a
 * game that ends. Returns 0 or -1 (logged). */
static int put_game(struct dispatcher *d, struct game *g, struct buf *image)
{
    bool gone = g->closed && !g->started;
    struct json_object *j = gone ? NULL : game_to_json(g);
    const char *text = j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN) : NULL;
    /* 0: it has one. Without one (no memory for it) the next start reads
     * the record: the image is never worth failing the commit for. */
    int imaged = gone || game_finished(g) ? 1 : image_write(g, image);
    bool oom = !gone && !text;
    int rc =
        oom    ? -1
        : gone ? store_game_delete(d->store, g->id)
               : store_game_put(d->store, g->id, g->platform->ops->name, g->table, game_finished(g),
                                text, imaged == 0 ? image->data : NULL, image->len);
    if (rc == 0 && g->started && !g->closed && g->rules->over(g->state)) /* T6 */
        rc = put_results(d->store, g);
    if (rc == 0 && game_finished(g))
        rc = readers_keep(d, g);
    json_object_put(j);
    if (rc < 0)
        log_error("store", g->id, oom ? "out of memory" : "could not write the game");
    return rc;
}

/* Writes every game the turn changed; *platform: the first one's. Returns 0 or -1 (logged). */
static int put_games(struct dispatcher *d, const char **platform)
{
    struct buf image; /* each game's image in turn */
    buf_init(&image, IMAGE_BYTES_MAX);
    int rc = 0;
    for (unsigned i = 0; rc == 0 && i < d->turn.ngames; i++) {
        struct turn_game *t = &d->turn.games[i];
        if (!t->changed)
            continue;
        if (!*platform)
            *platform = t->g->platform->ops->name;
        rc = put_game(d, t->g, &image);
    }
    buf_free(&image);
    return rc;
}

/* Messages about the changes, for platforms that confirm delivery: in the same transaction, so
 * a crash can lose neither without the other. Returns 0 or -1 (logged). */
static int put_outbox(struct dispatcher *d)
{
    struct held *h;
    STAILQ_FOREACH(h, &d->turn.held, next)
    {
        if (h->type != HELD_MESSAGE || !h->about_change || !h->p->ops->confirms_sends ||
            h->m.reply_to)
            continue;
        char *text = outbox_encode(&h->m);
        bool oom = !text;
        int rc = oom ? -1 : store_outbox_add(d->store, h->p->ops->name, text, &h->m.outbox_id);
        free(text);
        if (rc < 0) {
            log_error("store", NULL, oom ? "out of memory" : "could not write a message");
            return -1;
        }
    }
    return 0;
}

/* Writes every event the turn touched. Returns 0 or -1 (logged). */
static int put_events(struct dispatcher *d)
{
    for (unsigned i = 0; i < d->turn.nevents; i++) {
        const struct event *e = d->turn.events[i].e;
        struct json_object *j = event_to_json(e);
        const char *text = j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN) : NULL;
        int rc = text ? store_event_put(d->store, e->id, e->platform->ops->name, e->community,
                                        e->closed, text)
                      : -1;
        json_object_put(j);
        if (rc < 0) {
            log_error("store", e->id, text ? "could not write the event" : "out of memory");
            return -1;
        }
    }
    return 0;
}

/* The next game's and event's numbers, and the virtual clock. Returns 0 or -1. */
static int put_counters(struct dispatcher *d)
{
    char clock[32], counter[32], events[32];
    snprintf(clock, sizeof clock, "%lld", (long long)d->vnow);
    snprintf(counter, sizeof counter, "%llu", (unsigned long long)d->next_game);
    snprintf(events, sizeof events, "%llu", (unsigned long long)d->next_event);
    if (store_meta_set(d->store, "next_game", counter) < 0 ||
        (d->turn.nevents && store_meta_set(d->store, "next_event", events) < 0) ||
        (d->virtual_time && store_meta_set(d->store, "clock", clock) < 0))
        return -1;
    return 0;
}

/* Writes every change of the turn in one transaction. */
static int commit(struct dispatcher *d)
{
    uint64_t started = uv_hrtime();
    const char *platform = NULL; /* the metric's label: the first changed game's platform */
    if (store_begin(d->store) < 0)
        return -1;
    if (put_games(d, &platform) < 0 || put_outbox(d) < 0 || put_events(d) < 0 ||
        put_counters(d) < 0 || store_commit(d->store) < 0) {
        store_rollback(d->store);
        return -1;
    }
    metrics_observe(d->metrics, METRIC_STORE_COMMIT_SECONDS, platform,
                    (double)(uv_hrtime() - started) / 1e9);
    return 0;
}

/* Puts every game the turn changed back as it was when the turn began, the
 * last touched first: a lobby opened at the table of a game that ended in
 * the same turn (a rematch) leaves the table before that game comes back. */
static void undo(struct dispatcher *d)
{
    for (unsigned i = d->turn.ngames; i-- > 0;) {
        struct turn_game *t = &d->turn.games[i];
        struct game *g = t->g;
        if (t->created) {
            if (!t->dropped)
                dispatch_game_remove(d, g);
            game_free(g);
            t->g = NULL;
            t->dropped = false;
            continue;
        }
        /* the turn's chat block and memories go; the memories as they were
         * come back whole (K2 in computers.h) */
        game_put_back(g, &t->before, t->state_before);
        t->minds_before = NULL; /* g owns it again */
        if (t->dropped ? dispatch_game_add(d, g) < 0 : dispatch_game_changed(d, g) < 0) {
            log_error("dispatch", g->id, "cannot host the game again: it stays in the store only");
            dispatch_game_remove(d, g);
            game_free(g);
            t->g = NULL;
        }
        t->dropped = false;
    }
    for (unsigned i = 0; i < d->turn.nevents; i++) {
        struct turn_event *t = &d->turn.events[i];
        if (t->before) {
            *t->e = *t->before;
        } else {
            dispatch_event_remove(d, t->e);
            free(t->e);
        }
    }
    d->next_game = d->turn.next_game;
    d->next_event = d->turn.next_event;
}

/* A turn that touched more games than this gives its list back when it
 * ends: a burst (a flood of lobbies closing) must not keep its peak. */
#define TURN_GAMES_KEPT 64
/* After a turn that freed this many games, the allocator is asked to return
 * free memory to the system: glibc keeps freed small blocks otherwise. */
#define TURN_TRIM_GAMES 32

/* Gives memory freed in bulk back to the system, where the allocator can. */
static void give_back_memory(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* Ends the turn's bookkeeping: frees the games it finished, the events it
 * closed (unless its commit failed) and its snapshots. Returns how many
 * games it freed. */
static unsigned forget(struct dispatcher *d, bool failed)
{
    unsigned freed = 0;
    for (unsigned i = 0; i < d->turn.ngames; i++) {
        struct turn_game *t = &d->turn.games[i];
        /* committed: the chat block the turn replaced goes (undone, undo() put it back) */
        if (!failed && !t->created && t->g && t->before.chat != t->g->chat)
            free(t->before.chat);
        if (t->g)
            t->g->links.turn = 0;
        if (!failed && t->changed && t->g)
            t->g->links.refill = false; /* its commit wrote its image (R2 in refill.c) */
        if (t->dropped) {
            game_free(t->g);
            freed++;
        }
        free(t->state_before);
        free(t->minds_before);
    }
    d->turn.ngames = 0;
    if (d->turn.cap > TURN_GAMES_KEPT) {
        free(d->turn.games);
        d->turn.games = NULL;
        d->turn.cap = 0;
    }
    for (unsigned i = 0; i < d->turn.nevents; i++) {
        struct turn_event *t = &d->turn.events[i];
        free(t->before);
        if (!failed && t->e->closed) {
            dispatch_event_remove(d, t->e);
            free(t->e);
        }
    }
    d->turn.nevents = 0;
    return freed;
}

static bool same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* One input may have asked for several changes (an event's round opens a
 * game per table): if they fail, its user hears it once. */
static void mark_repeated(struct dispatcher *d)
{
    struct held *h, *before;
    STAILQ_FOREACH(h, &d->turn.held, next)
    {
        if (h->type != HELD_IF_FAILED)
            continue;
        for (before = STAILQ_FIRST(&d->turn.held); before != h && !h->repeated;
             before = STAILQ_NEXT(before, next))
            h->repeated = before->type == HELD_IF_FAILED && before->p == h->p &&
                          same(before->m.channel, h->m.channel) &&
                          same(before->m.user, h->m.user) && same(before->m.text, h->m.text) &&
                          same(before->m.cause ? before->m.cause->user : NULL,
                               h->m.cause ? h->m.cause->user : NULL);
    }
}

static void send_held(struct held *h)
{
    struct platform *p = h->p;
    if (h->type == HELD_NEWS) {
        if (p->ops->game_changed)
            p->ops->game_changed(p, &h->news);
        return;
    }
    metrics_count(p->host->metrics, METRIC_MESSAGES_OUT, p->ops->name, 1);
    if (p->ops->send(p, &h->m) < 0)
        log_warn("dispatch", NULL, "%s could not queue a message", p->ops->name);
}

void turn_flush(struct dispatcher *d)
{
    if (d->turn.flushing)
        return; /* an adapter asked from inside a send: the loop below goes on */
    bool changed = false, failed = false;
    for (unsigned i = 0; i < d->turn.ngames; i++)
        changed |= d->turn.games[i].changed;
    changed |= d->turn.nevents > 0;
    if (changed)
        failed = commit(d) < 0;
    if (failed) {
        log_error("store", NULL, "could not save this turn's changes: they are undone");
        undo(d);
        d->turn.retry_after = dispatcher_now(d) + TURN_RETRY_MS;
    }
    unsigned freed = forget(d, failed);
    if (failed)
        mark_repeated(d);
    d->turn.flushing = true;
    struct held *h;
    while ((h = STAILQ_FIRST(&d->turn.held))) {
        STAILQ_REMOVE_HEAD(&d->turn.held, next);
        bool wanted =
            h->type == HELD_IF_FAILED ? failed && !h->repeated : !(failed && h->about_change);
        if (wanted)
            send_held(h);
        held_free(d, h);
    }
    d->turn.flushing = false;
    if (freed >= TURN_TRIM_GAMES)
        give_back_memory();
}

static void on_turn_end(uv_handle_t *h)
{
    turn_flush(h->data);
}

static void on_check(uv_check_t *h)
{
    on_turn_end((uv_handle_t *)h);
}

static void on_prepare(uv_prepare_t *h)
{
    on_turn_end((uv_handle_t *)h);
}

void turn_start(struct dispatcher *d)
{
    /* After the I/O callbacks (check) and after the timers (prepare): each
     * phase's changes are committed before the loop sleeps. */
    uv_check_init(d->loop, &d->turn.check);
    uv_prepare_init(d->loop, &d->turn.prepare);
    d->turn.check.data = d->turn.prepare.data = d;
    uv_check_start(&d->turn.check, on_check);
    uv_prepare_start(&d->turn.prepare, on_prepare);
    /* bookkeeping of the loop's turns: they keep no loop running */
    uv_unref((uv_handle_t *)&d->turn.check);
    uv_unref((uv_handle_t *)&d->turn.prepare);
    d->turn.started = true;
}

void turn_stop(struct dispatcher *d)
{
    turn_flush(d);
    if (!d->turn.started)
        return;
    d->turn.started = false;
    uv_close((uv_handle_t *)&d->turn.check, NULL);
    uv_close((uv_handle_t *)&d->turn.prepare, NULL);
}

void turn_free(struct dispatcher *d)
{
    struct held *h;
    while ((h = STAILQ_FIRST(&d->turn.held))) {
        STAILQ_REMOVE_HEAD(&d->turn.held, next);
        held_free(d, h);
    }
    while (d->turn.nheld_kept)
        free(d->turn.held_kept[--d->turn.nheld_kept]);
    forget(d, true);
    free(d->turn.games);
    free(d->turn.events);
}
