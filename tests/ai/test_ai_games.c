/*
 * test_ai_games.c - whole games of computer players: in every variant and
 * tribunal option they finish, keep every invariant after every step, and
 * never send an action the rules refuse; the same seed plays the same game;
 * and a restart at any step (the game and every memory stored and read
 * back, a move asked for twice) changes nothing.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "computers.h"

/* A digest of every change: two games that digest alike played alike. */
struct digest {
    uint64_t hash, changes;
    struct il_game last;
};

static void fold(const struct cpu_sim *s, const struct il_events *ev, void *arg)
{
    struct digest *d = arg;
    const unsigned char *bytes = (const unsigned char *)ev->v;
    for (size_t i = 0; i < ev->n * sizeof *ev->v; i++)
        d->hash = (d->hash ^ bytes[i]) * 0x100000001b3ULL;
    d->hash ^= (uint64_t)s->now;
    d->changes++;
    memcpy(&d->last, &s->g, sizeof d->last);
}

static void levels(struct cpu_opts *o, const char *const *ids, unsigned n)
{
    for (unsigned p = 0; p < o->players; p++)
        o->levels[p] = cpu_level(ids[p % n]);
}

static void expect_clean(const struct cpu_stats *st, uint64_t games)
{
    assert_int_equal(st->games, games);
    assert_int_equal(st->violations, 0);
    for (unsigned e = 0; e < IL_ERR_COUNT; e++)
        if (st->refused[e])
            fail_msg("the rules refused %llu computer actions: %s",
                     (unsigned long long)st->refused[e], il_error_id((enum il_error)e));
}

/* Each variant, each of the 16 sets of tribunal options, 4 to 8 players,
 * levels mixed, the Game Master stepping in every other game. */
static void every_variant_and_tribunal_option(void **state)
{
    (void)state;
    static const char *const mix[] = {"normal", "easy", "easy", "normal", "easy"};
    uint64_t games = 0;
    struct cpu_stats st = {0};
    for (unsigned v = IL_VARIANT_STANDARD; v < IL_VARIANTS; v++)
        for (unsigned options = 0; options < 1u << IL_TRIBUNAL_OPTIONS; options++)
            for (unsigned players = IL_MIN_PLAYERS; players <= IL_MAX_PLAYERS; players++) {
                struct cpu_opts o = {.players = players,
                                     .variant = (enum il_variant)v,
                                     .tribunal = options,
                                     .pace = RULES_PACE_HUMAN,
                                     .gm = (players + options) % 2,
                                     .rehearse = true};
                levels(&o, mix, 5);
                cpu_play(&o, 100000 * v + 100 * options + players, &st);
                games++;
            }
    expect_clean(&st, games);
    print_message("%llu games, %llu actions, %llu trades\n", (unsigned long long)st.games,
                  (unsigned long long)st.actions, (unsigned long long)st.trades);
}

/* Tables of one level, and computers that think at once (pace 0). */
static void one_level_and_no_delay(void **state)
{
    (void)state;
    static const char *const ids[] = {"easy", "normal"};
    struct cpu_stats st = {0};
    uint64_t games = 0;
    for (unsigned l = 0; l < 2; l++)
        for (unsigned pace = 0; pace <= RULES_PACE_HUMAN; pace += RULES_PACE_HUMAN)
            for (unsigned v = IL_VARIANT_STANDARD; v < IL_VARIANTS; v++) {
                struct cpu_opts o = {.players = 4 + 2 * l + v % 2,
                                     .variant = (enum il_variant)v,
                                     .tribunal = CPU_TRIBUNAL_BY_SEED,
                                     .pace = pace};
                levels(&o, &ids[l], 1);
                for (unsigned g = 0; g < 8; g++, games++)
                    cpu_play(&o, 7000 + 100 * l + 10 * v + g + pace, &st);
            }
    expect_clean(&st, games);
}

static void play_digest(const struct cpu_opts *base, uint64_t seed, bool restarts, struct digest *d)
{
    struct cpu_opts o = *base;
    struct cpu_stats st = {0};
    memset(d, 0, sizeof *d);
    o.on_change = fold;
    o.arg = d;
    o.roundtrip = o.rehearse = restarts;
    cpu_play(&o, seed, &st);
    expect_clean(&st, 1);
}

/* The same seed plays the same game; another seed another; and storing
 * and reading back everything at every step, or asking every move twice,
 * changes nothing. */
static void same_seed_same_game_restarts_included(void **state)
{
    (void)state;
    static const char *const mix[] = {"normal", "easy", "normal"};
    static struct digest a, b, c, other;
    for (unsigned v = IL_VARIANT_STANDARD; v < IL_VARIANTS; v++) {
        struct cpu_opts o = {.players = 4 + v,
                             .variant = (enum il_variant)v,
                             .tribunal = CPU_TRIBUNAL_BY_SEED,
                             .pace = RULES_PACE_HUMAN,
                             .gm = v == IL_VARIANT_ADVANCED};
        levels(&o, mix, 3);
        play_digest(&o, 31 + v, false, &a);
        play_digest(&o, 31 + v, false, &b);
        play_digest(&o, 31 + v, true, &c);
        play_digest(&o, 32 + v, false, &other);
        assert_true(a.changes > 100);
        assert_int_equal(a.hash, b.hash);
        assert_int_equal(a.hash, c.hash);
        assert_int_equal(a.changes, c.changes);
        assert_memory_equal(&a.last, &c.last, sizeof a.last);
        assert_int_not_equal(a.hash, other.hash);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_variant_and_tribunal_option),
        cmocka_unit_test(one_level_and_no_delay),
        cmocka_unit_test(same_seed_same_game_restarts_included),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
