/*
 * test_game_record_regressions.c - damaged rng words a stored record must not pass.
 *
 * game_to_json() writes the seed and the four rng words as plain decimal
 * digits. Anything else ("-1", "+5", " 5", a value past 64 bits) means the
 * record is damaged and is refused, as is the all-zero xoshiro256** state,
 * which the generator can never leave.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include <cmocka.h>

#include "bot/game.h"
#include "core/illegal/module.h"

/* The Illegal state of a game. */
#define IL(g) ((struct il_state *)(g)->state)

static struct il_state base_state;

static struct game base;

static void make_base(void)
{
    static struct il_events ev;
    memset(&base, 0, sizeof base);
    base.rules = &il_module;
    base.state = &base_state;
    snprintf(base.id, sizeof base.id, "g1");
    snprintf(base.table, sizeof base.table, "t1");
    snprintf(base.host, sizeof base.host, "u0");
    snprintf(base.language, sizeof base.language, "en");
    il_config_default(&IL(&base)->config, IL_VARIANT_STANDARD);
    base.nseats = 4;
    for (unsigned i = 0; i < 4; i++)
        snprintf(base.seats[i].user, sizeof base.seats[i].user, "u%u", i);
    rng_seed(&base.rng, 1);
    assert_int_equal(il_game_setup(&IL(&base)->game, &IL(&base)->config, 4, 1000, &base.rng, &ev),
                     IL_OK);
    base.started = true;
}

static void assert_refused(struct json_object *j, const char *what)
{
    static struct game out;
    char why[128] = "";
    if (game_from_json(&out, j, why, sizeof why) == 0)
        fail_msg("a record with %s was accepted", what);
}

static void test_bad_rng_words(void **state)
{
    (void)state;
    static const char *const bad[] = {"-1", "99999999999999999999999", " 5", "+5"};
    make_base();
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct json_object *j = game_to_json(&base), *rng;
        assert_true(json_object_object_get_ex(j, "rng", &rng));
        json_object_array_put_idx(rng, 0, json_object_new_string(bad[i]));
        assert_refused(j, bad[i]);
        json_object_put(j);
        j = game_to_json(&base);
        json_object_object_add(j, "seed", json_object_new_string(bad[i]));
        assert_refused(j, bad[i]);
        json_object_put(j);
    }
}

static void test_zero_rng_state(void **state)
{
    (void)state;
    make_base();
    struct json_object *j = game_to_json(&base);
    json_object_object_add(j, "rng", json_tokener_parse("[\"0\",\"0\",\"0\",\"0\"]"));
    assert_refused(j, "an all-zero rng state");
    json_object_put(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_rng_words),
        cmocka_unit_test(test_zero_rng_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
