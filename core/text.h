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
 * are left as they are; a missing key renders as the key itself. A key with
 * plural forms takes the one that fits the number in {count}. Always
 * NUL-terminates; truncates at len.
 */
/* Copies the string src into out (len bytes), cut to fit: the project's
 * strcpy (which it does not use, see tests/banned.sh). Returns false when src
 * was cut. */
bool text_copy(char *out, size_t len, const char *src);

void text_fill(char *out, size_t len, const char *lang, const char *key, const char *const *vars);

/* The catalog's name of an id in a family of keys: "illegal.variant" and
 * "casual" give the text of "illegal.variant.casual" in lang, or the id itself when the
 * catalog has none. The string is static or id. */
const char *text_name(const char *lang, const char *family, const char *id);

/* Writes a number given in tenths with one decimal, as lang writes it:
 * 34 is "3.4" or "3,4" (the catalog's format.decimal). */
void text_tenths(char *out, size_t len, const char *lang, long long tenths);

/* Writes the catalog's languages as "en (English), fr (Français), ...". */
void text_languages(char *out, size_t len);

/* Writes the whole number v as lang writes numbers: "12,000", "12.000",
 * "12 000": the separator is the catalog's format.thousands. */
void text_number(char *out, size_t len, const char *lang, long long v);

/* Writes a duration with its two largest units, rounded up to the smaller:
 * "45 s", "3 min 20 s", "23 h 2 min", "2 d 5 h". */
void text_duration(char *out, size_t len, const char *lang, int64_t ms);

/* Reads a duration as people type it: "90s", "3m", "3 min", "2h", "2d", or a
 * bare number in units of bare_ms. Returns milliseconds, or -1 when it is not
 * a positive duration of at most 30 days. */
int64_t text_parse_duration(const char *s, int64_t bare_ms);

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
