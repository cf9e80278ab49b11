/*
 * e2ee_rooms.c - sending into encrypted rooms: one outbound Megolm session per
 * room, its key shared with every device of every member (joined or invited;
 * unverified devices too: a game bot cannot verify people), and the messages
 * it encrypts.
 *
 * Before a message of a room is encrypted, the room is made ready, step by
 * step, each step asynchronous and the pump run again when it is done: its
 * members are known (fetched once a run, then followed in the timeline), their
 * device lists are current, the session exists and is not due for rotation,
 * and its key went to every device that has none (an Olm session first, from a
 * claimed one-time key). The session rotates after the room's
 * rotation_period_msgs messages or rotation_period_ms (the spec's 100 and a
 * week by default), and at once when a member it reached leaves or loses a
 * device. A device that gives no one-time key is skipped for an hour.
 */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../bot/log.h"
#include "client.h"
#include "e2ee.h"

#define MOD "matrix"

void mx_e2e_room_config(struct mx_room *r, struct json_object *content)
{
    int64_t v;
    r->rot_ms = jget_int64(content, "rotation_period_ms", &v) == 0 && v > 0 ? v : E2E_ROT_MS;
    r->rot_msgs = jget_int64(content, "rotation_period_msgs", &v) == 0 && v > 0 ? v : E2E_ROT_MSGS;
}

void mx_e2e_room_free(struct mx_room *r)
{
    mxc_outbound_free(r->out);
    r->out = NULL;
    json_object_put(r->out_rec);
    r->out_rec = NULL;
    json_object_put(r->members);
    r->members = NULL;
}

/* Drops the room's outbound session: the next message starts a new one. */
static void rotate(struct mx *m, struct mx_room *r, const char *why)
{
    if (r->out || (r->out_rec && !r->out_loaded))
        log_info(MOD, NULL, "new encryption session in %s: %s", r->id, why);
    mxc_outbound_free(r->out);
    r->out = NULL;
    json_object_put(r->out_rec);
    r->out_rec = NULL;
    r->out_loaded = true;
    e2e_forget(m, "e2e/out/", r->id);
}

static bool shared_with(struct mx_room *r, const char *user)
{
    return jget_obj(jget_obj(r->out_rec, "shared"), user) != NULL;
}

void mx_e2e_member(struct mx *m, struct mx_room *r, const char *user, const char *ms)
{
    if (!m->e2ee || strcmp(user, m->user_id) == 0)
        return;
    bool in = strcmp(ms, "join") == 0 || strcmp(ms, "invite") == 0;
    if (r->members) {
        if (in)
            json_object_object_add(r->members, user, json_object_new_string(ms));
        else
            json_object_object_del(r->members, user);
    }
    if (!in && !r->out_loaded && r->encrypted) {
        /* not loaded yet in this run: the stored session may have reached them */
        struct json_object *rec = e2e_load(m, "e2e/out/", r->id);
        bool reached = jget_obj(jget_obj(rec, "shared"), user) != NULL;
        json_object_put(rec);
        if (reached)
            rotate(m, r, "a member left");
        return;
    }
    if (!in && shared_with(r, user))
        rotate(m, r, "a member left");
}

void e2e_devices_changed(struct mx *m, const char *user, struct json_object *devices)
{
    struct mx_room *r;
    SLIST_FOREACH(r, &m->rooms, link)
    {
        struct json_object *had = jget_obj(jget_obj(r->out_rec, "shared"), user);
        if (!had)
            continue;
        json_object_object_foreach(had, d, one)
        {
            (void)one;
            if (!jget(devices, d)) {
                rotate(m, r, "a member's device was removed");
                break;
            }
        }
    }
}

/* ---- members ---- */

/* Adds the joined and invited users of members ({user: membership}) but the bot to r->members. */
static void take_members(struct mx *m, struct mx_room *r, const char *user, const char *ms)
{
    if (user && ms && strcmp(user, m->user_id) != 0 &&
        (strcmp(ms, "join") == 0 || strcmp(ms, "invite") == 0))
        json_object_object_add(r->members, user, json_object_new_string(ms));
}

static enum mx_next on_members(void *arg, const struct mx_resp *resp)
{
    struct mx_req *q = arg;
    struct mx *m = q->m;
    struct mx_room *r = mx_room_get(m, q->key, false);
    struct json_object *chunk = jget_arr(resp->json, "chunk");
    if (resp->status == 401) {
        if (r)
            r->members_busy = false;
        mx_req_free(q);
        mx_token_rejected(m, "reading members");
        return MX_DONE;
    }
    if (r) {
        r->members_busy = false;
        json_object_put(r->members);
        r->members = json_object_new_object();
        for (size_t i = 0; i < jarr_len(chunk); i++) {
            struct json_object *ev = jarr_at(chunk, i);
            take_members(m, r, jget_str(ev, "state_key"),
                         jget_str(jget_obj(ev, "content"), "membership"));
        }
        if (resp->status != 200 || !chunk) {
            /* the members the sync showed this run, which may miss some (lazy loading) */
            e2e_warn_once(m, r->id,
                          "cannot read the members of %s (HTTP %ld %s); its keys go "
                          "to the members seen in the sync",
                          r->id, resp->status, resp->errcode ? resp->errcode : "");
            json_object_object_foreach(r->known, user, ms)
                take_members(m, r, user, json_object_get_string(ms));
        }
    }
    mx_req_free(q);
    mx_pump(m);
    return MX_DONE;
}

static void members_fetch(struct mx *m, struct mx_room *r)
{
    if (r->members_busy)
        return;
    char *er = mx_escape(r->id);
    struct mx_req *q = er ? mx_req_new(m, r->id) : NULL;
    char path[1024];
    snprintf(path, sizeof path, "/_matrix/client/v3/rooms/%s/members?not_membership=leave",
             er ? er : "");
    free(er);
    if (q &&
        mx_http_call(m->http, "GET", path, NULL, MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_members, q))
        r->members_busy = true;
    else if (q)
        mx_req_free(q);
}

/* ---- the outbound session ---- */

static int out_save(struct mx *m, struct mx_room *r)
{
    struct mx_e2ee *e = m->e2ee;
    char *p = mxc_outbound_pickle(r->out, e->key, e->keylen);
    if (!p)
        return -1;
    json_object_object_add(r->out_rec, "p", json_object_new_string(p));
    free(p);
    char k[256];
    e2e_key(k, sizeof k, "e2e/out/", r->id);
    return mx_state_put(m, k, json_object_to_json_string_ext(r->out_rec, JSON_C_TO_STRING_PLAIN));
}

/* Whether the stored session reached a device that a current device list no longer has. */
static bool reached_removed(struct mx *m, struct mx_room *r)
{
    struct json_object *shared = jget_obj(r->out_rec, "shared");
    if (!shared)
        return false;
    json_object_object_foreach(shared, user, devs)
    {
        if (!e2e_devices_current(m, user) || !json_object_is_type(devs, json_type_object))
            continue;
        struct json_object *now = e2e_devices(m, user);
        json_object_object_foreach(devs, d, one)
        {
            (void)one;
            if (!jget(now, d))
                return true;
        }
    }
    return false;
}

/* The room's session, loaded, rotated when due, or new (stored at once). 0, or -1. */
static int out_ready(struct mx *m, struct mx_room *r)
{
    struct mx_e2ee *e = m->e2ee;
    if (!r->out_loaded) {
        r->out_loaded = true;
        struct json_object *rec = e2e_load(m, "e2e/out/", r->id);
        const char *p = jget_str(rec, "p");
        r->out = p ? mxc_outbound_unpickle(p, e->key, e->keylen, NULL) : NULL;
        if (r->out)
            r->out_rec = rec;
        else
            json_object_put(rec);
        if (r->out && !jget_obj(r->out_rec, "shared"))
            json_object_object_add(r->out_rec, "shared", json_object_new_object());
        if (r->out && reached_removed(m, r))
            rotate(m, r, "a member's device was removed");
    }
    if (!r->rot_msgs)
        mx_e2e_room_config(r, NULL);
    int64_t created = jget_int64_or(r->out_rec, "created", 0);
    if (r->out && (int64_t)mxc_outbound_index(r->out) >= r->rot_msgs)
        rotate(m, r, "its message count is reached");
    else if (r->out && (int64_t)clock_wall_ms() - created >= r->rot_ms)
        rotate(m, r, "its time is up");
    if (r->out)
        return 0;
    r->out = mxc_outbound_new(NULL);
    if (!r->out)
        return -1;
    r->out_rec = json_object_new_object();
    json_object_object_add(r->out_rec, "room", json_object_new_string(r->id));
    json_object_object_add(r->out_rec, "created", json_object_new_int64((int64_t)clock_wall_ms()));
    json_object_object_add(r->out_rec, "shared", json_object_new_object());
    return out_save(m, r);
}

/* The members whose device list must be asked for, as a JSON array. */
static struct json_object *stale_members(struct mx *m, struct mx_room *r)
{
    struct json_object *stale = json_object_new_array();
    json_object_object_foreach(r->members, user, ms)
    {
        (void)ms;
        if (!e2e_devices_current(m, user))
            json_object_array_add(stale, json_object_new_string(user));
    }
    return stale;
}

/* The devices of members that lack the session's key: {user:{device:1}}. */
static struct json_object *lacking(struct mx *m, struct mx_room *r)
{
    struct json_object *out = json_object_new_object();
    struct json_object *shared = jget_obj(r->out_rec, "shared");
    json_object_object_foreach(r->members, user, ms)
    {
        (void)ms;
        struct json_object *per = NULL;
        json_object_object_foreach(e2e_devices(m, user), d, keys)
        {
            (void)keys;
            if (jget(jget_obj(shared, user), d) || e2e_no_otk(m, user, d))
                continue;
            if (!per) {
                per = json_object_new_object();
                json_object_object_add(out, user, per);
            }
            json_object_object_add(per, d, json_object_new_int(1));
        }
    }
    return out;
}

/* Of want, the devices without an Olm session: {user:{device:1}}. */
static struct json_object *without_session(struct mx *m, struct json_object *want)
{
    struct json_object *out = json_object_new_object();
    json_object_object_foreach(want, user, devs)
    {
        struct json_object *per = NULL;
        json_object_object_foreach(devs, d, one)
        {
            (void)one;
            const char *curve = jget_str(jget_obj(e2e_devices(m, user), d), "curve");
            if (curve && e2e_has_session(m, curve))
                continue;
            if (!per) {
                per = json_object_new_object();
                json_object_object_add(out, user, per);
            }
            json_object_object_add(per, d, json_object_new_int(1));
        }
    }
    return out;
}

/* Sends the session's key (m.room_key over Olm) to the devices of want. */
static void share(struct mx *m, struct mx_room *r, struct json_object *want)
{
    char *sid = mxc_outbound_id(r->out);
    char *skey = mxc_outbound_key(r->out);
    struct json_object *messages = json_object_new_object();
    size_t n = 0;
    json_object_object_foreach(want, user, devs)
    {
        json_object_object_foreach(devs, d, one)
        {
            (void)one;
            struct json_object *rk = json_object_new_object();
            json_object_object_add(rk, "algorithm", json_object_new_string(E2E_MEGOLM));
            json_object_object_add(rk, "room_id", json_object_new_string(r->id));
            json_object_object_add(rk, "session_id", json_object_new_string(sid ? sid : ""));
            json_object_object_add(rk, "session_key", json_object_new_string(skey ? skey : ""));
            struct json_object *payload = json_object_new_object();
            json_object_object_add(payload, "type", json_object_new_string("m.room_key"));
            json_object_object_add(payload, "content", rk);
            struct json_object *ct = sid && skey ? e2e_olm_encrypt(m, user, d, payload) : NULL;
            json_object_put(payload);
            if (!ct)
                continue;
            struct json_object *msg = e2e_olm_content(m, user, d, ct);
            struct json_object *per = jget_obj(messages, user);
            if (!per) {
                per = json_object_new_object();
                json_object_object_add(messages, user, per);
            }
            json_object_object_add(per, d, json_object_get(jget(jget_obj(msg, user), d)));
            json_object_put(msg);
            n++;
        }
    }
    if (skey)
        explicit_bzero(skey, strlen(skey));
    free(skey);
    if (n == 0) {
        json_object_put(messages);
        free(sid);
        return;
    }
    r->sharing = true;
    e2e_todevice(m, "m.room.encrypted", messages, r->id, sid);
    free(sid);
}

/* Whether room r's session reaches every device of its members; starts what is missing. */
static bool room_ready(struct mx *m, struct mx_room *r)
{
    if (r->sharing)
        return false;
    if (!r->members) {
        members_fetch(m, r);
        return false;
    }
    struct json_object *stale = stale_members(m, r);
    bool wait = json_object_array_length(stale) > 0;
    if (wait)
        e2e_query(m, stale);
    json_object_put(stale);
    if (wait || out_ready(m, r) != 0)
        return false;
    struct json_object *want = lacking(m, r);
    bool ready = json_object_object_length(want) == 0;
    if (!ready) {
        struct json_object *none = without_session(m, want);
        if (json_object_object_length(none) > 0)
            e2e_claim(m, none); /* its answer runs the pump; devices it misses are skipped */
        else
            share(m, r, want);
        json_object_put(none);
    }
    json_object_put(want);
    return ready;
}

void e2e_shared(struct mx *m, const char *room, const char *sid, struct json_object *messages,
                bool ok)
{
    struct mx_room *r = mx_room_get(m, room, false);
    if (!r)
        return;
    r->sharing = false;
    char *now = r->out ? mxc_outbound_id(r->out) : NULL;
    bool same = now && sid && strcmp(now, sid) == 0;
    free(now);
    struct json_object *shared = jget_obj(r->out_rec, "shared");
    json_object_object_foreach(messages, user, devs)
    {
        json_object_object_foreach(devs, d, content)
        {
            (void)content;
            if (!ok) {
                /* refused for good: skip those devices for a while rather than loop */
                char k[600];
                snprintf(k, sizeof k, "%s %s", user, d);
                json_object_object_add(m->e2ee->no_otk, k,
                                       json_object_new_int64((int64_t)clock_wall_ms()));
                continue;
            }
            if (!same)
                continue;
            struct json_object *per = jget_obj(shared, user);
            if (!per) {
                per = json_object_new_object();
                json_object_object_add(shared, user, per);
            }
            json_object_object_add(per, d, json_object_new_int(1));
        }
    }
    if (ok && same && out_save(m, r) != 0)
        log_error(MOD, NULL, "cannot store who holds the key of %s", r->id);
    mx_pump(m);
}

int mx_e2e_encrypt(struct mx *m, struct mx_room *r, const char *type, struct json_object *content,
                   struct json_object **out)
{
    struct mx_e2ee *e = m->e2ee;
    *out = NULL;
    if (!e || !e->acct) {
        e2e_warn_once(m, "no account",
                      "encryption is not ready (see above): messages to "
                      "encrypted rooms wait");
        return 1;
    }
    if (!room_ready(m, r))
        return 1;
    struct json_object *inner = json_object_new_object();
    json_object_object_foreach(content, k, v)
    {
        if (strcmp(k, "m.relates_to") != 0) /* relations stay in the clear */
            json_object_object_add(inner, k, json_object_get(v));
    }
    struct json_object *payload = json_object_new_object();
    json_object_object_add(payload, "type", json_object_new_string(type));
    json_object_object_add(payload, "content", inner);
    json_object_object_add(payload, "room_id", json_object_new_string(r->id));
    const char *text = json_object_to_json_string_ext(payload, JSON_C_TO_STRING_PLAIN);
    char *ct = mxc_outbound_encrypt(r->out, text, strlen(text));
    json_object_put(payload);
    char *sid = ct ? mxc_outbound_id(r->out) : NULL;
    /* E1: the session's next index is on disk before this message can leave */
    if (!sid || out_save(m, r) != 0) {
        log_error(MOD, NULL, "cannot encrypt or store the session of %s; the message waits", r->id);
        free(ct);
        free(sid);
        return 1;
    }
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "algorithm", json_object_new_string(E2E_MEGOLM));
    json_object_object_add(c, "sender_key",
                           json_object_new_string(mxc_account_curve25519(e->acct)));
    json_object_object_add(c, "ciphertext", json_object_new_string(ct));
    json_object_object_add(c, "session_id", json_object_new_string(sid));
    json_object_object_add(c, "device_id", json_object_new_string(m->device_id));
    struct json_object *rel = jget(content, "m.relates_to");
    if (rel)
        json_object_object_add(c, "m.relates_to", json_object_get(rel));
    free(ct);
    free(sid);
    *out = c;
    return 0;
}
