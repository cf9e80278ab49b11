/*
 * test_overdue.c - a player's move that arrives after a deadline passed, but
 * before the clock fired it (a busy loop, a timer woken late), is judged
 * after the deadline: what was due fires first, then the move is applied to
 * what the game has become.
 *
 * The dispatcher runs in virtual time on the console platform; the test
 * moves the virtual clock without firing anything, which is what a late
 * timer looks like to the code that handles the move.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "adapters/console/console.h"
#include "bot/dispatch.h"
#include "tests/fuzz/fuzz_host.h"

struct run {
    struct fuzz_host h;
    struct platform *p;
    FILE *out;
    long read; /* how much of out was read */
};

static void start(struct run *r)
{
    fuzz_host_config(&r->h);
    fuzz_host_open(&r->h);
    r->out = tmpfile();
    assert_non_null(r->out);
    struct console_options co = {.in_fd = -1, .out_fd = fileno(r->out)};
    r->p = console_platform_new(dispatcher_host(r->h.d), &co);
    assert_non_null(r->p);
    assert_int_equal(dispatcher_add_platform(r->h.d, r->p), 0);
    r->read = 0;
}

static void say(struct run *r, const char *channel, const char *user, const char *text)
{
    char line[512];
    snprintf(line, sizeof line,
             "{\"type\":\"message\",\"channel\":\"%s\",\"user\":\"%s\",\"text\":\"%s\"}\n"
             "{\"type\":\"ping\"}\n",
             channel, user, text);
    console_input(r->p, line, strlen(line), false);
}

/* What the daemon wrote since the last call (malloc'd). */
static char *output(struct run *r)
{
    fflush(r->out);
    long end = ftell(r->out);
    char *text = calloc(1, (size_t)(end - r->read) + 1);
    assert_non_null(text);
    assert_int_equal(pread(fileno(r->out), text, (size_t)(end - r->read), r->read), end - r->read);
    r->read = end;
    return text;
}

static void test_move_after_a_deadline(void **state)
{
    (void)state;
    struct run r;
    char user[8];
    start(&r);
    say(&r, "t1", "h", "!illegal new");
    for (int i = 1; i <= 4; i++) {
        snprintf(user, sizeof user, "p%d", i);
        say(&r, "t1", user, "!illegal join");
    }
    say(&r, "t1", "h", "!illegal start");
    free(output(&r));
    /* The first session (3 min) is over, but no timer has fired yet. */
    r.h.d->vnow += 181 * 1000;
    say(&r, "dm", "p1", "offer p2 nothing for 1 alcohol");
    char *out = output(&r);
    const char *closed = strstr(out, "Dealing session 1 is over");
    const char *refused = strstr(out, "not possible at this point");
    if (!closed || !refused || refused < closed)
        fail_msg("the session did not close before the offer was judged:\n%s", out);
    assert_null(strstr(out, "\"kind\":\"offer\""));
    free(out);
    fuzz_host_close(&r.h);
    fclose(r.out);
}

int main(void)
{
    fuzz_host_setup("overdue");
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_move_after_a_deadline)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
