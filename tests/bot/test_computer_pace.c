/*
 * test_computer_pace.c - computer players move no faster than their
 * platform allows (K3 in bot/computers.h): on a platform that asks for a
 * second between two moves at a table, no two computer moves of a game come
 * closer; on one that asks for nothing, they do (so the check can fail).
 *
 * The dispatcher runs in virtual time on the console platform, its ops
 * copied with a gap of its own; the clock moves a millisecond at a time
 * through the first minute of a game of one person and three computers, and
 * every time a computer moves is read from the game. The daemon's
 * computer_pace setting scales their delays, 0 moving at once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/console/console.h"
#include "bot/dispatch.h"
#include "tests/fuzz/fuzz_host.h"

#define WATCH_MS 60000 /* the first session, where every computer offers */

static void say(struct platform *p, const char *user, const char *text)
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"type\":\"message\",\"channel\":\"t1\",\"user\":\"%s\",\"text\":\"%s\"}\n", user,
             text);
    console_input(p, line, strlen(line), false);
}

struct watch {
    unsigned gap_ms; /* the platform's */
    int pace;        /* [game] computer_pace */
    unsigned moves;  /* out: how many computer moves in the first minute */
    int64_t least;   /* out: the least time between two of them */
    int64_t first;   /* out: the first one's, from the start */
};

/* Plays the first minute of a game of one person and three computers. */
static void watch(struct watch *w)
{
    struct fuzz_host h;
    static struct platform_ops paced;
    fuzz_host_config(&h);
    h.config.computer_pace = w->pace;
    fuzz_host_open(&h);
    FILE *out = tmpfile();
    assert_non_null(out);
    struct console_options co = {.in_fd = -1, .out_fd = fileno(out)};
    struct platform *p = console_platform_new(dispatcher_host(h.d), &co);
    assert_non_null(p);
    paced = *p->ops;
    paced.computer_gap_ms = w->gap_ms;
    p->ops = &paced;
    assert_int_equal(dispatcher_add_platform(h.d, p), 0);
    say(p, "p1", "!illegal new");
    say(p, "p1", "!illegal join");
    for (int i = 0; i < 3; i++)
        say(p, "p1", "!illegal add computer");
    say(p, "p1", "!illegal start");
    turn_flush(h.d);
    struct game *g = dispatch_game_at(h.d, p, "t1");
    assert_non_null(g);
    assert_true(g->started);
    int64_t last = 0, start = dispatcher_now(h.d);
    w->least = INT64_MAX;
    w->moves = 0;
    for (int64_t ms = 0; ms < WATCH_MS; ms++) {
        dispatcher_advance(h.d, 1);
        if (g->computers_moved == last)
            continue;
        if (last && g->computers_moved - last < w->least)
            w->least = g->computers_moved - last;
        if (!last)
            w->first = g->computers_moved - start;
        last = g->computers_moved;
        w->moves++;
    }
    fuzz_host_close(&h);
    fclose(out);
}

static int64_t least_gap(unsigned gap_ms, unsigned *moves)
{
    struct watch w = {.gap_ms = gap_ms, .pace = 100};
    watch(&w);
    *moves = w.moves;
    return w.least;
}

static void test_a_second_apart(void **state)
{
    (void)state;
    unsigned moves;
    int64_t least = least_gap(1000, &moves);
    printf("a gap of 1 s: %u computer moves, the closest %lld ms apart\n", moves, (long long)least);
    assert_true(moves >= 5);
    assert_true(least >= 1000);
}

static void test_no_gap_asked(void **state)
{
    (void)state;
    unsigned moves;
    int64_t least = least_gap(0, &moves);
    printf("no gap: %u computer moves, the closest %lld ms apart\n", moves, (long long)least);
    assert_true(moves >= 5);
    assert_true(least < 1000);
}

/* [game] computer_pace scales the computers' delays: at 0 the first move
 * comes at the start, at 300 later than at 100 (the same seed draws the
 * same delays). */
static void test_pace_setting(void **state)
{
    (void)state;
    struct watch at[] = {{.pace = 0}, {.pace = 100}, {.pace = 300}};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        watch(&at[i]);
        printf("pace %d: the first computer move %lld ms after the start\n", at[i].pace,
               (long long)at[i].first);
        assert_true(at[i].moves >= 1);
    }
    assert_true(at[0].first <= 1);
    assert_true(at[1].first > at[0].first);
    assert_true(at[2].first > at[1].first);
}

int main(void)
{
    fuzz_host_setup("computer-pace");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_second_apart),
        cmocka_unit_test(test_no_gap_asked),
        cmocka_unit_test(test_pace_setting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
