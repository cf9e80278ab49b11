/*
 * map.c - string-keyed hash map: FNV-1a, separate chaining, load kept from 1/8
 * to 1/2 (down to the first table of 64 slots).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "map.h"

#define MAP_FIRST_SLOTS 64

static size_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (size_t)h;
}

void map_init(struct map *m)
{
    m->slots = NULL;
    m->nslots = m->count = 0;
}

void map_clear(struct map *m, void (*free_val)(void *))
{
    for (size_t i = 0; i < m->nslots; i++) {
        struct map_entry *e = m->slots[i];
        while (e) {
            struct map_entry *next = e->next;
            if (free_val)
                free_val(e->val);
            free(e->key);
            free(e);
            e = next;
        }
    }
    free(m->slots);
    map_init(m);
}

/* The link that points at key's entry, or at the NULL ending its chain; NULL
 * when the map has no table yet. */
static struct map_entry **find(const struct map *m, const char *key)
{
    if (!m->nslots)
        return NULL;
    struct map_entry **pe = &m->slots[hash(key) & (m->nslots - 1)];
    while (*pe && strcmp((*pe)->key, key) != 0)
        pe = &(*pe)->next;
    return pe;
}

void *map_get(const struct map *m, const char *key)
{
    struct map_entry **pe = find(m, key);
    return pe && *pe ? (*pe)->val : NULL;
}

/* Moves every entry into a table of n slots (a power of two). Returns 0, or
 * -1 with m unchanged. */
static int rehash(struct map *m, size_t n)
{
    struct map_entry **slots = calloc(n, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->nslots; i++) {
        struct map_entry *e = m->slots[i];
        while (e) {
            struct map_entry *next = e->next;
            size_t h = hash(e->key) & (n - 1);
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

/* Doubles the table. Returns 0, or -1 with m unchanged. */
static int grow(struct map *m)
{
    if (m->nslots > SIZE_MAX / 2 / sizeof(struct map_entry *))
        return -1;
    return rehash(m, m->nslots ? m->nslots * 2 : MAP_FIRST_SLOTS);
}

int map_put(struct map *m, const char *key, void *val, void **old)
{
    if (old)
        *old = NULL;
    struct map_entry **pe = find(m, key);
    if (pe && *pe) {
        if (old)
            *old = (*pe)->val;
        (*pe)->val = val;
        return 0;
    }
    struct map_entry *e = malloc(sizeof *e);
    char *k = strdup(key);
    if (!e || !k)
        goto fail;
    /* grow only for a new key, and before linking it, so a failure changes nothing */
    if ((m->count + 1) * 2 > m->nslots && grow(m) < 0)
        goto fail;
    pe = find(m, key);
    e->key = k;
    e->val = val;
    e->next = NULL;
    *pe = e;
    m->count++;
    return 0;
fail:
    free(e);
    free(k);
    return -1;
}

int map_set_str(struct map *m, const char *key, const char *value)
{
    char *v = strdup(value);
    void *old;
    if (!v || map_put(m, key, v, &old) < 0) {
        free(v);
        return -1;
    }
    free(old);
    return 0;
}

void *map_del(struct map *m, const char *key)
{
    struct map_entry **pe = find(m, key);
    if (!pe || !*pe)
        return NULL;
    struct map_entry *e = *pe;
    void *val = e->val;
    *pe = e->next;
    free(e->key);
    free(e);
    m->count--;
    /* After a burst the table shrinks back to a load of a quarter (kept as
     * it is when there is no memory for the smaller one). */
    if (m->nslots > MAP_FIRST_SLOTS && m->count * 8 < m->nslots)
        (void)rehash(m, m->nslots / 2);
    return val;
}

size_t map_count(const struct map *m)
{
    return m->count;
}

void map_each(const struct map *m, void (*fn)(const char *key, void *val, void *arg), void *arg)
{
    for (size_t i = 0; i < m->nslots; i++)
        for (struct map_entry *e = m->slots[i]; e; e = e->next)
            fn(e->key, e->val, arg);
}
