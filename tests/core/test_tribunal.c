/*
 * test_tribunal.c - cases, debates, votes and verdicts.
 */
#include <string.h>

#include "helpers.h"

static void vote(struct fx *f, int voter, int target)
{
    struct il_action a = act_target(IL_ACT_VOTE, voter, target);
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

    struct il_action a = act_target(IL_ACT_VOTE, 0, 1);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
    a = act(IL_ACT_ABSTAIN, 0);
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
    struct il_action a = act_target(IL_ACT_VOTE, 0, 0);
    fx_refuse(&f, &a, IL_ERR_SELF_VOTE);
    a = act_target(IL_ACT_VOTE, 0, 5);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_target(IL_ACT_VOTE, 0, IL_NOBODY);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_target(IL_ACT_VOTE, IL_GM, 1);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_target(IL_ACT_VOTE, 5, 1);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act(IL_ACT_ABSTAIN, 6);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);

    vote(&f, 0, 1);
    assert_int_equal(f.ev.n, 1);
    assert_int_equal(f.ev.v[0].type, IL_EV_VOTE_RECORDED);
    assert_int_equal(f.ev.v[0].audience, 0); /* never public before the verdict */
    assert_int_equal(f.ev.v[0].player, 0);
    assert_int_equal(f.ev.v[0].target, 1);
    assert_int_equal(f.ev.v[0].number, f.g.case_index);
    assert_int_equal(f.g.players[0].vote, 1);
    vote(&f, 0, 2); /* changed */
    assert_int_equal(f.g.players[0].vote, 2);
    a = act(IL_ACT_ABSTAIN, 0);
    fx_ok(&f, &a);
    assert_int_equal(f.ev.v[0].audience, 0);
    assert_int_equal(f.ev.v[0].target, IL_NOBODY);
    assert_int_equal(f.g.players[0].vote, IL_NOBODY);

    struct il_action pause = act_gm(IL_ACT_PAUSE);
    fx_ok(&f, &pause);
    a = act_target(IL_ACT_VOTE, 0, 1);
    fx_refuse(&f, &a, IL_ERR_PAUSED);
    a = act(IL_ACT_ABSTAIN, 0);
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
        assert_int_equal(f.g.players[s].vote, IL_NOBODY);

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(tribunal_opens_after_the_last_session),
        cmocka_unit_test(vote_rules),
        cmocka_unit_test(most_votes_convicts),
        cmocka_unit_test(tie_or_no_votes_discards),
        cmocka_unit_test(one_player_takes_several_cases),
        cmocka_unit_test(advanced_judges_single_cards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
