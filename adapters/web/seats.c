/*
 * seats.c - seats: sha256(token) -> user id and display name, kept in the store.
 */
#include "internal.h"

/* ---- seats ---- */

/* The store key that reserves a name for one seat: "name:" and the name in lower case. */
static void name_key(const char *name, char key[6 + WEB_NAME_MAX + 1])
{
    size_t n = strlen(name);
    memcpy(key, "name:", 5);
    for (size_t i = 0; i < n && i < WEB_NAME_MAX; i++)
        key[5 + i] = (char)tolower((unsigned char)name[i]);
    key[5 + (n < WEB_NAME_MAX ? n : WEB_NAME_MAX)] = '\0';
}

/* Whether name belongs to a seat other than s: in memory, or reserved in the store. */
bool web_name_taken(struct web *w, const struct seat *s, const char *name)
{
    for (struct seat *o = LIST_FIRST(&w->seats); o; o = LIST_NEXT(o, link))
        if (o != s && o->name && strcasecmp(o->name, name) == 0)
            return true;
    if (!w->base.host->state_get)
        return false;
    char key[6 + WEB_NAME_MAX + 1];
    name_key(name, key);
    char *owner = w->base.host->state_get(w->base.host->ctx, &w->base, key);
    bool taken = owner && owner[0] && strcmp(owner, s->hash) != 0;
    free(owner);
    return taken;
}

void web_name_reserve(struct web *w, const char *name, const char *hash)
{
    if (!w->base.host->state_set)
        return;
    char key[6 + WEB_NAME_MAX + 1];
    name_key(name, key);
    w->base.host->state_set(w->base.host->ctx, &w->base, key, hash);
}

/* Deletes the store row that reserved a name the seat gave up. */
void web_name_release(struct web *w, const char *name)
{
    if (!w->base.host->state_del)
        return;
    char key[6 + WEB_NAME_MAX + 1];
    name_key(name, key);
    if (w->base.host->state_del(w->base.host->ctx, &w->base, key) != 0)
        log_warn(MOD, NULL, "could not release the name %s", name);
}

void web_seat_free(struct seat *s)
{
    free(s->user);
    free(s->name);
    free(s);
}

/* Forgets the seat of user in memory once no socket holds it (the store keeps it). */
void web_seat_release(struct web *w, const char *user)
{
    for (const struct conn *c = LIST_FIRST(&w->conns); c; c = LIST_NEXT(c, link))
        if (c->user && strcmp(c->user, user) == 0)
            return;
    for (struct seat *s = LIST_FIRST(&w->seats); s; s = LIST_NEXT(s, link)) {
        if (strcmp(s->user, user) == 0) {
            LIST_REMOVE(s, link);
            web_seat_free(s);
            return;
        }
    }
}

void web_seat_save(struct web *w, const struct seat *s)
{
    if (!w->base.host->state_set)
        return;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "user", json_object_new_string(s->user));
    json_object_object_add(o, "name", json_object_new_string(s->name));
    char key[80];
    snprintf(key, sizeof key, "seat:%s", s->hash);
    const char *str = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    if (str && w->base.host->state_set(w->base.host->ctx, &w->base, key, str) != 0)
        log_warn(MOD, NULL, "could not store the seat of %s", s->user);
    json_object_put(o);
}

/*
 * The seat of token: from memory (*fresh false), or else read from the store
 * or new with no name yet (*fresh true: not yet in w->seats; the caller links
 * it once the hello succeeds, or frees it).
 */
struct seat *web_seat_get(struct web *w, const char *token, bool *fresh)
{
    char hash[65];
    web_sha256_hex("", token, hash);
    *fresh = false;
    for (struct seat *s = LIST_FIRST(&w->seats); s; s = LIST_NEXT(s, link))
        if (strcmp(s->hash, hash) == 0)
            return s;
    struct seat *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    memcpy(s->hash, hash, sizeof hash);
    char uid[65];
    web_sha256_hex("illegald-web-user\n", token, uid);
    char user[18];
    user[0] = 'w';
    memcpy(user + 1, uid, 16);
    user[17] = '\0';
    s->user = strdup(user);
    if (w->base.host->state_get) {
        char key[80];
        snprintf(key, sizeof key, "seat:%s", hash);
        char *str = w->base.host->state_get(w->base.host->ctx, &w->base, key);
        struct json_object *o = str ? json_tokener_parse(str) : NULL;
        free(str);
        const char *name = o ? web_get_str(o, "name", NULL) : NULL;
        if (name && web_valid_name(name, strlen(name)))
            s->name = strdup(name);
        json_object_put(o);
    }
    if (!s->user) {
        web_seat_free(s);
        return NULL;
    }
    *fresh = true;
    return s;
}
