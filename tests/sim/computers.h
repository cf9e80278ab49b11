/*
 * computers.h - whole games of Illegal played by computer players, driven
 * the way a host drives them (core/strategy.h) on a virtual clock, with the
 * rules engine checked after every step. Shared by illegal-sim and the
 * tests of the strategies (tests/ai/).
 */
#ifndef TESTS_SIM_COMPUTERS_H
#define TESTS_SIM_COMPUTERS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/illegal/illegal.h"
#include "core/illegal/view.h"

/* Room for any strategy's memory (checked against memory_size). */
#define CPU_MEMORY_MAX 4096

/* The tribunal options of a game: these bits, or every combination in turn
 * (by seed) with CPU_TRIBUNAL_BY_SEED. */
#define CPU_TRIBUNAL_BY_SEED 0xff

struct cpu_sim;

struct cpu_opts {
    unsigned players;
    enum il_variant variant;
    unsigned tribunal; /* enum il_tribunal_option bits, or CPU_TRIBUNAL_BY_SEED */
    /* The level of each player, before the seats are shuffled for a game. */
    const struct rules_strategy *levels[IL_MAX_PLAYERS];
    unsigned pace;  /* RULES_PACE_HUMAN: a person's delays */
    bool gm;        /* the Game Master steps in now and then: pause, extend, next, kick */
    bool roundtrip; /* store and reload the game and every memory at each step */
    /* Ask each computer twice, the first answer thrown away, as when the
     * daemon dies before a move is stored: the second must be the same. */
    bool rehearse;
    /* Called after every change the engine accepted, with its events. */
    void (*on_change)(const struct cpu_sim *s, const struct il_events *ev, void *arg);
    void *arg;
};

/* One game in play; what on_change may read. */
struct cpu_sim {
    const struct cpu_opts *o;
    uint64_t seed;
    struct il_game g;
    struct rng game_rng; /* the engine's */
    struct rng pick;     /* the simulator's own draws: seats, seeds, the GM */
    int64_t now;
    int64_t gm_at;                                       /* the Game Master's next move, or 0 */
    const struct rules_strategy *level[IL_MAX_PLAYERS];  /* each seat's */
    uint64_t memory[IL_MAX_PLAYERS][CPU_MEMORY_MAX / 8]; /* each seat's, aligned */
    struct il_view view;                                 /* scratch */
    uint64_t steps;
    uint64_t violations;
    struct cpu_stats *st;
};

/* What a run of games adds up to, per level (the index in `ids`). */
#define CPU_LEVELS_MAX 4
struct cpu_stats {
    const char *ids[CPU_LEVELS_MAX];
    uint64_t seats[CPU_LEVELS_MAX]; /* seats played */
    double wins[CPU_LEVELS_MAX];    /* a shared win counts 1/winners */
    int64_t score[CPU_LEVELS_MAX];  /* summed */
    uint64_t found[CPU_LEVELS_MAX]; /* seats a suspect card of their own came back to */
    /* The score's parts (il_score_parts), summed: goods, wrong and right suspect cards. */
    uint64_t goods[CPU_LEVELS_MAX], wrong[CPU_LEVELS_MAX], right[CPU_LEVELS_MAX];
    /* Offers each level made, and how many of them were accepted. */
    uint64_t offers[CPU_LEVELS_MAX], accepted[CPU_LEVELS_MAX];
    uint64_t games, steps, actions, violations, trades;
    uint64_t refused[IL_ERR_COUNT]; /* computers' actions the engine refused, by error */
    int64_t game_ms;                /* virtual time, summed */
};

/* Plays one game from seed and adds it to st. Returns its violations. */
uint64_t cpu_play(const struct cpu_opts *o, uint64_t seed, struct cpu_stats *st);

/* The level named id among the module's strategies, or NULL. */
const struct rules_strategy *cpu_level(const char *id);

#endif
