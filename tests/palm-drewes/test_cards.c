/*
 * test_cards.c - every card of Palm & Drewes' Illegal does what the rulebook
 * says, and every refusal has its own error (README.md, "The cards").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "tests.h"

#define N PD_NOBODY

static struct t T;

static const struct pd_player *P(unsigned s)
{
    return &T.g.players[s];
}

static unsigned hand(unsigned s, const char *card)
{
    return P(s)->hand.n[t_card(card)];
}

static unsigned biz(unsigned s, const char *card)
{
    return P(s)->business.n[t_card(card)];
}

/* A three-player game, seat 0 to play, hands set. */
static void three(void)
{
    t_start(&T, 3, 7);
    t_hand(&T, 0, "opening dope small-fry raid");
    t_hand(&T, 1, "opening guns");
    t_hand(&T, 2, "alibi brokerage");
}

static void test_box(void **state)
{
    (void)state;
    unsigned total = 0;
    for (unsigned c = 0; c < PD_CARDS; c++) {
        total += pd_card_count(c);
        assert_int_equal(pd_card_from_id(pd_card_id(c)), (int)c);
    }
    assert_int_equal(total, PD_DECK_SIZE);
    assert_int_equal(pd_card_value(PD_COUP), 100000);
    assert_int_equal(pd_card_value(PD_SMALL_FRY), 1000);
    assert_int_equal(pd_card_value(PD_RUIN), 100000);
    assert_int_equal(pd_relief_lifts(PD_INFORMANT), PD_RAID);
    assert_int_equal(pd_relief_lifts(PD_BRIBE), PD_NONE);
}

static void test_opening(void **state)
{
    (void)state;
    three();
    assert_int_equal(t_play(&T, 0, "dope", N, NULL, NULL), PD_ERR_NO_OPENING);
    assert_int_equal(t_play(&T, 0, "opening", N, NULL, NULL), PD_OK);
    assert_int_equal(biz(0, "opening"), 1);
    assert_non_null(t_event(&T, PD_EV_OPENED));
    assert_non_null(t_event(&T, PD_EV_DREW)); /* the draw ends the turn */
    assert_int_equal(T.g.current, 1);
    t_hand(&T, 0, "opening dope");
    t_turn(&T, 0);
    assert_int_equal(t_play(&T, 0, "opening", N, NULL, NULL), PD_ERR_ALREADY_OPEN);
}

static void test_deals(void **state)
{
    (void)state;
    three();
    t_business(&T, 0, "opening");
    t_hand(&T, 0, "dope small-fry raid funny-money");
    assert_int_equal(t_play(&T, 0, "dope", N, NULL, "raid"), PD_ERR_EXTRA_NOT_LEGAL);
    assert_int_equal(t_play(&T, 0, "dope", N, NULL, "brokerage"), PD_ERR_NOT_HELD);
    assert_int_equal(t_play(&T, 0, "small-fry", N, NULL, "small-fry"), PD_ERR_NO_EXTRA);
    assert_int_equal(t_play(&T, 0, "raid", 1, NULL, "small-fry"), PD_ERR_NO_EXTRA);
    /* an illegal deal takes a legal one along, in one move */
    assert_int_equal(t_play(&T, 0, "dope", N, NULL, "small-fry"), PD_OK);
    assert_int_equal(biz(0, "dope"), 1);
    assert_int_equal(biz(0, "small-fry"), 1);
    assert_int_equal(t_count(&T, PD_EV_DEAL_PLAYED), 2);
    assert_int_equal(t_event(&T, PD_EV_DEAL_PLAYED)->amount, 25000);
    assert_int_equal(pd_business_value(&P(0)->business), 26000);
    assert_int_equal(T.g.current, 1);
}

static void test_deals_and_burdens(void **state)
{
    (void)state;
    three();
    t_business(&T, 0, "opening");
    t_hand(&T, 0, "dope small-fry");
    t_burden(&T, 0, "raid");
    assert_int_equal(t_play(&T, 0, "dope", N, NULL, NULL), PD_ERR_BURDENED);
    assert_int_equal(t_play(&T, 0, "small-fry", N, NULL, NULL), PD_OK); /* legal stays allowed */
    t_turn(&T, 0);
    t_hand(&T, 0, "small-fry brokerage");
    t_burden(&T, 0, "sweden");
    assert_int_equal(t_play(&T, 0, "small-fry", N, NULL, NULL), PD_ERR_IN_SWEDEN);
    t_burden(&T, 0, "tax-audit");
    assert_int_equal(t_play(&T, 0, "small-fry", N, NULL, NULL), PD_OK);
}

static void test_burden_laid(void **state)
{
    (void)state;
    three();
    assert_int_equal(t_play(&T, 0, "raid", 0, NULL, NULL), PD_ERR_SELF_TARGET);
    assert_int_equal(t_play(&T, 0, "raid", 5, NULL, NULL), PD_ERR_NOT_A_PLAYER);
    assert_int_equal(t_play(&T, 0, "raid", 1, NULL, NULL), PD_ERR_TARGET_NOT_OPEN);
    t_business(&T, 1, "opening");
    t_burden(&T, 1, "sweden");
    assert_int_equal(t_play(&T, 0, "raid", 1, NULL, NULL), PD_ERR_TARGET_BURDENED);
    t_burden(&T, 1, NULL);
    /* no opening of one's own is needed to lay a burden */
    assert_int_equal(t_play(&T, 0, "raid", 1, NULL, NULL), PD_OK);
    assert_int_equal(P(1)->burden, PD_RAID);
    const struct pd_event *e = t_event(&T, PD_EV_BURDEN_LAID);
    assert_int_equal(e->target, 1);
    assert_int_equal(e->card, PD_RAID);
}

static void test_tax_audit_opens_the_hand(void **state)
{
    (void)state;
    three();
    t_business(&T, 1, "opening");
    t_hand(&T, 0, "tax-audit dope");
    assert_false(pd_hand_open(&T.g, 1));
    assert_int_equal(t_play(&T, 0, "tax-audit", 1, NULL, NULL), PD_OK);
    assert_true(pd_hand_open(&T.g, 1));
    const struct pd_event *e = t_event(&T, PD_EV_HAND_SHOWN);
    assert_non_null(e);
    assert_int_equal(e->audience, PD_TABLE);
    assert_int_equal(e->player, 1);
    assert_memory_equal(&e->cards, &P(1)->hand, sizeof e->cards);
    /* every later change of that hand is shown too, while the audit lasts */
    t_turn(&T, 1);
    t_hand(&T, 1, "guns small-fry");
    assert_int_equal(t_play(&T, 1, "small-fry", N, NULL, NULL), PD_OK);
    assert_int_equal(t_count(&T, PD_EV_HAND_SHOWN), 2); /* after the play, after the draw */
    /* an audited player may play no illegal deal */
    t_turn(&T, 1);
    t_hand(&T, 1, "guns");
    assert_int_equal(t_play(&T, 1, "guns", N, NULL, NULL), PD_ERR_BURDENED);
}

/* Raid: one illegal deal lost at the end of each of the raided player's
 * turns, their choice; the raid goes once none is left. */
static void test_raid(void **state)
{
    (void)state;
    three();
    t_business(&T, 1, "opening dope guns small-fry");
    t_burden(&T, 1, "raid");
    t_turn(&T, 1);
    t_hand(&T, 1, "brokerage alibi");
    assert_int_equal(t_play(&T, 1, "brokerage", N, NULL, NULL), PD_OK);
    assert_int_equal(T.g.phase, PD_PHASE_LOSS); /* dope or guns: a choice */
    assert_non_null(t_event(&T, PD_EV_LOSS_DUE));
    assert_int_equal(t_do(&T, PD_ACT_LOSE, 0, N, "dope"), PD_ERR_NOT_YOUR_TURN);
    assert_int_equal(t_do(&T, PD_ACT_LOSE, 1, N, "small-fry"), PD_ERR_WRONG_DEAL);
    assert_int_equal(t_do(&T, PD_ACT_LOSE, 1, N, "coup"), PD_ERR_NO_SUCH_DEAL);
    assert_int_equal(t_do(&T, PD_ACT_LOSE, 1, N, "dope"), PD_OK);
    assert_int_equal(biz(1, "dope"), 0);
    assert_int_equal(t_event(&T, PD_EV_DEAL_LOST)->card2, PD_RAID);
    assert_int_equal(T.g.current, 2);
    assert_int_equal(t_do(&T, PD_ACT_LOSE, 1, N, "guns"), PD_ERR_WRONG_PHASE);
    /* next turn: one illegal deal left, lost without asking, and the raid goes */
    t_turn(&T, 1);
    assert_int_equal(t_play(&T, 1, "alibi", 1, NULL, NULL), PD_ERR_WRONG_RELIEF);
    assert_int_equal(t_do(&T, PD_ACT_DISCARD, 1, N, NULL), PD_ERR_EMPTY_DISCARD);
    struct pd_action a;
    pd_action_init(&a, PD_ACT_DISCARD, 1);
    a.card = PD_ALIBI;
    assert_int_equal(t_act(&T, &a), PD_OK);
    assert_int_equal(biz(1, "guns"), 0);
    assert_int_equal(biz(1, "small-fry"), 1); /* a raid takes no legal deal */
    const struct pd_event *gone = t_event(&T, PD_EV_BURDEN_LIFTED);
    assert_non_null(gone);
    assert_int_equal(gone->card, PD_RAID);
    assert_int_equal(gone->card2, PD_NONE);
    assert_int_equal(P(1)->burden, PD_NONE);
}

static void test_protection_money(void **state)
{
    (void)state;
    three();
    t_business(&T, 1, "opening small-fry");
    t_burden(&T, 1, "protection");
    t_turn(&T, 1);
    t_hand(&T, 1, "brokerage dope");
    assert_int_equal(t_play(&T, 1, "dope", N, NULL, NULL), PD_ERR_BURDENED);
    assert_int_equal(t_play(&T, 1, "brokerage", N, NULL, NULL), PD_OK);
    /* two legal deals: protection money takes either; the player chooses */
    assert_int_equal(T.g.phase, PD_PHASE_LOSS);
    assert_int_equal(t_do(&T, PD_ACT_LOSE, 1, N, "brokerage"), PD_OK);
    assert_int_equal(biz(1, "small-fry"), 1);
    assert_int_equal(P(1)->burden, PD_PROTECTION); /* a deal is left */
    t_turn(&T, 1);
    struct pd_action a;
    pd_action_init(&a, PD_ACT_DISCARD, 1);
    a.card = PD_DOPE;
    assert_int_equal(t_act(&T, &a), PD_OK);
    assert_int_equal(biz(1, "small-fry"), 0);
    assert_int_equal(P(1)->burden, PD_NONE);
}

static void test_reliefs(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"informant", "raid"},
        {"mister-zero", "protection"},
        {"clean-record", "tax-audit"},
        {"alibi", "sweden"},
    };
    for (unsigned i = 0; i < 4; i++) {
        three();
        t_business(&T, 0, "opening");
        t_business(&T, 2, "opening");
        char h[64];
        snprintf(h, sizeof h, "%s dope", pairs[i][0]);
        t_hand(&T, 0, h);
        assert_int_equal(t_play(&T, 0, pairs[i][0], N, NULL, NULL), PD_ERR_NO_BURDEN);
        t_burden(&T, 2, pairs[(i + 1) % 4][1]);
        assert_int_equal(t_play(&T, 0, pairs[i][0], 2, NULL, NULL), PD_ERR_WRONG_RELIEF);
        t_burden(&T, 2, pairs[i][1]);
        unsigned before = T.g.discard.n[t_card(pairs[i][1])];
        /* a relief lifts another player's burden as well as one's own */
        assert_int_equal(t_play(&T, 0, pairs[i][0], 2, NULL, NULL), PD_OK);
        assert_int_equal(P(2)->burden, PD_NONE);
        assert_int_equal(T.g.discard.n[t_card(pairs[i][1])], before + 1);
        assert_int_equal(T.g.current, 1);
        t_turn(&T, 0);
        t_burden(&T, 0, pairs[i][1]);
        t_hand(&T, 0, h);
        assert_int_equal(t_play(&T, 0, pairs[i][0], N, NULL, NULL), PD_OK);
        assert_int_equal(P(0)->burden, PD_NONE);
    }
}

static void test_bribe(void **state)
{
    (void)state;
    three();
    t_business(&T, 0, "opening");
    t_burden(&T, 0, "sweden");
    t_hand(&T, 0, "bribe raid");
    assert_int_equal(t_play(&T, 0, "bribe", N, NULL, NULL), PD_ERR_NO_DEAL_IN_HAND);
    t_hand(&T, 0, "bribe dope guns small-fry");
    assert_int_equal(t_play(&T, 0, "bribe", N, NULL, NULL), PD_ERR_NAME_A_DEAL);
    assert_int_equal(t_play(&T, 0, "bribe", N, "raid", NULL), PD_ERR_NOT_A_DEAL);
    assert_int_equal(t_play(&T, 0, "bribe", N, "coup", NULL), PD_ERR_NOT_HELD);
    assert_int_equal(t_play(&T, 0, "bribe", 1, "dope", NULL), PD_ERR_NO_BURDEN);
    unsigned dope = T.g.discard.n[PD_DOPE];
    assert_int_equal(t_play(&T, 0, "bribe", N, "dope", NULL), PD_OK);
    assert_int_equal(P(0)->burden, PD_NONE);
    assert_int_equal(hand(0, "dope"), 0);
    assert_int_equal(T.g.discard.n[PD_DOPE], dope + 1);
    const struct pd_event *e = t_event(&T, PD_EV_BURDEN_LIFTED);
    assert_int_equal(e->card2, PD_BRIBE);
    assert_int_equal(e->deal, PD_DOPE);
    /* the bribe is played beside the turn's card: the turn goes on */
    assert_int_equal(T.g.phase, PD_PHASE_TURN);
    assert_int_equal(T.g.current, 0);
    assert_null(t_event(&T, PD_EV_DREW));
    assert_int_equal(t_play(&T, 0, "guns", N, NULL, "small-fry"), PD_OK);
    assert_int_equal(T.g.current, 1);
}

static void test_family_party(void **state)
{
    (void)state;
    three();
    t_business(&T, 0, "opening dope small-fry");
    t_hand(&T, 0, "family-party guns");
    assert_int_equal(t_play(&T, 0, "family-party", N, NULL, NULL), PD_ERR_NAME_A_DEAL);
    assert_int_equal(t_play(&T, 0, "family-party", N, "coup", NULL), PD_ERR_NO_SUCH_DEAL);
    assert_int_equal(t_play(&T, 0, "family-party", N, "small-fry", NULL), PD_OK);
    assert_int_equal(biz(0, "small-fry"), 0);
    assert_int_equal(biz(0, "dope"), 1);
    assert_int_equal(P(0)->skips, 1);
    const struct pd_event *e = t_event(&T, PD_EV_NUISANCE);
    assert_int_equal(e->number, 1);
    assert_int_equal(T.g.phase, PD_PHASE_PASS);
    assert_non_null(t_event(&T, PD_EV_PASS_OPENED));
}

static void test_family_party_without_deals(void **state)
{
    (void)state;
    three();
    t_hand(&T, 0, "family-party guns");
    /* no business at all: a nuisance card may still be played */
    assert_int_equal(t_play(&T, 0, "family-party", N, NULL, NULL), PD_OK);
    assert_null(t_event(&T, PD_EV_DEAL_LOST));
}

static void test_loan_shark(void **state)
{
    (void)state;
    three();
    t_business(&T, 0, "opening dope guns small-fry");
    t_hand(&T, 0, "loan-shark coup");
    assert_int_equal(t_play(&T, 0, "loan-shark", N, "dope", NULL), PD_ERR_NOT_HIGHEST);
    assert_int_equal(t_play(&T, 0, "loan-shark", N, NULL, NULL), PD_OK);
    assert_int_equal(biz(0, "guns"), 0);
    assert_int_equal(biz(0, "dope"), 1);
    assert_int_equal(P(0)->skips, 2);
    assert_int_equal(t_event(&T, PD_EV_NUISANCE)->number, 2);
    /* two deals of the same worth at the top: the player names one */
    three();
    t_business(&T, 0, "opening funny-money dames");
    t_hand(&T, 0, "loan-shark coup");
    assert_int_equal(t_play(&T, 0, "loan-shark", N, NULL, NULL), PD_ERR_NAME_A_DEAL);
    assert_int_equal(t_play(&T, 0, "loan-shark", N, "dames", NULL), PD_OK);
    assert_int_equal(biz(0, "dames"), 0);
    assert_int_equal(biz(0, "funny-money"), 1);
}

static void test_ruin(void **state)
{
    (void)state;
    three();
    t_business(&T, 0, "opening dope guns small-fry small-fry");
    t_hand(&T, 0, "ruin coup");
    assert_int_equal(t_play(&T, 0, "ruin", N, NULL, NULL), PD_OK);
    assert_int_equal(pd_bundle_total(&P(0)->business), 1); /* the opening stays */
    assert_int_equal(biz(0, "opening"), 1);
    const struct pd_event *e = t_event(&T, PD_EV_DEAL_LOST);
    assert_int_equal(pd_bundle_total(&e->cards), 4);
    assert_int_equal(e->card2, PD_RUIN);
    assert_int_equal(P(0)->skips, 2);
}

static void test_takeover(void **state)
{
    (void)state;
    three();
    t_hand(&T, 0, "takeover dope");
    t_business(&T, 1, "opening guns");
    assert_int_equal(t_play(&T, 0, "takeover", 1, "guns", NULL), PD_ERR_NO_OPENING);
    t_business(&T, 0, "opening");
    t_burden(&T, 0, "sweden");
    assert_int_equal(t_play(&T, 0, "takeover", 1, "guns", NULL), PD_ERR_BURDENED);
    t_burden(&T, 0, NULL);
    assert_int_equal(t_play(&T, 0, "takeover", N, NULL, NULL), PD_ERR_NAME_A_DEAL);
    assert_int_equal(t_play(&T, 0, "takeover", 0, "guns", NULL), PD_ERR_SELF_TARGET);
    assert_int_equal(t_play(&T, 0, "takeover", 1, "opening", NULL), PD_ERR_NOT_A_DEAL);
    assert_int_equal(t_play(&T, 0, "takeover", 1, "dope", NULL), PD_ERR_NO_SUCH_DEAL);
    assert_int_equal(t_play(&T, 0, "takeover", 1, "guns", NULL), PD_OK);
    assert_int_equal(T.g.phase, PD_PHASE_WINDOW);
    const struct pd_event *e = t_event(&T, PD_EV_TAKEOVER);
    assert_int_equal(e->deal, PD_GUNS);
    assert_int_equal(e->target, 1);
    assert_int_equal(e->deadline, T.now + T.g.config.timer_ms[PD_TIMER_WINDOW]);
    assert_int_equal(biz(1, "guns"), 1); /* nothing moves before the window closes */
    assert_int_equal(t_do(&T, PD_ACT_WAIVE, 0, N, NULL), PD_ERR_SELF_TARGET);
    assert_int_equal(t_do(&T, PD_ACT_WAIVE, 1, N, NULL), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_WAIVE, 1, N, NULL), PD_ERR_ALREADY_WAIVED);
    unsigned takeovers = T.g.discard.n[PD_TAKEOVER];
    assert_int_equal(t_do(&T, PD_ACT_WAIVE, 2, N, NULL), PD_OK); /* the last one: it goes */
    assert_non_null(t_event(&T, PD_EV_TAKEN));
    assert_int_equal(biz(0, "guns"), 1);
    assert_int_equal(biz(1, "guns"), 0);
    assert_int_equal(T.g.discard.n[PD_TAKEOVER], takeovers + 1);
    assert_int_equal(T.g.current, 1);
    assert_int_equal(t_do(&T, PD_ACT_WAIVE, 2, N, NULL), PD_ERR_WRONG_PHASE);
}

static void test_window_times_out(void **state)
{
    (void)state;
    three();
    t_business(&T, 0, "opening");
    t_business(&T, 1, "opening guns");
    t_hand(&T, 0, "takeover dope");
    assert_int_equal(t_play(&T, 0, "takeover", 1, "guns", NULL), PD_OK);
    int64_t end = T.g.deadline;
    assert_int_equal(pd_game_deadline(&T.g), end); /* no reminder in the window */
    assert_int_equal(t_tick(&T, end - 1), PD_OK);
    assert_int_equal(T.ev.n, 0);
    assert_int_equal(t_tick(&T, end), PD_OK);
    assert_non_null(t_event(&T, PD_EV_TAKEN));
    assert_int_equal(biz(0, "guns"), 1);
}

static void test_magnum_stops_a_takeover(void **state)
{
    (void)state;
    three();
    t_business(&T, 0, "opening");
    t_business(&T, 1, "opening guns");
    t_hand(&T, 0, "takeover dope");
    t_hand(&T, 2, "magnum brokerage");
    assert_int_equal(t_do(&T, PD_ACT_MAGNUM, 2, N, NULL), PD_ERR_NO_TAKEOVER);
    assert_int_equal(t_play(&T, 0, "takeover", 1, "guns", NULL), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_MAGNUM, 1, N, NULL), PD_ERR_NOT_HELD);
    /* a third player stops it, out of turn, and draws nothing */
    unsigned takeovers = T.g.discard.n[PD_TAKEOVER];
    assert_int_equal(t_do(&T, PD_ACT_MAGNUM, 2, N, NULL), PD_OK);
    const struct pd_event *e = t_event(&T, PD_EV_TAKEOVER_STOPPED);
    assert_int_equal(e->player, 2);
    assert_int_equal(e->target, 0);
    assert_int_equal(biz(1, "guns"), 1);
    assert_int_equal(biz(0, "guns"), 0);
    assert_int_equal(T.g.discard.n[PD_MAGNUM], 1);
    assert_int_equal(T.g.discard.n[PD_TAKEOVER], takeovers + 1);
    assert_int_equal(pd_bundle_total(&P(2)->hand), 1);
    assert_int_equal(T.g.current, 1); /* the taker's turn ended with its draw */
    assert_int_equal(pd_bundle_total(&P(0)->hand), 2);
}

static void test_magnum_cannot_stop_ones_own(void **state)
{
    (void)state;
    three();
    t_business(&T, 0, "opening");
    t_business(&T, 1, "opening guns");
    t_hand(&T, 0, "takeover magnum");
    assert_int_equal(t_play(&T, 0, "takeover", 1, "guns", NULL), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_MAGNUM, 0, N, NULL), PD_ERR_SELF_TARGET);
}

static void test_magnum_lifts_a_burden_out_of_turn(void **state)
{
    (void)state;
    three();
    t_business(&T, 2, "opening");
    t_burden(&T, 2, "sweden");
    t_hand(&T, 2, "magnum brokerage");
    /* the Magnum in another's turn needs no opening and no turn */
    assert_int_equal(t_play(&T, 2, "magnum", 0, NULL, NULL), PD_ERR_NO_BURDEN);
    assert_int_equal(t_play(&T, 2, "magnum", 2, NULL, NULL), PD_OK);
    assert_int_equal(P(2)->burden, PD_NONE);
    assert_int_equal(t_event(&T, PD_EV_BURDEN_LIFTED)->card2, PD_MAGNUM);
    assert_int_equal(T.g.current, 0);
    assert_int_equal(pd_bundle_total(&P(2)->hand), 1); /* no draw out of turn */
}

static void test_magnum_in_a_loss(void **state)
{
    (void)state;
    three();
    t_business(&T, 1, "opening dope guns");
    t_burden(&T, 1, "raid");
    t_hand(&T, 2, "magnum brokerage");
    t_turn(&T, 1);
    t_hand(&T, 1, "small-fry alibi");
    assert_int_equal(t_play(&T, 1, "small-fry", N, NULL, NULL), PD_OK);
    assert_int_equal(T.g.phase, PD_PHASE_LOSS);
    /* a friend fires the Magnum: the raid goes, and the loss with it */
    assert_int_equal(t_do(&T, PD_ACT_MAGNUM, 2, 1, NULL), PD_OK);
    assert_int_equal(biz(1, "dope") + biz(1, "guns"), 2);
    assert_int_equal(T.g.current, 2);
    assert_int_equal(T.g.phase, PD_PHASE_TURN);
}

static void test_connections(void **state)
{
    (void)state;
    three();
    t_hand(&T, 0, "connections dope");
    assert_int_equal(t_play(&T, 0, "connections", N, NULL, NULL), PD_ERR_NO_OPENING);
    t_business(&T, 0, "opening");
    assert_int_equal(t_play(&T, 0, "connections", N, NULL, NULL), PD_ERR_NOTHING_TO_DO);
    /* burdened and no deal to take anywhere: it lifts the burden alone */
    t_burden(&T, 0, "tax-audit");
    assert_int_equal(t_play(&T, 0, "connections", N, NULL, NULL), PD_OK);
    assert_int_equal(P(0)->burden, PD_NONE);
    assert_int_equal(t_event(&T, PD_EV_BURDEN_LIFTED)->card2, PD_CONNECTIONS);
    assert_int_equal(T.g.current, 1);
    /* with a deal to take: the burden goes first, then the takeover waits in the window */
    t_turn(&T, 0);
    t_hand(&T, 0, "connections dope");
    t_burden(&T, 0, "raid");
    t_business(&T, 2, "opening brokerage");
    assert_int_equal(t_play(&T, 0, "connections", N, NULL, NULL), PD_ERR_NAME_A_DEAL);
    assert_int_equal(t_play(&T, 0, "connections", 2, "brokerage", NULL), PD_OK);
    assert_int_equal(P(0)->burden, PD_NONE);
    assert_int_equal(T.g.phase, PD_PHASE_WINDOW);
    /* the Magnum stops the takeover; the lifted burden stays lifted */
    t_hand(&T, 2, "magnum guns");
    unsigned connections = T.g.discard.n[PD_CONNECTIONS];
    assert_int_equal(t_do(&T, PD_ACT_MAGNUM, 2, N, NULL), PD_OK);
    assert_int_equal(P(0)->burden, PD_NONE);
    assert_int_equal(biz(2, "brokerage"), 1);
    assert_int_equal(T.g.discard.n[PD_CONNECTIONS], connections + 1);
}

static void test_reckoning(void **state)
{
    (void)state;
    three();
    t_hand(&T, 0, "reckoning family-party guns");
    assert_int_equal(t_play(&T, 0, "reckoning", N, NULL, NULL), PD_ERR_NO_OPENING);
    t_business(&T, 0, "opening dope small-fry");
    t_burden(&T, 0, "tax-audit");
    assert_int_equal(t_play(&T, 0, "reckoning", N, NULL, NULL), PD_ERR_BURDENED);
    t_burden(&T, 0, NULL);
    t_business(&T, 1, "opening coup");
    t_hand(&T, 1, "loan-shark ruin small-fry");
    t_hand(&T, 2, "political brokerage");
    assert_int_equal(t_play(&T, 0, "reckoning", N, NULL, NULL), PD_OK);
    assert_int_equal(T.g.phase, PD_PHASE_OVER);
    assert_int_equal(T.g.end, PD_END_RECKONING);
    assert_null(t_event(&T, PD_EV_DREW));
    /* 26,000 in business; a family party (25,000) and guns (50,000) in hand */
    assert_int_equal(P(0)->score, 26000 - 25000 - 50000);
    /* 100,000 - 50,000 - 100,000 - 1,000 */
    assert_int_equal(P(1)->score, -51000);
    /* only the highest deal in hand counts against: political, 10,000 */
    assert_int_equal(P(2)->score, -10000);
    const struct pd_event *over = t_event(&T, PD_EV_GAME_OVER);
    assert_int_equal(over->number, PD_END_RECKONING);
    assert_int_equal(over->winners, 1u << 2);
    assert_int_equal(over->rank[2], 1);
    assert_int_equal(over->rank[1], 3);
    assert_int_equal(t_count(&T, PD_EV_REVEAL), 3);
    assert_int_equal(t_play(&T, 1, "ruin", N, NULL, NULL), PD_ERR_GAME_OVER);
}

static void test_discards(void **state)
{
    (void)state;
    three();
    t_hand(&T, 0, "loan-shark loan-shark loan-shark dope small-fry");
    struct pd_action a;
    pd_action_init(&a, PD_ACT_DISCARD, 0);
    a.card = PD_LOAN_SHARK;
    assert_int_equal(t_act(&T, &a), PD_ERR_NUISANCE_SINGLE);
    a.card = PD_COUP;
    assert_int_equal(t_act(&T, &a), PD_ERR_NOT_HELD);
    a.card = PD_NONE;
    a.extra = PD_DOPE;
    assert_int_equal(t_act(&T, &a), PD_ERR_NO_SET);
    /* three of a kind beside a single card: four cards go, one is drawn */
    a.card = PD_DOPE;
    a.extra = PD_LOAN_SHARK;
    a.player = 1;
    assert_int_equal(t_act(&T, &a), PD_ERR_NOT_YOUR_TURN);
    a.player = 0;
    assert_int_equal(t_act(&T, &a), PD_OK);
    assert_int_equal(pd_bundle_total(&t_event(&T, PD_EV_DISCARDED)->cards), 4);
    assert_int_equal(pd_bundle_total(&P(0)->hand), 2);
    assert_int_equal(T.g.discard.n[PD_LOAN_SHARK], 3); /* every one of the box */
}

static void test_a_discard_that_empties_the_hand(void **state)
{
    (void)state;
    three();
    t_hand(&T, 0, "family-party family-party family-party");
    struct pd_action a;
    pd_action_init(&a, PD_ACT_DISCARD, 0);
    a.extra = PD_FAMILY_PARTY;
    assert_int_equal(t_act(&T, &a), PD_OK);
    assert_int_equal(T.g.end, PD_END_HAND);
    assert_null(t_event(&T, PD_EV_DREW)); /* at once: no draw */
}

static void test_the_pile_runs_out(void **state)
{
    (void)state;
    three();
    t_hand(&T, 0, "dope guns");
    t_pile(&T, 1);
    struct pd_action a;
    pd_action_init(&a, PD_ACT_DISCARD, 0);
    a.card = PD_DOPE;
    assert_int_equal(t_act(&T, &a), PD_OK); /* the last card is drawn */
    assert_int_equal(T.g.npile, 0);
    assert_int_equal(T.g.phase, PD_PHASE_TURN);
    t_turn(&T, 0);
    a.card = PD_GUNS;
    assert_int_equal(t_act(&T, &a), PD_OK); /* and then none is left to draw */
    assert_int_equal(T.g.end, PD_END_PILE);
}

const struct CMUnitTest pd_card_tests[] = {
    cmocka_unit_test(test_box),
    cmocka_unit_test(test_opening),
    cmocka_unit_test(test_deals),
    cmocka_unit_test(test_deals_and_burdens),
    cmocka_unit_test(test_burden_laid),
    cmocka_unit_test(test_tax_audit_opens_the_hand),
    cmocka_unit_test(test_raid),
    cmocka_unit_test(test_protection_money),
    cmocka_unit_test(test_reliefs),
    cmocka_unit_test(test_bribe),
    cmocka_unit_test(test_family_party),
    cmocka_unit_test(test_family_party_without_deals),
    cmocka_unit_test(test_loan_shark),
    cmocka_unit_test(test_ruin),
    cmocka_unit_test(test_takeover),
    cmocka_unit_test(test_window_times_out),
    cmocka_unit_test(test_magnum_stops_a_takeover),
    cmocka_unit_test(test_magnum_cannot_stop_ones_own),
    cmocka_unit_test(test_magnum_lifts_a_burden_out_of_turn),
    cmocka_unit_test(test_magnum_in_a_loss),
    cmocka_unit_test(test_connections),
    cmocka_unit_test(test_reckoning),
    cmocka_unit_test(test_discards),
    cmocka_unit_test(test_a_discard_that_empties_the_hand),
    cmocka_unit_test(test_the_pile_runs_out),
};
const size_t pd_card_tests_n = sizeof pd_card_tests / sizeof pd_card_tests[0];
