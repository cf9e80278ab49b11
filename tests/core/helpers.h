/*
 * helpers.h - a small fixture around one game for the core tests: apply an
 * action, and check that refusals change nothing and successes keep every
 * invariant.
 */
#ifndef TESTS_CORE_HELPERS_H
#define TESTS_CORE_HELPERS_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "core/illegal/illegal.h"

#define T0 1000000 /* the time every fixture starts at */

struct fx {
    struct il_game g;
    struct rng rng;
    struct il_events ev;
    int64_t now;
};

/* Sets up a game with the variant's default timers; fails the test on error. */
void fx_setup(struct fx *f, unsigned players, enum il_variant v, uint64_t seed);

/* fx_setup() with tribunal options (enum il_tribunal_option bits). */
void fx_setup_tribunal(struct fx *f, unsigned players, enum il_variant v, uint64_t seed,
                       unsigned options);

/* Applies a at f->now with fresh events. A refusal must leave game, rng and
 * events untouched; an accepted action must pass il_game_check(). */
enum il_error fx_apply(struct fx *f, const struct il_action *a);

/* Asserts that a is refused with `want`. */
void fx_refuse(struct fx *f, const struct il_action *a, enum il_error want);

/* Asserts that a is accepted. */
void fx_ok(struct fx *f, const struct il_action *a);

/* Moves the clock to the deadline and ticks once. */
void fx_tick(struct fx *f);

/* Ticks until the game is in `phase` of session `session` (0: any). */
void fx_until(struct fx *f, enum il_phase phase, unsigned session);

/* The n-th event of `type` in the last call (audience ignored), or NULL. */
const struct il_event *fx_event(const struct fx *f, enum il_event_type type, unsigned n);

/* The event of `type` for `audience` in the last call, or NULL. */
const struct il_event *fx_event_for(const struct fx *f, enum il_event_type type, int audience);

/* How many events of `type` the last call produced. */
unsigned fx_count(const struct fx *f, enum il_event_type type);

/* Actions. */
struct il_action act(enum il_action_type type, int player);
struct il_action act_offer(int from, int to, const struct il_bundle *give,
                           const struct il_bundle *ask);
struct il_action act_target(enum il_action_type type, int player, int target);
/* A vote by player on the case being judged; target IL_ABSTAINED abstains. */
struct il_action act_vote(const struct fx *f, int player, int target);
struct il_action act_offer_id(enum il_action_type type, int player, uint32_t id);
struct il_action act_grab(int player, unsigned res);
struct il_action act_gm(enum il_action_type type);

/* A bundle of `count` cards of `type`. */
struct il_bundle one(unsigned type, unsigned count);

/* A resource not in play in g. */
unsigned not_in_play(const struct il_game *g);

/* The seat whose dealer role is res, or -1. */
int dealer_of(const struct il_game *g, unsigned res);

#endif
