/*
 * fuzz_web.h - what the web adapter's fuzz targets share: the platform host's
 * state store (a JSON object in memory, made afresh for each input) and the
 * run of one input's frames through the adapter's message handler.
 */
#ifndef TESTS_WEB_FUZZ_WEB_H
#define TESTS_WEB_FUZZ_WEB_H

#include <stddef.h>
#include <stdint.h>

struct json_object;
struct platform;
struct web;

/* The store of the input being run (the target makes and puts it). */
extern struct json_object *fuzz_state;

/* platform_host.state_get, state_set and state_del over fuzz_state. */
char *fuzz_state_get(void *ctx, struct platform *p, const char *key);
int fuzz_state_set(void *ctx, struct platform *p, const char *key, const char *value);
int fuzz_state_del(void *ctx, struct platform *p, const char *key);

/*
 * Feeds data's frames (separated by newlines) in order to two sockets of w,
 * one frame each in turn, calling each (may be NULL) after the n-th frame;
 * then one socket leaves as a closed one does and the other is dropped.
 * No socket is opened: output is queued and the sockets are only marked.
 */
void fuzz_web_frames(struct web *w, const uint8_t *data, size_t size, void (*each)(unsigned n));

#endif
