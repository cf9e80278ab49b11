/*
 * invariant.c - helpers of the modules' invariant checks.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "invariant.h"

bool invariant_fails(char *why, size_t len, const char *fmt, ...)
{
    if (why && len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(why, len, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* The first byte is zero, and each equals the one after it: memcmp compares
 * many bytes at a time, and a restart checks every unused slot of every game. */
bool invariant_zero(const void *p, size_t n)
{
    const unsigned char *b = p;
    return !n || (!b[0] && memcmp(b, b + 1, n - 1) == 0);
}
