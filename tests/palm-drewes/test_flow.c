/*
 * test_flow.c - the order of play: turns sat out, the pass to the left, the
 * clock and its reminders, the host, removals, the end and the series.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tests.h"

#define N PD_NOBODY

static struct t T;

static const struct pd_player *P(unsigned s)
{
    return &T.g.players[s];
}

static void test_setup(void **state)
{
    (void)state;
    struct pd_config c;
    struct pd_events ev = {0};
    struct rng r;
    struct pd_game g;
    rng_seed(&r, 1);
    pd_config_default(&c);
    enum pd_error e = pd_game_setup(&g, &c, 1, NULL, 0, &r, &ev);
    t_saw(e);
    assert_int_equal(e, PD_ERR_BAD_PLAYER_COUNT);
    assert_int_equal(pd_game_setup(&g, &c, 7, NULL, 0, &r, &ev), PD_ERR_BAD_PLAYER_COUNT);
    c.timer_ms[PD_TIMER_WINDOW] = 10;
    t_saw(e = pd_game_setup(&g, &c, 3, NULL, 0, &r, &ev));
    assert_int_equal(e, PD_ERR_BAD_TIMER);
    pd_config_default(&c);
    c.series_target = 12345;
    t_saw(e = pd_game_setup(&g, &c, 3, NULL, 0, &r, &ev));
    assert_int_equal(e, PD_ERR_BAD_SETTING);
    assert_int_equal(ev.n, 0);
    for (unsigned n = PD_MIN_PLAYERS; n <= PD_MAX_PLAYERS; n++) {
        pd_config_default(&c);
        ev.n = 0;
        assert_int_equal(pd_game_setup(&g, &c, n, NULL, 5, &r, &ev), PD_OK);
        assert_true(pd_game_check(&g, NULL, 0));
        assert_int_equal(g.npile, PD_DECK_SIZE - PD_HAND_SIZE * n);
        assert_int_equal(g.current, (g.dealer + 1) % n); /* the dealer's left begins */
        assert_int_equal(ev.v[0].type, PD_EV_GAME_STARTED);
        for (unsigned s = 0; s < n; s++) {
            assert_int_equal(pd_bundle_total(&g.players[s].hand), PD_HAND_SIZE);
            assert_int_equal(ev.v[1 + s].type, PD_EV_DEALT);
            assert_int_equal(ev.v[1 + s].audience, (int)s);
        }
        assert_int_equal(ev.v[ev.n - 1].type, PD_EV_TURN_STARTED);
    }
}

static void test_dealt_in_order(void **state)
{
    (void)state;
    /* A known deck: the cards go one at a time from the dealer's left. */
    uint8_t deck[PD_DECK_SIZE];
    unsigned k = 0;
    for (unsigned c = 0; c < PD_CARDS; c++)
        for (unsigned i = 0; i < pd_card_count(c); i++)
            deck[k++] = (uint8_t)c;
    struct pd_config c;
    struct pd_events ev = {0};
    struct rng r;
    struct pd_game g;
    pd_config_default(&c);
    rng_seed(&r, 3);
    uint8_t bad[PD_DECK_SIZE];
    memcpy(bad, deck, sizeof bad);
    bad[0] = PD_MAGNUM;
    assert_int_equal(pd_game_setup_deck(&g, &c, 2, NULL, PD_NOBODY, bad, 0, &r, &ev),
                     PD_ERR_BAD_ACTION);
    t_saw(PD_ERR_BAD_ACTION);
    deck[PD_DECK_SIZE - 1] = PD_OPENING; /* the Magnum first, an opening last */
    deck[0] = PD_MAGNUM;
    assert_int_equal(pd_game_setup_deck(&g, &c, 2, NULL, 1, deck, 0, &r, &ev), PD_OK);
    assert_int_equal(g.dealer, 1);
    unsigned first = 0;
    /* one card at a time from the dealer's left: cards 0, 2, 4... go to the first */
    assert_int_equal(g.players[first].hand.n[PD_MAGNUM], 1);
    assert_int_equal(g.players[first].hand.n[PD_OPENING], 4);
    assert_int_equal(g.players[1 - first].hand.n[PD_OPENING], 5);
    assert_int_equal(g.players[first].hand.n[PD_RECKONING], 2);
    assert_int_equal(g.pile[g.npile - 1], PD_OPENING); /* the deck's last card is on top */
    assert_int_equal(g.pile[0], deck[2 * PD_HAND_SIZE]);
}

static void test_skipped_turns(void **state)
{
    (void)state;
    t_start(&T, 3, 11);
    t_hand(&T, 0, "ruin dope");
    assert_int_equal(t_play(&T, 0, "ruin", N, NULL, NULL), PD_OK);
    assert_int_equal(T.g.phase, PD_PHASE_PASS);
    for (unsigned s = 0; s < 3; s++) {
        struct pd_action a;
        pd_action_init(&a, PD_ACT_PASS, (int)s);
        for (a.card = 0; !P(s)->hand.n[a.card]; a.card++)
            ;
        assert_int_equal(t_act(&T, &a), PD_OK);
    }
    assert_int_equal(T.g.current, 1);
    t_turn(&T, 2);
    t_hand(&T, 2, "dope small-fry");
    struct pd_action a;
    pd_action_init(&a, PD_ACT_DISCARD, 2);
    a.card = PD_DOPE;
    assert_int_equal(t_act(&T, &a), PD_OK);
    /* seat 0 sits out (one more after this), seat 1 plays */
    const struct pd_event *e = t_event(&T, PD_EV_TURN_SKIPPED);
    assert_non_null(e);
    assert_int_equal(e->player, 0);
    assert_int_equal(e->number, 1);
    assert_int_equal(T.g.current, 1);
    assert_int_equal(P(0)->skips, 1);
}

/* The pass to the left: hidden choices, all at once, changes allowed. */
static void test_pass(void **state)
{
    (void)state;
    t_start(&T, 3, 12);
    t_hand(&T, 0, "family-party dope");
    t_hand(&T, 1, "guns brokerage");
    t_hand(&T, 2, "magnum alibi");
    assert_int_equal(t_do(&T, PD_ACT_PASS, 1, N, "guns"), PD_ERR_WRONG_PHASE);
    assert_int_equal(t_play(&T, 0, "family-party", N, NULL, NULL), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_PASS, 1, N, "coup"), PD_ERR_NOT_HELD);
    assert_int_equal(t_do(&T, PD_ACT_PASS, 1, N, "guns"), PD_OK);
    const struct pd_event *e = t_event(&T, PD_EV_PASS_CHOSEN);
    assert_int_equal(e->audience, 1);
    assert_int_equal(e->target, 2);
    e = t_event(&T, PD_EV_PASS_READY);
    assert_int_equal(e->audience, PD_TABLE);
    assert_int_equal(e->card, PD_NONE); /* the table learns who, not what */
    assert_int_equal(e->number, 2);
    /* a change of mind is private, and the table hears nothing new */
    assert_int_equal(t_do(&T, PD_ACT_PASS, 1, N, "brokerage"), PD_OK);
    assert_null(t_event(&T, PD_EV_PASS_READY));
    assert_int_equal(t_do(&T, PD_ACT_PASS, 2, N, "magnum"), PD_OK);
    /* the Magnum chosen for the pass is promised: it cannot be fired */
    t_business(&T, 1, "opening");
    t_burden(&T, 1, "sweden");
    assert_int_equal(t_do(&T, PD_ACT_MAGNUM, 2, 1, NULL), PD_ERR_NOT_HELD);
    assert_int_equal(t_do(&T, PD_ACT_PASS, 0, N, "dope"), PD_OK); /* the last: the cards move */
    assert_int_equal(t_count(&T, PD_EV_PASSED), 3);
    assert_int_equal(P(1)->hand.n[PD_DOPE], 1);
    assert_int_equal(P(2)->hand.n[PD_BROKERAGE], 1);
    assert_int_equal(P(0)->hand.n[PD_MAGNUM], 1);
    for (unsigned i = 0; i < T.ev.n; i++)
        if (T.ev.v[i].type == PD_EV_PASSED)
            assert_int_equal(T.ev.v[i].audience, T.ev.v[i].player);
    assert_non_null(t_event(&T, PD_EV_PASS_DONE));
    assert_int_equal(T.g.current, 1); /* the family party's player drew; seat 1's turn */
    assert_int_equal(P(0)->skips, 1);
}

static void test_pass_times_out(void **state)
{
    (void)state;
    t_start(&T, 4, 13);
    t_hand(&T, 0, "loan-shark dope");
    assert_int_equal(t_play(&T, 0, "loan-shark", N, NULL, NULL), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_PASS, 3, N, NULL), PD_ERR_BAD_ACTION);
    unsigned before = pd_bundle_total(&P(1)->hand);
    int64_t due = T.g.remind_at;
    assert_true(due > 0 && due < T.g.deadline);
    assert_int_equal(t_tick(&T, due), PD_OK);
    assert_int_equal(t_count(&T, PD_EV_REMINDER), 4); /* everyone still choosing */
    assert_int_equal(t_tick(&T, T.g.deadline), PD_OK);
    assert_non_null(t_event(&T, PD_EV_TIMED_OUT));
    assert_int_equal(t_count(&T, PD_EV_PASSED), 4);
    assert_int_equal(pd_bundle_total(&P(1)->hand), before);
    assert_int_equal(T.g.current, 1);
}

/* The nuisance card was the last card: its player passes nothing and still
 * gets one, then draws. */
static void test_pass_with_an_empty_hand(void **state)
{
    (void)state;
    t_start(&T, 3, 14);
    t_hand(&T, 0, "family-party");
    t_hand(&T, 2, "dope guns");
    assert_int_equal(t_play(&T, 0, "family-party", N, NULL, NULL), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_PASS, 0, N, "family-party"), PD_ERR_NOT_HELD);
    struct pd_action a;
    pd_action_init(&a, PD_ACT_PASS, 1);
    for (a.card = 0; !P(1)->hand.n[a.card]; a.card++)
        ;
    assert_int_equal(t_act(&T, &a), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_PASS, 2, N, "dope"), PD_OK);
    assert_int_equal(pd_bundle_total(&P(0)->hand), 2); /* got one, drew one */
    assert_int_equal(T.g.phase, PD_PHASE_TURN);
}

static void test_turn_timeout(void **state)
{
    (void)state;
    t_start(&T, 2, 15);
    t_hand(&T, 0, "dope ruin");
    int64_t remind = T.g.remind_at, end = T.g.deadline;
    assert_int_equal(pd_game_deadline(&T.g), remind);
    assert_int_equal(t_tick(&T, remind - 1), PD_OK);
    assert_int_equal(T.ev.n, 0);
    assert_int_equal(t_tick(&T, remind), PD_OK);
    const struct pd_event *e = t_event(&T, PD_EV_REMINDER);
    assert_int_equal(e->audience, 0);
    assert_int_equal(e->number, PD_PHASE_TURN);
    assert_int_equal(pd_game_deadline(&T.g), end);
    assert_int_equal(t_tick(&T, end), PD_OK);
    assert_non_null(t_event(&T, PD_EV_TIMED_OUT));
    assert_int_equal(t_event(&T, PD_EV_DISCARDED)->cards.n[PD_DOPE], 1);
    assert_int_equal(T.g.current, 1);
    /* with nothing but nuisance cards, the mildest is played */
    t_turn(&T, 1);
    t_hand(&T, 1, "loan-shark family-party");
    assert_int_equal(t_tick(&T, T.g.deadline), PD_OK);
    assert_int_equal(t_event(&T, PD_EV_NUISANCE)->card, PD_FAMILY_PARTY);
}

static void test_loss_timeout(void **state)
{
    (void)state;
    t_start(&T, 2, 16);
    t_business(&T, 0, "opening guns small-fry brokerage");
    t_burden(&T, 0, "protection");
    t_hand(&T, 0, "alibi dope");
    struct pd_action a;
    pd_action_init(&a, PD_ACT_DISCARD, 0);
    a.card = PD_ALIBI;
    assert_int_equal(t_act(&T, &a), PD_OK);
    assert_int_equal(T.g.phase, PD_PHASE_LOSS);
    assert_int_equal(t_tick(&T, T.g.deadline), PD_OK);
    /* the rules choose the cheapest */
    assert_int_equal(t_event(&T, PD_EV_DEAL_LOST)->card, PD_SMALL_FRY);
    assert_int_equal(T.g.current, 1);
}

static void test_host(void **state)
{
    (void)state;
    t_start(&T, 3, 17);
    int64_t end = T.g.deadline;
    assert_int_equal(t_do(&T, PD_ACT_PAUSE, 0, N, NULL), PD_ERR_NOT_HOST);
    assert_int_equal(t_do(&T, PD_ACT_RESUME, PD_HOST, N, NULL), PD_ERR_NOT_PAUSED);
    T.now += 1000;
    assert_int_equal(t_do(&T, PD_ACT_PAUSE, PD_HOST, N, NULL), PD_OK);
    assert_int_equal(t_event(&T, PD_EV_PAUSED)->ms, end - T.now);
    assert_int_equal(pd_game_deadline(&T.g), 0);
    assert_int_equal(t_do(&T, PD_ACT_PAUSE, PD_HOST, N, NULL), PD_ERR_PAUSED);
    assert_int_equal(t_play(&T, 0, "opening", N, NULL, NULL), PD_ERR_PAUSED);
    assert_int_equal(t_do(&T, PD_ACT_NEXT, PD_HOST, N, NULL), PD_ERR_PAUSED);
    struct pd_action a;
    pd_action_init(&a, PD_ACT_EXTEND, PD_HOST);
    a.ms = 0;
    assert_int_equal(t_act(&T, &a), PD_ERR_BAD_TIMER);
    a.ms = 5000;
    assert_int_equal(t_act(&T, &a), PD_OK);
    T.now += 60000;
    assert_int_equal(t_do(&T, PD_ACT_RESUME, PD_HOST, N, NULL), PD_OK);
    assert_int_equal(T.g.deadline, T.now + (end - (T.now - 60000)) + 5000);
    pd_action_init(&a, PD_ACT_SET_TIMER, PD_HOST);
    a.timer = PD_TIMERS;
    assert_int_equal(t_act(&T, &a), PD_ERR_BAD_ACTION);
    a.timer = PD_TIMER_TURN;
    a.ms = 10;
    assert_int_equal(t_act(&T, &a), PD_ERR_BAD_TIMER);
    a.ms = 30000;
    assert_int_equal(t_act(&T, &a), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_NEXT, PD_HOST, N, NULL), PD_OK); /* as if time ran out */
    assert_non_null(t_event(&T, PD_EV_TIMED_OUT));
    assert_int_equal(T.g.deadline, T.now + 30000);
    assert_int_equal(t_do(&T, PD_ACT_END, PD_HOST, N, NULL), PD_OK);
    assert_int_equal(T.g.end, PD_END_HOST);
    assert_int_equal(t_event(&T, PD_EV_GAME_OVER)->winners, 0); /* nobody wins an aborted game */
}

static void test_kick(void **state)
{
    (void)state;
    t_start(&T, 3, 18);
    assert_int_equal(t_do(&T, PD_ACT_KICK, PD_HOST, 7, NULL), PD_ERR_NOT_A_PLAYER);
    t_business(&T, 2, "opening dope");
    t_burden(&T, 2, "raid");
    unsigned raids = T.g.discard.n[PD_RAID] + P(2)->hand.n[PD_RAID], dope = T.g.discard.n[PD_DOPE];
    assert_int_equal(t_do(&T, PD_ACT_KICK, PD_HOST, 2, NULL), PD_OK);
    assert_false(P(2)->active);
    assert_int_equal(T.g.discard.n[PD_RAID], raids + 1);
    assert_true(T.g.discard.n[PD_DOPE] > dope);
    assert_int_equal(pd_bundle_total(&P(2)->hand), 0);
    /* the current player leaves: the next one plays, and nobody draws for them */
    assert_int_equal(t_do(&T, PD_ACT_KICK, PD_HOST, 0, NULL), PD_OK);
    assert_int_equal(T.g.end, PD_END_PLAYERS); /* one player left */
}

static void test_kick_in_a_window(void **state)
{
    (void)state;
    t_start(&T, 4, 19);
    t_business(&T, 0, "opening");
    t_business(&T, 1, "opening guns");
    t_hand(&T, 0, "takeover dope");
    assert_int_equal(t_play(&T, 0, "takeover", 1, "guns", NULL), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_WAIVE, 2, N, NULL), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_WAIVE, 3, N, NULL), PD_OK);
    /* the victim leaves with their business: nothing is taken, the turn ends */
    assert_int_equal(t_do(&T, PD_ACT_KICK, PD_HOST, 1, NULL), PD_OK);
    assert_null(t_event(&T, PD_EV_TAKEN));
    assert_int_equal(P(0)->business.n[PD_GUNS], 0);
    assert_int_equal(T.g.current, 2);
}

static void test_series(void **state)
{
    (void)state;
    struct pd_config c;
    pd_config_default(&c);
    c.series_target = PD_SERIES_SHORT;
    struct pd_series s = {0};
    struct rng r;
    rng_seed(&r, 20);
    struct pd_game g;
    struct pd_events ev = {0};
    assert_int_equal(pd_game_setup(&g, &c, 3, &s, 0, &r, &ev), PD_OK);
    unsigned first_dealer = g.dealer;
    assert_int_equal(ev.v[0].game, 1);
    /* a game that ends with the day of reckoning counts */
    T.g = g;
    T.rng = r;
    T.now = 0;
    t_turn(&T, 0);
    t_business(&T, 0, "opening coup guns");
    t_hand(&T, 0, "reckoning dope");
    assert_int_equal(t_play(&T, 0, "reckoning", N, NULL, NULL), PD_OK);
    const struct pd_event *e = t_event(&T, PD_EV_SERIES);
    assert_non_null(e);
    assert_int_equal(e->game, 1);
    assert_int_equal(e->amount, PD_SERIES_SHORT);
    assert_int_equal(e->totals[0], 150000 - 25000);
    assert_int_equal(e->winners, 0);
    pd_series_after(&T.g, &s);
    assert_int_equal(s.games, 1);
    assert_int_equal(s.totals[0], 125000);
    /* the next game: the deal passes to the left */
    ev.n = 0;
    assert_int_equal(pd_game_setup(&g, &c, 3, &s, 0, &r, &ev), PD_OK);
    assert_int_equal(g.dealer, (first_dealer + 1) % 3);
    assert_int_equal(ev.v[0].game, 2);
    /* whoever reaches the goal first wins; the highest total among them */
    s.totals[1] = 600000;
    s.totals[2] = 550000;
    assert_int_equal(pd_series_winners(&s, PD_SERIES_SHORT), 1u << 1);
    assert_int_equal(pd_series_winners(&s, PD_SERIES_LONG), 0);
    assert_int_equal(pd_series_winners(&s, PD_SERIES_OFF), 0);
    /* a won series is not continued: the next game starts a new one */
    ev.n = 0;
    assert_int_equal(pd_game_setup(&g, &c, 3, &s, 0, &r, &ev), PD_OK);
    assert_int_equal(g.series.games, 0);
    assert_int_equal(ev.v[0].game, 1);
    /* an aborted game counts for nothing */
    T.g = g;
    assert_int_equal(t_do(&T, PD_ACT_END, PD_HOST, N, NULL), PD_OK);
    struct pd_series after;
    pd_series_after(&T.g, &after);
    assert_int_equal(after.games, T.g.series.games);
    assert_memory_equal(after.totals, T.g.series.totals, sizeof after.totals);
    assert_null(t_event(&T, PD_EV_SERIES));
    /* a series' goal reached: the event names the winner */
    memset(&s, 0, sizeof s);
    s.games = 3;
    s.nplayers = 3;
    s.dealer = 0;
    s.totals[2] = 480000;
    ev.n = 0;
    assert_int_equal(pd_game_setup(&g, &c, 3, &s, 0, &r, &ev), PD_OK);
    T.g = g;
    T.now = 0;
    t_turn(&T, 2);
    t_business(&T, 2, "opening dope");
    t_hand(&T, 2, "reckoning small-fry");
    assert_int_equal(t_play(&T, 2, "reckoning", N, NULL, NULL), PD_OK);
    e = t_event(&T, PD_EV_SERIES);
    assert_int_equal(e->winners, 1u << 2);
    assert_int_equal(e->totals[2], 480000 + 24000);
    /* a bad series is refused */
    s.dealer = 5;
    assert_int_equal(pd_game_setup(&g, &c, 3, &s, 0, &r, &ev), PD_ERR_BAD_SETTING);
}

static void test_settings(void **state)
{
    (void)state;
    struct pd_config c;
    pd_config_default(&c);
    assert_int_equal(pd_preset_of(&c, NULL), PD_PRESET_LIVE);
    assert_int_equal(c.timer_ms[PD_TIMER_TURN], 120000);
    assert_int_equal(pd_config_set(&c, PD_SET_TURN, 10), -1);
    assert_int_equal(pd_config_set(&c, PD_SET_TURN, 90000), 0);
    assert_int_equal(pd_config_get(&c, PD_SET_TURN), 90000);
    assert_int_equal(pd_preset_of(&c, NULL), -1);
    assert_int_equal(pd_config_set(&c, PD_SET_SERIES, 700000), -1);
    assert_int_equal(pd_config_set(&c, PD_SET_SERIES, PD_SERIES_LONG), 0);
    assert_int_equal(c.series_target, PD_SERIES_LONG);
    assert_int_equal(pd_config_set(&c, PD_SET_REMINDER, 0), 0);
    assert_int_equal(pd_config_set(&c, PD_SET_PRESET, 0), -1);
    pd_preset_apply(&c, PD_PRESET_CASUAL, NULL);
    assert_int_equal(pd_preset_of(&c, NULL), PD_PRESET_CASUAL);
    assert_int_equal(c.series_target, PD_SERIES_LONG); /* a preset leaves the goal */
    for (unsigned x = PD_SET_TURN; x < PD_SETTINGS; x++)
        assert_true(pd_config_get(&c, x) >= 0);
    /* the daemon's defaults: live takes them, a preset's own values stay */
    int64_t defaults[PD_SETTINGS] = {
        [PD_SET_TURN] = 300,  [PD_SET_WINDOW] = 15,  [PD_SET_PASS] = 60,
        [PD_SET_CHOICE] = 60, [PD_SET_REMINDER] = 0, [PD_SET_SERIES] = 1};
    pd_config_from(&c, defaults);
    assert_int_equal(c.timer_ms[PD_TIMER_TURN], 300000);
    assert_int_equal(c.series_target, PD_SERIES_SHORT);
    assert_int_equal(pd_preset_of(&c, defaults), PD_PRESET_LIVE);
    pd_preset_apply(&c, PD_PRESET_QUICK, defaults);
    assert_int_equal(c.timer_ms[PD_TIMER_TURN], 45000);
}

const struct CMUnitTest pd_flow_tests[] = {
    cmocka_unit_test(test_setup),
    cmocka_unit_test(test_dealt_in_order),
    cmocka_unit_test(test_skipped_turns),
    cmocka_unit_test(test_pass),
    cmocka_unit_test(test_pass_times_out),
    cmocka_unit_test(test_pass_with_an_empty_hand),
    cmocka_unit_test(test_turn_timeout),
    cmocka_unit_test(test_loss_timeout),
    cmocka_unit_test(test_host),
    cmocka_unit_test(test_kick),
    cmocka_unit_test(test_kick_in_a_window),
    cmocka_unit_test(test_series),
    cmocka_unit_test(test_settings),
};
const size_t pd_flow_tests_n = sizeof pd_flow_tests / sizeof pd_flow_tests[0];
