/*
 * view.h - what one seat of Illegal may know: all a computer player is
 * handed (core/strategy.h).
 *
 * The module writes a seat's view from the game (view.c); the strategies
 * (ai/) read nothing else. A view holds the public table, the seat's own
 * roles, hand, offers and votes, and the events of one change that were
 * shown to that seat: the table's and its own, never another seat's. What
 * the seat saw earlier (other players' grabs, their asks in offers to it,
 * the verdicts) is the strategy's to remember, in its memory.
 */
#ifndef CORE_ILLEGAL_VIEW_H
#define CORE_ILLEGAL_VIEW_H

#include "../strategy.h"
#include "illegal.h"

struct il_view {
    /* -- The table: what everyone sees ---------------------------------- */
    struct il_config config;
    uint8_t nplayers;
    uint8_t active;  /* bit s: seat s still plays */
    uint8_t in_play; /* bit r: resource r is in play */
    enum il_phase phase;
    uint8_t session, drops;
    int64_t deadline; /* the running step's end, or 0 (paused, held, over) */
    bool paused;
    /* The drop on the table: the cards shown so far in reveal order, which
     * of them are taken, and who has a card from it. */
    uint8_t drop_shown;
    uint8_t drop_cards[IL_RESOURCES];
    bool drop_taken[IL_RESOURCES];
    uint8_t grabbed; /* bit s */
    /* The tribunal: how many cases there are; the cards of those shown so
     * far (the others are zero); which take votes now, which are judged. */
    uint8_t ncases;
    uint16_t shown, open, judged; /* bit k: case k */
    struct il_case cases[IL_MAX_CASES];

    /* -- The seat: what it alone sees ----------------------------------- */
    uint8_t seat;
    uint8_t dealer, buyer, extra; /* its deck's resources */
    struct il_bundle hand;
    int8_t votes[IL_MAX_CASES]; /* its vote on each case (illegal.h) */
    uint8_t noffers;
    struct il_offer offers[IL_MAX_OFFERS]; /* the open offers it made or received */

    /* -- What the last change showed it, in order ----------------------- */
    struct il_events seen;
};

#ifndef IL_SEAT_ONLY
/* Writes seat's view of g into v, with those of ev (one change's events, or
 * NULL) that seat was shown. Returns whether it was shown any. */
bool il_view_build(const struct il_game *g, unsigned seat, const struct il_events *ev,
                   struct il_view *v);

/* il_view_build() behind the module interface (rules_module.seat_view):
 * state is the module's struct il_state. */
bool il_seat_view(const void *state, unsigned seat, const void *events, void *view);
#endif

/* Illegal's levels of computer player (ai/strategies.c), ended by an entry
 * with no id. */
extern const struct rules_strategy il_strategies[];

#endif
