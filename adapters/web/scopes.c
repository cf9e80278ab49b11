/*
 * scopes.c - tables and users, each with a bounded cache of the frames the bot
 * sent there, replayed to a socket that opens the table or says hello. The
 * caches live in the store too, so after a restart a page that connects again
 * is shown what it showed before.
 */
#include "internal.h"

#define USERS_KEY "cache-users" /* the users whose caches are stored */

/* ---- scopes: tables and users, with their cached frames ---- */

struct scope *web_scope_find(struct web *w, const char *id, bool is_user)
{
    for (struct scope *s = LIST_FIRST(&w->scopes); s; s = LIST_NEXT(s, link))
        if (s->is_user == is_user && strcmp(s->id, id) == 0)
            return s;
    return NULL;
}

void web_scope_free(struct scope *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->items[i].key);
        free(s->items[i].json);
    }
    free(s->items);
    free(s->id);
    free(s->phase);
    free(s->creator);
    free(s);
}

struct scope *web_scope_new(struct web *w, const char *id, bool is_user)
{
    struct scope *s = calloc(1, sizeof *s);
    if (!s || !(s->id = strdup(id))) {
        free(s);
        return NULL;
    }
    s->is_user = is_user;
    LIST_INSERT_HEAD(&w->scopes, s, link);
    if (!is_user)
        w->ntables++;
    return s;
}

struct json_object *web_tables_json(struct web *w)
{
    struct json_object *o = json_object_new_object();
    struct json_object *a = json_object_new_array();
    for (struct scope *s = LIST_FIRST(&w->scopes); s; s = LIST_NEXT(s, link)) {
        if (s->is_user || !s->listed)
            continue;
        struct json_object *t = json_object_new_object();
        json_object_object_add(t, "id", json_object_new_string(s->id));
        json_object_object_add(t, "phase", s->phase ? json_object_new_string(s->phase) : NULL);
        json_object_object_add(t, "players", json_object_new_int(s->players));
        json_object_array_add(a, t);
    }
    json_object_object_add(o, "type", json_object_new_string("tables"));
    json_object_object_add(o, "tables", a);
    return o;
}

void web_tables_broadcast(struct web *w)
{
    struct json_object *o = web_tables_json(w);
    for (struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link))
        if (c->user && !c->activity)
            web_conn_queue_obj(c, o);
    json_object_put(o);
}

void web_tables_save(struct web *w)
{
    struct json_object *a = json_object_new_array();
    for (struct scope *s = LIST_FIRST(&w->scopes); s; s = LIST_NEXT(s, link))
        if (!s->is_user && s->listed)
            json_object_array_add(a, json_object_new_string(s->id));
    const char *str = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
    if (w->base.host->state_set && str)
        w->base.host->state_set(w->base.host->ctx, &w->base, "tables", str);
    json_object_put(a);
}

static bool table_followed(const struct web *w, const char *id)
{
    for (const struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link))
        if (web_conn_follows(c, id))
            return true;
    return false;
}

static bool table_over(const struct scope *t)
{
    return t->listed && t->phase && strcmp(t->phase, "over") == 0;
}

/* Forgets table t: its cache, and its place in the list. */
static void table_forget(struct web *w, struct scope *t)
{
    bool listed = t->listed;
    LIST_REMOVE(t, link);
    w->ntables--;
    if (listed)
        web_scope_forget(w, t);
    web_scope_free(t);
    if (listed) {
        web_tables_save(w);
        web_tables_broadcast(w);
    }
}

struct scope *web_table_get(struct web *w, const char *id)
{
    struct scope *s = web_scope_find(w, id, false), *oldest = NULL;
    if (s)
        return s;
    if (w->ntables >= WEB_MAX_TABLES) {
        LIST_FOREACH(s, &w->scopes, link) /* newest first */
        if (!s->is_user && table_over(s) && !table_followed(w, s->id))
            oldest = s;
        if (!oldest)
            return NULL;
        table_forget(w, oldest);
    }
    return web_scope_new(w, id, false);
}

void web_table_drop_if_empty(struct web *w, struct scope *t)
{
    if (!table_followed(w, t->id) && !t->listed)
        table_forget(w, t);
}

/* How many tables user opened that have no game yet. */
unsigned web_tables_opened_by(const struct web *w, const char *user)
{
    unsigned n = 0;
    for (const struct scope *s = LIST_FIRST(&w->scopes); s; s = LIST_NEXT(s, link))
        if (!s->is_user && !s->listed && s->creator && strcmp(s->creator, user) == 0)
            n++;
    return n;
}

/* The store key of s's cache. */
static void cache_key(const struct scope *s, char *out, size_t len)
{
    snprintf(out, len, "cache-%s/%s", s->is_user ? "user" : "table", s->id);
}

void web_scope_save(struct web *w, const struct scope *s)
{
    const struct platform_host *h = w->base.host;
    if (!h->state_defer)
        return;
    struct json_object *o = json_object_new_object(), *frames = json_object_new_array();
    for (size_t i = 0; i < s->n; i++) {
        struct json_object *f = json_object_new_object();
        json_object_object_add(f, "key",
                               s->items[i].key ? json_object_new_string(s->items[i].key) : NULL);
        json_object_object_add(f, "frame", json_object_new_string(s->items[i].json));
        json_object_array_add(frames, f);
    }
    json_object_object_add(o, "frames", frames);
    if (!s->is_user || s->phase) { /* a Discord table's scope has a phase too (activity.c) */
        json_object_object_add(o, "phase", s->phase ? json_object_new_string(s->phase) : NULL);
        json_object_object_add(o, "players", json_object_new_int(s->players));
    }
    char key[WEB_TABLE_MAX + 64];
    cache_key(s, key, sizeof key);
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    /* with the bot's next commit: a crash before it sends the frames again */
    if (!text || h->state_defer(h->ctx, &w->base, key, text) < 0)
        log_error(MOD, NULL, "cannot store what %s shows", s->id);
    json_object_put(o);
}

void web_scope_forget(struct web *w, const struct scope *s)
{
    const struct platform_host *h = w->base.host;
    char key[WEB_TABLE_MAX + 64];
    cache_key(s, key, sizeof key);
    if (h->state_del && h->state_del(h->ctx, &w->base, key) < 0)
        log_warn(MOD, NULL, "cannot forget what %s showed", s->id);
}

void web_users_save(struct web *w)
{
    const struct platform_host *h = w->base.host;
    struct json_object *a = json_object_new_array();
    for (struct scope *s = LIST_FIRST(&w->scopes); s; s = LIST_NEXT(s, link))
        if (s->is_user)
            json_object_array_add(a, json_object_new_string(s->id));
    const char *text = json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN);
    if (h->state_defer && (!text || h->state_defer(h->ctx, &w->base, USERS_KEY, text) < 0))
        log_error(MOD, NULL, "cannot store the list of trading rooms");
    json_object_put(a);
}

/* Reads s's stored cache back; frames that do not read are left out. */
static void scope_load(struct web *w, struct scope *s)
{
    char key[WEB_TABLE_MAX + 64];
    cache_key(s, key, sizeof key);
    char *text = w->base.host->state_get(w->base.host->ctx, &w->base, key);
    struct json_object *o = text ? json_tokener_parse(text) : NULL;
    free(text);
    struct json_object *frames = jget_arr(o, "frames");
    for (size_t i = 0; i < jarr_len(frames) && i < WEB_CACHE_MAX; i++) {
        struct json_object *f = jarr_at(frames, i);
        const char *frame = jget_str(f, "frame");
        if (frame)
            web_scope_cache(s, jget_str(f, "key"), false, frame);
    }
    if (!s->is_user || jget_str(o, "phase")) {
        const char *phase = jget_str(o, "phase");
        int64_t players = 0;
        free(s->phase);
        s->phase = phase ? strdup(phase) : NULL;
        if (jget_int64(o, "players", &players) == 0 && players >= 0 && players <= 64)
            s->players = (int)players;
    }
    json_object_put(o);
}

/* The trading rooms whose caches are stored. */
static void users_load(struct web *w)
{
    char *text = w->base.host->state_get(w->base.host->ctx, &w->base, USERS_KEY);
    struct json_object *a = text ? json_tokener_parse(text) : NULL;
    free(text);
    for (size_t i = 0; i < jarr_len(a); i++) {
        const char *id = jarr_str(a, i);
        struct scope *s;
        if (id && *id && strlen(id) <= WEB_TABLE_MAX + 32 && !web_scope_find(w, id, true) &&
            (s = web_scope_new(w, id, true)))
            scope_load(w, s);
    }
    json_object_put(a);
}

void web_tables_load(struct web *w)
{
    if (!w->base.host->state_get)
        return;
    users_load(w);
    char *str = w->base.host->state_get(w->base.host->ctx, &w->base, "tables");
    if (!str)
        return;
    struct json_object *a = json_tokener_parse(str);
    free(str);
    if (a && json_object_is_type(a, json_type_array)) {
        size_t n = json_object_array_length(a);
        /* the list is saved newest first: add oldest first to keep that order */
        for (size_t i = n; i-- > 0;) {
            struct json_object *v = json_object_array_get_idx(a, i);
            char id[WEB_TABLE_MAX + 1];
            const char *s = json_object_get_string(v);
            struct scope *t = NULL;
            if (json_object_is_type(v, json_type_string) && web_table_id(s, strlen(s), id) &&
                !web_scope_find(w, id, false) && w->ntables < WEB_MAX_TABLES)
                t = web_scope_new(w, id, false);
            if (t) {
                t->listed = true;
                scope_load(w, t);
            }
        }
    }
    json_object_put(a);
}

/* Keeps json under key in s: replaces the keyed frame when asked, drops the oldest when full. */
void web_scope_cache(struct scope *s, const char *key, bool replace, const char *json)
{
    char *copy = strdup(json);
    if (!copy)
        return;
    if (key) {
        for (size_t i = 0; i < s->n; i++) {
            if (!s->items[i].key || strcmp(s->items[i].key, key) != 0)
                continue;
            if (replace) {
                /* move it last, so a replay shows frames in the order of their latest state */
                struct cached it = s->items[i];
                free(it.json);
                it.json = copy;
                memmove(&s->items[i], &s->items[i + 1], (s->n - i - 1) * sizeof *s->items);
                s->items[s->n - 1] = it;
                return;
            }
            /* a new message now answers to the key; the old one stays as history */
            free(s->items[i].key);
            s->items[i].key = NULL;
        }
    }
    if (s->n == WEB_CACHE_MAX) {
        free(s->items[0].key);
        free(s->items[0].json);
        memmove(&s->items[0], &s->items[1], (s->n - 1) * sizeof *s->items);
        s->n--;
    }
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        struct cached *items = realloc(s->items, cap * sizeof *items);
        if (!items) {
            free(copy);
            return;
        }
        s->items = items;
        s->cap = cap;
    }
    s->items[s->n].key = key ? strdup(key) : NULL;
    s->items[s->n].json = copy;
    s->n++;
}

bool web_scope_has_key(const struct scope *s, const char *key)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->items[i].key && strcmp(s->items[i].key, key) == 0)
            return true;
    return false;
}

void web_scope_replay(struct conn *c, const struct scope *s)
{
    for (size_t i = 0; i < s->n; i++)
        web_conn_queue(c, s->items[i].json, strlen(s->items[i].json));
}
