/*
 * image.h - a hosted game's image: the game as this build holds it in memory,
 * stored beside its JSON record so that a start reads it back with a copy
 * instead of a parse.
 *
 * The JSON record stays the game's portable form (older and newer daemons,
 * the statistics, hand edits). The image is this build's own: its bytes are
 * struct game, the rules module's state, the computers' memories and the
 * table's chat (bot/chat.h) as they lie in memory (plain data, no pointers:
 * core/rules.h), each run of zero words written as a count. It is written in
 * the same statement as the record, so both say the same (or, after a start,
 * alone by bot/refill.c from the game as its record says), and read only by
 * the build that wrote it (the program's GNU build id) with a checksum over
 * it: a start finds any other image (an upgrade, a damaged disk) out and
 * reads the record instead.
 *
 * Layout: a head (magic "ILGI", format, the build id, the rules module's id,
 * the sizes of the parts, the body's length and checksum), then the body:
 * the game (its pointers and links zero), the state, the memories, the chat
 * (its lines past its count zero; none when it has no line), each as tokens
 * {zero words, literal words} (two u16 in the build's byte order) with the
 * literal words after them, until the part is full.
 */
#ifndef BOT_IMAGE_H
#define BOT_IMAGE_H

#include <stddef.h>

#include "core/attributes.h"
#include "game.h"
#include "util/buf.h"

#define IMAGE_BYTES_MAX (1u << 20) /* a game's image at most: far above any */

/* Writes g's image into b (emptied first). Returns 0; 1 when g gets none (this
 * program has no build id); -1 when memory runs out. */
int image_write(const struct game *g, struct buf *b) MUST_USE;

/* Reads an image into out, which it overwrites: a game as game_from_json()
 * makes one (its state and memories malloc'd, freed by game_free; platform
 * and links unset). Returns 0; 1 when the image is not this build's (another
 * build or format: not an error, the record is read instead); -1 when it is
 * damaged or inconsistent, with why (out then holds nothing to free). Safe on
 * any thread. */
int image_read(struct game *out, const void *image, size_t len, char *why, size_t whylen) MUST_USE;

#endif
