/*
 * util.h - small helpers shared by the Discord adapter and its test server:
 * a string-keyed hash map, a growable byte buffer, a monotonic clock.
 */
#ifndef DISCORD_UTIL_H
#define DISCORD_UTIL_H

#include <stdbool.h>
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

/*
 * Type-checked reads of JSON from Discord: each returns NULL, 0 or the
 * default when o is not an object (or array), the field is missing or it has
 * another type, so no json-c call that asserts on a wrong type is ever
 * reached with one. Results are borrowed from o.
 */
struct json_object;
struct json_object *dj_get(struct json_object *o, const char *key);  /* any type */
struct json_object *dj_obj(struct json_object *o, const char *key);  /* an object */
struct json_object *dj_arr(struct json_object *o, const char *key);  /* an array */
const char *dj_str(struct json_object *o, const char *key);          /* a string */
int64_t dj_int(struct json_object *o, const char *key, int64_t def); /* an integer */
double dj_num(struct json_object *o, const char *key, double def);   /* an integer or a double */
bool dj_bool(struct json_object *o, const char *key);                /* true only for true */
size_t dj_len(struct json_object *arr);                              /* 0 unless an array */
struct json_object *dj_at(struct json_object *arr, size_t i);        /* NULL past the end */
const char *dj_str_at(struct json_object *arr, size_t i);            /* a string element */
/* o itself when it is an object, else NULL. */
struct json_object *dj_as_obj(struct json_object *o);

/* Milliseconds on a monotonic clock. */
uint64_t dc_now_ms(void);
/* Milliseconds since the Unix epoch. */
uint64_t dc_wall_ms(void);
/* A random double in [0, 1). */
double dc_random(void);

#endif
