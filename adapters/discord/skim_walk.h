/*
 * skim_walk.h - skim.c's walk over a gateway message's text, shared with
 * skim_ix.c: internal to the Discord adapter. Nothing here allocates; every
 * span points into the text walked.
 */
#ifndef DISCORD_SKIM_WALK_H
#define DISCORD_SKIM_WALK_H

#include <stdbool.h>
#include <stddef.h>

#define SKIM_MAX_DEPTH 16 /* deeper values are parsed properly (json-c stops at 32) */

/* Where a walk is, in a text that runs up to end. */
struct cursor {
    const char *p, *end;
};

/* A value's text as the walk found it. */
struct span {
    const char *start; /* for a string: after the quote */
    size_t len;        /* for a string: up to the closing quote */
    bool escaped;      /* a string holding a backslash */
};

/* c moved past JSON's whitespace. */
void skip_ws(struct cursor *c);

/* Any value at c, in JSON's own grammar only, skipped over at nesting depth
 * depth; its text (a string's quotes included) into whole. False when the
 * text is no such value or nests deeper than SKIM_MAX_DEPTH. */
bool skip_value(struct cursor *c, unsigned depth, struct span *whole);

/* What each_member() hands every member to: take reads the value at c, at
 * nesting depth depth (skip_value() when only its text matters), and
 * returns false to give up. */
struct member_fn {
    bool (*take)(void *arg, const struct span *key, struct cursor *c, unsigned depth);
    void *arg;
};

/* Calls fn->take(key, ...) for each member of the object at c, at nesting
 * depth depth; false when the text is no object, a key holds an escape, or
 * take gave up (a wanted key came twice). */
bool each_member(struct cursor *c, unsigned depth, const struct member_fn *fn);

#endif
