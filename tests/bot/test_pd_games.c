/*
 * test_pd_games.c - whole games of Palm & Drewes' Illegal played by people on
 * the console: 2 to 6 players in several languages, their secrets kept, and
 * a game killed with SIGKILL again and again that ends as it would have.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console_harness.h"
#include "pd_player.h"

#define KILLS 25

/* A whole game of n people in lang: it ends once, every player scored, no
 * hand shown at the table before the reckoning. */
static void whole_game(unsigned n, const char *lang, uint64_t seed)
{
    struct harness h;
    struct pd_people pp;
    char scores[1024];
    print_message("seed %llu, %u players, %s\n", (unsigned long long)seed, n, lang);
    harness_init(&h, seed);
    pdp_open(&pp, &h, "t1", n, "live", lang);
    pdp_play_to_end(&pp);
    harness_scores(&h, "t1", scores, sizeof scores);
    for (unsigned i = 0; i < n; i++)
        assert_non_null(strstr(scores, pp.users[i]));
    assert_int_equal(harness_count(&h, "game_over"), 1);
    pdp_check_secrets(&pp);
    print_message("%u steps, %u passes, %u takeovers, %u losses\n", pp.steps, pp.passes, pp.windows,
                  pp.losses);
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

static void test_player_counts(void **state)
{
    (void)state;
    static const char *const langs[] = {"en", "de", "fr", "es", "nl"};
    for (unsigned n = 2; n <= 6; n++)
        whole_game(n, langs[n - 2], 100 + n);
}

static void test_hungarian_and_portuguese(void **state)
{
    (void)state;
    whole_game(3, "hu", 201);
    whole_game(4, "pt", 202);
}

static void kill_and_restart(struct harness *h, void *arg)
{
    (void)arg;
    harness_kill(h);
    harness_start(h);
}

/* The same inputs with a kill -9 after each of 25 parts of the game: every
 * acknowledged move is kept, none is played twice, the game ends the same. */
static void test_crash(void **state)
{
    (void)state;
    struct harness first, second;
    char expected[1024], got[1024];
    pdp_record_game(&first, 301, 4, expected, sizeof expected);
    harness_init(&second, 301);
    assert_int_equal(harness_replay(&second, &first, KILLS, kill_and_restart, NULL), KILLS);
    harness_scores(&second, "t1", got, sizeof got);
    assert_string_equal(got, expected);
    assert_int_equal(harness_count(&second, "game_over"), 1);
    assert_int_equal(harness_finish(&second), 0);
    harness_free(&first);
    harness_free(&second);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_player_counts),
        cmocka_unit_test(test_hungarian_and_portuguese),
        cmocka_unit_test(test_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
