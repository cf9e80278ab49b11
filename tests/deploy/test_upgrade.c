/*
 * test_upgrade.c - stop the daemon with SIGTERM mid-game and start the other
 * binary, as an admin upgrading an installed illegald does.
 *
 * A game is played once, uninterrupted, by the installed binary, recording
 * every input. The inputs are then replayed on a fresh store, starting with
 * the binary of the build tree; at several points the daemon is stopped with
 * SIGTERM, must exit 0, and the other binary (installed, then built, ...)
 * starts on the same store. The game must end with the same scores, once.
 *
 * The harness starts whatever UPGRADE_LINK points to, so swapping that
 * symlink is the upgrade.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "console_harness.h"
#include "table_player.h"

#define STOPS 5 /* odd: the game ends on the installed binary */

static void use_binary(const char *bin)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s.new", UPGRADE_LINK);
    unlink(tmp);
    if (symlink(bin, tmp) != 0 || rename(tmp, UPGRADE_LINK) != 0)
        fail_msg("cannot point %s at %s: %s", UPGRADE_LINK, bin, strerror(errno));
}

/* SIGTERM, as systemd and docker stop send it: the daemon must exit 0. */
static void stop_gracefully(struct harness *h)
{
    char buf[4096];
    alarm(60); /* a daemon that ignores SIGTERM fails the test, not hangs it */
    assert_int_equal(kill(h->pid, SIGTERM), 0);
    /* Its stdin stays open: the signal, not the end of input, must stop it.
     * Its stdout ends when it exits. */
    while (read(h->from_child, buf, sizeof buf) > 0)
        ;
    close(h->from_child);
    close(h->to_child);
    int status;
    assert_int_equal(waitpid(h->pid, &status, 0), h->pid);
    alarm(0);
    h->pid = -1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        fail_msg("SIGTERM: the daemon exited with status %d", status);
}

/* Each stop is an upgrade or a downgrade: the next daemon is the other binary. */
static void stop_and_switch(struct harness *h, void *arg)
{
    unsigned *stops = arg;
    stop_gracefully(h);
    (*stops)++;
    use_binary(*stops % 2 ? NEW_BIN : OLD_BIN);
    harness_start(h);
}

static void upgrade_game(unsigned players, const char *variant, uint64_t seed)
{
    struct harness first, second;
    char expected[1024];

    assert_int_equal(access(NEW_BIN, X_OK), 0);
    assert_int_equal(access(OLD_BIN, X_OK), 0);

    use_binary(NEW_BIN);
    tp_record_game(&first, seed, players, variant, expected, sizeof expected);

    use_binary(OLD_BIN);
    harness_init(&second, seed);
    unsigned stops = 0;
    assert_int_equal(harness_replay(&second, &first, STOPS, stop_and_switch, &stops), STOPS);
    assert_int_equal(stops, STOPS);
    tp_check_same_result(&second, expected);
    harness_free(&first);
    harness_free(&second);
}

static void test_upgrade_standard(void **state)
{
    (void)state;
    upgrade_game(4, "standard", 71);
}

static void test_upgrade_casual(void **state)
{
    (void)state;
    upgrade_game(5, "casual", 72);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_upgrade_standard),
        cmocka_unit_test(test_upgrade_casual),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
