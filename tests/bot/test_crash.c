/*
 * test_crash.c - kill -9 the daemon again and again during a game.
 *
 * A game is played once without interruption, recording every input. The
 * same inputs are then replayed against a fresh store, killing the daemon
 * with SIGKILL at 25 points (each right after an input was acknowledged) and
 * restarting it on the same store. The game must end with the same scores:
 * no acknowledged action lost, none applied twice.
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
#include "table_player.h"

#define KILLS 25 /* at least 20 points of the game */

static void kill_and_restart(struct harness *h, void *arg)
{
    (void)arg;
    harness_kill(h);
    harness_start(h);
}

static void crash_game(unsigned players, const char *variant, uint64_t seed)
{
    struct harness first, second;
    char expected[1024];

    tp_record_game(&first, seed, players, variant, expected, sizeof expected);
    harness_init(&second, seed);
    assert_int_equal(harness_replay(&second, &first, KILLS, kill_and_restart, NULL), KILLS);
    /* The same scores, and the game ended exactly once. */
    tp_check_same_result(&second, expected);
    harness_free(&first);
    harness_free(&second);
}

static void test_crash_standard(void **state)
{
    (void)state;
    crash_game(5, "standard", 41);
}

static void test_crash_advanced(void **state)
{
    (void)state;
    crash_game(4, "advanced", 42);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crash_standard),
        cmocka_unit_test(test_crash_advanced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
