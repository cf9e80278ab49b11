/*
 * render.h - the lobby message.
 */
#ifndef BOT_RENDER_H
#define BOT_RENDER_H

#include <stddef.h>

#include "game.h"
#include "platform.h"

/* Receives each message; m and everything it points to live only for the call. */
typedef void (*render_emit_fn)(void *arg, const struct outbound *m);

/* Renders the lobby message: its players, settings (the daemon's defaults
 * tell which preset they equal; absent_seconds, [game] absent_seconds, when
 * a computer stands in for an absent player) and buttons, or once the game
 * has started, who plays and no buttons. Nothing is sent when memory runs
 * out. */
void render_lobby(const struct game *g, const struct rules_defaults *defaults,
                  int64_t absent_seconds, render_emit_fn emit, void *arg);

#endif
