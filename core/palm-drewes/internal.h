/*
 * internal.h - helpers shared by the files of the palm-drewes module; not an API.
 */
#ifndef CORE_PALM_DREWES_INTERNAL_H
#define CORE_PALM_DREWES_INTERNAL_H

#include "palm_drewes.h"

/* Times (now, deadlines) stay within +-2^60 ms, so adding a timer never overflows. */
#define PD_NOW_LIMIT (INT64_C(1) << 60)

/* What a rule step needs: the game being changed, the clock, the rng and
 * where its events go. */
struct pd_ctx {
    struct pd_game *g;
    int64_t now;
    struct rng *rng;
    struct pd_events *ev;
    bool overflow; /* an event did not fit; apply turns this into an error */
    struct pd_event sink;
};

/* cards.c */
void pd_bundle_add(struct pd_bundle *to, const struct pd_bundle *b);
void pd_bundle_sub(struct pd_bundle *from, const struct pd_bundle *b);
/* The highest deal in b (the lowest card number among equals), or PD_NONE. */
unsigned pd_top_deal(const struct pd_bundle *b);
/* How many kinds of card in b match `want` (a predicate on the card). */
unsigned pd_kinds_where(const struct pd_bundle *b, bool (*want)(unsigned card));
bool pd_card_is_illegal(unsigned card);
bool pd_card_is_legal(unsigned card);

/* config.c */
bool pd_timer_ok(int64_t ms);
bool pd_reminder_ok(int64_t ms);
bool pd_series_target_ok(int64_t target);

/* setup.c: a series' fields lie within their bounds (pd_game_check, setup). */
bool pd_series_ok(const struct pd_series *s);

/* game.c: events, seats, phases */
/* Appends a zeroed event of `type` for `audience` and returns it. */
struct pd_event *pd_emit(struct pd_ctx *c, enum pd_event_type type, int audience);
/* Writes into e a zeroed event of `type` for `audience`: no player, no card. */
void pd_event_blank(struct pd_event *e, enum pd_event_type type, int audience);
/* Emits HAND to seat, and HAND_SHOWN to the table while their hand lies open. */
void pd_emit_hand(struct pd_ctx *c, unsigned seat);
bool pd_is_active(const struct pd_game *g, int seat);
unsigned pd_active_count(const struct pd_game *g);
/* The next active seat after seat, to its left. */
unsigned pd_left_of(const struct pd_game *g, unsigned seat);
/* Moves the game to phase p; asserts (debug builds) that the transition is
 * one of the list at the top of game.c. */
void pd_set_phase(struct pd_game *g, enum pd_phase p);

/* clock.c */
/* Starts the timer of a step: the deadline (parked while paused) and its reminder.
 * Returns the deadline to announce (0 while paused). */
int64_t pd_start_timer(struct pd_ctx *c, enum pd_timer t);
/* Stops the clock of a step that has ended. */
void pd_stop_timer(struct pd_game *g);
/* A tick: the reminder or the deadline that is due. */
void pd_tick(struct pd_ctx *c);
/* The running step's deadline fired (a tick, or the host's NEXT). */
void pd_fire(struct pd_ctx *c);
enum pd_error pd_act_host(struct pd_ctx *c, const struct pd_action *a);

/* turn.c */
/* Starts the turn of the next player who does not sit out. */
void pd_next_turn(struct pd_ctx *c);
/* Ends the current player's turn after their move: the burden's loss, the
 * draw, the next turn (or the end). */
void pd_end_turn(struct pd_ctx *c);
/* In PD_PHASE_LOSS: goes on when the loss no longer applies (the burden was lifted). */
void pd_recheck_loss(struct pd_ctx *c);
enum pd_error pd_act_discard(struct pd_ctx *c, const struct pd_action *a);
enum pd_error pd_act_lose(struct pd_ctx *c, const struct pd_action *a);
/* The rules' move for a player whose turn timed out. */
void pd_turn_timeout(struct pd_ctx *c);
/* The rules' choice for a loss that timed out: the cheapest deal. */
void pd_loss_timeout(struct pd_ctx *c);
/* Ends the game when a hand is empty that may not be (README.md, "The end"). */
void pd_end_if_hand_empty(struct pd_ctx *c);

/* play.c */
enum pd_error pd_act_play(struct pd_ctx *c, const struct pd_action *a);
/* Moves deal `card` from seat's business to the discard: DEAL_LOST by `cause`. */
void pd_lose_deal(struct pd_ctx *c, unsigned seat, unsigned card, unsigned cause);
/* Lifts seat's burden with `by` (PD_NONE: it left by itself), played by `who`. */
void pd_lift_burden(struct pd_ctx *c, unsigned seat, int who, unsigned by, unsigned deal);

/* takeover.c */
/* Checks a takeover of `deal` from `victim` by the current player. */
enum pd_error pd_takeover_check(const struct pd_game *g, int victim, unsigned deal);
/* Opens the Magnum window on a takeover; `card` is held until it resolves. */
void pd_open_window(struct pd_ctx *c, unsigned card, unsigned victim, unsigned deal);
/* The window closed with nobody stopping it: the deal changes business. */
void pd_close_window(struct pd_ctx *c);
enum pd_error pd_act_magnum(struct pd_ctx *c, const struct pd_action *a);
enum pd_error pd_act_waive(struct pd_ctx *c, const struct pd_action *a);

/* pass.c */
/* The nuisance card was played: everyone chooses a card for the left. */
void pd_open_pass(struct pd_ctx *c);
enum pd_error pd_act_pass(struct pd_ctx *c, const struct pd_action *a);
/* Everyone who has not chosen passes a card at random; the cards move. */
void pd_pass_timeout(struct pd_ctx *c);
/* After a removal: the pass completes when everyone left has chosen. */
void pd_pass_if_ready(struct pd_ctx *c);

/* trade.c */
enum pd_error pd_act_trade(struct pd_ctx *c, const struct pd_action *a);
/* Writes into e the event `type` of offer o as seat (its receiver or the
 * current player, who made it) is shown it: a blind offer's cards are kept
 * from its receiver until accepted. */
void pd_offer_event(struct pd_event *e, const struct pd_game *g, enum pd_event_type type,
                    const struct pd_offer *o, unsigned seat);
/* Closes every open offer with `type` (OFFER_EXPIRED, OFFER_CANCELLED). */
void pd_close_offers(struct pd_ctx *c, enum pd_event_type type, int only_with);

/* score.c */
/* Scores, reveals every hand and business, and ends the game. */
void pd_finish(struct pd_ctx *c, enum pd_end why);

/* host.c */
enum pd_error pd_act_kick(struct pd_ctx *c, const struct pd_action *a);

#endif
