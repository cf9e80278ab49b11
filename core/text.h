/*
 * text.h - catalog texts with their values filled in, durations and times.
 *
 * Pure functions of the catalog (core/catalog.h): every part of the daemon
 * that writes words for people writes them through these.
 */
#ifndef CORE_TEXT_H
#define CORE_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Fills the catalog text of key with named values: vars is a NULL-terminated
 * list of name, value pairs ({"player", "Alice", NULL}). Unknown placeholders
 * are left as they are; a missing key renders as the key itself. Always
 * NUL-terminates; truncates at len.
 */
void text_fill(char *out, size_t len, const char *lang, const char *key, const char *const *vars);

/* Writes a duration such as "3 min" or "45 s". */
void text_duration(char *out, size_t len, const char *lang, int64_t ms);

/* Writes the absolute time `ms` (Unix milliseconds) as "2026-11-24 18:00 UTC";
 * an empty string if it cannot be written. */
void text_time(char *out, size_t len, int64_t ms);

/*
 * A list written into a fixed array: "Alice, Bob, Carol". Items go in with
 * sep between them. The first item that does not fit is left out whole, and
 * every item after it, so a list is never cut inside an item and never skips
 * one to show a later one.
 */
struct text_list {
    char *out;
    size_t len; /* bytes of out, the NUL included */
    size_t n;   /* bytes written so far, without the NUL */
    const char *sep;
    bool full;
};

/* Makes out (len > 0 bytes; the list does not own it) an empty list. */
void text_list_init(struct text_list *l, char *out, size_t len, const char *sep);

/* Appends one item, written as printf would. Does nothing once the list is full. */
void text_list_add(struct text_list *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
