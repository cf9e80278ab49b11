/*
 * internal.h - helpers shared by the files of the rules module; not an API.
 */
#ifndef CORE_ILLEGAL_INTERNAL_H
#define CORE_ILLEGAL_INTERNAL_H

#include <json-c/json.h>

#include "../json.h"
#include "illegal.h"

/* Times (now, deadlines) must stay within +-2^60 ms, so that adding any timer
 * can never overflow; that is some 36 million years either side of 1970. */
#define IL_NOW_LIMIT (INT64_C(1) << 60)

/* What a rule step needs: the game being changed, the clock, the rng and
 * where its events go. */
struct il_ctx {
    struct il_game *g;
    int64_t now;
    struct rng *rng;
    struct il_events *ev;
    bool overflow; /* an event did not fit; apply turns this into an error */
    struct il_event sink;
};

/* cards.c */
unsigned il_popcount8(uint8_t mask);
void il_bundle_add(struct il_bundle *to, const struct il_bundle *b);
void il_bundle_sub(struct il_bundle *from, const struct il_bundle *b);
/* One resource card of every type in `mask`. */
void il_bundle_of_mask(struct il_bundle *b, uint8_t mask);
/* True when b holds only resource cards. */
bool il_bundle_only_resources(const struct il_bundle *b);
/* True when every resource card in b is of a type in `mask`. */
bool il_bundle_within(const struct il_bundle *b, uint8_t mask);

/* config.c */
bool il_timer_ok(int64_t ms);

/* game.c */
/* Appends a zeroed event of `type` for `audience` and returns it. */
struct il_event *il_emit(struct il_ctx *c, enum il_event_type type, int audience);
/* Emits HAND, private to seat, with their whole hand. */
void il_emit_hand(struct il_ctx *c, unsigned seat);
bool il_is_active_seat(const struct il_game *g, int seat);
unsigned il_active_count(const struct il_game *g);

/* clock.c */
/* Starts the next step's timer: now + the timer, or parked while paused.
 * Returns the deadline to announce (0 while paused). */
int64_t il_start_timer(struct il_ctx *c, enum il_timer t);
/* Ends the running step as if its deadline had fired. */
void il_fire(struct il_ctx *c);
enum il_error il_act_clock(struct il_ctx *c, const struct il_action *a);

/* trade.c */
enum il_error il_act_trade(struct il_ctx *c, const struct il_action *a);
/* Removes offers[i], keeping the rest in id order. */
void il_offer_remove(struct il_game *g, unsigned i);
/* Emits `type` for offer o to both sides: receiver first, then offerer. */
void il_emit_offer(struct il_ctx *c, enum il_event_type type, const struct il_offer *o);
/* Closes every open offer with OFFER_EXPIRED. */
void il_expire_offers(struct il_ctx *c);

/* session flow (clock.c) */
void il_open_session(struct il_ctx *c);
void il_close_session(struct il_ctx *c);

/* drop.c */
void il_start_drop(struct il_ctx *c);
void il_reveal_next(struct il_ctx *c);
/* Ends the drop: leftovers, DROP_DONE, the next session. */
void il_end_drop(struct il_ctx *c);
/* Ends the drop at once if every active player holds a card from it. */
void il_end_drop_if_complete(struct il_ctx *c);
/* Sends every drop card still on the table to the discard. */
void il_clear_drop(struct il_game *g);
enum il_error il_act_grab(struct il_ctx *c, const struct il_action *a);

/* tribunal.c */
/* After the last session: holds the tribunal (IL_TRIBUNAL_HOLD, or a time
 * the GM scheduled), or opens it. */
void il_end_sessions(struct il_ctx *c);
void il_open_tribunal(struct il_ctx *c);
/* Opens cases[case_index] (and every later one in a parallel tribunal), or
 * ends the game when none is left. */
void il_open_case(struct il_ctx *c);
void il_open_vote(struct il_ctx *c);
/* Judges every open case, then opens the next or ends the game. */
void il_verdict(struct il_ctx *c);
/* With IL_TRIBUNAL_CLOSE_EARLY, judges each open case as soon as every
 * active player has voted on it, and moves on once none is left open. */
void il_close_if_all_voted(struct il_ctx *c);
enum il_error il_act_vote(struct il_ctx *c, const struct il_action *a);

/* score.c */
/* Scores, reveals every hand and ends the game; `aborted`: before its
 * tribunal was through, so nobody wins. */
void il_finish(struct il_ctx *c, bool aborted);

/* kick.c */
enum il_error il_act_kick(struct il_ctx *c, const struct il_action *a);

#endif
