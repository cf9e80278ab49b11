/*
 * util.h - what the Discord adapter's files share: the utility library
 * (bot/util/), a random number for jitter, and the names the adapter used
 * before that library existed.
 */
#ifndef DISCORD_UTIL_H
#define DISCORD_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/util/buf.h"
#include "bot/util/clock.h"
#include "bot/util/json.h"
#include "bot/util/map.h"

/* A random double in [0, 1), for jitter only: never for secrets. */
double dc_random(void);

/*
 * The adapter's former names, kept only for interactions.c until it moves to
 * bot/util: each is the library's function under the old name.
 *
 * struct dbuf is a buffer set to {0} by its user, which struct buf cannot be
 * (it needs its cap); these appends build a struct buf around it with the cap
 * DC_DBUF_MAX, so it is capped and never keeps half an append like any other.
 */
#define DC_DBUF_MAX (64u << 10) /* a command line or a component value list */

struct dbuf {
    char *data;
    size_t len;
    size_t cap;
};

/* buf_printf on b. Returns 0, or -1 (b unchanged) past DC_DBUF_MAX or without memory. */
int dbuf_printf(struct dbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* buf_free on b. */
void dbuf_free(struct dbuf *b);

static inline struct json_object *dj_get(struct json_object *o, const char *key)
{
    return jget(o, key);
}
static inline struct json_object *dj_obj(struct json_object *o, const char *key)
{
    return jget_obj(o, key);
}
static inline struct json_object *dj_arr(struct json_object *o, const char *key)
{
    return jget_arr(o, key);
}
static inline const char *dj_str(struct json_object *o, const char *key)
{
    return jget_str(o, key);
}
static inline int64_t dj_int(struct json_object *o, const char *key, int64_t def)
{
    return jget_int64_or(o, key, def);
}
static inline bool dj_bool(struct json_object *o, const char *key)
{
    return jget_true(o, key);
}
static inline size_t dj_len(struct json_object *arr)
{
    return jarr_len(arr);
}
static inline struct json_object *dj_at(struct json_object *arr, size_t i)
{
    return jarr_at(arr, i);
}
static inline const char *dj_str_at(struct json_object *arr, size_t i)
{
    return jarr_str(arr, i);
}
static inline struct json_object *dj_as_obj(struct json_object *o)
{
    return jobj(o);
}
static inline void *dmap_get(const struct map *m, const char *key)
{
    return map_get(m, key);
}
static inline int dmap_put(struct map *m, const char *key, void *val, void **old)
{
    return map_put(m, key, val, old);
}
static inline void *dmap_del(struct map *m, const char *key)
{
    return map_del(m, key);
}
static inline void dmap_each(const struct map *m, void (*fn)(const char *key, void *val, void *arg),
                             void *arg)
{
    map_each(m, fn, arg);
}
static inline uint64_t dc_now_ms(void)
{
    return clock_mono_ms();
}

#endif
