/*
 * stored.c - what the adapter keeps in the store: its access to the bot's
 * state, which Discord message carries each logical key, and a game's list
 * of the messages whose controls are live.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "bot/log.h"
#include "core/text.h"
#include "internal.h"

char *dc_gw_state_get(void *ud, const char *key)
{
    struct dc *dc = ud;
    const struct platform_host *h = dc->base.host;
    char *v = h->state_get ? h->state_get(h->ctx, &dc->base, key) : NULL;
    if (v && !*v) {
        free(v);
        v = NULL;
    }
    return v;
}

void dc_gw_state_set(void *ud, const char *key, const char *value)
{
    struct dc *dc = ud;
    const struct platform_host *h = dc->base.host;
    if (h->state_set)
        h->state_set(h->ctx, &dc->base, key, value);
}

void dc_gw_state_defer(void *ud, const char *key, const char *value)
{
    struct dc *dc = ud;
    const struct platform_host *h = dc->base.host;
    if (!h->state_defer && !*value && h->state_del)
        h->state_del(h->ctx, &dc->base, key); /* a host without lazy state does it at once */
    else if (!h->state_defer)
        dc_gw_state_set(ud, key, value);
    else if (h->state_defer(h->ctx, &dc->base, key, value) < 0)
        log_warn(DC_MOD, NULL,
                 "no memory to note the gateway session; a restart may replay events");
}

int dc_gw_state_follow(void *ud, const char *key, const uint64_t *version,
                       bool (*text)(void *arg, char *out, size_t cap), void *arg)
{
    struct dc *dc = ud;
    const struct platform_host *h = dc->base.host;
    return h->state_follow ? h->state_follow(h->ctx, &dc->base, key, version, text, arg) : -1;
}

/* See internal.h: "msg/<key>" holds "<channel> <id> <outbox id>", "mid/<id>" the key. */
void dc_msg_persist(struct dc *dc, const char *key, const char *channel, const char *id,
                    int64_t outbox_id)
{
    char k[300], v[192];
    snprintf(k, sizeof(k), "msg/%s", key);
    snprintf(v, sizeof(v), "%s %s %" PRId64, channel, id, outbox_id);
    dc_gw_state_set(dc, k, v);
    snprintf(k, sizeof(k), "mid/%s", id);
    dc_gw_state_set(dc, k, key);
}

struct dc_msg *dc_msg_restore(struct dc *dc, const char *key)
{
    struct dc_msg *m = map_get(&dc->msgs, key);
    if (m)
        return m;
    char k[300], channel[64], id[64];
    long long outbox = 0;
    snprintf(k, sizeof(k), "msg/%s", key);
    char *v = dc_gw_state_get(dc, k);
    /* a record of an older daemon has no outbox id */
    if (!v || sscanf(v, "%63s %63s %lld", channel, id, &outbox) < 2) {
        free(v);
        return NULL;
    }
    free(v);
    m = dc_msg_get(dc, key, channel);
    if (m && !m->id) {
        m->id = dc_xstrdup(id);
        m->outbox_id = outbox;
        char *kk = dc_xstrdup(key);
        if (kk && map_put(&dc->msg_ids, id, kk, NULL) < 0)
            free(kk);
    }
    return m;
}

char *dc_msg_key_of(struct dc *dc, const char *id)
{
    const char *key = map_get(&dc->msg_ids, id);
    if (key)
        return dc_xstrdup(key);
    char k[96];
    snprintf(k, sizeof(k), "mid/%s", id);
    return dc_gw_state_get(dc, k);
}

/* The list, loaded from the store when this run has not seen it; NULL when
 * it is empty and create is false. Borrowed from map. */
struct json_object *dc_list_get(struct dc *dc, struct map *map, const char *what, const char *game,
                                bool create)
{
    struct json_object *l = map_get(map, game);
    if (l)
        return l;
    char k[256], *save = NULL;
    snprintf(k, sizeof(k), "%s/%s", what, game);
    char *v = dc_gw_state_get(dc, k);
    if (!v && !create)
        return NULL;
    l = json_object_new_array();
    for (char *w = v ? strtok_r(v, " ", &save) : NULL; w; w = strtok_r(NULL, " ", &save))
        json_object_array_add(l, json_object_new_string(w));
    free(v);
    if (map_put(map, game, l, NULL) < 0) {
        json_object_put(l);
        return NULL;
    }
    return l;
}

/* Stores l; when it cannot be written whole (no memory), the stored copy stays as it was. */
void dc_list_save(struct dc *dc, const char *what, const char *game, struct json_object *l)
{
    const struct platform_host *h = dc->base.host;
    struct buf b;
    buf_init(&b, DC_LIST_MAX);
    char k[256];
    snprintf(k, sizeof(k), "%s/%s", what, game);
    for (size_t i = 0; i < jarr_len(l); i++) {
        const char *w = jarr_str(l, i);
        if (w && buf_printf(&b, "%s%s", b.len ? " " : "", w) < 0) {
            log_error(DC_MOD, game, "cannot store %s: too long or no memory", k);
            goto done;
        }
    }
    if (b.len)
        dc_gw_state_set(dc, k, b.data);
    else if (h->state_del)
        h->state_del(h->ctx, &dc->base, k);
done:
    buf_free(&b);
}

/* Forgets key in the store lazily: with the deletes of the outbox messages
 * reported sent before, or not at all, so that a message sent again after a
 * crash still finds what it needs (platform.h, state_defer). */
static void forget_key(struct dc *dc, const char *key)
{
    dc_gw_state_defer(dc, key, "");
}

static void list_forget(struct dc *dc, struct map *map, const char *what, const char *game)
{
    char k[256];
    json_object_put(map_del(map, game));
    snprintf(k, sizeof(k), "%s/%s", what, game);
    forget_key(dc, k);
}

ssize_t dc_list_find(struct json_object *l, const char *word)
{
    for (size_t i = 0; i < jarr_len(l); i++) {
        const char *w = jarr_str(l, i);
        if (w && strcmp(w, word) == 0)
            return (ssize_t)i;
    }
    return -1;
}

struct forget_ctx {
    struct msg_key game;
    char *keys[256];
    unsigned n;
};

static void collect_game_keys(const char *key, void *val, void *arg)
{
    (void)val;
    struct forget_ctx *c = arg;
    if (c->n < 256 && msg_key_matches(key, &c->game))
        c->keys[c->n++] = strdup(key);
}

void dc_forget_game(struct dc *dc, const char *game)
{
    struct forget_ctx c = {.game = {.number = MSG_ANY_NUMBER}};
    char k[300];
    if (strlen(game) >= sizeof c.game.game)
        return;
    text_copy(c.game.game, sizeof c.game.game, game);
    list_forget(dc, &dc->controls, LIST_CONTROLS, game);
    list_forget(dc, &dc->closed, LIST_CLOSED, game);
    map_each(&dc->msgs, collect_game_keys, &c);
    for (unsigned i = 0; i < c.n; i++) {
        if (!c.keys[i])
            continue;
        struct dc_msg *m = map_del(&dc->msgs, c.keys[i]);
        if (m && m->id) {
            free(map_del(&dc->msg_ids, m->id));
            snprintf(k, sizeof(k), "mid/%s", m->id);
            forget_key(dc, k);
        }
        snprintf(k, sizeof(k), "msg/%s", c.keys[i]);
        forget_key(dc, k);
        if (m)
            dc_msg_free(m);
        free(c.keys[i]);
    }
}

void dc_nonce_prefix_load(struct dc *dc)
{
    static const char digits[] = "0123456789abcdefghijklmnopqrstuvwxyz";
    char *v = dc_gw_state_get(dc, "nonce-prefix");
    if (v && strlen(v) == DC_NONCE_PREFIX) {
        memcpy(dc->nonce_prefix, v, DC_NONCE_PREFIX + 1);
        free(v);
        return;
    }
    free(v);
    unsigned char r[DC_NONCE_PREFIX];
    if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
        /* no randomness: the clock still tells this store's prefix from another's */
        uint64_t t = clock_mono_ms() ^ (uint64_t)clock_wall_ms() << 16;
        for (size_t i = 0; i < sizeof r; i++)
            r[i] = (unsigned char)(t >> (i * 8 % 64));
    }
    for (size_t i = 0; i < DC_NONCE_PREFIX; i++)
        dc->nonce_prefix[i] = digits[r[i] % 36];
    dc->nonce_prefix[DC_NONCE_PREFIX] = '\0';
    dc_gw_state_set(dc, "nonce-prefix", dc->nonce_prefix);
}
