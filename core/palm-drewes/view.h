/*
 * view.h - what one seat of Palm & Drewes' Illegal may know: all a computer
 * player is handed (core/strategy.h).
 *
 * The table: every business and burden, who sits out, how many cards each
 * hand and the pile hold, the discard (face up), the hands that lie open
 * under a tax audit, who has chosen a card to pass or let a takeover go, the
 * takeover in its window, the series. The seat: its hand, its own choice for
 * the pass, and the offers it made or received (a blind offer received shows
 * how many cards, not which). And the events of one change shown to it. Not
 * another seat's hand (unless audited), nor the pile's order, nor another's
 * choice for the pass, nor offers between others.
 */
#ifndef CORE_PALM_DREWES_VIEW_H
#define CORE_PALM_DREWES_VIEW_H

#include "../strategy.h"
#include "palm_drewes.h"

/* An offer as the seat sees it: `give` is empty for a blind offer it
 * received, `ngive` always counts the cards. */
struct pd_view_offer {
    uint32_t id;
    uint8_t from, to, ngive;
    bool blind;
    struct pd_bundle give, ask;
};

struct pd_view {
    /* -- The table ------------------------------------------------------ */
    struct pd_config config;
    struct pd_series series;
    uint8_t nplayers, active; /* active: bit s, seat s still plays */
    uint8_t dealer, current;
    enum pd_phase phase;
    enum pd_end end;
    int64_t deadline; /* the next tick the game needs, or 0 */
    bool paused;
    uint8_t npile;
    struct pd_bundle discard;
    struct pd_bundle business[PD_MAX_PLAYERS];
    uint8_t burden[PD_MAX_PLAYERS]; /* PD_NONE: none */
    uint8_t skips[PD_MAX_PLAYERS];
    uint8_t hand_size[PD_MAX_PLAYERS];
    uint8_t open;                               /* bit s: seat s's hand lies open (tax audit) */
    struct pd_bundle open_hand[PD_MAX_PLAYERS]; /* those hands; others stay zero */
    uint8_t chosen;                             /* pass: bit s, seat s has chosen */
    uint8_t waived;                             /* window: bit s, seat s let it go */
    uint8_t takeover_card, takeover_victim, takeover_deal; /* the window's, or PD_NONE */
    int32_t scores[PD_MAX_PLAYERS];                        /* once over */

    /* -- The seat ------------------------------------------------------- */
    uint8_t seat;
    struct pd_bundle hand;
    uint8_t pass; /* its card chosen for the pass, or PD_NONE */
    uint8_t noffers;
    struct pd_view_offer offers[PD_MAX_OFFERS];

    /* -- What the last change showed it, in order ----------------------- */
    struct pd_events seen;
};

#ifndef PD_SEAT_ONLY
/* Writes seat's view of g into v, with those of ev (one change's events, or
 * NULL) shown to seat. Returns whether it was shown any. */
bool pd_view_build(const struct pd_game *g, unsigned seat, const struct pd_events *ev,
                   struct pd_view *v);
#endif

/* The levels of computer player (ai/), ended by an entry with no id. */
extern const struct rules_strategy pd_strategies[];

#endif
