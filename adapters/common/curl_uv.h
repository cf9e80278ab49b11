/*
 * curl_uv.h - libcurl's multi interface, driven by the daemon's libuv loop.
 *
 * The REST clients of the Discord and Matrix adapters share it: they build
 * easy handles as they like, add them here, and are called back once each
 * transfer is over. Sockets are watched with uv_poll and curl's timeouts run
 * on a uv_timer, so no thread and no second loop are needed.
 */
#ifndef ADAPTERS_CURL_UV_H
#define ADAPTERS_CURL_UV_H

#include <curl/curl.h>

#include "bot/util/util.h"

struct uv_loop_s;
struct curl_uv;

/* Called once a transfer is over, after its handle left the multi handle:
 * the caller owns `easy` again (and cleans it up). It may add or remove other
 * transfers, or call curl_uv_free(). */
typedef void (*curl_uv_done_fn)(void *arg, CURL *easy, CURLcode result);

/* Creates a driver on loop (initialising libcurl once per process). NULL on failure. */
struct curl_uv *curl_uv_new(struct uv_loop_s *loop);

/* Starts a transfer. The driver borrows `easy` until done is called or the
 * transfer is removed; it sets CURLOPT_PRIVATE and CURLOPT_CLOSESOCKETFUNCTION
 * and their data, which callers must leave alone.
 * Returns 0, or -1 when curl refused the handle (done is then not called). */
int curl_uv_add(struct curl_uv *c, CURL *easy, curl_uv_done_fn done, void *arg) MUST_USE;

/* Stops a transfer that is not over; done is never called for it. */
void curl_uv_remove(struct curl_uv *c, CURL *easy);

/* Lets curl open at most n connections to one host, and keep n open between
 * requests (CURLMOPT_MAX_HOST_CONNECTIONS, CURLMOPT_MAXCONNECTS): by default
 * the cache only holds four per transfer under way, so a burst that ends
 * closes the connections the next burst needs. */
void curl_uv_keep_connections(struct curl_uv *c, long n);

/* Lets curl act on new transfers now rather than on a later turn of the loop,
 * for callers that must know a request left when they counted it. Transfers
 * that end at once are reported as usual. */
void curl_uv_kick(struct curl_uv *c);

/* Transfers running now. */
unsigned curl_uv_running(const struct curl_uv *c);

/* Removes every transfer (without callbacks: their owners clean up their easy
 * handles) and closes the loop handles; the memory is released once the loop
 * has run their close callbacks. c may be NULL. */
void curl_uv_free(struct curl_uv *c);

#endif
