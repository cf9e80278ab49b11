/*
 * games.c - the games the daemon hosts now, its open events, and its clock.
 *
 * Every lookup an input or a turn makes is by key: a table, a game's id, a
 * player, a host, a community. Each is a hash map kept up to date when a
 * game is added, changes (dispatch_game_changed, after every change the
 * pipeline applies or undoes) and leaves, so no input's cost grows with the
 * number of games hosted.
 *
 * Invariants:
 *   G1. A hosted game is in d->games under its id and in its platform's
 *       tables under its table; at most one game a table, one an id.
 *   G2. For a hosted game, links.seats[i].user is the index entry of
 *       seats[i].user for i < nseats, and NULL beyond; each entry lists
 *       exactly the seats that point at it.
 *   G3. links.lobby says whether the game is counted in d->lobbies, its
 *       platform's, its host's and its community's lobbies; it is true
 *       exactly when the game has not started. links.phase is the slot of
 *       its phase in its platform's counts, -1 for a lobby.
 *   G4. An index entry with no seat and no lobby is freed.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "core/modules.h"
#include "dispatch.h"
#include "log.h"

/* One user's seats and lobbies on one platform. */
struct user_games {
    TAILQ_HEAD(, seat_link) seats; /* in the order they were taken */
    unsigned lobbies;              /* lobbies they host */
    char user[];                   /* their id: the key of the entry */
};

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

/* --- platforms ----------------------------------------------------------- */

static struct hosted_platform *hosted_of(struct dispatcher *d, const struct platform *p)
{
    for (unsigned i = 0; i < d->nplatforms; i++)
        if (d->platforms[i] == p)
            return &d->hosted[i];
    return NULL;
}

static unsigned phases_of(const struct rules_module *rules)
{
    unsigned n = 0;
    while (rules->phase_at(n))
        n++;
    return n;
}

/* Where the phases of `rules` start among the slots of the phase counts
 * (NULL: the number of slots). */
static unsigned phase_base(const struct rules_module *rules)
{
    unsigned base = 0;
    for (size_t m = 0; m < rules_count() && rules_at(m) != rules; m++)
        base += phases_of(rules_at(m));
    return base;
}

/* The slot of g's phase in the phase counts, or -1 (a lobby). */
static int phase_slot(const struct game *g)
{
    if (!g->started)
        return -1;
    const char *phase = g->rules->phase(g->state), *at;
    for (unsigned i = 0; (at = g->rules->phase_at(i)); i++)
        if (strcmp(at, phase) == 0)
            return (int)(phase_base(g->rules) + i);
    return -1;
}

void dispatch_platform_clear(struct dispatcher *d, unsigned i)
{
    d->hosted[i] = (struct hosted_platform){0};
}

/* The phase counts are made with the platform's first game: counting the
 * modules' phases runs their code, which a daemon with no game never maps. */
static int phases_made(struct hosted_platform *hp)
{
    if (!hp->phases) {
        unsigned slots = phase_base(NULL);
        hp->phases = calloc(slots ? slots : 1, sizeof *hp->phases);
    }
    return hp->phases ? 0 : -1;
}

unsigned dispatch_games_in_phase(const struct dispatcher *d, unsigned platform,
                                 const struct rules_module *rules, unsigned i)
{
    const unsigned *phases = d->hosted[platform].phases;
    return phases ? phases[phase_base(rules) + i] : 0;
}

/* --- lookups ------------------------------------------------------------- */

/* id in lower case into key (GAME_ID_MAX bytes); false when it is too long
 * to be any game's. */
static bool id_key(char *key, const char *id)
{
    size_t n = strlen(id);
    if (n >= GAME_ID_MAX)
        return false;
    for (size_t i = 0; i <= n; i++)
        key[i] = (char)tolower((unsigned char)id[i]);
    return true;
}

struct game *dispatch_game_at(struct dispatcher *d, struct platform *p, const char *table)
{
    struct hosted_platform *hp = hosted_of(d, p);
    return hp ? map_get(&hp->tables, table) : NULL;
}

struct game *dispatch_game_by_id(struct dispatcher *d, struct platform *p, const char *id)
{
    char key[GAME_ID_MAX];
    struct game *g = id_key(key, id) ? map_get(&d->games, key) : NULL;
    return g && g->platform == p ? g : NULL;
}

struct seat_link *dispatch_seats_of(struct dispatcher *d, struct platform *p, const char *user)
{
    struct hosted_platform *hp = hosted_of(d, p);
    struct user_games *u = hp ? map_get(&hp->users, user) : NULL;
    return u ? TAILQ_FIRST(&u->seats) : NULL;
}

unsigned dispatch_lobbies_hosted(struct dispatcher *d, struct platform *p, const char *user)
{
    struct hosted_platform *hp = hosted_of(d, p);
    struct user_games *u = hp ? map_get(&hp->users, user) : NULL;
    return u ? u->lobbies : 0;
}

unsigned dispatch_lobbies_in(struct dispatcher *d, struct platform *p, const char *community)
{
    struct hosted_platform *hp = hosted_of(d, p);
    unsigned *n = hp ? map_get(&hp->communities, community) : NULL;
    return n ? *n : 0;
}

unsigned dispatch_game_count(const struct dispatcher *d)
{
    return (unsigned)map_count(&d->games);
}

/* --- the player index ------------------------------------------------------ */

/* The entry of user, made when missing; NULL on no memory. */
static struct user_games *user_entry(struct hosted_platform *hp, const char *user)
{
    struct user_games *u = map_get(&hp->users, user);
    if (u)
        return u;
    size_t n = strlen(user) + 1;
    if (!(u = malloc(sizeof *u + n)))
        return NULL;
    TAILQ_INIT(&u->seats);
    u->lobbies = 0;
    memcpy(u->user, user, n);
    if (map_put(&hp->users, user, u, NULL) < 0) {
        free(u);
        return NULL;
    }
    return u;
}

/* Frees entry u once nothing is left in it (G4). */
static void user_release(struct hosted_platform *hp, struct user_games *u)
{
    if (TAILQ_EMPTY(&u->seats) && !u->lobbies)
        free(map_del(&hp->users, u->user));
}

static void unlink_seat(struct hosted_platform *hp, struct seat_link *l)
{
    struct user_games *u = l->user;
    TAILQ_REMOVE(&u->seats, l, next);
    l->user = NULL;
    user_release(hp, u);
}

/* --- adding, changing, removing -------------------------------------------- */

/* The index entries g's seats need, made before anything is linked so that
 * no memory is missing halfway. Returns 0, or -1 (entries made stay, empty:
 * released by the caller's clean-up). */
static int make_entries(struct hosted_platform *hp, const struct game *g)
{
    for (unsigned i = 0; i < g->nseats; i++)
        if (!user_entry(hp, g->seats[i].user))
            return -1;
    if (!g->started && !user_entry(hp, g->host))
        return -1;
    if (!g->started && !map_get(&hp->communities, g->community)) {
        unsigned *n = calloc(1, sizeof *n);
        if (!n || map_put(&hp->communities, g->community, n, NULL) < 0) {
            free(n);
            return -1;
        }
    }
    return 0;
}

/* Frees the entries make_entries() made that nothing uses (G4). */
static void drop_unused(struct hosted_platform *hp, const struct game *g)
{
    for (unsigned i = 0; i < g->nseats; i++) {
        struct user_games *u = map_get(&hp->users, g->seats[i].user);
        if (u)
            user_release(hp, u);
    }
    struct user_games *host = map_get(&hp->users, g->host);
    if (host)
        user_release(hp, host);
    unsigned *n = map_get(&hp->communities, g->community);
    if (n && !*n)
        free(map_del(&hp->communities, g->community));
}

/* Counts g among the lobbies, or stops counting it (G3). */
static void count_lobby(struct dispatcher *d, struct hosted_platform *hp, struct game *g, bool on)
{
    struct game_links *k = &g->links;
    if (on == k->lobby)
        return;
    if (on) {
        k->host = map_get(&hp->users, g->host);
        k->community = map_get(&hp->communities, g->community);
        k->host->lobbies++;
        (*k->community)++;
        hp->lobbies++;
        d->lobbies++;
    } else {
        k->host->lobbies--;
        user_release(hp, k->host);
        if (!--*k->community)
            free(map_del(&hp->communities, g->community));
        k->host = NULL;
        k->community = NULL;
        hp->lobbies--;
        d->lobbies--;
    }
    k->lobby = on;
}

static void count_phase(struct hosted_platform *hp, struct game *g, int slot)
{
    if (g->links.phase >= 0)
        hp->phases[g->links.phase]--;
    if (slot >= 0)
        hp->phases[slot]++;
    g->links.phase = slot;
}

/* Takes out of their lists the seats of g whose player is no longer the one
 * they were indexed under, or that are gone (G2), keeping their old entries
 * in old (RULES_MAX_SEATS) for release_old() once the new links are made. */
static void unlink_changed(struct game *g, struct user_games **old)
{
    for (unsigned i = 0; i < RULES_MAX_SEATS; i++) {
        struct seat_link *l = &g->links.seats[i];
        old[i] = NULL;
        if (l->user && (i >= g->nseats || strcmp(l->user->user, g->seats[i].user) != 0)) {
            old[i] = l->user;
            TAILQ_REMOVE(&l->user->seats, l, next);
            l->user = NULL;
        }
    }
}

/* Frees the old entries left empty (G4), each once, but keep: the entry of
 * a lobby's host, which count_lobby() is about to count. */
static void release_old(struct hosted_platform *hp, struct user_games **old,
                        const struct user_games *keep)
{
    for (unsigned i = 0; i < RULES_MAX_SEATS; i++) {
        bool seen = old[i] == keep;
        for (unsigned j = 0; j < i && !seen; j++)
            seen = old[j] == old[i];
        if (old[i] && !seen)
            user_release(hp, old[i]);
    }
}

/* Links every seat of g not linked yet; make_entries() made their entries. */
static void link_seats(struct hosted_platform *hp, struct game *g)
{
    for (unsigned i = 0; i < g->nseats; i++) {
        struct seat_link *l = &g->links.seats[i];
        if (l->user)
            continue;
        l->g = g;
        l->user = map_get(&hp->users, g->seats[i].user);
        TAILQ_INSERT_TAIL(&l->user->seats, l, next);
    }
}

int dispatch_game_add(struct dispatcher *d, struct game *g)
{
    struct hosted_platform *hp = hosted_of(d, g->platform);
    char key[GAME_ID_MAX];
    if (!hp || !id_key(key, g->id) || map_get(&d->games, key) || map_get(&hp->tables, g->table) ||
        phases_made(hp) < 0)
        return -1;
    if (make_entries(hp, g) < 0 || map_put(&d->games, key, g, NULL) < 0)
        goto fail;
    if (map_put(&hp->tables, g->table, g, NULL) < 0) {
        map_del(&d->games, key);
        goto fail;
    }
    struct game_links *k = &g->links;
    memset(k->seats, 0, sizeof k->seats);
    k->host = NULL;
    k->community = NULL;
    k->lobby = false;
    k->phase = -1;
    k->heap = 0;
    k->order = ++d->due.hosted;
    k->is_stale = false;
    k->hosted = true;
    link_seats(hp, g);
    count_lobby(d, hp, g, !g->started);
    count_phase(hp, g, phase_slot(g));
    timers_changed(d, g);
    return 0;
fail:
    drop_unused(hp, g);
    return -1;
}

int dispatch_game_changed(struct dispatcher *d, struct game *g)
{
    struct hosted_platform *hp = hosted_of(d, g->platform);
    if (!hp || !g->links.hosted)
        return 0;
    if (make_entries(hp, g) < 0) {
        drop_unused(hp, g);
        log_error("dispatch", g->id, "out of memory indexing the game");
        return -1;
    }
    struct user_games *old[RULES_MAX_SEATS];
    unlink_changed(g, old);
    link_seats(hp, g); /* first: an old entry may be a new seat's (seats move up at a leave) */
    /* an undone start makes a lobby again, whose host may have left its seat */
    release_old(hp, old, g->started ? NULL : map_get(&hp->users, g->host));
    count_lobby(d, hp, g, !g->started);
    count_phase(hp, g, phase_slot(g));
    drop_unused(hp, g); /* a host's entry made for a lobby that started meanwhile */
    timers_changed(d, g);
    return 0;
}

void dispatch_game_remove(struct dispatcher *d, struct game *g)
{
    struct hosted_platform *hp = hosted_of(d, g->platform);
    if (!hp || !g->links.hosted)
        return;
    timers_forget(d, g);
    char key[GAME_ID_MAX];
    if (id_key(key, g->id))
        map_del(&d->games, key);
    map_del(&hp->tables, g->table);
    for (unsigned i = 0; i < RULES_MAX_SEATS; i++)
        if (g->links.seats[i].user)
            unlink_seat(hp, &g->links.seats[i]);
    count_lobby(d, hp, g, false);
    count_phase(hp, g, -1);
    g->links.hosted = false;
}

/* --- events ---------------------------------------------------------------- */

struct event *dispatch_event_of(struct dispatcher *d, struct platform *p, const char *community)
{
    struct hosted_platform *hp = hosted_of(d, p);
    return hp ? map_get(&hp->events, community) : NULL;
}

struct event *dispatch_event_by_id(struct dispatcher *d, struct platform *p, const char *id)
{
    struct event *e = map_get(&d->events, id);
    return e && e->platform == p ? e : NULL;
}

int dispatch_event_add(struct dispatcher *d, struct event *e)
{
    struct hosted_platform *hp = hosted_of(d, e->platform);
    if (!hp || map_get(&d->events, e->id) || map_get(&hp->events, e->community) ||
        map_put(&d->events, e->id, e, NULL) < 0)
        return -1;
    if (map_put(&hp->events, e->community, e, NULL) < 0) {
        map_del(&d->events, e->id);
        return -1;
    }
    return 0;
}

void dispatch_event_remove(struct dispatcher *d, struct event *e)
{
    struct hosted_platform *hp = hosted_of(d, e->platform);
    if (map_get(&d->events, e->id) != e)
        return;
    map_del(&d->events, e->id);
    if (hp)
        map_del(&hp->events, e->community);
}

/* --- the end ----------------------------------------------------------------- */

static void free_game(void *g)
{
    game_free(g);
}

void dispatch_games_free(struct dispatcher *d)
{
    for (unsigned i = 0; i < d->nplatforms; i++) {
        struct hosted_platform *hp = &d->hosted[i];
        map_clear(&hp->tables, NULL);
        map_clear(&hp->users, free);
        map_clear(&hp->communities, free);
        map_clear(&hp->events, NULL);
        free(hp->phases);
    }
    map_clear(&d->games, free_game);
    map_clear(&d->events, free);
}

/* --- checking the invariants (tests) ---------------------------------------- */

struct check {
    struct dispatcher *d;
    char *why;
    size_t len;
    unsigned lobbies;
};

static void fail(struct check *c, const char *what, const char *id)
{
    if (!c->why[0])
        snprintf(c->why, c->len, "%s: %s", id, what);
}

static bool seat_listed(const struct seat_link *l)
{
    const struct seat_link *at;
    TAILQ_FOREACH(at, &l->user->seats, next)
    if (at == l)
        return true;
    return false;
}

/* G1-G3 for one hosted game. */
static void check_game(const char *key, void *val, void *arg)
{
    struct check *c = arg;
    struct game *g = val;
    struct hosted_platform *hp = hosted_of(c->d, g->platform);
    char lower[GAME_ID_MAX];
    if (!hp || !g->links.hosted || !id_key(lower, g->id) || strcmp(lower, key) != 0 ||
        map_get(&hp->tables, g->table) != g)
        fail(c, "not where its platform, id and table say (G1)", g->id);
    for (unsigned i = 0; hp && i < RULES_MAX_SEATS; i++) {
        const struct seat_link *l = &g->links.seats[i];
        bool ok = i < g->nseats
                      ? l->user && l->g == g && map_get(&hp->users, g->seats[i].user) == l->user &&
                            seat_listed(l)
                      : !l->user;
        if (!ok)
            fail(c, "a seat not indexed under its player (G2)", g->id);
    }
    if (g->links.lobby == g->started || g->links.phase != phase_slot(g))
        fail(c, "counted as a lobby or in a phase it is not in (G3)", g->id);
    if (g->links.lobby) {
        c->lobbies++;
        if (!hp || g->links.host != map_get(&hp->users, g->host) ||
            g->links.community != map_get(&hp->communities, g->community))
            fail(c, "counted under another host or community (G3)", g->id);
    }
}

/* What the counts of one platform should be, counted from the games. */
struct recount {
    struct hosted_platform *hp;
    const char *user, *community; /* the lobbies of this host, or this community */
    int slot;                     /* the games in this phase slot */
    unsigned n;
};

static void recount_game(const char *key, void *val, void *arg)
{
    (void)key;
    struct recount *r = arg;
    const struct game *g = val;
    if (map_get(&r->hp->tables, g->table) != g)
        return; /* another platform's */
    if (r->user)
        r->n += !g->started && strcmp(g->host, r->user) == 0;
    else if (r->community)
        r->n += !g->started && strcmp(g->community, r->community) == 0;
    else
        r->n += phase_slot(g) == r->slot;
}

struct entry_ctx {
    struct check *c;
    struct hosted_platform *hp;
};

/* G2 and G4 for one user's entry: every seat it lists is that user's, it
 * counts the lobbies they host, and it holds something. */
static void check_user(const char *key, void *val, void *arg)
{
    struct entry_ctx *x = arg;
    struct user_games *u = val;
    const struct seat_link *l;
    TAILQ_FOREACH(l, &u->seats, next)
    {
        const struct game *g = l->g;
        unsigned i = (unsigned)(l - g->links.seats);
        if (!g->links.hosted || i >= g->nseats || strcmp(g->seats[i].user, key) != 0)
            fail(x->c, "lists a seat that is not theirs (G2)", key);
    }
    struct recount r = {.hp = x->hp, .user = key};
    map_each(&x->c->d->games, recount_game, &r);
    if (r.n != u->lobbies)
        fail(x->c, "counts another number of lobbies (G3)", key);
    if (strcmp(u->user, key) != 0 || (TAILQ_EMPTY(&u->seats) && !u->lobbies))
        fail(x->c, "an index entry misnamed or left empty (G4)", key);
}

static void check_community(const char *key, void *val, void *arg)
{
    struct entry_ctx *x = arg;
    struct recount r = {.hp = x->hp, .community = key};
    map_each(&x->c->d->games, recount_game, &r);
    if (r.n != *(unsigned *)val || !r.n)
        fail(x->c, "counts another number of lobbies, or none (G3, G4)", key);
}

int dispatcher_check(struct dispatcher *d, char *why, size_t len)
{
    struct check c = {d, why, len, 0};
    why[0] = '\0';
    map_each(&d->games, check_game, &c);
    unsigned tables = 0, lobbies = 0;
    unsigned slots = phase_base(NULL);
    for (unsigned i = 0; i < d->nplatforms; i++) {
        struct entry_ctx x = {&c, &d->hosted[i]};
        map_each(&d->hosted[i].users, check_user, &x);
        map_each(&d->hosted[i].communities, check_community, &x);
        for (unsigned slot = 0; slot < slots; slot++) {
            struct recount r = {.hp = &d->hosted[i], .slot = (int)slot};
            map_each(&d->games, recount_game, &r);
            if (r.n != (d->hosted[i].phases ? d->hosted[i].phases[slot] : 0))
                fail(&c, "the games in a phase differ from their count (G3)", "index");
        }
        tables += (unsigned)map_count(&d->hosted[i].tables);
        lobbies += d->hosted[i].lobbies;
    }
    if (tables != map_count(&d->games))
        fail(&c, "tables and games differ in number (G1)", "index");
    if (c.lobbies != d->lobbies || lobbies != d->lobbies)
        fail(&c, "the lobby counts differ from the lobbies (G3)", "index");
    if (!why[0])
        timers_check(d, why, len);
    return why[0] ? -1 : 0;
}
