/*
 * strmap.h - a small hash map from strings to strings.
 *
 * Adapters use it to map the bot's logical message keys to platform message
 * ids and back. Open addressing with linear probing; it owns copies of every
 * key and value.
 */
#ifndef BOT_STRMAP_H
#define BOT_STRMAP_H

#include <stddef.h>

struct strmap_entry {
    char *key;
    char *value;
};

struct strmap {
    struct strmap_entry *slots;
    size_t cap, len;
};

/* Sets key to value (both copied), replacing an old value. Returns 0, or -1 on no memory. */
int strmap_set(struct strmap *m, const char *key, const char *value);

/* Returns the value of key, or NULL. The string belongs to the map. */
const char *strmap_get(const struct strmap *m, const char *key);

/* Frees every entry; the map is empty and reusable afterwards. */
void strmap_clear(struct strmap *m);

#endif
