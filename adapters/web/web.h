/*
 * web.h - the local table: a platform that serves the game's page over HTTP
 * and talks to browsers over a websocket, on the host's libuv loop.
 *
 * The page, its styles and its script are compiled into the binary, so the
 * daemon finds them wherever it runs. The wire protocol is documented in
 * adapters/web/README.md.
 *
 * Lifecycle: web_platform_new() checks the settings; ops->start() binds the
 * listening socket (port 0 picks a free port, logged and returned by
 * web_platform_port()); ops->stop() closes every connection and asks
 * libwebsockets to release its loop handles, which it finishes while the loop
 * keeps running (run the loop until it is empty before uv_loop_close());
 * ops->destroy() frees the adapter.
 */
#ifndef ADAPTERS_WEB_WEB_H
#define ADAPTERS_WEB_WEB_H

#include <stddef.h>

struct config;
struct platform;
struct platform_host;

/*
 * Makes the web platform from cfg's [web] settings: bind, port, the Host
 * names allowed and the limits (copied; cfg may be freed afterwards).
 * Returns the platform, or NULL with a reason in err.
 */
struct platform *web_platform_new(const struct config *cfg, const struct platform_host *host,
                                  char *err, size_t errlen);

struct activity_link;
/* Serves the Discord Activity from this listener: fills the web side of l,
 * whose Discord side discord_activity_link() filled (nothing when it did not).
 * Before start(). Returns 0, or -1 (logged) when this build cannot serve it:
 * it has no Embedded App SDK for the page. */
int web_activity_link(struct platform *p, struct activity_link *l);

/* The TCP port the platform listens on once started, or -1 before start(). */
int web_platform_port(struct platform *p);

#endif
