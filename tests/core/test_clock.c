/*
 * test_clock.c - ticks, and the Game Master's clock: pause, resume, extend,
 * next, end and timer changes.
 */
#include <string.h>

#include "helpers.h"

static void gm(struct fx *f, enum il_action_type t, int64_t ms)
{
    struct il_action a = act_gm(t);
    a.ms = ms;
    fx_ok(f, &a);
}

static void ticks(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 51);
    struct il_game before = f.g;
    struct il_action tick = act(IL_ACT_TICK, 0);
    f.now = f.g.deadline - 1;
    fx_ok(&f, &tick);
    assert_int_equal(f.ev.n, 0);
    assert_memory_equal(&before, &f.g, sizeof before);

    /* Long overdue: still one step, timed from now. */
    f.now = f.g.deadline + 10 * 60000;
    fx_ok(&f, &tick);
    assert_int_equal(f.g.phase, IL_PHASE_DROP_REVEAL);
    assert_int_equal(f.g.drop_shown, 1);
    assert_int_equal(f.g.deadline, f.now + 2000);
    assert_int_equal(il_game_deadline(&f.g), f.g.deadline);

    /* Anyone's tick will do, even with nonsense fields. */
    tick.player = 100;
    f.now = f.g.deadline;
    fx_ok(&f, &tick);
    assert_int_equal(f.g.drop_shown, 2);
}

static void bad_actions(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 52);
    struct il_action a = act((enum il_action_type)99, IL_GM);
    fx_refuse(&f, &a, IL_ERR_BAD_ACTION);
    a = act((enum il_action_type) - 1, 0);
    fx_refuse(&f, &a, IL_ERR_BAD_ACTION);
    a = act(IL_ACT_TICK, 0);
    int64_t now = f.now;
    f.now = INT64_MAX;
    fx_refuse(&f, &a, IL_ERR_BAD_ACTION);
    f.now = now;
    a = act_gm(IL_ACT_SET_TIMER);
    a.timer = IL_TIMERS;
    a.ms = 5000;
    fx_refuse(&f, &a, IL_ERR_BAD_ACTION);
}

static void gm_only(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 53);
    for (int t = IL_ACT_PAUSE; t <= IL_ACT_SET_TIMER; t++) {
        struct il_action a = act((enum il_action_type)t, 0);
        a.target = 1;
        a.ms = 5000;
        fx_refuse(&f, &a, IL_ERR_NOT_GM);
        a.player = 9;
        fx_refuse(&f, &a, IL_ERR_NOT_GM);
    }
}

static void pause_and_resume_shift_deadlines(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 54);
    int64_t deadline = f.g.deadline;
    f.now += 60000;
    gm(&f, IL_ACT_PAUSE, 0);
    assert_int_equal(f.ev.n, 1);
    assert_int_equal(f.ev.v[0].type, IL_EV_PAUSED);
    assert_int_equal(f.ev.v[0].audience, IL_PUBLIC);
    assert_int_equal(f.ev.v[0].ms, 120000);
    assert_true(f.g.paused);
    assert_int_equal(f.g.deadline, 0);
    assert_int_equal(il_game_deadline(&f.g), 0);
    assert_int_equal(f.g.paused_remaining, deadline - f.now);

    struct il_action a = act_gm(IL_ACT_PAUSE);
    fx_refuse(&f, &a, IL_ERR_PAUSED);
    a = act_gm(IL_ACT_NEXT);
    fx_refuse(&f, &a, IL_ERR_PAUSED);

    /* Time passes; nothing fires. */
    f.now += 3600000;
    a = act(IL_ACT_TICK, 0);
    fx_ok(&f, &a);
    assert_int_equal(f.ev.n, 0);
    assert_int_equal(f.g.phase, IL_PHASE_DEALING);

    gm(&f, IL_ACT_RESUME, 0);
    assert_int_equal(f.ev.v[0].type, IL_EV_RESUMED);
    assert_int_equal(f.ev.v[0].deadline, f.now + 120000);
    assert_int_equal(f.g.deadline, deadline + 3600000);
    assert_false(f.g.paused);
    assert_int_equal(f.g.paused_remaining, 0);
    a = act_gm(IL_ACT_RESUME);
    fx_refuse(&f, &a, IL_ERR_NOT_PAUSED);

    f.now = f.g.deadline - 1;
    a = act(IL_ACT_TICK, 0);
    fx_ok(&f, &a);
    assert_int_equal(f.g.phase, IL_PHASE_DEALING);
    fx_tick(&f);
    assert_int_equal(f.g.phase, IL_PHASE_DROP_REVEAL);
}

static void pause_when_overdue(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 55);
    f.now = f.g.deadline + 500;
    gm(&f, IL_ACT_PAUSE, 0);
    assert_int_equal(f.g.paused_remaining, 0);
    gm(&f, IL_ACT_RESUME, 0);
    assert_int_equal(f.g.deadline, f.now);
}

static void extend(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 56);
    int64_t deadline = f.g.deadline;
    gm(&f, IL_ACT_EXTEND, 30000);
    assert_int_equal(f.ev.v[0].type, IL_EV_EXTENDED);
    assert_int_equal(f.ev.v[0].audience, IL_PUBLIC);
    assert_int_equal(f.ev.v[0].deadline, deadline + 30000);
    assert_int_equal(f.g.deadline, deadline + 30000);

    struct il_action a = act_gm(IL_ACT_EXTEND);
    a.ms = 0;
    fx_refuse(&f, &a, IL_ERR_BAD_TIMER);
    a.ms = -1000;
    fx_refuse(&f, &a, IL_ERR_BAD_TIMER);
    a.ms = IL_TIMER_MAX_MS;
    fx_refuse(&f, &a, IL_ERR_BAD_TIMER);
    a.ms = IL_TIMER_MAX_MS - (f.g.deadline - f.now);
    fx_ok(&f, &a);
    a.ms = 1;
    fx_refuse(&f, &a, IL_ERR_BAD_TIMER);

    fx_setup(&f, 4, IL_VARIANT_STANDARD, 56);
    gm(&f, IL_ACT_PAUSE, 0);
    int64_t left = f.g.paused_remaining;
    gm(&f, IL_ACT_EXTEND, 5000);
    assert_int_equal(f.g.paused_remaining, left + 5000);
    assert_int_equal(f.ev.v[0].deadline, 0);
    assert_int_equal(f.ev.v[0].ms, left + 5000);
    a.ms = IL_TIMER_MAX_MS;
    fx_refuse(&f, &a, IL_ERR_BAD_TIMER);
    gm(&f, IL_ACT_RESUME, 0);
    assert_int_equal(f.g.deadline, f.now + left + 5000);
}

static void next_ends_the_step(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 57);
    f.now += 1000;
    gm(&f, IL_ACT_NEXT, 0);
    assert_int_equal(f.g.phase, IL_PHASE_DROP_REVEAL);
    assert_int_equal(f.g.deadline, f.now + 2000);
    for (int i = 0; i < 3; i++)
        gm(&f, IL_ACT_NEXT, 0);
    assert_int_equal(f.g.phase, IL_PHASE_DROP_GRAB);
    gm(&f, IL_ACT_NEXT, 0);
    assert_int_equal(f.g.phase, IL_PHASE_DEALING);
    assert_int_equal(f.g.session, 2);
}

static void end_works_even_while_paused(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_CASUAL, 58);
    gm(&f, IL_ACT_PAUSE, 0);
    gm(&f, IL_ACT_END, 0);
    assert_int_equal(f.g.phase, IL_PHASE_OVER);
    assert_false(f.g.paused);
    assert_int_equal(f.g.paused_remaining, 0);
    assert_int_equal(f.g.deadline, 0);
    assert_int_equal(fx_count(&f, IL_EV_REVEAL), 4);
    assert_int_equal(f.ev.v[f.ev.n - 1].type, IL_EV_GAME_OVER);
    /* Ended before its tribunal: aborted, and nobody wins. */
    assert_true(f.g.aborted);
    assert_int_equal(f.ev.v[f.ev.n - 1].winners, 0);
}

/* A game that runs its course is not aborted, and its best score wins. */
static void a_full_game_is_not_aborted(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 58);
    while (f.g.phase != IL_PHASE_OVER)
        fx_tick(&f);
    assert_false(f.g.aborted);
    assert_int_not_equal(f.ev.v[f.ev.n - 1].winners, 0);
    /* the host ending it during the last vote still ends it early */
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 58);
    while (f.g.phase != IL_PHASE_VOTE || f.g.case_index + 1 < f.g.ncases)
        fx_tick(&f);
    gm(&f, IL_ACT_END, 0);
    assert_true(f.g.aborted);
}

static void set_timer_applies_to_later_steps(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 59);
    int64_t deadline = f.g.deadline;
    struct il_action a = act_gm(IL_ACT_SET_TIMER);
    a.timer = IL_TIMER_SESSION;
    a.ms = 999;
    fx_refuse(&f, &a, IL_ERR_BAD_TIMER);
    a.ms = IL_TIMER_MAX_MS + 1;
    fx_refuse(&f, &a, IL_ERR_BAD_TIMER);
    a.ms = 45000;
    fx_ok(&f, &a);
    assert_int_equal(f.ev.v[0].type, IL_EV_TIMER_SET);
    assert_int_equal(f.ev.v[0].timer, IL_TIMER_SESSION);
    assert_int_equal(f.ev.v[0].ms, 45000);
    assert_int_equal(f.g.deadline, deadline);
    a.timer = IL_TIMER_REVEAL;
    a.ms = 7000;
    fx_ok(&f, &a);
    fx_tick(&f);
    assert_int_equal(f.g.deadline, f.now + 7000);
    fx_until(&f, IL_PHASE_DEALING, 2);
    assert_int_equal(f.g.deadline, f.now + 45000);

    /* Allowed while paused too. */
    gm(&f, IL_ACT_PAUSE, 0);
    a.timer = IL_TIMER_VOTE;
    fx_ok(&f, &a);
    assert_int_equal(f.g.config.timer_ms[IL_TIMER_VOTE], 7000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ticks),
        cmocka_unit_test(bad_actions),
        cmocka_unit_test(gm_only),
        cmocka_unit_test(pause_and_resume_shift_deadlines),
        cmocka_unit_test(pause_when_overdue),
        cmocka_unit_test(extend),
        cmocka_unit_test(next_ends_the_step),
        cmocka_unit_test(end_works_even_while_paused),
        cmocka_unit_test(a_full_game_is_not_aborted),
        cmocka_unit_test(set_timer_applies_to_later_steps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
