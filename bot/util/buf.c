/*
 * buf.c - the capped growable buffer.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"

#define BUF_FIRST_CAP 64 /* first allocation: most buffers hold a short line */

void buf_init(struct buf *b, size_t max)
{
    b->data = NULL;
    b->len = b->cap = 0;
    b->max = max;
}

/* Makes room for n more bytes and a NUL. Returns 0, or -1 (b unchanged). */
static int reserve(struct buf *b, size_t n)
{
    if (n > b->max || b->len > b->max - n)
        return -1;
    size_t need = b->len + n + 1; /* cannot overflow: len + n <= max < SIZE_MAX */
    if (need <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : BUF_FIRST_CAP;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    if (cap > b->max + 1)
        cap = b->max + 1; /* need <= max + 1, so this is still enough */
    char *d = realloc(b->data, cap);
    if (!d)
        return -1;
    if (!b->data)
        d[0] = '\0';
    b->data = d;
    b->cap = cap;
    return 0;
}

int buf_append(struct buf *b, const void *p, size_t n)
{
    if (reserve(b, n) < 0)
        return -1;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int buf_puts(struct buf *b, const char *s)
{
    return buf_append(b, s, strlen(s));
}

int buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    int rc = -1;
    if (n < 0 || reserve(b, (size_t)n) < 0)
        goto done;
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
    b->len += (size_t)n;
    rc = 0;
done:
    va_end(again);
    return rc;
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->data)
        b->data[0] = '\0';
}

void buf_free(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

char *buf_take(struct buf *b)
{
    char *d = b->data;
    b->data = NULL;
    b->len = b->cap = 0;
    return d;
}
