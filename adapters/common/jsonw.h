/*
 * jsonw.h - JSON written straight into a capped buffer (bot/util/buf.h):
 * the bodies the adapters send, without building json-c objects first.
 *
 * The writer places commas and colons itself: open an object, then a key and
 * its value, another key and its value, and so on. Strings are written as
 * RFC 8259 requires: '"', '\\' and every control character escaped, and each
 * byte that starts no valid UTF-8 sequence (RFC 3629) written as U+FFFD, so
 * a player's name in a broken encoding never makes a body Discord or a
 * homeserver refuses. Nothing is cut here: a caller that must fit a limit
 * measures the text first and writes the part that fits.
 *
 * Errors are sticky: an append that would pass the buffer's cap (or finds no
 * memory), or a value out of place (a key outside an object, nesting past
 * JW_DEPTH_MAX, a close that matches no open), marks the writer failed, and
 * what follows writes nothing more. jw_finish() says whether the whole value
 * was written and is complete; the buffer then holds it, NUL-terminated.
 */
#ifndef ADAPTERS_COMMON_JSONW_H
#define ADAPTERS_COMMON_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/util/buf.h"

struct json_object;

#define JW_DEPTH_MAX 32 /* the deepest a body nests; json-c's own parse allows 32 */

struct jw {
    struct buf *b;
    uint32_t open;   /* bit d: level d (from 1) is an object, not an array */
    uint32_t filled; /* bit d: level d holds a member or element already */
    unsigned depth;
    bool keyed;     /* inside an object, a key is written and awaits its value */
    bool in_string; /* between jw_str_open() and jw_str_close() */
    bool failed;
};

/* Starts writing one JSON value at the end of b (which the caller owns and
 * may hold bytes already). */
void jw_init(struct jw *w, struct buf *b);

/* Opens and closes an object or an array. */
void jw_object(struct jw *w);
void jw_object_end(struct jw *w);
void jw_array(struct jw *w);
void jw_array_end(struct jw *w);

/* The next member's name (plain ASCII names of the adapter's own, escaped all
 * the same). */
void jw_key(struct jw *w, const char *key);

/* Values: a string (NUL-terminated, or its first n bytes), an integer, a
 * boolean, null. */
void jw_str(struct jw *w, const char *s);
void jw_strn(struct jw *w, const char *s, size_t n);
void jw_int(struct jw *w, int64_t v);
void jw_bool(struct jw *w, bool v);
void jw_null(struct jw *w);

/* One string written in pieces (a text, its countdown, a mark after a cut):
 * each piece escaped as jw_strn() does. A piece should end on a character's
 * boundary; a sequence split between two pieces is written as U+FFFD. */
void jw_str_open(struct jw *w);
void jw_str_add(struct jw *w, const char *s, size_t n);
void jw_str_close(struct jw *w);

/* A value json-c holds, written by the same rules (its strings escaped and
 * made valid UTF-8 as above; doubles as json-c prints them). */
void jw_json(struct jw *w, const struct json_object *o);

/* 0 when the value is whole and nothing failed, else -1. */
int jw_finish(const struct jw *w);

/* The bytes of the valid UTF-8 sequence that starts s (RFC 3629: no
 * overlong form, no surrogate, nothing past U+10FFFF) within its first avail
 * bytes (avail >= 1), or 0 when it starts none. A NUL-terminated s may give
 * SIZE_MAX: its NUL ends any sequence. */
size_t jw_utf8_len(const unsigned char *s, size_t avail);

#endif
