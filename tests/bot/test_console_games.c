/*
 * test_console_games.c - whole games through the console platform.
 *
 * Each test runs the real daemon, plays a complete game with scripted players
 * and checks what every user saw, and that no secret reached the table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "console_harness.h"
#include "table_player.h"

static void play_game(unsigned players, const char *variant, uint64_t seed)
{
    struct harness h;
    struct table_player tp;
    harness_init(&h, seed);
    tp_open(&tp, &h, "t1", players, variant);
    tp_play_to_end(&tp);
    assert_true(tp.trades >= 5 * (players / 2));
    if (strcmp(variant, "casual") == 0) {
        assert_int_equal(tp.grabs_by_reaction + tp.grabs_by_text, 0);
        /* Each player drew one card in private at each of the 4 drops. */
        for (unsigned i = 0; i < players; i++) {
            char channel[32];
            unsigned draws = 0;
            snprintf(channel, sizeof channel, "dm:%s", tp.users[i]);
            for (size_t l = 0; l < h.nlines; l++) {
                const char *text = line_str(h.lines[l], "text");
                if (line_in(h.lines[l], channel) && text && strstr(text, "You drew"))
                    draws++;
            }
            assert_int_equal(draws, 4);
        }
    } else {
        assert_int_equal(tp.grabs_by_reaction + tp.grabs_by_text, 4 * players);
        assert_true(tp.grabs_by_reaction > 0);
    }
    unsigned cases = strcmp(variant, "advanced") == 0 ? 2 * players : players;
    assert_int_equal(tp.cases_seen, cases);
    /* The result names every player, and the winners have the top score. */
    struct json_object *winners;
    assert_true(json_object_object_get_ex(h.lines[tp.game_over_line], "winners", &winners));
    assert_true(json_object_array_length(winners) >= 1);
    int top = tp_score(&tp, json_object_get_string(json_object_array_get_idx(winners, 0)));
    for (unsigned i = 0; i < players; i++)
        assert_true(tp_score(&tp, tp.users[i]) <= top);
    assert_true(harness_find(&h, 0, "t1", "Game over!") >= 0);
    tp_check_secrets(&tp);
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

static void test_standard_4(void **state)
{
    (void)state;
    play_game(4, "standard", 11);
}

static void test_standard_8(void **state)
{
    (void)state;
    play_game(8, "standard", 12);
}

static void test_advanced_4(void **state)
{
    (void)state;
    play_game(4, "advanced", 13);
}

static void test_advanced_8(void **state)
{
    (void)state;
    play_game(8, "advanced", 14);
}

static void test_casual_4(void **state)
{
    (void)state;
    play_game(4, "casual", 15);
}

static void test_casual_8(void **state)
{
    (void)state;
    play_game(8, "casual", 16);
}

/* Same seed, same inputs: the same game, down to every score. */
static void test_reproducible(void **state)
{
    (void)state;
    int scores[2][4];
    for (int run = 0; run < 2; run++) {
        struct harness h;
        struct table_player tp;
        harness_init(&h, 99);
        tp_open(&tp, &h, "t1", 4, "standard");
        tp_play_to_end(&tp);
        for (unsigned i = 0; i < 4; i++)
            scores[run][i] = tp_score(&tp, tp.users[i]);
        assert_int_equal(harness_finish(&h), 0);
        harness_free(&h);
    }
    assert_memory_equal(scores[0], scores[1], sizeof scores[0]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard_4),   cmocka_unit_test(test_standard_8),
        cmocka_unit_test(test_advanced_4),   cmocka_unit_test(test_advanced_8),
        cmocka_unit_test(test_casual_4),     cmocka_unit_test(test_casual_8),
        cmocka_unit_test(test_reproducible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
