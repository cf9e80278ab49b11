/*
 * fuzz_host.h - what a fuzz target that drives the bot needs for each run: a
 * fresh store and a dispatcher in virtual time with a fixed seed, built as the
 * daemon builds them, and removed afterwards so runs do not see each other.
 */
#ifndef TESTS_FUZZ_HOST_H
#define TESTS_FUZZ_HOST_H

#include <stddef.h>
#include <uv.h>

#include "bot/config.h"

struct store;
struct dispatcher;

struct fuzz_host {
    struct config config;
    struct store *store;
    struct dispatcher *d;
    uv_loop_t loop;
};

/* Once, from LLVMFuzzerInitialize(): quiets the log (bad input is logged as
 * it should be) and makes the directory the stores live in, on tmpfs when
 * there is one; it is removed at exit. `name` names the directory. */
void fuzz_host_setup(const char *name);

/* The path of the store fuzz_host_open() opens, into path (len bytes). */
void fuzz_host_store_path(char *path, size_t len);

/* Loads the default settings into h->config, to be changed before
 * fuzz_host_open(). Aborts on failure. */
void fuzz_host_config(struct fuzz_host *h);

/* Replaces a string setting of h->config (the config owns its strings). */
void fuzz_host_set(char **field, const char *value);

/* Opens a fresh store and a dispatcher on h->config. Aborts on failure: a
 * fuzz run without them tests nothing. */
void fuzz_host_open(struct fuzz_host *h);

/* Stops and frees the dispatcher (and the platforms added to it), closes the
 * store, the loop and the config, and removes the store's files. */
void fuzz_host_close(struct fuzz_host *h);

#endif
