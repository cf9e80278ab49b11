/*
 * readers.c - the language each reader reads, for answers that belong to no
 * game: a table's (its game's, else its last game's), a player's (their
 * seat's, their own choice, what their platform says, else their last
 * table's). What a game ends with is kept in the store (turn.c) for this.
 */
#include <stdio.h>

#include "config.h"
#include "core/catalog.h"
#include "dispatch.h"
#include "store.h"

#define KIND_TABLE "table"
#define KIND_USER  "user"

/* The kept language of (kind, id) on p as a catalog code, or NULL. */
static const char *kept(struct dispatcher *d, struct platform *p, const char *kind, const char *id,
                        bool *chosen)
{
    char lang[16];
    *chosen = false;
    if (store_language_get(d->store, p->ops->name, kind, id, lang, sizeof lang, chosen) != 1)
        return NULL;
    return catalog_match(lang);
}

const char *readers_table(struct dispatcher *d, struct platform *p, const char *table)
{
    bool chosen;
    struct game *g = dispatch_game_at(d, p, table);
    const char *lang = g ? catalog_match(g->language) : kept(d, p, KIND_TABLE, table, &chosen);
    return lang ? lang : d->config->language;
}

const char *readers_user(struct dispatcher *d, struct platform *p, const char *user,
                         const char *locale)
{
    bool chosen;
    for (const struct seat_link *l = dispatch_seats_of(d, p, user); l; l = TAILQ_NEXT(l, next)) {
        int seat = game_seat_of(l->g, user);
        if (seat >= 0)
            return catalog_match(game_seat_language(l->g, (unsigned)seat));
    }
    const char *last = kept(d, p, KIND_USER, user, &chosen);
    if (last && chosen)
        return last;
    if (catalog_match(locale))
        return catalog_match(locale);
    return last ? last : d->config->language;
}

int readers_keep(struct dispatcher *d, const struct game *g)
{
    const char *platform = g->platform->ops->name;
    if (store_language_put(d->store, platform, KIND_TABLE, g->table, g->language, false) < 0)
        return -1;
    for (unsigned i = 0; g->started && i < g->nseats; i++)
        if (store_language_put(d->store, platform, KIND_USER, g->seats[i].user,
                               game_seat_language(g, i), g->seats[i].language[0] != '\0') < 0)
            return -1;
    return 0;
}
