/*
 * test_render_regressions.c - rendering mistakes that once shipped.
 *
 * An empty placeholder value must not cut the rest of a message off (the
 * status line of a running game fills {paused} with ""), and "resume" and
 * "extend" announce the time the rules report as left, also while paused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <json-c/json.h>
#include <cmocka.h>

#include "bot/game.h"
#include "core/illegal/module.h"
#include "core/text.h"

/* The Illegal state of a game. */
#define IL(g) ((struct il_state *)(g)->state)

static void test_fill_empty_value(void **state)
{
    (void)state;
    char out[512];
    const char *vars[] = {
        "id",   "g1",    "variant", "standard",   "phase", "dealing session 1 of 5", "paused", "",
        "left", "2 min", "players", "Alice, Bob", NULL};
    text_fill(out, sizeof out, "en", "illegal.msg.status-game", vars);
    assert_string_equal(
        out, "Game g1 (standard): dealing session 1 of 5. Time left: 2 min. Players: Alice, Bob.");

    const char *null_value[] = {"player", NULL, "id", "g7", NULL};
    text_fill(out, sizeof out, "en", "msg.ended", null_value);
    assert_string_equal(out, "Game g7 was ended by .");
}

struct last {
    char text[512];
};

static void keep_text(void *arg, const struct rules_msg *m)
{
    struct last *l = arg;
    snprintf(l->text, sizeof l->text, "%s", m->text);
}

static void test_extend_while_paused(void **state)
{
    (void)state;
    static struct game g;
    static struct il_state st;
    static struct il_events ev;
    memset(&g, 0, sizeof g);
    g.rules = &il_module;
    g.state = &st;
    snprintf(g.id, sizeof g.id, "g1");
    snprintf(g.table, sizeof g.table, "t1");
    snprintf(g.language, sizeof g.language, "en");
    il_config_default(&IL(&g)->config, IL_VARIANT_STANDARD);
    g.nseats = 4;
    for (unsigned i = 0; i < 4; i++)
        snprintf(g.seats[i].user, sizeof g.seats[i].user, "u%u", i);
    rng_seed(&g.rng, 1);
    int64_t now = 1000000;
    assert_int_equal(il_game_setup(&IL(&g)->game, &IL(&g)->config, 4, now, &g.rng, &ev), IL_OK);
    g.started = true;
    struct il_action pause = {.type = IL_ACT_PAUSE, .player = IL_GM};
    ev.n = 0;
    assert_int_equal(il_game_apply(&IL(&g)->game, &pause, now, &g.rng, &ev), IL_OK);
    /* What the dispatcher's track_deadline() keeps while paused. */
    g.tracked_deadline = 0;
    g.phase_length = 0;
    struct il_action ext = {.type = IL_ACT_EXTEND, .player = IL_GM, .ms = 60000};
    ev.n = 0;
    assert_int_equal(il_game_apply(&IL(&g)->game, &ext, now, &g.rng, &ev), IL_OK);
    assert_int_equal(ev.n, 1);
    assert_int_equal(ev.v[0].type, IL_EV_EXTENDED);
    char dur[32], want[64];
    text_duration(dur, sizeof dur, "en", ev.v[0].ms);
    snprintf(want, sizeof want, "Extra time: %s left.", dur);
    struct last l = {""};
    struct game_view v;
    game_view(&g, &v);
    il_render_event(&st, &v.t, &ev.v[0], keep_text, &l);
    assert_string_equal(l.text, want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fill_empty_value),
        cmocka_unit_test(test_extend_while_paused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
