/*
 * fuzz_store.h - the platform host's state store for the web adapter's fuzz
 * targets: a JSON object in memory, made afresh for each input.
 */
#ifndef TESTS_WEB_FUZZ_STORE_H
#define TESTS_WEB_FUZZ_STORE_H

struct json_object;
struct platform;

/* The store of the input being run (the target makes and puts it). */
extern struct json_object *fuzz_state;

/* platform_host.state_get, state_set and state_del over fuzz_state. */
char *fuzz_state_get(void *ctx, struct platform *p, const char *key);
int fuzz_state_set(void *ctx, struct platform *p, const char *key, const char *value);
int fuzz_state_del(void *ctx, struct platform *p, const char *key);

#endif
