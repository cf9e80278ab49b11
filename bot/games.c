/*
 * games.c - the games the daemon hosts now, its open events, and its clock.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "dispatch.h"

int64_t dispatcher_now(const struct dispatcher *d)
{
    if (d->virtual_time)
        return d->vnow;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

uint64_t dispatcher_seed(const struct dispatcher *d, uint64_t number)
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

void dispatch_game_remove(struct dispatcher *d, struct game *g)
{
    for (unsigned i = 0; i < d->ngames; i++)
        if (d->games[i] == g) {
            d->games[i] = d->games[--d->ngames];
            break;
        }
    /* After a burst the list shrinks back (a failed realloc keeps it as it is). */
    if (d->cap > 64 && d->ngames < d->cap / 4) {
        struct game **v = realloc(d->games, d->cap / 2 * sizeof *v);
        if (v) {
            d->games = v;
            d->cap /= 2;
        }
    }
}

struct event *dispatch_event_of(struct dispatcher *d, struct platform *p, const char *community)
{
    for (unsigned i = 0; i < d->nevents; i++)
        if (d->events[i]->platform == p && strcmp(d->events[i]->community, community) == 0)
            return d->events[i];
    return NULL;
}

int dispatch_event_add(struct dispatcher *d, struct event *e)
{
    if (d->nevents == d->capevents) {
        unsigned cap = d->capevents ? d->capevents * 2 : 4;
        struct event **v = realloc(d->events, cap * sizeof *v);
        if (!v)
            return -1;
        d->events = v;
        d->capevents = cap;
    }
    d->events[d->nevents++] = e;
    return 0;
}

void dispatch_event_remove(struct dispatcher *d, struct event *e)
{
    for (unsigned i = 0; i < d->nevents; i++)
        if (d->events[i] == e) {
            d->events[i] = d->events[--d->nevents];
            return;
        }
}
