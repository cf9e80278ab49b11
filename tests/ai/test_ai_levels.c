/*
 * test_ai_levels.c - the normal computer player wins clearly more often
 * than its share against easy ones, in every variant and at both ends of
 * the table's size. The seeds are fixed, so the figures are too; the README
 * gives them over 10,000 games per size (illegal-sim).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "computers.h"

#define GAMES 150

static void normal_against_easy(enum il_variant variant, unsigned players)
{
    struct cpu_opts o = {.players = players,
                         .variant = variant,
                         .tribunal = CPU_TRIBUNAL_BY_SEED,
                         .pace = RULES_PACE_HUMAN};
    struct cpu_stats st = {0};
    o.levels[0] = cpu_level("normal");
    for (unsigned p = 1; p < players; p++)
        o.levels[p] = cpu_level("easy");
    for (unsigned g = 0; g < GAMES; g++)
        cpu_play(&o, 900000 + 1000 * players + g, &st);
    assert_int_equal(st.violations, 0);
    unsigned normal = strcmp(st.ids[0], "normal") == 0 ? 0 : 1;
    double rate = st.wins[normal] / (double)st.seats[normal], share = 1.0 / players;
    print_message("%s, %u players: normal wins %.2f, its share %.2f\n", il_variant_id(variant),
                  players, rate, share);
    assert_true(rate > 1.5 * share);
}

static void standard(void **state)
{
    (void)state;
    normal_against_easy(IL_VARIANT_STANDARD, 4);
    normal_against_easy(IL_VARIANT_STANDARD, 6);
    normal_against_easy(IL_VARIANT_STANDARD, 8);
}

static void advanced(void **state)
{
    (void)state;
    normal_against_easy(IL_VARIANT_ADVANCED, 5);
    normal_against_easy(IL_VARIANT_ADVANCED, 7);
}

static void casual(void **state)
{
    (void)state;
    normal_against_easy(IL_VARIANT_CASUAL, 4);
    normal_against_easy(IL_VARIANT_CASUAL, 8);
    normal_against_easy(IL_VARIANT_CASUAL_ADVANCED, 6);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(standard),
        cmocka_unit_test(advanced),
        cmocka_unit_test(casual),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
