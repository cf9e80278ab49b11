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

/*
 * Hands one /sync answer body to a constructed (not started) adapter as if the
 * homeserver had sent it after the stored sync token, through the same code
 * as a real answer: for the fuzz target and the replay of recorded answers.
 * What it leads to (sends, joins, gap fills) is queued on the loop and never
 * reaches a server unless the loop runs. Returns 0, or -1 if body is not a
 * JSON object with a next_batch.
 */
int matrix_feed_sync(struct platform *p, const char *body, size_t len);

#endif
