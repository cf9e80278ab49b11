/*
 * palm_drewes_sim.c - plays many games of Palm & Drewes' Illegal against the
 * rules engine and reports whether any invariant broke.
 *
 *     palm-drewes-sim --games N --players P --seed S [--roundtrip] [--series GOAL] [--stats]
 *     palm-drewes-sim --games N --players P --seed S --computers [--pace PCT] [--roundtrip]
 *
 * Random players try legal and deliberately invalid actions; the host steps in
 * now and then; time runs out. After every step the driver checks every
 * invariant, that a refusal changed nothing, and who each event is shown to;
 * --roundtrip stores every state as JSON text and goes on from what it reads
 * back. --series plays the games as one series to GOAL euros (500000 or
 * 1000000), carrying the totals from game to game. --stats adds, on stderr,
 * how often each action was accepted, each error returned, each card played
 * and each end reached.
 *
 * --computers seats the module's first level of computer player in every
 * seat and drives the game through the rules module interface as a host
 * does (computers.c): any move the rules refuse is counted (refused=), and
 * the run fails on any refusal or violation. --pace scales their delays
 * (100: a person's, the default).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "sim_common.h"

struct args {
    uint64_t games, players, seed, series, pace;
    bool stats, roundtrip, have_seed, computers;
};

static int usage(void)
{
    fprintf(stderr, "usage: palm-drewes-sim --games N --players P --seed S [--roundtrip] "
                    "[--series 500000|1000000] [--stats]\n"
                    "       palm-drewes-sim --games N --players P --seed S --computers "
                    "[--pace PCT] [--roundtrip]\n");
    return 2;
}

static bool parse(int argc, char **argv, struct args *a)
{
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        bool ok = true;
        if (strcmp(opt, "--stats") == 0) {
            a->stats = true;
            continue;
        }
        if (strcmp(opt, "--roundtrip") == 0) {
            a->roundtrip = true;
            continue;
        }
        if (strcmp(opt, "--computers") == 0) {
            a->computers = true;
            continue;
        }
        if (strcmp(opt, "--games") == 0)
            ok = sim_parse_u64(val, &a->games);
        else if (strcmp(opt, "--players") == 0)
            ok = sim_parse_u64(val, &a->players);
        else if (strcmp(opt, "--pace") == 0)
            ok = sim_parse_u64(val, &a->pace) && a->pace <= 1000;
        else if (strcmp(opt, "--seed") == 0)
            ok = a->have_seed = sim_parse_u64(val, &a->seed);
        else if (strcmp(opt, "--series") == 0)
            ok = sim_parse_u64(val, &a->series) &&
                 (a->series == PD_SERIES_SHORT || a->series == PD_SERIES_LONG);
        else
            return false;
        if (!ok)
            return false;
        i++;
    }
    return a->games > 0 && a->have_seed && a->players >= PD_MIN_PLAYERS &&
           a->players <= PD_MAX_PLAYERS;
}

static void print_stats(const struct pd_sim_stats *st)
{
    static const char *const actions[PD_ACT_TYPES] = {
        "tick",    "play",   "discard", "magnum", "waive",  "pass", "lose", "offer", "accept",
        "decline", "cancel", "pause",   "resume", "extend", "next", "end",  "kick",  "set-timer",
    };
    for (unsigned t = 0; t < PD_ACT_TYPES; t++)
        fprintf(stderr, "accepted %-10s %llu\n", actions[t], (unsigned long long)st->accepted[t]);
    for (unsigned e = 1; e < PD_ERR_COUNT; e++)
        fprintf(stderr, "error %-21s %llu\n", pd_error_id((enum pd_error)e),
                (unsigned long long)st->errors[e]);
    for (unsigned c = 0; c < PD_CARDS; c++)
        fprintf(stderr, "played %-14s %llu\n", pd_card_id(c), (unsigned long long)st->played[c]);
    for (unsigned e = 0; e < PD_EV_TYPES; e++)
        fprintf(stderr, "event %-17s %llu\n", pd_event_id((enum pd_event_type)e),
                (unsigned long long)st->events[e]);
    for (unsigned e = PD_END_RECKONING; e <= PD_END_PLAYERS; e++)
        fprintf(stderr, "end %-10s %llu\n", pd_end_id((enum pd_end)e),
                (unsigned long long)st->ends[e]);
}

/* Games of computer players: how they went, and whether anything was refused. */
static int computers(const struct args *a)
{
    struct pd_comp_opts o = {.players = (unsigned)a->players,
                             .pace = a->pace ? (unsigned)a->pace : 100,
                             .roundtrip = a->roundtrip,
                             .verbose = a->stats};
    struct pd_comp_stats st;
    memset(&st, 0, sizeof st);
    for (uint64_t i = 0; i < a->games; i++)
        pd_comp_play(&o, a->seed + i, &st);
    double games = st.games ? (double)st.games : 1;
    printf("games=%llu players=%llu moves=%llu refused=%llu timeouts=%llu violations=%llu "
           "turns/game=%.1f winner_mean=%.0f score_mean=%.0f",
           (unsigned long long)st.games, (unsigned long long)a->players,
           (unsigned long long)st.moves, (unsigned long long)st.refused,
           (unsigned long long)st.timeouts, (unsigned long long)st.violations,
           (double)st.turns / games, st.wins ? (double)st.winning_sum / (double)st.wins : 0.0,
           (double)st.score_sum / (games * (double)a->players));
    for (unsigned e = PD_END_RECKONING; e <= PD_END_PLAYERS; e++)
        if (st.ends[e])
            printf(" end_%s=%llu", pd_end_id((enum pd_end)e), (unsigned long long)st.ends[e]);
    printf("\n");
    for (unsigned e = 1; a->stats && e < PD_ERR_COUNT; e++)
        if (st.errors[e])
            fprintf(stderr, "refused %-21s %llu\n", pd_error_id((enum pd_error)e),
                    (unsigned long long)st.errors[e]);
    for (unsigned e = 0; a->stats && e < PD_EV_TYPES; e++)
        fprintf(stderr, "event %-17s %llu\n", pd_event_id((enum pd_event_type)e),
                (unsigned long long)st.events[e]);
    return st.violations || st.refused ? 1 : 0;
}

int main(int argc, char **argv)
{
    struct args a;
    memset(&a, 0, sizeof a);
    if (!parse(argc, argv, &a))
        return usage();
    if (a.computers)
        return computers(&a);
    struct pd_sim_opts o = {.players = (unsigned)a.players,
                            .verify = true,
                            .roundtrip = a.roundtrip,
                            .series = (int32_t)a.series};
    struct pd_sim_stats st;
    memset(&st, 0, sizeof st);
    struct pd_series series;
    memset(&series, 0, sizeof series);
    uint64_t series_won = 0;
    for (uint64_t i = 0; i < a.games; i++) {
        pd_sim_play(&o, a.seed + i, a.series ? &series : NULL, &st, NULL);
        if (a.series && pd_series_winners(&series, (int32_t)a.series)) {
            series_won++;
            memset(&series, 0, sizeof series); /* the next game starts a new series */
        }
    }
    printf("games=%llu players=%llu actions=%llu turns=%llu refused=%llu violations=%llu",
           (unsigned long long)st.games, (unsigned long long)a.players,
           (unsigned long long)st.actions, (unsigned long long)st.turns,
           (unsigned long long)st.rejected, (unsigned long long)st.violations);
    printf(" max_events=%u", st.max_events);
    if (a.series)
        printf(" series_won=%llu", (unsigned long long)series_won);
    printf("\n");
    if (a.stats)
        print_stats(&st);
    return st.violations ? 1 : 0;
}
