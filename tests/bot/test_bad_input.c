/*
 * test_bad_input.c - nonsense from users and from the input stream.
 *
 * Every bad input gets a clear answer, the daemon keeps running, and the game
 * it was aimed at is unchanged and still playable. Answers that read the same
 * on every run are transcript cases (tests/transcripts/cases/bad-input.txt);
 * what stays here needs code: a line too long to write down, bad moves in a
 * game whose cards depend on the deal, the game then played to its end with
 * the secrecy scan, the lobby limits set through the environment, and a
 * second daemon forked on the same store.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "console_harness.h"
#include "table_player.h"

static struct harness h;

static void expect_raw(const char *line, const char *where, const char *want)
{
    harness_send(&h, line);
    size_t from = harness_sync(&h);
    for (size_t i = from; i < h.nlines; i++) {
        const char *text = line_str(h.lines[i], "text");
        const char *type = line_str(h.lines[i], "type");
        bool here = where ? line_in(h.lines[i], where) : (type && strcmp(type, "error") == 0);
        if (here && text && strstr(text, want))
            return;
    }
    fail_msg("after %s: no \"%s\"", line, want);
}

static void expect(const char *channel, const char *user, const char *text, const char *where,
                   const char *want)
{
    harness_message(&h, channel, user, text, false);
    size_t from = harness_sync(&h);
    if (harness_find(&h, from, where, want) < 0) {
        for (size_t i = from; i < h.nlines; i++)
            fprintf(stderr, "  %s\n", json_object_to_json_string(h.lines[i]));
        fail_msg("after \"%s\" by %s, %s did not get \"%s\"", text, user, where, want);
    }
}

static void test_bad_input(void **state)
{
    (void)state;
    struct table_player tp;
    harness_init(&h, 3);

    /* The input stream: a line longer than the console takes. */
    char *huge = malloc(70000 + 64);
    assert_non_null(huge);
    memset(huge, 'x', 70000);
    huge[70000] = '\0';
    expect_raw(huge, NULL, "longer than 64 KiB");
    free(huge);

    tp_open(&tp, &h, "t2", 4, "standard");
    const char *p1 = tp.users[0], *p2 = tp.users[1];
    char text[512];

    /* Outsiders, non-moderators, wrong phases, bad names. */
    expect("t2", "stranger", "!illegal grab guns", "t2", "Only the game's players");
    expect("dm", "stranger", "offer t2-p1 1 guns for nothing", "dm:stranger",
           "This bot hosts games of Illegal");
    expect("t2", p2, "!illegal next", "t2", "Only the host or a moderator");
    expect("t2", p2, "!illegal kick t2-p1", "t2", "Only the host or a moderator");
    expect("t2", p2, "!illegal end", "t2", "Only the host or a moderator");
    expect("dm", p1, "vote t2-p2", "dm:t2-p1", "not possible at this point");
    snprintf(text, sizeof text, "!illegal grab %s", tp.dealer[0]);
    expect("t2", p1, text, "dm:t2-p1", "not possible at this point");
    expect("dm", p1, "offer t2-p2 2 bananas for nothing", "dm:t2-p1", "No card called \"bananas\"");
    expect("dm", p1, "offer t2-p2 1 arms dealer for nothing", "dm:t2-p1", "can never be traded");
    expect("dm", p1, "offer t2-p2 0 guns for nothing", "dm:t2-p1", "counts from 1 to 99");
    expect("dm", p1, "offer nobody 1 guns for nothing", "dm:t2-p1", "No player called");
    expect("dm", p1, "offer t2-p 1 guns for nothing", "dm:t2-p1", "could be several players");
    expect("dm", p1, "offer t2-p2 nothing for nothing", "dm:t2-p1", "at least one card");
    snprintf(text, sizeof text, "offer t2-p1 nothing for 1 %s", tp.dealer[1]);
    expect("dm", p1, text, "dm:t2-p1", "trade with yourself");
    expect("dm", p1, "offer t2-p2 1 guns", "dm:t2-p1", "Usage: offer");
    expect("dm", p1, "accept 77", "dm:t2-p1", "no open offer with that number");
    expect("dm", p1, "accept soon", "dm:t2-p1", "Usage: accept");
    snprintf(text, sizeof text, "offer t2-p2 99 %s for nothing", tp.dealer[0]);
    expect("dm", p1, text, "dm:t2-p1", "do not hold the cards you offer");
    snprintf(text, sizeof text, "offer t2-p2 1 %s for nothing", tp.dealer[0]);
    expect("dm", p1, text, "dm:t2-p2", "Offer #1");
    expect("dm", p1, "accept 1", "dm:t2-p1", "not made to you");
    expect("dm", p2, "cancel 1", "dm:t2-p2", "not yours to cancel");
    expect("t2", p1, "!illegal extend 0", "t2", "Usage: !illegal extend");
    expect("t2", p1, "!illegal set session forever", "t2", "not a valid value");
    expect("t2", p1, "!illegal set variant casual", "t2", "only be changed before the game starts");
    snprintf(text, sizeof text, "!illegal %0300d", 1);
    expect("t2", p1, text, "t2", "Unknown command");
    snprintf(text, sizeof text, "vote %0300d", 1);
    expect("dm", p1, text, "dm:t2-p1", "too long");

    /* After all that, the game plays on to the end. */
    tp_scan(&tp);
    tp_play_to_end(&tp);
    tp_check_secrets(&tp);
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

static void advance(unsigned seconds)
{
    harness_sendf(&h, "{\"type\":\"advance\",\"seconds\":%u}", seconds);
    harness_sync(&h);
}

/* One user cannot fill the daemon with lobbies: idle lobbies close (after
 * [game] lobby_idle_seconds, told to the table) and a host has at most
 * [game] lobbies_per_host open at once. Both settings come from the
 * environment here, through the real loader. */
static void test_lobbies(void **state)
{
    (void)state;
    setenv("ILLEGALD_GAME_LOBBY_IDLE_SECONDS", "600", 1);
    setenv("ILLEGALD_GAME_LOBBIES_PER_HOST", "2", 1);
    harness_init(&h, 6);

    expect("t1", "host", "!illegal new", "t1",
           "if its lobby sees no join, leave, setting or start "
           "for 10 min");
    expect("t2", "host", "!illegal new", "t2", "hosted by");
    expect("t3", "host", "!illegal new", "t3", "already host 2 open lobbies");
    expect("t3", "other", "!illegal new", "t3", "hosted by");

    /* Activity keeps a lobby open; idleness closes it, stored as finished. */
    advance(500);
    expect("t1", "ann", "!illegal join", "t1", "Players 1/8: ann.");
    advance(200);
    size_t from = h.nlines;
    assert_true(harness_find(&h, from, "t2", "was idle for 10 min") < 0);
    expect("t1", "ann", "!illegal status", "t1", "waiting for players: 1/8");
    assert_true(harness_find(&h, 0, "t2", "was idle for 10 min") >= 0);
    expect("t2", "ann", "!illegal status", "t2", "No game at this table");
    /* The host may open another now. */
    expect("t2", "host", "!illegal new", "t2", "hosted by");

    /* A restart keeps each lobby's idle time. */
    harness_kill(&h);
    harness_start(&h);
    advance(399);
    expect("t1", "ann", "!illegal status", "t1", "waiting for players: 1/8");
    advance(2);
    assert_true(harness_find(&h, 0, "t1", "Game g1 closed: its lobby was idle") >= 0);
    advance(600);
    expect("t3", "other", "!illegal status", "t3", "No game at this table");
    expect("t2", "host", "!illegal status", "t2", "No game at this table");
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
    unsetenv("ILLEGALD_GAME_LOBBY_IDLE_SECONDS");
    unsetenv("ILLEGALD_GAME_LOBBIES_PER_HOST");
}

/* A second daemon on a store in use refuses to start, naming the store, and
 * the first keeps every game. */
static void test_second_daemon(void **state)
{
    (void)state;
    int err[2];
    char buf[4096];
    size_t n = 0;
    harness_init(&h, 7);
    expect("t1", "host", "!illegal new", "t1", "hosted by");
    assert_int_equal(pipe(err), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, 0);
        dup2(null, 1);
        dup2(err[1], 2);
        close(err[0]);
        unsetenv("ILLEGALD_STORE_PATH");
        execl(ILLEGALD_BIN, "illegald", "--console", "--store", h.store, (char *)NULL);
        _exit(127);
    }
    close(err[1]);
    for (ssize_t r; n < sizeof buf - 1 && (r = read(err[0], buf + n, sizeof buf - 1 - n)) > 0;)
        n += (size_t)r;
    buf[n] = '\0';
    close(err[0]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) != 0);
    if (!strstr(buf, h.store) || !strstr(buf, "in use by another illegald"))
        fail_msg("the second daemon said: %s", buf);
    expect("t1", "ann", "!illegal status", "t1", "waiting for players");
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_lobbies),
        cmocka_unit_test(test_second_daemon),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
