/*
 * log.c - line-oriented logging to stderr or a reopenable file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "log.h"

static enum log_level min_level = LOG_INFO;
static FILE *log_file;
static char *log_path;

static const char *const level_names[] = {"debug", "info", "warn", "error"};

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

void log_close(void)
{
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
    struct timespec ts;
    struct tm tm;
    char stamp[32];
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", &tm);

    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* One fprintf per line keeps lines whole when several writers share a file. */
    fprintf(out, "%s.%03ldZ %-5s %s%s%s %s\n", stamp, ts.tv_nsec / 1000000, level_names[level],
            module, game ? " game=" : "", game ? game : "", msg);
}
