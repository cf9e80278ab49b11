/*
 * helpers.h - arranging positions of Palm & Drewes' Illegal for the tests:
 * hands, businesses and burdens set by card names, every card still in one
 * place (taken from the pile, set aside on the discard), then the rules
 * played on them.
 */
#ifndef TESTS_PALM_DREWES_HELPERS_H
#define TESTS_PALM_DREWES_HELPERS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/palm-drewes/palm_drewes.h"

struct t {
    struct pd_game g;
    struct rng rng;
    struct pd_events ev;
    int64_t now;
};

/* A game of `players` from seed; the first turn is seat 0's. */
void t_start(struct t *t, unsigned players, uint64_t seed);

/* Sets seat's hand to the cards named in spec ("dope dope guns"), taking them
 * from the pile (or the discard) and putting the old hand on the discard. */
void t_hand(struct t *t, unsigned seat, const char *spec);

/* Sets seat's business the same way ("opening dope small-fry"). */
void t_business(struct t *t, unsigned seat, const char *spec);

/* Lays burden `card` (a name, or NULL for none) on seat's opening. */
void t_burden(struct t *t, unsigned seat, const char *card);

/* Makes it seat's turn, in phase turn, with the turn's deadline from now. */
void t_turn(struct t *t, unsigned seat);

/* Empties the pile into the discard but for `keep` cards. */
void t_pile(struct t *t, unsigned keep);

/* A card's number by name (the test fails on an unknown one). */
unsigned t_card(const char *name);

/* Applies a; records the result for the check that every error is tested. */
enum pd_error t_act(struct t *t, const struct pd_action *a);

/* Plays card (by name) of seat, with a target seat (or PD_NOBODY), and deal
 * and extra card names (or NULL). */
enum pd_error t_play(struct t *t, int seat, const char *card, int target, const char *deal,
                     const char *extra);

/* A simple action of seat: PD_ACT_WAIVE, PD_ACT_PASS (card), PD_ACT_LOSE (card),
 * PD_ACT_MAGNUM (target), host actions. */
enum pd_error t_do(struct t *t, enum pd_action_type type, int seat, int target, const char *card);

/* Sends a tick at time `at` (moving the clock there). */
enum pd_error t_tick(struct t *t, int64_t at);

/* The first event of type in the last step's events (NULL when none). */
const struct pd_event *t_event(const struct t *t, enum pd_event_type type);

/* How many events of type the last step had. */
unsigned t_count(const struct t *t, enum pd_event_type type);

/* Fails the test when the game breaks an invariant. */
void t_check(const struct t *t);

/* Whether every error code has been returned by some t_act() in this run;
 * names the first one that was not. */
bool t_all_errors_seen(const char **missing);

/* Marks an error as seen (for those returned by setup and from_json). */
void t_saw(enum pd_error e);

#endif
