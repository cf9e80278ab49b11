/*
 * test_tribunal.c - cases, debates, votes and verdicts.
 */
#include <json-c/json.h>
#include <string.h>

#include "helpers.h"

static void vote(struct fx *f, int voter, int target)
{
    struct il_action a = act_vote(f, voter, target);
    fx_ok(f, &a);
}

static struct il_bundle case_bundle(const struct il_game *g, unsigned i)
{
    struct il_bundle b = one(0, 0);
    for (unsigned k = 0; k < g->cases[i].ncards; k++)
        b.n[g->cases[i].cards[k]]++;
    return b;
}

static void tribunal_opens_after_the_last_session(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 31);
    fx_until(&f, IL_PHASE_DEALING, 5);
    fx_tick(&f);
    assert_int_equal(f.ev.n, 3);
    assert_int_equal(f.ev.v[0].type, IL_EV_SESSION_CLOSED);
    assert_int_equal(f.ev.v[0].number, 5);
    assert_int_equal(f.ev.v[1].type, IL_EV_TRIBUNAL_OPENED);
    assert_int_equal(f.ev.v[1].audience, IL_PUBLIC);
    assert_int_equal(f.ev.v[1].number, 5);
    const struct il_event *e = &f.ev.v[2];
    assert_int_equal(e->type, IL_EV_CASE_OPENED);
    assert_int_equal(e->audience, IL_PUBLIC);
    assert_int_equal(e->number, 0);
    struct il_bundle b = case_bundle(&f.g, 0);
    assert_memory_equal(&e->cards, &b, sizeof b);
    assert_int_equal(il_bundle_total(&e->cards), 2);
    assert_int_equal(e->deadline, f.now + 60000);
    assert_int_equal(f.g.phase, IL_PHASE_DEBATE);

    struct il_action a = act_vote(&f, 0, 1);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
    a = act_vote(&f, 0, IL_ABSTAINED);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);

    fx_tick(&f);
    assert_int_equal(f.ev.n, 1);
    assert_int_equal(f.ev.v[0].type, IL_EV_VOTE_OPENED);
    assert_int_equal(f.ev.v[0].number, 0);
    assert_int_equal(f.ev.v[0].deadline, f.now + 30000);
    assert_int_equal(f.g.phase, IL_PHASE_VOTE);
}

static void vote_rules(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 32);
    fx_until(&f, IL_PHASE_VOTE, 0);
    struct il_action a = act_vote(&f, 0, 0);
    fx_refuse(&f, &a, IL_ERR_SELF_VOTE);
    a = act_vote(&f, 0, 5);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_vote(&f, 0, IL_NOBODY);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_vote(&f, IL_GM, 1);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_vote(&f, 5, 1);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_vote(&f, 6, IL_ABSTAINED);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);

    vote(&f, 0, 1);
    assert_int_equal(f.ev.n, 1);
    assert_int_equal(f.ev.v[0].type, IL_EV_VOTE_RECORDED);
    assert_int_equal(f.ev.v[0].audience, 0); /* never public before the verdict */
    assert_int_equal(f.ev.v[0].player, 0);
    assert_int_equal(f.ev.v[0].target, 1);
    assert_int_equal(f.ev.v[0].number, f.g.case_index);
    assert_int_equal(f.g.players[0].votes[f.g.case_index], 1);
    vote(&f, 0, 2); /* changed */
    assert_int_equal(f.g.players[0].votes[f.g.case_index], 2);
    a = act_vote(&f, 0, IL_ABSTAINED);
    fx_ok(&f, &a);
    assert_int_equal(f.ev.v[0].audience, 0);
    assert_int_equal(f.ev.v[0].target, IL_NOBODY);
    assert_int_equal(f.g.players[0].votes[f.g.case_index], IL_ABSTAINED);

    struct il_action pause = act_gm(IL_ACT_PAUSE);
    fx_ok(&f, &pause);
    a = act_vote(&f, 0, 1);
    fx_refuse(&f, &a, IL_ERR_PAUSED);
    a = act_vote(&f, 0, IL_ABSTAINED);
    fx_refuse(&f, &a, IL_ERR_PAUSED);
}

static void most_votes_convicts(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 33);
    fx_until(&f, IL_PHASE_VOTE, 0);
    struct il_bundle cards = case_bundle(&f.g, 0), hand = f.g.players[2].hand;
    vote(&f, 0, 2);
    vote(&f, 1, 2);
    vote(&f, 3, 1);
    vote(&f, 2, 0);
    fx_tick(&f);

    const struct il_event *e = &f.ev.v[0];
    assert_int_equal(e->type, IL_EV_VERDICT);
    assert_int_equal(e->audience, IL_PUBLIC);
    assert_int_equal(e->number, 0);
    assert_int_equal(e->target, 2);
    assert_int_equal(e->abstentions, 1);
    static const uint8_t tally[IL_MAX_PLAYERS] = {1, 1, 2, 0, 0};
    assert_memory_equal(e->tally, tally, sizeof tally);
    assert_memory_equal(&e->cards, &cards, sizeof cards);
    for (unsigned t = 0; t < IL_CARD_TYPES; t++)
        hand.n[t] += cards.n[t];
    assert_memory_equal(&f.g.players[2].hand, &hand, sizeof hand);
    e = fx_event_for(&f, IL_EV_HAND, 2);
    assert_non_null(e);
    assert_memory_equal(&e->cards, &hand, sizeof hand);
    for (unsigned s = 0; s < 5; s++)
        assert_int_equal(f.g.players[s].votes[f.g.case_index], IL_NOBODY);

    e = fx_event(&f, IL_EV_CASE_OPENED, 0);
    assert_non_null(e);
    assert_int_equal(e->number, 1);
    assert_int_equal(f.g.case_index, 1);
    assert_int_equal(f.g.phase, IL_PHASE_DEBATE);
}

static void tie_or_no_votes_discards(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 34);
    fx_until(&f, IL_PHASE_VOTE, 0);
    struct il_bundle cards = case_bundle(&f.g, 0);
    vote(&f, 0, 1);
    vote(&f, 1, 0);
    vote(&f, 2, 3);
    vote(&f, 3, 2);
    struct il_action next = act_gm(IL_ACT_NEXT);
    fx_ok(&f, &next);
    const struct il_event *e = &f.ev.v[0];
    assert_int_equal(e->type, IL_EV_VERDICT);
    assert_int_equal(e->target, IL_NOBODY);
    assert_int_equal(e->abstentions, 0);
    assert_memory_equal(&f.g.discard, &cards, sizeof cards);
    assert_int_equal(fx_count(&f, IL_EV_HAND), 0);

    fx_until(&f, IL_PHASE_VOTE, 0);
    struct il_bundle more = case_bundle(&f.g, 1);
    fx_tick(&f);
    e = &f.ev.v[0];
    assert_int_equal(e->target, IL_NOBODY);
    assert_int_equal(e->abstentions, 4);
    for (unsigned t = 0; t < IL_CARD_TYPES; t++)
        assert_int_equal(f.g.discard.n[t], cards.n[t] + more.n[t]);

    /* A tie for second place does not matter. */
    fx_until(&f, IL_PHASE_VOTE, 0);
    vote(&f, 0, 1);
    vote(&f, 2, 1);
    vote(&f, 1, 3);
    vote(&f, 3, 0);
    fx_tick(&f);
    assert_int_equal(f.ev.v[0].target, 1);
}

static void one_player_takes_several_cases(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 35);
    fx_until(&f, IL_PHASE_VOTE, 0);
    while (f.g.phase != IL_PHASE_OVER) {
        fx_until(&f, IL_PHASE_VOTE, 0);
        vote(&f, 0, 1);
        vote(&f, 2, 1);
        vote(&f, 1, 0);
        fx_tick(&f);
        assert_int_equal(f.ev.v[0].target, 1);
    }
    unsigned suspects = 0;
    for (unsigned t = IL_CARD(IL_KIND_DEALER_SUSPECT, 0); t < IL_CARD_TYPES; t++)
        suspects += f.g.players[1].hand.n[t];
    assert_int_equal(suspects, 8);
    assert_int_equal(fx_count(&f, IL_EV_REVEAL), 4);
    assert_int_equal(f.ev.v[f.ev.n - 1].type, IL_EV_GAME_OVER);
}

static void advanced_judges_single_cards(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 6, IL_VARIANT_ADVANCED, 36);
    fx_until(&f, IL_PHASE_DEBATE, 0);
    const struct il_event *e = fx_event(&f, IL_EV_TRIBUNAL_OPENED, 0);
    assert_non_null(e);
    assert_int_equal(e->number, 12);
    unsigned cases = 0;
    while (f.g.phase != IL_PHASE_OVER) {
        e = fx_event(&f, IL_EV_CASE_OPENED, 0);
        assert_non_null(e);
        assert_int_equal(il_bundle_total(&e->cards), 1);
        assert_int_equal(e->number, cases);
        cases++;
        fx_tick(&f);
        fx_tick(&f);
    }
    assert_int_equal(cases, 12);
}

/* Ticks through the last session; the tribunal is due next. */
static void end_sessions(struct fx *f)
{
    fx_until(f, IL_PHASE_DEALING, 5);
    fx_tick(f);
}

static void hold_waits_for_the_gm(void **state)
{
    (void)state;
    struct fx f;
    fx_setup_tribunal(&f, 5, IL_VARIANT_STANDARD, 40, IL_TRIBUNAL_HOLD);
    end_sessions(&f);
    const struct il_event *e = fx_event(&f, IL_EV_TRIBUNAL_HELD, 0);
    assert_non_null(e);
    assert_int_equal(e->audience, IL_PUBLIC);
    assert_int_equal(e->deadline, 0);
    assert_int_equal(fx_count(&f, IL_EV_TRIBUNAL_OPENED), 0);
    assert_int_equal(f.g.phase, IL_PHASE_HOLD);
    assert_int_equal(il_game_deadline(&f.g), 0);

    /* Time alone does not open it, and its clock is not a timer. */
    f.now += 30LL * 24 * 3600 * 1000;
    struct il_action a = act(IL_ACT_TICK, 0);
    fx_ok(&f, &a);
    assert_int_equal(f.ev.n, 0);
    a = act_gm(IL_ACT_PAUSE);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
    a = act_gm(IL_ACT_EXTEND);
    a.ms = 60000;
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
    a = act_vote(&f, 0, 1);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);

    a = act_gm(IL_ACT_NEXT);
    fx_ok(&f, &a);
    assert_non_null(fx_event(&f, IL_EV_TRIBUNAL_OPENED, 0));
    assert_int_equal(f.g.phase, IL_PHASE_DEBATE);
}

static struct il_action schedule(int64_t at)
{
    struct il_action a = act_gm(IL_ACT_SCHEDULE);
    a.at = at;
    return a;
}

static void the_gm_schedules_the_tribunal(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 41);
    int64_t day = 24LL * 3600 * 1000, at = f.now + day;
    struct il_action a = schedule(f.now);
    fx_refuse(&f, &a, IL_ERR_BAD_TIMER);
    a = schedule(f.now + 8 * day);
    fx_refuse(&f, &a, IL_ERR_BAD_TIMER);
    a = schedule(at);
    fx_ok(&f, &a);
    const struct il_event *e = fx_event(&f, IL_EV_TRIBUNAL_SCHEDULED, 0);
    assert_non_null(e);
    assert_int_equal(e->audience, IL_PUBLIC);
    assert_int_equal(e->deadline, at);
    assert_int_equal(f.g.tribunal_at, at);

    /* With a time set, the tribunal waits for it even without the hold option. */
    end_sessions(&f);
    e = fx_event(&f, IL_EV_TRIBUNAL_HELD, 0);
    assert_non_null(e);
    assert_int_equal(e->deadline, at);
    assert_int_equal(il_game_deadline(&f.g), at);
    /* Moved during the hold, then cleared, then set again. */
    a = schedule(at + 1000);
    fx_ok(&f, &a);
    assert_int_equal(il_game_deadline(&f.g), at + 1000);
    a = schedule(0);
    fx_ok(&f, &a);
    assert_int_equal(fx_event(&f, IL_EV_TRIBUNAL_SCHEDULED, 0)->deadline, 0);
    assert_int_equal(il_game_deadline(&f.g), 0);
    a = schedule(at);
    fx_ok(&f, &a);
    fx_tick(&f);
    assert_int_equal(f.now, at);
    assert_non_null(fx_event(&f, IL_EV_TRIBUNAL_OPENED, 0));
    assert_int_equal(f.g.tribunal_at, 0);
    a = schedule(at + day);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
}

static void a_time_already_past_opens_at_once(void **state)
{
    (void)state;
    struct fx f;
    fx_setup_tribunal(&f, 5, IL_VARIANT_STANDARD, 42, IL_TRIBUNAL_HOLD);
    struct il_action a = schedule(f.now + 60000);
    fx_ok(&f, &a);
    end_sessions(&f);
    assert_int_equal(fx_count(&f, IL_EV_TRIBUNAL_HELD), 0);
    assert_non_null(fx_event(&f, IL_EV_TRIBUNAL_OPENED, 0));
}

static void votes_during_the_debate(void **state)
{
    (void)state;
    struct fx f;
    fx_setup_tribunal(&f, 5, IL_VARIANT_STANDARD, 43, IL_TRIBUNAL_VOTE_IN_DEBATE);
    fx_until(&f, IL_PHASE_DEBATE, 0);
    vote(&f, 0, 2);
    vote(&f, 1, 2);
    struct il_action a = act_vote(&f, 3, 1);
    a.number = 1; /* not open yet */
    fx_refuse(&f, &a, IL_ERR_NO_SUCH_CASE);
    fx_tick(&f); /* the vote opens; the votes cast stand */
    assert_int_equal(f.g.phase, IL_PHASE_VOTE);
    assert_int_equal(f.g.players[0].votes[0], 2);
    fx_tick(&f);
    assert_int_equal(fx_event(&f, IL_EV_VERDICT, 0)->target, 2);
    /* The verdict is kept in the votes, for the record. */
    assert_int_equal(f.g.players[1].votes[0], 2);
    assert_int_equal(f.g.players[1].votes[1], IL_NOBODY);
}

static void a_vote_closes_once_everyone_voted(void **state)
{
    (void)state;
    struct fx f;
    fx_setup_tribunal(&f, 5, IL_VARIANT_STANDARD, 44,
                      IL_TRIBUNAL_VOTE_IN_DEBATE | IL_TRIBUNAL_CLOSE_EARLY);
    fx_until(&f, IL_PHASE_DEBATE, 0);
    int64_t opened = f.now;
    vote(&f, 0, 1);
    vote(&f, 1, 0);
    vote(&f, 2, 1);
    struct il_action a = act_vote(&f, 3, IL_ABSTAINED);
    fx_ok(&f, &a);
    assert_int_equal(fx_count(&f, IL_EV_VERDICT), 0);
    vote(&f, 4, 1); /* the last one: judged at once, during the debate */
    const struct il_event *e = fx_event(&f, IL_EV_VERDICT, 0);
    assert_non_null(e);
    assert_int_equal(e->number, 0);
    assert_int_equal(e->target, 1);
    assert_int_equal(e->abstentions, 1);
    assert_int_equal(f.now, opened);
    e = fx_event(&f, IL_EV_CASE_OPENED, 0);
    assert_non_null(e);
    assert_int_equal(e->number, 1);

    /* A kick that leaves only voters behind closes the vote too. */
    vote(&f, 0, 2);
    vote(&f, 1, 2);
    vote(&f, 2, 0);
    vote(&f, 3, 2);
    struct il_action k = act_target(IL_ACT_KICK, IL_GM, 4);
    fx_ok(&f, &k);
    e = fx_event(&f, IL_EV_VERDICT, 0);
    assert_non_null(e);
    assert_int_equal(e->number, 1);
    assert_int_equal(e->target, 2);
}

/* A kick made while paused that leaves only voters behind: nothing is judged
 * while the clock is stopped, and the case is judged as the game resumes,
 * not when its vote runs out. */
static void a_kick_while_paused_is_judged_on_resume(void **state)
{
    (void)state;
    struct fx f;
    fx_setup_tribunal(&f, 5, IL_VARIANT_STANDARD, 44, IL_TRIBUNAL_CLOSE_EARLY);
    fx_until(&f, IL_PHASE_VOTE, 0);
    vote(&f, 0, 2);
    vote(&f, 1, 2);
    vote(&f, 2, 0);
    vote(&f, 3, 2);
    struct il_action p = act_gm(IL_ACT_PAUSE);
    fx_ok(&f, &p);
    struct il_action k = act_target(IL_ACT_KICK, IL_GM, 4);
    fx_ok(&f, &k);
    assert_int_equal(fx_count(&f, IL_EV_VERDICT), 0);
    f.now += 3600 * 1000;
    struct il_action r = act_gm(IL_ACT_RESUME);
    fx_ok(&f, &r);
    const struct il_event *e = fx_event(&f, IL_EV_VERDICT, 0);
    assert_non_null(e);
    assert_int_equal(e->number, 0);
    assert_int_equal(e->target, 2);
    assert_int_equal(f.g.case_index, 1);
    assert_int_equal(f.g.phase, IL_PHASE_DEBATE);
}

static void parallel_cases_are_judged_together(void **state)
{
    (void)state;
    struct fx f;
    fx_setup_tribunal(&f, 4, IL_VARIANT_STANDARD, 45, IL_TRIBUNAL_PARALLEL);
    end_sessions(&f);
    assert_int_equal(fx_count(&f, IL_EV_CASE_OPENED), 4);
    for (unsigned k = 0; k < 4; k++) {
        const struct il_event *e = fx_event(&f, IL_EV_CASE_OPENED, k);
        assert_int_equal(e->number, k);
        assert_int_equal(e->deadline, f.now + 60000);
    }
    fx_tick(&f);
    assert_int_equal(fx_count(&f, IL_EV_VOTE_OPENED), 4);
    assert_int_equal(f.g.phase, IL_PHASE_VOTE);
    /* Each case has its own votes: seat 1 is convicted of case 2 only. */
    for (int s = 0; s < 4; s++) {
        struct il_action a = act_vote(&f, s, s == 1 ? 0 : 1);
        a.number = 2;
        fx_ok(&f, &a);
        assert_int_equal(f.ev.v[0].number, 2);
    }
    struct il_action a = act_vote(&f, 0, 1);
    a.number = 4;
    fx_refuse(&f, &a, IL_ERR_NO_SUCH_CASE);
    fx_tick(&f);
    assert_int_equal(fx_count(&f, IL_EV_VERDICT), 4);
    for (unsigned k = 0; k < 4; k++) {
        const struct il_event *e = fx_event(&f, IL_EV_VERDICT, k);
        assert_int_equal(e->number, k);
        assert_int_equal(e->target, k == 2 ? 1 : IL_NOBODY);
    }
    assert_int_equal(f.g.phase, IL_PHASE_OVER);
    assert_int_equal(f.ev.v[f.ev.n - 1].type, IL_EV_GAME_OVER);
}

/* With close-early, each parallel case is judged once everyone has voted on
 * it; the others stay open, and the game, stored and read back, keeps
 * which are judged. */
static void parallel_cases_close_one_by_one(void **state)
{
    (void)state;
    struct fx f;
    fx_setup_tribunal(&f, 4, IL_VARIANT_STANDARD, 45,
                      IL_TRIBUNAL_PARALLEL | IL_TRIBUNAL_CLOSE_EARLY);
    end_sessions(&f);
    fx_tick(&f);
    for (int s = 0; s < 4; s++) {
        struct il_action a = act_vote(&f, s, s == 1 ? 0 : 1);
        a.number = 2;
        fx_ok(&f, &a);
    }
    assert_int_equal(fx_count(&f, IL_EV_VERDICT), 1);
    assert_int_equal(fx_event(&f, IL_EV_VERDICT, 0)->number, 2);
    assert_int_equal(f.g.judged, 1u << 2);
    assert_true(il_case_judged(&f.g, 2) && !il_case_open(&f.g, 2));
    assert_true(il_case_open(&f.g, 0) && il_case_open(&f.g, 3));
    assert_int_equal(f.g.phase, IL_PHASE_VOTE);
    struct il_action late = act_vote(&f, 0, 1);
    late.number = 2;
    fx_refuse(&f, &late, IL_ERR_NO_SUCH_CASE);
    assert_true(il_game_check(&f.g, NULL, 0));

    struct json_object *j = il_game_to_json(&f.g);
    struct il_game back;
    assert_int_equal(il_game_from_json(&back, j), IL_OK);
    json_object_put(j);
    assert_int_equal(back.judged, 1u << 2);

    /* The deadline judges the rest, each once. */
    fx_tick(&f);
    assert_int_equal(fx_count(&f, IL_EV_VERDICT), 3);
    for (unsigned i = 0; i < 3; i++)
        assert_int_not_equal(fx_event(&f, IL_EV_VERDICT, i)->number, 2);
    assert_int_equal(f.g.phase, IL_PHASE_OVER);
    assert_int_equal(f.g.judged, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(parallel_cases_close_one_by_one),
        cmocka_unit_test(tribunal_opens_after_the_last_session),
        cmocka_unit_test(vote_rules),
        cmocka_unit_test(most_votes_convicts),
        cmocka_unit_test(tie_or_no_votes_discards),
        cmocka_unit_test(one_player_takes_several_cases),
        cmocka_unit_test(advanced_judges_single_cards),
        cmocka_unit_test(hold_waits_for_the_gm),
        cmocka_unit_test(the_gm_schedules_the_tribunal),
        cmocka_unit_test(a_time_already_past_opens_at_once),
        cmocka_unit_test(votes_during_the_debate),
        cmocka_unit_test(a_vote_closes_once_everyone_voted),
        cmocka_unit_test(a_kick_while_paused_is_judged_on_resume),
        cmocka_unit_test(parallel_cases_are_judged_together),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
