/*
 * test_trade.c - trades in one's own turn, with anyone: offers, answers,
 * blind offers, and what lapses with the move.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests.h"

static struct t T;

static struct pd_action offer(int from, int to, unsigned give, unsigned ask, bool blind)
{
    struct pd_action a;
    pd_action_init(&a, PD_ACT_OFFER, from);
    a.target = (int8_t)to;
    if (give != PD_NONE)
        a.give.n[give]++;
    if (ask != PD_NONE)
        a.ask.n[ask]++;
    a.blind = blind;
    return a;
}

static enum pd_error answer(enum pd_action_type type, int who, uint32_t id)
{
    struct pd_action a;
    pd_action_init(&a, type, who);
    a.offer_id = id;
    return t_act(&T, &a);
}

static void test_offer_checks(void **state)
{
    (void)state;
    t_start(&T, 3, 30);
    t_hand(&T, 2, "alibi brokerage");
    t_hand(&T, 0, "dope guns");
    t_hand(&T, 1, "small-fry coup");
    struct pd_action a = offer(1, 0, PD_SMALL_FRY, PD_NONE, false);
    assert_int_equal(t_act(&T, &a), PD_ERR_NOT_YOUR_TURN); /* trades only in one's turn */
    a = offer(0, 0, PD_DOPE, PD_NONE, false);
    assert_int_equal(t_act(&T, &a), PD_ERR_SELF_TARGET);
    a = offer(0, 4, PD_DOPE, PD_NONE, false);
    assert_int_equal(t_act(&T, &a), PD_ERR_NOT_A_PLAYER);
    a = offer(0, 1, PD_NONE, PD_COUP, false);
    assert_int_equal(t_act(&T, &a), PD_ERR_GIVE_NOTHING);
    a = offer(0, 1, PD_MAGNUM, PD_COUP, false);
    assert_int_equal(t_act(&T, &a), PD_ERR_NOT_HELD);
    a = offer(0, 1, PD_DOPE, PD_NONE, false);
    a.give.n[PD_GUNS] = 1;
    assert_int_equal(t_act(&T, &a), PD_ERR_EMPTIES_HAND);
    a.give.n[PD_GUNS] = 200;
    assert_int_equal(t_act(&T, &a), PD_ERR_BAD_ACTION);
    for (unsigned i = 0; i < PD_MAX_OFFERS; i++) {
        a = offer(0, 1 + (int)(i % 2), PD_DOPE, PD_COUP, false);
        assert_int_equal(t_act(&T, &a), PD_OK);
    }
    a = offer(0, 1, PD_DOPE, PD_COUP, false);
    assert_int_equal(t_act(&T, &a), PD_ERR_TOO_MANY_OFFERS);
}

static void test_accept(void **state)
{
    (void)state;
    t_start(&T, 3, 31);
    t_hand(&T, 2, "alibi brokerage");
    t_hand(&T, 0, "dope guns");
    t_hand(&T, 1, "small-fry coup");
    /* a gift asks for nothing: uneven trades are allowed */
    struct pd_action a = offer(0, 1, PD_DOPE, PD_COUP, false);
    a.ask.n[PD_SMALL_FRY] = 1;
    assert_int_equal(t_act(&T, &a), PD_OK);
    const struct pd_event *e = t_event(&T, PD_EV_OFFER_MADE);
    assert_int_equal(e->audience, 1); /* the receiver first */
    assert_int_equal(e->cards.n[PD_DOPE], 1);
    uint32_t id = e->offer_id;
    assert_int_equal(answer(PD_ACT_ACCEPT, 2, id), PD_ERR_NOT_RECEIVER);
    assert_int_equal(answer(PD_ACT_CANCEL, 1, id), PD_ERR_NOT_OFFERER);
    assert_int_equal(answer(PD_ACT_ACCEPT, 1, id + 7), PD_ERR_NO_SUCH_OFFER);
    /* the offerer's hand: 1 left, 2 more to come */
    assert_int_equal(answer(PD_ACT_ACCEPT, 1, id), PD_OK);
    assert_int_equal(T.g.players[0].hand.n[PD_COUP], 1);
    assert_int_equal(T.g.players[0].hand.n[PD_SMALL_FRY], 1);
    assert_int_equal(T.g.players[1].hand.n[PD_DOPE], 1);
    e = t_event(&T, PD_EV_TRADED);
    assert_int_equal(e->audience, PD_TABLE);
    assert_int_equal(e->number, 1);
    assert_int_equal(e->count, 2);
    assert_int_equal(pd_bundle_total(&e->cards), 0); /* the table sees counts only */
    assert_int_equal(T.g.current, 0);                /* a trade is no move */
    assert_int_equal(T.g.noffers, 0);
}

static void test_accept_fails(void **state)
{
    (void)state;
    t_start(&T, 3, 32);
    t_hand(&T, 2, "alibi brokerage");
    t_hand(&T, 0, "dope guns");
    t_hand(&T, 1, "small-fry coup");
    struct pd_action a = offer(0, 1, PD_DOPE, PD_POLITICAL, false);
    assert_int_equal(t_act(&T, &a), PD_OK);
    uint32_t asks_too_much = t_event(&T, PD_EV_OFFER_MADE)->offer_id;
    a = offer(0, 2, PD_DOPE, PD_NONE, false);
    assert_int_equal(t_act(&T, &a), PD_OK);
    uint32_t gift = t_event(&T, PD_EV_OFFER_MADE)->offer_id;
    a = offer(0, 1, PD_GUNS, PD_NONE, false);
    assert_int_equal(t_act(&T, &a), PD_OK);
    uint32_t last = t_event(&T, PD_EV_OFFER_MADE)->offer_id;
    assert_int_equal(answer(PD_ACT_ACCEPT, 1, asks_too_much), PD_ERR_RECEIVER_LACKS_CARDS);
    assert_int_equal(answer(PD_ACT_ACCEPT, 2, gift), PD_OK);
    /* offers reserve nothing, and a trade that would leave its maker no card is refused */
    t_hand(&T, 0, "guns magnum");
    struct pd_action b = offer(0, 2, PD_MAGNUM, PD_NONE, false);
    assert_int_equal(t_act(&T, &b), PD_OK);
    uint32_t magnum = t_event(&T, PD_EV_OFFER_MADE)->offer_id;
    assert_int_equal(answer(PD_ACT_ACCEPT, 1, last), PD_OK);
    assert_int_equal(answer(PD_ACT_ACCEPT, 2, magnum), PD_ERR_EMPTIES_HAND);
    t_hand(&T, 0, "political");
    assert_int_equal(answer(PD_ACT_ACCEPT, 2, magnum), PD_ERR_OFFERER_LACKS_CARDS);
    assert_int_equal(answer(PD_ACT_DECLINE, 2, magnum), PD_OK);
    assert_non_null(t_event(&T, PD_EV_OFFER_DECLINED));
    assert_int_equal(t_count(&T, PD_EV_OFFER_DECLINED), 2);
}

static void test_blind_offer(void **state)
{
    (void)state;
    t_start(&T, 3, 33);
    t_hand(&T, 0, "ruin dope guns");
    struct pd_action a = offer(0, 1, PD_RUIN, PD_NONE, true);
    assert_int_equal(t_act(&T, &a), PD_OK);
    const struct pd_event *to = &T.ev.v[0], *from = &T.ev.v[1];
    assert_int_equal(to->audience, 1);
    assert_true(to->blind);
    assert_int_equal(pd_bundle_total(&to->cards), 0); /* face down */
    assert_int_equal(to->number, 1);
    assert_int_equal(from->audience, 0);
    assert_int_equal(from->cards.n[PD_RUIN], 1);
    uint32_t id = to->offer_id;
    assert_int_equal(answer(PD_ACT_ACCEPT, 1, id), PD_OK);
    /* once in the hand, the card is known */
    assert_int_equal(t_event(&T, PD_EV_OFFER_ACCEPTED)->cards.n[PD_RUIN], 1);
    assert_int_equal(T.g.players[1].hand.n[PD_RUIN], 1);
}

static void test_offers_lapse_with_the_move(void **state)
{
    (void)state;
    t_start(&T, 3, 34);
    t_hand(&T, 0, "dope guns small-fry");
    struct pd_action a = offer(0, 1, PD_DOPE, PD_NONE, false);
    assert_int_equal(t_act(&T, &a), PD_OK);
    a = offer(0, 2, PD_GUNS, PD_NONE, false);
    assert_int_equal(t_act(&T, &a), PD_OK);
    uint32_t id = t_event(&T, PD_EV_OFFER_MADE)->offer_id;
    assert_int_equal(answer(PD_ACT_CANCEL, 0, id), PD_OK);
    assert_int_equal(t_count(&T, PD_EV_OFFER_CANCELLED), 2);
    pd_action_init(&a, PD_ACT_DISCARD, 0);
    a.card = PD_SMALL_FRY;
    assert_int_equal(t_act(&T, &a), PD_OK);
    assert_int_equal(t_count(&T, PD_EV_OFFER_EXPIRED), 2);
    assert_int_equal(T.ev.v[0].type, PD_EV_OFFER_EXPIRED);
    assert_int_equal(T.g.noffers, 0);
}

const struct CMUnitTest pd_trade_tests[] = {
    cmocka_unit_test(test_offer_checks),
    cmocka_unit_test(test_accept),
    cmocka_unit_test(test_accept_fails),
    cmocka_unit_test(test_blind_offer),
    cmocka_unit_test(test_offers_lapse_with_the_move),
};
const size_t pd_trade_tests_n = sizeof pd_trade_tests / sizeof pd_trade_tests[0];
