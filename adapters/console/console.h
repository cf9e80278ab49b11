/*
 * console.h - the console platform: JSON lines on stdin and stdout.
 *
 * A real platform like the others, used for tests, demos and bug reports.
 * The line format is documented in the README ("Console platform").
 */
#ifndef ADAPTERS_CONSOLE_H
#define ADAPTERS_CONSOLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/platform.h"

struct console_options {
    int in_fd;  /* where events are read, usually 0 */
    int out_fd; /* where messages are written, usually 1 */
    /* Moves the virtual clock; NULL when time is real (then "advance" is refused). */
    void (*advance)(void *arg, int64_t ms);
    /* Called once at end of input, after the last line was handled. */
    void (*eof)(void *arg);
    void *arg;
};

/* Creates the console platform. Returns NULL on no memory. */
struct platform *console_platform_new(const struct platform_host *host,
                                      const struct console_options *o);

/*
 * Handles n bytes of input exactly as if they had been read from in_fd: each
 * complete line is handled in order; with `end`, so is a last line that has
 * no newline (as at end of input). The reading side uses it, and so does the
 * console_line fuzz target, which has no file descriptor to read.
 */
void console_input(struct platform *p, const char *data, size_t n, bool end);

#endif
