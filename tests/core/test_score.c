/*
 * test_score.c - scoring, the end of the game, ranks and shared wins.
 */
#include <string.h>

#include "helpers.h"

/* The rulebook's example: dealer of Call Girls, buyer of Alcohol, 9 Alcohol
 * and 1 Call Girls, wrongly suspected of dealing Luxury Cars and buying
 * Jewelry, rightly suspected of both roles: 9 + 2 - 10 = 1. */
static void worked_example(void **state)
{
    (void)state;
    struct il_game g;
    memset(&g, 0, sizeof g);
    g.nplayers = 4;
    struct il_player *p = &g.players[0];
    p->active = true;
    p->dealer = IL_CALL_GIRLS;
    p->buyer = IL_ALCOHOL;
    p->hand.n[IL_ALCOHOL] = 9;
    p->hand.n[IL_CALL_GIRLS] = 1;
    p->hand.n[IL_CARD(IL_KIND_DEALER, IL_CALL_GIRLS)] = 1;
    p->hand.n[IL_CARD(IL_KIND_BUYER, IL_ALCOHOL)] = 1;
    assert_int_equal(il_score(&g, 0), 9);
    p->hand.n[IL_CARD(IL_KIND_DEALER_SUSPECT, IL_LUXURY_CARS)] = 1;
    p->hand.n[IL_CARD(IL_KIND_BUYER_SUSPECT, IL_JEWELRY)] = 1;
    assert_int_equal(il_score(&g, 0), 11);
    p->hand.n[IL_CARD(IL_KIND_DEALER_SUSPECT, IL_CALL_GIRLS)] = 1;
    p->hand.n[IL_CARD(IL_KIND_BUYER_SUSPECT, IL_ALCOHOL)] = 1;
    assert_int_equal(il_score(&g, 0), 1);
    struct il_score_parts parts = il_score_parts(&g, 0);
    assert_int_equal(parts.resources, 9);
    assert_int_equal(parts.wrong, 2);
    assert_int_equal(parts.right, 2);
    parts = il_score_parts(&g, 100);
    assert_int_equal(parts.resources + parts.wrong + parts.right, 0);
    assert_int_equal(il_score(&g, 4), 0);
    assert_int_equal(il_score(&g, 100), 0);
}

static void suspect_cards_match_one_role_each(void **state)
{
    (void)state;
    struct il_game g;
    memset(&g, 0, sizeof g);
    g.nplayers = 4;
    struct il_player *p = &g.players[1];
    p->dealer = IL_GUNS;
    p->buyer = IL_POWDER;
    /* Suspected of buying Guns (they deal them) and dealing Powder (they
     * buy it): both wrong. */
    p->hand.n[IL_CARD(IL_KIND_BUYER_SUSPECT, IL_GUNS)] = 1;
    p->hand.n[IL_CARD(IL_KIND_DEALER_SUSPECT, IL_POWDER)] = 1;
    assert_int_equal(il_score(&g, 1), 2);
    p->hand.n[IL_CARD(IL_KIND_DEALER_SUSPECT, IL_GUNS)] = 1;
    assert_int_equal(il_score(&g, 1), -3);
    /* Dealer resource cards score nothing. */
    p->hand.n[IL_GUNS] = 5;
    assert_int_equal(il_score(&g, 1), -3);
}

static void give(struct fx *f, int from, int to, unsigned res, unsigned n)
{
    struct il_bundle b = one(res, n), none = one(0, 0);
    struct il_action a = act_offer(from, to, &b, &none);
    fx_ok(f, &a);
    struct il_action ok = act_offer_id(IL_ACT_ACCEPT, to, f->ev.v[0].offer_id);
    fx_ok(f, &ok);
}

static void end_now(struct fx *f)
{
    struct il_action end = act_gm(IL_ACT_END);
    fx_ok(f, &end);
}

/* Ended at once: every score ties, every rank is 1, and nobody wins an
 * aborted game. */
static void an_early_end_ranks_but_nobody_wins(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 41);
    end_now(&f);
    const struct il_event *over = &f.ev.v[f.ev.n - 1];
    assert_int_equal(over->type, IL_EV_GAME_OVER);
    assert_true(f.g.aborted);
    assert_int_equal(over->winners, 0);
    for (unsigned s = 0; s < 4; s++) {
        assert_int_equal(over->scores[s], 0);
        assert_int_equal(over->rank[s], 1);
    }
}

/* A game played to its end: every player with the best score wins. */
static void the_best_scores_share_the_win(void **state)
{
    (void)state;
    for (uint64_t seed = 1; seed <= 20; seed++) {
        struct fx f;
        fx_setup(&f, 5, IL_VARIANT_STANDARD, seed);
        while (f.g.phase != IL_PHASE_OVER)
            fx_tick(&f);
        const struct il_event *over = &f.ev.v[f.ev.n - 1];
        assert_int_equal(over->type, IL_EV_GAME_OVER);
        assert_false(f.g.aborted);
        int top = INT16_MIN;
        for (unsigned s = 0; s < 5; s++)
            top = over->scores[s] > top ? over->scores[s] : top;
        for (unsigned s = 0; s < 5; s++) {
            assert_int_equal(!!(over->winners & (1u << s)), over->scores[s] == top);
            assert_int_equal(over->rank[s] == 1, over->scores[s] == top);
        }
    }
}

static void ranks_of_an_early_end(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 42);
    /* Seats 0 and 1 score 2, seat 2 scores 1, seat 3 nothing, seat 4 leaves. */
    for (int s = 0; s < 3; s++) {
        unsigned b = f.g.players[s].buyer;
        give(&f, dealer_of(&f.g, b), s, b, s < 2 ? 2 : 1);
    }
    struct il_action kick = act_target(IL_ACT_KICK, IL_GM, 4);
    fx_ok(&f, &kick);
    end_now(&f);

    assert_int_equal(f.g.phase, IL_PHASE_OVER);
    assert_int_equal(f.g.deadline, 0);
    assert_int_equal(il_game_deadline(&f.g), 0);
    assert_int_equal(fx_count(&f, IL_EV_REVEAL), 4);
    for (int s = 0; s < 4; s++) {
        const struct il_event *r = fx_event(&f, IL_EV_REVEAL, (unsigned)s);
        assert_int_equal(r->audience, IL_PUBLIC);
        assert_int_equal(r->player, s);
        assert_int_equal(r->score, il_score(&f.g, (unsigned)s));
        assert_memory_equal(&r->cards, &f.g.players[s].hand, sizeof r->cards);
        assert_int_equal(f.g.players[s].score, r->score);
    }
    const struct il_event *over = &f.ev.v[f.ev.n - 1];
    assert_int_equal(over->type, IL_EV_GAME_OVER);
    static const int16_t scores[IL_MAX_PLAYERS] = {2, 2, 1, 0, 0};
    static const uint8_t rank[IL_MAX_PLAYERS] = {1, 1, 3, 4, 0};
    assert_memory_equal(over->scores, scores, sizeof scores);
    assert_memory_equal(over->rank, rank, sizeof rank);
    assert_int_equal(over->winners, 0); /* ended early: ranked, but nobody wins */
}

static void a_finished_game_is_sealed(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_ADVANCED, 43);
    end_now(&f);
    for (int t = IL_ACT_OFFER; t <= IL_ACT_SET_TIMER; t++) {
        struct il_action a = act((enum il_action_type)t, t >= IL_ACT_PAUSE ? IL_GM : 0);
        a.target = 1;
        a.ms = 5000;
        fx_refuse(&f, &a, IL_ERR_GAME_OVER);
    }
    struct il_action tick = act(IL_ACT_TICK, 0);
    f.now += 1000000;
    fx_ok(&f, &tick);
    assert_int_equal(f.ev.n, 0);
}

static void end_mid_game_sets_everything_aside(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 44);
    struct il_bundle b = one(f.g.players[0].dealer, 1), none = one(0, 0);
    struct il_action a = act_offer(0, 1, &b, &none);
    fx_ok(&f, &a);
    end_now(&f);
    assert_int_equal(fx_count(&f, IL_EV_OFFER_EXPIRED), 2);
    assert_int_equal(f.g.noffers, 0);
    /* Cases never judged are set aside. */
    for (unsigned t = IL_CARD(IL_KIND_DEALER_SUSPECT, 0); t < IL_CARD_TYPES; t++)
        assert_int_equal(f.g.discard.n[t], (f.g.in_play >> IL_CARD_RES(t)) & 1);

    fx_setup(&f, 4, IL_VARIANT_STANDARD, 44);
    fx_until(&f, IL_PHASE_DROP_GRAB, 2);
    end_now(&f);
    assert_int_equal(f.g.drop_count, 0);
    unsigned table = 0;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        table += f.g.discard.n[r];
    assert_int_equal(table, 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(worked_example),
        cmocka_unit_test(suspect_cards_match_one_role_each),
        cmocka_unit_test(an_early_end_ranks_but_nobody_wins),
        cmocka_unit_test(the_best_scores_share_the_win),
        cmocka_unit_test(ranks_of_an_early_end),
        cmocka_unit_test(a_finished_game_is_sealed),
        cmocka_unit_test(end_mid_game_sets_everything_aside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
