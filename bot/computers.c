/*
 * computers.c - computer players at a game's seats: their names, their
 * memories, what they take in, and when they move (invariants K1-K4 in
 * computers.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "computers.h"
#include "config.h"
#include "core/catalog.h"
#include "core/text.h"
#include "dispatch.h"
#include "log.h"

const struct rules_strategy *computers_level(const struct rules_module *rules, unsigned n)
{
    const struct rules_strategy *l = rules->strategies;
    for (unsigned i = 1; l && l->id; l++, i++)
        if (i == n)
            return l;
    return NULL;
}

unsigned computers_level_named(const struct rules_module *rules, const char *id)
{
    unsigned i = 1;
    for (const struct rules_strategy *l = rules->strategies; id && l && l->id; l++, i++)
        if (strcasecmp(l->id, id) == 0)
            return i;
    return 0;
}

/* --- names ----------------------------------------------------------------- */

#define NAMES_MAX 16

/* Whether a seat of g has name (as its name or its id), in any case. */
static bool name_taken(const struct game *g, const char *name)
{
    for (unsigned i = 0; i < g->nseats; i++)
        if (strcasecmp(g->seats[i].name, name) == 0 || strcasecmp(g->seats[i].user, name) == 0)
            return true;
    return false;
}

void computers_name(const struct game *g, unsigned n, char *out, size_t len)
{
    /* The language's first names, '|' between them, each made a computer's
     * name by its pattern ("{name}-bot"). */
    char list[512], *names[NAMES_MAX], *save = NULL;
    unsigned count = 0;
    snprintf(list, sizeof list, "%s", catalog_text(g->language, "computer.names"));
    for (char *w = strtok_r(list, "|", &save); w && count < NAMES_MAX;
         w = strtok_r(NULL, "|", &save))
        names[count++] = w;
    if (!count) {
        snprintf(out, len, "cpu%u", n);
        return;
    }
    for (unsigned tries = 0; tries <= count; tries++) {
        char first[128];
        if (tries < count)
            snprintf(first, sizeof first, "%s", names[(n - 1 + tries) % count]);
        else /* every name taken: the first with the computer's number */
            snprintf(first, sizeof first, "%s%u", names[(n - 1) % count], n);
        const char *vars[] = {"name", first, NULL};
        text_fill(out, len, g->language, "computer.name", vars);
        if (!name_taken(g, out))
            return;
    }
}

/* --- memories ---------------------------------------------------------------- */

/* g's memories, made when the first computer needs one. */
static int have_minds(struct game *g)
{
    if (!g->minds)
        g->minds = calloc(g->nseats, game_mind_size(g));
    return g->minds ? 0 : -1;
}

/* Seat i's computer, if one plays it and it has a memory. */
static const struct rules_strategy *playing(const struct game *g, unsigned i)
{
    const struct rules_strategy *l = game_seat_level(g, i);
    return l && game_mind(g, i) && game_active(g, i) ? l : NULL;
}

/* A new memory for seat i, seeded from the game's rng, that takes in the
 * seat's view with `events` (NULL: as it stands). */
static void start_mind(struct dispatcher *d, struct game *g, unsigned i, const void *events)
{
    const struct rules_strategy *l = game_seat_level(g, i);
    void *mind = game_mind(g, i);
    l->start(mind, rng_next(&g->rng), (unsigned)d->config->computer_pace);
    g->rules->seat_view(g->state, i, events, d->view);
    l->observe(mind, d->view, dispatcher_now(d));
}

int computers_begin(struct dispatcher *d, struct game *g, const void *events)
{
    bool any = false;
    for (unsigned i = 0; i < g->nseats; i++)
        any = any || game_seat_level(g, i);
    if (!any)
        return 0;
    if (have_minds(g) < 0)
        return -1;
    for (unsigned i = 0; i < g->nseats; i++)
        if (game_seat_level(g, i))
            start_mind(d, g, i, events);
    return 0;
}

void computers_observe(struct dispatcher *d, struct game *g, const void *events)
{
    int64_t now = dispatcher_now(d);
    for (unsigned i = 0; g->minds && i < g->nseats; i++) {
        const struct rules_strategy *l = playing(g, i);
        if (l && g->rules->seat_view(g->state, i, events, d->view))
            l->observe(game_mind(g, i), d->view, now);
    }
}

int computers_stand_in(struct dispatcher *d, struct game *g, unsigned seat, unsigned level)
{
    if (!computers_level(g->rules, level) || have_minds(g) < 0)
        return -1;
    g->seats[seat].computer = (uint8_t)level;
    g->seats[seat].standin = true;
    start_mind(d, g, seat, NULL);
    return 0;
}

/* --- moves ------------------------------------------------------------------- */

/* The computer seat whose wake comes first (the lowest among ties), or -1. */
static int first_awake(const struct game *g, int64_t *at)
{
    int who = -1;
    for (unsigned i = 0; g->minds && i < g->nseats; i++) {
        const struct rules_strategy *l = playing(g, i);
        int64_t w = l ? l->wake(game_mind(g, i)) : 0;
        if (w && (who < 0 || w < *at)) {
            who = (int)i;
            *at = w;
        }
    }
    return who;
}

int64_t computers_due(const struct game *g)
{
    int64_t at = 0;
    if (!g->started || g->rules->over(g->state) || first_awake(g, &at) < 0)
        return 0;
    /* K3: once a millisecond at most, and at the platform's pace */
    int64_t gap = g->platform ? g->platform->ops->computer_gap_ms : 0;
    if (g->computers_asked && at <= g->computers_asked)
        at = g->computers_asked + 1;
    if (g->computers_moved && gap && at < g->computers_moved + gap)
        at = g->computers_moved + gap;
    return at;
}

void computers_act(struct dispatcher *d, struct game *g, int64_t now)
{
    int64_t due = computers_due(g), at = 0;
    int seat = first_awake(g, &at);
    if (!due || due > now || seat < 0)
        return;
    if (turn_snapshot(d, g) < 0) { /* K2: what act() changes is undone with the turn */
        log_error("computers", g->id, "out of memory: a computer waits");
        return;
    }
    const struct rules_strategy *l = game_seat_level(g, (unsigned)seat);
    void *action = calloc(1, g->rules->action_size);
    if (!action) {
        log_error("computers", g->id, "out of memory: a computer waits");
        return;
    }
    g->rules->seat_view(g->state, (unsigned)seat, NULL, d->view);
    bool moves = l->act(game_mind(g, (unsigned)seat), d->view, now, action);
    g->computers_asked = now;
    turn_changed(d, g);   /* its memory, and when it was asked */
    timers_changed(d, g); /* its wake time moved */
    if (moves) {
        g->computers_moved = now;
        struct change c = {.type = CHANGE_RULES, .action = action};
        if (pipeline_run(d, g, &c, NULL) < 0)
            log_info("computers", g->id, "seat %d's move was refused", seat);
    }
    free(action);
}
