/*
 * ai.h - Palm & Drewes' Illegal's computer players: what they remember, and
 * the choices of the `easy` level. Compiled seat-only (core/CMakeLists.txt): the files of
 * ai/ see a seat's view (view.h), never the game.
 */
#ifndef CORE_PALM_DREWES_AI_H
#define CORE_PALM_DREWES_AI_H

#include <stdbool.h>
#include <stdint.h>

#include "../../rng.h"
#include "../view.h"

/* What the view asks of the seat now. */
enum pd_ai_task {
    PD_AI_IDLE,   /* nothing waits on it */
    PD_AI_TURN,   /* its turn: play or discard (or a bribe first) */
    PD_AI_LOSS,   /* its burden takes a deal of its choice */
    PD_AI_PASS,   /* a card for the left */
    PD_AI_WINDOW, /* a takeover it may stop or let go */
    PD_AI_REPLY,  /* an offer made to it */
};

/* A computer player's whole memory: plain data, stored with the game. */
struct pd_mind {
    struct rng rng;
    uint16_t pace; /* percent of a person's delays */
    int64_t wake;  /* when act() wants to be asked, or 0 */
    uint8_t task;  /* enum pd_ai_task its wake was set for */
};

/* The task the view asks of its seat. */
enum pd_ai_task pd_ai_task(const struct pd_view *v);

/* The easy level's move for task t, written into a; false when it has none
 * (never for a task the view asks of it). */
bool pd_ai_easy_move(const struct pd_view *v, enum pd_ai_task t, struct rng *rng,
                     struct pd_action *a);

#endif
