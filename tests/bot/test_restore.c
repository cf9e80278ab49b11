/*
 * test_restore.c - a start reads each game back from its image (bot/image.h)
 * or, when the image is missing, damaged or not this build's, from its
 * record, and never loses a game to another's damage.
 *
 * Each game is compared by its status before the stop and after the start;
 * one read back as the test has it is then played on to its end.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console_harness.h"
#include "table_player.h"

#define TABLES 4

static const char *const tables[TABLES] = {"t1", "t2", "t3", "t4"};

/* What `!illegal status` answers at table, as one text (the caller frees). */
static char *status_of(struct harness *h, const char *table)
{
    harness_message(h, table, "onlooker", "!illegal status", false);
    size_t from = harness_sync(h);
    size_t len = 1;
    char *all = calloc(1, len);
    assert_non_null(all);
    for (size_t i = from; i < h->nlines; i++) {
        const char *text = line_str(h->lines[i], "text");
        if (!text || !line_in(h->lines[i], table))
            continue;
        all = realloc(all, len + strlen(text) + 1);
        assert_non_null(all);
        strcat(all, text);
        strcat(all, "\n");
        len += strlen(text) + 1;
    }
    assert_true(len > 1);
    return all;
}

/* Runs sql on h's store (the daemon stopped or not). */
static void store_exec(const struct harness *h, const char *sql)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(h->store, &db), SQLITE_OK);
    char *err = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &err) != SQLITE_OK)
        fail_msg("%s: %s", sql, err ? err : "?");
    sqlite3_close(db);
}

/* The integer sql's first row gives. */
static long store_int(const struct harness *h, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(h->store, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    long v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Opens a game at each table; their statuses go into before. */
static void open_games(struct harness *h, struct table_player *tp, char **before)
{
    harness_init(h, 11);
    for (unsigned i = 0; i < TABLES; i++)
        tp_open(&tp[i], h, tables[i], 4, "standard");
    for (unsigned i = 0; i < TABLES; i++)
        before[i] = status_of(h, tables[i]);
}

/* Restarts after a clean stop, after `sql` on the store. */
static void restart_after(struct harness *h, const char *sql)
{
    assert_int_equal(harness_finish(h), 0);
    store_exec(h, sql);
    harness_start(h);
}

/* The games at the first n tables read as before; the first plays to its
 * end (the others' deadlines pass meanwhile, unplayed). */
static void play_on(struct harness *h, struct table_player *tp, char **before, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        char *after = status_of(h, tables[i]);
        assert_string_equal(after, before[i]);
        free(after);
    }
    tp_scan(&tp[0]);
    tp_play_to_end(&tp[0]);
}

/* Images cut short or changed: those games are read from their records. A
 * game whose record is damaged too stays in the store, and costs no other
 * game anything. */
static void test_damaged_images(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp[TABLES];
    char *before[TABLES];
    open_games(&h, tp, before);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games"), TABLES);
    restart_after(&h, "UPDATE games SET image = substr(image, 1, 60) WHERE table_id = 't1';"
                      "UPDATE games SET image = substr(image, 1, 199) || "
                      "  iif(substr(image, 200, 1) = x'41', x'42', x'41') || substr(image, 201)"
                      "  WHERE table_id = 't2';"
                      "UPDATE games SET image = x'00', record = '{\"id\":' WHERE table_id = 't4';");
    char *lost = status_of(&h, "t4");
    assert_non_null(strstr(lost, "No game at this table"));
    free(lost);
    play_on(&h, tp, before, 3);
    assert_int_equal(store_int(&h, "SELECT count(*) FROM games WHERE table_id = 't4' AND "
                                   "record = '{\"id\":' AND image = x'00'"),
                     1);
    assert_int_equal(harness_finish(&h), 0);
    for (unsigned i = 0; i < TABLES; i++)
        free(before[i]);
    harness_free(&h);
}

/* A store as the daemon wrote it before images (schema 7) is upgraded in
 * place: every game is read from its record, gets its image at its next
 * change, and is read from that after a kill. */
static void test_upgrade(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp[TABLES];
    char *before[TABLES];
    open_games(&h, tp, before);
    /* a store from before images (and before results by game, which came after them) */
    restart_after(&h, "ALTER TABLE games DROP COLUMN image; DROP TABLE default_games;"
                      "ALTER TABLE results DROP COLUMN module; PRAGMA user_version = 7;");
    char *after = status_of(&h, "t1"); /* the daemon has started */
    assert_string_equal(after, before[0]);
    free(after);
    assert_int_equal(store_int(&h, "PRAGMA user_version"), 9);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games"), 0);
    char offer[128];
    snprintf(offer, sizeof offer, "offer %s 1 %s for nothing", tp[0].users[1], tp[0].dealer[0]);
    harness_message(&h, "dm", tp[0].users[0], offer, false);
    harness_sync(&h);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games WHERE table_id = 't1'"), 1);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games"), 1);
    free(before[0]);
    before[0] = status_of(&h, "t1");
    harness_kill(&h);
    harness_start(&h);
    play_on(&h, tp, before, TABLES);
    assert_int_equal(harness_finish(&h), 0);
    for (unsigned i = 0; i < TABLES; i++)
        free(before[i]);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_damaged_images),
        cmocka_unit_test(test_upgrade),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
