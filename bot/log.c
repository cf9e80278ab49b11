/*
 * log.c - line-oriented logging to stderr or a reopenable file.
 *
 * A line identical to the one before it (same level, module, game and text)
 * is counted instead of written, and the count is written as one line when a
 * different line comes, or every LOG_REPEAT_SECONDS while the repeats go on:
 * a library stuck on one error cannot fill the disk.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"
#include "util/clock.h"

static enum log_level min_level = LOG_INFO;
static FILE *log_file;
static char *log_path;

#define LOG_REPEAT_SECONDS 10 /* how often a run of identical lines reports its count */

static const char *const level_names[] = {"debug", "info", "warn", "error"};

/* The last line written (without its time) and how many identical ones followed it. */
static struct {
    char body[1200];
    enum log_level level;
    char module[32];
    unsigned long count;
    time_t since; /* when the count was last written, or the line itself */
} last;

int log_level_parse(const char *name)
{
    for (int i = 0; i < 4; i++)
        if (name && strcmp(name, level_names[i]) == 0)
            return i;
    return -1;
}

void log_set_level(enum log_level level)
{
    min_level = level;
}

int log_open(const char *path)
{
    if (!path || !*path) {
        log_close();
        return 0;
    }
    FILE *f = fopen(path, "a");
    if (!f)
        return -1;
    char *copy = strdup(path);
    if (!copy) {
        fclose(f);
        return -1;
    }
    log_close();
    setvbuf(f, NULL, _IOLBF, 0);
    log_file = f;
    log_path = copy;
    return 0;
}

int log_reopen(void)
{
    if (!log_path)
        return 0;
    FILE *f = fopen(log_path, "a");
    if (!f)
        return -1;
    setvbuf(f, NULL, _IOLBF, 0);
    fclose(log_file);
    log_file = f;
    return 0;
}

/* Writes the time now into stamp and returns its seconds since the epoch. */
static time_t stamp_now(char *stamp, size_t len)
{
    uint64_t ms = clock_wall_ms();
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    char day[32];
    gmtime_r(&secs, &tm);
    strftime(day, sizeof day, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(stamp, len, "%s.%03uZ", day, (unsigned)(ms % 1000));
    return secs;
}

/* Writes how many times the last line repeated since it was last reported, if any. */
static void flush_repeats(FILE *out, const char *stamp, time_t now)
{
    if (last.count == 0)
        return;
    fprintf(out, "%s %-5s %s last line repeated %lu times\n", stamp, level_names[last.level],
            last.module, last.count);
    last.count = 0;
    last.since = now;
}

void log_close(void)
{
    if (last.count > 0) {
        char stamp[48];
        time_t now = stamp_now(stamp, sizeof stamp);
        flush_repeats(log_file ? log_file : stderr, stamp, now);
    }
    last.body[0] = '\0';
    if (log_file)
        fclose(log_file);
    log_file = NULL;
    free(log_path);
    log_path = NULL;
}

void log_write(enum log_level level, const char *module, const char *game, const char *fmt, ...)
{
    if (level < min_level)
        return;
    FILE *out = log_file ? log_file : stderr;
    char stamp[48];
    time_t now = stamp_now(stamp, sizeof stamp);

    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char body[sizeof last.body];
    snprintf(body, sizeof body, "%-5s %s%s%s %s", level_names[level], module, game ? " game=" : "",
             game ? game : "", msg);
    if (last.body[0] && strcmp(body, last.body) == 0) {
        last.count++;
        if (now - last.since >= LOG_REPEAT_SECONDS)
            flush_repeats(out, stamp, now);
        return;
    }
    flush_repeats(out, stamp, now);
    memcpy(last.body, body, sizeof body);
    last.level = level;
    snprintf(last.module, sizeof last.module, "%s", module);
    last.since = now;
    /* One fprintf per line keeps lines whole when several writers share a file. */
    fprintf(out, "%s %s\n", stamp, body);
}
