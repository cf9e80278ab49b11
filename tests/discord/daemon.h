/*
 * daemon.h - the real illegald as a child process of a test, configured for
 * the Discord test server running in the test process.
 */
#ifndef DISCORD_DAEMON_H
#define DISCORD_DAEMON_H

#include <stdbool.h>
#include <sys/types.h>

#include "fakediscord.h"

struct daemon {
    const char *path; /* build/bin/illegald */
    char dir[64];     /* a temporary directory: config, store, log */
    char conf[128], log[128];
    pid_t pid;
};

/*
 * Makes the directory and writes a config for srv: [store] in the directory,
 * [discord] token/application_id/api_url/gateway_url/guilds, compression on
 * or off as srv's seed says (so the end-to-end tests read both), and the [game]
 * timers given as INI lines in game (for example "session_seconds = 600\n").
 */
void daemon_setup(struct daemon *d, const char *path, struct fd_server *srv, const char *game);
/* daemon_setup() with more [discord] lines (for example "message_content = off\n"). */
void daemon_setup_with(struct daemon *d, const char *path, struct fd_server *srv, const char *game,
                       const char *discord);
/* Starts the daemon (--seed seed when not NULL), stderr going to the log. */
void daemon_start(struct daemon *d, const char *seed);
/* daemon_start() with one more option (NULL: none), "--register-commands". */
void daemon_start_with(struct daemon *d, const char *seed, const char *option);
/* Sends sig, waits up to timeout_ms (then SIGKILL); returns the exit status,
 * or 128 + the signal that ended it. */
int daemon_stop(struct daemon *d, int sig, int timeout_ms);
/* The daemon's peak resident set (VmHWM) in kB, or -1. */
long daemon_peak_rss_kb(const struct daemon *d);
void daemon_dump_log(const struct daemon *d);
/* How long its log is now, in bytes; whether text is in it from byte from on. */
long daemon_log_size(const struct daemon *d);
bool daemon_log_has(const struct daemon *d, long from, const char *text);
/* Stops it if running and removes the directory. */
void daemon_cleanup(struct daemon *d);

#endif
