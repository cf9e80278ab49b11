/*
 * fuzz_host.c - a fresh store and dispatcher for each fuzz run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/dispatcher.h"
#include "bot/log.h"
#include "bot/store.h"
#include "fuzz_host.h"

static char dir[64];

static void remove_store(void)
{
    static const char *const suffixes[] = {"", "-wal", "-shm", "-journal", "-lock"};
    char path[128];
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        snprintf(path, sizeof path, "%s/store.db%s", dir, suffixes[i]);
        unlink(path);
    }
}

static void cleanup(void)
{
    remove_store();
    rmdir(dir);
}

void fuzz_host_setup(const char *name)
{
    log_set_level(getenv("FUZZ_LOG") ? LOG_DEBUG : LOG_ERROR);
    snprintf(dir, sizeof dir, "%s/illegald-fuzz-%s-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp", name);
    if (!mkdtemp(dir)) {
        perror("fuzz_host: mkdtemp");
        abort();
    }
    atexit(cleanup);
}

void fuzz_host_config(struct fuzz_host *h)
{
    memset(h, 0, sizeof *h);
    if (config_init(&h->config) < 0)
        abort();
}

void fuzz_host_set(char **field, const char *value)
{
    free(*field);
    *field = strdup(value);
    if (!*field)
        abort();
}

void fuzz_host_store_path(char *path, size_t len)
{
    snprintf(path, len, "%s/store.db", dir);
}

void fuzz_host_open(struct fuzz_host *h)
{
    char path[128], err[512] = "cannot make a loop";
    fuzz_host_store_path(path, sizeof path);
    if (uv_loop_init(&h->loop) < 0 || store_open(&h->store, path, err, sizeof err) < 0) {
        fprintf(stderr, "fuzz_host: %s\n", err);
        abort();
    }
    struct dispatcher_options o = {.config = &h->config,
                                   .store = h->store,
                                   .loop = &h->loop,
                                   .virtual_time = true,
                                   .seeded = true,
                                   .seed = 1};
    if (dispatcher_new(&h->d, &o, err, sizeof err) < 0) {
        fprintf(stderr, "fuzz_host: %s\n", err);
        abort();
    }
}

void fuzz_host_close(struct fuzz_host *h)
{
    dispatcher_stop(h->d);
    dispatcher_free(h->d);
    store_close(h->store);
    uv_run(&h->loop, UV_RUN_DEFAULT); /* the adapters' handles finish closing */
    uv_loop_close(&h->loop);
    config_free(&h->config);
    remove_store();
}
