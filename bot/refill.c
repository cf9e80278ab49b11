/*
 * refill.c - after a start, the images of the games it read from their
 * records written back, in the background.
 *
 * A start reads a game from its record when the game has no image of this
 * build (an upgrade, a store from before images: restore.c), and would read
 * it so again at every start until the game's next change; a quiet game (an
 * asynchronous one waiting days) would pay that at every restart. Once the
 * daemon answers (every platform connected, checked every REFILL_WAIT_MS, the
 * first time after the loop has polled for inputs), the refill writes those
 * images from the games in memory, as a change does (turn.c): a batch of at
 * most REFILL_BATCH_GAMES games and REFILL_BATCH_MS per loop turn, each batch
 * one transaction. The batches run on an idle handle: the loop polls for
 * inputs without waiting, fires what is due and commits its turn between two
 * batches, so an answer waits for one batch at most.
 *
 * Invariants:
 *   R1. Only a game's image is written, never its record, and only for a game
 *       the loop turn under way has not touched: outside a turn a hosted game
 *       is what its stored record says, so the image says the same.
 *   R2. A game changed since the start (its commit wrote its image: turn.c
 *       clears links.refill), ended, or hosted no more is passed over.
 *   R3. A batch the store refuses ends the refill, logged once: the games not
 *       written keep their records only and are read from them at the next
 *       start. Nothing is lost, and a stop or a crash mid-refill neither.
 */
#define _GNU_SOURCE /* CLOCK_THREAD_CPUTIME_ID */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dispatch.h"
#include "image.h"
#include "log.h"
#include "store.h"

#define REFILL_BATCH_GAMES 256 /* images a batch writes at most */
#define REFILL_BATCH_MS    5   /* a batch stops taking games after this */
#define REFILL_WAIT_MS     100 /* how often a start not yet answering is asked again */

struct refill {
    char (*ids)[GAME_ID_MAX]; /* the games read from their records, in the start's order */
    size_t n, cap, at;        /* at: the next to look at */
    uv_timer_t wait;          /* until the daemon answers */
    uv_idle_t batch;          /* a batch per loop turn */
    bool handles;             /* wait and batch are initialized (closed by refill_stop) */
    unsigned written, batches;
    uint64_t began;   /* uv_hrtime() at the first batch */
    double cpu_s;     /* the batches' CPU */
    struct buf image; /* each game's image in turn */
};

int refill_note(struct dispatcher *d, struct game *g)
{
    struct refill *r = d->refill;
    if (!r && !(r = d->refill = calloc(1, sizeof *r)))
        return -1;
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 1024;
        char(*ids)[GAME_ID_MAX] = realloc(r->ids, cap * sizeof *ids);
        if (!ids)
            return -1;
        r->ids = ids;
        r->cap = cap;
    }
    memcpy(r->ids[r->n++], g->id, GAME_ID_MAX);
    g->links.refill = true;
    return 0;
}

static double thread_cpu_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Stops the handles; the memory goes with refill_free(). */
static void finish(struct refill *r)
{
    uv_timer_stop(&r->wait);
    uv_idle_stop(&r->batch);
    buf_free(&r->image);
    free(r->ids);
    r->ids = NULL;
    r->n = r->at = 0;
}

/* The next game of the list to write (R1, R2), or NULL when none is left. */
static struct game *next_game(struct dispatcher *d, struct refill *r)
{
    while (r->at < r->n) {
        struct game *g = NULL;
        const char *id = r->ids[r->at++];
        for (unsigned i = 0; i < d->nplatforms && !g; i++)
            g = dispatch_game_by_id(d, d->platforms[i], id);
        if (g && g->links.refill && !g->links.turn && !game_finished(g))
            return g;
    }
    return NULL;
}

/* Writes one batch in a transaction. Returns 0, or -1 when the store
 * refused it (logged by the store). */
static int write_batch(struct dispatcher *d, struct refill *r)
{
    uint64_t until = uv_hrtime() + (uint64_t)REFILL_BATCH_MS * 1000000;
    if (store_begin(d->store) < 0)
        return -1;
    unsigned n = 0;
    struct game *g;
    while (n < REFILL_BATCH_GAMES && uv_hrtime() < until && (g = next_game(d, r))) {
        g->links.refill = false;
        if (image_write(g, &r->image) != 0)
            continue; /* none for it (no memory): its record it is */
        if (store_game_image(d->store, g->id, r->image.data, r->image.len) < 0) {
            store_rollback(d->store);
            return -1;
        }
        n++;
    }
    if (store_commit(d->store) < 0) {
        store_rollback(d->store);
        return -1;
    }
    r->written += n;
    return 0;
}

static void on_batch(uv_idle_t *h)
{
    struct dispatcher *d = h->data;
    struct refill *r = d->refill;
    double cpu = thread_cpu_s();
    int rc = write_batch(d, r);
    r->cpu_s += thread_cpu_s() - cpu;
    r->batches++;
    double wall = (double)(uv_hrtime() - r->began) / 1e9;
    if (rc < 0) {
        log_error("dispatch", NULL,
                  "the store refused the images' writing: it stops after %u of %zu games; "
                  "the others are read from their records at the next start",
                  r->written, r->n);
        finish(r);
    } else if (r->at == r->n) {
        log_info("dispatch", NULL,
                 "images written for %u of %zu games read from their records, in %.2f s "
                 "(%.2f s of CPU, %u batches)",
                 r->written, r->n, wall, r->cpu_s, r->batches);
        finish(r);
    }
}

static void on_wait(uv_timer_t *t)
{
    struct dispatcher *d = t->data;
    struct refill *r = d->refill;
    if (d->stopped || !dispatcher_ready(d))
        return;
    uv_timer_stop(&r->wait);
    log_info("dispatch", NULL, "writing the images of %zu games read from their records", r->n);
    r->began = uv_hrtime();
    uv_idle_start(&r->batch, on_batch);
}

void refill_start(struct dispatcher *d)
{
    struct refill *r = d->refill;
    if (!r || !r->n)
        return;
    buf_init(&r->image, IMAGE_BYTES_MAX);
    uv_timer_init(d->loop, &r->wait);
    uv_idle_init(d->loop, &r->batch);
    r->wait.data = r->batch.data = d;
    r->handles = true;
    /* housekeeping: neither keeps the loop running */
    uv_unref((uv_handle_t *)&r->wait);
    uv_unref((uv_handle_t *)&r->batch);
    uv_update_time(d->loop); /* from now, not from before the games were read */
    uv_timer_start(&r->wait, on_wait, REFILL_WAIT_MS, REFILL_WAIT_MS);
}

void refill_stop(struct dispatcher *d)
{
    struct refill *r = d->refill;
    if (!r || !r->handles)
        return;
    finish(r);
    r->handles = false;
    uv_close((uv_handle_t *)&r->wait, NULL);
    uv_close((uv_handle_t *)&r->batch, NULL);
}

void refill_free(struct dispatcher *d)
{
    struct refill *r = d->refill;
    if (!r)
        return;
    buf_free(&r->image);
    free(r->ids);
    free(r);
    d->refill = NULL;
}
