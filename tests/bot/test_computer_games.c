/*
 * test_computer_games.c - whole games of one person and 3 or 7 computer
 * players through the console, in every variant and tribunal option.
 *
 * Each game is played once, its inputs recorded: it must finish, every seat
 * must have played, and no secret may reach anyone it does not belong to
 * (solo_check_secrets). The same inputs are then replayed on a new store,
 * the daemon killed with SIGKILL at points spread over the game (each right
 * after an input was acknowledged, so often while a computer "thinks") and
 * restarted: the game must be the same, message for message, and end once
 * with the same scores. A computer's decision lost or taken twice would
 * change what follows.
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
#include "solo_player.h"

#define KILLS 8

static void kill_and_restart(struct harness *h, void *arg)
{
    (void)arg;
    harness_kill(h);
    harness_start(h);
}

/* What the person and the table saw, in order: every text sent or edited
 * there (message ids aside, which a restart may number anew). */
static char *seen(const struct harness *h)
{
    size_t len = 0, cap = 1 << 16;
    char *out = malloc(cap);
    assert_non_null(out);
    out[0] = '\0';
    for (size_t i = 0; i < h->nlines; i++) {
        const char *text = line_str(h->lines[i], "text"),
                   *channel = line_str(h->lines[i], "channel");
        if (!text || !channel || (strcmp(channel, "t1") != 0 && strcmp(channel, "dm:p1") != 0))
            continue;
        size_t n = strlen(channel) + strlen(text) + 3;
        if (len + n + 1 > cap) {
            cap = (len + n + 1) * 2;
            out = realloc(out, cap);
            assert_non_null(out);
        }
        len += (size_t)snprintf(out + len, cap - len, "%s: %s\n", channel, text);
    }
    return out;
}

static void play(const struct solo_game *game, uint64_t seed)
{
    struct harness first, second;
    struct solo_player sp;
    char scores[1024];

    harness_init(&first, seed);
    solo_open(&sp, &first, game);
    solo_play_to_end(&sp);
    printf("%s, tribunal %s, 1 person and %u computers (seed %llu): %u steps, %u moves of the "
           "person\n",
           game->variant, game->tribunal, game->computers, (unsigned long long)seed, sp.steps,
           sp.moves);
    solo_check_secrets(&sp);
    harness_scores(&first, "t1", scores, sizeof scores);
    assert_int_equal(harness_finish(&first), 0);

    harness_init(&second, seed);
    assert_int_equal(harness_replay(&second, &first, KILLS, kill_and_restart, NULL), KILLS);
    char *want = seen(&first), *got = seen(&second);
    if (strcmp(want, got) != 0) {
        size_t at = 0;
        while (want[at] && want[at] == got[at])
            at++;
        fprintf(stderr,
                "after the kills the game went otherwise, at:\n%.300s\ninstead of:\n%.300s\n",
                got + (at > 100 ? at - 100 : 0), want + (at > 100 ? at - 100 : 0));
        fail();
    }
    tp_check_same_result(&second, scores);
    free(want);
    free(got);
    harness_free(&first);
    harness_free(&second);
}

static void test_standard_3(void **state)
{
    (void)state;
    play(&(struct solo_game){"standard", "live", 3, NULL}, 71);
}

static void test_advanced_7(void **state)
{
    (void)state;
    play(&(struct solo_game){"advanced", "hold, close-early", 7, NULL}, 72);
}

static void test_casual_3(void **state)
{
    (void)state;
    play(&(struct solo_game){"casual", "parallel, vote-in-debate", 3, NULL}, 73);
}

static void test_casual_advanced_7(void **state)
{
    (void)state;
    play(&(struct solo_game){"casual-advanced", "hold, parallel, vote-in-debate, close-early", 7,
                             NULL},
         74);
}

static void test_standard_7(void **state)
{
    (void)state;
    play(&(struct solo_game){"standard", "vote-in-debate, close-early", 7, NULL}, 75);
}

static void test_advanced_3(void **state)
{
    (void)state;
    play(&(struct solo_game){"advanced", "parallel", 3, NULL}, 76);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard_3), cmocka_unit_test(test_advanced_7),
        cmocka_unit_test(test_casual_3),   cmocka_unit_test(test_casual_advanced_7),
        cmocka_unit_test(test_standard_7), cmocka_unit_test(test_advanced_3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
