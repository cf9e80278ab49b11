/*
 * seats.c - seats: sha256(token) -> user id and display name, kept in the store.
 *
 * Every seat is in memory (w->seats) from the start, read back from its
 * store row "seat:<hash>" ({"user","name","addr","made","used","played"}),
 * so names are checked, seats counted per address and unused seats forgotten
 * without reading the store. Rules:
 *   S1. A name belongs to at most one seat (any case).
 *   S2. One client address makes at most seats_per_address seats; they count
 *       until forgotten.
 *   S3. A seat that never played (opened a table, typed, reacted) and that no
 *       socket holds is forgotten unused_seat_seconds after its last visit:
 *       its row goes and its name is free again. A seat that played stays.
 */
#include "bot/util/clock.h"
#include "internal.h"

#define SEAT_PREFIX "seat:"

static struct seat *seat_by_hash(const struct web *w, const char *hash)
{
    for (struct seat *s = LIST_FIRST(&w->seats); s; s = LIST_NEXT(s, link))
        if (strcmp(s->hash, hash) == 0)
            return s;
    return NULL;
}

/* Whether name belongs to a seat other than s (S1). */
bool web_name_taken(struct web *w, const struct seat *s, const char *name)
{
    for (struct seat *o = LIST_FIRST(&w->seats); o; o = LIST_NEXT(o, link))
        if (o != s && o->name && strcasecmp(o->name, name) == 0)
            return true;
    return false;
}

void web_seat_free(struct seat *s)
{
    free(s->user);
    free(s->name);
    free(s);
}

static bool seat_held(const struct web *w, const struct seat *s)
{
    for (const struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link))
        if (c->user && strcmp(c->user, s->user) == 0)
            return true;
    return false;
}

static void seat_key(const struct seat *s, char key[80])
{
    snprintf(key, 80, SEAT_PREFIX "%s", s->hash);
}

/* Stores s's row: at once (a new name must hold after a crash), or with the
 * bot's next commit (a visit's time). */
static void seat_store(struct web *w, const struct seat *s, bool now)
{
    const struct platform_host *h = w->base.host;
    int (*set)(void *, struct platform *, const char *, const char *) =
        now ? h->state_set : h->state_defer;
    if (!set || !s->name)
        return;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "user", json_object_new_string(s->user));
    json_object_object_add(o, "name", json_object_new_string(s->name));
    json_object_object_add(o, "addr", json_object_new_string(s->addr));
    json_object_object_add(o, "made", json_object_new_int64(s->made));
    json_object_object_add(o, "used", json_object_new_int64(s->used));
    json_object_object_add(o, "played", json_object_new_boolean(s->played));
    char key[80];
    seat_key(s, key);
    const char *str = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    if (!str || set(h->ctx, &w->base, key, str) != 0)
        log_warn(MOD, NULL, "could not store the seat of %s", s->user);
    json_object_put(o);
}

void web_seat_save(struct web *w, const struct seat *s)
{
    seat_store(w, s, true);
}

/* Its socket closed: the seat's last visit, from which S3 counts. */
void web_seat_release(struct web *w, const char *user)
{
    for (struct seat *s = LIST_FIRST(&w->seats); s; s = LIST_NEXT(s, link)) {
        if (strcmp(s->user, user) == 0) {
            s->used = (int64_t)clock_wall_ms();
            seat_store(w, s, false);
            return;
        }
    }
}

void web_seat_played(struct web *w, const char *user)
{
    for (struct seat *s = LIST_FIRST(&w->seats); s; s = LIST_NEXT(s, link)) {
        if (strcmp(s->user, user) == 0) {
            if (!s->played) {
                s->played = true;
                seat_store(w, s, true);
            }
            return;
        }
    }
}

/* The user id of a token: 'w' and 16 hex digits, from the token alone. */
static char *user_of(const char *token)
{
    char uid[65], user[18];
    web_sha256_hex("illegald-web-user\n", token, uid);
    user[0] = 'w';
    memcpy(user + 1, uid, 16);
    user[17] = '\0';
    return strdup(user);
}

struct seat *web_seat_get(struct web *w, const char *token, const char *addr, bool *fresh,
                          bool *refused)
{
    char hash[65];
    web_sha256_hex("", token, hash);
    *fresh = *refused = false;
    struct seat *s = seat_by_hash(w, hash);
    if (s)
        return s;
    unsigned made = 0; /* S2 */
    for (struct seat *o = LIST_FIRST(&w->seats); o; o = LIST_NEXT(o, link))
        made += strcmp(o->addr, addr) == 0;
    if (made >= w->seats_per_addr) {
        *refused = true;
        return NULL;
    }
    s = calloc(1, sizeof *s);
    if (!s || !(s->user = user_of(token))) {
        free(s);
        return NULL;
    }
    memcpy(s->hash, hash, sizeof hash);
    snprintf(s->addr, sizeof s->addr, "%s", addr);
    s->made = s->used = (int64_t)clock_wall_ms();
    *fresh = true;
    return s;
}

void web_seat_visit(struct web *w, struct seat *s)
{
    s->used = (int64_t)clock_wall_ms();
    seat_store(w, s, false);
}

/* Forgets s: its row, and with it its name (S3). */
static void seat_forget(struct web *w, struct seat *s)
{
    const struct platform_host *h = w->base.host;
    char key[80];
    seat_key(s, key);
    if (h->state_del && h->state_del(h->ctx, &w->base, key) != 0)
        log_warn(MOD, NULL, "could not forget the seat of %s", s->user);
    log_info(MOD, NULL, "forgot the unused seat of %s (%s)", s->user, s->name ? s->name : "-");
    LIST_REMOVE(s, link);
    w->nseats--;
    web_seat_free(s);
}

void web_seats_sweep(struct web *w)
{
    int64_t now = (int64_t)clock_wall_ms(), idle = (int64_t)w->unused_seat_secs * 1000;
    struct seat *s = LIST_FIRST(&w->seats), *next;
    for (; s; s = next) {
        next = LIST_NEXT(s, link);
        if (!s->played && now - s->used >= idle && !seat_held(w, s))
            seat_forget(w, s);
    }
}

/* One stored seat row, read back into the index. */
static void seat_loaded(void *arg, const char *key, const char *value)
{
    struct web *w = arg;
    const char *hash = key + strlen(SEAT_PREFIX);
    struct json_object *o = json_tokener_parse(value);
    const char *name = web_get_str(o, "name", NULL), *user = web_get_str(o, "user", NULL);
    struct seat *s = NULL;
    if (strlen(hash) != 64 || !name || !web_valid_name(name, strlen(name)) || !user ||
        seat_by_hash(w, hash) || !(s = calloc(1, sizeof *s)) || !(s->user = strdup(user)) ||
        !(s->name = strdup(name))) {
        if (s)
            web_seat_free(s);
        log_warn(MOD, NULL, "a stored seat does not read; it is left out");
        json_object_put(o);
        return;
    }
    memcpy(s->hash, hash, 65);
    const char *addr = web_get_str(o, "addr", NULL);
    snprintf(s->addr, sizeof s->addr, "%s", addr ? addr : "");
    s->made = jget_int64(o, "made", &s->made) == 0 ? s->made : 0;
    s->used = jget_int64(o, "used", &s->used) == 0 ? s->used : 0;
    /* a seat from before seats were counted played in all likelihood: kept */
    if (!jget(o, "played") || jget_bool(o, "played", &s->played) < 0)
        s->played = true;
    LIST_INSERT_HEAD(&w->seats, s, link);
    w->nseats++;
    json_object_put(o);
}

/* The name rows of older builds ("name:<lower>"), to delete: the seat rows
 * say it all now. Collected first, since the walk must not change the store. */
struct name_rows {
    char **keys;
    size_t n, cap;
};

static void name_row(void *arg, const char *key, const char *value)
{
    struct name_rows *r = arg;
    (void)value;
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 16;
        char **keys = realloc(r->keys, cap * sizeof *keys);
        if (!keys)
            return; /* left for the next start */
        r->keys = keys;
        r->cap = cap;
    }
    if ((r->keys[r->n] = strdup(key)))
        r->n++;
}

void web_seats_load(struct web *w)
{
    const struct platform_host *h = w->base.host;
    if (!h->state_each)
        return;
    if (h->state_each(h->ctx, &w->base, SEAT_PREFIX, seat_loaded, w) < 0)
        log_error(MOD, NULL, "cannot read the seats from the store");
    struct name_rows rows = {0};
    h->state_each(h->ctx, &w->base, "name:", name_row, &rows);
    for (size_t i = 0; i < rows.n; i++) {
        if (h->state_del)
            h->state_del(h->ctx, &w->base, rows.keys[i]);
        free(rows.keys[i]);
    }
    free(rows.keys);
    web_seats_sweep(w);
}
