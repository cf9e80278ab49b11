/*
 * map.h - one hash map from strings to pointers.
 *
 * Keys are copied and owned by the map; values are the caller's pointers,
 * which the map only holds (map_clear can free them). A map set to {0} or
 * through map_init is empty and allocates nothing until the first insert.
 * Separate chaining, so entries can be removed; the table doubles to keep
 * chains short, and halves when it is mostly empty, so the memory of a burst
 * of keys goes back once they are removed.
 */
#ifndef BOT_UTIL_MAP_H
#define BOT_UTIL_MAP_H

#include <stddef.h>

#include "util.h"

struct map_entry {
    struct map_entry *next; /* the chain of one slot */
    char *key;
    void *val;
};

struct map {
    struct map_entry **slots;
    size_t nslots;
    size_t count;
};

/* Makes m an empty map. */
void map_init(struct map *m);

/* Removes every entry, calling free_val on each value when free_val is not
 * NULL; m is empty and usable afterwards. */
void map_clear(struct map *m, void (*free_val)(void *));

/* The value of key, or NULL when key is absent. */
void *map_get(const struct map *m, const char *key);

/* Sets key to val. The value key had before goes to *old (NULL if none) when
 * old is not NULL, for the caller to free; without old it is dropped. Returns
 * 0, or -1 on no memory: m is then unchanged and *old is NULL. */
int map_put(struct map *m, const char *key, void *val, void **old) MUST_USE;

/* For a map whose values are strings it owns (cleared with map_clear(m, free)):
 * sets key to a copy of value and frees the old one. Returns 0, or -1 on no
 * memory (m unchanged). */
int map_set_str(struct map *m, const char *key, const char *value) MUST_USE;

/* Removes key and returns its value (the caller's to free), or NULL when key
 * is absent. */
void *map_del(struct map *m, const char *key);

/* How many keys m holds. */
size_t map_count(const struct map *m);

/* Calls fn on every entry, in no particular order. fn must not change m; to
 * remove entries, collect their keys and remove them afterwards. */
void map_each(const struct map *m, void (*fn)(const char *key, void *val, void *arg), void *arg);

#endif
