/*
 * invariant.h - what a module's check of its invariants is written with
 * (il_game_check, pd_game_check): the reason a check failed, and unused
 * slots that must be zero.
 */
#ifndef CORE_INVARIANT_H
#define CORE_INVARIANT_H

#include <stdbool.h>
#include <stddef.h>

/* Writes the reason into why (len bytes; why may be NULL) and returns false,
 * so that a check reads `return invariant_fails(why, len, "...", ...)`. */
bool invariant_fails(char *why, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Whether the n bytes at p are all zero. */
bool invariant_zero(const void *p, size_t n);

#endif
