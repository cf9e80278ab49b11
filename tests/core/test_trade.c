/*
 * test_trade.c - offers, answers and their expiry during dealing sessions.
 */
#include <string.h>

#include "helpers.h"

static unsigned dealer_res(const struct fx *f, int s)
{
    return f->g.players[s].dealer;
}

/* A resource in play that seat s holds none of. */
static unsigned lacking(const struct fx *f, int s)
{
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if ((f->g.in_play & (1u << r)) && f->g.players[s].hand.n[r] == 0)
            return r;
    fail_msg("seat %d holds every resource", s);
    return 0;
}

static void offer_events_and_ids(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 1);
    unsigned d0 = dealer_res(&f, 0), d1 = dealer_res(&f, 1);
    struct il_bundle give = one(d0, 2), ask = one(d1, 1);
    struct il_action a = act_offer(0, 1, &give, &ask);
    fx_ok(&f, &a);
    assert_int_equal(f.ev.n, 2);
    for (unsigned i = 0; i < 2; i++) {
        const struct il_event *e = &f.ev.v[i];
        assert_int_equal(e->type, IL_EV_OFFER_MADE);
        assert_int_equal(e->audience, i == 0 ? 1 : 0);
        assert_int_equal(e->player, 0);
        assert_int_equal(e->target, 1);
        assert_int_equal(e->offer_id, 1);
        assert_memory_equal(&e->cards, &give, sizeof give);
        assert_memory_equal(&e->cards2, &ask, sizeof ask);
    }
    assert_int_equal(f.g.noffers, 1);
    assert_int_equal(f.g.next_offer_id, 2);
    /* Offers reserve nothing: the hand is unchanged until an accept. */
    assert_int_equal(f.g.players[0].hand.n[d0], 5);

    fx_ok(&f, &a);
    assert_int_equal(f.ev.v[0].offer_id, 2);
    struct il_action cancel = act_offer_id(IL_ACT_CANCEL, 0, 2);
    fx_ok(&f, &cancel);
    fx_ok(&f, &a);
    assert_int_equal(f.ev.v[0].offer_id, 3); /* ids are never reused */
}

static void uneven_offers_and_gifts(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 2);
    unsigned d0 = dealer_res(&f, 0), d1 = dealer_res(&f, 1);
    struct il_bundle three = one(d0, 3), none = one(0, 0), two = one(d1, 2);
    struct il_action gift = act_offer(0, 1, &three, &none);
    fx_ok(&f, &gift);
    struct il_action beg = act_offer(0, 1, &none, &two);
    fx_ok(&f, &beg);
    struct il_action uneven = act_offer(0, 1, &three, &two);
    fx_ok(&f, &uneven);

    /* The gift goes through with nothing in return. */
    struct il_action accept = act_offer_id(IL_ACT_ACCEPT, 1, 1);
    fx_ok(&f, &accept);
    assert_int_equal(f.g.players[0].hand.n[d0], 2);
    assert_int_equal(f.g.players[1].hand.n[d0], 3 + (f.g.players[1].extra == d0));
}

static void receiver_hand_is_never_checked_at_offer_time(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 3);
    unsigned r = lacking(&f, 1);
    struct il_bundle give = one(dealer_res(&f, 0), 1), ask = one(r, 9);
    struct il_action a = act_offer(0, 1, &give, &ask);
    fx_ok(&f, &a);
    struct il_action accept = act_offer_id(IL_ACT_ACCEPT, 1, 1);
    fx_refuse(&f, &accept, IL_ERR_RECEIVER_LACKS_CARDS);
}

static void offer_refusals(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 4);
    unsigned d0 = dealer_res(&f, 0);
    struct il_bundle give = one(d0, 1), none = one(0, 0);
    struct il_action a;

    a = act_offer(7, 1, &give, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_offer(IL_GM, 1, &give, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_offer(-7, 1, &give, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_offer(0, 4, &give, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_offer(0, IL_NOBODY, &give, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_A_PLAYER);
    a = act_offer(0, 0, &give, &none);
    fx_refuse(&f, &a, IL_ERR_SELF_TARGET);

    /* Role cards can never change hands, nor suspect cards. */
    struct il_bundle role = one(IL_CARD(IL_KIND_DEALER, d0), 1);
    a = act_offer(0, 1, &role, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_TRADABLE);
    role = one(IL_CARD(IL_KIND_BUYER, f.g.players[0].buyer), 1);
    a = act_offer(0, 1, &role, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_TRADABLE);
    struct il_bundle suspect = one(IL_CARD(IL_KIND_BUYER_SUSPECT, d0), 1);
    a = act_offer(0, 1, &give, &suspect);
    fx_refuse(&f, &a, IL_ERR_NOT_TRADABLE);
    suspect = one(IL_CARD(IL_KIND_DEALER_SUSPECT, d0), 1);
    a = act_offer(0, 1, &give, &suspect);
    fx_refuse(&f, &a, IL_ERR_NOT_TRADABLE);

    struct il_bundle out = one(not_in_play(&f.g), 1);
    a = act_offer(0, 1, &give, &out);
    fx_refuse(&f, &a, IL_ERR_NOT_IN_PLAY);
    a = act_offer(0, 1, &out, &none);
    fx_refuse(&f, &a, IL_ERR_NOT_IN_PLAY);

    a = act_offer(0, 1, &none, &none);
    fx_refuse(&f, &a, IL_ERR_EMPTY_OFFER);

    struct il_bundle six = one(d0, 6);
    a = act_offer(0, 1, &six, &none);
    fx_refuse(&f, &a, IL_ERR_CARDS_NOT_HELD);
    struct il_bundle other = one(lacking(&f, 0), 1);
    a = act_offer(0, 1, &other, &none);
    fx_refuse(&f, &a, IL_ERR_CARDS_NOT_HELD);
}

static void offer_limits(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 5);
    struct il_bundle give = one(dealer_res(&f, 0), 1), none = one(0, 0);
    struct il_action a = act_offer(0, 1, &give, &none);
    for (unsigned i = 0; i < IL_MAX_OFFERS_FROM; i++)
        fx_ok(&f, &a);
    fx_refuse(&f, &a, IL_ERR_TOO_MANY_OFFERS);
    /* Someone else may still offer, and a cancel frees a slot. */
    struct il_action b = act_offer(1, 0, &none, &give);
    fx_ok(&f, &b);
    struct il_action cancel = act_offer_id(IL_ACT_CANCEL, 0, 3);
    fx_ok(&f, &cancel);
    fx_ok(&f, &a);
}

/* A full book of offers, closed at once: every expiry fits in the events. */
static void full_offer_book(void **state)
{
    (void)state;
    for (unsigned v = 0; v < IL_VARIANTS; v++) {
        struct fx f;
        fx_setup(&f, 8, (enum il_variant)v, 6);
        for (int s = 0; s < 8; s++) {
            struct il_bundle none = one(0, 0), ask = one(dealer_res(&f, (s + 1) % 8), 1);
            struct il_action a = act_offer(s, (s + 1) % 8, &none, &ask);
            for (unsigned i = 0; i < IL_MAX_OFFERS_FROM; i++)
                fx_ok(&f, &a);
        }
        assert_int_equal(f.g.noffers, IL_MAX_OFFERS);
        struct il_bundle give = one(dealer_res(&f, 0), 1), none = one(0, 0);
        struct il_action more = act_offer(0, 1, &give, &none);
        fx_refuse(&f, &more, IL_ERR_TOO_MANY_OFFERS);

        fx_tick(&f);
        assert_int_equal(fx_count(&f, IL_EV_OFFER_EXPIRED), 2 * IL_MAX_OFFERS);
        assert_true(f.ev.n <= IL_MAX_EVENTS);
        assert_int_equal(f.g.noffers, 0);
        if (il_variant_casual((enum il_variant)v))
            assert_int_equal(f.ev.n, 2 * IL_MAX_OFFERS + 4 + 2 * 8);
    }
}

static void accept_swaps(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 7);
    unsigned d0 = dealer_res(&f, 0), d1 = dealer_res(&f, 1);
    struct il_bundle h0 = f.g.players[0].hand, h1 = f.g.players[1].hand;
    struct il_bundle give = one(d0, 2), ask = one(d1, 3);
    struct il_action a = act_offer(0, 1, &give, &ask);
    fx_ok(&f, &a);
    struct il_action accept = act_offer_id(IL_ACT_ACCEPT, 1, 1);
    fx_ok(&f, &accept);

    h0.n[d0] -= 2;
    h0.n[d1] += 3;
    h1.n[d0] += 2;
    h1.n[d1] -= 3;
    assert_memory_equal(&f.g.players[0].hand, &h0, sizeof h0);
    assert_memory_equal(&f.g.players[1].hand, &h1, sizeof h1);
    assert_int_equal(f.g.noffers, 0);

    assert_int_equal(f.ev.n, 4);
    assert_int_equal(fx_count(&f, IL_EV_OFFER_ACCEPTED), 2);
    const struct il_event *e = fx_event_for(&f, IL_EV_OFFER_ACCEPTED, 0);
    assert_non_null(e);
    assert_int_equal(e->offer_id, 1);
    assert_memory_equal(&e->cards, &give, sizeof give);
    assert_memory_equal(&e->cards2, &ask, sizeof ask);
    assert_non_null(fx_event_for(&f, IL_EV_OFFER_ACCEPTED, 1));
    e = fx_event_for(&f, IL_EV_HAND, 0);
    assert_non_null(e);
    assert_memory_equal(&e->cards, &h0, sizeof h0);
    e = fx_event_for(&f, IL_EV_HAND, 1);
    assert_non_null(e);
    assert_memory_equal(&e->cards, &h1, sizeof h1);
    /* Both HAND events come after the acceptances. */
    assert_int_equal(f.ev.v[2].type, IL_EV_HAND);
    assert_int_equal(f.ev.v[3].type, IL_EV_HAND);
}

static void accept_refusals(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 8);
    unsigned d0 = dealer_res(&f, 0);
    struct il_bundle all = one(d0, 5), some = one(d0, 1), none = one(0, 0);
    struct il_action a = act_offer(0, 1, &all, &none);
    fx_ok(&f, &a); /* id 1 */
    a = act_offer(0, 2, &some, &none);
    fx_ok(&f, &a); /* id 2 */

    struct il_action x = act_offer_id(IL_ACT_ACCEPT, 1, 99);
    fx_refuse(&f, &x, IL_ERR_NO_SUCH_OFFER);
    x = act_offer_id(IL_ACT_ACCEPT, 1, 0);
    fx_refuse(&f, &x, IL_ERR_NO_SUCH_OFFER);
    x = act_offer_id(IL_ACT_ACCEPT, 0, 1);
    fx_refuse(&f, &x, IL_ERR_NOT_RECEIVER);
    x = act_offer_id(IL_ACT_ACCEPT, 3, 1);
    fx_refuse(&f, &x, IL_ERR_NOT_RECEIVER);
    x = act_offer_id(IL_ACT_ACCEPT, IL_GM, 1);
    fx_refuse(&f, &x, IL_ERR_NOT_A_PLAYER);

    x = act_offer_id(IL_ACT_ACCEPT, 1, 1);
    fx_ok(&f, &x);
    /* Offer 2 can no longer be honoured; it stays open and fails cleanly. */
    assert_int_equal(f.g.noffers, 1);
    x = act_offer_id(IL_ACT_ACCEPT, 2, 2);
    fx_refuse(&f, &x, IL_ERR_OFFERER_LACKS_CARDS);
    assert_int_equal(f.g.noffers, 1);

    /* Receiver lacks the asked card, gets it, then the same offer works. */
    unsigned r = lacking(&f, 3);
    struct il_bundle ask = one(r, 1);
    int giver = -1;
    for (int s = 0; s < 3; s++)
        if (f.g.players[s].hand.n[r])
            giver = s;
    assert_true(giver >= 0);
    a = act_offer(giver == 0 ? 1 : 0, 3, &none, &ask);
    fx_ok(&f, &a);
    uint32_t wanted = f.ev.v[0].offer_id;
    x = act_offer_id(IL_ACT_ACCEPT, 3, wanted);
    fx_refuse(&f, &x, IL_ERR_RECEIVER_LACKS_CARDS);
    struct il_action gift = act_offer(giver, 3, &ask, &none);
    fx_ok(&f, &gift);
    struct il_action take = act_offer_id(IL_ACT_ACCEPT, 3, f.ev.v[0].offer_id);
    fx_ok(&f, &take);
    fx_ok(&f, &x);
}

static void decline_and_cancel(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 9);
    struct il_bundle give = one(dealer_res(&f, 0), 1), none = one(0, 0);
    struct il_action a = act_offer(0, 1, &give, &none);
    fx_ok(&f, &a);
    fx_ok(&f, &a);

    struct il_action x = act_offer_id(IL_ACT_DECLINE, 0, 1);
    fx_refuse(&f, &x, IL_ERR_NOT_RECEIVER);
    x = act_offer_id(IL_ACT_DECLINE, 1, 5);
    fx_refuse(&f, &x, IL_ERR_NO_SUCH_OFFER);
    x = act_offer_id(IL_ACT_DECLINE, 1, 1);
    fx_ok(&f, &x);
    assert_int_equal(f.ev.n, 2);
    assert_non_null(fx_event_for(&f, IL_EV_OFFER_DECLINED, 0));
    assert_non_null(fx_event_for(&f, IL_EV_OFFER_DECLINED, 1));
    assert_int_equal(f.ev.v[0].offer_id, 1);
    fx_refuse(&f, &x, IL_ERR_NO_SUCH_OFFER);

    x = act_offer_id(IL_ACT_CANCEL, 1, 2);
    fx_refuse(&f, &x, IL_ERR_NOT_OFFERER);
    x = act_offer_id(IL_ACT_CANCEL, 0, 3);
    fx_refuse(&f, &x, IL_ERR_NO_SUCH_OFFER);
    x = act_offer_id(IL_ACT_CANCEL, 0, 2);
    fx_ok(&f, &x);
    assert_int_equal(f.ev.n, 2);
    assert_non_null(fx_event_for(&f, IL_EV_OFFER_CANCELLED, 0));
    assert_non_null(fx_event_for(&f, IL_EV_OFFER_CANCELLED, 1));
    assert_int_equal(f.g.noffers, 0);
}

static void offers_expire_when_the_session_closes(void **state)
{
    (void)state;
    for (int by_next = 0; by_next < 2; by_next++) {
        struct fx f;
        fx_setup(&f, 4, IL_VARIANT_STANDARD, 10);
        struct il_bundle give = one(dealer_res(&f, 0), 1), none = one(0, 0);
        struct il_action a = act_offer(0, 1, &give, &none);
        fx_ok(&f, &a);
        a = act_offer(2, 3, &none, &give);
        fx_ok(&f, &a);
        if (by_next) {
            struct il_action next = act_gm(IL_ACT_NEXT);
            fx_ok(&f, &next);
        } else {
            f.now = f.g.deadline - 1;
            struct il_action tick = act(IL_ACT_TICK, 0);
            fx_ok(&f, &tick);
            assert_int_equal(f.ev.n, 0); /* not yet due */
            fx_tick(&f);
        }
        assert_int_equal(f.g.noffers, 0);
        assert_int_equal(f.ev.v[0].type, IL_EV_OFFER_EXPIRED);
        assert_int_equal(f.ev.v[0].audience, 1);
        assert_int_equal(f.ev.v[1].type, IL_EV_OFFER_EXPIRED);
        assert_int_equal(f.ev.v[1].audience, 0);
        assert_int_equal(f.ev.v[2].audience, 3);
        assert_int_equal(f.ev.v[3].audience, 2);
        assert_int_equal(f.ev.v[3].offer_id, 2);
        assert_int_equal(f.ev.v[4].type, IL_EV_SESSION_CLOSED);
        assert_int_equal(f.ev.v[4].audience, IL_PUBLIC);
        assert_int_equal(f.ev.v[4].number, 1);
        assert_int_equal(f.g.phase, IL_PHASE_DROP_REVEAL);
    }
}

static void trades_only_while_dealing_and_running(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 11);
    struct il_bundle give = one(dealer_res(&f, 0), 1), none = one(0, 0);
    struct il_action a = act_offer(0, 1, &give, &none);
    fx_ok(&f, &a);
    struct il_action pause = act_gm(IL_ACT_PAUSE);
    fx_ok(&f, &pause);
    fx_refuse(&f, &a, IL_ERR_PAUSED);
    struct il_action x = act_offer_id(IL_ACT_ACCEPT, 1, 1);
    fx_refuse(&f, &x, IL_ERR_PAUSED);
    x = act_offer_id(IL_ACT_DECLINE, 1, 1);
    fx_refuse(&f, &x, IL_ERR_PAUSED);
    x = act_offer_id(IL_ACT_CANCEL, 0, 1);
    fx_refuse(&f, &x, IL_ERR_PAUSED);
    struct il_action resume = act_gm(IL_ACT_RESUME);
    fx_ok(&f, &resume);

    fx_until(&f, IL_PHASE_DROP_REVEAL, 0);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
    x = act_offer_id(IL_ACT_ACCEPT, 1, 1);
    fx_refuse(&f, &x, IL_ERR_WRONG_PHASE);
    x = act_offer_id(IL_ACT_DECLINE, 1, 1);
    fx_refuse(&f, &x, IL_ERR_WRONG_PHASE);
    x = act_offer_id(IL_ACT_CANCEL, 0, 1);
    fx_refuse(&f, &x, IL_ERR_WRONG_PHASE);
    fx_until(&f, IL_PHASE_DEBATE, 0);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
    fx_until(&f, IL_PHASE_VOTE, 0);
    fx_refuse(&f, &a, IL_ERR_WRONG_PHASE);
    struct il_action end = act_gm(IL_ACT_END);
    fx_ok(&f, &end);
    fx_refuse(&f, &a, IL_ERR_GAME_OVER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(offer_events_and_ids),
        cmocka_unit_test(uneven_offers_and_gifts),
        cmocka_unit_test(receiver_hand_is_never_checked_at_offer_time),
        cmocka_unit_test(offer_refusals),
        cmocka_unit_test(offer_limits),
        cmocka_unit_test(full_offer_book),
        cmocka_unit_test(accept_swaps),
        cmocka_unit_test(accept_refusals),
        cmocka_unit_test(decline_and_cancel),
        cmocka_unit_test(offers_expire_when_the_session_closes),
        cmocka_unit_test(trades_only_while_dealing_and_running),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
