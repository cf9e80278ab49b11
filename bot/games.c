/*
 * games.c - the games the daemon hosts now, and its clock.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
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
            return;
        }
}
