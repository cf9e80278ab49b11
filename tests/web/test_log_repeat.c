/*
 * test_log_repeat.c - a run of identical log lines is written once and then
 * counted, as when libwebsockets repeats one accept() error: the file stays
 * small and says how many lines it folded.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bot/log.h"

/* Reads path's lines into lines (at most max); returns how many. */
static int read_lines(const char *path, char lines[][256], int max)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    int n = 0;
    char buf[256];
    while (fgets(buf, sizeof buf, f)) {
        if (n < max)
            snprintf(lines[n], 256, "%s", buf);
        n++;
    }
    fclose(f);
    return n;
}

static void test_identical_lines_fold(void **state)
{
    (void)state;
    char path[] = "/tmp/illegald-log-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(log_open(path), 0);
    log_set_level(LOG_DEBUG);
    for (int i = 0; i < 10000; i++)
        log_error("web", NULL, "lws: accept: errno %d", 24);
    log_warn("web", NULL, "something else");
    log_warn("web", "g1", "something else"); /* another game: another line */
    log_info("web", NULL, "one");
    log_info("web", NULL, "one");
    log_close();

    char lines[16][256];
    int n = read_lines(path, lines, 16);
    unlink(path);
    assert_int_equal(n, 6);
    assert_non_null(strstr(lines[0], "error web lws: accept: errno 24"));
    assert_non_null(strstr(lines[1], "error web last line repeated 9999 times"));
    assert_non_null(strstr(lines[2], "warn  web something else"));
    assert_non_null(strstr(lines[3], "warn  web game=g1 something else"));
    assert_non_null(strstr(lines[4], "info  web one"));
    /* the run still pending at close is counted too */
    assert_non_null(strstr(lines[5], "info  web last line repeated 1 times"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identical_lines_fold),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
