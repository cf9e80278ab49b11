/*
 * illegal_sim.c - plays many games of Illegal against the rules engine and
 * reports whether any invariant broke.
 *
 *     illegal-sim --games N --players P --seed S [--variant V] [--stats]
 *     illegal-sim --games N --computers normal,easy,easy,easy --seed S [--variant V]
 *                 [--tribunal live|all|hold,parallel,...] [--gm] [--pace PERCENT] [--stats]
 *
 * V: standard, advanced, casual or casual-advanced. Without --computers the
 * players are random: legal and deliberately invalid actions. With it, each
 * seat is a computer player of the level named, the seats drawn anew each
 * game, on a virtual clock; the simulator tells how each level fared.
 * --tribunal picks the tribunal options (all: every combination in turn, by
 * seed; the default), --gm lets the Game Master pause, extend, skip, schedule
 * and kick now and then, --pace scales the computers' delays (100: a
 * person's). --stats adds, on stderr, how often each action was accepted and
 * each error returned (random games), or which of the computers' actions were
 * refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "computers.h"
#include "driver.h"
#include "sim_common.h"

struct args {
    uint64_t games, players, seed, pace;
    bool stats, gm, have_seed;
    enum il_variant variant;
    unsigned tribunal;
    const char *computers;
};

static int usage(void)
{
    fprintf(stderr, "usage: illegal-sim --games N --players P --seed S "
                    "[--variant standard|advanced|casual|casual-advanced] [--stats]\n"
                    "       illegal-sim --games N --computers LEVEL,LEVEL,... --seed S "
                    "[--variant V] [--tribunal live|all|OPTION,...] [--gm] [--pace PERCENT] "
                    "[--stats]\n");
    return 2;
}

static const char *const action_names[] = {
    "tick",  "offer",  "accept", "decline", "cancel", "grab", "vote",      "abstain",
    "pause", "resume", "extend", "next",    "end",    "kick", "set-timer", "schedule",
};

static void print_errors(const uint64_t *errors)
{
    for (unsigned e = 1; e < IL_ERR_COUNT; e++)
        fprintf(stderr, "error %-21s %llu\n", il_error_id((enum il_error)e),
                (unsigned long long)errors[e]);
}

/* "live", "all", or options joined by commas. */
static bool parse_tribunal(const char *s, unsigned *out)
{
    char word[32];
    *out = 0;
    if (!s)
        return false;
    if (strcmp(s, "all") == 0) {
        *out = CPU_TRIBUNAL_BY_SEED;
        return true;
    }
    if (strcmp(s, "live") == 0)
        return true;
    for (const char *p = s; *p; p += *p == ',') {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof word)
            return false;
        memcpy(word, p, n);
        word[n] = '\0';
        int bit = il_tribunal_option_from_id(word);
        if (bit < 0)
            return false;
        *out |= (unsigned)bit;
        p += n;
    }
    return true;
}

/* Reads one option (and its value); false when it is not one. */
static bool parse_option(struct args *a, const char *opt, const char *val, int *i)
{
    bool ok = true;
    if (strcmp(opt, "--stats") == 0 || strcmp(opt, "--gm") == 0) {
        *(opt[2] == 's' ? &a->stats : &a->gm) = true;
        return true;
    }
    if (strcmp(opt, "--games") == 0)
        ok = sim_parse_u64(val, &a->games);
    else if (strcmp(opt, "--players") == 0)
        ok = sim_parse_u64(val, &a->players);
    else if (strcmp(opt, "--seed") == 0)
        ok = a->have_seed = sim_parse_u64(val, &a->seed);
    else if (strcmp(opt, "--pace") == 0)
        ok = sim_parse_u64(val, &a->pace) && a->pace <= 1000;
    else if (strcmp(opt, "--variant") == 0 && il_variant_from_id(val) >= 0)
        a->variant = (enum il_variant)il_variant_from_id(val);
    else if (strcmp(opt, "--tribunal") == 0)
        ok = parse_tribunal(val, &a->tribunal);
    else if (strcmp(opt, "--computers") == 0 && val)
        a->computers = val;
    else
        return false;
    (*i)++;
    return ok;
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static int run_random(const struct args *a)
{
    struct sim_opts o = {.variant = a->variant, .verify = true, .players = (unsigned)a->players};
    struct sim_stats st = {0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t n = 0; n < a->games; n++)
        sim_play(&o, a->seed + n, &st, NULL);
    double secs = seconds_since(&t0);
    printf("games=%llu players=%llu actions=%llu invariant_violations=%llu games_per_s=%.0f\n",
           (unsigned long long)st.games, (unsigned long long)a->players,
           (unsigned long long)st.actions, (unsigned long long)st.violations,
           secs > 0 ? (double)st.games / secs : 0.0);
    fflush(stdout);
    if (a->stats) {
        for (unsigned t = 0; t <= IL_ACT_SCHEDULE; t++)
            fprintf(stderr, "accepted %-10s %llu\n", action_names[t],
                    (unsigned long long)st.accepted[t]);
        print_errors(st.errors);
    }
    return st.violations ? 1 : 0;
}

/* "normal,easy,easy,easy" into o's levels. */
static bool parse_levels(const char *list, struct cpu_opts *o)
{
    char word[32];
    o->players = 0;
    for (const char *p = list; *p; p += *p == ',') {
        size_t n = strcspn(p, ",");
        if (n == 0 || n >= sizeof word || o->players == IL_MAX_PLAYERS)
            return false;
        memcpy(word, p, n);
        word[n] = '\0';
        if (!(o->levels[o->players++] = cpu_level(word)))
            return false;
        p += n;
    }
    return o->players >= IL_MIN_PLAYERS;
}

static void print_levels(const struct cpu_stats *st, unsigned players)
{
    for (unsigned i = 0; i < CPU_LEVELS_MAX && st->ids[i]; i++) {
        double seats = (double)st->seats[i];
        printf("level=%s seats=%llu win_rate=%.4f share=%.4f avg_score=%.2f found_rate=%.4f "
               "goods=%.2f wrong=%.2f right=%.2f offers=%.1f accepted=%.2f\n",
               st->ids[i], (unsigned long long)st->seats[i], st->wins[i] / seats, 1.0 / players,
               (double)st->score[i] / seats, (double)st->found[i] / seats,
               (double)st->goods[i] / seats, (double)st->wrong[i] / seats,
               (double)st->right[i] / seats, (double)st->offers[i] / seats,
               st->offers[i] ? (double)st->accepted[i] / (double)st->offers[i] : 0.0);
    }
}

static int run_computers(const struct args *a)
{
    struct cpu_opts o = {
        .variant = a->variant, .tribunal = a->tribunal, .pace = (unsigned)a->pace, .gm = a->gm};
    if (!parse_levels(a->computers, &o) || (a->players && a->players != o.players))
        return usage();
    struct cpu_stats st = {0};
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t n = 0; n < a->games; n++)
        cpu_play(&o, a->seed + n, &st);
    double secs = seconds_since(&t0);
    uint64_t refused = 0;
    for (unsigned e = 0; e < IL_ERR_COUNT; e++)
        refused += st.refused[e];
    printf("games=%llu players=%u steps=%llu actions=%llu refused=%llu invariant_violations=%llu "
           "trades_per_game=%.1f minutes_per_game=%.1f games_per_s=%.0f\n",
           (unsigned long long)st.games, o.players, (unsigned long long)st.steps,
           (unsigned long long)st.actions, (unsigned long long)refused,
           (unsigned long long)st.violations, (double)st.trades / (double)st.games,
           (double)st.game_ms / 60000.0 / (double)st.games,
           secs > 0 ? (double)st.games / secs : 0.0);
    print_levels(&st, o.players);
    fflush(stdout);
    if (a->stats)
        print_errors(st.refused);
    return st.violations ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct args a = {
        .variant = IL_VARIANT_STANDARD, .tribunal = CPU_TRIBUNAL_BY_SEED, .pace = RULES_PACE_HUMAN};
    for (int i = 1; i < argc; i++)
        if (!parse_option(&a, argv[i], i + 1 < argc ? argv[i + 1] : NULL, &i))
            return usage();
    if (!a.games || !a.have_seed)
        return usage();
    if (a.computers)
        return run_computers(&a);
    if (a.players < IL_MIN_PLAYERS || a.players > IL_MAX_PLAYERS)
        return usage();
    return run_random(&a);
}
