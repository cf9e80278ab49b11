/*
 * test_kick.c - the Game Master removes a player.
 */
#include <string.h>

#include "helpers.h"

static void kick(struct fx *f, int seat)
{
    struct il_action a = act_target(IL_ACT_KICK, IL_GM, seat);
    fx_ok(f, &a);
}

static bool case_names(const struct il_game *g, unsigned i, unsigned type)
{
    for (unsigned k = 0; k < g->cases[i].ncards; k++)
        if (g->cases[i].cards[k] == type)
            return true;
    return false;
}

/* Index of the first case not yet judged that accuses seat s, or -1. */
static int case_of(const struct il_game *g, int s)
{
    const struct il_player *p = &g->players[s];
    for (unsigned i = g->case_index; i < g->ncases; i++)
        if (case_names(g, i, IL_CARD(IL_KIND_DEALER_SUSPECT, p->dealer)) ||
            case_names(g, i, IL_CARD(IL_KIND_BUYER_SUSPECT, p->buyer)))
            return (int)i;
    return -1;
}

static void refusals(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 61);
    struct il_action a = act_target(IL_ACT_KICK, 0, 1);
    fx_refuse(&f, &a, IL_ERR_NOT_GM);
    a = act_target(IL_ACT_KICK, IL_GM, 5);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_target(IL_ACT_KICK, IL_GM, IL_NOBODY);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    kick(&f, 1);
    a = act_target(IL_ACT_KICK, IL_GM, 1);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
}

static void kick_while_dealing(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 62);
    struct il_bundle none = one(0, 0);
    struct il_bundle g0 = one(f.g.players[0].dealer, 1), g2 = one(f.g.players[2].dealer, 1);
    struct il_action a = act_offer(0, 1, &g0, &none); /* id 1: to the leaver */
    fx_ok(&f, &a);
    a = act_offer(2, 3, &g2, &none); /* id 2: unrelated */
    fx_ok(&f, &a);
    struct il_bundle g1 = one(f.g.players[1].dealer, 1);
    a = act_offer(1, 4, &g1, &none); /* id 3: from the leaver */
    fx_ok(&f, &a);

    struct il_bundle hand = f.g.players[1].hand;
    uint8_t ncases = f.g.ncases;
    kick(&f, 1);
    assert_int_equal(fx_count(&f, IL_EV_OFFER_CANCELLED), 4);
    assert_non_null(fx_event_for(&f, IL_EV_OFFER_CANCELLED, 0));
    assert_non_null(fx_event_for(&f, IL_EV_OFFER_CANCELLED, 4));
    const struct il_event *e = fx_event(&f, IL_EV_PLAYER_REMOVED, 0);
    assert_non_null(e);
    assert_int_equal(e->audience, IL_PUBLIC);
    assert_int_equal(e->player, 1);
    assert_int_equal(f.g.noffers, 1);
    assert_int_equal(f.g.offers[0].id, 2);

    assert_false(f.g.players[1].active);
    assert_int_equal(il_bundle_total(&f.g.players[1].hand), 0);
    /* Resources and both roles are set aside; the leaver's case stays, so
     * that nothing tells the table which suspect cards were theirs. */
    for (unsigned t = 0; t < IL_CARD(IL_KIND_DEALER_SUSPECT, 0); t++)
        assert_int_equal(f.g.discard.n[t], hand.n[t]);
    assert_int_equal(f.g.ncases, ncases);
    assert_true(case_of(&f.g, 1) >= 0);
    assert_int_equal(f.g.discard.n[IL_CARD(IL_KIND_DEALER_SUSPECT, f.g.players[1].dealer)], 0);
    assert_int_equal(f.g.discard.n[IL_CARD(IL_KIND_BUYER_SUSPECT, f.g.players[1].buyer)], 0);

    /* The leaver can no longer act or be dealt with. */
    a = act_offer(1, 0, &g1, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_offer(0, 1, &g0, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_offer_id(IL_ACT_CANCEL, 1, 3);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
}

static void advanced_keeps_both_single_cases(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 6, IL_VARIANT_ADVANCED, 63);
    kick(&f, 3);
    assert_int_equal(f.g.ncases, 12);
    assert_true(case_of(&f.g, 3) >= 0);
}

static void kick_during_the_vote(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 6, IL_VARIANT_STANDARD, 64);
    fx_until(&f, IL_PHASE_VOTE, 0);
    /* Pick a leaver whose case is not the one being judged. */
    int leaver = -1;
    for (int s = 0; s < 6 && leaver < 0; s++)
        if (case_of(&f.g, s) != f.g.case_index)
            leaver = s;
    int voter = (leaver + 1) % 6, other = (leaver + 2) % 6;
    struct il_action a = act_vote(&f, voter, leaver);
    fx_ok(&f, &a);
    a = act_vote(&f, leaver, other);
    fx_ok(&f, &a);
    a = act_vote(&f, other, voter);
    fx_ok(&f, &a);
    uint8_t index = f.g.case_index;

    kick(&f, leaver);
    assert_int_equal(fx_count(&f, IL_EV_VOTE_RECORDED), 0);
    const struct il_event *e = fx_event(&f, IL_EV_VOTE_WITHDRAWN, 0);
    assert_non_null(e);
    assert_int_equal(e->audience, voter);
    assert_int_equal(e->player, voter);
    assert_int_equal(e->target, leaver);
    assert_int_equal(e->number, f.g.case_index);
    assert_int_equal(f.g.players[voter].votes[f.g.case_index], IL_NOBODY);
    assert_int_equal(f.g.players[leaver].votes[f.g.case_index], IL_NOBODY);
    assert_int_equal(f.g.players[other].votes[f.g.case_index], voter);
    assert_int_equal(f.g.phase, IL_PHASE_VOTE);
    assert_int_equal(f.g.case_index, index);
    a = act_vote(&f, voter, leaver);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_vote(&f, leaver, IL_ABSTAINED);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);

    fx_tick(&f);
    e = fx_event(&f, IL_EV_VERDICT, 0);
    assert_int_equal(e->target, voter);
    assert_int_equal(e->abstentions, 4);
}

static void kick_the_accused_keeps_the_case(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 65);
    fx_until(&f, IL_PHASE_VOTE, 0);
    int accused = -1;
    for (int s = 0; s < 5; s++)
        if (case_of(&f.g, s) == f.g.case_index)
            accused = s;
    assert_true(accused >= 0);
    int voter = (accused + 1) % 5, suspect = (accused + 2) % 5;
    struct il_action a = act_vote(&f, voter, suspect);
    fx_ok(&f, &a);
    uint8_t index = f.g.case_index, ncases = f.g.ncases;
    int64_t deadline = f.g.deadline;
    kick(&f, accused);
    /* Nothing moves on: the case goes on being judged as if nobody had left. */
    assert_int_equal(f.g.case_index, index);
    assert_int_equal(f.g.ncases, ncases);
    assert_int_equal(f.g.phase, IL_PHASE_VOTE);
    assert_int_equal(f.g.deadline, deadline);
    assert_int_equal(fx_count(&f, IL_EV_CASE_OPENED), 0);
    assert_int_equal(f.g.players[voter].votes[f.g.case_index], suspect);
    /* The verdict is an ordinary one: a wrongly accused player gets the cards. */
    struct il_bundle before = f.g.players[suspect].hand;
    fx_tick(&f);
    const struct il_event *e = fx_event(&f, IL_EV_VERDICT, 0);
    assert_non_null(e);
    assert_int_equal(e->number, index);
    assert_int_equal(e->target, suspect);
    assert_int_equal(il_bundle_total(&f.g.players[suspect].hand), il_bundle_total(&before) + 2);
}

static void kick_while_paused(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 66);
    fx_until(&f, IL_PHASE_DEBATE, 0);
    int accused = -1;
    for (int s = 0; s < 5; s++)
        if (case_of(&f.g, s) == f.g.case_index)
            accused = s;
    struct il_action pause = act_gm(IL_ACT_PAUSE);
    fx_ok(&f, &pause);
    int64_t left = f.g.paused_remaining;
    kick(&f, accused);
    assert_int_equal(fx_count(&f, IL_EV_CASE_OPENED), 0);
    assert_true(f.g.paused);
    assert_int_equal(f.g.phase, IL_PHASE_DEBATE);
    assert_int_equal(f.g.paused_remaining, left);
    struct il_action resume = act_gm(IL_ACT_RESUME);
    fx_ok(&f, &resume);
    assert_int_equal(f.g.deadline, f.now + left);
}

static void suspect_cards_in_hand_are_set_aside(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 67);
    fx_until(&f, IL_PHASE_VOTE, 0);
    struct il_action a = act_vote(&f, 0, 1);
    fx_ok(&f, &a);
    fx_tick(&f);
    assert_int_equal(fx_event(&f, IL_EV_VERDICT, 0)->target, 1);
    struct il_bundle hand = f.g.players[1].hand, discard = f.g.discard;
    kick(&f, 1);
    for (unsigned t = IL_CARD(IL_KIND_DEALER_SUSPECT, 0); t < IL_CARD_TYPES; t++)
        if (hand.n[t])
            assert_int_equal(f.g.discard.n[t], discard.n[t] + hand.n[t]);
}

static void drop_ends_when_the_last_waiting_player_leaves(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 6, IL_VARIANT_STANDARD, 68);
    fx_until(&f, IL_PHASE_DROP_GRAB, 1);
    for (int s = 0; s < 4; s++) {
        struct il_action a = act_grab(s, f.g.drop_cards[s]);
        fx_ok(&f, &a);
    }
    kick(&f, 4); /* seat 5 still chooses between two cards */
    assert_int_equal(f.g.phase, IL_PHASE_DROP_GRAB);
    kick(&f, 5);
    assert_non_null(fx_event(&f, IL_EV_DROP_DONE, 0));
    assert_int_equal(f.g.phase, IL_PHASE_DEALING);
    assert_int_equal(f.g.session, 2);
}

/* The rulebook's game needs 4 players: a removal that leaves 3 ends it at
 * once, aborted: the hands are shown, and nobody wins. */
static void too_few_players_ends_the_game(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 69);
    kick(&f, 0);
    assert_int_equal(f.g.phase, IL_PHASE_DEALING);
    assert_false(f.g.aborted);
    kick(&f, 2);
    assert_int_equal(f.g.phase, IL_PHASE_OVER);
    assert_true(f.g.aborted);
    assert_int_equal(fx_count(&f, IL_EV_REVEAL), 3);
    const struct il_event *over = &f.ev.v[f.ev.n - 1];
    assert_int_equal(over->type, IL_EV_GAME_OVER);
    assert_int_equal(over->rank[0], 0);
    assert_int_equal(over->rank[2], 0);
    assert_int_not_equal(over->rank[1], 0);
    assert_int_equal(over->winners, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(refusals),
        cmocka_unit_test(kick_while_dealing),
        cmocka_unit_test(advanced_keeps_both_single_cases),
        cmocka_unit_test(kick_during_the_vote),
        cmocka_unit_test(kick_the_accused_keeps_the_case),
        cmocka_unit_test(kick_while_paused),
        cmocka_unit_test(suspect_cards_in_hand_are_set_aside),
        cmocka_unit_test(drop_ends_when_the_last_waiting_player_leaves),
        cmocka_unit_test(too_few_players_ends_the_game),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
