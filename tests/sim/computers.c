/*
 * computers.c - games of computer players on a virtual clock.
 *
 * The loop is a host's (core/strategy.h): after every change each seat
 * takes in what it was shown; the clock jumps to the earliest of the
 * computers' wake times, the Game Master's next move and the game's
 * deadline, and whichever is due acts, computers first. Every accepted
 * change must keep every invariant; every refused one must change nothing.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "computers.h"

/* A game that has not ended after this many steps is stuck. */
#define CPU_MAX_STEPS 100000
#define T0            1000000
#define HOLD_MS       30000 /* how long the simulator's GM leaves a held tribunal */

static void violation(struct cpu_sim *s, const char *what, const char *why)
{
    if (s->violations++ < 3)
        fprintf(stderr, "seed %llu step %llu: %s%s%s\n", (unsigned long long)s->seed,
                (unsigned long long)s->steps, what, why ? ": " : "", why ? why : "");
}

const struct rules_strategy *cpu_level(const char *id)
{
    for (const struct rules_strategy *l = il_strategies; l->id; l++)
        if (strcmp(l->id, id) == 0)
            return l;
    return NULL;
}

static int64_t earliest(int64_t a, int64_t b)
{
    return !a || (b && b < a) ? b : a;
}

/* -- Storing and reading back, as a restart does --------------------------- */

static struct json_object *reparse(struct json_object *o)
{
    struct json_object *back = json_tokener_parse(json_object_to_json_string(o));
    json_object_put(o);
    return back;
}

/* The game goes on from what was read back, as after a restart. */
static void roundtrip_game(struct cpu_sim *s)
{
    struct il_game back;
    struct json_object *j = reparse(il_game_to_json(&s->g));
    if (!j || il_game_from_json(&back, j) != IL_OK || memcmp(&back, &s->g, sizeof back) != 0)
        violation(s, "the game changed through its stored form", NULL);
    else
        memcpy(&s->g, &back, sizeof back);
    json_object_put(j);
}

static void roundtrip_memory(struct cpu_sim *s, unsigned p)
{
    const struct rules_strategy *l = s->level[p];
    uint64_t back[CPU_MEMORY_MAX / 8];
    char why[128] = "";
    struct json_object *j = json_object_new_object();
    if (!j || l->save(s->memory[p], j) < 0 || !(j = reparse(j)) ||
        l->load(back, j, why, sizeof why) < 0 || memcmp(back, s->memory[p], l->memory_size) != 0)
        violation(s, "a memory changed through its stored form", why);
    else
        memcpy(s->memory[p], back, l->memory_size);
    json_object_put(j);
}

static void roundtrip(struct cpu_sim *s)
{
    roundtrip_game(s);
    for (unsigned p = 0; p < s->g.nplayers; p++)
        roundtrip_memory(s, p);
}

/* -- Changes ----------------------------------------------------------------- */

/* Every seat takes in what the change showed it. */
static void observe_all(struct cpu_sim *s, const struct il_events *ev)
{
    for (unsigned p = 0; p < s->g.nplayers; p++)
        if (il_view_build(&s->g, p, ev, &s->view))
            s->level[p]->observe(s->memory[p], &s->view, s->now);
}

static unsigned level_index(struct cpu_stats *st, const char *id)
{
    unsigned i = 0;
    while (i < CPU_LEVELS_MAX - 1 && st->ids[i] && strcmp(st->ids[i], id) != 0)
        i++;
    st->ids[i] = id;
    return i;
}

/* Counts the offers each level made, and those accepted. */
static void count_offers(struct cpu_sim *s, const struct il_events *ev)
{
    for (unsigned i = 0; i < ev->n; i++) {
        const struct il_event *e = &ev->v[i];
        if (e->audience != e->player || e->player < 0 ||
            (e->type != IL_EV_OFFER_MADE && e->type != IL_EV_OFFER_ACCEPTED))
            continue;
        unsigned l = level_index(s->st, s->level[e->player]->id);
        (e->type == IL_EV_OFFER_MADE ? s->st->offers : s->st->accepted)[l]++;
    }
}

/* Applies a; returns the engine's answer, having checked either outcome. */
static enum il_error apply(struct cpu_sim *s, const struct il_action *a, struct il_events *ev)
{
    static const struct il_event blank;
    struct il_game before = s->g;
    struct rng rng_before = s->game_rng;
    char why[160];
    ev->n = 0;
    ev->v[0] = blank;
    enum il_error err = il_game_apply(&s->g, a, s->now, &s->game_rng, ev);
    if (err) {
        if (memcmp(&before, &s->g, sizeof before) ||
            memcmp(&rng_before, &s->game_rng, sizeof rng_before) || ev->n ||
            memcmp(&ev->v[0], &blank, sizeof blank))
            violation(s, "a refused action changed something", il_error_id(err));
        return err;
    }
    if (!il_game_check(&s->g, why, sizeof why))
        violation(s, "an accepted action broke an invariant", why);
    count_offers(s, ev);
    observe_all(s, ev);
    if (s->o->roundtrip)
        roundtrip(s); /* what a commit stores: the game and every memory */
    if (s->o->on_change)
        s->o->on_change(s, ev, s->o->arg);
    return IL_OK;
}

/* -- Who moves ---------------------------------------------------------------- */

/* The computer whose wake comes first (the lowest seat among ties), or -1. */
static int first_awake(const struct cpu_sim *s, int64_t *at)
{
    int who = -1;
    for (unsigned p = 0; p < s->g.nplayers; p++) {
        int64_t w = s->g.players[p].active ? s->level[p]->wake(s->memory[p]) : 0;
        if (w && (who < 0 || w < *at)) {
            who = (int)p;
            *at = w;
        }
    }
    return who;
}

/* Asks seat p for its move on a copy of its memory, and keeps the answer
 * to hold the real one to. */
static bool rehearse(struct cpu_sim *s, unsigned p, struct il_action *a, uint64_t *memory)
{
    memcpy(memory, s->memory[p], s->level[p]->memory_size);
    return s->level[p]->act(memory, &s->view, s->now, a);
}

/* Asks seat p for its move; with opts.rehearse, twice. */
static bool ask(struct cpu_sim *s, unsigned p, struct il_action *a)
{
    uint64_t memory[CPU_MEMORY_MAX / 8];
    struct il_action first;
    bool rehearsed = s->o->rehearse && rehearse(s, p, &first, memory);
    bool moved = s->level[p]->act(s->memory[p], &s->view, s->now, a);
    if (s->o->rehearse && (moved != rehearsed || (moved && memcmp(a, &first, sizeof first)) ||
                           memcmp(memory, s->memory[p], s->level[p]->memory_size)))
        violation(s, "a computer asked again decided otherwise", s->level[p]->id);
    return moved;
}

static void computer_moves(struct cpu_sim *s, unsigned p, struct il_events *ev,
                           struct cpu_stats *st)
{
    struct il_action a;
    for (unsigned n = 0; n < RULES_ACTS_IN_A_ROW; n++) {
        il_view_build(&s->g, p, NULL, &s->view);
        if (!ask(s, p, &a))
            break;
        enum il_error err = apply(s, &a, ev);
        st->actions++;
        if (err && (unsigned)err < IL_ERR_COUNT)
            st->refused[err]++;
        int64_t wake = s->level[p]->wake(s->memory[p]);
        if (!wake || wake > s->now)
            return;
    }
    int64_t wake = s->level[p]->wake(s->memory[p]);
    if (wake && wake <= s->now)
        violation(s, "a computer keeps asking to act and does not", s->level[p]->id);
}

/* The Game Master's next move: resume a pause, open a held tribunal, or
 * (with opts.gm) step in at some time. */
static void plan_gm(struct cpu_sim *s)
{
    if (s->gm_at)
        return;
    if (s->g.paused)
        s->gm_at = s->now + 5000 + rng_below(&s->pick, 120000);
    else if (s->g.phase == IL_PHASE_HOLD && !s->g.deadline)
        s->gm_at = s->now + HOLD_MS;
    else if (s->o->gm)
        s->gm_at = s->now + 20000 + rng_below(&s->pick, 300000);
}

static enum il_action_type gm_whim(struct cpu_sim *s, struct il_action *a)
{
    unsigned r = rng_below(&s->pick, 100);
    if (r < 25)
        return IL_ACT_PAUSE;
    if (r < 45) {
        a->ms = 1000 + rng_below(&s->pick, 60000);
        return IL_ACT_EXTEND;
    }
    if (r < 70)
        return IL_ACT_NEXT;
    if (r < 80) {
        a->timer = (enum il_timer)rng_below(&s->pick, IL_TIMERS);
        a->ms = IL_TIMER_MIN_MS + rng_below(&s->pick, 120000);
        return IL_ACT_SET_TIMER;
    }
    if (r < 90) {
        a->ms = 1000 + rng_below(&s->pick, 600000);
        return IL_ACT_SCHEDULE;
    }
    if (r < 99) {
        a->target = (int8_t)rng_below(&s->pick, s->g.nplayers);
        return IL_ACT_KICK;
    }
    return IL_ACT_END;
}

static void gm_moves(struct cpu_sim *s, struct il_events *ev)
{
    struct il_action a = {.player = IL_GM, .target = IL_NOBODY};
    s->gm_at = 0;
    if (s->g.paused)
        a.type = IL_ACT_RESUME;
    else if (s->g.phase == IL_PHASE_HOLD && !s->g.deadline)
        a.type = IL_ACT_NEXT;
    else
        a.type = gm_whim(s, &a);
    apply(s, &a, ev); /* a whim may be refused (a kick of a seat gone): no matter */
}

static void tick(struct cpu_sim *s, struct il_events *ev)
{
    struct il_action a = {.type = IL_ACT_TICK, .player = IL_GM, .target = IL_NOBODY};
    if (apply(s, &a, ev) != IL_OK)
        violation(s, "a tick was refused", NULL);
}

/* One step of the clock: the first thing due moves. False when nothing is. */
static bool step(struct cpu_sim *s, struct il_events *ev, struct cpu_stats *st)
{
    int64_t wake = 0;
    plan_gm(s);
    int who = first_awake(s, &wake);
    int64_t next = earliest(earliest(wake, s->gm_at), s->g.deadline);
    if (!next)
        return false;
    if (next > s->now)
        s->now = next;
    if (who >= 0 && wake <= s->now)
        computer_moves(s, (unsigned)who, ev, st);
    else if (s->gm_at && s->gm_at <= s->now)
        gm_moves(s, ev);
    else
        tick(s, ev);
    return true;
}

/* -- A whole game --------------------------------------------------------------- */

static bool start(struct cpu_sim *s, struct il_events *ev)
{
    struct il_config cfg;
    il_config_default(&cfg, s->o->variant);
    cfg.tribunal =
        (uint8_t)(s->o->tribunal == CPU_TRIBUNAL_BY_SEED ? s->seed % (1u << IL_TRIBUNAL_OPTIONS)
                                                         : s->o->tribunal);
    enum il_error err = il_game_setup(&s->g, &cfg, s->o->players, s->now, &s->game_rng, ev);
    if (err) {
        violation(s, "setup failed", il_error_id(err));
        return false;
    }
    /* The levels sit in a new order each game. */
    uint8_t order[IL_MAX_PLAYERS];
    for (unsigned p = 0; p < s->o->players; p++)
        order[p] = (uint8_t)p;
    rng_shuffle_bytes(&s->pick, order, s->o->players);
    for (unsigned p = 0; p < s->o->players; p++) {
        s->level[p] = s->o->levels[order[p]];
        if (s->level[p]->memory_size > CPU_MEMORY_MAX)
            violation(s, "a memory does not fit", s->level[p]->id);
        s->level[p]->start(s->memory[p], rng_next(&s->pick), s->o->pace);
    }
    observe_all(s, ev);
    return true;
}

static void tally(const struct cpu_sim *s, struct cpu_stats *st)
{
    int top = INT16_MIN;
    unsigned winners = 0;
    for (unsigned p = 0; p < s->g.nplayers; p++)
        if (s->g.players[p].active && s->g.players[p].score > top)
            top = s->g.players[p].score;
    for (unsigned p = 0; p < s->g.nplayers; p++)
        winners += s->g.players[p].active && s->g.players[p].score == top;
    for (unsigned p = 0; p < s->g.nplayers; p++) {
        unsigned i = level_index(st, s->level[p]->id);
        bool active = s->g.players[p].active;
        st->seats[i]++;
        st->score[i] += s->g.players[p].score;
        struct il_score_parts parts = il_score_parts(&s->g, p);
        st->found[i] += active && parts.right > 0;
        st->goods[i] += parts.resources;
        st->wrong[i] += parts.wrong;
        st->right[i] += parts.right;
        if (active && s->g.players[p].score == top && !s->g.aborted)
            st->wins[i] += 1.0 / winners; /* nobody wins a game ended early */
    }
}

uint64_t cpu_play(const struct cpu_opts *o, uint64_t seed, struct cpu_stats *st)
{
    struct cpu_sim *s = calloc(1, sizeof *s);
    struct il_events *ev = calloc(1, sizeof *ev);
    uint64_t violations = 1;
    if (!s || !ev)
        goto done;
    s->o = o;
    s->st = st;
    s->seed = seed;
    s->now = T0;
    rng_seed(&s->game_rng, seed);
    rng_seed(&s->pick, seed ^ 0xc0ffee5eedULL);
    if (start(s, ev)) {
        while (s->g.phase != IL_PHASE_OVER && s->steps < CPU_MAX_STEPS && step(s, ev, st))
            s->steps++;
        if (s->g.phase != IL_PHASE_OVER)
            violation(s, "the game stalled", il_phase_id(s->g.phase));
        else
            tally(s, st);
    }
    st->games++;
    st->trades += s->g.ntrades;
    st->steps += s->steps;
    st->game_ms += s->now - T0;
    st->violations += s->violations;
    violations = s->violations;
done:
    free(s);
    free(ev);
    return violations;
}
