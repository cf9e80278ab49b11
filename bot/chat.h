/*
 * chat.h - a table's chat, on a platform that has none of its own
 * (platform_ops.table_chat: the local table).
 *
 * A line typed at such a table that is no command is the table's chat: kept
 * with the table's game (its last GAME_CHAT_LINES lines, each cleaned like a
 * display name and cut at CHAT_TEXT_CHARS characters) and shown as one
 * message, "<game>/chat", replaced at each line. A private command typed
 * there ("offer ...") is not chat: it is answered, in private, with where it
 * belongs, so nobody reads what the player meant to keep to themselves.
 *
 * A game's chat block never changes once made: a new line makes a new block
 * (copy on write). A turn's snapshot of the game keeps the block it had, so an
 * undone turn puts it back; turn.c frees whichever block the turn dropped.
 */
#ifndef BOT_CHAT_H
#define BOT_CHAT_H

#include <stdint.h>

#include "core/attributes.h"
#include "game.h"

struct json_object;

#define GAME_CHAT_LINES 20
#define CHAT_TEXT_CHARS 200 /* characters of a line, once cleaned */
#define CHAT_TEXT_MAX   400 /* bytes of a line, cut at a character */

struct chat_line {
    char user[GAME_TEXT_MAX];
    char name[GAME_TEXT_MAX];
    char text[CHAT_TEXT_MAX];
    int64_t at; /* ms */
};

struct game_chat {
    unsigned n; /* lines, oldest first */
    struct chat_line lines[GAME_CHAT_LINES];
};

/* A new block: the lines of c (NULL: none) and then this one, the oldest
 * going when full. The caller owns it; NULL on no memory or a user id or
 * name too long. */
struct game_chat *chat_with(const struct game_chat *c, const char *user, const char *name,
                            const char *text, int64_t at) MUST_USE;

/* The lines as a stored game keeps them: [{"user","name","text","at"}]. New
 * array, caller owns; NULL for no lines. */
struct json_object *chat_to_json(const struct game_chat *c);

/* Reads chat_to_json()'s array into *out (NULL when it has no lines; the
 * caller owns the block). Returns 0, or -1 when it is damaged. */
int chat_from_json(const struct json_object *a, struct game_chat **out) MUST_USE;

#endif
