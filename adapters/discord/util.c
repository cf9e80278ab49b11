/*
 * util.c - jitter, and the former buffer names interactions.c still uses.
 */
#include <stdarg.h>
#include <stdlib.h>

#include "util.h"

double dc_random(void)
{
    /* xorshift64*, seeded once from the clock: jitter only, never secrets */
    static uint64_t state;
    if (!state)
        state = (clock_wall_ms() << 20) ^ clock_mono_ms() ^ 0x9e3779b97f4a7c15ull;
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (double)((state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

int dbuf_printf(struct dbuf *b, const char *fmt, ...)
{
    struct buf tmp = {.data = b->data, .len = b->len, .cap = b->cap, .max = DC_DBUF_MAX};
    va_list ap;
    va_start(ap, fmt);
    int rc = buf_vprintf(&tmp, fmt, ap);
    va_end(ap);
    b->data = tmp.data;
    b->len = tmp.len;
    b->cap = tmp.cap;
    return rc;
}

void dbuf_free(struct dbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}
