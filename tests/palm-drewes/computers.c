/*
 * computers.c - whole games of computer players, driven through the rules
 * module interface (core/rules.h, core/strategy.h) the way a host drives
 * them: a virtual clock that jumps to the next wake or deadline, every seat
 * observing what each change showed it, and every step checked.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/palm-drewes/module.h"
#include "core/palm-drewes/view.h"
#include "driver.h"

#define MAX_STEPS 200000

struct table {
    const struct pd_comp_opts *o;
    struct pd_comp_stats *st;
    uint64_t seed;
    const struct rules_strategy *level;
    struct pd_state *state;
    struct pd_events *ev;
    struct pd_view *view;
    unsigned char *mind[PD_MAX_PLAYERS];
    struct rng rng;
    int64_t now;
};

static void violation(struct table *t, const char *what, const char *why)
{
    t->st->violations++;
    fprintf(stderr, "seed %llu (%u players): %s%s%s\n", (unsigned long long)t->seed, t->o->players,
            what, why ? ": " : "", why ? why : "");
}

/* Stores every mind and the game as JSON text and goes on from what is read
 * back: the same bytes, or a violation. */
static void roundtrip(struct table *t)
{
    struct json_object *rec = json_object_new_object();
    char why[160];
    if (pd_module.save(t->state, true, rec) != 0) {
        violation(t, "the module's save failed", NULL);
        json_object_put(rec);
        return;
    }
    struct json_object *back = json_tokener_parse(json_object_to_json_string(rec));
    struct pd_state *s = calloc(1, sizeof *s);
    if (!s || pd_module.load(s, true, t->o->players, back, why, sizeof why) != 0)
        violation(t, "the module's record was refused", why);
    else if (memcmp(s, t->state, sizeof *s) != 0)
        violation(t, "the module's record read back differs", NULL);
    free(s);
    json_object_put(rec);
    json_object_put(back);
    for (unsigned seat = 0; seat < t->o->players; seat++) {
        struct json_object *m = json_object_new_object();
        unsigned char copy[256];
        memset(copy, 0, sizeof copy);
        if (t->level->save(t->mind[seat], m) != 0 ||
            t->level->load(copy, m, why, sizeof why) != 0 ||
            memcmp(copy, t->mind[seat], t->level->memory_size) != 0)
            violation(t, "a computer's memory did not survive its stored form", why);
        json_object_put(m);
    }
}

/* After every change: the checks, then each seat takes in what it was shown. */
static void changed(struct table *t)
{
    char why[160];
    const char *bad = pd_sim_check_events(&t->state->game, t->ev);
    if (!pd_game_check(&t->state->game, why, sizeof why))
        violation(t, "a change broke an invariant", why);
    if (bad)
        violation(t, bad, NULL);
    for (unsigned i = 0; i < t->ev->n; i++) {
        t->st->events[t->ev->v[i].type]++;
        if (t->ev->v[i].type == PD_EV_TIMED_OUT)
            t->st->timeouts++;
    }
    for (unsigned seat = 0; seat < t->o->players; seat++)
        if (pd_module.seat_view(t->state, seat, t->ev, t->view))
            t->level->observe(t->mind[seat], t->view, t->now);
    if (t->o->roundtrip)
        roundtrip(t);
}

static void apply(struct table *t, const struct pd_action *a)
{
    int err = pd_module.apply(t->state, a, t->now, &t->rng, t->ev);
    if (err) {
        t->st->refused++;
        t->st->errors[err < PD_ERR_COUNT ? err : 0]++;
        if (t->o->verbose)
            fprintf(stderr, "seed %llu: refused %s (action %d card %u)\n",
                    (unsigned long long)t->seed, pd_error_id(err), a->type, a->card);
        return;
    }
    t->st->moves++;
    if (pd_module.has_events(t->ev))
        changed(t);
}

/* The next thing due: the earliest wake (seat), or the game's deadline (-1). */
static int next_due(struct table *t, int64_t *when)
{
    int who = -2;
    *when = INT64_MAX;
    for (unsigned seat = 0; seat < t->o->players; seat++) {
        int64_t w = t->level->wake(t->mind[seat]);
        if (w && w < *when) {
            *when = w;
            who = (int)seat;
        }
    }
    int64_t d = pd_module.deadline(t->state);
    if (d && d < *when) {
        *when = d;
        who = -1;
    }
    return who;
}

static bool step(struct table *t)
{
    int64_t when;
    int who = next_due(t, &when);
    struct pd_action a;
    if (who == -2) {
        violation(t, "nothing is due and the game is not over", NULL);
        return false;
    }
    if (when > t->now)
        t->now = when;
    if (who == -1) {
        pd_module.steer(&a, RULES_TICK, 0, 0);
        apply(t, &a);
        return true;
    }
    pd_module.seat_view(t->state, (unsigned)who, NULL, t->view);
    if (t->level->act(t->mind[who], t->view, t->now, &a))
        apply(t, &a);
    else if (t->level->wake(t->mind[who]) && t->level->wake(t->mind[who]) <= t->now)
        violation(t, "a computer answered nothing and stayed due", NULL);
    return true;
}

static void tally(struct table *t)
{
    const struct pd_game *g = &t->state->game;
    struct rules_result r;
    t->st->games++;
    t->st->turns += g->turns;
    t->st->ends[g->end <= PD_END_PLAYERS ? g->end : 0]++;
    for (unsigned seat = 0; seat < g->nplayers; seat++) {
        pd_module.result(t->state, seat, &r);
        t->st->score_sum += r.score;
        if (r.won)
            t->st->winning_sum += r.score;
        t->st->wins += r.won;
    }
}

uint64_t pd_comp_play(const struct pd_comp_opts *o, uint64_t seed, struct pd_comp_stats *st)
{
    struct table t = {.o = o, .st = st, .seed = seed, .now = 1000000};
    uint64_t before = st->violations;
    t.level = &pd_module.strategies[0];
    t.state = calloc(1, pd_module.state_size);
    t.ev = calloc(1, pd_module.events_size);
    t.view = calloc(1, pd_module.view_size);
    for (unsigned s = 0; s < o->players; s++)
        t.mind[s] = calloc(1, t.level->memory_size);
    rng_seed(&t.rng, seed);
    struct rules_defaults defaults;
    rules_defaults_init(&pd_module, &defaults);
    if (pd_module.init(t.state, o->mode, &defaults) != 0 ||
        pd_module.setup(t.state, o->players, t.now, &t.rng, t.ev) != 0) {
        violation(&t, "setup failed", NULL);
    } else {
        for (unsigned s = 0; s < o->players; s++)
            t.level->start(t.mind[s], rng_next(&t.rng), o->pace);
        changed(&t);
        unsigned steps = 0;
        while (!pd_module.over(t.state) && steps++ < MAX_STEPS && step(&t))
            ;
        if (!pd_module.over(t.state))
            violation(&t, "the game did not end", NULL);
        tally(&t);
    }
    for (unsigned s = 0; s < o->players; s++)
        free(t.mind[s]);
    free(t.state);
    free(t.ev);
    free(t.view);
    return st->violations - before;
}
