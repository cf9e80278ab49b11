/*
 * test_restore.c - a start reads each game back from its image (bot/image.h)
 * or, when the image is missing, damaged or not this build's, from its
 * record, and never loses a game to another's damage; then it writes the
 * missing images back in the background (bot/refill.c, R1-R3).
 *
 * Each game is compared by its status before the stop and after the start;
 * one read back as the test has it is then played on to its end. What the
 * refill did is read from the daemon's log and the store, never timed.
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
#include <time.h>

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

/* The daemon's log (every start's, one after another) from byte `from` on,
 * as one text the caller frees; *end: its length then. */
static char *log_from(const struct harness *h, long from, long *end)
{
    char path[320];
    snprintf(path, sizeof path, "%s/stderr.log", h->dir);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    assert_true(len >= from);
    char *text = calloc(1, (size_t)(len - from) + 1);
    assert_non_null(text);
    assert_int_equal(fseek(f, from, SEEK_SET), 0);
    assert_int_equal(fread(text, 1, (size_t)(len - from), f), (size_t)(len - from));
    fclose(f);
    if (end)
        *end = len;
    return text;
}

/* How long the log is now: where the next start's lines begin. */
static long log_end(const struct harness *h)
{
    long end;
    free(log_from(h, 0, &end));
    return end;
}

/* Whether the log from byte `from` on has needle. */
static bool log_has(const struct harness *h, long from, const char *needle)
{
    char *text = log_from(h, from, NULL);
    bool has = strstr(text, needle) != NULL;
    free(text);
    return has;
}

#define REFILL_BEGUN      "writing the images of"
#define REFILL_DONE       "images written for"
#define REFILL_REFUSED    "the store refused the images"
#define READ_FROM_RECORDS "read from their records (no image"

/* Waits, the daemon answering pings meanwhile, until the log from byte
 * `from` on has needle: generously, for a loaded machine. */
static void wait_log(struct harness *h, long from, const char *needle)
{
    const struct timespec pause = {0, 20 * 1000 * 1000};
    for (unsigned i = 0; i < 6000; i++) {
        if (log_has(h, from, needle))
            return;
        harness_sync(h);
        nanosleep(&pause, NULL);
    }
    fail_msg("the daemon never logged \"%s\"", needle);
}

/* The refill's last line from byte `from` on: how many images of how many
 * games, in how many batches. */
static void refill_done(struct harness *h, long from, unsigned *written, unsigned *of,
                        unsigned *batches)
{
    wait_log(h, from, REFILL_DONE);
    char *text = log_from(h, from, NULL);
    const char *at = strstr(text, REFILL_DONE), *b = strstr(at, "s of CPU, ");
    assert_non_null(b);
    assert_int_equal(sscanf(at, REFILL_DONE " %u of %u", written, of), 2);
    assert_int_equal(sscanf(b, "s of CPU, %u batches", batches), 1);
    free(text);
}

/* COPIES more games in the store, copies of t4's record at tables x1, x2...
 * (their players are t4's): enough that the refill takes many batches. */
#define COPIES 2000
static void copy_games(struct harness *h)
{
    char sql[1024];
    snprintf(sql, sizeof sql,
             "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < %d) "
             "INSERT INTO games (id, platform, table_id, finished, record) "
             "SELECT 'x' || i, platform, 'x' || i, 0, "
             "json_set(record, '$.id', 'x' || i, '$.table', 'x' || i) "
             "FROM games, c WHERE table_id = 't4'",
             COPIES);
    store_exec(h, sql);
}

/* Every game's record kept aside (the daemon stopped), to compare with. */
#define KEEP_RECORDS "DROP TABLE IF EXISTS kept; CREATE TABLE kept AS SELECT id, record FROM games;"
/* How many games' records are as kept. */
#define SAME_RECORDS                                                                               \
    "SELECT count(*) FROM games JOIN kept USING (id) WHERE games.record = kept.record"
/* Each image as another build's: a byte of its build id changed. */
#define OTHER_BUILD                                                                                \
    "UPDATE games SET image = substr(image, 1, 8) || "                                             \
    "iif(substr(image, 9, 1) = x'00', x'01', x'00') || substr(image, 10);"

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

/* The games at the first n tables read as before. */
static void same_status(struct harness *h, char **before, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        char *after = status_of(h, tables[i]);
        assert_string_equal(after, before[i]);
        free(after);
    }
}

/* The games at the first n tables read as before; the first plays to its
 * end (the others' deadlines pass meanwhile, unplayed). */
static void play_on(struct harness *h, struct table_player *tp, char **before, unsigned n)
{
    same_status(h, before, n);
    tp_scan(&tp[0]);
    tp_play_to_end(&tp[0]);
}

/* A change of t1's game (tp[0]'s): an offer by its first player, committed. */
static void change_t1(struct harness *h, struct table_player *tp)
{
    char offer[128];
    snprintf(offer, sizeof offer, "offer %s 1 %s for nothing", tp->users[1], tp->dealer[0]);
    harness_message(h, "dm", tp->users[0], offer, false);
    harness_sync(h);
}

/* Stops the daemon (it must exit cleanly) and frees the test's. */
static void end_test(struct harness *h, char **before)
{
    assert_int_equal(harness_finish(h), 0);
    for (unsigned i = 0; i < TABLES; i++)
        free(before[i]);
    harness_free(h);
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
    end_test(&h, before);
}

/* A store as the daemon wrote it before images (schema 7) is upgraded in
 * place: every game is read from its record; once the daemon answers, their
 * images are written back (a game changed first keeps the image of its
 * change), and the next start, after a kill, reads every game from its
 * image. */
static void test_upgrade(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp[TABLES];
    char *before[TABLES];
    open_games(&h, tp, before);
    /* a store from before images (and before results by game, which came after them) */
    long from = log_end(&h);
    restart_after(&h, "ALTER TABLE games DROP COLUMN image; DROP TABLE default_games;"
                      "ALTER TABLE results DROP COLUMN module; PRAGMA user_version = 7;");
    char *after = status_of(&h, "t1"); /* the daemon has started */
    assert_string_equal(after, before[0]);
    free(after);
    assert_int_equal(store_int(&h, "PRAGMA user_version"), 9);
    assert_true(log_has(&h, from, "4 games " READ_FROM_RECORDS));
    change_t1(&h, &tp[0]);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games WHERE table_id = 't1'"), 1);
    unsigned written, of, batches;
    refill_done(&h, from, &written, &of, &batches);
    assert_int_equal(of, TABLES);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games"), TABLES);
    free(before[0]);
    before[0] = status_of(&h, "t1");
    harness_kill(&h);
    from = log_end(&h);
    harness_start(&h);
    play_on(&h, tp, before, TABLES);
    assert_false(log_has(&h, from, READ_FROM_RECORDS));
    assert_false(log_has(&h, from, REFILL_BEGUN));
    end_test(&h, before);
}

/* Another build's images (an upgrade) and games with none, many batches of
 * them: the refill writes every one, the records as they were, and a
 * command sent right after the start is answered before it ends. The next
 * start reads every game from its image. */
static void test_refill_other_build(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp[TABLES];
    char *before[TABLES];
    open_games(&h, tp, before);
    assert_int_equal(harness_finish(&h), 0);
    copy_games(&h);
    store_exec(&h, OTHER_BUILD KEEP_RECORDS);
    long from = log_end(&h);
    harness_start(&h);
    char *after = status_of(&h, "t2");
    assert_string_equal(after, before[1]);
    free(after);
    assert_false(log_has(&h, from, REFILL_DONE)); /* the answer came first */
    unsigned written, of, batches;
    refill_done(&h, from, &written, &of, &batches);
    assert_int_equal(written, TABLES + COPIES);
    assert_int_equal(of, TABLES + COPIES);
    assert_true(batches > 1);
    assert_int_equal(store_int(&h, SAME_RECORDS), TABLES + COPIES);
    assert_int_equal(harness_finish(&h), 0);
    from = log_end(&h);
    harness_start(&h);
    same_status(&h, before, TABLES);
    assert_false(log_has(&h, from, READ_FROM_RECORDS));
    assert_false(log_has(&h, from, REFILL_BEGUN));
    end_test(&h, before);
}

/* A game changed while the refill runs (the last it would reach) is passed
 * over: it keeps the record and image of its change, which the next start
 * reads. */
static void test_change_during_refill(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp[TABLES];
    char *before[TABLES];
    open_games(&h, tp, before);
    char last[32];
    snprintf(last, sizeof last, "x%d", COPIES);
    assert_int_equal(harness_finish(&h), 0);
    copy_games(&h);
    store_exec(&h, "UPDATE games SET image = NULL;" KEEP_RECORDS);
    long from = log_end(&h);
    harness_start(&h);
    harness_message(&h, last, tp[3].users[0], "!illegal pause", false);
    harness_sync(&h);
    char *paused = status_of(&h, last);
    unsigned written, of, batches;
    refill_done(&h, from, &written, &of, &batches);
    assert_int_equal(of, TABLES + COPIES);
    assert_int_equal(written, TABLES + COPIES - 1);
    assert_int_equal(store_int(&h, SAME_RECORDS), TABLES + COPIES - 1);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games"), TABLES + COPIES);
    assert_int_equal(harness_finish(&h), 0);
    from = log_end(&h);
    harness_start(&h);
    char *after = status_of(&h, last);
    assert_string_equal(after, paused);
    assert_false(log_has(&h, from, READ_FROM_RECORDS));
    free(after);
    free(paused);
    same_status(&h, before, TABLES);
    end_test(&h, before);
}

/* A kill -9 once the refill has begun loses nothing: every record as it
 * was, every game's status the same; the next start writes what is left. */
static void test_kill_during_refill(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp[TABLES];
    char *before[TABLES];
    open_games(&h, tp, before);
    assert_int_equal(harness_finish(&h), 0);
    copy_games(&h);
    store_exec(&h, "UPDATE games SET image = NULL;" KEEP_RECORDS);
    long from = log_end(&h);
    harness_start(&h);
    wait_log(&h, from, REFILL_BEGUN);
    harness_kill(&h);
    assert_int_equal(store_int(&h, SAME_RECORDS), TABLES + COPIES);
    assert_int_equal(store_int(&h, "SELECT count(*) FROM games"), TABLES + COPIES);
    from = log_end(&h);
    harness_start(&h);
    for (unsigned i = 0; i < TABLES; i++) {
        char *after = status_of(&h, tables[i]);
        assert_string_equal(after, before[i]);
        free(after);
    }
    unsigned written, of, batches;
    refill_done(&h, from, &written, &of, &batches);
    assert_int_equal(written, of);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games"), TABLES + COPIES);
    assert_int_equal(store_int(&h, SAME_RECORDS), TABLES + COPIES);
    end_test(&h, before);
}

/* A store that refuses the refill's writes (as a full disk would): logged
 * once, the refill stops, the games keep their records and the daemon goes
 * on (a change is written, with its image); the next start, the store
 * writable again, reads them from their records and writes their images. */
static void test_store_refuses_refill(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp[TABLES];
    char *before[TABLES];
    open_games(&h, tp, before);
    long from = log_end(&h);
    restart_after(&h, "UPDATE games SET image = NULL;" KEEP_RECORDS
                      "CREATE TRIGGER full BEFORE UPDATE OF image ON games "
                      "WHEN new.record = old.record BEGIN SELECT RAISE(ABORT, 'disk full'); END;");
    wait_log(&h, from, REFILL_REFUSED);
    char *text = log_from(&h, from, NULL);
    const char *once = strstr(text, REFILL_REFUSED);
    assert_null(strstr(once + 1, REFILL_REFUSED));
    assert_null(strstr(text, REFILL_DONE));
    free(text);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games"), 0);
    assert_int_equal(store_int(&h, SAME_RECORDS), TABLES);
    change_t1(&h, &tp[0]);
    assert_int_equal(store_int(&h, "SELECT count(image) FROM games WHERE table_id = 't1'"), 1);
    free(before[0]);
    before[0] = status_of(&h, "t1");
    from = log_end(&h);
    restart_after(&h, "DROP TRIGGER full;");
    unsigned written, of, batches;
    refill_done(&h, from, &written, &of, &batches);
    assert_true(log_has(&h, from, "3 games " READ_FROM_RECORDS));
    assert_int_equal(written, TABLES - 1);
    play_on(&h, tp, before, TABLES);
    end_test(&h, before);
}

/* A game that keeps a table chat (the local table's; here written into a
 * console game's record) gets its image from the refill, chat included: the
 * start after it reads the game from its image, and the record its next
 * change writes from that game has the chat as it was. */
static void test_chat_in_image(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp[TABLES];
    char *before[TABLES];
    open_games(&h, tp, before);
    long from = log_end(&h);
    restart_after(&h, "UPDATE games SET image = NULL, record = json_set(record, '$.chat', "
                      "json('[{\"user\":\"t1-p2\",\"name\":\"Bo\",\"text\":\"who deals "
                      "guns?\",\"at\":1000},{\"user\":\"t1-p3\",\"name\":\"Cy\","
                      "\"text\":\"not me\",\"at\":2000}]')) WHERE table_id = 't1';" KEEP_RECORDS);
    unsigned written, of, batches;
    refill_done(&h, from, &written, &of, &batches);
    assert_int_equal(written, 1); /* the others kept theirs */
    assert_int_equal(harness_finish(&h), 0);
    from = log_end(&h);
    harness_start(&h);
    same_status(&h, before, TABLES);
    assert_false(log_has(&h, from, READ_FROM_RECORDS));
    change_t1(&h, &tp[0]);
    assert_int_equal(store_int(&h, "SELECT count(*) FROM games JOIN kept USING (id) WHERE "
                                   "table_id = 't1' AND games.record != kept.record AND "
                                   "json_extract(games.record, '$.chat') = "
                                   "json_extract(kept.record, '$.chat')"),
                     1);
    end_test(&h, before);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_damaged_images),     cmocka_unit_test(test_upgrade),
        cmocka_unit_test(test_refill_other_build), cmocka_unit_test(test_change_during_refill),
        cmocka_unit_test(test_kill_during_refill), cmocka_unit_test(test_store_refuses_refill),
        cmocka_unit_test(test_chat_in_image),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
