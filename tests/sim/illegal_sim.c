/*
 * illegal_sim.c - plays many random games of Illegal against the rules engine
 * and reports whether any invariant broke.
 *
 *     illegal-sim --games N --players P --seed S [--variant standard|advanced|casual]
 *                 [--stats]
 *
 * --stats adds, on stderr, how often each action was accepted and each error
 * returned, to see what the random games exercised.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "driver.h"

static int usage(void)
{
    fprintf(stderr, "usage: illegal-sim --games N --players P --seed S "
                    "[--variant standard|advanced|casual] [--stats]\n");
    return 2;
}

static const char *const action_names[] = {
    "tick",  "offer",  "accept", "decline", "cancel", "grab", "vote",      "abstain",
    "pause", "resume", "extend", "next",    "end",    "kick", "set-timer", "schedule",
};

static void print_stats(const struct sim_stats *st)
{
    for (unsigned t = 0; t <= IL_ACT_SCHEDULE; t++)
        fprintf(stderr, "accepted %-10s %llu\n", action_names[t],
                (unsigned long long)st->accepted[t]);
    for (unsigned e = 1; e < IL_ERR_COUNT; e++)
        fprintf(stderr, "error %-21s %llu\n", il_error_id((enum il_error)e),
                (unsigned long long)st->errors[e]);
}

static bool parse_u64(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!s || !*s || *s == '-')
        return false;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end)
        return false;
    *out = v;
    return true;
}

int main(int argc, char **argv)
{
    uint64_t games = 0, players = 0, seed = 0;
    bool have_games = false, have_players = false, have_seed = false, stats = false;
    struct sim_opts o = {.variant = IL_VARIANT_STANDARD, .verify = true};

    for (int i = 1; i < argc; i++) {
        const char *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--stats") == 0) {
            stats = true;
            continue;
        }
        if (strcmp(argv[i], "--games") == 0 && parse_u64(val, &games))
            have_games = true;
        else if (strcmp(argv[i], "--players") == 0 && parse_u64(val, &players))
            have_players = true;
        else if (strcmp(argv[i], "--seed") == 0 && parse_u64(val, &seed))
            have_seed = true;
        else if (strcmp(argv[i], "--variant") == 0 && il_variant_from_id(val) >= 0)
            o.variant = (enum il_variant)il_variant_from_id(val);
        else
            return usage();
        i++;
    }
    if (!have_games || !have_players || !have_seed || games == 0 || players < IL_MIN_PLAYERS ||
        players > IL_MAX_PLAYERS)
        return usage();
    o.players = (unsigned)players;

    struct sim_stats st = {0};
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (uint64_t n = 0; n < games; n++)
        sim_play(&o, seed + n, &st, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;

    printf("games=%llu players=%llu actions=%llu invariant_violations=%llu games_per_s=%.0f\n",
           (unsigned long long)st.games, (unsigned long long)players,
           (unsigned long long)st.actions, (unsigned long long)st.violations,
           secs > 0 ? (double)st.games / secs : 0.0);
    fflush(stdout);
    if (stats)
        print_stats(&st);
    return st.violations ? 1 : 0;
}
