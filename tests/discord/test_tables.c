/*
 * test_tables.c - what a player at two tables, and a player of the next game
 * at the same table, meet: the buttons in their DMs carry their game, so an
 * offer is answered without "which game?", the offer names its table, and
 * the "which game?" of a typed command names the tables as links (B1); a
 * button of a game that is over is refused with a word to the presser alone,
 * and does nothing to the game now at that table (B2); an offer sent again
 * from the outbox after a kill -9 keeps its buttons (N6).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e.h"

#define TABLE_2 "530000000000000002"

enum { ALICE, BOB, CAROL, DAVE, ERIN, FRANK, GRACE };

/* Opens a game at e2e_table, hosted by seats[0], joined by the four seats
 * with the lobby's button, and started. */
static void open_and_start(struct e2e *e, const unsigned *seats, int lobby_n)
{
    slash(e, seats[0], "new", NULL);
    struct msg_want lobby = {.title = "Illegal — lobby", .n = lobby_n};
    wait_until(e, message_ready, &lobby, "the lobby");
    for (unsigned i = 0; i < 4; i++)
        click(e, seats[i], e2e_table, false, lobby.id, "!illegal join", NULL);
    lobby.text = "Players 4/8";
    wait_until(e, message_ready, &lobby, "four players");
    click(e, seats[0], e2e_table, false, lobby.id, "!illegal start", NULL);
    lobby.text = "started with";
    wait_until(e, message_ready, &lobby, "the start");
}

/* The last DM to user whose text starts with the mention of table and that
 * has the control for action, as a copy (NULL when none). */
static struct json_object *dm_at(struct json_object *s, const char *user, const char *table,
                                 const char *action)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "<#%s>", table);
    struct json_object *msgs = jget(s, "messages"), *found = NULL;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *u = jstr(m, "dm_user"), *c = jstr(jget(m, "body"), "content");
        const char *d = embed_text(m);
        const char *text = c && *c ? c : d;
        if (u && strcmp(u, user) == 0 && text && strncmp(text, prefix, strlen(prefix)) == 0 &&
            (!action || has_component(m, action)))
            found = m;
    }
    return found ? json_tokener_parse(json_object_to_json_string(found)) : NULL;
}

struct at_want {
    const char *user, *table, *action;
    struct json_object *msg; /* out */
};

static bool dm_at_ready(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct at_want *w = arg;
    return (w->msg = dm_at(s, w->user, w->table, w->action)) != NULL;
}

static struct json_object *wait_dm_at(struct e2e *e, unsigned who, const char *table,
                                      const char *action)
{
    struct at_want w = {e->players[who], table, action, NULL};
    wait_until(e, dm_at_ready, &w, action ? action : "a DM of the table");
    return w.msg;
}

/* who, at their game of table, gives whom a gift of their first card, by DM text. */
static void gift(struct e2e *e, unsigned who, const char *table, const char *to)
{
    struct json_object *hand = wait_dm_at(e, who, table, "tb:give");
    const char *give = jstr(json_object_array_get_idx(select_options(hand, "tb:give"), 0), "value");
    char cmd[160];
    snprintf(cmd, sizeof cmd, "offer %s %s for nothing", to, give);
    say_dm(e, who, jstr(hand, "channel"), cmd);
    json_object_put(hand);
}

struct text_want {
    const char *user, *text;
};

/* Some DM to user has text in its content. */
static bool dm_text(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct text_want *w = arg;
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *u = jstr(m, "dm_user"), *c = jstr(jget(m, "body"), "content");
        if (u && strcmp(u, w->user) == 0 && c && strstr(c, w->text))
            return true;
    }
    return false;
}

static int dm_count(struct json_object *s, const char *user, const char *text)
{
    struct json_object *msgs = jget(s, "messages");
    int n = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *u = jstr(m, "dm_user"), *c = jstr(jget(m, "body"), "content");
        n += u && strcmp(u, user) == 0 && c && strstr(c, text);
    }
    return n;
}

/* The message with this id, as a copy. */
static struct json_object *message(struct e2e *e, const char *id)
{
    struct json_object *s = snap(e), *msgs = jget(s, "messages"), *found = NULL;
    for (size_t i = 0; i < json_object_array_length(msgs); i++)
        if (strcmp(jstr(json_object_array_get_idx(msgs, i), "id"), id) == 0)
            found =
                json_tokener_parse(json_object_to_json_string(json_object_array_get_idx(msgs, i)));
    json_object_put(s);
    return found;
}

static bool answered_with(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    return answers(s, arg) > 0;
}

/*
 * Bob plays at two tables. Each of his offers names its table and answers
 * with its buttons, without a "which game?"; a typed "hand" asks which game,
 * naming the tables as channel links.
 */
static void test_two_tables(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e(&e, 7, false);
    const unsigned first[4] = {ALICE, BOB, CAROL, DAVE}, second[4] = {ERIN, BOB, FRANK, GRACE};
    e2e_table = TABLE;
    open_and_start(&e, first, 0);
    e2e_table = TABLE_2;
    open_and_start(&e, second, 0);
    gift(&e, ALICE, TABLE, "bob");
    gift(&e, ERIN, TABLE_2, "bob");
    /* both are offer #1, each in its game, each naming its table */
    struct json_object *at1 = wait_dm_at(&e, BOB, TABLE, "accept 1");
    struct json_object *at2 = wait_dm_at(&e, BOB, TABLE_2, "accept 1");
    char old_id[32], dm[32];
    snprintf(old_id, sizeof old_id, "%s", jstr(at1, "id"));
    snprintf(dm, sizeof dm, "%s", jstr(at1, "channel"));
    click(&e, BOB, dm, true, jstr(at2, "id"), "accept 1", NULL);
    struct text_want accepted = {e.players[BOB], "You accepted offer #1"};
    wait_until(&e, dm_text, &accepted, "bob's answer to the second table's offer");
    struct json_object *s = snap(&e);
    assert_int_equal(dm_count(s, e.players[BOB], "several games"), 0);
    json_object_put(s);
    /* the answered offer lost its buttons; the other one keeps them */
    struct json_object *m2 = message(&e, jstr(at2, "id"));
    for (int waited = 0; has_component(m2, "accept 1") && waited < WAIT_MS; waited += 50) {
        json_object_put(m2);
        msleep(50);
        m2 = message(&e, jstr(at2, "id"));
    }
    assert_false(has_component(m2, "accept 1"));
    json_object_put(m2);
    struct json_object *m1 = message(&e, old_id);
    assert_true(has_component(m1, "accept 1"));
    json_object_put(m1);
    json_object_put(at1);
    json_object_put(at2);
    /* a typed command in two games: which one, with the tables as links */
    say_dm(&e, BOB, dm, "hand");
    struct text_want which = {e.players[BOB], "several games"};
    wait_until(&e, dm_text, &which, "the question of which game");
    s = snap(&e);
    struct json_object *msgs = jget(s, "messages");
    const char *asked = NULL;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        const char *c = jstr(jget(json_object_array_get_idx(msgs, i), "body"), "content");
        if (c && strstr(c, "several games"))
            asked = c;
    }
    assert_non_null(strstr(asked, "<#" TABLE ">"));
    assert_non_null(strstr(asked, "<#" TABLE_2 ">"));
    json_object_put(s);

    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

/*
 * A game ends with bob's offer #1 unanswered; the next game at the table has
 * its own offer #1 for bob. Bob presses the old game's Accept #1 (a client
 * that still shows it, or an edit that never came): the press is refused,
 * and the new offer #1 is still his to answer.
 */
static void test_stale_button(void **state)
{
    (void)state;
    static struct e2e e;
    setup_e2e(&e, 4, false);
    const unsigned first[4] = {ALICE, BOB, CAROL, DAVE};
    e2e_table = TABLE;
    open_and_start(&e, first, 0);
    gift(&e, ALICE, TABLE, "bob");
    struct json_object *at1 = wait_dm_at(&e, BOB, TABLE, "accept 1");
    char old_accept[128], old_id[32], dm[32];
    control_of(&e, jstr(at1, "id"), "accept 1", old_accept, sizeof old_accept);
    snprintf(old_id, sizeof old_id, "%s", jstr(at1, "id"));
    snprintf(dm, sizeof dm, "%s", jstr(at1, "channel"));
    json_object_put(at1);
    slash(&e, ALICE, "end", NULL);
    wait_until(&e, results_posted, NULL, "the first game's result");
    open_and_start(&e, first, 1);
    gift(&e, CAROL, TABLE, "bob");
    struct json_object *s, *offer = NULL;
    for (int waited = 0; waited < WAIT_MS; waited += 50) {
        s = snap(&e);
        json_object_put(offer);
        offer = dm_at(s, e.players[BOB], TABLE, "accept 1");
        json_object_put(s);
        if (offer && strcmp(jstr(offer, "id"), old_id) != 0)
            break;
        msleep(50);
    }
    assert_non_null(offer);
    assert_string_not_equal(jstr(offer, "id"), old_id);
    /* the old game's Accept #1, pressed as a stale client still shows it */
    char id[32];
    new_id(&e, id, sizeof id);
    fdc_component(e.srv, id, NULL, dm, e.players[BOB], old_id, old_accept, NULL);
    wait_until(&e, answered_with, id, "the stale press's answer");
    s = snap(&e);
    struct json_object *cbs = jget(s, "callbacks"), *cb = NULL;
    for (size_t i = 0; i < json_object_array_length(cbs); i++)
        if (strcmp(jstr(json_object_array_get_idx(cbs, i), "id"), id) == 0)
            cb = json_object_array_get_idx(cbs, i);
    assert_int_equal(json_object_get_int(jget(cb, "type")), 4);
    assert_int_equal(json_object_get_int(jget(jget(cb, "data"), "flags")), 64);
    assert_non_null(strstr(jstr(jget(cb, "data"), "content"), "newest message"));
    assert_int_equal(dm_count(s, e.players[BOB], "You accepted offer #1"), 0);
    json_object_put(s);
    /* the new game's offer #1 is still open: bob declines it with its own button */
    click(&e, BOB, dm, true, jstr(offer, "id"), "decline 1", NULL);
    struct text_want declined = {e.players[BOB], "declined"};
    wait_until(&e, dm_text, &declined, "bob's decline of the new offer");
    json_object_put(offer);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

static bool trap_met(struct e2e *e, struct json_object *s, void *arg)
{
    (void)s;
    (void)arg;
    return fd_trap_sprung(e->srv);
}

static bool repeated(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    return json_object_get_int(jget(s, "nonce_repeats")) >= *(int *)arg;
}

/* Restarts the daemon after a kill -9 and waits for its session. */
static void kill_and_restart(struct e2e *e, int *connects)
{
    assert_int_equal(daemon_stop(&e->d, SIGKILL, 10000), 128 + SIGKILL);
    daemon_start(&e->d, SEED);
    ++*connects;
    wait_until(e, is_ready, connects, "the daemon back");
}

/* Bob's offer number n from alice: posted once, with both its buttons. */
static void assert_offer_whole(struct e2e *e, unsigned n)
{
    char text[64], accept[16], decline[16];
    snprintf(text, sizeof text, "Offer #%u from alice", n);
    snprintf(accept, sizeof accept, "accept %u", n);
    snprintf(decline, sizeof decline, "decline %u", n);
    struct json_object *s = snap(e), *msgs = jget(s, "messages"), *found = NULL;
    assert_int_equal(dm_count(s, e->players[BOB], text), 1);
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *c = jstr(jget(m, "body"), "content");
        if (c && strstr(c, text))
            found = m;
    }
    assert_true(has_component(found, accept));
    assert_true(has_component(found, decline));
    json_object_put(s);
}

/*
 * kill -9 at two points of an offer's way to bob, and the restarted daemon
 * sends it again from the outbox, where Discord answers with the message it
 * made (the nonce): just after Discord answered the post (the outbox keeps
 * the message until its delete reaches the disk), and while the answer was
 * on its way back. Either way the offer keeps its Accept and Decline.
 */
static void test_offer_sent_again_keeps_buttons(void **state)
{
    (void)state;
    static struct e2e e;
    setup_e2e(&e, 4, false);
    e2e_table = TABLE;
    const unsigned seats[4] = {ALICE, BOB, CAROL, DAVE};
    int connects = 1;
    open_and_start(&e, seats, 0);
    struct json_object *hand = wait_dm_at(&e, BOB, TABLE, "tb:give");
    char dm[32];
    snprintf(dm, sizeof dm, "%s", jstr(hand, "channel"));
    json_object_put(hand);
    /* answered: the offer is posted, and the kill follows at once */
    gift(&e, ALICE, TABLE, "bob");
    json_object_put(wait_dm_at(&e, BOB, TABLE, "accept 1"));
    msleep(100);
    kill_and_restart(&e, &connects);
    /* a second offer goes after whatever the restart sent to bob */
    gift(&e, ALICE, TABLE, "bob");
    json_object_put(wait_dm_at(&e, BOB, TABLE, "accept 2"));
    assert_offer_whole(&e, 1);
    /* held: posted, its answer lost; sent again for sure */
    fd_hold_next(e.srv, FD_KIND_POST, dm, true);
    gift(&e, ALICE, TABLE, "bob");
    wait_until(&e, trap_met, NULL, "the offer's post, held");
    struct json_object *s = snap(&e);
    int repeats = 1 + json_object_get_int(jget(s, "nonce_repeats"));
    json_object_put(s);
    kill_and_restart(&e, &connects);
    wait_until(&e, repeated, &repeats, "the offer sent again");
    assert_offer_whole(&e, 3);
    struct json_object *offer = wait_dm_at(&e, BOB, TABLE, "accept 3");
    click(&e, BOB, dm, true, jstr(offer, "id"), "accept 3", NULL);
    struct text_want accepted = {e.players[BOB], "You accepted offer #3"};
    wait_until(&e, dm_text, &accepted, "bob's accept");
    json_object_put(offer);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_two_tables, kill_live),
        cmocka_unit_test_teardown(test_stale_button, kill_live),
        cmocka_unit_test_teardown(test_offer_sent_again_keeps_buttons, kill_live),
    };
    return e2e_run(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
