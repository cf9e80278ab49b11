/*
 * render.h - turning rules events into messages, in the game's language.
 *
 * Every text comes from the catalog; this module only fills in names, cards
 * and durations, and picks who may see each message: an event with a seat
 * as audience becomes a DM to that seat's user, never a table message.
 */
#ifndef BOT_RENDER_H
#define BOT_RENDER_H

#include <stddef.h>

#include "game.h"
#include "platform.h"

/* Receives each message; m and everything it points to live only for the call. */
typedef void (*render_emit_fn)(void *arg, const struct outbound *m);

/*
 * Fills the catalog text of key with named values: vars is a NULL-terminated
 * list of name, value pairs ({"player", "Alice", NULL}). Unknown placeholders
 * are left as they are; a missing key renders as the key itself. Always
 * NUL-terminates; truncates at len.
 */
void render_fill(char *out, size_t len, const char *lang, const char *key, const char *const *vars);

/* Writes a card list ("2 Guns, 1 Alcohol"), or the catalog's "nothing". */
void render_cards(char *out, size_t len, const char *lang, const struct il_bundle *b);

/* Writes a duration such as "3 min" or "45 s". */
void render_duration(char *out, size_t len, const char *lang, int64_t ms);

/* Writes the absolute time `ms` (Unix milliseconds) as "2026-11-24 18:00 UTC";
 * an empty string if it cannot be written. */
void render_time(char *out, size_t len, int64_t ms);

/* The emoji that stands for a resource on the drop message. */
const char *render_emoji(unsigned resource);

/* Maps an emoji back to a resource; -1 when it stands for none. */
int render_emoji_resource(const char *emoji);

/*
 * Brings g's record of what the table was shown (g->drop: each drop card and
 * who took it) up to date with ev, the events of one change. Call it before
 * the game is saved, so the record is stored with the change.
 */
void render_note(struct game *g, const struct il_events *ev);

/* Renders one event of game g, which already holds the state after it (and
 * whose record render_note() has brought up to date). */
void render_event(const struct game *g, const struct il_event *e, render_emit_fn emit, void *arg);

/*
 * Renders the events of one change the way the table should read them: the
 * public notices in a row become one message (its data has the last notice's
 * fields and "events", every notice's event in order), and the drop message
 * goes out once, after the last event that changed it.
 */
void render_events(const struct game *g, const struct il_events *ev, render_emit_fn emit,
                   void *arg);

/* Renders seat's hand message (roles and cards). It replaces the last one,
 * unless `fresh` asks for a new message (the player asked to see it). */
void render_hand(const struct game *g, unsigned seat, bool fresh, render_emit_fn emit, void *arg);

/* Renders the lobby message: its players and buttons, or once the game has
 * started, who plays and no buttons. */
void render_lobby(const struct game *g, render_emit_fn emit, void *arg);

#endif
