/*
 * test_ai_secrecy.c - a computer player decides from what its seat may
 * know, and from nothing else.
 *
 * Whole games of computers, every variant, tribunal option and table size.
 * After every change, for every seat, a twin of the game is made that
 * differs only in what that seat may not know: the other seats' hands and
 * roles, their votes, the offers and trades it is no party to, the cards
 * still face down (drop decks, cases not yet opened), the discard, and the
 * private events of the others. The seat's view of both must be the same,
 * and so must its decisions: what it takes in, the move it makes, when.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "computers.h"

struct leak_check {
    struct rng rng;
    uint64_t seed;
    unsigned long seats_checked, moves_compared;
};

static uint8_t any_byte(struct rng *r, unsigned below)
{
    return (uint8_t)rng_below(r, below);
}

static void scramble_bundle(struct il_bundle *b, struct rng *r)
{
    for (unsigned t = 0; t < IL_CARD_TYPES; t++)
        b->n[t] = any_byte(r, 6);
}

/* Another seat's secrets: roles, hand and votes. */
static void scramble_player(struct il_player *p, struct rng *r)
{
    p->dealer = any_byte(r, IL_RESOURCES);
    p->buyer = any_byte(r, IL_RESOURCES);
    p->extra = any_byte(r, IL_RESOURCES);
    scramble_bundle(&p->hand, r);
    for (unsigned k = 0; k < IL_MAX_CASES; k++)
        p->votes[k] = (int8_t)((int)any_byte(r, IL_MAX_PLAYERS + 3) - 3);
}

/* Offers and trades between two other seats. */
static void scramble_dealings(struct il_game *g, unsigned seat, struct rng *r)
{
    for (unsigned i = 0; i < g->noffers; i++) {
        struct il_offer *o = &g->offers[i];
        if (o->from == seat || o->to == seat)
            continue;
        scramble_bundle(&o->give, r);
        scramble_bundle(&o->ask, r);
    }
    for (unsigned i = 0; i < g->ntrades && i < IL_MAX_TRADES; i++) {
        struct il_trade *t = &g->trades[i];
        if (t->from == seat || t->to == seat)
            continue;
        for (unsigned res = 0; res < IL_RESOURCES; res++) {
            t->give[res] = any_byte(r, 4);
            t->ask[res] = any_byte(r, 4);
        }
    }
    g->ntrades = (uint16_t)(g->ntrades + any_byte(r, 50));
    g->next_offer_id += any_byte(r, 50);
}

/* What is still face down: the rest of the drop deck, the cases not yet
 * opened; and the discard, which a removed player's hand went to. */
static void scramble_face_down(struct il_game *g, struct rng *r)
{
    for (unsigned i = g->drop_shown; i < IL_RESOURCES; i++)
        g->drop_cards[i] = any_byte(r, IL_RESOURCES);
    bool debating = g->phase == IL_PHASE_DEBATE || g->phase == IL_PHASE_VOTE;
    bool parallel = (g->config.tribunal & IL_TRIBUNAL_PARALLEL) != 0;
    for (unsigned k = g->case_index; k < g->ncases; k++) {
        bool shown = il_case_judged(g, k) || (debating && (parallel || k == g->case_index));
        for (unsigned c = 0; !shown && c < g->cases[k].ncards; c++)
            g->cases[k].cards[c] =
                (uint8_t)(IL_KIND_DEALER_SUSPECT * IL_RESOURCES + any_byte(r, 2 * IL_RESOURCES));
    }
    scramble_bundle(&g->discard, r);
}

/* The others' private events: changed, and one more of each kind. */
static void scramble_events(struct il_events *ev, unsigned seat, unsigned nplayers, struct rng *r)
{
    for (unsigned i = 0; i < ev->n; i++) {
        struct il_event *e = &ev->v[i];
        if (e->audience == IL_PUBLIC || e->audience == (int)seat)
            continue;
        scramble_bundle(&e->cards, r);
        scramble_bundle(&e->cards2, r);
        e->resource = any_byte(r, IL_RESOURCES);
        e->target = (int8_t)any_byte(r, (uint8_t)nplayers);
    }
    for (unsigned other = 0; other < nplayers && ev->n < IL_MAX_EVENTS; other++) {
        if (other == seat)
            continue;
        struct il_event *e = &ev->v[ev->n++];
        memset(e, 0, sizeof *e);
        e->type = (enum il_event_type)any_byte(r, IL_EV_TIMER_SET + 1);
        e->audience = (int8_t)other;
        e->player = (int8_t)other;
        e->target = (int8_t)seat;
        scramble_bundle(&e->cards, r);
    }
}

static void make_twin(const struct cpu_sim *s, const struct il_events *ev, unsigned seat,
                      struct rng *r, struct il_game *g, struct il_events *tev)
{
    memcpy(g, &s->g, sizeof *g);
    memcpy(tev, ev, sizeof *tev);
    for (unsigned p = 0; p < g->nplayers; p++)
        if (p != seat)
            scramble_player(&g->players[p], r);
    scramble_dealings(g, seat, r);
    scramble_face_down(g, r);
    scramble_events(tev, seat, g->nplayers, r);
}

/* Takes in each view, then moves at its wake time: the same every way. */
static void same_decisions(const struct cpu_sim *s, unsigned seat, const struct il_game *twin,
                           struct il_view *views, struct leak_check *c)
{
    const struct rules_strategy *l = s->level[seat];
    uint64_t mem[2][CPU_MEMORY_MAX / 8];
    struct il_action a[2];
    bool moved[2];
    int64_t at[2];
    for (unsigned i = 0; i < 2; i++) {
        memcpy(mem[i], s->memory[seat], l->memory_size);
        l->observe(mem[i], &views[i], s->now);
        at[i] = l->wake(mem[i]) > s->now ? l->wake(mem[i]) : s->now;
        il_view_build(i ? twin : &s->g, seat, NULL, &views[i]);
        moved[i] = l->act(mem[i], &views[i], at[i], &a[i]);
    }
    if (at[0] != at[1] || moved[0] != moved[1] || memcmp(mem[0], mem[1], l->memory_size) ||
        (moved[0] && memcmp(&a[0], &a[1], sizeof a[0])))
        fail_msg("seed %llu step %llu: seat %u (%s) decided on another seat's secret",
                 (unsigned long long)s->seed, (unsigned long long)s->steps, seat, l->id);
    c->moves_compared += moved[0];
}

static void check_change(const struct cpu_sim *s, const struct il_events *ev, void *arg)
{
    static struct il_game twin;
    static struct il_events twin_ev;
    static struct il_view views[2];
    struct leak_check *c = arg;
    for (unsigned seat = 0; seat < s->g.nplayers; seat++) {
        make_twin(s, ev, seat, &c->rng, &twin, &twin_ev);
        il_view_build(&s->g, seat, ev, &views[0]);
        il_view_build(&twin, seat, &twin_ev, &views[1]);
        if (memcmp(&views[0], &views[1], sizeof views[0]) != 0)
            fail_msg("seed %llu step %llu: seat %u's view shows another seat's secret",
                     (unsigned long long)s->seed, (unsigned long long)s->steps, seat);
        same_decisions(s, seat, &twin, views, c);
        c->seats_checked++;
    }
}

static void games_of(enum il_variant variant, unsigned players, unsigned games, bool gm)
{
    static const char *const mixes[] = {"normal", "easy"};
    struct leak_check c = {0};
    struct cpu_opts o = {.players = players,
                         .variant = variant,
                         .tribunal = CPU_TRIBUNAL_BY_SEED,
                         .pace = RULES_PACE_HUMAN,
                         .gm = gm,
                         .on_change = check_change,
                         .arg = &c};
    for (unsigned p = 0; p < players; p++)
        o.levels[p] = cpu_level(mixes[p % 2]);
    rng_seed(&c.rng, 4242 + players);
    for (unsigned g = 0; g < games; g++) {
        struct cpu_stats st = {0};
        uint64_t seed = 1000 * players + 16 * variant + g;
        assert_int_equal(cpu_play(&o, seed, &st), 0);
    }
    print_message("%s, %u players: %lu seats checked, %lu moves compared\n", il_variant_id(variant),
                  players, c.seats_checked, c.moves_compared);
    assert_true(c.moves_compared > 0);
}

static void standard_games(void **state)
{
    (void)state;
    for (unsigned players = IL_MIN_PLAYERS; players <= IL_MAX_PLAYERS; players++)
        games_of(IL_VARIANT_STANDARD, players, 16, players % 2);
}

static void advanced_games(void **state)
{
    (void)state;
    for (unsigned players = IL_MIN_PLAYERS; players <= IL_MAX_PLAYERS; players++)
        games_of(IL_VARIANT_ADVANCED, players, 16, players % 2 == 0);
}

static void casual_games(void **state)
{
    (void)state;
    for (unsigned players = IL_MIN_PLAYERS; players <= IL_MAX_PLAYERS; players++)
        games_of(IL_VARIANT_CASUAL, players, 16, players % 2);
}

static void casual_advanced_games(void **state)
{
    (void)state;
    for (unsigned players = IL_MIN_PLAYERS; players <= IL_MAX_PLAYERS; players++)
        games_of(IL_VARIANT_CASUAL_ADVANCED, players, 8, players % 2 == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(standard_games),
        cmocka_unit_test(advanced_games),
        cmocka_unit_test(casual_games),
        cmocka_unit_test(casual_advanced_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
