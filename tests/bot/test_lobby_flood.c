/*
 * test_lobby_flood.c - many users opening lobbies: open lobbies are capped
 * per server ([game] lobbies_per_server) and in all ([game] lobbies_total),
 * each user still by lobbies_per_host; a lobby that closes without a game
 * leaves no row in the store, and a store that kept such rows loses them
 * when it is upgraded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sqlite3.h>

#include "console_harness.h"

/* Opens a lobby at table t<n> for user u<n> of server (NULL: none). Returns
 * the text of the answer. */
static const char *open_lobby(struct harness *h, unsigned n, const char *server)
{
    char line[256], table[16];
    snprintf(table, sizeof table, "t%u", n);
    if (server)
        snprintf(line, sizeof line,
                 "{\"type\":\"message\",\"channel\":\"%s\",\"user\":\"u%u\",\"server\":\"%s\","
                 "\"text\":\"!illegal new\"}",
                 table, n, server);
    else
        snprintf(line, sizeof line,
                 "{\"type\":\"message\",\"channel\":\"%s\",\"user\":\"u%u\",\"text\":\"!illegal "
                 "new\"}",
                 table, n);
    harness_send(h, line);
    size_t from = harness_sync(h);
    assert_true(from < h->nlines);
    assert_true(line_in(h->lines[from], table));
    return line_str(h->lines[from], "text");
}

static long long count(const char *db, const char *sql)
{
    sqlite3 *s = NULL;
    sqlite3_stmt *st = NULL;
    long long n = -1;
    assert_int_equal(sqlite3_open_v2(db, &s, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    if (sqlite3_prepare_v2(s, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(s);
    return n;
}

static void test_caps(void **state)
{
    (void)state;
    struct harness h;
    setenv("ILLEGALD_GAME_LOBBIES_PER_SERVER", "3", 1);
    setenv("ILLEGALD_GAME_LOBBIES_TOTAL", "5", 1);
    harness_init(&h, 33);
    unsigned n = 0;
    for (; n < 3; n++)
        assert_non_null(strstr(open_lobby(&h, n, "s1"), "Illegal game"));
    /* a fourth user of the same server: refused, whoever they are */
    assert_non_null(strstr(open_lobby(&h, n++, "s1"), "3 open lobbies"));
    /* another server has its own count, up to the daemon's total */
    assert_non_null(strstr(open_lobby(&h, n++, "s2"), "Illegal game"));
    assert_non_null(strstr(open_lobby(&h, n++, "s2"), "Illegal game"));
    assert_non_null(strstr(open_lobby(&h, n++, "s2"), "5 open lobbies"));
    /* a table of no server counts in the total only */
    assert_non_null(strstr(open_lobby(&h, n++, NULL), "5 open lobbies"));
    /* Once they have expired, there is room again, and nothing of them is kept. */
    harness_send(&h, "{\"type\":\"advance\",\"seconds\":3601}");
    harness_sync(&h);
    assert_non_null(strstr(open_lobby(&h, n++, "s1"), "Illegal game"));
    assert_int_equal(harness_finish(&h), 0);
    assert_int_equal(count(h.store, "SELECT COUNT(*) FROM games"), 1);
    assert_int_equal(count(h.store, "SELECT COUNT(*) FROM games WHERE finished = 0"), 1);
    harness_free(&h);
    unsetenv("ILLEGALD_GAME_LOBBIES_PER_SERVER");
    unsetenv("ILLEGALD_GAME_LOBBIES_TOTAL");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_caps)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
