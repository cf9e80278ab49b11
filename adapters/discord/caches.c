/*
 * caches.c - what the bot sent that later inputs read: a player's last hand
 * (the cards and partners autocomplete offers) and a table's last lobby,
 * drop and vote (the players and cards it offers there).
 */
#include <stdio.h>

#include "bot/log.h"
#include "internal.h"

/* Keeps data (a new reference) under key in map, dropping what was there. */
static void keep(struct map *map, const char *key, const struct json_object *data)
{
    void *old = NULL;
    struct json_object *ref = json_object_get((struct json_object *)data);
    if (map_put(map, key, ref, &old) < 0) {
        json_object_put(ref);
        log_warn(DC_MOD, NULL, "no memory to keep what autocomplete offers");
        return;
    }
    json_object_put(old);
}

static void table_key(char *out, size_t len, enum outbound_kind kind, const char *channel)
{
    snprintf(out, len, "%d:%s", (int)kind, channel);
}

void dc_cache_note(struct dc *dc, const struct outbound *m)
{
    char k[160];
    if (!m->data)
        return;
    if (m->kind == OUT_HAND && m->user) {
        keep(&dc->hands, m->user, m->data);
    } else if (m->channel && (m->kind == OUT_LOBBY || m->kind == OUT_DROP || m->kind == OUT_VOTE)) {
        table_key(k, sizeof k, m->kind, m->channel);
        keep(&dc->tables, k, m->data);
    }
}

struct json_object *dc_cache_hand(struct dc *dc, const char *user)
{
    return user ? map_get(&dc->hands, user) : NULL;
}

struct json_object *dc_cache_table(struct dc *dc, enum outbound_kind kind, const char *channel)
{
    char k[160];
    if (!channel)
        return NULL;
    table_key(k, sizeof k, kind, channel);
    return map_get(&dc->tables, k);
}
