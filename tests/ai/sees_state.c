/*
 * sees_state.c - a strategy that reaches for the module's state, which holds
 * the game: like sees_game.c, refused by the seat-only build.
 */
#include "core/illegal/module.h"

int peek(const struct il_state *s);

int peek(const struct il_state *s)
{
    return s->game.nplayers;
}
