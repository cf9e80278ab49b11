/*
 * log.h - one line per event: time, level, module, game id, message.
 *
 * Lines go to stderr, or to a file that log_reopen() reopens (on SIGHUP, for
 * log rotation). Never pass a secret to these functions.
 *
 * A run of identical lines is written once, then as one "last line repeated N
 * times" line when another line comes, every 10 seconds while the run lasts,
 * and at log_close().
 */
#ifndef BOT_LOG_H
#define BOT_LOG_H

#include "util/util.h"

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

/* Parses "debug", "info", "warn" or "error". Returns the level, or -1. */
int log_level_parse(const char *name);

/* Sets the lowest level that is written (default LOG_INFO). */
void log_set_level(enum log_level level);

/* Sends lines to path (NULL or "": stderr). Returns 0, or -1 if it cannot be
 * opened; the previous destination then stays. Call again to reopen. */
int log_open(const char *path) MUST_USE;

/* Reopens the current log file, for SIGHUP. Returns 0 or -1. */
int log_reopen(void) MUST_USE;

/* Writes the count of a pending run of repeats, then closes the log file, if
 * any; lines then go to stderr. */
void log_close(void);

/* Writes one line. module is a short name ("store", "discord"); game may be NULL. */
void log_write(enum log_level level, const char *module, const char *game, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#define log_debug(mod, game, ...) log_write(LOG_DEBUG, mod, game, __VA_ARGS__)
#define log_info(mod, game, ...)  log_write(LOG_INFO, mod, game, __VA_ARGS__)
#define log_warn(mod, game, ...)  log_write(LOG_WARN, mod, game, __VA_ARGS__)
#define log_error(mod, game, ...) log_write(LOG_ERROR, mod, game, __VA_ARGS__)

#endif
