/*
 * restore.c - the games and events a start reads back from the store.
 *
 * Most of a start is reading each game back: a copy of its image (image.h)
 * when it has one this build wrote, else its stored JSON (json-c's parse,
 * the rules module's load and checks), pure work on a row, with no state of
 * the daemon's. Rows are read from SQLite in batches; each batch's games
 * are read on the loop's thread and on up to RESTORE_THREADS - 1 threads
 * beside it (one per CPU the daemon may run on), one part each; then the games are hosted on the
 * loop's thread, in the order they were opened (the order the store gives them), which is the only
 * part that touches the dispatcher. Nothing else runs meanwhile: the loop has not started.
 *
 * A record that cannot be read is logged and left in the store, untouched,
 * as is a game or event of a platform that is not configured. A game read
 * from its record is noted for refill.c, which writes its image once the
 * daemon answers.
 */
#define _GNU_SOURCE /* sched_getaffinity */
#include <json-c/json.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "image.h"
#include "log.h"
#include "store.h"

#define RESTORE_BATCH   1024 /* rows read before their records are parsed */
#define RESTORE_THREADS 4    /* parsing threads at most, the loop's included */

/* One stored game on its way in. */
struct row {
    char *text; /* id, table, record and image, one after another (malloc'd) */
    const char *id, *table, *record;
    const void *image; /* NULL: none */
    size_t image_len;
    struct platform *p;
    struct game *g; /* parsed; NULL when it could not be (why says) */
    char why[128];
    char image_why[128]; /* why its image was not read, when it was damaged */
    bool from_record;    /* read from its record: its image was missing or not this build's */
};

struct restore {
    struct dispatcher *d;
    struct row rows[RESTORE_BATCH];
    unsigned n;
    unsigned threads;      /* parsing threads, the loop's included */
    unsigned from_records; /* games read from their records, not their images */
};

/* A part of a batch, parsed by one thread. */
struct part {
    struct row *rows;
    unsigned n;
};

/* The platform a stored game or event (id) names, or NULL when it is not
 * configured: the row then stays in the store, untouched (logged). */
static struct platform *stored_platform(struct dispatcher *d, const char *id, const char *name)
{
    for (unsigned i = 0; i < d->nplatforms; i++)
        if (strcmp(d->platforms[i]->ops->name, name) == 0)
            return d->platforms[i];
    log_warn("dispatch", id, "kept in the store: platform %s is not configured", name);
    return NULL;
}

/* Reads r's record into g with tok (one per thread, reset for each record
 * as json_tokener_parse() would make a new one). Returns 0 or -1 (r->why). */
static int parse_record(struct row *r, struct json_tokener *tok, struct game *g)
{
    struct json_object *j = NULL;
    if (tok) {
        json_tokener_reset(tok);
        j = json_tokener_parse_ex(tok, r->record, -1);
        if (json_tokener_get_error(tok) != json_tokener_success) {
            json_object_put(j);
            j = NULL;
        }
    }
    snprintf(r->why, sizeof r->why, "not JSON");
    int rc = j ? game_from_json(g, j, r->why, sizeof r->why) : -1;
    json_object_put(j);
    return rc;
}

/* Reads r into a new game: from its image when it has one of this build's
 * (bot/image.h), else from its record; on any thread. */
static void parse_row(struct row *r, struct json_tokener *tok)
{
    struct game *g = calloc(1, sizeof *g);
    int rc = -1;
    snprintf(r->why, sizeof r->why, "out of memory");
    if (g && r->image)
        rc = image_read(g, r->image, r->image_len, r->image_why, sizeof r->image_why);
    if (g && rc != 0) {
        r->from_record = rc > 0 || !r->image;
        rc = parse_record(r, tok, g);
    }
    if (rc == 0 && (strcmp(g->id, r->id) != 0 || strcmp(g->table, r->table) != 0)) {
        snprintf(r->why, sizeof r->why, "its record names another game or table");
        rc = -1;
    }
    if (rc < 0) {
        game_free(g);
        g = NULL;
    }
    r->g = g;
}

static void *parse_part(void *arg)
{
    struct part *p = arg;
    struct json_tokener *tok = json_tokener_new(); /* NULL: each row says "not JSON" */
    for (unsigned i = 0; i < p->n; i++)
        parse_row(&p->rows[i], tok);
    json_tokener_free(tok);
    return NULL;
}

/* Hosts the game of a parsed row, or says why it stays in the store. */
static void host_row(struct restore *r, struct row *row)
{
    struct dispatcher *d = r->d;
    struct game *g = row->g;
    if (row->image_why[0])
        log_warn("dispatch", row->id, "its image was not read (%s): its record was",
                 row->image_why);
    r->from_records += g && row->from_record;
    if (g) {
        g->platform = row->p;
        if (!g->started && !g->lobby_activity)
            g->lobby_activity = dispatcher_now(d);
        if (dispatch_game_add(d, g) < 0) {
            snprintf(row->why, sizeof row->why,
                     "out of memory, or another game has its table or id");
            game_free(g);
            g = NULL;
        } else if ((row->from_record || row->image_why[0]) && refill_note(d, g) < 0) {
            log_warn("dispatch", row->id, "out of memory: it gets no image before its next change");
        }
    }
    if (!g) {
        log_error("dispatch", row->id, "cannot restore the game (%s); it stays in the store",
                  row->why);
    }
    free(row->text);
}

/* Parses the batch's records, a part on each thread, then hosts them in
 * order. A thread that cannot start leaves its part to the loop's thread. */
static void flush_batch(struct restore *r)
{
    struct part parts[RESTORE_THREADS] = {{NULL, 0}};
    pthread_t threads[RESTORE_THREADS];
    bool started[RESTORE_THREADS] = {false};
    unsigned each = (r->n + r->threads - 1) / r->threads, at = 0;
    for (unsigned t = 0; t < r->threads; t++) {
        parts[t].rows = r->rows + at;
        parts[t].n = r->n - at < each ? r->n - at : each;
        at += parts[t].n;
        if (t > 0 && parts[t].n)
            started[t] = pthread_create(&threads[t], NULL, parse_part, &parts[t]) == 0;
    }
    parse_part(&parts[0]);
    for (unsigned t = 1; t < r->threads; t++) {
        if (started[t])
            pthread_join(threads[t], NULL);
        else
            parse_part(&parts[t]);
    }
    for (unsigned i = 0; i < r->n; i++)
        host_row(r, &r->rows[i]);
    r->n = 0;
}

static int take_game(void *arg, const struct store_game_row *stored)
{
    struct restore *r = arg;
    struct platform *p = stored_platform(r->d, stored->id, stored->platform);
    if (!p)
        return 0;
    size_t nid = strlen(stored->id) + 1, ntable = strlen(stored->table) + 1,
           nrecord = strlen(stored->record) + 1, nimage = stored->image ? stored->image_len : 0;
    struct row *row = &r->rows[r->n];
    *row = (struct row){.p = p, .text = malloc(nid + ntable + nrecord + nimage)};
    if (!row->text) {
        log_error("dispatch", stored->id, "out of memory: the game stays in the store");
        return 0;
    }
    row->id = memcpy(row->text, stored->id, nid);
    row->table = memcpy(row->text + nid, stored->table, ntable);
    row->record = memcpy(row->text + nid + ntable, stored->record, nrecord);
    if (stored->image) {
        row->image = memcpy(row->text + nid + ntable + nrecord, stored->image, nimage);
        row->image_len = nimage;
    }
    if (++r->n == RESTORE_BATCH)
        flush_batch(r);
    return 0;
}

static int take_event(void *arg, const char *id, const char *platform, const char *record)
{
    struct restore *r = arg;
    struct dispatcher *d = r->d;
    struct platform *p = stored_platform(d, id, platform);
    if (!p)
        return 0;
    struct json_object *j = json_tokener_parse(record);
    struct event *e = calloc(1, sizeof *e);
    char why[128] = "not JSON";
    int rc = j && e ? event_from_json(e, j, why, sizeof why) : -1;
    json_object_put(j);
    if (rc == 0 && strcmp(e->id, id) != 0) {
        snprintf(why, sizeof why, "its record names another event");
        rc = -1;
    }
    if (rc == 0) {
        e->platform = p;
        if (dispatch_event_add(d, e) < 0) {
            snprintf(why, sizeof why, "out of memory, or its community has an open event");
            rc = -1;
        }
    }
    if (rc < 0) {
        log_error("dispatch", id, "cannot restore the event (%s); it stays in the store", why);
        free(e);
    }
    return 0;
}

int dispatch_restore(struct dispatcher *d)
{
    struct restore *r = calloc(1, sizeof *r);
    if (!r)
        return -1;
    /* as many threads as CPUs the daemon may run on (a pinned one: one) */
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 1;
    r->d = d;
    r->threads = cpus < 1 ? 1 : cpus > RESTORE_THREADS ? RESTORE_THREADS : (unsigned)cpus;
    int rc = store_games_active(d->store, take_game, r);
    flush_batch(r); /* the last rows, also when the read failed halfway */
    if (r->from_records)
        log_info("dispatch", NULL,
                 "%u games read from their records (no image of this build yet): the images "
                 "are written once the daemon answers",
                 r->from_records);
    if (rc == 0)
        rc = store_events_open(d->store, take_event, r);
    free(r);
    return rc < 0 ? -1 : 0;
}
