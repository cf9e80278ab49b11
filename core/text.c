/*
 * text.c - catalog texts with their values filled in, durations and times.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "catalog.h"
#include "text.h"

#define TEXT_DURATION_MAX_MS (30LL * 24 * 3600 * 1000) /* longer is surely a typo */

/* Copies n bytes of s to out + *at, cut to leave room for the NUL in len. */
static void put_cut(char *out, size_t len, size_t *at, const char *s, size_t n)
{
    if (n > len - 1 - *at)
        n = len - 1 - *at;
    memcpy(out + *at, s, n);
    *at += n;
}

/* Writes text t with its {placeholders} replaced by the values in vars. The
 * text between placeholders is copied a run at a time, not a byte (every
 * answer is filled). */
static void fill(char *out, size_t len, const char *t, const char *const *vars)
{
    size_t n = 0;
    while (*t && n + 1 < len) {
        if (*t != '{') {
            const char *brace = strchr(t, '{');
            size_t run = brace ? (size_t)(brace - t) : strlen(t);
            put_cut(out, len, &n, t, run);
            t += run;
            continue;
        }
        const char *close = strchr(t, '}');
        bool done = false;
        for (const char *const *v = vars; close && v && v[0]; v += 2) {
            if (strlen(v[0]) == (size_t)(close - t - 1) &&
                strncmp(t + 1, v[0], strlen(v[0])) == 0) {
                const char *value = v[1] ? v[1] : "";
                put_cut(out, len, &n, value, strlen(value));
                t = close + 1;
                done = true;
                break;
            }
        }
        if (!done)
            out[n++] = *t++;
    }
    out[n] = '\0';
}

bool text_copy(char *out, size_t len, const char *src)
{
    size_t n = strlen(src);
    if (!len)
        return n == 0;
    size_t k = n < len ? n : len - 1;
    memcpy(out, src, k);
    out[k] = '\0';
    return k == n;
}

void text_fill(char *out, size_t len, const char *lang, const char *key, const char *const *vars)
{
    const char *t = NULL;
    for (const char *const *v = vars; v && v[0]; v += 2) {
        char *end;
        unsigned long n = v[1] ? strtoul(v[1], &end, 10) : 0;
        if (strcmp(v[0], "count") == 0 && v[1] && end != v[1] && *end == '\0')
            t = catalog_plural(lang, key, n);
    }
    if (!t)
        t = catalog_text(lang, key);
    fill(out, len, t ? t : key, vars);
}

const char *text_name(const char *lang, const char *family, const char *id)
{
    char key[96];
    snprintf(key, sizeof key, "%s.%s", family, id);
    const char *t = catalog_text(lang, key);
    return t ? t : id;
}

void text_tenths(char *out, size_t len, const char *lang, long long tenths)
{
    char whole[32];
    const char *sep = catalog_text(lang, "format.decimal");
    unsigned long long a =
        tenths < 0 ? 0ULL - (unsigned long long)tenths : (unsigned long long)tenths;
    text_number(whole, sizeof whole, lang, (long long)(a / 10));
    snprintf(out, len, "%s%s%s%llu", tenths < 0 ? "-" : "", whole, sep ? sep : ".", a % 10);
}

void text_languages(char *out, size_t len)
{
    struct text_list l;
    const char *code;
    text_list_init(&l, out, len, ", ");
    for (size_t i = 0; (code = catalog_language_at(i)); i++)
        text_list_add(&l, "%s (%s)", code, catalog_text(code, "language.name"));
}

void text_number(char *out, size_t len, const char *lang, long long v)
{
    char digits[32];
    const char *sep = catalog_text(lang, "format.thousands");
    size_t nd = (size_t)snprintf(digits, sizeof digits, "%llu",
                                 v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
    struct text_list l;
    text_list_init(&l, out, len, "");
    if (v < 0)
        text_list_add(&l, "-");
    for (size_t i = 0; i < nd; i++) {
        if (i > 0 && (nd - i) % 3 == 0) /* every three digits from the right */
            text_list_add(&l, "%s", sep ? sep : ",");
        text_list_add(&l, "%c", digits[i]);
    }
}

void text_time(char *out, size_t len, int64_t ms)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    if (len == 0)
        return;
    out[0] = '\0';
    if (gmtime_r(&t, &tm) != NULL)
        strftime(out, len, "%Y-%m-%d %H:%M UTC", &tm);
}

/* Writes "{a} unit {b} unit" (key2) or "{a} unit" (key1, when b is 0). */
static void two_units(char *out, size_t len, const char *lang, const char *key1, const char *key2,
                      long long a, long long b)
{
    char na[32], nb[32];
    text_number(na, sizeof na, lang, a);
    text_number(nb, sizeof nb, lang, b);
    const char *vars[] = {"a", na, "b", nb, NULL};
    text_fill(out, len, lang, b ? key2 : key1, vars);
}

void text_duration(char *out, size_t len, const char *lang, int64_t ms)
{
    long long s = (ms + 999) / 1000;
    if (s >= 24 * 3600) {
        long long h = (s + 3599) / 3600;
        two_units(out, len, lang, "time.days", "time.days-hours", h / 24, h % 24);
    } else if (s >= 3600) {
        long long m = (s + 59) / 60;
        two_units(out, len, lang, "time.hours", "time.hours-minutes", m / 60, m % 60);
    } else if (s >= 60) {
        two_units(out, len, lang, "time.minutes", "time.minutes-seconds", s / 60, s % 60);
    } else {
        two_units(out, len, lang, "time.seconds", "time.seconds", s, 0);
    }
}

int64_t text_parse_duration(const char *s, int64_t bare_ms)
{
    static const struct {
        const char *unit;
        int64_t ms;
    } units[] = {
        {"", 0},          {"s", 1000},       {"sec", 1000},
        {"second", 1000}, {"seconds", 1000}, {"m", 60000},
        {"min", 60000},   {"minute", 60000}, {"minutes", 60000},
        {"h", 3600000},   {"hour", 3600000}, {"hours", 3600000},
        {"d", 86400000},  {"day", 86400000}, {"days", 86400000},
    };
    char *end;
    if (*s < '0' || *s > '9')
        return -1;
    long long v = strtoll(s, &end, 10);
    while (*end == ' ')
        end++;
    size_t n = strlen(end);
    while (n && end[n - 1] == ' ')
        n--;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        if (strlen(units[i].unit) != n || strncasecmp(end, units[i].unit, n) != 0)
            continue;
        int64_t unit = units[i].ms ? units[i].ms : bare_ms;
        if (v <= 0 || v > TEXT_DURATION_MAX_MS / unit)
            return -1;
        return (int64_t)v * unit;
    }
    return -1;
}

void text_list_init(struct text_list *l, char *out, size_t len, const char *sep)
{
    *l = (struct text_list){.out = out, .len = len, .sep = sep};
    out[0] = '\0';
}

void text_list_add(struct text_list *l, const char *fmt, ...)
{
    if (l->full)
        return;
    size_t start = l->n;
    if (start) {
        size_t s = strlen(l->sep);
        if (s >= l->len - start)
            goto full;
        memcpy(l->out + start, l->sep, s + 1);
        start += s;
    }
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(l->out + start, l->len - start, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= l->len - start)
        goto full;
    l->n = start + (size_t)w;
    return;
full:
    l->out[l->n] = '\0'; /* nothing of the item that did not fit */
    l->full = true;
}
