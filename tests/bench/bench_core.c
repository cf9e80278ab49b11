/*
 * bench_core.c - how fast the rules engine plays, how much it allocates (it
 * should not), and what storing a game through json-c costs.
 *
 *     bench-core [--games N] [--players P] [--seed S]
 *
 * For each variant: plays N random games without the per-step checks, then
 * saves and restores every final game through JSON text. Prints one line per
 * variant; exits 1 if the engine allocated at all.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "alloc_count.h"
#include "driver.h"

#define MAX_GAMES 1000000

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int usage(void)
{
    fprintf(stderr, "usage: bench-core [--games N] [--players 4..8] [--seed S]\n");
    return 2;
}

/* Saves g as JSON text and loads it back; returns false if it did not come back whole. */
static bool save_and_load(const struct il_game *g)
{
    struct json_object *j = il_game_to_json(g);
    if (!j)
        return false;
    struct json_object *back = json_tokener_parse(json_object_to_json_string(j));
    struct il_game copy;
    memset(&copy, 0, sizeof copy);
    bool ok = back && il_game_from_json(&copy, back) == IL_OK && memcmp(&copy, g, sizeof copy) == 0;
    json_object_put(j);
    json_object_put(back);
    return ok;
}

int main(int argc, char **argv)
{
    unsigned long games = 2000, players = 6, seed = 1;
    for (int i = 1; i < argc; i += 2) {
        if (i + 1 >= argc)
            return usage();
        char *end;
        unsigned long v = strtoul(argv[i + 1], &end, 10);
        if (*end || !*argv[i + 1])
            return usage();
        if (strcmp(argv[i], "--games") == 0)
            games = v;
        else if (strcmp(argv[i], "--players") == 0)
            players = v;
        else if (strcmp(argv[i], "--seed") == 0)
            seed = v;
        else
            return usage();
    }
    if (games == 0 || games > MAX_GAMES || players < IL_MIN_PLAYERS || players > IL_MAX_PLAYERS)
        return usage();
    alloc_count_init();

    struct il_game *finals = calloc(games, sizeof *finals);
    if (!finals)
        return 1;
    int status = 0;
    for (unsigned v = 0; v < 3; v++) {
        struct sim_opts o = {.players = (unsigned)players, .variant = (enum il_variant)v};
        struct sim_stats st = {0};

        alloc_count_start();
        double t0 = seconds();
        for (unsigned long n = 0; n < games; n++)
            sim_play(&o, seed + n, &st, &finals[n]);
        double play = seconds() - t0;
        unsigned long long core_allocs = alloc_count_stop();

        unsigned long bad = 0;
        alloc_count_start();
        t0 = seconds();
        for (unsigned long n = 0; n < games; n++)
            bad += !save_and_load(&finals[n]);
        double json = seconds() - t0;
        unsigned long long json_allocs = alloc_count_stop();

        printf("bench-core variant=%s players=%lu games=%lu actions=%llu games_per_s=%.0f "
               "actions_per_s=%.0f core_allocs_per_game=%.2f json_round_trips_per_s=%.0f "
               "json_allocs_per_round_trip=%.1f json_failures=%lu\n",
               il_variant_id((enum il_variant)v), players, games, (unsigned long long)st.actions,
               (double)games / play, (double)st.actions / play, (double)core_allocs / (double)games,
               (double)games / json, (double)json_allocs / (double)games, bad);
        if (core_allocs || bad)
            status = 1;
    }
    free(finals);
    return status;
}
