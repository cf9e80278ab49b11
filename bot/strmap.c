/*
 * strmap.c - open-addressing string map (FNV-1a, linear probing, no deletion).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

static size_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
    return (size_t)h;
}

static struct strmap_entry *find(const struct strmap *m, const char *key)
{
    size_t i = hash(key) & (m->cap - 1);
    while (m->slots[i].key && strcmp(m->slots[i].key, key) != 0)
        i = (i + 1) & (m->cap - 1);
    return &m->slots[i];
}

static int grow(struct strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    struct strmap_entry *old = m->slots;
    size_t oldcap = m->cap;
    m->slots = calloc(cap, sizeof *m->slots);
    if (!m->slots) {
        m->slots = old;
        return -1;
    }
    m->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].key)
            *find(m, old[i].key) = old[i];
    free(old);
    return 0;
}

int strmap_set(struct strmap *m, const char *key, const char *value)
{
    /* Keep the load under 1/2 so probes stay short. */
    if ((m->len + 1) * 2 > m->cap && grow(m) < 0)
        return -1;
    struct strmap_entry *e = find(m, key);
    char *v = strdup(value);
    if (!v)
        return -1;
    if (!e->key) {
        e->key = strdup(key);
        if (!e->key) {
            free(v);
            return -1;
        }
        m->len++;
    }
    free(e->value);
    e->value = v;
    return 0;
}

const char *strmap_get(const struct strmap *m, const char *key)
{
    if (!m->cap)
        return NULL;
    struct strmap_entry *e = find(m, key);
    return e->key ? e->value : NULL;
}

void strmap_clear(struct strmap *m)
{
    for (size_t i = 0; i < m->cap; i++) {
        free(m->slots[i].key);
        free(m->slots[i].value);
    }
    free(m->slots);
    m->slots = NULL;
    m->cap = m->len = 0;
}
