/*
 * util.h - small helpers shared by the Discord adapter and its test server:
 * a string-keyed hash map, a growable byte buffer, a monotonic clock.
 */
#ifndef DISCORD_UTIL_H
#define DISCORD_UTIL_H

#include <stddef.h>
#include <stdint.h>

struct dmap_entry {
    struct dmap_entry *next;
    char *key;
    void *val;
};

/* Separate chaining; keys are copied, values are borrowed. */
struct dmap {
    struct dmap_entry **slots;
    size_t nslots;
    size_t count;
};

void dmap_init(struct dmap *m);
/* Frees the table and the keys; calls free_val on each value when not NULL. */
void dmap_clear(struct dmap *m, void (*free_val)(void *));
void *dmap_get(const struct dmap *m, const char *key);
/* Sets key to val; the previous value goes to *old (when old is not NULL). Returns 0 or -1. */
int dmap_put(struct dmap *m, const char *key, void *val, void **old);
/* Removes key, returning its value or NULL. */
void *dmap_del(struct dmap *m, const char *key);
/* Calls fn on each entry; fn may not modify the map. */
void dmap_each(const struct dmap *m, void (*fn)(const char *key, void *val, void *arg), void *arg);

struct dbuf {
    char *data;
    size_t len;
    size_t cap;
};

/* Appends n bytes (keeps a NUL after them). Returns 0, or -1 on no memory. */
int dbuf_add(struct dbuf *b, const void *p, size_t n);
int dbuf_printf(struct dbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void dbuf_free(struct dbuf *b);

/* Milliseconds on a monotonic clock. */
uint64_t dc_now_ms(void);
/* Milliseconds since the Unix epoch. */
uint64_t dc_wall_ms(void);
/* A random double in [0, 1). */
double dc_random(void);

#endif
