/*
 * test_e2e.c - the real daemon (build/bin/illegald, a separate process)
 * plays whole games on the Discord test server, which runs in this process:
 * the host opens the game with /illegal new, players join with the lobby's
 * Join button, trade by DM text, with the trade builder's selects and the
 * offers' Accept/Decline buttons, grab drop cards with reactions, and vote
 * with the tribunal's buttons, by DM text and with /illegal abstain. One run
 * drops the gateway connection at 20 or more random points and must end
 * with the same result as the uninterrupted one. The last test stops the
 * daemon with SIGTERM mid-lobby and checks that a restart resumes the
 * gateway session without losing what happened meanwhile. The last one plays
 * with sessions that end on their timer and counts the messages posted at
 * the table: at most 30 for the game, none refused, no control left live
 * but Play again, which still opens a lobby after a restart.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "bot/platform.h"
#include "e2e.h"

static char *reference_result;

static void test_game_4(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e(&e, 4, false);
    char *result = play_game(&e);
    assert_non_null(strstr(result, "Game over"));
    assert_all_answered(&e);
    assert_second_grabs_told(&e);
    assert_int_equal(gw(&e, "identifies"), 1);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    reference_result = result;
    teardown_e2e(&e);
}

static void test_game_4_with_drops(void **state)
{
    (void)state;
    assert_non_null(reference_result);
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e(&e, 4, true);
    char *result = play_game(&e);
    /* every drop that hit a live connection made the daemon connect again */
    int reconnects = gw(&e, "connects") - 1;
    fprintf(stderr, "gateway dropped %u times, %d reconnections\n", e.ndrops, reconnects);
    assert_true(reconnects >= 20);
    assert_string_equal(result, reference_result);
    assert_all_answered(&e);
    assert_second_grabs_told(&e);
    assert_int_equal(gw(&e, "identifies"), 1); /* every drop was resumed */
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    free(result);
    free(reference_result);
    reference_result = NULL;
    teardown_e2e(&e);
}

static void test_game_8(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e(&e, 8, false);
    char *result = play_game(&e);
    assert_non_null(strstr(result, "Game over"));
    assert_non_null(strstr(result, "heidi"));
    assert_all_answered(&e);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    free(result);
    teardown_e2e(&e);
}

/* What the daemon logs when a stop's 5 s ended with requests still to go. */
#define NOT_SENT  "requests not sent"
#define STOPS_MAX 10

/* Stops the daemon (SIGTERM) until a stop leaves nothing unsent, then starts it again and waits
 * for its gateway session. */
static void restart_all_sent(struct e2e *e)
{
    for (unsigned stops = 1;; stops++) {
        long from = daemon_log_size(&e->d);
        assert_int_equal(daemon_stop(&e->d, SIGTERM, 10000), 0);
        int connects = gw(e, "connects") + 1;
        daemon_start(&e->d, SEED);
        wait_until(e, is_ready, &connects, "the daemon back");
        if (!daemon_log_has(&e->d, from, NOT_SENT))
            return;
        assert_true(stops < STOPS_MAX);
    }
}

/*
 * A 4-player game whose sessions end on their timer (30 s for the two with a
 * trade, then set to 3 s): the table channel must read as a game, not a log.
 * At most 30 messages are posted there for the game (edits of the lobby and
 * the drops are not new messages), and one more tells of the timer set.
 */
static void test_table_messages(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e_timers(&e, 4, false,
                     "session_seconds = 30\nreveal_seconds = 1\ngrab_seconds = 30\n"
                     "debate_seconds = 600\nvote_seconds = 600\n");
    e.timed = true;
    e.wait_ms = 60000;
    char *result = play_game(&e);
    assert_non_null(strstr(result, "Game over"));
    struct json_object *s = snap(&e);
    struct json_object *msgs = jget(s, "messages");
    int table = 0, edits = 0;
    char results[32] = "";
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        if (strcmp(jstr(m, "channel"), TABLE) != 0)
            continue;
        table++;
        edits += json_object_get_int(jget(m, "edits"));
        /* the game is over: no control is left but the result's Play again */
        const char *title = embed_title(m);
        if (title && strcmp(title, "Results") == 0) {
            const char *id = jstr(m, "id");
            snprintf(results, sizeof results, "%s", id ? id : "");
            assert_true(has_component(m, OUT_ACTION_REMATCH));
            assert_int_equal(json_object_array_length(jget(jget(m, "body"), "components")), 1);
            continue;
        }
        assert_int_equal(json_object_array_length(jget(jget(m, "body"), "components")), 0);
    }
    fprintf(stderr, "table channel: %d messages (%d edits)\n", table, edits);
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    assert_true(table <= 34); /* 30 for the game, the timer set, the recap's three */
    json_object_put(s);
    /* Play again outlives the game: pressed after a restart, when every message of the game
     * was delivered and the adapter forgot the game's controls, it opens a lobby with all four
     * seated. */
    assert_true(results[0]);
    restart_all_sent(&e);
    click(&e, 2, TABLE, false, results, OUT_ACTION_REMATCH, NULL);
    struct msg_want again = {.title = "Illegal — lobby", .n = 1, .text = "Players 4/8"};
    wait_until(&e, message_ready, &again, "the lobby of the game played again");
    assert_all_answered(&e);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    free(result);
    teardown_e2e(&e);
}

static bool client_closed(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return !json_object_get_boolean(jget(jget(s, "gateway"), "connected"));
}

/* Opens a lobby at the table; lobby is set to find its message. */
static void open_lobby(struct e2e *e, struct msg_want *lobby)
{
    *lobby = (struct msg_want){.title = "Illegal — lobby", .n = 0};
    slash(e, 0, "new", NULL);
    wait_until(e, message_ready, lobby, "the lobby");
}

/* Starts the daemon again and waits until it resumed its gateway session
 * (never identifying anew) and the lobby shows `name`, who joined while it
 * was down. */
static void restart_until_joined(struct e2e *e, struct msg_want *lobby, const char *name)
{
    daemon_start(&e->d, SEED);
    int two = 2;
    wait_until(e, is_ready, &two, "the daemon to reconnect");
    lobby->text = name;
    wait_until(e, message_ready, lobby, "a join made while the daemon was down");
    assert_int_equal(gw(e, "identifies"), 1);
    assert_true(gw(e, "resumes") >= 1);
}

static void test_shutdown_and_resume(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    struct msg_want lobby;
    setup_e2e(&e, 4, false);
    open_lobby(&e, &lobby);
    click(&e, 0, TABLE, false, lobby.id, "!illegal join", NULL);
    /* SIGTERM: a clean exit (LeakSanitizer included) that keeps the session */
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    wait_until(&e, client_closed, NULL, "the gateway to close");
    assert_int_equal(gw(&e, "client_close"), CLOSE_4000);
    /* while the daemon is down, bob joins */
    click(&e, 1, TABLE, false, lobby.id, "!illegal join", NULL);
    restart_until_joined(&e, &lobby, "bob");
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

/*
 * kill -9 right after two joins: the gateway's sequence is written with each
 * commit, not on its own disk flush, so the resume after the restart replays
 * only what no commit covered. Neither join is handled twice, and what
 * happened while the daemon was down still arrives.
 */
static void test_crash_resumes_after_the_last_commit(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    struct msg_want lobby;
    setup_e2e(&e, 4, false);
    open_lobby(&e, &lobby);
    click(&e, 0, TABLE, false, lobby.id, "!illegal join", NULL);
    click(&e, 1, TABLE, false, lobby.id, "!illegal join", NULL);
    lobby.text = "bob";
    wait_until(&e, message_ready, &lobby, "bob's join");
    assert_int_equal(daemon_stop(&e.d, SIGKILL, 10000), 128 + SIGKILL);
    wait_until(&e, client_closed, NULL, "the gateway to close");
    click(&e, 2, TABLE, false, lobby.id, "!illegal join", NULL);
    restart_until_joined(&e, &lobby, "carol");
    assert_each_answered_once(&e);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

static bool met_429(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return json_object_get_int(jget(s, "r429")) >= 1;
}

static bool answered_all(struct e2e *e, struct json_object *s, void *arg)
{
    (void)s;
    return fd_callback_count(e->srv) >= *(size_t *)arg;
}

/*
 * kill -9 while a committed lobby edit waits out a long 429: the edit went
 * into the store's outbox in the transaction of the join, so the restarted
 * daemon sends it. Without the outbox the lobby would never show bob.
 */
static void test_crash_keeps_the_outbox(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    struct msg_want lobby;
    setup_e2e(&e, 4, false);
    open_lobby(&e, &lobby);
    fd_force_429(e.srv, "/channels/" TABLE "/messages", 1, false, 600.0);
    size_t answers = fd_callback_count(e.srv) + 1;
    click(&e, 1, TABLE, false, lobby.id, "!illegal join", NULL);
    wait_until(&e, answered_all, &answers, "the join to be answered (so it is committed)");
    wait_until(&e, met_429, NULL, "the lobby's edit to meet the 429");
    assert_int_equal(daemon_stop(&e.d, SIGKILL, 10000), 128 + SIGKILL);
    wait_until(&e, client_closed, NULL, "the gateway to close");
    daemon_start(&e.d, SEED);
    lobby.text = "bob";
    wait_until(&e, message_ready, &lobby, "the lobby's edit, from the outbox");
    struct json_object *s = snap(&e);
    assert_null(table_message(s, "Illegal — lobby", 1)); /* one lobby, edited */
    json_object_put(s);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

struct hand_want {
    const char *user;
    const char *old_id; /* the hand message before "hand" */
};

/* The old hand has lost its controls, and a new hand replies to the command. */
static bool hand_anew(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct hand_want *w = arg;
    struct json_object *msgs = jget(s, "messages"), *old = NULL;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        if (strcmp(jstr(m, "id"), w->old_id) == 0)
            old = m;
    }
    struct json_object *now = dm_with(s, w->user, "tb:give");
    return old && json_object_array_length(jget(jget(old, "body"), "components")) == 0 && now &&
           strcmp(jstr(now, "id"), w->old_id) != 0 && jget(jget(now, "body"), "message_reference");
}

/* "hand" in a DM posts the hand anew, as a reply to the command, and the old
 * hand's trade builder goes: no stale controls stay in the DM. */
static void test_hand_anew(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    struct msg_want lobby;
    setup_e2e(&e, 4, false);
    open_lobby(&e, &lobby);
    seat_all_and_start(&e, &lobby);
    struct json_object *hand = wait_dm(&e, e.players[1], "tb:give");
    char old_id[32], dm[32];
    const char *id = jstr(hand, "id"), *channel = jstr(hand, "channel");
    assert_non_null(id);
    assert_non_null(channel);
    snprintf(old_id, sizeof old_id, "%s", id);
    snprintf(dm, sizeof dm, "%s", channel);
    json_object_put(hand);
    say_dm(&e, 1, dm, "hand");
    struct hand_want w = {e.players[1], old_id};
    wait_until(&e, hand_anew, &w, "the hand posted anew, the old one closed");
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_game_4, kill_live),
        cmocka_unit_test_teardown(test_game_4_with_drops, kill_live),
        cmocka_unit_test_teardown(test_game_8, kill_live),
        cmocka_unit_test_teardown(test_shutdown_and_resume, kill_live),
        cmocka_unit_test_teardown(test_crash_resumes_after_the_last_commit, kill_live),
        cmocka_unit_test_teardown(test_crash_keeps_the_outbox, kill_live),
        cmocka_unit_test_teardown(test_hand_anew, kill_live),
        cmocka_unit_test_teardown(test_table_messages, kill_live),
    };
    return e2e_run(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
