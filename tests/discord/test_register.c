/*
 * test_register.c - the slash commands registered only when they changed
 * (adapters/discord/registration.c), against the test server: the first
 * start registers and keeps a record; a start on the same store with the same
 * commands sends none; another application, the guild commands, the Activity
 * register again where they change; a refusal (4xx, or 5xx and 429 until the
 * stop) keeps no record, so the next start registers; --register-commands
 * registers anyway; a record damaged in the store reads as changed. Then the
 * same through the real daemon (argv[1]) and its SQLite store, the flag on
 * its command line.
 *
 * With application_id set, a start decides as it starts, whether its gateway
 * session resumes or not; without it, at the READY that names the
 * application (a resumed session gets none, and registers nothing).
 * The adapter says it is starting (platform_ops.starting) while a
 * registration it sent waits for its answer, taken or refused, and not after.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>
#include <signal.h>
#include <sqlite3.h>
#include <time.h>

#include "adapters/discord/discord.h"
#include "daemon.h"
#include "harness.h"

#define GLOBAL_KEY "commands/global"
#define GUILD_KEY  "commands/guild/" FD_GUILD_ID
#define OTHER_APP  "900000000000000003"

static size_t count_of(struct harness *h, const char *what)
{
    struct json_object *s = h_snapshot(h), *v = json_object_object_get(s, what);
    size_t n = json_object_is_type(v, json_type_array) ? json_object_array_length(v)
                                                       : (size_t)json_object_get_int(v);
    json_object_put(s);
    return n;
}

/* The path of the n-th registration the server took. */
static char *path_of(struct harness *h, size_t n, char *out, size_t len)
{
    struct json_object *s = h_snapshot(h);
    struct json_object *c = json_object_array_get_idx(json_object_object_get(s, "commands"), n);
    snprintf(out, len, "%s", json_object_get_string(json_object_object_get(c, "path")));
    json_object_put(s);
    return out;
}

static const char *record(struct harness *h, const char *key)
{
    return json_object_get_string(json_object_object_get(h->state, key));
}

static int want_connects;
static bool forget_session; /* a start identifies anew, as after a long stop */

/* Connected again, and every request the start queued answered: a
 * registration it meant to send has reached the server. */
static bool settled(struct harness *h)
{
    struct discord_stats st;
    discord_get_stats(h->p, &st);
    return st.ready_shards > 0 && st.rest_pending == 0 && h_gw(h, "connects") >= want_connects;
}

static size_t want_commands;

/* Whether the adapter says a registration of its start waits for an answer. */
static bool starting(struct harness *h)
{
    return h->p->ops->starting(h->p);
}

static bool registered(struct harness *h)
{
    return count_of(h, "commands") >= want_commands && settled(h);
}

/* A start on the same store: the gateway resumes its session, or identifies
 * when forget_session. Waits until what it sent was answered. */
static void start_again(struct harness *h)
{
    if (forget_session)
        json_object_object_del(h->state, "discord.gateway.0");
    want_connects = h_gw(h, "connects") + 1;
    h_start_adapter(h);
    assert_true(h_run_until(h, settled, 10000));
}

static void restart(struct harness *h)
{
    h_stop_adapter(h);
    start_again(h);
}

static void first_start(struct harness *h)
{
    h_init(h, 1000, true);
    assert_true(starting(h)); /* queued as it started, not answered yet */
    want_connects = 1;
    want_commands = 1;
    assert_true(h_run_until(h, registered, 10000));
    assert_int_equal(count_of(h, "commands"), 1);
    assert_non_null(record(h, GLOBAL_KEY));
    assert_false(starting(h));
}

/* The same commands at a second start: no request, the record kept. */
static void test_second_start_sends_none(void **state)
{
    (void)state;
    struct harness h;
    first_start(&h);
    char kept[256];
    snprintf(kept, sizeof kept, "%s", record(&h, GLOBAL_KEY));
    assert_int_equal(strncmp(kept, "1 ", 2), 0); /* the record's format, then the build id */
    assert_non_null(strstr(kept, " " FD_APP_ID " commands"));
    for (int i = 0; i < 2; i++) {
        restart(&h);
        assert_int_equal(count_of(&h, "commands"), 1);
        assert_string_equal(record(&h, GLOBAL_KEY), kept);
        assert_false(starting(&h)); /* nothing sent, nothing to wait for */
    }

    /* the application named by READY alone: decided there */
    h_stop_adapter(&h);
    json_object_object_del(h.state, GLOBAL_KEY);
    h.cfg.discord_application_id = NULL;
    forget_session = true;
    start_again(&h);
    assert_int_equal(count_of(&h, "commands"), 2);
    assert_string_equal(record(&h, GLOBAL_KEY), kept);
    restart(&h);
    assert_int_equal(count_of(&h, "commands"), 2);
    forget_session = false;
    h_fini(&h);
}

/* Another application; the guild commands; the Activity's Entry Point: each
 * registers where it changes what a target gets, and nowhere else. */
static void test_changed_set_registers_again(void **state)
{
    (void)state;
    struct harness h;
    char path[160];
    first_start(&h);

    h.cfg.discord_application_id = OTHER_APP;
    restart(&h);
    assert_int_equal(count_of(&h, "commands"), 2);
    assert_string_equal(path_of(&h, 1, path, sizeof path), "/applications/" OTHER_APP "/commands");
    assert_non_null(strstr(record(&h, GLOBAL_KEY), " " OTHER_APP " commands"));
    h.cfg.discord_application_id = FD_APP_ID;
    restart(&h); /* back to the first application, whose record was replaced */
    assert_int_equal(count_of(&h, "commands"), 3);

    static char *guilds[] = {FD_GUILD_ID};
    h.cfg.discord_guilds[0] = guilds[0];
    h.cfg.discord_nguilds = 1;
    restart(&h); /* the guild's commands, never registered: only they go */
    assert_int_equal(count_of(&h, "commands"), 4);
    assert_string_equal(path_of(&h, 3, path, sizeof path),
                        "/applications/" FD_APP_ID "/guilds/" FD_GUILD_ID "/commands");
    assert_non_null(strstr(record(&h, GUILD_KEY), " " FD_APP_ID " guild"));
    restart(&h);
    assert_int_equal(count_of(&h, "commands"), 4);

    /* the Activity adds the Entry Point command to the global ones alone */
    h.cfg.discord_activity = true;
    h.cfg.discord_client_secret = "secret";
    restart(&h);
    assert_int_equal(count_of(&h, "commands"), 5);
    assert_string_equal(path_of(&h, 4, path, sizeof path), "/applications/" FD_APP_ID "/commands");
    assert_non_null(strstr(record(&h, GLOBAL_KEY), " launch en"));
    restart(&h);
    assert_int_equal(count_of(&h, "commands"), 5);
    h_fini(&h);
}

static bool forced_once(struct harness *h)
{
    return count_of(h, "forced") >= 1;
}

/* Discord refuses for good (4xx), or keeps answering 5xx or 429 until the
 * daemon stops: no record, and the next start registers. */
static void test_refused_is_not_recorded(void **state)
{
    (void)state;
    static const int statuses[] = {400, 503, 429};
    for (size_t i = 0; i < sizeof statuses / sizeof *statuses; i++) {
        struct harness h;
        h_init(&h, 1000, true); /* the loop has not run: nothing sent yet */
        if (statuses[i] == 429)
            fd_force_429(h.srv, "/applications/", 1000, false, 0.5);
        else
            fd_force_status(h.srv, "/applications/", 1000, statuses[i]);
        assert_true(h_run_until(&h, forced_once, 10000));
        if (statuses[i] == 400) {
            want_connects = 1;
            assert_true(h_run_until(&h, settled, 10000)); /* final: answered */
            assert_false(starting(&h));
        } else {
            assert_true(starting(&h)); /* tried again until the stop */
        }
        h_stop_adapter(&h);
        assert_int_equal(count_of(&h, "commands"), 0);
        assert_null(record(&h, GLOBAL_KEY));
        fd_clear_forces(h.srv);
        /* the stopped adapter's last try may still land now, unanswered to it:
         * the record is what tells that the new start registered */
        start_again(&h);
        assert_true(count_of(&h, "commands") >= 1);
        assert_non_null(record(&h, GLOBAL_KEY));
        h_fini(&h);
    }
}

/* --register-commands: registered again, though nothing changed. */
static void test_forced(void **state)
{
    (void)state;
    struct harness h;
    first_start(&h);
    h.cfg.discord_register_commands = true;
    restart(&h);
    assert_int_equal(count_of(&h, "commands"), 2);
    h.cfg.discord_register_commands = false;
    restart(&h);
    assert_int_equal(count_of(&h, "commands"), 2);
    h_fini(&h);
}

/* Whatever the store holds in the record's place reads as changed: the
 * commands go again, and the record is made good. */
static void test_damaged_record(void **state)
{
    (void)state;
    static char long_one[8192];
    memset(long_one, '1', sizeof long_one - 1);
    const char *damaged[] = {
        "", "1", "garbage", "1 zz 900000000000000002 commands", "\xff\xfe\x01 \t\n", long_one};
    struct harness h;
    first_start(&h);
    char good[256];
    snprintf(good, sizeof good, "%s", record(&h, GLOBAL_KEY));
    size_t n = 1;
    for (size_t i = 0; i < sizeof damaged / sizeof *damaged; i++) {
        h_stop_adapter(&h);
        json_object_object_add(h.state, GLOBAL_KEY, json_object_new_string(damaged[i]));
        start_again(&h);
        assert_int_equal(count_of(&h, "commands"), ++n);
        assert_string_equal(record(&h, GLOBAL_KEY), good);
    }
    /* a record half-written: its start only */
    good[strlen(good) / 2] = '\0';
    h_stop_adapter(&h);
    json_object_object_add(h.state, GLOBAL_KEY, json_object_new_string(good));
    start_again(&h);
    assert_int_equal(count_of(&h, "commands"), n + 1);
    h_fini(&h);
}

/* ---- the real daemon ---- */

static const char *illegald_path = "bin/illegald";

/* Runs one statement on the daemon's store (stopped). */
static void store_exec(const struct daemon *d, const char *sql)
{
    char path[160];
    snprintf(path, sizeof path, "%s/illegald.db", d->dir);
    sqlite3 *db = NULL;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

/* Starts the daemon again on its store and waits for the line that says
 * what it did with the commands. */
static void daemon_again(struct daemon *d, struct fd_server *srv, const char *option,
                         const char *says)
{
    long from = daemon_log_size(d);
    daemon_start_with(d, NULL, option);
    for (int waited = 0; !daemon_log_has(d, from, says); waited += 10) {
        if (waited > 30000) {
            daemon_dump_log(d);
            fail_msg("the daemon (FD_SEED=%lu) never said \"%s\"", fd_seed(srv), says);
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

static size_t server_commands(struct fd_server *srv)
{
    struct json_object *s = fd_snapshot(srv);
    size_t n = json_object_array_length(json_object_object_get(s, "commands"));
    json_object_put(s);
    return n;
}

#define SAYS_TAKEN "slash commands registered (guild/" FD_GUILD_ID ")"
#define SAYS_SAME  "slash commands: the same as at their last registration"

static void test_daemon_store_and_flag(void **state)
{
    (void)state;
    struct fd_server *srv = fd_start("test-token", 1000);
    struct daemon d;
    daemon_setup(&d, illegald_path, srv, NULL);
    daemon_again(&d, srv, NULL, SAYS_TAKEN);
    assert_int_equal(server_commands(srv), 1);
    assert_int_equal(daemon_stop(&d, SIGTERM, 10000), 0);

    daemon_again(&d, srv, NULL, SAYS_SAME);
    assert_int_equal(server_commands(srv), 1);
    assert_int_equal(daemon_stop(&d, SIGTERM, 10000), 0);

    daemon_again(&d, srv, "--register-commands", SAYS_TAKEN);
    assert_int_equal(server_commands(srv), 2);
    assert_int_equal(daemon_stop(&d, SIGTERM, 10000), 0);

    store_exec(&d, "UPDATE meta SET value = 'garbage' WHERE key LIKE 'discord/commands/%'");
    daemon_again(&d, srv, NULL, SAYS_TAKEN);
    assert_int_equal(server_commands(srv), 3);
    assert_int_equal(daemon_stop(&d, SIGTERM, 10000), 0);
    daemon_cleanup(&d);
    fd_stop(srv);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        illegald_path = argv[1];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_second_start_sends_none),
        cmocka_unit_test(test_changed_set_registers_again),
        cmocka_unit_test(test_refused_is_not_recorded),
        cmocka_unit_test(test_forced),
        cmocka_unit_test(test_damaged_record),
        cmocka_unit_test(test_daemon_store_and_flag),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
