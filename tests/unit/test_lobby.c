/*
 * test_lobby.c - the lobby state machine and its invariants (bot/lobby.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/config.h"
#include "bot/lobby.h"
#include "core/illegal/module.h"

static struct config cfg;
static struct il_events events;

/* The Illegal state of g. */
static struct il_state *il(struct game *g)
{
    return g->state;
}

static void new_lobby(struct game *g)
{
    free(g->state);
    memset(g, 0, sizeof *g);
    strcpy(g->id, "g1");
    strcpy(g->table, "t1");
    strcpy(g->host, "h");
    strcpy(g->language, "en");
    assert_int_equal(game_init(g, &il_module, "standard", config_game(&cfg, &il_module)), 0);
    rng_seed(&g->rng, 7);
}

/* Applies a, checking L1: a refusal changes nothing, state included. */
static enum lobby_error apply(struct game *g, const struct lobby_action *a, struct lobby_events *ev,
                              struct il_action *rules)
{
    static struct game before;
    static struct il_state state;
    int why = 0;
    before = *g;
    state = *il(g);
    enum lobby_error e = lobby_apply(g, a, &cfg, 1000, ev, &events, rules, &why);
    if (e != LOBBY_OK) {
        assert_memory_equal(&before, g, sizeof before);
        assert_memory_equal(&state, g->state, sizeof state);
    }
    return e;
}

static void join(struct game *g, const char *user, enum lobby_error want)
{
    struct lobby_events ev;
    struct il_action rules;
    struct lobby_action a = {.type = LOBBY_JOIN, .user = user, .name = user};
    assert_int_equal(apply(g, &a, &ev, &rules), want);
    if (want == LOBBY_OK) {
        assert_int_equal(ev.n, 1);
        assert_int_equal(ev.v[0], LOBBY_EV_JOINED);
        assert_true(ev.lobby_changed);
    }
}

static void test_join_and_leave(void **state)
{
    (void)state;
    static struct game g;
    new_lobby(&g);
    join(&g, "a", LOBBY_OK);
    join(&g, "a", LOBBY_ERR_JOINED); /* L2: distinct users */
    char user[8];
    for (int i = 1; i < RULES_MAX_SEATS; i++) {
        snprintf(user, sizeof user, "u%d", i);
        join(&g, user, LOBBY_OK);
    }
    join(&g, "late", LOBBY_ERR_FULL); /* L2: at most RULES_MAX_SEATS */
    struct lobby_events ev;
    struct il_action rules;
    struct lobby_action leave = {.type = LOBBY_LEAVE, .seat = 0};
    assert_int_equal(apply(&g, &leave, &ev, &rules), LOBBY_OK);
    assert_int_equal(g.nseats, RULES_MAX_SEATS - 1);
    assert_string_equal(g.seats[0].user, "u1"); /* the seats after it moved up */
    leave.seat = 99;
    assert_int_equal(apply(&g, &leave, &ev, &rules), LOBBY_ERR_CLOSED);
    /* A name that passes for a seated user's id is refused. */
    struct lobby_action fake = {.type = LOBBY_JOIN, .user = "x", .name = "u2"};
    assert_int_equal(apply(&g, &fake, &ev, &rules), LOBBY_ERR_NAME_IS_ID);
}

static void test_settings(void **state)
{
    (void)state;
    static struct game g;
    struct lobby_events ev;
    struct il_action rules;
    new_lobby(&g);
    struct lobby_action set = {.type = LOBBY_SET, .key = "session", .value = "3m"};
    assert_int_equal(apply(&g, &set, &ev, &rules), LOBBY_OK);
    assert_int_equal(il(&g)->config.timer_ms[IL_TIMER_SESSION], 180000);
    assert_string_equal(ev.shown_value, "3 min");
    set.value = "soon";
    assert_int_equal(apply(&g, &set, &ev, &rules), LOBBY_ERR_BAD_VALUE);
    set.key = "colour";
    assert_int_equal(apply(&g, &set, &ev, &rules), LOBBY_ERR_BAD_KEY);
    set = (struct lobby_action){.type = LOBBY_SET, .key = "variant", .value = "casual"};
    assert_int_equal(apply(&g, &set, &ev, &rules), LOBBY_OK);
    assert_int_equal(il(&g)->config.variant, IL_VARIANT_CASUAL);
    assert_true(ev.lobby_changed);
    set = (struct lobby_action){.type = LOBBY_SET, .key = "resources", .value = "guns, guns"};
    assert_int_equal(apply(&g, &set, &ev, &rules), LOBBY_ERR_BAD_VALUE);
    set.value = "random";
    assert_int_equal(apply(&g, &set, &ev, &rules), LOBBY_OK);
    set = (struct lobby_action){.type = LOBBY_SET, .key = "ballots", .value = "poll"};
    assert_int_equal(apply(&g, &set, &ev, &rules), LOBBY_OK);
    assert_true(il(&g)->poll_ballots);
    assert_string_equal(ev.set_reply, "msg.ballots-poll");
}

static void test_start_and_after(void **state)
{
    (void)state;
    static struct game g;
    struct lobby_events ev;
    struct il_action rules;
    new_lobby(&g);
    struct lobby_action start = {.type = LOBBY_START};
    join(&g, "a", LOBBY_OK);
    assert_int_equal(apply(&g, &start, &ev, &rules), LOBBY_ERR_TOO_FEW);
    join(&g, "b", LOBBY_OK);
    join(&g, "c", LOBBY_OK);
    join(&g, "d", LOBBY_OK);
    assert_int_equal(apply(&g, &start, &ev, &rules), LOBBY_OK);
    assert_true(g.started);
    assert_int_equal(ev.v[0], LOBBY_EV_STARTED);
    assert_true(ev.started);
    assert_true(events.n > 0);
    assert_int_equal(il(&g)->game.nplayers, 4);
    /* L3: seats are the rules' business now. */
    join(&g, "e", LOBBY_ERR_STARTED);
    struct lobby_action leave = {.type = LOBBY_LEAVE, .seat = 0};
    assert_int_equal(apply(&g, &leave, &ev, &rules), LOBBY_ERR_STARTED);
    assert_int_equal(apply(&g, &start, &ev, &rules), LOBBY_ERR_STARTED);
    /* A timer of a running game is the rules' to change. */
    struct lobby_action set = {.type = LOBBY_SET, .key = "vote", .value = "90"};
    assert_int_equal(apply(&g, &set, &ev, &rules), LOBBY_OK);
    assert_true(ev.play_rules);
    assert_int_equal(ev.n, 0);
    assert_int_equal(rules.type, IL_ACT_SET_TIMER);
    assert_int_equal(rules.ms, 90000);
    set.key = "variant";
    assert_int_equal(apply(&g, &set, &ev, &rules), LOBBY_ERR_LOBBY_ONLY);
}

static void test_close(void **state)
{
    (void)state;
    static struct game g;
    struct lobby_events ev;
    struct il_action rules;
    new_lobby(&g);
    struct lobby_action close = {.type = LOBBY_CLOSE, .why = "msg.ended"};
    assert_int_equal(apply(&g, &close, &ev, &rules), LOBBY_OK);
    assert_true(g.closed);
    join(&g, "a", LOBBY_ERR_CLOSED); /* L4 */
}

static void test_rematch(void **state)
{
    (void)state;
    static struct game old, g;
    struct lobby_events ev;
    struct il_action rules;
    new_lobby(&old);
    new_lobby(&g);
    struct lobby_action rematch = {.type = LOBBY_REMATCH, .finished = &old};
    /* Only a game that was played to its end can be played again. */
    assert_int_equal(apply(&g, &rematch, &ev, &rules), LOBBY_ERR_NO_REMATCH);
    struct lobby_action set = {.type = LOBBY_SET, .key = "variant", .value = "advanced"};
    assert_int_equal(apply(&old, &set, &ev, &rules), LOBBY_OK);
    const char *users[] = {"a", "b", "c", "d", "e"};
    for (unsigned i = 0; i < 5; i++)
        join(&old, users[i], LOBBY_OK);
    struct lobby_action start = {.type = LOBBY_START};
    assert_int_equal(apply(&old, &start, &ev, &rules), LOBBY_OK);
    struct il_action kick = {.type = IL_ACT_KICK, .player = IL_GM, .target = 1};
    struct il_action end = {.type = IL_ACT_END, .player = IL_GM};
    assert_int_equal(il_game_apply(&il(&old)->game, &kick, 2000, &old.rng, &events), IL_OK);
    assert_int_equal(apply(&g, &rematch, &ev, &rules), LOBBY_ERR_NO_REMATCH);
    assert_int_equal(il_game_apply(&il(&old)->game, &end, 3000, &old.rng, &events), IL_OK);
    /* L5: the players still in it, in order, with its settings. */
    assert_int_equal(apply(&g, &rematch, &ev, &rules), LOBBY_OK);
    assert_int_equal(ev.v[0], LOBBY_EV_OPENED);
    assert_false(g.started);
    assert_int_equal(g.nseats, 4);
    assert_string_equal(g.seats[0].user, "a");
    assert_string_equal(g.seats[1].user, "c");
    assert_string_equal(g.seats[3].user, "e");
    assert_int_equal(il(&g)->config.variant, IL_VARIANT_ADVANCED);
    /* Once open, it is a lobby like any other. */
    assert_int_equal(apply(&g, &rematch, &ev, &rules), LOBBY_ERR_STARTED);
    join(&g, "b", LOBBY_OK);
}

int main(void)
{
    if (config_init(&cfg) < 0)
        return 1;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_join_and_leave),  cmocka_unit_test(test_settings),
        cmocka_unit_test(test_start_and_after), cmocka_unit_test(test_close),
        cmocka_unit_test(test_rematch),
    };
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    config_free(&cfg);
    return rc;
}
