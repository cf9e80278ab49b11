/*
 * rooms.c - what the adapter knows about rooms: membership, encryption,
 * power levels, display names, the bot's direct rooms (m.direct account
 * data) and invites.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../bot/log.h"
#include "client.h"
#include "mx.h"

#define MOD "matrix"

struct mx_room *mx_room_get(struct mx *m, const char *id, bool create)
{
    for (struct mx_room *r = m->rooms; r; r = r->next)
        if (strcmp(r->id, id) == 0)
            return r;
    if (!create)
        return NULL;
    struct mx_room *r = calloc(1, sizeof(*r));
    if (!r)
        return NULL;
    r->id = strdup(id);
    r->names = json_object_new_object();
    if (!r->id || !r->names) {
        free(r->id);
        json_object_put(r->names);
        free(r);
        return NULL;
    }
    r->next = m->rooms;
    m->rooms = r;
    return r;
}

void mx_rooms_free(struct mx *m)
{
    while (m->rooms) {
        struct mx_room *r = m->rooms;
        m->rooms = r->next;
        free(r->id);
        json_object_put(r->power);
        json_object_put(r->names);
        free(r);
    }
}

void mx_room_apply_state(struct mx *m, struct mx_room *r, struct json_object *ev)
{
    const char *type = mx_jstr(ev, "type");
    const char *skey = mx_jstr(ev, "state_key");
    struct json_object *content = mx_jobj(ev, "content", json_type_object);
    if (!type || !skey || !content)
        return;
    if (strcmp(type, "m.room.power_levels") == 0 && !*skey) {
        json_object_put(r->power);
        r->power = json_object_get(mx_jobj(content, "users", json_type_object));
        struct json_object *d = mx_jobj(content, "users_default", json_type_int);
        r->users_default = d ? json_object_get_int(d) : 0;
    } else if (strcmp(type, "m.room.encryption") == 0 && !*skey) {
        r->encrypted = true;
    } else if (strcmp(type, "m.room.member") == 0) {
        const char *ms = mx_jstr(content, "membership");
        const char *name = mx_jstr(content, "displayname");
        if (ms && strcmp(ms, "join") == 0 && name)
            json_object_object_add(r->names, skey, json_object_new_string(name));
        else
            json_object_object_del(r->names, skey);
        if (ms && strcmp(skey, m->user_id) == 0)
            r->joined = strcmp(ms, "join") == 0;
    }
}

bool mx_room_is_moderator(struct mx *m, struct mx_room *r, const char *user)
{
    int level = r->users_default;
    struct json_object *v = mx_jobj(r->power, user, json_type_int);
    if (v)
        level = json_object_get_int(v);
    return level >= m->mod_level;
}

void mx_direct_set(struct mx *m, struct json_object *content)
{
    if (!content || !json_object_is_type(content, json_type_object))
        return;
    struct json_object *copy = NULL;
    if (json_object_deep_copy(content, &copy, NULL) != 0)
        return;
    json_object_put(m->direct);
    m->direct = copy;
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
    struct json_object *rooms = mx_jobj(m->direct, user, json_type_array);
    for (size_t i = 0; rooms && i < json_object_array_length(rooms); i++) {
        const char *id = json_object_get_string(json_object_array_get_idx(rooms, i));
        struct mx_room *r = id ? mx_room_get(m, id, false) : NULL;
        if (r && r->joined && !r->encrypted)
            return r->id;
    }
    return NULL;
}

static enum mx_next on_direct_saved(void *arg, const struct mx_resp *r)
{
    (void)arg;
    if (r->status != 200)
        log_warn(MOD, NULL, "saving m.direct failed: HTTP %ld %s", r->status,
                 r->errcode ? r->errcode : "");
    return MX_DONE;
}

static void direct_save(struct mx *m)
{
    char *eu = mx_escape(m->user_id);
    if (!eu)
        return;
    char path[1024];
    snprintf(path, sizeof(path), "/_matrix/client/v3/user/%s/account_data/m.direct", eu);
    free(eu);
    mx_http_call(m->http, "PUT", path, json_object_to_json_string_ext(m->direct, 0),
                 MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_direct_saved, m);
}

struct dm_req {
    struct mx *m;
    char *user;
};

static void answer_probe(struct mx *m, const char *user, bool ok)
{
    if (!mx_jobj(m->probes, user, json_type_boolean))
        return;
    json_object_object_del(m->probes, user);
    json_object_object_add(m->probe_answers, user, json_object_new_boolean(ok));
    mx_defer(m);
}

static enum mx_next on_dm_created(void *arg, const struct mx_resp *r)
{
    struct dm_req *q = arg;
    struct mx *m = q->m;
    const char *room = mx_jstr(r->json, "room_id");
    if (r->status == 200 && !room)
        return MX_RETRY;
    if (r->status == 200) {
        struct mx_room *rm = mx_room_get(m, room, true);
        if (rm)
            rm->joined = true;
        struct json_object *list = json_object_new_array();
        json_object_array_add(list, json_object_new_string(room));
        struct json_object *old = mx_jobj(m->direct, q->user, json_type_array);
        for (size_t i = 0; old && i < json_object_array_length(old); i++)
            json_object_array_add(list, json_object_get(json_object_array_get_idx(old, i)));
        json_object_object_add(m->direct, q->user, list);
        direct_save(m);
        json_object_object_del(m->dm_creating, q->user);
        log_info(MOD, NULL, "created the direct room %s for %s", room, q->user);
        answer_probe(m, q->user, true);
    } else {
        log_warn(MOD, NULL, "cannot create a direct room for %s: HTTP %ld %s", q->user, r->status,
                 r->errcode ? r->errcode : "");
        json_object_object_add(m->dm_creating, q->user, json_object_new_boolean(0));
        answer_probe(m, q->user, false);
    }
    free(q->user);
    free(q);
    mx_pump(m);
    return MX_DONE;
}

int mx_dm_ensure(struct mx *m, const char *user)
{
    struct json_object *st;
    if (json_object_object_get_ex(m->dm_creating, user, &st))
        return json_object_get_boolean(st) ? 0 : -1;
    struct dm_req *q = calloc(1, sizeof(*q));
    if (!q)
        return -1;
    q->m = m;
    q->user = strdup(user);
    struct json_object *body = json_object_new_object();
    json_object_object_add(body, "preset", json_object_new_string("trusted_private_chat"));
    json_object_object_add(body, "is_direct", json_object_new_boolean(1));
    struct json_object *inv = json_object_new_array();
    json_object_array_add(inv, json_object_new_string(user));
    json_object_object_add(body, "invite", inv);
    struct mx_call *c = NULL;
    if (q->user)
        c = mx_http_call(m->http, "POST", "/_matrix/client/v3/createRoom",
                         json_object_to_json_string_ext(body, 0), MX_CALL_TIMEOUT_MS, MX_CALL_RETRY,
                         on_dm_created, q);
    json_object_put(body);
    if (!c) {
        free(q->user);
        free(q);
        return -1;
    }
    json_object_object_add(m->dm_creating, user, json_object_new_boolean(1));
    return 0;
}

bool mx_invite_allowed(struct mx *m, const char *inviter)
{
    if (!m->invite_allow || !*m->invite_allow)
        return true;
    if (!inviter)
        return false;
    const char *colon = strchr(inviter, ':');
    const char *p = m->invite_allow;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, ",");
        size_t k = n;
        while (k > 0 && p[k - 1] == ' ')
            k--;
        if (k > 0) {
            if (p[0] == '@') {
                if (strlen(inviter) == k && strncmp(inviter, p, k) == 0)
                    return true;
            } else if (colon && strlen(colon + 1) == k && strncmp(colon + 1, p, k) == 0) {
                return true;
            }
        }
        p += n;
    }
    return false;
}

struct join_req {
    struct mx *m;
    char *room;
};

static enum mx_next on_joined(void *arg, const struct mx_resp *r)
{
    struct join_req *q = arg;
    struct mx *m = q->m;
    json_object_object_del(m->joining, q->room);
    if (r->status == 200) {
        struct mx_room *rm = mx_room_get(m, q->room, true);
        if (rm)
            rm->joined = true;
        log_info(MOD, NULL, "joined %s", q->room);
    } else {
        log_warn(MOD, NULL, "cannot join %s: HTTP %ld %s", q->room, r->status,
                 r->errcode ? r->errcode : "");
    }
    free(q->room);
    free(q);
    return MX_DONE;
}

void mx_join(struct mx *m, const char *room_id)
{
    if (mx_jobj(m->joining, room_id, json_type_boolean))
        return;
    struct join_req *q = calloc(1, sizeof(*q));
    char *er = mx_escape(room_id);
    if (!q || !er) {
        free(q);
        free(er);
        return;
    }
    q->m = m;
    q->room = strdup(room_id);
    char path[1024];
    snprintf(path, sizeof(path), "/_matrix/client/v3/rooms/%s/join", er);
    free(er);
    if (!q->room || !mx_http_call(m->http, "POST", path, "{}", MX_CALL_TIMEOUT_MS, MX_CALL_RETRY,
                                  on_joined, q)) {
        free(q->room);
        free(q);
        return;
    }
    json_object_object_add(m->joining, room_id, json_object_new_boolean(1));
}
