/*
 * driver.c - the random player behind illegal-sim, bench-core and the
 * property tests.
 */
#include <stdio.h>
#include <string.h>

#include "driver.h"
#include "sim_common.h"

/* A game that has not ended after this many actions is stuck. */
#define SIM_MAX_ACTIONS 200000

struct sim {
    const struct sim_opts *o;
    struct il_game g;
    struct rng game_rng; /* the engine's */
    struct rng pick;     /* the driver's own choices */
    struct il_events ev;
    int64_t now;
    struct sim_stats *st;
    uint64_t violations;
    uint64_t seed;
};

/* The seats still playing, a bit each. */
static uint32_t active_seats(const struct sim *s)
{
    uint32_t active = 0;
    for (unsigned i = 0; i < s->g.nplayers; i++)
        active |= (uint32_t)s->g.players[i].active << i;
    return active;
}

static bool chance(struct sim *s, unsigned per_mille)
{
    return sim_chance(&s->pick, per_mille);
}

static void violation(struct sim *s, const char *what, const char *why)
{
    sim_violation(&s->violations, s->seed, what, why);
}

static int random_active(struct sim *s)
{
    return sim_random_seat(&s->pick, s->g.nplayers, active_seats(s));
}

static int random_other(struct sim *s, int not_this)
{
    return sim_random_other(&s->pick, s->g.nplayers, active_seats(s), not_this);
}

static unsigned random_in_play(struct sim *s)
{
    for (;;) {
        unsigned r = rng_below(&s->pick, IL_RESOURCES);
        if (s->g.in_play & (1u << r))
            return r;
    }
}

/* Up to `max` resource cards taken from hand. */
static void pick_from_hand(struct sim *s, const struct il_bundle *hand, unsigned max,
                           struct il_bundle *out)
{
    struct il_bundle left = *hand;
    unsigned k = rng_below(&s->pick, max + 1);
    for (unsigned i = 0; i < k; i++) {
        unsigned r = random_in_play(s);
        if (left.n[r]) {
            left.n[r]--;
            out->n[r]++;
        }
    }
}

static void fuzz(struct sim *s, struct il_action *a)
{
    a->type = (enum il_action_type)rng_below(&s->pick, IL_ACT_SCHEDULE + 3);
    a->player = chance(s, 300) ? IL_GM : (int8_t)((int)rng_below(&s->pick, 12) - 2);
    if ((a->type == IL_ACT_END || a->type == IL_ACT_KICK) && a->player == IL_GM)
        a->player = 0; /* keep games going: the GM ends or kicks on purpose only */
    a->target = (int8_t)((int)rng_below(&s->pick, 12) - 2);
    a->offer_id = rng_below(&s->pick, s->g.next_offer_id + 2);
    for (unsigned i = rng_below(&s->pick, 3); i > 0; i--)
        a->give.n[rng_below(&s->pick, IL_CARD_TYPES)]++;
    for (unsigned i = rng_below(&s->pick, 3); i > 0; i--)
        a->ask.n[rng_below(&s->pick, IL_CARD_TYPES)]++;
    a->resource = (uint8_t)rng_below(&s->pick, IL_RESOURCES + 2);
    a->timer = (enum il_timer)rng_below(&s->pick, IL_TIMERS + 1);
    a->ms = chance(s, 100) ? IL_TIMER_MAX_MS + 1 - (int64_t)rng_below(&s->pick, 3)
                           : (int64_t)rng_below(&s->pick, 4000000) - 2000000;
    a->number = (uint8_t)rng_below(&s->pick, IL_MAX_CASES + 2);
    a->at = chance(s, 100) ? 0 : s->now + (int64_t)rng_below(&s->pick, 4000000) - 2000000;
}

/* A vote on a case that is open now, or now and then on one that is not. */
static void choose_vote(struct sim *s, struct il_action *a)
{
    const struct il_game *g = &s->g;
    a->type = chance(s, 100) ? IL_ACT_ABSTAIN : IL_ACT_VOTE;
    a->target = chance(s, 20) ? a->player : (int8_t)random_other(s, a->player);
    a->number = g->case_index;
    if (g->config.tribunal & IL_TRIBUNAL_PARALLEL)
        a->number = (uint8_t)(g->case_index + rng_below(&s->pick, g->ncases - g->case_index));
    if (chance(s, 20))
        a->number = (uint8_t)rng_below(&s->pick, IL_MAX_CASES + 1);
}

static void tick_to_deadline(struct sim *s, struct il_action *a)
{
    a->type = IL_ACT_TICK;
    if (s->g.deadline > s->now && chance(s, 900))
        s->now = s->g.deadline;
}

/* Now and then the GM steps in; returns true when they do. */
static bool choose_gm(struct sim *s, struct il_action *a)
{
    a->player = IL_GM;
    if (s->g.paused) {
        if (chance(s, 300)) {
            a->type = IL_ACT_RESUME;
        } else if (chance(s, 100)) {
            a->type = IL_ACT_EXTEND;
            a->ms = 1000 + rng_below(&s->pick, 60000);
        } else {
            return false;
        }
        return true;
    }
    unsigned r = rng_below(&s->pick, 10000);
    if (r < 100) {
        a->type = IL_ACT_PAUSE;
    } else if (r < 200) {
        a->type = IL_ACT_EXTEND;
        a->ms = 1000 + rng_below(&s->pick, 60000);
    } else if (r < 400) {
        a->type = IL_ACT_NEXT;
    } else if (r < 450) {
        a->type = IL_ACT_SET_TIMER;
        a->timer = (enum il_timer)rng_below(&s->pick, IL_TIMERS);
        a->ms = IL_TIMER_MIN_MS + rng_below(&s->pick, 600000);
    } else if (r < 460) {
        a->type = IL_ACT_KICK;
        a->target = (int8_t)random_active(s);
    } else if (r < 462) {
        a->type = IL_ACT_END;
    } else if (r < 480) {
        a->type = IL_ACT_SCHEDULE;
        a->at = chance(s, 200) ? 0 : s->now + (int64_t)rng_below(&s->pick, 1200000) - 60000;
    } else {
        return false;
    }
    return true;
}

/* What a player could sensibly try in the current phase. */
static void choose_play(struct sim *s, struct il_action *a)
{
    struct il_game *g = &s->g;
    a->player = (int8_t)random_active(s);
    switch (g->phase) {
    case IL_PHASE_DEALING:
        if (chance(s, 25)) {
            tick_to_deadline(s, a);
        } else if (g->noffers && chance(s, 300)) {
            const struct il_offer *o = &g->offers[rng_below(&s->pick, g->noffers)];
            unsigned r = rng_below(&s->pick, 10);
            a->type = r < 6 ? IL_ACT_ACCEPT : r < 8 ? IL_ACT_DECLINE : IL_ACT_CANCEL;
            a->player = (int8_t)(a->type == IL_ACT_CANCEL ? o->from : o->to);
            if (chance(s, 50))
                a->player = (int8_t)random_active(s);
            a->offer_id = o->id;
        } else {
            a->type = IL_ACT_OFFER;
            a->target = (int8_t)random_other(s, a->player);
            if (chance(s, 20))
                a->give.n[random_in_play(s)] += 3;
            else
                pick_from_hand(s, &g->players[a->player].hand, 3, &a->give);
            for (unsigned i = rng_below(&s->pick, 3); i > 0; i--)
                a->ask.n[random_in_play(s)]++;
        }
        break;
    case IL_PHASE_DROP_GRAB:
        if (chance(s, 150)) {
            tick_to_deadline(s, a);
        } else {
            a->type = IL_ACT_GRAB;
            a->resource = (uint8_t)random_in_play(s);
        }
        break;
    case IL_PHASE_DEBATE:
    case IL_PHASE_VOTE:
        if (chance(s, g->phase == IL_PHASE_VOTE ? 150 : 300))
            tick_to_deadline(s, a);
        else
            choose_vote(s, a);
        break;
    default:
        if (chance(s, 50)) {
            a->type = IL_ACT_GRAB;
            a->resource = (uint8_t)random_in_play(s);
        } else {
            tick_to_deadline(s, a);
        }
        break;
    }
}

static void choose(struct sim *s, struct il_action *a)
{
    memset(a, 0, sizeof *a);
    a->target = IL_NOBODY;
    s->now += rng_below(&s->pick, 400);
    if (chance(s, 80))
        fuzz(s, a);
    else if (!choose_gm(s, a))
        choose_play(s, a);
}

static void check_rejected(struct sim *s, enum il_error err, const struct il_game *before,
                           const struct rng *rng_before, const struct il_event *first)
{
    if (memcmp(before, &s->g, sizeof *before) != 0)
        violation(s, "a rejected action changed the game", il_error_id(err));
    if (memcmp(rng_before, &s->game_rng, sizeof *rng_before) != 0)
        violation(s, "a rejected action drew from the rng", il_error_id(err));
    if (s->ev.n != 0 || memcmp(first, &s->ev.v[0], sizeof *first) != 0)
        violation(s, "a rejected action touched the events", il_error_id(err));
}

static void check_end(struct sim *s)
{
    const struct il_game *g = &s->g;
    const struct il_event *over = NULL;
    for (unsigned i = 0; i < s->ev.n; i++)
        if (s->ev.v[i].type == IL_EV_GAME_OVER)
            over = &s->ev.v[i];
    if (!over) {
        violation(s, "the game ended without GAME_OVER", NULL);
        return;
    }
    int top = INT16_MIN;
    for (unsigned p = 0; p < g->nplayers; p++)
        if (g->players[p].active && il_score(g, p) > top)
            top = il_score(g, p);
    for (unsigned p = 0; p < g->nplayers; p++) {
        bool active = g->players[p].active;
        int want = active ? il_score(g, p) : 0;
        bool winner = active && want == top && !g->aborted; /* nobody wins an aborted game */
        if (g->players[p].score != want || over->scores[p] != want)
            violation(s, "a final score differs from il_score", NULL);
        if (!!(over->winners & (1u << p)) != winner)
            violation(s, "the winners are wrong", NULL);
        if (!active && over->rank[p] != 0)
            violation(s, "a removed player is ranked", NULL);
    }
}

/* A finished game refuses everything but a tick, and a tick does nothing. */
static void check_after_end(struct sim *s)
{
    struct il_game before;
    struct rng rng_before = s->game_rng;
    memcpy(&before, &s->g, sizeof before);
    for (unsigned i = 0; i < 4; i++) {
        struct il_action a;
        fuzz(s, &a);
        s->ev.n = 0;
        enum il_error err = il_game_apply(&s->g, &a, s->now, &s->game_rng, &s->ev);
        enum il_error want = a.type == IL_ACT_TICK                ? IL_OK
                             : (unsigned)a.type > IL_ACT_SCHEDULE ? IL_ERR_BAD_ACTION
                                                                  : IL_ERR_GAME_OVER;
        if (err != want || s->ev.n || memcmp(&before, &s->g, sizeof before) ||
            memcmp(&rng_before, &s->game_rng, sizeof rng_before))
            violation(s, "a finished game took an action", il_error_id(err));
        if (err)
            s->st->errors[err]++;
    }
}

uint64_t sim_play(const struct sim_opts *o, uint64_t seed, struct sim_stats *st,
                  struct il_game *out)
{
    static const struct il_event blank;
    struct sim s;
    memset(&s, 0, sizeof s);
    s.o = o;
    s.st = st;
    s.seed = seed;
    s.now = 1000000;
    rng_seed(&s.game_rng, seed);
    rng_seed(&s.pick, seed ^ 0x5eed5eed5eed5eedULL);

    struct il_config cfg;
    il_config_default(&cfg, o->variant);
    /* Every combination of tribunal options, a seed each. */
    cfg.tribunal = (uint8_t)(seed % (1u << IL_TRIBUNAL_OPTIONS));
    char why[160];
    enum il_error err = il_game_setup(&s.g, &cfg, o->players, s.now, &s.game_rng, &s.ev);
    if (err) {
        violation(&s, "setup failed", il_error_id(err));
        return s.violations;
    }
    if (o->verify && !il_game_check(&s.g, why, sizeof why))
        violation(&s, "setup breaks an invariant", why);

    uint64_t actions = 0;
    struct il_game before;
    while (s.g.phase != IL_PHASE_OVER && actions < SIM_MAX_ACTIONS) {
        struct il_action a;
        choose(&s, &a);
        s.ev.n = 0;
        struct rng rng_before = s.game_rng;
        if (o->verify) {
            memcpy(&before, &s.g, sizeof before);
            s.ev.v[0] = blank;
        }
        err = il_game_apply(&s.g, &a, s.now, &s.game_rng, &s.ev);
        actions++;
        if (err) {
            st->rejected++;
            if ((unsigned)err < IL_ERR_COUNT)
                st->errors[err]++;
            if (o->verify)
                check_rejected(&s, err, &before, &rng_before, &blank);
            continue;
        }
        st->accepted[a.type]++;
        if (o->verify && !il_game_check(&s.g, why, sizeof why))
            violation(&s, "an accepted action broke an invariant", why);
        if (o->on_state)
            o->on_state(&s.g, o->arg);
    }
    if (s.g.phase != IL_PHASE_OVER)
        violation(&s, "the game did not end", NULL);
    else if (o->verify)
        check_end(&s);
    if (s.g.phase == IL_PHASE_OVER && o->verify)
        check_after_end(&s);

    st->games++;
    st->actions += actions;
    st->violations += s.violations;
    if (out)
        memcpy(out, &s.g, sizeof *out);
    return s.violations;
}
