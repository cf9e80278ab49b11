/*
 * test_setup.c - setting up a game: refusals, the GM's resources, the first
 * events, determinism, and a property test over many seeded setups.
 */
#include <string.h>

#include "driver.h"
#include "helpers.h"

static enum il_error try_setup(const struct il_config *c, unsigned n)
{
    struct il_game g, g0;
    struct il_events ev;
    struct rng r, r0;
    memset(&g, 0x5a, sizeof g);
    memcpy(&g0, &g, sizeof g);
    rng_seed(&r, 1);
    r0 = r;
    ev.n = 0;
    enum il_error err = il_game_setup(&g, c, n, T0, &r, &ev);
    if (err) {
        assert_memory_equal(&g, &g0, sizeof g);
        assert_memory_equal(&r, &r0, sizeof r);
        assert_int_equal(ev.n, 0);
    }
    return err;
}

static void refusals(void **state)
{
    (void)state;
    struct il_config c;
    il_config_default(&c, IL_VARIANT_STANDARD);
    assert_int_equal(try_setup(&c, 3), IL_ERR_BAD_PLAYER_COUNT);
    assert_int_equal(try_setup(&c, 9), IL_ERR_BAD_PLAYER_COUNT);
    assert_int_equal(try_setup(&c, 0), IL_ERR_BAD_PLAYER_COUNT);

    c.resources = 0x0f; /* four resources for five players */
    assert_int_equal(try_setup(&c, 5), IL_ERR_BAD_RESOURCES);
    c.resources = 0xff;
    assert_int_equal(try_setup(&c, 7), IL_ERR_BAD_RESOURCES);
    c.resources = 0;

    for (unsigned t = 0; t < IL_TIMERS; t++) {
        struct il_config b = c;
        b.timer_ms[t] = IL_TIMER_MIN_MS - 1;
        assert_int_equal(try_setup(&b, 4), IL_ERR_BAD_TIMER);
        b.timer_ms[t] = IL_TIMER_MAX_MS + 1;
        assert_int_equal(try_setup(&b, 4), IL_ERR_BAD_TIMER);
        b.timer_ms[t] = IL_TIMER_MAX_MS;
        assert_int_equal(try_setup(&b, 4), IL_OK);
    }
    struct il_config b = c;
    b.variant = (enum il_variant)9;
    assert_int_equal(try_setup(&b, 4), IL_ERR_BAD_ACTION);
}

static void gm_chooses_resources(void **state)
{
    (void)state;
    struct il_config c;
    il_config_default(&c, IL_VARIANT_STANDARD);
    c.resources = (1u << IL_JEWELRY) | (1u << IL_ALCOHOL) | (1u << IL_PORNOGRAPHY) |
                  (1u << IL_SECRET_FILES) | (1u << IL_CALL_GIRLS) | (1u << IL_POWDER);
    for (uint64_t seed = 0; seed < 50; seed++) {
        struct il_game g;
        struct il_events ev = {0};
        struct rng r;
        rng_seed(&r, seed);
        assert_int_equal(il_game_setup(&g, &c, 6, T0, &r, &ev), IL_OK);
        assert_int_equal(g.in_play, c.resources);
        assert_true(il_game_check(&g, NULL, 0));
    }
}

static void first_events(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 6, IL_VARIANT_STANDARD, 42);
    assert_int_equal(f.ev.n, 1 + 6 + 1);
    const struct il_event *e = &f.ev.v[0];
    assert_int_equal(e->type, IL_EV_GAME_STARTED);
    assert_int_equal(e->audience, IL_PUBLIC);
    assert_int_equal(e->number, 6);
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        assert_int_equal(e->cards.n[r], !!(f.g.in_play & (1u << r)));
    assert_int_equal(il_bundle_total(&e->cards), 6);
    for (unsigned s = 0; s < 6; s++) {
        e = &f.ev.v[1 + s];
        assert_int_equal(e->type, IL_EV_DEALT);
        assert_int_equal(e->audience, (int)s);
        assert_memory_equal(&e->cards, &f.g.players[s].hand, sizeof e->cards);
        assert_int_equal(il_bundle_total(&e->cards), 8);
    }
    e = &f.ev.v[7];
    assert_int_equal(e->type, IL_EV_SESSION_OPENED);
    assert_int_equal(e->audience, IL_PUBLIC);
    assert_int_equal(e->number, 1);
    assert_int_equal(e->deadline, T0 + 180000);
    assert_int_equal(f.g.phase, IL_PHASE_DEALING);
    assert_int_equal(f.g.session, 1);
    assert_int_equal(f.g.drops, 0);
    assert_int_equal(il_game_deadline(&f.g), T0 + 180000);
    assert_int_equal(f.g.next_offer_id, 1);
}

/* Every setup rule, spelled out independently of il_game_check(). */
static void check_setup(const struct il_game *g, enum il_variant v)
{
    char why[160] = "";
    if (!il_game_check(g, why, sizeof why))
        fail_msg("%s", why);
    unsigned n = g->nplayers;
    uint8_t dealers = 0, buyers = 0, extras = 0;
    unsigned per_type[IL_RESOURCES] = {0};
    for (unsigned s = 0; s < n; s++) {
        const struct il_player *p = &g->players[s];
        assert_true(p->active);
        assert_int_not_equal(p->dealer, p->buyer);
        assert_int_not_equal(p->extra, p->dealer);
        assert_int_not_equal(p->extra, p->buyer);
        assert_false(dealers & (1u << p->dealer));
        assert_false(buyers & (1u << p->buyer));
        dealers |= (uint8_t)(1u << p->dealer);
        buyers |= (uint8_t)(1u << p->buyer);
        extras |= (uint8_t)(1u << p->extra);
        for (unsigned o = 0; o < n; o++)
            assert_false(g->players[o].dealer == p->buyer && g->players[o].buyer == p->dealer);
        assert_int_equal(p->hand.n[p->dealer], IL_DEALER_START);
        assert_int_equal(p->hand.n[p->extra], 1);
        assert_int_equal(p->hand.n[IL_CARD(IL_KIND_DEALER, p->dealer)], 1);
        assert_int_equal(p->hand.n[IL_CARD(IL_KIND_BUYER, p->buyer)], 1);
        assert_int_equal(il_bundle_total(&p->hand), 8);
        for (unsigned r = 0; r < IL_RESOURCES; r++)
            per_type[r] += p->hand.n[r];
    }
    assert_int_equal(dealers, g->in_play);
    assert_int_equal(buyers, g->in_play);
    assert_int_equal(extras, g->in_play);
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        assert_int_equal(per_type[r] + ((g->in_play >> r) & 1) * IL_DROPS,
                         ((g->in_play >> r) & 1) * IL_CARDS_PER_TYPE);

    uint8_t seen[IL_CARD_TYPES] = {0};
    if (il_variant_singles(v)) {
        assert_int_equal(g->ncases, 2 * n);
        for (unsigned i = 0; i < g->ncases; i++) {
            assert_int_equal(g->cases[i].ncards, 1);
            seen[g->cases[i].cards[0]]++;
        }
    } else {
        assert_int_equal(g->ncases, n);
        for (unsigned i = 0; i < g->ncases; i++) {
            const struct il_case *k = &g->cases[i];
            assert_int_equal(k->ncards, 2);
            assert_int_equal(IL_CARD_KIND(k->cards[0]), IL_KIND_DEALER_SUSPECT);
            assert_int_equal(IL_CARD_KIND(k->cards[1]), IL_KIND_BUYER_SUSPECT);
            int s = dealer_of(g, IL_CARD_RES(k->cards[0]));
            assert_true(s >= 0);
            assert_int_equal(g->players[s].buyer, IL_CARD_RES(k->cards[1]));
            seen[k->cards[0]]++;
            seen[k->cards[1]]++;
        }
    }
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        unsigned in = (g->in_play >> r) & 1;
        assert_int_equal(seen[IL_CARD(IL_KIND_DEALER_SUSPECT, r)], in);
        assert_int_equal(seen[IL_CARD(IL_KIND_BUYER_SUSPECT, r)], in);
    }
}

static void property_setups(void **state)
{
    (void)state;
    static const enum il_variant variants[] = {IL_VARIANT_STANDARD, IL_VARIANT_ADVANCED,
                                               IL_VARIANT_CASUAL, IL_VARIANT_CASUAL_ADVANCED};
    for (unsigned vi = 0; vi < IL_VARIANTS; vi++) {
        struct il_config c;
        il_config_default(&c, variants[vi]);
        unsigned runs = il_variant_casual(variants[vi]) ? 1000 : 10000;
        for (unsigned n = IL_MIN_PLAYERS; n <= IL_MAX_PLAYERS; n++) {
            unsigned dealer_seat[IL_RESOURCES] = {0};
            for (uint64_t seed = 0; seed < runs; seed++) {
                struct il_game g;
                struct il_events ev = {0};
                struct rng r;
                rng_seed(&r, seed * 31 + n);
                assert_int_equal(il_game_setup(&g, &c, n, T0, &r, &ev), IL_OK);
                check_setup(&g, variants[vi]);
                dealer_seat[g.players[0].dealer]++;
            }
            /* Random resources: seat 0 deals each resource some of the time. */
            for (unsigned res = 0; res < IL_RESOURCES; res++)
                assert_true(dealer_seat[res] > 0);
        }
    }
}

static void same_seed_same_game(void **state)
{
    (void)state;
    struct fx a, b;
    fx_setup(&a, 7, IL_VARIANT_STANDARD, 99);
    fx_setup(&b, 7, IL_VARIANT_STANDARD, 99);
    assert_memory_equal(&a.g, &b.g, sizeof a.g);
    assert_memory_equal(&a.ev, &b.ev, sizeof a.ev.n + a.ev.n * sizeof a.ev.v[0]);
    struct fx c;
    fx_setup(&c, 7, IL_VARIANT_STANDARD, 100);
    assert_memory_not_equal(&a.g, &c.g, sizeof a.g);
}

static void same_seed_same_play(void **state)
{
    (void)state;
    for (unsigned v = 0; v < IL_VARIANTS; v++) {
        struct fx a, b;
        fx_setup(&a, 5, (enum il_variant)v, 5);
        fx_setup(&b, 5, (enum il_variant)v, 5);
        /* The same actions, including drops and verdicts that draw from the rng. */
        while (a.g.phase != IL_PHASE_OVER) {
            if (a.g.phase == IL_PHASE_VOTE) {
                struct il_action vote = act_vote(&a, 0, 1);
                fx_ok(&a, &vote);
                fx_ok(&b, &vote);
            }
            fx_tick(&a);
            fx_tick(&b);
            assert_memory_equal(&a.g, &b.g, sizeof a.g);
            assert_memory_equal(&a.rng, &b.rng, sizeof a.rng);
            assert_int_equal(a.ev.n, b.ev.n);
            assert_memory_equal(a.ev.v, b.ev.v, a.ev.n * sizeof a.ev.v[0]);
        }
    }
}

static void same_seed_same_random_game(void **state)
{
    (void)state;
    for (unsigned v = 0; v < IL_VARIANTS; v++) {
        struct sim_opts o = {.players = 6, .variant = (enum il_variant)v, .verify = true};
        struct sim_stats st = {0};
        struct il_game a, b;
        assert_int_equal(sim_play(&o, 1234, &st, &a), 0);
        assert_int_equal(sim_play(&o, 1234, &st, &b), 0);
        assert_memory_equal(&a, &b, sizeof a);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refusals),
        cmocka_unit_test(gm_chooses_resources),
        cmocka_unit_test(first_events),
        cmocka_unit_test(property_setups),
        cmocka_unit_test(same_seed_same_game),
        cmocka_unit_test(same_seed_same_play),
        cmocka_unit_test(same_seed_same_random_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
