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

#define KILLS 25

static void scores_of(const struct harness *h, const char *table, char *out, size_t len)
{
    for (size_t i = h->nlines; i-- > 0;) {
        const char *type = line_str(h->lines[i], "type");
        if (type && strcmp(type, "game_over") == 0 && line_in(h->lines[i], table)) {
            struct json_object *scores;
            assert_true(json_object_object_get_ex(h->lines[i], "scores", &scores));
            snprintf(out, len, "%s",
                     json_object_to_json_string_ext(scores, JSON_C_TO_STRING_PLAIN));
            return;
        }
    }
    fail_msg("no game_over for %s", table);
}

static void crash_game(unsigned players, const char *variant, uint64_t seed)
{
    struct harness first, second;
    struct table_player tp;
    char expected[1024], got[1024];

    harness_init(&first, seed);
    tp_open(&tp, &first, "t1", players, variant);
    tp.text_only = true;
    tp_play_to_end(&tp);
    scores_of(&first, "t1", expected, sizeof expected);
    assert_int_equal(harness_finish(&first), 0);

    harness_init(&second, seed);
    size_t inputs = 0, sent = 0, kills = 0;
    for (size_t i = 0; i < first.nsent; i++)
        inputs += !strstr(first.sent[i], "\"type\":\"ping\"");
    size_t every = inputs / (KILLS + 1);
    for (size_t i = 0; i < first.nsent; i++) {
        if (strstr(first.sent[i], "\"type\":\"ping\""))
            continue;
        harness_send(&second, first.sent[i]);
        if (++sent % every == 0 && kills < KILLS) {
            harness_sync(&second);
            harness_kill(&second);
            harness_start(&second);
            kills++;
        }
    }
    harness_sync(&second);
    assert_true(kills >= 20);
    scores_of(&second, "t1", got, sizeof got);
    assert_string_equal(got, expected);
    /* Each game ended exactly once. */
    unsigned endings = 0;
    for (size_t i = 0; i < second.nlines; i++) {
        const char *type = line_str(second.lines[i], "type");
        endings += type && strcmp(type, "game_over") == 0;
    }
    assert_int_equal(endings, 1);
    assert_int_equal(harness_finish(&second), 0);
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
