/*
 * helpers.c - the fixture behind the core tests.
 */
#include <string.h>

#include "helpers.h"

void fx_setup(struct fx *f, unsigned players, enum il_variant v, uint64_t seed)
{
    fx_setup_tribunal(f, players, v, seed, 0);
}

void fx_setup_tribunal(struct fx *f, unsigned players, enum il_variant v, uint64_t seed,
                       unsigned options)
{
    struct il_config c;
    memset(f, 0, sizeof *f);
    il_config_default(&c, v);
    c.tribunal = (uint8_t)options;
    rng_seed(&f->rng, seed);
    f->now = T0;
    assert_int_equal(il_game_setup(&f->g, &c, players, f->now, &f->rng, &f->ev), IL_OK);
    char why[160] = "";
    if (!il_game_check(&f->g, why, sizeof why))
        fail_msg("setup: %s", why);
}

enum il_error fx_apply(struct fx *f, const struct il_action *a)
{
    struct il_game before;
    struct rng rng_before = f->rng;
    struct il_event first;
    memcpy(&before, &f->g, sizeof before);
    f->ev.n = 0;
    memset(&f->ev.v[0], 0xa5, sizeof f->ev.v[0]);
    memcpy(&first, &f->ev.v[0], sizeof first);

    enum il_error err = il_game_apply(&f->g, a, f->now, &f->rng, &f->ev);
    if (err) {
        assert_memory_equal(&before, &f->g, sizeof before);
        assert_memory_equal(&rng_before, &f->rng, sizeof rng_before);
        assert_int_equal(f->ev.n, 0);
        assert_memory_equal(&first, &f->ev.v[0], sizeof first);
    } else {
        char why[160] = "";
        if (!il_game_check(&f->g, why, sizeof why))
            fail_msg("after action %d: %s", (int)a->type, why);
    }
    return err;
}

void fx_refuse(struct fx *f, const struct il_action *a, enum il_error want)
{
    enum il_error err = fx_apply(f, a);
    if (err != want)
        fail_msg("expected %s, got %s", il_error_id(want), il_error_id(err));
}

void fx_ok(struct fx *f, const struct il_action *a)
{
    enum il_error err = fx_apply(f, a);
    if (err != IL_OK)
        fail_msg("expected ok, got %s", il_error_id(err));
}

void fx_tick(struct fx *f)
{
    assert_false(f->g.paused);
    assert_int_not_equal(f->g.deadline, 0);
    if (f->now < f->g.deadline)
        f->now = f->g.deadline;
    struct il_action a = act(IL_ACT_TICK, 0);
    fx_ok(f, &a);
}

void fx_until(struct fx *f, enum il_phase phase, unsigned session)
{
    for (int i = 0; i < 1000; i++) {
        if (f->g.phase == phase && (session == 0 || f->g.session == session))
            return;
        assert_int_not_equal(f->g.phase, IL_PHASE_OVER);
        fx_tick(f);
    }
    fail_msg("phase %s never came", il_phase_id(phase));
}

const struct il_event *fx_event(const struct fx *f, enum il_event_type type, unsigned n)
{
    for (unsigned i = 0; i < f->ev.n; i++)
        if (f->ev.v[i].type == type && n-- == 0)
            return &f->ev.v[i];
    return NULL;
}

const struct il_event *fx_event_for(const struct fx *f, enum il_event_type type, int audience)
{
    for (unsigned i = 0; i < f->ev.n; i++)
        if (f->ev.v[i].type == type && f->ev.v[i].audience == audience)
            return &f->ev.v[i];
    return NULL;
}

unsigned fx_count(const struct fx *f, enum il_event_type type)
{
    unsigned n = 0;
    for (unsigned i = 0; i < f->ev.n; i++)
        n += f->ev.v[i].type == type;
    return n;
}

struct il_action act(enum il_action_type type, int player)
{
    struct il_action a;
    memset(&a, 0, sizeof a);
    a.type = type;
    a.player = (int8_t)player;
    a.target = IL_NOBODY;
    return a;
}

struct il_action act_offer(int from, int to, const struct il_bundle *give,
                           const struct il_bundle *ask)
{
    struct il_action a = act(IL_ACT_OFFER, from);
    a.target = (int8_t)to;
    if (give)
        a.give = *give;
    if (ask)
        a.ask = *ask;
    return a;
}

struct il_action act_target(enum il_action_type type, int player, int target)
{
    struct il_action a = act(type, player);
    a.target = (int8_t)target;
    return a;
}

struct il_action act_vote(const struct fx *f, int player, int target)
{
    struct il_action a = act_target(target == IL_ABSTAINED ? IL_ACT_ABSTAIN : IL_ACT_VOTE, player,
                                    target == IL_ABSTAINED ? IL_NOBODY : target);
    a.number = f->g.case_index;
    return a;
}

struct il_action act_offer_id(enum il_action_type type, int player, uint32_t id)
{
    struct il_action a = act(type, player);
    a.offer_id = id;
    return a;
}

struct il_action act_grab(int player, unsigned res)
{
    struct il_action a = act(IL_ACT_GRAB, player);
    a.resource = (uint8_t)res;
    return a;
}

struct il_action act_gm(enum il_action_type type)
{
    return act(type, IL_GM);
}

struct il_bundle one(unsigned type, unsigned count)
{
    struct il_bundle b;
    memset(&b, 0, sizeof b);
    b.n[type] = (uint8_t)count;
    return b;
}

unsigned not_in_play(const struct il_game *g)
{
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (!(g->in_play & (1u << r)))
            return r;
    fail_msg("every resource is in play");
    return 0;
}

int dealer_of(const struct il_game *g, unsigned res)
{
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].dealer == res)
            return (int)s;
    return -1;
}
