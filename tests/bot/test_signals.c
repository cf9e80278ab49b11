/*
 * test_signals.c - SIGHUP reopens the log file; SIGTERM stops cleanly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "console_harness.h"

static bool file_has(const char *path, const char *needle)
{
    char buf[8192];
    FILE *f = fopen(path, "r");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

static void test_hup_and_term(void **state)
{
    (void)state;
    struct harness h;
    char log[400], rotated[410];
    harness_init(&h, 1);
    harness_kill(&h);
    snprintf(log, sizeof log, "%s/illegald.log", h.dir);
    snprintf(rotated, sizeof rotated, "%s.1", log);
    setenv("ILLEGALD_LOG_FILE", log, 1);
    harness_start(&h);
    unsetenv("ILLEGALD_LOG_FILE");
    harness_sync(&h);
    assert_true(file_has(log, "running"));

    /* Rotate the file away, as logrotate would, and ask for a reopen. */
    assert_int_equal(rename(log, rotated), 0);
    kill(h.pid, SIGHUP);
    /* The signal arrives on its own; wait until the daemon has acted on it. */
    for (int tries = 0; !file_has(log, "log reopened"); tries++) {
        assert_true(tries < 1000);
        nanosleep(&(struct timespec){0, 10000000}, NULL);
    }
    harness_message(&h, "t1", "a", "!illegal new", false);
    harness_sync(&h);
    assert_true(file_has(log, "log reopened"));
    assert_true(file_has(log, "new standard game"));
    assert_false(file_has(rotated, "new standard game"));

    /* SIGTERM: a clean exit with status 0, the game kept in the store. */
    kill(h.pid, SIGTERM);
    int status;
    assert_int_equal(waitpid(h.pid, &status, 0), h.pid);
    h.pid = -1;
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    assert_true(file_has(log, "shutting down"));
    close(h.to_child);
    close(h.from_child);
    harness_start(&h);
    harness_message(&h, "t1", "b", "!illegal status", false);
    size_t from = harness_sync(&h);
    assert_true(harness_find(&h, from, "t1", "waiting for players") >= 0);
    assert_int_equal(harness_finish(&h), 0);
    unlink(log);
    unlink(rotated);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hup_and_term),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
