/*
 * matrix.h - the Matrix platform: a bot account on any homeserver, spoken to
 * with the client-server API (libcurl on the daemon's libuv loop).
 *
 * Tables are the rooms the bot is in; private messages go to a direct room
 * the bot creates for each player and records in its m.direct account data.
 * Sync tokens, the outbox and message ids are kept through host->state_get
 * and state_set, so a restart neither replays old commands nor doubles a
 * message.
 */
#ifndef ADAPTERS_MATRIX_MATRIX_H
#define ADAPTERS_MATRIX_MATRIX_H

#include <stddef.h>

struct config;
struct platform;
struct platform_host;

/*
 * Creates the adapter from the [matrix] settings (matrix_homeserver must be
 * set, and an access token or a user id with a password). Returns NULL with
 * a reason in err. Nothing is sent before ops->start().
 *
 * destroy() closes libuv handles: run the loop once more afterwards
 * (uv_run(loop, UV_RUN_DEFAULT)) so their memory is released.
 */
struct platform *matrix_platform_new(const struct config *cfg, const struct platform_host *host,
                                     char *err, size_t errlen);

#endif
