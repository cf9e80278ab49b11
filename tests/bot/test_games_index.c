/*
 * test_games_index.c - the dispatcher's indexes of its games (bot/games.c,
 * G1-G4) and its heap of due times (bot/timers.c, C1) stay true to the
 * games whatever happens to them.
 *
 * A seeded random walk of console lines over a few tables and players:
 * lobbies opened, joined, left, started, ended, kicked, replaced and played
 * again, computers added, removed and standing in (their wake times are due
 * times of their games), private commands, the clock moved past deadlines
 * and idle lobbies.
 * After every line dispatcher_check() walks every game and compares. Then a
 * turn whose commit fails (triggers refuse the games' writes and deletes) is undone
 * whole: the indexes follow the games back, and the same tables hold the
 * same games as before it. The seed is printed; ILLEGALD_TEST_SEED replays.
 * Before its first game a platform has not counted the modules' phases
 * (their code stays unmapped at an idle start): every phase reads 0.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <unistd.h>

#include "adapters/console/console.h"
#include "bot/dispatch.h"
#include "core/modules.h"
#include "core/rng.h"
#include "tests/fuzz/fuzz_host.h"

#define TABLES 4
#define USERS  10
#define STEPS  3000

/* Joins and starts weigh most, so that games fill up and run. */
static const char *const table_words[] = {
    "!illegal new",
    "!illegal new casual",
    "!illegal join",
    "!illegal join",
    "!illegal join",
    "!illegal join",
    "!illegal join",
    "!illegal join",
    "!illegal start",
    "!illegal start",
    "!illegal start",
    "!illegal leave",
    "!illegal end",
    "!illegal rematch",
    "!illegal pause",
    "!illegal resume",
    "!illegal next",
    "!illegal status",
    "!illegal kick u%u",
    "!illegal replace u%u",
    "!illegal gm follow",
    "!illegal set start-at 1h",
    "!illegal set start-at off",
    "!illegal set preset quick",
    "!illegal add computer",
    "!illegal add computer easy",
    "!illegal remove computer",
    "!illegal replace u%u computer",
    "!illegal set stand-in on",
};

static const char *const private_words[] = {
    "hand", "offers", "vote u%u", "abstain", "g%u hand", "language fr", "reminders off", "help",
};

#define REFUSE_WRITES                                                                              \
    "CREATE TRIGGER no_insert BEFORE INSERT ON games BEGIN SELECT RAISE(ABORT, 'test'); END;"      \
    "CREATE TRIGGER no_update BEFORE UPDATE ON games BEGIN SELECT RAISE(ABORT, 'test'); END;"      \
    "CREATE TRIGGER no_delete BEFORE DELETE ON games BEGIN SELECT RAISE(ABORT, 'test'); END;"
#define ALLOW_WRITES "DROP TRIGGER no_insert; DROP TRIGGER no_update; DROP TRIGGER no_delete;"

struct walk {
    struct fuzz_host h;
    struct platform *p;
    struct rng rng;
};

static unsigned pick(struct walk *w, unsigned n)
{
    return (unsigned)(rng_next(&w->rng) % n);
}

static void feed(struct walk *w, const char *line)
{
    console_input(w->p, line, strlen(line), false);
    console_input(w->p, "\n", 1, false);
}

static void check(struct walk *w, const char *after)
{
    char why[256];
    if (dispatcher_check(w->h.d, why, sizeof why) != 0)
        fail_msg("after %s: %s", after, why);
}

/* One random line: a table command, a private one, or the clock. */
static void step(struct walk *w, char *line, size_t len)
{
    char text[128];
    unsigned kind = pick(w, 10), user = pick(w, USERS), other = pick(w, USERS);
    if (kind < 6) {
        snprintf(text, sizeof text, table_words[pick(w, sizeof table_words / sizeof *table_words)],
                 other);
        snprintf(line, len,
                 "{\"type\":\"message\",\"channel\":\"t%u\",\"user\":\"u%u\",\"server\":\"s%u\","
                 "\"moderator\":%s,\"text\":\"%s\"}",
                 pick(w, TABLES), user, pick(w, 2), pick(w, 4) ? "false" : "true", text);
    } else if (kind < 9) {
        snprintf(text, sizeof text,
                 private_words[pick(w, sizeof private_words / sizeof *private_words)],
                 kind == 8 ? pick(w, 40) : other);
        snprintf(line, len,
                 "{\"type\":\"message\",\"channel\":\"dm\",\"user\":\"u%u\",\"text\":\"%s\"}", user,
                 text);
    } else {
        static const unsigned seconds[] = {1, 20, 90, 700, 4000};
        snprintf(line, len, "{\"type\":\"advance\",\"seconds\":%u}", seconds[pick(w, 5)]);
    }
}

static void advance(void *arg, int64_t ms)
{
    dispatcher_advance(arg, ms);
}

/* A fresh store and dispatcher in virtual time, the console writing to
 * devnull, and the walk's rng. */
static void open_walk(struct walk *w, uint64_t seed, int devnull)
{
    fuzz_host_config(&w->h);
    fuzz_host_open(&w->h);
    struct console_options co = {.in_fd = -1, .out_fd = devnull, .advance = advance, .arg = w->h.d};
    w->p = console_platform_new(dispatcher_host(w->h.d), &co);
    assert_non_null(w->p);
    assert_int_equal(dispatcher_add_platform(w->h.d, w->p), 0);
    rng_seed(&w->rng, seed);
}

static uint64_t test_seed(void)
{
    const char *v = getenv("ILLEGALD_TEST_SEED");
    uint64_t seed = v ? strtoull(v, NULL, 10) : (uint64_t)time(NULL);
    printf("seed %llu (ILLEGALD_TEST_SEED=%llu replays)\n", (unsigned long long)seed,
           (unsigned long long)seed);
    return seed;
}

/* Sets *arg when the game (val) has seen a computer's move. */
static void note_computer_move(const char *key, void *val, void *arg)
{
    (void)key;
    const struct game *g = val;
    if (g->computers_moved)
        *(bool *)arg = true;
}

static void test_walk(void **state)
{
    (void)state;
    int devnull = open("/dev/null", O_WRONLY);
    struct walk w;
    open_walk(&w, test_seed(), devnull);
    check(&w, "the start");
    assert_null(w.h.d->hosted[0].phases);
    assert_int_equal(dispatch_games_in_phase(w.h.d, 0, rules_at(0), 0), 0);
    char line[512];
    unsigned most = 0, running = 0;
    bool computer_moved = false;
    /* A game running, a computer among its players, and two lobbies open
     * before the walk, whatever it draws. */
    static const char *const prologue[] = {"t0 u0 new",  "t0 u0 join",         "t0 u1 join",
                                           "t0 u2 join", "t0 u0 add computer", "t0 u0 start",
                                           "t1 u4 new",  "t2 u5 new"};
    for (size_t i = 0; i < sizeof prologue / sizeof *prologue; i++) {
        char table[8], user[8], words[32];
        sscanf(prologue[i], "%7s %7s %31[^\n]", table, user, words);
        snprintf(line, sizeof line,
                 "{\"type\":\"message\",\"channel\":\"%s\",\"user\":\"%s\",\"text\":"
                 "\"!illegal %s\"}",
                 table, user, words);
        feed(&w, line);
        check(&w, line);
    }
    assert_non_null(w.h.d->hosted[0].phases);
    /* The clock runs until the computer has moved, so every seed's walk
     * starts with a computer's wake time among the due times: the walk's own
     * draws could end t0's game before it was due. */
    const char *tick = "{\"type\":\"advance\",\"seconds\":20}";
    for (unsigned i = 0; i < 100 && !computer_moved; i++) {
        feed(&w, tick);
        check(&w, tick);
        map_each(&w.h.d->games, note_computer_move, &computer_moved);
    }
    assert_true(computer_moved);
    for (unsigned i = 0; i < STEPS; i++) {
        step(&w, line, sizeof line);
        feed(&w, line);
        check(&w, line);
        if (i % 50 == 49)
            feed(&w, "{\"type\":\"ping\",\"id\":\"turn\"}"); /* the turn ends */
        unsigned n = dispatcher_game_count(w.h.d);
        most = n > most ? n : most;
        running = n - w.h.d->lobbies > running ? n - w.h.d->lobbies : running;
        map_each(&w.h.d->games, note_computer_move, &computer_moved);
    }
    printf("at most %u games at once, %u of them running\n", most, running);
    assert_true(most >= 3 && running >= 1); /* the walk hosted games to check */
    fuzz_host_close(&w.h);
    close(devnull);
}

/* Each table's game, "t0=g3 t1=- ...", to compare before and after. */
static void tables_text(struct walk *w, char *out, size_t len)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned t = 0; t < TABLES && n < len; t++) {
        char channel[16];
        snprintf(channel, sizeof channel, "t%u", t);
        const struct game *g = dispatch_game_at(w->h.d, w->p, channel);
        n += (size_t)snprintf(out + n, len - n, "%s=%s ", channel, g ? g->id : "-");
    }
}

static void test_undo(void **state)
{
    (void)state;
    int devnull = open("/dev/null", O_WRONLY);
    uint64_t seed = test_seed();
    for (unsigned round = 0; round < 2; round++) {
        struct walk w;
        open_walk(&w, seed + round, devnull);
        char line[512], before[256], after[256];
        for (unsigned i = 0; i < 400; i++) {
            step(&w, line, sizeof line);
            feed(&w, line);
        }
        feed(&w, "{\"type\":\"ping\",\"id\":\"stored\"}");
        check(&w, "the walk");
        unsigned games = dispatcher_game_count(w.h.d);
        tables_text(&w, before, sizeof before);
        /* A turn of changes whose commit cannot happen (triggers refuse
         * every write of a game, and the delete of a lobby closed without
         * one) is undone whole (T2). */
        char path[128];
        sqlite3 *db;
        fuzz_host_store_path(path, sizeof path);
        assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
        assert_int_equal(sqlite3_exec(db, REFUSE_WRITES, NULL, NULL, NULL), SQLITE_OK);
        for (unsigned i = 0; i < 60; i++) {
            step(&w, line, sizeof line);
            if (strstr(line, "advance")) /* the clock ends its turn: keep to one turn */
                continue;
            feed(&w, line);
            check(&w, line);
        }
        feed(&w, "{\"type\":\"ping\",\"id\":\"fails\"}");
        check(&w, "the undo");
        assert_int_equal(dispatcher_game_count(w.h.d), games);
        tables_text(&w, after, sizeof after);
        assert_string_equal(after, before);
        assert_int_equal(sqlite3_exec(db, ALLOW_WRITES, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(db);
        fuzz_host_close(&w.h);
    }
    close(devnull);
}

int main(void)
{
    fuzz_host_setup("games-index");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_walk),
        cmocka_unit_test(test_undo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
