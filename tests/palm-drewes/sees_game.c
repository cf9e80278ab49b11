/*
 * sees_game.c - a computer player that reaches for the game's state. Built
 * as the strategies are (PD_SEAT_ONLY) it must not compile; built as the
 * rules are, it does, so the refusal is the seat-only build's own.
 */
#include "core/palm-drewes/view.h"

int peek(const struct pd_game *g);

int peek(const struct pd_game *g)
{
    return g->players[1].hand.n[PD_MAGNUM];
}
