/*
 * test_store.c - the SQLite store: schema creation and versioning, games and
 * meta round trips, reopening, refusing newer schemas and unusable paths.
 * Every test works in its own mkdtemp() directory under /tmp.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "bot/log.h"
#include "bot/store.h"

struct dir {
    char path[64];
    char db[128];
};

static int dir_setup(void **state)
{
    struct dir *d = calloc(1, sizeof *d);
    if (!d)
        return -1;
    snprintf(d->path, sizeof d->path, "/tmp/illegald-unit-store-XXXXXX");
    if (!mkdtemp(d->path)) {
        free(d);
        return -1;
    }
    snprintf(d->db, sizeof d->db, "%s/illegald.db", d->path);
    *state = d;
    return 0;
}

static int dir_teardown(void **state)
{
    struct dir *d = *state;
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal", "-lock"};
    char path[160];
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(path, sizeof path, "%s%s", d->db, suffixes[i]);
        unlink(path);
    }
    snprintf(path, sizeof path, "%s/not-a-dir", d->path);
    unlink(path);
    snprintf(path, sizeof path, "%s-lock", d->path);
    unlink(path);
    int rc = rmdir(d->path);
    free(d);
    return rc;
}

/* Runs a one-row query on a separate connection and returns column 0 as text. */
static void query_text(const char *db, const char *sql, char *out, size_t len)
{
    sqlite3 *h;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(h, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    snprintf(out, len, "%s", (const char *)sqlite3_column_text(st, 0));
    sqlite3_finalize(st);
    sqlite3_close(h);
}

/* Runs sql on db from outside the store (an older or newer daemon's schema). */
static void exec_ok(const char *db, const char *sql)
{
    sqlite3 *h;
    assert_int_equal(sqlite3_open(db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);
}

static struct store *open_ok(const char *path)
{
    struct store *s = NULL;
    char err[256] = "";
    if (store_open(&s, path, err, sizeof err) != 0)
        fail_msg("store_open(%s): %s", path, err);
    assert_non_null(s);
    return s;
}

static void test_open_creates_schema(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    char v[64];
    query_text(d->db, "PRAGMA user_version", v, sizeof v);
    /* meta and games, the outbox, results, events, languages, the results' computers, the
     * unfinished games' index, the games' images, the results' game and the default games */
    assert_string_equal(v, "9");
    query_text(d->db, "PRAGMA journal_mode", v, sizeof v);
    assert_string_equal(v, "wal");
    query_text(d->db,
               "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN "
               "('games', 'meta', 'outbox', 'results', 'events', 'languages')",
               v, sizeof v);
    assert_string_equal(v, "6");
    assert_int_equal(store_writable(s), 0);
    store_close(s);
    store_close(NULL);
}

struct walk {
    unsigned n;
    char ids[8][16];
    char platforms[8][16];
    char tables[8][32];
    char records[8][64];
    size_t images[8]; /* each image's length, 0: none */
    unsigned stop_at; /* return 7 at this call (1-based); 0: never */
};

static int walk_fn(void *arg, const struct store_game_row *row)
{
    struct walk *w = arg;
    assert_true(w->n < 8);
    snprintf(w->ids[w->n], sizeof w->ids[0], "%s", row->id);
    snprintf(w->platforms[w->n], sizeof w->platforms[0], "%s", row->platform);
    snprintf(w->tables[w->n], sizeof w->tables[0], "%s", row->table);
    snprintf(w->records[w->n], sizeof w->records[0], "%s", row->record);
    w->images[w->n] = row->image_len;
    w->n++;
    return w->stop_at && w->n == w->stop_at ? 7 : 0;
}

static void test_games(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    struct walk w;

    memset(&w, 0, sizeof w);
    assert_int_equal(store_games_active(s, walk_fn, &w), 0);
    assert_int_equal(w.n, 0);
    assert_null(store_game_get(s, "g1"));

    assert_int_equal(store_game_put(s, "g3", "console", "t3", 0, "{\"n\":3}", NULL, 0), 0);
    assert_int_equal(store_game_put(s, "g1", "discord", "t1", 0, "{\"n\":1}", NULL, 0), 0);
    assert_int_equal(
        store_game_put(s, "g2", "matrix", "!room:example.org", 0, "{\"n\":2}", NULL, 0), 0);
    /* Updating g3 keeps its place: the walk is oldest first. */
    assert_int_equal(store_game_put(s, "g3", "console", "t3", 0, "{\"n\":33}", NULL, 0), 0);

    memset(&w, 0, sizeof w);
    assert_int_equal(store_games_active(s, walk_fn, &w), 0);
    assert_int_equal(w.n, 3);
    assert_string_equal(w.ids[0], "g3");
    assert_string_equal(w.records[0], "{\"n\":33}");
    assert_string_equal(w.platforms[0], "console");
    assert_string_equal(w.tables[0], "t3");
    assert_string_equal(w.ids[1], "g1");
    assert_string_equal(w.platforms[1], "discord");
    assert_string_equal(w.ids[2], "g2");
    assert_string_equal(w.tables[2], "!room:example.org");

    char *r = store_game_get(s, "g2");
    assert_non_null(r);
    assert_string_equal(r, "{\"n\":2}");
    free(r);

    /* A finished game leaves the walk but can still be read. */
    assert_int_equal(store_game_put(s, "g1", "discord", "t1", 1, "{\"over\":true}", NULL, 0), 0);
    memset(&w, 0, sizeof w);
    assert_int_equal(store_games_active(s, walk_fn, &w), 0);
    assert_int_equal(w.n, 2);
    assert_string_equal(w.ids[0], "g3");
    assert_string_equal(w.ids[1], "g2");
    r = store_game_get(s, "g1");
    assert_non_null(r);
    assert_string_equal(r, "{\"over\":true}");
    free(r);

    /* A callback's non-zero value stops the walk and is returned. */
    memset(&w, 0, sizeof w);
    w.stop_at = 1;
    assert_int_equal(store_games_active(s, walk_fn, &w), 7);
    assert_int_equal(w.n, 1);
    /* And the statement is reset: the next walk starts over. */
    memset(&w, 0, sizeof w);
    assert_int_equal(store_games_active(s, walk_fn, &w), 0);
    assert_int_equal(w.n, 2);
    store_close(s);
}

static void test_meta(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    assert_null(store_meta_get(s, "clock"));
    assert_int_equal(store_meta_set(s, "clock", "1000"), 0);
    assert_int_equal(store_meta_set(s, "discord/session", "abc"), 0);
    assert_int_equal(store_meta_set(s, "empty", ""), 0);
    assert_int_equal(store_meta_set(s, "clock", "2000"), 0);
    char *v = store_meta_get(s, "clock");
    assert_string_equal(v, "2000");
    free(v);
    v = store_meta_get(s, "discord/session");
    assert_string_equal(v, "abc");
    free(v);
    v = store_meta_get(s, "empty");
    assert_non_null(v);
    assert_string_equal(v, "");
    free(v);
    /* Deleting forgets the key; deleting an unknown key is fine. */
    assert_int_equal(store_meta_delete(s, "discord/session"), 0);
    assert_null(store_meta_get(s, "discord/session"));
    assert_int_equal(store_meta_delete(s, "never-set"), 0);
    store_close(s);
}

static void leaderboard_row(void *arg, const struct store_stats *row)
{
    struct {
        char users[4][64];
        unsigned n;
    } *o = arg;
    if (o->n < 4)
        snprintf(o->users[o->n++], sizeof o->users[0], "%s", row->user);
}

/* After test_results' rows, a game with computer players: Ann's row says
 * so, the computers' rows are ranked only when asked for, one row per level. */
static void results_with_computers(struct store *s)
{
    static const struct {
        const char *user, *name, *level;
        int score, won;
    } g5[] = {{"u1", "Ann", NULL, 2, 0},
              {"cpu:1", "Ada-bot", "normal", 12, 1},
              {"cpu:2", "Bruno-bot", "normal", 1, 0},
              {"cpu:3", "Clara-bot", "easy", 0, 0}};
    for (size_t i = 0; i < sizeof g5 / sizeof *g5; i++) {
        struct store_result r = {.platform = "console",
                                 .module = "illegal",
                                 .community = "s1",
                                 .game = "g5",
                                 .user = g5[i].user,
                                 .name = g5[i].name,
                                 .score = g5[i].score,
                                 .rank = 1,
                                 .won = g5[i].won,
                                 .computers = 3,
                                 .level = g5[i].level};
        assert_int_equal(store_result_put(s, &r), 0);
    }
    struct store_stats st;
    assert_int_equal(store_stats(s, "console", "s1", NULL, NULL, "u1", &st), 1);
    assert_int_equal(st.games, 3);
    assert_int_equal(st.with_computers, 1);
    assert_int_equal(store_stats(s, "console", "s1", NULL, NULL, "Ada-bot", &st), 0);
    struct order {
        char users[4][64];
        unsigned n;
    } o = {.n = 0};
    assert_int_equal(
        store_leaderboard(s, "console", "s1", NULL, NULL, false, 10, leaderboard_row, &o), 3);
    o.n = 0;
    assert_int_equal(
        store_leaderboard(s, "console", "s1", NULL, NULL, true, 10, leaderboard_row, &o), 5);
    assert_string_equal(o.users[0], "u3");                        /* 1 win, average 9 */
    assert_string_equal(o.users[1], STORE_COMPUTER_ROW "normal"); /* 1 win, average 6.5 */
}

/* Results: totals per player and per community, the latest name, lookups by
 * id or name in any case, a game written twice counted once, and the
 * leaderboard's order (wins, then average score, then games). */
static void test_results(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    static const struct {
        const char *community, *game, *user, *name;
        int score, rank, won, found;
        const char *event;
    } rows[] = {
        {"s1", "g1", "u1", "Ann", 4, 1, 1, 0, NULL},    {"s1", "g1", "u2", "Bob", 1, 2, 0, 1, NULL},
        {"s1", "g2", "u1", "Annie", -3, 2, 0, 1, "e1"}, {"s1", "g2", "u2", "Bob", 6, 1, 1, 0, "e1"},
        {"s1", "g3", "u3", "Cy", 9, 1, 1, 0, "e1"},     {"s2", "g4", "u1", "Ann", 2, 1, 1, 0, NULL},
        {"s1", "g2", "u2", "Bob", 6, 1, 1, 0, "e1"}, /* the same game again */
    };
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct store_result r = {.platform = "console",
                                 .module = "illegal",
                                 .community = rows[i].community,
                                 .game = rows[i].game,
                                 .user = rows[i].user,
                                 .name = rows[i].name,
                                 .event = rows[i].event,
                                 .score = rows[i].score,
                                 .rank = rows[i].rank,
                                 .won = rows[i].won,
                                 .tally = rows[i].found};
        assert_int_equal(store_result_put(s, &r), 0);
    }
    struct store_stats st;
    assert_int_equal(store_stats(s, "console", "s1", NULL, NULL, "u1", &st), 1);
    assert_int_equal(st.games, 2);
    assert_int_equal(st.wins, 1);
    assert_int_equal(st.tally, 1);
    assert_int_equal(st.score_sum, 1);
    assert_string_equal(st.name, "Annie"); /* the latest game's */
    assert_int_equal(store_stats(s, "console", "s1", NULL, NULL, "BOB", &st), 1);
    assert_string_equal(st.user, "u2");
    assert_int_equal(st.games, 2); /* g2 counted once */
    assert_int_equal(store_stats(s, "console", "s2", NULL, NULL, "u2", &st), 0);
    assert_int_equal(store_stats(s, "discord", "s1", NULL, NULL, "u1", &st), 0);
    /* in event e1 alone: Ann played g2 only, and lost it */
    assert_int_equal(store_stats(s, "console", "s1", "e1", NULL, "u1", &st), 1);
    assert_int_equal(st.games, 1);
    assert_int_equal(st.wins, 0);
    assert_int_equal(st.score_sum, -3);
    assert_int_equal(store_stats(s, "console", "s1", "e2", NULL, "u1", &st), 0);

    struct order {
        char users[4][64];
        unsigned n;
    } o = {.n = 0};
    assert_int_equal(
        store_leaderboard(s, "console", "s1", NULL, NULL, false, 10, leaderboard_row, &o), 3);
    /* All three won once: the better average first (Cy 9, Bob 3.5, Ann 0.5) */
    assert_string_equal(o.users[0], "u3");
    assert_string_equal(o.users[1], "u2");
    assert_string_equal(o.users[2], "u1");
    o.n = 0;
    assert_int_equal(
        store_leaderboard(s, "console", "s1", NULL, NULL, false, 1, leaderboard_row, &o), 1);
    /* An event's leaderboard counts its games only: g2 and g3 (Ann lost g2) */
    o.n = 0;
    assert_int_equal(
        store_leaderboard(s, "console", "s1", "e1", NULL, false, 10, leaderboard_row, &o), 3);
    assert_string_equal(o.users[0], "u3");
    assert_string_equal(o.users[1], "u2");
    assert_string_equal(o.users[2], "u1");
    o.n = 0;
    assert_int_equal(
        store_leaderboard(s, "console", "s1", "e2", NULL, false, 10, leaderboard_row, &o), 0);

    results_with_computers(s);
    store_close(s);
}

/* Results of two games: each game's statistics and leaderboard count its
 * own, and every game's together when none is named. */
static void test_results_by_game(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    static const struct {
        const char *module, *game, *user;
        int score, won;
    } rows[] = {{"illegal", "g1", "u1", 4, 1},
                {"illegal", "g1", "u2", 1, 0},
                {"palm-drewes", "g2", "u1", -50000, 0},
                {"palm-drewes", "g2", "u2", 90000, 1}};
    for (size_t i = 0; i < sizeof rows / sizeof *rows; i++) {
        struct store_result r = {.platform = "console",
                                 .module = rows[i].module,
                                 .community = "s1",
                                 .game = rows[i].game,
                                 .user = rows[i].user,
                                 .name = rows[i].user,
                                 .score = rows[i].score,
                                 .rank = 1,
                                 .won = rows[i].won,
                                 .tally = i == 3};
        assert_int_equal(store_result_put(s, &r), 0);
    }
    struct store_stats st;
    assert_int_equal(store_stats(s, "console", "s1", NULL, "illegal", "u1", &st), 1);
    assert_int_equal(st.games, 1);
    assert_int_equal(st.score_sum, 4);
    assert_int_equal(store_stats(s, "console", "s1", NULL, "palm-drewes", "u2", &st), 1);
    assert_int_equal(st.wins, 1);
    assert_int_equal(st.tally, 1);
    assert_int_equal(st.score_sum, 90000);
    assert_int_equal(store_stats(s, "console", "s1", NULL, NULL, "u1", &st), 1);
    assert_int_equal(st.games, 2);
    assert_int_equal(store_stats(s, "console", "s1", NULL, "chess", "u1", &st), 0);
    struct {
        char users[4][64];
        unsigned n;
    } o = {.n = 0};
    assert_int_equal(
        store_leaderboard(s, "console", "s1", NULL, "illegal", false, 10, leaderboard_row, &o), 2);
    assert_string_equal(o.users[0], "u1");
    o.n = 0;
    assert_int_equal(
        store_leaderboard(s, "console", "s1", NULL, "palm-drewes", false, 10, leaderboard_row, &o),
        2);
    assert_string_equal(o.users[0], "u2");
    store_close(s);
}

/* The game `new` opens, set for a table and for a community, changed and
 * cleared, kept across a reopening. */
static void test_default_games(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    char game[32];
    assert_int_equal(store_default_game_get(s, "console", "table", "t1", game, sizeof game), 0);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_default_game_put(s, "console", "table", "t1", "palm-drewes"), 0);
    assert_int_equal(store_default_game_put(s, "console", "community", "", "illegal"), 0);
    assert_int_equal(store_default_game_put(s, "console", "table", "t1", "illegal"), 0);
    assert_int_equal(store_default_game_put(s, "console", "table", "t2", "palm-drewes"), 0);
    assert_int_equal(store_default_game_put(s, "console", "table", "t2", NULL), 0);
    assert_int_equal(store_commit(s), 0);
    store_close(s);
    s = open_ok(d->db);
    assert_int_equal(store_default_game_get(s, "console", "table", "t1", game, sizeof game), 1);
    assert_string_equal(game, "illegal");
    assert_int_equal(store_default_game_get(s, "console", "community", "", game, sizeof game), 1);
    assert_int_equal(store_default_game_get(s, "console", "table", "t2", game, sizeof game), 0);
    assert_int_equal(store_default_game_get(s, "discord", "table", "t1", game, sizeof game), 0);
    store_close(s);
}

static int count_event(void *arg, const char *id, const char *platform, const char *record)
{
    char *seen = arg;
    assert_string_equal(platform, "console");
    assert_string_equal(record, "{\"id\":\"e1\"}");
    strcat(seen, id);
    return 0;
}

/* Events: written and replaced by id; only the open ones are walked. */
static void test_events(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    char seen[16] = "";
    assert_int_equal(store_event_put(s, "e1", "console", "s1", 0, "{}"), 0);
    assert_int_equal(store_event_put(s, "e1", "console", "s1", 0, "{\"id\":\"e1\"}"), 0);
    assert_int_equal(store_event_put(s, "e2", "console", "s1", 1, "{\"id\":\"e2\"}"), 0);
    assert_int_equal(store_events_open(s, count_event, seen), 0);
    assert_string_equal(seen, "e1");
    store_close(s);
}

static void test_transactions(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_meta_set(s, "next_game", "5"), 0);
    assert_int_equal(store_commit(s), 0);

    assert_int_equal(store_begin(s), 0);
    /* Nested begins are an error; the outer transaction goes on. */
    assert_int_equal(store_begin(s), -1);
    assert_int_equal(store_meta_set(s, "next_game", "6"), 0);
    assert_int_equal(store_game_put(s, "g5", "console", "t1", 0, "{}", NULL, 0), 0);
    store_rollback(s);
    /* Rolling back with no transaction open is harmless. */
    store_rollback(s);

    char *v = store_meta_get(s, "next_game");
    assert_string_equal(v, "5");
    free(v);
    assert_null(store_game_get(s, "g5"));
    store_close(s);
}

/* The longest id whose "console\ntable\nid" key the store's memory of languages
 * holds (bot/store.c's LANGUAGE_KEY_MAX, 320 with the NUL). */
#define LANGUAGE_ID_LONG (320 - sizeof "console\ntable\n")

/* A reader's kept language: what a get remembers follows every put, a rolled
 * back put included, and what another reader keeps does not leak in. */
static void test_languages(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    char lang[16];
    bool chosen = true;
    assert_int_equal(store_language_get(s, "console", "table", "t1", lang, sizeof lang, &chosen),
                     0);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_language_put(s, "console", "table", "t1", "fr", false), 0);
    assert_int_equal(store_language_put(s, "console", "user", "u1", "de", true), 0);
    assert_int_equal(store_commit(s), 0);
    for (int twice = 0; twice < 2; twice++) {
        assert_int_equal(
            store_language_get(s, "console", "table", "t1", lang, sizeof lang, &chosen), 1);
        assert_string_equal(lang, "fr");
        assert_false(chosen);
        assert_int_equal(store_language_get(s, "console", "user", "u1", lang, sizeof lang, &chosen),
                         1);
        assert_string_equal(lang, "de");
        assert_true(chosen);
        assert_int_equal(store_language_get(s, "matrix", "user", "u1", lang, sizeof lang, &chosen),
                         0);
    }
    /* a put undone: the kept value stays, also after a get inside the transaction */
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_language_put(s, "console", "table", "t1", "es", false), 0);
    assert_int_equal(store_language_get(s, "console", "table", "t1", lang, sizeof lang, &chosen),
                     1);
    assert_string_equal(lang, "es");
    store_rollback(s);
    assert_int_equal(store_language_get(s, "console", "table", "t1", lang, sizeof lang, &chosen),
                     1);
    assert_string_equal(lang, "fr");
    /* a put committed after a get that found nothing */
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_language_put(s, "matrix", "user", "u1", "it", false), 0);
    assert_int_equal(store_commit(s), 0);
    assert_int_equal(store_language_get(s, "matrix", "user", "u1", lang, sizeof lang, &chosen), 1);
    assert_string_equal(lang, "it");
    /* ids whose key just fits the memory's and just does not (read from the
     * store each time), each changed after it was read; an answer cut to out */
    char id[2][LANGUAGE_ID_LONG + 2];
    for (int i = 0; i < 2; i++) {
        memset(id[i], 'a' + i, LANGUAGE_ID_LONG + (size_t)i);
        id[i][LANGUAGE_ID_LONG + i] = '\0';
    }
    const char *const langs[2][2] = {{"pt", "nl"}, {"ru", "de"}};
    for (int turn = 0; turn < 2; turn++)
        for (int i = 0; i < 2; i++) {
            assert_int_equal(
                store_language_put(s, "console", "table", id[i], langs[turn][i], false), 0);
            for (int twice = 0; twice < 2; twice++) {
                assert_int_equal(
                    store_language_get(s, "console", "table", id[i], lang, sizeof lang, &chosen),
                    1);
                assert_string_equal(lang, langs[turn][i]);
            }
        }
    assert_int_equal(store_language_get(s, "matrix", "user", "u1", lang, 2, &chosen), 1);
    assert_string_equal(lang, "i");
    store_close(s);

    s = open_ok(d->db);
    assert_int_equal(store_language_get(s, "console", "table", "t1", lang, sizeof lang, &chosen),
                     1);
    assert_string_equal(lang, "fr");
    store_close(s);
}

static int meta_rows(const char *db, const char *key)
{
    char sql[128], n[16];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM meta WHERE key = '%s'", key);
    query_text(db, sql, n, sizeof n);
    return atoi(n);
}

/* Lazy values: seen at once, on disk with the next commit or a flush, and
 * never written over a value set after them. */
static void test_lazy_meta(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    assert_false(store_lazy_pending(s));
    assert_int_equal(store_meta_set_lazy(s, "discord/gateway.0", "seq 1"), 0);
    assert_int_equal(store_meta_set_lazy(s, "discord/gateway.0", "seq 2"), 0);
    assert_true(store_lazy_pending(s));
    char *v = store_meta_get(s, "discord/gateway.0");
    assert_string_equal(v, "seq 2");
    free(v);
    assert_int_equal(meta_rows(d->db, "discord/gateway.0"), 0);
    /* a shorter value is written over the waiting one, a longer one replaces it */
    const char *const values[] = {"", "seq 10", "s", "seq 2"};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        assert_int_equal(store_meta_set_lazy(s, "discord/gateway.0", values[i]), 0);
        v = store_meta_get(s, "discord/gateway.0");
        if (*values[i])
            assert_string_equal(v, values[i]);
        else
            assert_null(v); /* "": deleted, lazily */
        free(v);
    }

    /* A commit of anything carries it. */
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_game_put(s, "g1", "discord", "t1", 0, "{}", NULL, 0), 0);
    assert_int_equal(store_commit(s), 0);
    assert_false(store_lazy_pending(s));
    assert_int_equal(meta_rows(d->db, "discord/gateway.0"), 1);

    /* A rolled-back transaction does not take it with it. */
    assert_int_equal(store_meta_set_lazy(s, "discord/gateway.0", "seq 3"), 0);
    assert_int_equal(store_begin(s), 0);
    store_rollback(s);
    assert_true(store_lazy_pending(s));

    /* Set or deleted afterwards, the key keeps the later value. */
    assert_int_equal(store_meta_set(s, "discord/gateway.0", "seq 4"), 0);
    assert_false(store_lazy_pending(s));
    assert_int_equal(store_meta_set_lazy(s, "k", "lazy"), 0);
    assert_int_equal(store_meta_delete(s, "k"), 0);
    assert_null(store_meta_get(s, "k"));
    assert_int_equal(store_flush_lazy(s), 0);
    assert_int_equal(meta_rows(d->db, "k"), 0);

    /* A flush writes it on its own; closing flushes too. */
    assert_int_equal(store_meta_set_lazy(s, "a", "1"), 0);
    assert_int_equal(store_flush_lazy(s), 0);
    assert_int_equal(meta_rows(d->db, "a"), 1);
    assert_int_equal(store_meta_set_lazy(s, "b", "2"), 0);
    store_close(s);
    assert_int_equal(meta_rows(d->db, "b"), 1);
    s = open_ok(d->db);
    v = store_meta_get(s, "discord/gateway.0");
    assert_string_equal(v, "seq 4");
    free(v);
    store_close(s);
}

struct followed {
    uint64_t version;
    const char *text; /* NULL: nothing to write */
    unsigned asked;
};

static bool followed_text(void *arg, char *out, size_t cap)
{
    struct followed *f = arg;
    f->asked++;
    if (!f->text)
        return false;
    assert_true(strlen(f->text) < cap);
    strcpy(out, f->text);
    return true;
}

/* A followed value: read only when its version moved, written with the next
 * commit or flush, kept pending through a rollback, no longer read once let go. */
static void test_followed_meta(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    struct followed f = {.version = 7, .text = "seq 7"};
    assert_int_equal(store_meta_follow(s, "discord/gateway.0", &f.version, followed_text, &f), 0);
    /* as it stands when followed: nothing to write */
    assert_false(store_lazy_pending(s));
    assert_int_equal(store_flush_lazy(s), 0);
    assert_int_equal(f.asked, 0);
    assert_int_equal(meta_rows(d->db, "discord/gateway.0"), 0);

    /* moved: a commit of anything carries the value as it is then */
    f.version = 8;
    f.text = "seq 8";
    assert_true(store_lazy_pending(s));
    f.version = 9;
    f.text = "seq 9";
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_game_put(s, "g1", "discord", "t1", 0, "{}", NULL, 0), 0);
    assert_int_equal(store_commit(s), 0);
    assert_int_equal(f.asked, 1);
    assert_false(store_lazy_pending(s));
    char *v = store_meta_get(s, "discord/gateway.0");
    assert_string_equal(v, "seq 9");
    free(v);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_commit(s), 0);
    assert_int_equal(f.asked, 1); /* not moved: not asked */

    /* a rolled-back transaction leaves it pending */
    f.version = 10;
    f.text = "seq 10";
    assert_int_equal(store_begin(s), 0);
    store_rollback(s);
    assert_true(store_lazy_pending(s));
    assert_int_equal(store_flush_lazy(s), 0);
    v = store_meta_get(s, "discord/gateway.0");
    assert_string_equal(v, "seq 10");
    free(v);

    /* nothing to write (no session): the stored value stays, and is not pending */
    f.version = 11;
    f.text = NULL;
    assert_int_equal(store_flush_lazy(s), 0);
    assert_false(store_lazy_pending(s));
    v = store_meta_get(s, "discord/gateway.0");
    assert_string_equal(v, "seq 10");
    free(v);

    /* let go: no longer read, even by the close's flush */
    f.version = 12;
    f.text = "seq 12";
    assert_int_equal(store_meta_follow(s, "discord/gateway.0", NULL, NULL, NULL), 0);
    assert_false(store_lazy_pending(s));
    unsigned asked = f.asked;
    store_close(s);
    assert_int_equal(f.asked, asked);
    s = open_ok(d->db);
    v = store_meta_get(s, "discord/gateway.0");
    assert_string_equal(v, "seq 10");
    free(v);
    store_close(s);
}

struct rows {
    unsigned n;
    int64_t ids[8];
    char text[8][16];
};

static int row_fn(void *arg, int64_t id, const char *message)
{
    struct rows *r = arg;
    if (r->n < 8) {
        r->ids[r->n] = id;
        snprintf(r->text[r->n], sizeof r->text[r->n], "%s", message);
    }
    r->n++;
    return 0;
}

static struct rows outbox_rows(struct store *s, const char *platform)
{
    struct rows r;
    memset(&r, 0, sizeof r);
    assert_int_equal(store_outbox_each(s, platform, row_fn, &r), 0);
    return r;
}

/* The outbox: rows land with their transaction (or not at all), come back
 * per platform and in order, leave once sent (lazily, like lazy meta values),
 * and an id is never given twice. */
static void test_outbox(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    int64_t a = 0, b = 0, c = 0, e = 0;
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_outbox_add(s, "discord", "{\"a\":1}", &a), 0);
    assert_int_equal(store_outbox_add(s, "web", "{\"w\":1}", &e), 0);
    assert_int_equal(store_outbox_add(s, "discord", "{\"b\":2}", &b), 0);
    assert_int_equal(store_commit(s), 0);
    assert_true(a > 0 && b > a);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_outbox_add(s, "discord", "{\"gone\":1}", &c), 0);
    store_rollback(s);
    struct rows r = outbox_rows(s, "discord");
    assert_int_equal(r.n, 2);
    assert_true(r.ids[0] == a && r.ids[1] == b);
    assert_string_equal(r.text[0], "{\"a\":1}");
    assert_string_equal(r.text[1], "{\"b\":2}");

    /* sent: still there until the next commit or flush */
    assert_int_equal(store_outbox_sent(s, a), 0);
    assert_true(store_lazy_pending(s));
    assert_int_equal(outbox_rows(s, "discord").n, 2);
    assert_int_equal(store_flush_lazy(s), 0);
    assert_false(store_lazy_pending(s));
    r = outbox_rows(s, "discord");
    assert_int_equal(r.n, 1);
    assert_true(r.ids[0] == b);
    assert_int_equal(outbox_rows(s, "web").n, 1);

    /* a delete rides on a commit, and a new row never takes a used id */
    assert_int_equal(store_outbox_sent(s, b), 0);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_outbox_add(s, "discord", "{\"c\":3}", &c), 0);
    assert_int_equal(store_commit(s), 0);
    r = outbox_rows(s, "discord");
    assert_int_equal(r.n, 1);
    assert_true(c > b && r.ids[0] == c);
    store_close(s);

    /* what was left is there after a reopen */
    s = open_ok(d->db);
    assert_int_equal(outbox_rows(s, "discord").n, 1);
    store_close(s);
}

static void test_reopen_keeps_data(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    assert_int_equal(store_game_put(s, "g1", "console", "t1", 0, "{\"a\":1}", NULL, 0), 0);
    assert_int_equal(store_game_put(s, "g2", "console", "t2", 1, "{\"b\":2}", NULL, 0), 0);
    assert_int_equal(store_meta_set(s, "clock", "42"), 0);
    store_close(s);

    s = open_ok(d->db);
    char v[16];
    query_text(d->db, "PRAGMA user_version", v, sizeof v);
    assert_string_equal(v, "9");
    char *r = store_game_get(s, "g1");
    assert_string_equal(r, "{\"a\":1}");
    free(r);
    r = store_game_get(s, "g2");
    assert_string_equal(r, "{\"b\":2}");
    free(r);
    r = store_meta_get(s, "clock");
    assert_string_equal(r, "42");
    free(r);
    struct walk w;
    memset(&w, 0, sizeof w);
    assert_int_equal(store_games_active(s, walk_fn, &w), 0);
    assert_int_equal(w.n, 1);
    assert_string_equal(w.ids[0], "g1");
    store_close(s);
}

static void test_newer_schema_refused(void **state)
{
    struct dir *d = *state;
    exec_ok(d->db, "CREATE TABLE future (x INTEGER); INSERT INTO future VALUES (10);"
                   "PRAGMA user_version = 10;");

    struct store *s = NULL;
    char err[256] = "";
    assert_int_equal(store_open(&s, d->db, err, sizeof err), -1);
    assert_null(s);
    assert_non_null(strstr(err, "schema version 10"));
    assert_non_null(strstr(err, "newer"));
    assert_non_null(strstr(err, "upgrade illegald"));

    /* Nothing was touched: same version, the newer daemon's data still there. */
    char v[16];
    query_text(d->db, "PRAGMA user_version", v, sizeof v);
    assert_string_equal(v, "10");
    query_text(d->db, "SELECT x FROM future", v, sizeof v);
    assert_string_equal(v, "10");
    query_text(d->db, "SELECT count(*) FROM sqlite_master WHERE name = 'games'", v, sizeof v);
    assert_string_equal(v, "0");
}

/* A store of schema 4 kept the lobbies that closed without a game as
 * finished games; upgrading it deletes them and keeps every game played. */
static void test_upgrade_drops_closed_lobbies(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_game_put(s, "g1", "console", "t1", 1, "{\"started\":true}", NULL, 0), 0);
    assert_int_equal(store_game_put(s, "g2", "console", "t2", 1, "{\"started\":false}", NULL, 0),
                     0);
    assert_int_equal(store_game_put(s, "g3", "console", "t3", 0, "{\"started\":false}", NULL, 0),
                     0);
    assert_int_equal(store_commit(s), 0);
    store_close(s);
    exec_ok(d->db, "DROP TABLE languages; ALTER TABLE results DROP COLUMN computers;"
                   "ALTER TABLE results DROP COLUMN level; ALTER TABLE games DROP COLUMN image;"
                   "DROP TABLE default_games; ALTER TABLE results DROP COLUMN module;"
                   "PRAGMA user_version = 4;");

    s = open_ok(d->db);
    char v[16];
    query_text(d->db, "PRAGMA user_version", v, sizeof v);
    assert_string_equal(v, "9");
    query_text(d->db, "SELECT group_concat(id) FROM (SELECT id FROM games ORDER BY id)", v,
               sizeof v);
    assert_string_equal(v, "g1,g3"); /* the game played, the lobby still open */
    /* and a lobby closing from now on leaves no row */
    assert_int_equal(store_begin(s), 0);
    assert_int_equal(store_game_delete(s, "g3"), 0);
    assert_int_equal(store_game_delete(s, "g9"), 0);
    assert_int_equal(store_commit(s), 0);
    query_text(d->db, "SELECT count(*) FROM games", v, sizeof v);
    assert_string_equal(v, "1");
    store_close(s);
}

/* A game's image (bot/image.h) is written and read with its record, and
 * replaced with it: a put without one leaves none. */
static void test_images(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    static const unsigned char image[] = {'I', 0, 'G', 0xff};
    assert_int_equal(store_game_put(s, "g1", "console", "t1", 0, "{}", image, sizeof image), 0);
    assert_int_equal(store_game_put(s, "g2", "console", "t2", 0, "{}", NULL, 0), 0);
    struct walk w;
    memset(&w, 0, sizeof w);
    assert_int_equal(store_games_active(s, walk_fn, &w), 0);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.images[0], sizeof image);
    assert_int_equal(w.images[1], 0);
    char v[16];
    query_text(d->db, "SELECT hex(image) FROM games WHERE id = 'g1'", v, sizeof v);
    assert_string_equal(v, "490047FF");
    assert_int_equal(store_game_put(s, "g1", "console", "t1", 0, "{\"a\":1}", NULL, 0), 0);
    query_text(d->db, "SELECT count(image) FROM games", v, sizeof v);
    assert_string_equal(v, "0");
    store_close(s);
}

/* A store of schema 7, as the daemon wrote it before images, is upgraded in
 * place: its games keep their records and have no image until they change. */
static void test_upgrade_adds_images(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    assert_int_equal(store_game_put(s, "g1", "console", "t1", 0, "{\"a\":1}", NULL, 0), 0);
    store_close(s);
    exec_ok(d->db, "ALTER TABLE games DROP COLUMN image; DROP TABLE default_games;"
                   "ALTER TABLE results DROP COLUMN module; PRAGMA user_version = 7;");

    s = open_ok(d->db);
    char v[16];
    query_text(d->db, "PRAGMA user_version", v, sizeof v);
    assert_string_equal(v, "9");
    struct walk w;
    memset(&w, 0, sizeof w);
    assert_int_equal(store_games_active(s, walk_fn, &w), 0);
    assert_int_equal(w.n, 1);
    assert_string_equal(w.records[0], "{\"a\":1}");
    assert_int_equal(w.images[0], 0);
    static const unsigned char image[] = {1, 2, 3};
    assert_int_equal(store_game_put(s, "g1", "console", "t1", 0, "{\"a\":2}", image, sizeof image),
                     0);
    query_text(d->db, "SELECT length(image) FROM games", v, sizeof v);
    assert_string_equal(v, "3");
    store_close(s);
}

static void test_unusable_paths(void **state)
{
    struct dir *d = *state;
    struct store *s = NULL;
    char err[256], path[256];

    /* A directory that does not exist. */
    snprintf(path, sizeof path, "%s/missing/illegald.db", d->path);
    err[0] = '\0';
    assert_int_equal(store_open(&s, path, err, sizeof err), -1);
    assert_null(s);
    assert_non_null(strstr(err, path));

    /* A regular file where a directory should be: unwritable even for root. */
    snprintf(path, sizeof path, "%s/not-a-dir", d->path);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
    snprintf(path, sizeof path, "%s/not-a-dir/illegald.db", d->path);
    err[0] = '\0';
    assert_int_equal(store_open(&s, path, err, sizeof err), -1);
    assert_null(s);
    assert_true(err[0] != '\0');

    /* The directory itself. */
    err[0] = '\0';
    assert_int_equal(store_open(&s, d->path, err, sizeof err), -1);
    assert_null(s);
    assert_true(err[0] != '\0');
}

static void test_not_a_database(void **state)
{
    struct dir *d = *state;
    FILE *f = fopen(d->db, "w");
    assert_non_null(f);
    fputs("this is not an SQLite database, just some text that is long enough to have a header"
          " and then some more text so the file is not empty at all\n",
          f);
    fclose(f);
    struct store *s = NULL;
    char err[256] = "";
    assert_int_equal(store_open(&s, d->db, err, sizeof err), -1);
    assert_null(s);
    assert_true(err[0] != '\0');
}

static void test_writable_fails_while_locked(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    assert_int_equal(store_writable(s), 0);

    /* Another connection holds the write lock: the check fails (after the
     * busy timeout) instead of hanging or claiming success. */
    sqlite3 *h;
    assert_int_equal(sqlite3_open(d->db, &h), SQLITE_OK);
    assert_int_equal(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
    assert_int_equal(store_writable(s), -1);
    assert_int_equal(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(h);

    assert_int_equal(store_writable(s), 0);
    store_close(s);
}

/* Two daemons on one store would hand out the same game ids and overwrite
 * each other's games: the second is refused, with the store named. */
static void test_one_daemon_per_store(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db), *t = NULL;
    char err[512] = "", pid[32];
    assert_int_equal(store_open(&t, d->db, err, sizeof err), -1);
    assert_null(t);
    assert_non_null(strstr(err, d->db));
    assert_non_null(strstr(err, "in use by another illegald"));
    snprintf(pid, sizeof pid, "pid %ld", (long)getpid());
    assert_non_null(strstr(err, pid));
    /* The first store is untouched and still works. */
    assert_int_equal(store_game_put(s, "g1", "console", "t1", 0, "{}", NULL, 0), 0);
    store_close(s);
    /* Once it is closed (or its daemon dies), the next one opens it. */
    t = open_ok(d->db);
    char *r = store_game_get(t, "g1");
    assert_non_null(r);
    assert_string_equal(r, "{}");
    free(r);
    store_close(t);
}

/* The store holds every game's secrets: 0600, whatever the umask. */
static void test_files_private(void **state)
{
    struct dir *d = *state;
    static const char *const suffixes[] = {"", "-wal", "-shm", "-lock"};
    char path[160];
    struct stat st;
    mode_t old = umask(022);
    struct store *s = open_ok(d->db);
    assert_int_equal(store_game_put(s, "g1", "console", "t1", 0, "{\"secret\":1}", NULL, 0), 0);
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(path, sizeof path, "%s%s", d->db, suffixes[i]);
        assert_int_equal(stat(path, &st), 0);
        if ((st.st_mode & 0777) != 0600)
            fail_msg("%s has mode %o, want 600", path, (unsigned)(st.st_mode & 0777));
    }
    store_close(s);
    /* A store made readable by others is taken back on open. */
    assert_int_equal(chmod(d->db, 0644), 0);
    s = open_ok(d->db);
    assert_int_equal(stat(d->db, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    store_close(s);
    umask(old);
}

/* A game written again at another table keeps the new table, not the old. */
static void test_upsert_updates_table(void **state)
{
    struct dir *d = *state;
    struct store *s = open_ok(d->db);
    struct walk w = {0};
    assert_int_equal(store_game_put(s, "g1", "console", "t1", 0, "{\"a\":1}", NULL, 0), 0);
    assert_int_equal(store_game_put(s, "g1", "web", "t2", 0, "{\"a\":2}", NULL, 0), 0);
    assert_int_equal(store_games_active(s, walk_fn, &w), 0);
    assert_int_equal(w.n, 1);
    assert_string_equal(w.platforms[0], "web");
    assert_string_equal(w.tables[0], "t2");
    assert_string_equal(w.records[0], "{\"a\":2}");
    store_close(s);
}

int main(void)
{
    /* Expected failures log errors; keep the rest quiet. */
    log_set_level(LOG_ERROR);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_open_creates_schema, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_games, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_results, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_events, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_meta, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_transactions, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_languages, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_lazy_meta, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_followed_meta, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_outbox, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_reopen_keeps_data, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_newer_schema_refused, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_images, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_upgrade_adds_images, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_upgrade_drops_closed_lobbies, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_unusable_paths, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_not_a_database, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_writable_fails_while_locked, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_one_daemon_per_store, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_files_private, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_upsert_updates_table, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_results_by_game, dir_setup, dir_teardown),
        cmocka_unit_test_setup_teardown(test_default_games, dir_setup, dir_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
