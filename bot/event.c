/*
 * event.c - an event's record: sign-ups, tables and seating (see event.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/json.h"
#include "core/rng.h"
#include "core/text.h"
#include "event.h"

const char *event_error_key(enum event_error e)
{
    static const char *const keys[] = {
        [EVENT_ERR_JOINED] = "msg.event-already-joined",
        [EVENT_ERR_NOT_JOINED] = "msg.event-not-joined",
        [EVENT_ERR_FULL] = "msg.event-full",
        [EVENT_ERR_TOO_LONG] = "parse.too-long",
        [EVENT_ERR_TABLE_EXISTS] = "msg.event-table-exists",
        [EVENT_ERR_TABLES_FULL] = "msg.event-tables-full",
        [EVENT_ERR_TOO_FEW] = "msg.event-too-few",
        [EVENT_ERR_NEED_TABLES] = "msg.event-need-tables",
        [EVENT_ERR_BAD_TABLE] = "msg.event-bad-table",
        [EVENT_ERR_UNSEATED] = "msg.event-unseated",
        [EVENT_ERR_TABLE_SIZE] = "msg.event-table-size",
    };
    return e != EVENT_OK && (size_t)e < sizeof keys / sizeof *keys ? keys[e] : "msg.store-failed";
}

int event_player_of(const struct event *e, const char *user)
{
    for (unsigned i = 0; i < e->nplayers; i++)
        if (strcmp(e->players[i].user, user) == 0)
            return (int)i;
    return -1;
}

int event_table_of(const struct event *e, const char *channel)
{
    for (unsigned i = 0; i < e->ntables; i++)
        if (strcmp(e->tables[i].channel, channel) == 0)
            return (int)i;
    return -1;
}

unsigned event_table_count(const struct event *e, int t)
{
    unsigned n = 0;
    for (unsigned i = 0; i < e->nplayers; i++)
        n += e->players[i].table == t;
    return n;
}

enum event_error event_sign_up(struct event *e, const char *user, const char *name,
                               const char *language)
{
    if (event_player_of(e, user) >= 0)
        return EVENT_ERR_JOINED;
    if (e->nplayers == EVENT_MAX_PLAYERS)
        return EVENT_ERR_FULL;
    if (!name)
        name = user;
    if (strlen(user) >= GAME_TEXT_MAX || strlen(name) >= GAME_TEXT_MAX ||
        (language && strlen(language) >= sizeof e->players[0].language))
        return EVENT_ERR_TOO_LONG;
    struct event_player *p = &e->players[e->nplayers++];
    memset(p, 0, sizeof *p);
    text_copy(p->user, sizeof p->user, user);
    text_copy(p->name, sizeof p->name, name);
    if (language)
        text_copy(p->language, sizeof p->language, language);
    p->table = EVENT_NO_TABLE;
    return EVENT_OK;
}

enum event_error event_withdraw(struct event *e, unsigned i)
{
    if (i >= e->nplayers)
        return EVENT_ERR_NOT_JOINED;
    memmove(&e->players[i], &e->players[i + 1], (e->nplayers - i - 1) * sizeof e->players[0]);
    e->nplayers--;
    return EVENT_OK;
}

enum event_error event_add_table(struct event *e, const char *channel)
{
    if (event_table_of(e, channel) >= 0)
        return EVENT_ERR_TABLE_EXISTS;
    if (e->ntables == EVENT_MAX_TABLES)
        return EVENT_ERR_TABLES_FULL;
    if (strlen(channel) >= GAME_TEXT_MAX)
        return EVENT_ERR_TOO_LONG;
    struct event_table *t = &e->tables[e->ntables++];
    memset(t, 0, sizeof *t);
    text_copy(t->channel, sizeof t->channel, channel);
    return EVENT_OK;
}

enum event_error event_remove_table(struct event *e, unsigned t)
{
    if (t >= e->ntables)
        return EVENT_ERR_BAD_TABLE;
    memmove(&e->tables[t], &e->tables[t + 1], (e->ntables - t - 1) * sizeof e->tables[0]);
    e->ntables--;
    for (unsigned i = 0; i < e->nplayers; i++) {
        if (e->players[i].table == (int)t)
            e->players[i].table = EVENT_NO_TABLE;
        else if (e->players[i].table > (int)t)
            e->players[i].table--;
    }
    return EVENT_OK;
}

enum event_error event_seat_balanced(struct event *e, unsigned min, unsigned max, unsigned *needed)
{
    unsigned n = e->nplayers;
    if (min == 0 || n < min)
        return EVENT_ERR_TOO_FEW;
    /* As many tables as can each get min players: the organiser chooses
     * between few large tables and many small ones by the tables they add. */
    unsigned k = n / min < e->ntables ? n / min : e->ntables;
    if (k == 0 || n > k * max) {
        *needed = (n + max - 1) / max;
        return EVENT_ERR_NEED_TABLES;
    }
    uint8_t order[EVENT_MAX_PLAYERS];
    for (unsigned i = 0; i < n; i++)
        order[i] = (uint8_t)i;
    struct rng r;
    rng_seed(&r, e->seed ^ ((uint64_t)(e->round + 1) * 0x9e3779b97f4a7c15ULL));
    rng_shuffle_bytes(&r, order, n);
    /* Dealt round the tables like cards: sizes differ by at most one. */
    for (unsigned i = 0; i < n; i++)
        e->players[order[i]].table = (int)(i % k);
    return EVENT_OK;
}

enum event_error event_move(struct event *e, unsigned i, int t)
{
    if (i >= e->nplayers)
        return EVENT_ERR_NOT_JOINED;
    if (t != EVENT_NO_TABLE && (t < 0 || (unsigned)t >= e->ntables))
        return EVENT_ERR_BAD_TABLE;
    e->players[i].table = t;
    return EVENT_OK;
}

enum event_error event_check_round(const struct event *e, unsigned min, unsigned max,
                                   unsigned *table)
{
    if (e->nplayers < min)
        return EVENT_ERR_TOO_FEW;
    for (unsigned i = 0; i < e->nplayers; i++)
        if (e->players[i].table == EVENT_NO_TABLE)
            return EVENT_ERR_UNSEATED;
    for (unsigned t = 0; t < e->ntables; t++) {
        unsigned n = event_table_count(e, (int)t);
        if (n && (n < min || n > max)) {
            *table = t;
            return EVENT_ERR_TABLE_SIZE;
        }
    }
    return EVENT_OK;
}

static int add_str(struct json_object *o, const char *key, const char *value)
{
    struct json_object *v = json_object_new_string(value);
    if (!v || json_object_object_add(o, key, v) < 0) {
        json_object_put(v);
        return -1;
    }
    return 0;
}

static int add_int(struct json_object *o, const char *key, int64_t value)
{
    struct json_object *v = json_object_new_int64(value);
    if (!v || json_object_object_add(o, key, v) < 0) {
        json_object_put(v);
        return -1;
    }
    return 0;
}

static int add_item(struct json_object *arr, struct json_object *item)
{
    if (!item || json_object_array_add(arr, item) < 0) {
        json_object_put(item);
        return -1;
    }
    return 0;
}

struct json_object *event_to_json(const struct event *e)
{
    char seed[24];
    struct json_object *o = json_object_new_object();
    struct json_object *players = json_object_new_array();
    struct json_object *tables = json_object_new_array();
    if (!o || !players || !tables)
        goto fail;
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)e->seed);
    if (add_str(o, "id", e->id) < 0 || add_str(o, "name", e->name) < 0 ||
        add_str(o, "community", e->community) < 0 || add_str(o, "hall", e->hall) < 0 ||
        add_str(o, "organizer", e->organizer) < 0 ||
        add_str(o, "organizer_name", e->organizer_name) < 0 || add_int(o, "round", e->round) < 0 ||
        add_int(o, "closed", e->closed) < 0 || add_str(o, "seed", seed) < 0)
        goto fail;
    for (unsigned i = 0; i < e->nplayers; i++) {
        const struct event_player *p = &e->players[i];
        struct json_object *po = json_object_new_object();
        if (add_item(players, po) < 0 || add_str(po, "user", p->user) < 0 ||
            add_str(po, "name", p->name) < 0 || add_str(po, "language", p->language) < 0 ||
            add_int(po, "table", p->table) < 0)
            goto fail;
    }
    for (unsigned i = 0; i < e->ntables; i++) {
        struct json_object *to = json_object_new_object();
        if (add_item(tables, to) < 0 || add_str(to, "channel", e->tables[i].channel) < 0 ||
            add_str(to, "game", e->tables[i].game) < 0)
            goto fail;
    }
    json_object_object_add(o, "players", players);
    json_object_object_add(o, "tables", tables);
    return o;
fail:
    json_object_put(players);
    json_object_put(tables);
    json_object_put(o);
    return NULL;
}

/* An integer of o at key within [lo, hi]. */
static bool get_int(const struct json_object *o, const char *key, int64_t lo, int64_t hi,
                    int64_t *out)
{
    return jget_int64(o, key, out) == 0 && *out >= lo && *out <= hi;
}

/* The event's names, seed, round and closed flag from j into e; false with why written. */
static bool get_head(struct event *e, const struct json_object *j, char *why, size_t whylen)
{
    const char *seed = jget_str(j, "seed");
    char *end = NULL;
    int64_t round, closed;
    if (!jget_str_into(j, "id", e->id, sizeof e->id) ||
        !jget_str_into(j, "name", e->name, sizeof e->name) ||
        !jget_str_into(j, "community", e->community, sizeof e->community) ||
        !jget_str_into(j, "hall", e->hall, sizeof e->hall) ||
        !jget_str_into(j, "organizer", e->organizer, sizeof e->organizer) ||
        !jget_str_into(j, "organizer_name", e->organizer_name, sizeof e->organizer_name)) {
        snprintf(why, whylen, "id, name, community, hall or organizer invalid");
        return false;
    }
    errno = 0;
    if (!seed || *seed < '0' || *seed > '9' ||
        (e->seed = strtoull(seed, &end, 10), errno || *end) ||
        !get_int(j, "round", 0, UINT32_MAX, &round) || !get_int(j, "closed", 0, 1, &closed)) {
        snprintf(why, whylen, "seed, round or closed invalid");
        return false;
    }
    e->round = (unsigned)round;
    e->closed = closed;
    return true;
}

/* The tables, then the players seated at them, into e; false with why written. */
static bool get_seating(struct event *e, const struct json_object *j, char *why, size_t whylen)
{
    struct json_object *players = jget_arr(j, "players"), *tables = jget_arr(j, "tables");
    int64_t table;
    if (!players || !tables || jarr_len(players) > EVENT_MAX_PLAYERS ||
        jarr_len(tables) > EVENT_MAX_TABLES) {
        snprintf(why, whylen, "players or tables invalid");
        return false;
    }
    for (size_t i = 0; i < jarr_len(tables); i++) {
        struct json_object *t = jarr_at(tables, i);
        const char *channel = jget_str(t, "channel");
        if (!channel || event_add_table(e, channel) != EVENT_OK ||
            !jget_str_into(t, "game", e->tables[i].game, sizeof e->tables[i].game)) {
            snprintf(why, whylen, "table %zu invalid", i);
            return false;
        }
    }
    for (size_t i = 0; i < jarr_len(players); i++) {
        struct json_object *p = jarr_at(players, i);
        const char *user = jget_str(p, "user"), *lang = jget_str(p, "language");
        if (!user || event_sign_up(e, user, jget_str(p, "name"), lang && *lang ? lang : NULL) ||
            !get_int(p, "table", EVENT_NO_TABLE, (int64_t)e->ntables - 1, &table)) {
            snprintf(why, whylen, "player %zu invalid", i);
            return false;
        }
        e->players[i].table = (int)table;
    }
    return true;
}

int event_from_json(struct event *out, const struct json_object *j, char *why, size_t whylen)
{
    struct event *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    if (!get_head(e, j, why, whylen) || !get_seating(e, j, why, whylen)) {
        free(e);
        return -1;
    }
    memcpy(out, e, sizeof *e);
    free(e);
    return 0;
}
