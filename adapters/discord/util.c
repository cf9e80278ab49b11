/*
 * util.c - hash map, byte buffer and clocks for the Discord adapter.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "util.h"

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

void dmap_init(struct dmap *m)
{
    m->slots = NULL;
    m->nslots = 0;
    m->count = 0;
}

void dmap_clear(struct dmap *m, void (*free_val)(void *))
{
    for (size_t i = 0; i < m->nslots; i++) {
        struct dmap_entry *e = m->slots[i];
        while (e) {
            struct dmap_entry *next = e->next;
            if (free_val)
                free_val(e->val);
            free(e->key);
            free(e);
            e = next;
        }
    }
    free(m->slots);
    dmap_init(m);
}

static struct dmap_entry **find(const struct dmap *m, const char *key)
{
    if (!m->nslots)
        return NULL;
    struct dmap_entry **pe = &m->slots[hash_str(key) % m->nslots];
    while (*pe && strcmp((*pe)->key, key) != 0)
        pe = &(*pe)->next;
    return pe;
}

void *dmap_get(const struct dmap *m, const char *key)
{
    struct dmap_entry **pe = find(m, key);
    return pe && *pe ? (*pe)->val : NULL;
}

static int grow(struct dmap *m)
{
    size_t n = m->nslots ? m->nslots * 2 : 64;
    struct dmap_entry **slots = calloc(n, sizeof(*slots));
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->nslots; i++) {
        struct dmap_entry *e = m->slots[i];
        while (e) {
            struct dmap_entry *next = e->next;
            size_t h = hash_str(e->key) % n;
            e->next = slots[h];
            slots[h] = e;
            e = next;
        }
    }
    free(m->slots);
    m->slots = slots;
    m->nslots = n;
    return 0;
}

int dmap_put(struct dmap *m, const char *key, void *val, void **old)
{
    if (old)
        *old = NULL;
    if ((m->count + 1) * 2 > m->nslots && grow(m) < 0)
        return -1;
    struct dmap_entry **pe = find(m, key);
    if (*pe) {
        if (old)
            *old = (*pe)->val;
        (*pe)->val = val;
        return 0;
    }
    struct dmap_entry *e = malloc(sizeof(*e));
    if (!e)
        return -1;
    e->key = strdup(key);
    if (!e->key) {
        free(e);
        return -1;
    }
    e->val = val;
    e->next = NULL;
    *pe = e;
    m->count++;
    return 0;
}

void *dmap_del(struct dmap *m, const char *key)
{
    struct dmap_entry **pe = find(m, key);
    if (!pe || !*pe)
        return NULL;
    struct dmap_entry *e = *pe;
    void *val = e->val;
    *pe = e->next;
    free(e->key);
    free(e);
    m->count--;
    return val;
}

void dmap_each(const struct dmap *m, void (*fn)(const char *key, void *val, void *arg), void *arg)
{
    for (size_t i = 0; i < m->nslots; i++)
        for (struct dmap_entry *e = m->slots[i]; e; e = e->next)
            fn(e->key, e->val, arg);
}

static int dbuf_reserve(struct dbuf *b, size_t n)
{
    if (b->len + n + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1)
        cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d)
        return -1;
    b->data = d;
    b->cap = cap;
    return 0;
}

int dbuf_add(struct dbuf *b, const void *p, size_t n)
{
    if (dbuf_reserve(b, n) < 0)
        return -1;
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return 0;
}

int dbuf_printf(struct dbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || dbuf_reserve(b, (size_t)n) < 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return 0;
}

void dbuf_free(struct dbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

uint64_t dc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t dc_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

double dc_random(void)
{
    /* xorshift64*, seeded once from the clock: jitter only, never secrets */
    static uint64_t state;
    if (!state) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        state = ((uint64_t)ts.tv_sec << 32) ^ (uint64_t)ts.tv_nsec ^ 0x9e3779b97f4a7c15ull;
    }
    state ^= state >> 12;
    state ^= state << 25;
    state ^= state >> 27;
    return (double)((state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

struct json_object *dj_get(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
        return NULL;
    return v;
}

struct json_object *dj_as_obj(struct json_object *o)
{
    return o && json_object_is_type(o, json_type_object) ? o : NULL;
}

struct json_object *dj_obj(struct json_object *o, const char *key)
{
    return dj_as_obj(dj_get(o, key));
}

struct json_object *dj_arr(struct json_object *o, const char *key)
{
    struct json_object *v = dj_get(o, key);
    return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

const char *dj_str(struct json_object *o, const char *key)
{
    struct json_object *v = dj_get(o, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

int64_t dj_int(struct json_object *o, const char *key, int64_t def)
{
    struct json_object *v = dj_get(o, key);
    return v && json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : def;
}

double dj_num(struct json_object *o, const char *key, double def)
{
    struct json_object *v = dj_get(o, key);
    if (v && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
        return json_object_get_double(v);
    return def;
}

bool dj_bool(struct json_object *o, const char *key)
{
    struct json_object *v = dj_get(o, key);
    return v && json_object_is_type(v, json_type_boolean) && json_object_get_boolean(v);
}

size_t dj_len(struct json_object *arr)
{
    return arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

struct json_object *dj_at(struct json_object *arr, size_t i)
{
    return i < dj_len(arr) ? json_object_array_get_idx(arr, i) : NULL;
}

const char *dj_str_at(struct json_object *arr, size_t i)
{
    struct json_object *v = dj_at(arr, i);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}
