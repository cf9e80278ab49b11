/*
 * text.c - catalog texts with their values filled in, durations and times.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "catalog.h"
#include "text.h"

void text_fill(char *out, size_t len, const char *lang, const char *key, const char *const *vars)
{
    const char *t = catalog_text(lang, key);
    size_t n = 0;
    if (!t)
        t = key;
    while (*t && n + 1 < len) {
        if (*t == '{') {
            const char *close = strchr(t, '}');
            bool done = false;
            for (const char *const *v = vars; close && v && v[0]; v += 2) {
                if (strlen(v[0]) == (size_t)(close - t - 1) &&
                    strncmp(t + 1, v[0], strlen(v[0])) == 0) {
                    int w = snprintf(out + n, len - n, "%s", v[1] ? v[1] : "");
                    if (w < 0)
                        w = 0;
                    n = (size_t)w < len - n ? n + (size_t)w : len - 1;
                    t = close + 1;
                    done = true;
                    break;
                }
            }
            if (done)
                continue;
        }
        out[n++] = *t++;
    }
    out[n] = '\0';
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

void text_duration(char *out, size_t len, const char *lang, int64_t ms)
{
    int64_t s = (ms + 999) / 1000;
    char num[32];
    if (s >= 3600 && s % 60 == 0) {
        snprintf(num, sizeof num, "%lld", (long long)(s / 3600));
        char min[32];
        snprintf(min, sizeof min, "%lld", (long long)(s % 3600 / 60));
        const char *vars[] = {"h", num, "m", min, NULL};
        text_fill(out, len, lang, s % 3600 ? "time.hours-minutes" : "time.hours", vars);
    } else if (s >= 60 && s % 60 == 0) {
        snprintf(num, sizeof num, "%lld", (long long)(s / 60));
        const char *vars[] = {"n", num, NULL};
        text_fill(out, len, lang, "time.minutes", vars);
    } else if (s >= 60) {
        char sec[32];
        snprintf(num, sizeof num, "%lld", (long long)(s / 60));
        snprintf(sec, sizeof sec, "%lld", (long long)(s % 60));
        const char *vars[] = {"m", num, "s", sec, NULL};
        text_fill(out, len, lang, "time.minutes-seconds", vars);
    } else {
        snprintf(num, sizeof num, "%lld", (long long)s);
        const char *vars[] = {"n", num, NULL};
        text_fill(out, len, lang, "time.seconds", vars);
    }
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
