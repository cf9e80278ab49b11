/*
 * test_ai_seat.c - one computer seat among people: the moves people make
 * are scripted here, the computer's come from its strategy, and the clock
 * is the test's. What a host relies on: it answers every offer before the
 * session ends; an offer it accepts that the rules refuse (the offerer no
 * longer has the cards) it turns down next; and a computer standing in for
 * a person first cancels the offers the person made that it cannot pay;
 * and it never sits on a drop longer than a person would.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <string.h>
#include <cmocka.h>

#include "core/illegal/view.h"

#define T0 1000000

struct table {
    struct il_game g;
    struct rng rng;
    struct il_events ev;
    struct il_view view;
    int64_t now;
    unsigned seat; /* the computer's */
    const struct rules_strategy *level;
    uint64_t memory[4096 / 8];
    unsigned refused, answers;
};

static void observe(struct table *t)
{
    if (il_view_build(&t->g, t->seat, &t->ev, &t->view))
        t->level->observe(t->memory, &t->view, t->now);
}

/* A person's move (or the GM's): it must be accepted. */
static void person(struct table *t, struct il_action a)
{
    t->ev.n = 0;
    assert_int_equal(il_game_apply(&t->g, &a, t->now, &t->rng, &t->ev), IL_OK);
    observe(t);
}

static void start(struct table *t, const char *level, unsigned seat, uint64_t seed)
{
    struct il_config c;
    memset(t, 0, sizeof *t);
    il_config_default(&c, IL_VARIANT_STANDARD);
    rng_seed(&t->rng, seed);
    t->now = T0;
    t->seat = seat;
    for (const struct rules_strategy *l = il_strategies; l->id; l++)
        if (strcmp(l->id, level) == 0)
            t->level = l;
    assert_int_equal(il_game_setup(&t->g, &c, 5, t->now, &t->rng, &t->ev), IL_OK);
    t->level->start(t->memory, seed, RULES_PACE_HUMAN);
    observe(t);
}

/* The computer's moves until `until` (or the end of the running step). */
static void think_until(struct table *t, int64_t until)
{
    for (;;) {
        int64_t wake = t->level->wake(t->memory);
        if (!wake || wake > until || (t->g.deadline && wake >= t->g.deadline))
            return;
        t->now = wake > t->now ? wake : t->now;
        struct il_action a;
        il_view_build(&t->g, t->seat, NULL, &t->view);
        if (!t->level->act(t->memory, &t->view, t->now, &a))
            continue;
        t->ev.n = 0;
        t->answers += a.type == IL_ACT_ACCEPT || a.type == IL_ACT_DECLINE;
        if (il_game_apply(&t->g, &a, t->now, &t->rng, &t->ev) != IL_OK) {
            t->refused++;
            continue;
        }
        observe(t);
    }
}

static struct il_action offer(unsigned from, unsigned to, unsigned give, unsigned ngive,
                              unsigned ask, unsigned nask)
{
    struct il_action a = {.type = IL_ACT_OFFER, .player = (int8_t)from, .target = (int8_t)to};
    a.give.n[give] = (uint8_t)ngive;
    a.ask.n[ask] = (uint8_t)nask;
    return a;
}

static int dealer_of(const struct il_game *g, unsigned res)
{
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].dealer == res)
            return (int)s;
    return -1;
}

static const struct il_offer *open_offer(const struct il_game *g, uint32_t id)
{
    for (unsigned i = 0; i < g->noffers; i++)
        if (g->offers[i].id == id)
            return &g->offers[i];
    return NULL;
}

/* The dealer of its goods offers it one, then hands every one of them to a
 * third player before it answers: its accept is refused, and it declines. */
static void accepts_once_then_declines(void **state)
{
    (void)state;
    static const char *const levels[] = {"easy", "normal"};
    for (unsigned i = 0; i < 2; i++) {
        static struct table t;
        start(&t, levels[i], 0, 11 + i);
        unsigned goods = t.g.players[0].buyer;
        unsigned d = (unsigned)dealer_of(&t.g, goods), third = d == 1 ? 2 : 1;
        person(&t, offer(d, 0, goods, 1, goods, 0)); /* a gift of its goods */
        uint32_t id = t.g.next_offer_id - 1;
        person(&t, offer(d, third, goods, t.g.players[d].hand.n[goods], goods, 0));
        person(&t, (struct il_action){.type = IL_ACT_ACCEPT,
                                      .player = (int8_t)third,
                                      .offer_id = t.g.next_offer_id - 1});
        think_until(&t, t.g.deadline);
        assert_null(open_offer(&t.g, id));
        assert_int_equal(t.refused, 1);
    }
}

/* An offer made late in the session is answered before it closes. */
static void answers_in_time(void **state)
{
    (void)state;
    static struct table t;
    start(&t, "easy", 2, 5);
    unsigned give = t.g.players[3].dealer;
    think_until(&t, t.g.deadline - 3000);
    t.now = t.g.deadline - 2000 > t.now ? t.g.deadline - 2000 : t.now;
    unsigned before = t.answers;
    person(&t, offer(3, 2, give, 1, t.g.players[2].dealer, 1));
    think_until(&t, t.g.deadline);
    assert_int_equal(t.answers, before + 1);
    assert_int_equal(t.refused, 0);
}

/* A person promised more than they hold; the computer that takes the seat
 * over cancels until every offer it leaves open can be paid. */
static void stand_in_cancels_what_it_cannot_pay(void **state)
{
    (void)state;
    static struct table t;
    start(&t, "normal", 4, 9);
    unsigned dealt = t.g.players[4].dealer;
    for (unsigned to = 0; to < 4; to++)
        person(&t, offer(4, to, dealt, 4, t.g.players[to].dealer, 1));
    assert_int_equal(t.g.noffers, 4);
    t.level->start(t.memory, 99, RULES_PACE_HUMAN); /* it takes the seat now */
    observe(&t);
    il_view_build(&t.g, t.seat, NULL, &t.view);
    t.level->observe(t.memory, &t.view, t.now);
    think_until(&t, t.g.deadline);
    unsigned promised = 0;
    for (unsigned i = 0; i < t.g.noffers; i++)
        if (t.g.offers[i].from == 4)
            promised += t.g.offers[i].give.n[dealt];
    assert_true(promised <= t.g.players[4].hand.n[dealt]);
    assert_int_equal(t.refused, 0);
}

/* Time passes for the people: every deadline fires, nobody else moves. */
static void tick(struct table *t)
{
    t->now = t->g.deadline;
    person(t, (struct il_action){.type = IL_ACT_TICK});
}

static bool drop_shows(const struct il_game *g, unsigned res)
{
    for (unsigned i = 0; i < g->drop_shown; i++)
        if (!g->drop_taken[i] && g->drop_cards[i] == res)
            return true;
    return false;
}

/* With its goods in a drop a normal seat lets the others grab first, but on
 * a long grab timer it does not sit on the drop longer than a person would:
 * it grabs within 25 s although 600 s are given (two such seats once waited
 * for each other for 450 s). */
static void grabs_within_a_persons_patience(void **state)
{
    (void)state;
    static struct table t;
    unsigned tried = 0;
    for (uint64_t seed = 1; tried < 3 && seed < 400; seed++) {
        start(&t, "normal", 1, seed);
        t.g.config.timer_ms[IL_TIMER_GRAB] = 600 * 1000;
        while (t.g.phase != IL_PHASE_DROP_GRAB && t.g.phase != IL_PHASE_HOLD)
            tick(&t);
        if (t.g.phase != IL_PHASE_DROP_GRAB || !drop_shows(&t.g, t.g.players[1].buyer))
            continue;
        tried++;
        int64_t opened = t.g.deadline - 600 * 1000;
        think_until(&t, opened + 30 * 1000);
        assert_true(t.g.players[1].grabbed);
        assert_int_equal(t.refused, 0);
    }
    assert_int_equal(tried, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(accepts_once_then_declines),
        cmocka_unit_test(answers_in_time),
        cmocka_unit_test(stand_in_cancels_what_it_cannot_pay),
        cmocka_unit_test(grabs_within_a_persons_patience),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
