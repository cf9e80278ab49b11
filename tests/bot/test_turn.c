/*
 * test_turn.c - a loop turn whose commit fails is undone whole.
 *
 * The daemon's store is locked by another connection while two players
 * join: the turn cannot be committed, so both joins are undone and each
 * player hears that it did not happen. Once the lock is gone the same joins
 * work, and a restart finds what the answers said, nothing more. The same
 * for an event's changes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <sqlite3.h>
#include <string.h>

#include "console_harness.h"

/* How many lines from `from` on have text containing `needle`. */
static unsigned said_since(const struct harness *h, size_t from, const char *needle)
{
    unsigned n = 0;
    for (size_t i = from; i < h->nlines; i++) {
        struct json_object *text;
        if (json_object_object_get_ex(h->lines[i], "text", &text) &&
            strstr(json_object_get_string(text), needle))
            n++;
    }
    return n;
}

static void test_failed_commit_is_undone(void **state)
{
    (void)state;
    struct harness h;
    harness_init(&h, 5);
    harness_message(&h, "t1", "alice", "!illegal new", false);
    harness_message(&h, "t1", "bob", "!illegal join", false);
    harness_sync(&h);

    sqlite3 *db;
    assert_int_equal(sqlite3_open(h.store, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    harness_message(&h, "t1", "carol", "!illegal join", false);
    harness_message(&h, "t1", "dave", "!illegal join", false);
    size_t from = harness_sync(&h); /* the daemon waits out its busy timeout */
    assert_int_equal(said_since(&h, from, "could not be saved"), 2);
    assert_int_equal(said_since(&h, from, "Players 2/8"), 0);
    assert_int_equal(said_since(&h, from, "Players 3/8"), 0);
    assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);

    /* Undone in memory: carol joins as the second player, not "already in". */
    harness_message(&h, "t1", "carol", "!illegal join", false);
    from = harness_sync(&h);
    assert_int_equal(said_since(&h, from, "Players 2/8: bob, carol."), 1);

    /* And on disk: after a crash the lobby has the players the answers named. */
    harness_kill(&h);
    harness_start(&h);
    harness_message(&h, "t1", "dave", "!illegal join", false);
    from = harness_sync(&h);
    assert_int_equal(said_since(&h, from, "Players 3/8: bob, carol, dave."), 1);
    harness_free(&h);
}

/* Holds a write lock on h's store until unlock(). */
static sqlite3 *lock(const struct harness *h)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(h->store, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    return db;
}

static void unlock(sqlite3 *db)
{
    assert_int_equal(sqlite3_exec(db, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* Events are undone with the games (T7): an event opened, a sign-up and a
 * round whose commit fails are gone again, in memory and on disk, and the
 * id counters with them. */
static void test_failed_event_commit_is_undone(void **state)
{
    (void)state;
    static const char *const users[] = {"ann", "bob", "cat", "dan"};
    struct harness h;
    harness_init(&h, 6);
    harness_sync(&h); /* the daemon has its store open */
    sqlite3 *db = lock(&h);
    harness_message(&h, "hall", "org", "!illegal event open Cup", true);
    size_t from = harness_sync(&h);
    assert_int_equal(said_since(&h, from, "could not be saved"), 1);
    assert_int_equal(said_since(&h, from, "is open"), 0);
    unlock(db);
    harness_message(&h, "hall", "org", "!illegal event status", false);
    from = harness_sync(&h);
    assert_int_equal(said_since(&h, from, "No event is open here"), 1);

    harness_message(&h, "hall", "org", "!illegal event open Cup", true);
    for (unsigned i = 0; i < 4; i++)
        harness_message(&h, "hall", users[i], "!illegal event join", false);
    harness_message(&h, "t1", "org", "!illegal event table", false);
    harness_message(&h, "hall", "org", "!illegal event seat", false);
    harness_sync(&h);
    db = lock(&h);
    harness_message(&h, "hall", "eve", "!illegal event join", false);
    from = harness_sync(&h);
    assert_int_equal(said_since(&h, from, "could not be saved"), 1);
    harness_message(&h, "hall", "org", "!illegal event start", false);
    from = harness_sync(&h);
    /* the organiser once, though the round opened a game too; its table too */
    assert_int_equal(said_since(&h, from, "could not be saved"), 2);
    assert_int_equal(said_since(&h, from, "begins at"), 0);
    unlock(db);

    /* In memory: eve is not signed up, no game opened; the round starts now
     * as round 1 with game g1. */
    harness_message(&h, "hall", "org", "!illegal event status", false);
    harness_message(&h, "hall", "org", "!illegal event start", false);
    from = harness_sync(&h);
    assert_int_equal(said_since(&h, from, "Signed up: 4. Rounds started: 0."), 1);
    assert_int_equal(said_since(&h, from, "Round 1 of \"Cup\" begins at 1 table"), 1);
    assert_int_equal(said_since(&h, from, "Illegal game g1 (standard), hosted by org. Players 4/8"),
                     1);

    /* On disk: after a crash the event is as the answers said. */
    harness_kill(&h);
    harness_start(&h);
    harness_message(&h, "hall", "org", "!illegal event status", false);
    from = harness_sync(&h);
    assert_int_equal(said_since(&h, from, "Signed up: 4. Rounds started: 1."), 1);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_failed_commit_is_undone),
        cmocka_unit_test(test_failed_event_commit_is_undone),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
