/*
 * test_drop.c - the resource drops: reveal, grab, leftovers, casual draws.
 */
#include <string.h>

#include "helpers.h"

static unsigned resources_held(const struct il_game *g, unsigned s)
{
    unsigned n = 0;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        n += g->players[s].hand.n[r];
    return n;
}

static unsigned discarded_resources(const struct il_game *g)
{
    unsigned n = 0;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        n += g->discard.n[r];
    return n;
}

static void reveal_one_by_one(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 21);
    fx_tick(&f);
    assert_int_equal(f.g.phase, IL_PHASE_DROP_REVEAL);
    assert_int_equal(f.g.drops, 1);
    const struct il_event *e = fx_event(&f, IL_EV_DROP_STARTED, 0);
    assert_non_null(e);
    assert_int_equal(e->audience, IL_PUBLIC);
    assert_int_equal(e->number, 1);
    assert_int_equal(il_bundle_total(&e->cards), 4);
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        assert_int_equal(e->cards.n[r], (f.g.in_play >> r) & 1);
    e = fx_event(&f, IL_EV_DROP_REVEALED, 0);
    assert_non_null(e);
    assert_int_equal(e->number, 0);
    assert_int_equal(e->resource, f.g.drop_cards[0]);
    assert_int_equal(f.g.drop_shown, 1);
    assert_int_equal(f.g.deadline, f.now + 2000);

    uint8_t seen = 0;
    seen |= (uint8_t)(1u << f.g.drop_cards[0]);
    struct il_action grab = act_grab(0, f.g.drop_cards[0]);
    for (unsigned i = 1; i < 4; i++) {
        fx_refuse(&f, &grab, IL_ERR_GRAB_NOT_OPEN);
        fx_tick(&f);
        e = fx_event(&f, IL_EV_DROP_REVEALED, 0);
        assert_non_null(e);
        assert_int_equal(e->number, i);
        assert_int_equal(e->resource, f.g.drop_cards[i]);
        seen |= (uint8_t)(1u << e->resource);
    }
    assert_int_equal(seen, f.g.in_play);
    assert_int_equal(f.g.phase, IL_PHASE_DROP_GRAB);
    e = fx_event(&f, IL_EV_GRAB_OPENED, 0);
    assert_non_null(e);
    assert_int_equal(e->deadline, f.now + 30000);
    assert_int_equal(f.g.deadline, f.now + 30000);
    assert_int_equal(f.ev.v[f.ev.n - 1].type, IL_EV_GRAB_OPENED);
}

static void grab_rules(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 22);
    fx_until(&f, IL_PHASE_DROP_GRAB, 1);
    unsigned r = f.g.drop_cards[2];
    unsigned before = resources_held(&f.g, 0);

    struct il_action a = act_grab(0, IL_RESOURCES);
    fx_refuse(&f, &a, IL_ERR_BAD_ACTION);
    a = act_grab(IL_GM, r);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_grab(4, r);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_grab(0, not_in_play(&f.g));
    fx_refuse(&f, &a, IL_ERR_NOT_IN_PLAY);

    a = act_grab(0, r);
    fx_ok(&f, &a);
    assert_int_equal(f.ev.n, 2);
    assert_int_equal(f.ev.v[0].type, IL_EV_GRABBED);
    assert_int_equal(f.ev.v[0].audience, IL_PUBLIC);
    assert_int_equal(f.ev.v[0].player, 0);
    assert_int_equal(f.ev.v[0].resource, r);
    assert_int_equal(f.ev.v[1].type, IL_EV_HAND);
    assert_int_equal(f.ev.v[1].audience, 0);
    assert_memory_equal(&f.ev.v[1].cards, &f.g.players[0].hand, sizeof(struct il_bundle));
    assert_int_equal(resources_held(&f.g, 0), before + 1);

    a = act_grab(0, f.g.drop_cards[3]);
    fx_refuse(&f, &a, IL_ERR_ALREADY_GRABBED);
    a = act_grab(1, r);
    fx_refuse(&f, &a, IL_ERR_CARD_GONE);

    struct il_action pause = act_gm(IL_ACT_PAUSE);
    fx_ok(&f, &pause);
    a = act_grab(1, f.g.drop_cards[3]);
    fx_refuse(&f, &a, IL_ERR_PAUSED);
}

static void drop_ends_when_no_choice_is_left(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 23);
    fx_until(&f, IL_PHASE_DROP_GRAB, 1);
    uint8_t last = f.g.drop_cards[4];
    for (int s = 0; s < 4; s++) {
        struct il_action a = act_grab(s, f.g.drop_cards[s]);
        fx_ok(&f, &a);
        if (s < 3)
            assert_int_equal(f.g.phase, IL_PHASE_DROP_GRAB);
    }
    /* One player waits, one card is left: it is theirs at once. */
    const struct il_event *left = fx_event(&f, IL_EV_LEFTOVER, 0);
    assert_non_null(left);
    assert_int_equal(left->player, 4);
    assert_int_equal(left->resource, last);
    assert_int_equal(f.g.phase, IL_PHASE_DEALING);
    assert_int_equal(f.g.session, 2);
    const struct il_event *e = fx_event(&f, IL_EV_DROP_DONE, 0);
    assert_non_null(e);
    assert_int_equal(e->number, 1);
    e = fx_event(&f, IL_EV_SESSION_OPENED, 0);
    assert_non_null(e);
    assert_int_equal(e->number, 2);
    assert_int_equal(e->deadline, f.now + 180000);
    assert_int_equal(fx_count(&f, IL_EV_LEFTOVER), 1);
    for (unsigned s = 0; s < 5; s++)
        assert_int_equal(resources_held(&f.g, s), 7);
    assert_int_equal(f.g.drop_count, 0);
}

static void leftovers_when_the_window_closes(void **state)
{
    (void)state;
    for (int by_next = 0; by_next < 2; by_next++) {
        struct fx f;
        fx_setup(&f, 6, IL_VARIANT_ADVANCED, 24);
        fx_until(&f, IL_PHASE_DROP_GRAB, 1);
        struct il_action a = act_grab(2, f.g.drop_cards[0]);
        fx_ok(&f, &a);
        if (by_next) {
            struct il_action next = act_gm(IL_ACT_NEXT);
            fx_ok(&f, &next);
        } else {
            fx_tick(&f);
        }
        assert_int_equal(fx_count(&f, IL_EV_LEFTOVER), 5);
        assert_int_equal(fx_count(&f, IL_EV_HAND), 5);
        for (unsigned i = 0; i < f.ev.n; i++) {
            const struct il_event *e = &f.ev.v[i];
            if (e->type == IL_EV_LEFTOVER) {
                assert_int_equal(e->audience, IL_PUBLIC);
                assert_int_not_equal(e->player, 2);
                assert_int_equal(f.ev.v[i + 1].type, IL_EV_HAND);
                assert_int_equal(f.ev.v[i + 1].audience, e->player);
            }
        }
        for (unsigned s = 0; s < 6; s++)
            assert_int_equal(resources_held(&f.g, s), 7);
        assert_int_equal(f.g.phase, IL_PHASE_DEALING);
        assert_int_equal(f.g.session, 2);
        assert_int_equal(il_bundle_total(&f.g.discard), 0);
    }
}

static void grab_outside_a_drop(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 25);
    struct il_action a = act_grab(0, f.g.players[0].dealer);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
    fx_until(&f, IL_PHASE_DEBATE, 0);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);

    fx_setup(&f, 4, IL_VARIANT_CASUAL, 25);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
}

/* Casual and advanced combine: the casual drops and sessions, the advanced
 * single-card cases. */
static void casual_advanced_combines_both(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_CASUAL_ADVANCED, 29);
    assert_int_equal(f.g.deadline, T0 + 20 * 60000);
    assert_int_equal(f.g.ncases, 10);
    for (unsigned k = 0; k < f.g.ncases; k++)
        assert_int_equal(f.g.cases[k].ncards, 1);
    fx_tick(&f);
    assert_int_equal(fx_count(&f, IL_EV_DREW), 5);
    assert_int_equal(fx_count(&f, IL_EV_GRAB_OPENED), 0);
    assert_int_equal(f.g.phase, IL_PHASE_DEALING);
    assert_string_equal(il_variant_id(IL_VARIANT_CASUAL_ADVANCED), "casual-advanced");
    assert_int_equal(il_variant_from_id("casual-advanced"), IL_VARIANT_CASUAL_ADVANCED);
    /* as the host types it: both words, in any order */
    assert_int_equal(il_variant_parse("advanced casual"), IL_VARIANT_CASUAL_ADVANCED);
    assert_int_equal(il_variant_parse("Casual, Advanced"), IL_VARIANT_CASUAL_ADVANCED);
    assert_int_equal(il_variant_parse("casual+advanced"), IL_VARIANT_CASUAL_ADVANCED);
    assert_int_equal(il_variant_parse("casual"), IL_VARIANT_CASUAL);
    assert_int_equal(il_variant_parse("standard advanced"), -1);
    assert_int_equal(il_variant_parse("casual casual"), -1);
    assert_int_equal(il_variant_parse(""), -1);
}

static void casual_draws_in_private(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 7, IL_VARIANT_CASUAL, 26);
    assert_int_equal(f.g.deadline, T0 + 20 * 60000);
    fx_tick(&f);
    assert_int_equal(f.ev.v[0].type, IL_EV_SESSION_CLOSED);
    assert_int_equal(f.ev.v[1].type, IL_EV_DROP_STARTED);
    assert_int_equal(f.ev.v[1].number, 1);
    assert_int_equal(fx_count(&f, IL_EV_DROP_REVEALED), 0);
    assert_int_equal(fx_count(&f, IL_EV_GRAB_OPENED), 0);
    assert_int_equal(fx_count(&f, IL_EV_DREW), 7);
    uint8_t drawn = 0;
    for (int s = 0; s < 7; s++) {
        const struct il_event *e = fx_event_for(&f, IL_EV_DREW, s);
        assert_non_null(e);
        assert_int_equal(e->player, s);
        assert_false(drawn & (1u << e->resource));
        drawn |= (uint8_t)(1u << e->resource);
        const struct il_event *h = fx_event_for(&f, IL_EV_HAND, s);
        assert_non_null(h);
        assert_memory_equal(&h->cards, &f.g.players[s].hand, sizeof h->cards);
        assert_int_equal(resources_held(&f.g, (unsigned)s), 7);
    }
    assert_int_equal(drawn, f.g.in_play);
    assert_non_null(fx_event(&f, IL_EV_DROP_DONE, 0));
    const struct il_event *e = &f.ev.v[f.ev.n - 1];
    assert_int_equal(e->type, IL_EV_SESSION_OPENED);
    assert_int_equal(e->number, 2);
    assert_int_equal(e->deadline, f.now + 20 * 60000);
    assert_int_equal(f.g.phase, IL_PHASE_DEALING);
    assert_int_equal(f.g.drops, 1);
}

static void casual_leftovers_after_a_kick(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_CASUAL, 27);
    struct il_action kick = act_target(IL_ACT_KICK, IL_GM, 4);
    fx_ok(&f, &kick);
    unsigned before = discarded_resources(&f.g);
    fx_tick(&f);
    assert_int_equal(fx_count(&f, IL_EV_DREW), 4);
    assert_int_equal(discarded_resources(&f.g), before + 1);
}

static void standard_leftovers_after_a_kick(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 28);
    fx_until(&f, IL_PHASE_DROP_REVEAL, 1);
    struct il_action kick = act_target(IL_ACT_KICK, IL_GM, 0);
    fx_ok(&f, &kick);
    fx_until(&f, IL_PHASE_DROP_GRAB, 1);
    unsigned before = discarded_resources(&f.g);
    fx_tick(&f);
    assert_int_equal(fx_count(&f, IL_EV_LEFTOVER), 4);
    assert_int_equal(discarded_resources(&f.g), before + 1);
}

static void five_sessions_four_drops(void **state)
{
    (void)state;
    for (unsigned v = 0; v < IL_VARIANTS; v++) {
        struct fx f;
        fx_setup(&f, 4, (enum il_variant)v, 29);
        unsigned sessions = 1, drops = 0;
        while (f.g.phase != IL_PHASE_DEBATE) {
            fx_tick(&f);
            sessions += fx_count(&f, IL_EV_SESSION_OPENED);
            drops += fx_count(&f, IL_EV_DROP_STARTED);
        }
        assert_int_equal(sessions, IL_SESSIONS);
        assert_int_equal(drops, IL_DROPS);
        assert_int_equal(f.g.session, IL_SESSIONS);
        assert_int_equal(f.g.drops, IL_DROPS);
        /* Every drop card ended in a hand: 4 more cards each. */
        for (unsigned s = 0; s < 4; s++)
            assert_int_equal(resources_held(&f.g, s), 6 + 4);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reveal_one_by_one),
        cmocka_unit_test(grab_rules),
        cmocka_unit_test(drop_ends_when_no_choice_is_left),
        cmocka_unit_test(leftovers_when_the_window_closes),
        cmocka_unit_test(grab_outside_a_drop),
        cmocka_unit_test(casual_draws_in_private),
        cmocka_unit_test(casual_advanced_combines_both),
        cmocka_unit_test(casual_leftovers_after_a_kick),
        cmocka_unit_test(standard_leftovers_after_a_kick),
        cmocka_unit_test(five_sessions_four_drops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
