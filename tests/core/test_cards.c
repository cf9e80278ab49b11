/*
 * test_cards.c - identifiers, bundles, defaults and error ids.
 */
#include <stdio.h>
#include <string.h>

#include "core/catalog.h"
#include "helpers.h"

static void card_ids_round_trip(void **state)
{
    (void)state;
    assert_string_equal(il_card_id(IL_CARD(IL_KIND_RESOURCE, IL_GUNS)), "guns");
    assert_string_equal(il_card_id(IL_CARD(IL_KIND_DEALER, IL_GUNS)), "dealer:guns");
    assert_string_equal(il_card_id(IL_CARD(IL_KIND_BUYER, IL_GUNS)), "buyer:guns");
    assert_string_equal(il_card_id(IL_CARD(IL_KIND_DEALER_SUSPECT, IL_GUNS)),
                        "suspect-dealer:guns");
    assert_string_equal(il_card_id(IL_CARD(IL_KIND_BUYER_SUSPECT, IL_GUNS)), "suspect-buyer:guns");
    for (unsigned t = 0; t < IL_CARD_TYPES; t++) {
        assert_non_null(il_card_id(t));
        assert_int_equal(il_card_from_id(il_card_id(t)), (int)t);
        char key[64];
        snprintf(key, sizeof key, "illegal.card.%s", il_card_id(t));
        if (!catalog_text("en", key))
            fail_msg("no catalog text for %s", key);
    }
    assert_null(il_card_id(IL_CARD_TYPES));
    assert_int_equal(il_card_from_id("dealer:"), -1);
    assert_int_equal(il_card_from_id("dealer:gun"), -1);
    assert_int_equal(il_card_from_id("robber:guns"), -1);
    assert_int_equal(il_card_from_id(""), -1);
    assert_int_equal(il_card_from_id(NULL), -1);
}

static void resource_ids(void **state)
{
    (void)state;
    static const char *const want[IL_RESOURCES] = {"luxury-cars", "guns",        "jewelry",
                                                   "alcohol",     "pornography", "secret-files",
                                                   "call-girls",  "powder"};
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        assert_string_equal(il_resource_id(r), want[r]);
        assert_int_equal(il_resource_from_id(want[r]), (int)r);
    }
    assert_null(il_resource_id(IL_RESOURCES));
    assert_int_equal(il_resource_from_id("gold"), -1);
    assert_int_equal(il_resource_from_id(NULL), -1);
}

static void variant_timer_phase_ids(void **state)
{
    (void)state;
    assert_string_equal(il_variant_id(IL_VARIANT_STANDARD), "standard");
    assert_string_equal(il_variant_id(IL_VARIANT_ADVANCED), "advanced");
    assert_string_equal(il_variant_id(IL_VARIANT_CASUAL), "casual");
    assert_null(il_variant_id((enum il_variant)7));
    for (int v = 0; v < IL_VARIANTS; v++)
        assert_int_equal(il_variant_from_id(il_variant_id((enum il_variant)v)), v);
    assert_int_equal(il_variant_from_id("expert"), -1);

    static const char *const timers[IL_TIMERS] = {"session", "reveal", "grab", "debate", "vote"};
    for (unsigned t = 0; t < IL_TIMERS; t++) {
        assert_string_equal(il_timer_id((enum il_timer)t), timers[t]);
        assert_int_equal(il_timer_from_id(timers[t]), (int)t);
    }
    assert_null(il_timer_id(IL_TIMERS));
    assert_int_equal(il_timer_from_id("nap"), -1);

    static const char *const phases[] = {"dealing", "drop-reveal", "drop-grab", "tribunal-hold",
                                         "debate",  "vote",        "over"};
    for (unsigned p = 0; p <= IL_PHASE_OVER; p++)
        assert_string_equal(il_phase_id((enum il_phase)p), phases[p]);
    assert_null(il_phase_id((enum il_phase)(IL_PHASE_OVER + 1)));
}

static void error_ids_match_the_catalog(void **state)
{
    (void)state;
    assert_string_equal(il_error_id(IL_OK), "ok");
    assert_string_equal(il_error_id(IL_ERR_WRONG_PHASE), "wrong-phase");
    assert_string_equal(il_error_id(IL_ERR_COUNT), "unknown");
    assert_string_equal(il_error_id((enum il_error) - 1), "unknown");
    for (unsigned e = 0; e <= IL_ERR_COUNT; e++) {
        const char *id = il_error_id((enum il_error)e);
        char key[64];
        snprintf(key, sizeof key, "illegal.error.%s", id);
        if (!catalog_text("en", key))
            fail_msg("no catalog text for %s", key);
        for (unsigned o = 0; o < e; o++)
            assert_string_not_equal(id, il_error_id((enum il_error)o));
    }
}

static void bundles(void **state)
{
    (void)state;
    struct il_bundle a = one(IL_GUNS, 3), b = one(IL_GUNS, 2);
    assert_int_equal(il_bundle_total(&a), 3);
    assert_true(il_bundle_contains(&a, &b));
    assert_false(il_bundle_contains(&b, &a));
    b.n[IL_POWDER] = 1;
    assert_false(il_bundle_contains(&a, &b));
    struct il_bundle empty = one(0, 0);
    assert_true(il_bundle_contains(&empty, &empty));
    assert_int_equal(il_bundle_total(&empty), 0);
}

static void config_defaults(void **state)
{
    (void)state;
    struct il_config c;
    il_config_default(&c, IL_VARIANT_STANDARD);
    assert_int_equal(c.variant, IL_VARIANT_STANDARD);
    assert_int_equal(c.resources, 0);
    assert_int_equal(c.timer_ms[IL_TIMER_SESSION], 180000);
    assert_int_equal(c.timer_ms[IL_TIMER_REVEAL], 2000);
    assert_int_equal(c.timer_ms[IL_TIMER_GRAB], 30000);
    assert_int_equal(c.timer_ms[IL_TIMER_DEBATE], 60000);
    assert_int_equal(c.timer_ms[IL_TIMER_VOTE], 30000);
    il_config_default(&c, IL_VARIANT_CASUAL);
    assert_int_equal(c.variant, IL_VARIANT_CASUAL);
    assert_int_equal(c.timer_ms[IL_TIMER_SESSION], 20 * 60000);
    il_config_default(&c, IL_VARIANT_ADVANCED);
    assert_int_equal(c.timer_ms[IL_TIMER_SESSION], 180000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(card_ids_round_trip),
        cmocka_unit_test(resource_ids),
        cmocka_unit_test(variant_timer_phase_ids),
        cmocka_unit_test(error_ids_match_the_catalog),
        cmocka_unit_test(bundles),
        cmocka_unit_test(config_defaults),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
