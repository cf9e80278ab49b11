/*
 * test_many_games.c - a thousand games at once in one daemon.
 *
 * 1,000 tables of 4 players start, then the clock runs until every game is
 * over: drops close with leftovers dealt, votes close with no votes. Each
 * table must get exactly one result, for its own four players.
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

#define GAMES 1000

static void test_thousand_games(void **state)
{
    (void)state;
    struct harness h;
    char table[32], user[48];
    harness_init(&h, 1000);
    for (unsigned t = 0; t < GAMES; t++) {
        snprintf(table, sizeof table, "t%u", t);
        snprintf(user, sizeof user, "%s-p0", table);
        harness_message(&h, table, user, "!illegal new", false);
        for (unsigned p = 0; p < 4; p++) {
            snprintf(user, sizeof user, "%s-p%u", table, p);
            harness_message(&h, table, user, "!illegal join", false);
        }
        snprintf(user, sizeof user, "%s-p0", table);
        harness_message(&h, table, user, "!illegal start", false);
        if (t % 100 == 99)
            harness_sync(&h);
    }
    harness_sync(&h);
    static bool over[GAMES];
    unsigned finished = 0;
    size_t scanned = 0;
    for (unsigned step = 0; finished < GAMES && step < 200; step++) {
        harness_send(&h, "{\"type\":\"advance\",\"seconds\":120}");
        harness_sync(&h);
        for (; scanned < h.nlines; scanned++) {
            const char *type = line_str(h.lines[scanned], "type");
            const char *channel = line_str(h.lines[scanned], "channel");
            if (!type || strcmp(type, "game_over") != 0)
                continue;
            unsigned t = (unsigned)strtoul(channel + 1, NULL, 10);
            assert_true(t < GAMES);
            assert_false(over[t]);
            over[t] = true;
            finished++;
            struct json_object *scores;
            assert_true(json_object_object_get_ex(h.lines[scanned], "scores", &scores));
            assert_int_equal(json_object_object_length(scores), 4);
            json_object_object_foreach(scores, who, score)
            {
                (void)score;
                snprintf(table, sizeof table, "%s-", channel);
                assert_int_equal(strncmp(who, table, strlen(table)), 0);
            }
        }
    }
    assert_int_equal(finished, GAMES);
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_thousand_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
