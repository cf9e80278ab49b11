/*
 * sees_game.c - a strategy that reaches for the game's state. Built as the
 * strategies are (IL_SEAT_ONLY) it must not compile; built as the rules
 * are, it does, so the refusal is the seat-only build's and nothing else's.
 */
#include "core/illegal/view.h"

int peek(const struct il_game *g);

int peek(const struct il_game *g)
{
    return g->players[1].buyer;
}
