/*
 * buf.h - a growable byte buffer with a hard cap.
 *
 * Every buffer has a maximum length (max, in bytes, not counting the NUL) set
 * by buf_init, so input from outside cannot grow memory without bound. An
 * append that would pass the cap, or that cannot get memory, fails and leaves
 * the buffer exactly as it was: never half an append. data is NULL until the
 * first successful append, and always NUL-terminated after it. The buffer owns
 * data until buf_take() hands it to the caller.
 */
#ifndef BOT_UTIL_BUF_H
#define BOT_UTIL_BUF_H

#include <stdarg.h>
#include <stddef.h>

#include "util.h"

struct buf {
    char *data; /* len bytes and a NUL, or NULL before the first append */
    size_t len; /* bytes held, without the NUL */
    size_t cap; /* bytes allocated */
    size_t max; /* len never passes this */
};

/* Makes b an empty buffer that will hold at most max bytes. Allocates nothing. */
void buf_init(struct buf *b, size_t max);

/* Appends n bytes of p (which may hold NUL bytes). Returns 0, or -1 when the
 * cap would be passed or memory runs out; b is then unchanged. Appending 0
 * bytes to an empty buffer allocates data, so a successful append always
 * leaves data non-NULL. */
int buf_append(struct buf *b, const void *p, size_t n) MUST_USE;

/* Appends the string s. Returns 0 or -1 as buf_append. */
int buf_puts(struct buf *b, const char *s) MUST_USE;

/* Appends printf(fmt, ...); no argument may point into b's data. Returns 0 or
 * -1 as buf_append (also -1 on an encoding error). */
int buf_printf(struct buf *b, const char *fmt, ...) MUST_USE __attribute__((format(printf, 2, 3)));

/* buf_printf with a va_list (which it consumes). */
int buf_vprintf(struct buf *b, const char *fmt, va_list ap) MUST_USE
    __attribute__((format(printf, 2, 0)));

/* Empties b but keeps its memory and cap, for the next use. */
void buf_reset(struct buf *b);

/* Frees data; b is empty with the same cap and may be used again. */
void buf_free(struct buf *b);

/* Hands data to the caller, who frees it; b is left empty with the same cap.
 * Returns NULL when nothing was appended since the buffer was last emptied
 * by buf_take or buf_free. */
char *buf_take(struct buf *b) MUST_USE;

#endif
