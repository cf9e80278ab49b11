/*
 * rooms.c - what the adapter knows about rooms: membership, encryption,
 * power levels, display names, the bot's direct rooms (m.direct account
 * data) and invites.
 */
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../bot/log.h"
#include "client.h"
#include "mx.h"

#define MOD "matrix"

struct mx_room *mx_room_get(struct mx *m, const char *id, bool create)
{
    struct mx_room *r;
    SLIST_FOREACH(r, &m->rooms, link)
    if (strcmp(r->id, id) == 0)
        return r;
    if (!create)
        return NULL;
    r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->id = strdup(id);
    r->names = json_object_new_object();
    r->gone = json_object_new_object();
    r->known = json_object_new_object();
    r->joined_n = r->invited_n = -1;
    if (!r->id || !r->names || !r->gone || !r->known) {
        free(r->id);
        json_object_put(r->names);
        json_object_put(r->gone);
        json_object_put(r->known);
        free(r);
        return NULL;
    }
    SLIST_INSERT_HEAD(&m->rooms, r, link);
    return r;
}

void mx_rooms_free(struct mx *m)
{
    while (!LIST_EMPTY(&m->reqs)) /* calls a stop cancelled: their callbacks never ran */
        mx_req_free(LIST_FIRST(&m->reqs));
    struct mx_room *r;
    while ((r = SLIST_FIRST(&m->rooms))) {
        SLIST_REMOVE_HEAD(&m->rooms, link);
        free(r->id);
        free(r->dm_for);
        free(r->inviter);
        free(r->alias);
        free(r->name);
        json_object_put(r->power);
        json_object_put(r->names);
        json_object_put(r->gone);
        json_object_put(r->known);
        mx_e2e_room_free(r);
        free(r);
    }
}

/* Power level key of o (an integer member), or def when it has none. */
static int power_level(const struct json_object *o, const char *key, int def)
{
    int64_t v;
    if (jget_int64(o, key, &v) < 0)
        return def;
    return v < INT_MIN ? INT_MIN : v > INT_MAX ? INT_MAX : (int)v;
}

void mx_room_apply_state(struct mx *m, struct mx_room *r, struct json_object *ev)
{
    const char *type = jget_str(ev, "type");
    const char *skey = jget_str(ev, "state_key");
    struct json_object *content = jget_obj(ev, "content");
    if (!type || !skey || !content)
        return;
    r->dirty = true;
    if (strcmp(type, "m.room.power_levels") == 0 && !*skey) {
        json_object_put(r->power);
        r->power = json_object_get(jget_obj(content, "users"));
        r->users_default = power_level(content, "users_default", 0);
    } else if (strcmp(type, "m.room.encryption") == 0 && !*skey) {
        r->encrypted = true;
        mx_e2e_room_config(r, content);
    } else if ((strcmp(type, "m.room.name") == 0 || strcmp(type, "m.room.canonical_alias") == 0) &&
               !*skey) {
        bool alias = type[7] == 'c';
        const char *v = jget_str(content, alias ? "alias" : "name");
        char **field = alias ? &r->alias : &r->name;
        free(*field);
        *field = v && *v ? strdup(v) : NULL;
    } else if (strcmp(type, MX_DM_MARKER) == 0 && !*skey) {
        const char *sender = jget_str(ev, "sender");
        const char *user = jget_str(content, "user");
        if (sender && strcmp(sender, m->user_id) == 0 && user) {
            free(r->dm_for);
            r->dm_for = strdup(user);
        }
    } else if (strcmp(type, "m.room.member") == 0) {
        const char *ms = jget_str(content, "membership");
        const char *name = jget_str(content, "displayname");
        if (ms && strcmp(ms, "join") == 0 && name)
            json_object_object_add(r->names, skey, json_object_new_string(name));
        else
            json_object_object_del(r->names, skey);
        if (ms && (strcmp(ms, "leave") == 0 || strcmp(ms, "ban") == 0))
            json_object_object_add(r->gone, skey, json_object_new_boolean(1));
        else if (ms)
            json_object_object_del(r->gone, skey);
        if (ms && strcmp(skey, m->user_id) == 0)
            r->joined = strcmp(ms, "join") == 0;
        if (ms) {
            json_object_object_add(r->known, skey, json_object_new_string(ms));
            mx_e2e_member(m, r, skey, ms);
            if (strcmp(skey, m->user_id) != 0 && strcmp(ms, "join") != 0 &&
                strcmp(ms, "invite") != 0)
                r->someone_left = true;
        }
    }
}

void mx_channel_name(struct mx *m, const char *room, char *out, size_t len)
{
    struct mx_room *r = mx_room_get(m, room, false);
    if (r && r->alias)
        snprintf(out, len, "%s", r->alias); /* clients link an alias */
    else if (r && r->name)
        snprintf(out, len, "%s (https://matrix.to/#/%s)", r->name, room);
    else
        snprintf(out, len, "https://matrix.to/#/%s", room);
}

struct json_object *mx_known_names(struct mx *m, const struct json_object *users)
{
    struct json_object *out = json_object_new_object();
    for (size_t i = 0; i < jarr_len(users); i++) {
        const char *u = jarr_str(users, i);
        struct mx_room *r;
        SLIST_FOREACH(r, &m->rooms, link)
        {
            const char *name = u ? jget_str(r->names, u) : NULL;
            if (name) {
                json_object_object_add(out, u, json_object_new_string(name));
                break;
            }
        }
    }
    return out;
}

/* ---- what is known of rooms, in the store ---- */

static void add_copy(struct json_object *to, const char *key, struct json_object *v)
{
    struct json_object *copy = NULL;
    if (v && json_object_deep_copy(v, &copy, NULL) == 0)
        json_object_object_add(to, key, copy);
}

void mx_rooms_save(struct mx *m)
{
    bool dirty = false;
    struct mx_room *r;
    SLIST_FOREACH(r, &m->rooms, link)
    dirty = dirty || r->dirty;
    if (!dirty)
        return;
    struct json_object *all = json_object_new_object();
    SLIST_FOREACH(r, &m->rooms, link)
    {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "joined", json_object_new_boolean(r->joined));
        json_object_object_add(o, "encrypted", json_object_new_boolean(r->encrypted));
        json_object_object_add(o, "state_seen", json_object_new_boolean(r->state_seen));
        json_object_object_add(o, "users_default", json_object_new_int(r->users_default));
        add_copy(o, "power", r->power);
        add_copy(o, "names", r->names);
        add_copy(o, "gone", r->gone);
        if (r->dm_for)
            json_object_object_add(o, "dm_for", json_object_new_string(r->dm_for));
        if (r->inviter)
            json_object_object_add(o, "inviter", json_object_new_string(r->inviter));
        if (r->alias)
            json_object_object_add(o, "alias", json_object_new_string(r->alias));
        if (r->name)
            json_object_object_add(o, "name", json_object_new_string(r->name));
        json_object_object_add(o, "joined_n", json_object_new_int(r->joined_n));
        json_object_object_add(o, "invited_n", json_object_new_int(r->invited_n));
        json_object_object_add(all, r->id, o);
        r->dirty = false;
    }
    mx_state_set_json(m, "rooms", all);
    json_object_put(all);
}

/* Replaces a room's member object with a copy of the stored one, if it is an object. */
static void load_obj(struct json_object **dst, struct json_object *o, const char *key)
{
    struct json_object *v = jget_obj(o, key), *copy = NULL;
    if (!v || json_object_deep_copy(v, &copy, NULL) != 0)
        return;
    json_object_put(*dst);
    *dst = copy;
}

void mx_rooms_load(struct mx *m)
{
    struct json_object *all = mx_state_get_json(m, "rooms");
    if (!all || !json_object_is_type(all, json_type_object)) {
        if (all)
            log_warn(MOD, NULL, "the stored rooms are not an object; ignoring them");
        json_object_put(all);
        return;
    }
    json_object_object_foreach(all, id, o)
    {
        struct mx_room *r = mx_room_get(m, id, true);
        if (!r || !json_object_is_type(o, json_type_object))
            continue;
        r->joined = jget_true(o, "joined");
        r->encrypted = jget_true(o, "encrypted");
        /* a store of an earlier version has no such field: its rooms count as seen */
        r->state_seen =
            !jget_type(o, "state_seen", json_type_boolean) || jget_true(o, "state_seen");
        r->users_default = power_level(o, "users_default", 0);
        if (jget_obj(o, "power"))
            load_obj(&r->power, o, "power");
        load_obj(&r->names, o, "names");
        load_obj(&r->gone, o, "gone");
        const char *dm = jget_str(o, "dm_for"), *inviter = jget_str(o, "inviter");
        free(r->dm_for);
        r->dm_for = dm ? strdup(dm) : NULL;
        free(r->inviter);
        r->inviter = inviter ? strdup(inviter) : NULL;
        const char *alias = jget_str(o, "alias"), *name = jget_str(o, "name");
        free(r->alias);
        r->alias = alias ? strdup(alias) : NULL;
        free(r->name);
        r->name = name ? strdup(name) : NULL;
        r->joined_n = (int)jget_int64_or(o, "joined_n", -1);
        r->invited_n = (int)jget_int64_or(o, "invited_n", -1);
    }
    json_object_put(all);
}

bool mx_room_is_moderator(struct mx *m, struct mx_room *r, const char *user)
{
    return power_level(r->power, user, r->users_default) >= m->mod_level;
}

/* Stores m.direct with the rooms the server has not shown yet, so that a restart knows every
 * direct room even if its PUT was lost. */
static void direct_store(struct mx *m)
{
    struct json_object *v = json_object_new_object();
    json_object_object_add(v, "direct", json_object_get(m->direct));
    json_object_object_add(v, "pending", json_object_get(m->direct_pending));
    mx_state_set_json(m, "direct", v);
    json_object_put(v);
}

void mx_direct_load(struct mx *m)
{
    struct json_object *v = mx_state_get_json(m, "direct");
    struct json_object *d = jget_obj(v, "direct");
    struct json_object *p = jget_obj(v, "pending");
    if (d) {
        json_object_put(m->direct);
        m->direct = json_object_get(d);
    }
    if (p) {
        json_object_put(m->direct_pending);
        m->direct_pending = json_object_get(p);
    }
    json_object_put(v);
}

static bool list_has(struct json_object *list, const char *room)
{
    for (size_t i = 0; list && i < json_object_array_length(list); i++) {
        const char *id = json_object_get_string(json_object_array_get_idx(list, i));
        if (id && strcmp(id, room) == 0)
            return true;
    }
    return false;
}

/* Puts room first in m->direct[user] (the newest direct room comes first). */
static void direct_prepend(struct mx *m, const char *user, const char *room)
{
    struct json_object *list = json_object_new_array();
    json_object_array_add(list, json_object_new_string(room));
    struct json_object *old = jget_arr(m->direct, user);
    for (size_t i = 0; old && i < json_object_array_length(old); i++) {
        const char *id = json_object_get_string(json_object_array_get_idx(old, i));
        if (id && strcmp(id, room) != 0)
            json_object_array_add(list, json_object_new_string(id));
    }
    json_object_object_add(m->direct, user, list);
}

/*
 * The server's m.direct replaces ours, except for the rooms added here that the server has not
 * shown yet: a sync answer can be older than the PUT that recorded them, and forgetting them
 * would make the bot create another room for the same player.
 */
void mx_direct_set(struct mx *m, struct json_object *content)
{
    if (!content || !json_object_is_type(content, json_type_object))
        return;
    struct json_object *copy = NULL;
    if (json_object_deep_copy(content, &copy, NULL) != 0)
        return;
    json_object_put(m->direct);
    m->direct = copy;
    struct json_object *still = json_object_new_object();
    json_object_object_foreach(m->direct_pending, user, rooms)
    {
        struct json_object *keep = json_object_new_array();
        struct json_object *server = jget_arr(m->direct, user);
        for (size_t i = 0; i < json_object_array_length(rooms); i++) {
            const char *id = json_object_get_string(json_object_array_get_idx(rooms, i));
            if (!id || list_has(server, id))
                continue;
            json_object_array_add(keep, json_object_new_string(id));
            direct_prepend(m, user, id);
        }
        if (json_object_array_length(keep) > 0)
            json_object_object_add(still, user, keep);
        else
            json_object_put(keep);
    }
    json_object_put(m->direct_pending);
    m->direct_pending = still;
    direct_store(m);
}

const char *mx_dm_user(struct mx *m, const char *room_id)
{
    json_object_object_foreach(m->direct, user, rooms)
    {
        if (!json_object_is_type(rooms, json_type_array))
            continue;
        for (size_t i = 0; i < json_object_array_length(rooms); i++) {
            const char *id = json_object_get_string(json_object_array_get_idx(rooms, i));
            if (id && strcmp(id, room_id) == 0)
                return user;
        }
    }
    return NULL;
}

const char *mx_dm_room(struct mx *m, const char *user)
{
    struct json_object *rooms = jget_arr(m->direct, user);
    for (size_t i = 0; rooms && i < json_object_array_length(rooms); i++) {
        const char *id = json_object_get_string(json_object_array_get_idx(rooms, i));
        struct mx_room *r = id ? mx_room_get(m, id, false) : NULL;
        /* An encrypted room is as good as any: skipping it made the bot create room after
         * room on servers that encrypt every new room. */
        if (r && r->joined && !jget_type(r->gone, user, json_type_boolean))
            return r->id;
    }
    return NULL;
}

static void direct_save(struct mx *m);

static enum mx_next on_direct_saved(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    if (r->status != 200)
        log_warn(MOD, NULL, "saving m.direct failed: HTTP %ld %s", r->status,
                 r->errcode ? r->errcode : "");
    m->direct_busy = false;
    if (m->direct_dirty && m->phase != MX_STOPPED)
        direct_save(m);
    return MX_DONE;
}

/* PUTs m.direct; one PUT at a time, so an older map never lands after a newer one. */
static void direct_save(struct mx *m)
{
    if (m->direct_busy) {
        m->direct_dirty = true;
        return;
    }
    char *eu = mx_escape(m->user_id);
    if (!eu)
        return;
    char path[1024];
    snprintf(path, sizeof(path), "/_matrix/client/v3/user/%s/account_data/m.direct", eu);
    free(eu);
    m->direct_dirty = false;
    if (mx_http_call(m->http, "PUT", path, json_object_to_json_string_ext(m->direct, 0),
                     MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_direct_saved, m))
        m->direct_busy = true;
}

/* Records room as user's direct room, here and in the account data. */
static void direct_add(struct mx *m, const char *user, const char *room)
{
    direct_prepend(m, user, room);
    struct json_object *pend = jget_arr(m->direct_pending, user);
    if (!pend) {
        pend = json_object_new_array();
        json_object_object_add(m->direct_pending, user, pend);
    }
    if (!list_has(pend, room))
        json_object_array_add(pend, json_object_new_string(room));
    direct_store(m);
    direct_save(m);
}

void mx_direct_flush(struct mx *m)
{
    if (json_object_object_length(m->direct_pending) > 0)
        direct_save(m);
}

static void on_dm_timer_cb(uv_timer_t *t)
{
    mx_dm_recheck(t->data, true);
}

struct mx_req *mx_req_new(struct mx *m, const char *key)
{
    struct mx_req *q = calloc(1, sizeof(*q));
    if (!q)
        return NULL;
    q->key = strdup(key);
    if (!q->key) {
        free(q);
        return NULL;
    }
    q->m = m;
    LIST_INSERT_HEAD(&m->reqs, q, link);
    return q;
}

void mx_req_free(struct mx_req *q)
{
    LIST_REMOVE(q, link);
    free(q->key);
    free(q->dm_user);
    free(q);
}

static void answer_probe(struct mx *m, const char *user, bool ok)
{
    if (!jget_type(m->probes, user, json_type_boolean))
        return;
    json_object_object_del(m->probes, user);
    json_object_object_add(m->probe_answers, user, json_object_new_boolean(ok));
    mx_defer(m);
}

/* A joined room the bot created earlier for user (its marker says so), still usable. */
static struct mx_room *marked_room(struct mx *m, const char *user)
{
    struct mx_room *r;
    SLIST_FOREACH(r, &m->rooms, link)
    if (r->dm_for && strcmp(r->dm_for, user) == 0 && r->joined &&
        !jget_type(r->gone, user, json_type_boolean))
        return r;
    return NULL;
}

static void dm_ready(struct mx *m, const char *user, const char *room, const char *how)
{
    direct_add(m, user, room);
    json_object_object_del(m->dm_creating, user);
    json_object_object_del(m->dm_recheck, user);
    log_info(MOD, NULL, "%s the direct room %s for %s", how, room, user);
    answer_probe(m, user, true);
}

static void arm_recheck(struct mx *m)
{
    if (m->phase != MX_STOPPED && json_object_object_length(m->dm_recheck) > 0 &&
        !uv_is_active((uv_handle_t *)&m->dm_timer))
        uv_timer_start(&m->dm_timer, on_dm_timer_cb, MX_DM_RECHECK_MS, 0);
}

static enum mx_next on_dm_created(void *arg, const struct mx_resp *r)
{
    struct mx_req *q = arg;
    struct mx *m = q->m;
    const char *room = jget_str(r->json, "room_id");
    if (r->status == 200 && room) {
        struct mx_room *rm = mx_room_get(m, room, true);
        if (rm) {
            rm->joined = true;
            free(rm->dm_for);
            rm->dm_for = strdup(q->key);
            rm->dirty = true;
            mx_rooms_save(m);
        }
        dm_ready(m, q->key, room, "created");
    } else if ((r->status == 0 || r->status >= 500 || r->status == 429 || r->status == 200) &&
               marked_room(m, q->key)) {
        /* No answer, but the sync already showed the room. */
        dm_ready(m, q->key, marked_room(m, q->key)->id, "found");
    } else if (r->status == 0 || r->status >= 500 || r->status == 429 || r->status == 200) {
        /* No usable answer: the room may exist anyway. Look for it in a sync that starts
         * after now (or after MX_DM_RECHECK_MS) before creating another one. */
        log_warn(MOD, NULL, "no answer to createRoom for %s (HTTP %ld); looking for the room first",
                 q->key, r->status);
        json_object_object_add(m->dm_recheck, q->key,
                               json_object_new_int64((int64_t)m->syncs_started));
        arm_recheck(m);
    } else {
        log_warn(MOD, NULL, "cannot create a direct room for %s: HTTP %ld %s", q->key, r->status,
                 r->errcode ? r->errcode : "");
        json_object_object_add(m->dm_creating, q->key, json_object_new_boolean(0));
        answer_probe(m, q->key, false);
    }
    mx_req_free(q);
    mx_pump(m);
    return MX_DONE;
}

/* Counts one more direct room created for user. false when MX_DM_CREATE_MAX were already
 * created in the window: a loop is cut short, and logged once a window. */
static bool dm_create_allowed(struct mx *m, const char *user)
{
    uint64_t now = clock_wall_ms();
    struct json_object *old = jget_arr(m->dm_created, user);
    struct json_object *recent = json_object_new_array();
    for (size_t i = 0; i < jarr_len(old); i++) {
        int64_t t = json_object_get_int64(jarr_at(old, i));
        if (t > 0 && now - (uint64_t)t < MX_DM_CREATE_WINDOW_MS)
            json_object_array_add(recent, json_object_new_int64(t));
    }
    size_t n = json_object_array_length(recent);
    bool ok = n < MX_DM_CREATE_MAX;
    if (n == MX_DM_CREATE_MAX) /* logged once: the entry added below marks it */
        log_error(MOD, NULL, "%d direct rooms created for %s within an hour; no more until later",
                  MX_DM_CREATE_MAX, user);
    if (n <= MX_DM_CREATE_MAX)
        json_object_array_add(recent, json_object_new_int64((int64_t)now));
    json_object_object_add(m->dm_created, user, recent);
    return ok;
}

static int create_dm(struct mx *m, const char *user)
{
    if (!dm_create_allowed(m, user))
        return -1;
    struct mx_req *q = mx_req_new(m, user);
    if (!q)
        return -1;
    struct json_object *body = json_object_new_object();
    json_object_object_add(body, "preset", json_object_new_string("trusted_private_chat"));
    json_object_object_add(body, "is_direct", json_object_new_boolean(1));
    struct json_object *inv = json_object_new_array();
    json_object_array_add(inv, json_object_new_string(user));
    json_object_object_add(body, "invite", inv);
    struct json_object *marker = json_object_new_object();
    json_object_object_add(marker, "type", json_object_new_string(MX_DM_MARKER));
    json_object_object_add(marker, "state_key", json_object_new_string(""));
    struct json_object *mc = json_object_new_object();
    json_object_object_add(mc, "user", json_object_new_string(user));
    json_object_object_add(marker, "content", mc);
    struct json_object *init = json_object_new_array();
    json_object_array_add(init, marker);
    json_object_object_add(body, "initial_state", init);
    /* Not retried by the client: a retry after a lost answer would make a second room. */
    struct mx_call *c = mx_http_call(m->http, "POST", "/_matrix/client/v3/createRoom",
                                     json_object_to_json_string_ext(body, 0), MX_CALL_TIMEOUT_MS,
                                     MX_CALL_ONCE, on_dm_created, q);
    json_object_put(body);
    if (!c) {
        mx_req_free(q);
        return -1;
    }
    json_object_object_add(m->dm_creating, user, json_object_new_boolean(1));
    return 0;
}

int mx_dm_ensure(struct mx *m, const char *user)
{
    bool creating;
    if (jget_bool(m->dm_creating, user, &creating) == 0)
        return creating ? 0 : -1;
    struct mx_room *r = marked_room(m, user);
    if (r) {
        /* Created before a crash or a lost answer, and not recorded yet. */
        dm_ready(m, user, r->id, "found");
        mx_defer(m);
        return 0;
    }
    return create_dm(m, user);
}

/*
 * Looks again for the rooms whose createRoom got no answer: after a sync that started since
 * (timer false), or when MX_DM_RECHECK_MS passed (timer true). A room found is used; otherwise
 * it is created again.
 */
void mx_dm_recheck(struct mx *m, bool timer)
{
    if (m->phase != MX_SYNCING)
        return;
    struct json_object *todo = json_object_new_array();
    json_object_object_foreach(m->dm_recheck, who, after)
    {
        if (timer || (uint64_t)json_object_get_int64(after) < m->syncs_started)
            json_object_array_add(todo, json_object_new_string(who));
    }
    for (size_t i = 0; i < json_object_array_length(todo); i++) {
        const char *user = json_object_get_string(json_object_array_get_idx(todo, i));
        json_object_object_del(m->dm_recheck, user);
        json_object_object_del(m->dm_creating, user);
        if (mx_dm_ensure(m, user) != 0) {
            json_object_object_add(m->dm_creating, user, json_object_new_boolean(0));
            answer_probe(m, user, false);
        }
    }
    json_object_put(todo);
    if (json_object_object_length(m->dm_recheck) == 0)
        uv_timer_stop(&m->dm_timer);
    mx_pump(m);
}

static enum mx_next on_joined(void *arg, const struct mx_resp *r)
{
    struct mx_req *q = arg;
    struct mx *m = q->m;
    json_object_object_del(m->joining, q->key);
    mx_state_set_json(m, "joining", m->joining);
    if (r->status == 200) {
        struct mx_room *rm = mx_room_get(m, q->key, true);
        if (rm) {
            rm->joined = true;
            rm->dirty = true;
            mx_rooms_save(m);
        }
        if (q->dm_user && !mx_dm_room(m, q->dm_user))
            direct_add(m, q->dm_user, q->key);
        log_info(MOD, NULL, "joined %s", q->key);
    } else {
        log_warn(MOD, NULL, "cannot join %s: HTTP %ld %s", q->key, r->status,
                 r->errcode ? r->errcode : "");
    }
    mx_req_free(q);
    return MX_DONE;
}

void mx_join(struct mx *m, const char *room_id, const char *dm_user)
{
    if (jget(m->joining, room_id))
        return;
    char *er = mx_escape(room_id);
    struct mx_req *q = er ? mx_req_new(m, room_id) : NULL;
    if (q && dm_user && !(q->dm_user = strdup(dm_user))) {
        mx_req_free(q);
        q = NULL;
    }
    if (!q) {
        free(er);
        return;
    }
    char path[1024];
    snprintf(path, sizeof(path), "/_matrix/client/v3/rooms/%s/join", er);
    free(er);
    if (!mx_http_call(m->http, "POST", path, "{}", MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_joined,
                      q)) {
        mx_req_free(q);
        return;
    }
    /* Stored: the invite is in one batch only, and a crash before the join must not lose it. */
    json_object_object_add(m->joining, room_id, json_object_new_string(dm_user ? dm_user : ""));
    mx_state_set_json(m, "joining", m->joining);
}

void mx_joins_resume(struct mx *m)
{
    struct json_object *todo = mx_state_get_json(m, "joining");
    if (todo && json_object_is_type(todo, json_type_object)) {
        json_object_object_foreach(todo, room, dm)
        {
            const char *u =
                json_object_is_type(dm, json_type_string) ? json_object_get_string(dm) : NULL;
            struct mx_room *r = mx_room_get(m, room, false);
            if (!r || !r->joined)
                mx_join(m, room, u && *u ? u : NULL);
        }
    }
    json_object_put(todo);
}
