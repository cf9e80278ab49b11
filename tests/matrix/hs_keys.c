/*
 * hs_keys.c - the end-to-end encryption endpoints of the test homeserver,
 * as the client-server specification defines them and Synapse 1.67 serves
 * them: /keys/upload (device keys, one-time keys, fallback keys), /keys/query,
 * /keys/claim, /sendToDevice (idempotent per access token and transaction
 * id), and the sync sections: to_device (a message is dropped once a sync
 * with a later token acknowledges it), device_lists, the one-time key counts
 * and the unused fallback key types.
 *
 * Seeded variation: which one-time key a claim takes, how many to-device
 * messages one sync carries, the order of device_lists.changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_internal.h"

#define OTK_ALG "signed_curve25519"

static struct json_object *device_of(struct hs *hs, const char *user, const char *device)
{
    return hs_jget(hs_jget(hs->devices, user), device);
}

static void device_moved(struct hs *hs, const char *user)
{
    json_object_object_add(hs->device_moved, user, json_object_new_int64(++hs->pos));
    hs->dirty = true;
}

void hs_device_add(struct hs *hs, const char *user, const char *device)
{
    struct json_object *mine = hs_jobj(hs->devices, user);
    if (hs_jget(mine, device))
        return;
    struct json_object *d = json_object_new_object();
    json_object_object_add(d, "otk", json_object_new_object());
    json_object_object_add(d, "fallback", json_object_new_object());
    json_object_object_add(mine, device, d);
    device_moved(hs, user);
}

/* {"signed_curve25519": n, ...}: Synapse always counts signed_curve25519, 0 or not. */
static struct json_object *otk_counts(struct json_object *dev)
{
    struct json_object *counts = json_object_new_object();
    json_object_object_add(counts, OTK_ALG, json_object_new_int(0));
    json_object_object_foreach(hs_iter(hs_jget(dev, "otk")), id, key)
    {
        (void)key;
        char alg[64];
        snprintf(alg, sizeof(alg), "%.*s", (int)strcspn(id, ":"), id);
        struct json_object *n = hs_jget(counts, alg);
        json_object_object_add(counts, alg,
                               json_object_new_int(n ? json_object_get_int(n) + 1 : 1));
    }
    return counts;
}

static const char *upload_otks(struct json_object *dev, struct json_object *otks)
{
    json_object_object_foreach(hs_iter(otks), id, key)
    {
        if (!strchr(id, ':') || !json_object_is_type(key, json_type_object))
            return "one-time key ids are <algorithm>:<key id>, each with an object";
        struct json_object *old = hs_jget(hs_jget(dev, "otk"), id);
        if (old && !json_object_equal(old, key))
            return "One time key already exists with other content";
    }
    json_object_object_foreach(hs_iter(otks), id2, key2)
        json_object_object_add(hs_jget(dev, "otk"), id2, json_object_get(key2));
    return NULL;
}

/* One fallback key per algorithm; a new one replaces it, unused. */
static void upload_fallback(struct json_object *dev, struct json_object *keys)
{
    json_object_object_foreach(hs_iter(keys), id, key)
    {
        char alg[64];
        snprintf(alg, sizeof(alg), "%.*s", (int)strcspn(id, ":"), id);
        struct json_object *old = hs_jget(hs_jget(dev, "fallback"), alg);
        if (old && strcmp(hs_jstr(old, "id"), id) == 0 &&
            json_object_equal(hs_jget(old, "key"), key))
            continue;
        struct json_object *f = json_object_new_object();
        json_object_object_add(f, "id", json_object_new_string(id));
        json_object_object_add(f, "key", json_object_get(key));
        json_object_object_add(f, "used", json_object_new_boolean(0));
        json_object_object_add(hs_jget(dev, "fallback"), alg, f);
    }
}

void hs_on_keys_upload(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    struct json_object *dev = device_of(hs, rq->user, rq->device);
    struct json_object *dk = hs_jget(rq->body, "device_keys");
    struct json_object *otks = hs_jget(rq->body, "one_time_keys");
    struct json_object *fb = hs_jget(rq->body, "fallback_keys");
    if (!fb)
        fb = hs_jget(rq->body, "org.matrix.msc2732.fallback_keys");
    if (!dev || !rq->body || !json_object_is_type(rq->body, json_type_object)) {
        hs_error(rs, 400, "M_BAD_JSON", "keys upload needs a JSON object");
        return;
    }
    if (dk && (!hs_jstr(dk, "user_id") || strcmp(hs_jstr(dk, "user_id"), rq->user) != 0 ||
               !hs_jstr(dk, "device_id") || strcmp(hs_jstr(dk, "device_id"), rq->device) != 0 ||
               !json_object_is_type(hs_jget(dk, "keys"), json_type_object))) {
        hs_error(rs, 400, "M_INVALID_PARAM", "device_keys must be this user's and device's");
        return;
    }
    const char *bad = otks ? upload_otks(dev, otks) : NULL;
    if (bad) {
        hs_error(rs, 400, "M_UNKNOWN", bad);
        return;
    }
    if (dk && !json_object_equal(hs_jget(dev, "keys"), dk)) {
        json_object_object_add(dev, "keys", json_object_get(dk));
        device_moved(hs, rq->user);
    }
    if (fb && json_object_is_type(fb, json_type_object))
        upload_fallback(dev, fb);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "one_time_key_counts", otk_counts(dev));
    hs_reply(rs, 200, r);
}

/* A device's keys as /keys/query returns them: as uploaded, with unsigned display name. */
static struct json_object *queried_keys(const char *device, struct json_object *dev)
{
    struct json_object *k = NULL;
    json_object_deep_copy(hs_jget(dev, "keys"), &k, NULL);
    struct json_object *u = json_object_new_object();
    json_object_object_add(u, "device_display_name", json_object_new_string(device));
    json_object_object_add(k, "unsigned", u);
    return k;
}

void hs_on_keys_query(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    struct json_object *want = hs_jget(rq->body, "device_keys");
    if (!want || !json_object_is_type(want, json_type_object)) {
        hs_error(rs, 400, "M_BAD_JSON", "device_keys must be an object");
        return;
    }
    struct json_object *out = json_object_new_object();
    json_object_object_foreach(hs_iter(want), user, list)
    {
        struct json_object *found = json_object_new_object();
        bool all =
            !json_object_is_type(list, json_type_array) || json_object_array_length(list) == 0;
        json_object_object_foreach(hs_iter(hs_jget(hs->devices, user)), device, dev)
        {
            bool asked = all;
            for (size_t i = 0; !asked && i < json_object_array_length(list); i++)
                asked =
                    strcmp(json_object_get_string(json_object_array_get_idx(list, i)), device) == 0;
            if (asked && hs_jget(dev, "keys"))
                json_object_object_add(found, device, queried_keys(device, dev));
        }
        json_object_object_add(out, user, found);
    }
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "device_keys", out);
    json_object_object_add(r, "failures", json_object_new_object());
    hs_reply(rs, 200, r);
}

/* Takes one key of alg from the device: a one-time key (any one; which is seeded), else its
 * fallback key, marked used but kept. Returns {"alg:id": key} or NULL. */
static struct json_object *claim_one(struct hs *hs, struct json_object *dev, const char *alg)
{
    struct json_object *otk = hs_jget(dev, "otk");
    size_t alen = strlen(alg), n = 0;
    json_object_object_foreach(hs_iter(otk), id, key)
    {
        (void)key;
        n += strncmp(id, alg, alen) == 0 && id[alen] == ':';
    }
    if (n > 0) {
        size_t pick = (size_t)(hs_rnd(hs) % n), i = 0;
        json_object_object_foreach(hs_iter(otk), id2, key2)
        {
            if (strncmp(id2, alg, alen) != 0 || id2[alen] != ':' || i++ != pick)
                continue;
            struct json_object *r = json_object_new_object();
            json_object_object_add(r, id2, json_object_get(key2));
            json_object_object_del(otk, id2);
            return r;
        }
    }
    struct json_object *fb = hs_jget(hs_jget(dev, "fallback"), alg);
    if (!fb)
        return NULL;
    json_object_object_add(fb, "used", json_object_new_boolean(1));
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, hs_jstr(fb, "id"), json_object_get(hs_jget(fb, "key")));
    return r;
}

void hs_on_keys_claim(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    struct json_object *want = hs_jget(rq->body, "one_time_keys");
    if (!want || !json_object_is_type(want, json_type_object)) {
        hs_error(rs, 400, "M_BAD_JSON", "one_time_keys must be an object");
        return;
    }
    struct json_object *out = json_object_new_object();
    json_object_object_foreach(hs_iter(want), user, devices)
    {
        struct json_object *found = json_object_new_object();
        json_object_object_foreach(hs_iter(devices), device, alg)
        {
            struct json_object *dev = device_of(hs, user, device);
            struct json_object *k = dev && json_object_is_type(alg, json_type_string)
                                        ? claim_one(hs, dev, json_object_get_string(alg))
                                        : NULL;
            if (k)
                json_object_object_add(found, device, k);
        }
        if (json_object_object_length(found) > 0)
            json_object_object_add(out, user, found);
        else
            json_object_put(found);
    }
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "one_time_keys", out);
    json_object_object_add(r, "failures", json_object_new_object());
    hs_reply(rs, 200, r);
}

static void deliver(struct hs *hs, const char *user, const char *device, const char *type,
                    const char *sender, struct json_object *content)
{
    struct json_object *ev = json_object_new_object();
    json_object_object_add(ev, "content", json_object_get(content));
    json_object_object_add(ev, "type", json_object_new_string(type));
    json_object_object_add(ev, "sender", json_object_new_string(sender));
    struct json_object *entry = json_object_new_object();
    json_object_object_add(entry, "td", json_object_new_int64(++hs->td));
    json_object_object_add(entry, "event", ev);
    struct json_object *box = hs_jget(hs_jobj(hs->inbox, user), device);
    if (!box) {
        box = json_object_new_array();
        json_object_object_add(hs_jget(hs->inbox, user), device, box);
    }
    json_object_array_add(box, entry);
    hs->dirty = true;
}

/* PUT /sendToDevice/{eventType}/{txnId}: {"messages": {user: {device or "*": content}}}. */
void hs_on_send_to_device(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    struct json_object *msgs = hs_jget(rq->body, "messages");
    if (!msgs || !json_object_is_type(msgs, json_type_object)) {
        hs_error(rs, 400, "M_MISSING_PARAM", "Missing params: ['messages']");
        return;
    }
    char k[512];
    snprintf(k, sizeof(k), "%s|to-device|%s|%s", rq->token, rq->seg[1], rq->seg[2]);
    if (hs_jget(hs->txns, k)) {
        hs_reply(rs, 200, json_object_new_object());
        return;
    }
    json_object_object_add(hs->txns, k, json_object_new_boolean(1));
    json_object_object_foreach(hs_iter(msgs), user, by_device)
    {
        json_object_object_foreach(hs_iter(by_device), device, content)
        {
            json_object_object_foreach(hs_iter(hs_jget(hs->devices, user)), d, dev)
            {
                (void)dev;
                if (strcmp(device, "*") == 0 || strcmp(device, d) == 0)
                    deliver(hs, user, d, rq->seg[1], rq->user, content);
            }
        }
    }
    hs_reply(rs, 200, json_object_new_object());
}

/* ---- the sync sections ---- */

static struct json_object *to_device(struct hs *hs, const char *user, const char *device,
                                     long since_td, long *next_td)
{
    struct json_object *box = hs_jget(hs_jget(hs->inbox, user), device);
    /* A sync with this token acknowledges everything up to it. */
    while (box && json_object_array_length(box) > 0 &&
           json_object_get_int64(hs_jget(json_object_array_get_idx(box, 0), "td")) <= since_td)
        json_object_array_del_idx(box, 0, 1);
    size_t limit = hs_chance(hs, 4) ? 1 + (size_t)(hs_rnd(hs) % 3) : HS_TO_DEVICE_BATCH;
    struct json_object *evs = json_object_new_array();
    size_t n = box ? json_object_array_length(box) : 0;
    for (size_t i = 0; i < n && i < limit; i++) {
        struct json_object *e = json_object_array_get_idx(box, i);
        json_object_array_add(evs, json_object_get(hs_jget(e, "event")));
        *next_td = (long)json_object_get_int64(hs_jget(e, "td"));
    }
    if (n <= limit)
        *next_td = hs->td; /* nothing left behind: the token may move to the stream's end */
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "events", evs);
    return o;
}

/* Did user's membership in a room shared with other (or other's) change after since? */
static bool met_since(struct hs *hs, const char *user, const char *other, long since,
                      bool *share_now)
{
    bool moved = false;
    *share_now = false;
    json_object_object_foreach(hs->rooms, id, room)
    {
        struct json_object *pos = hs_jget(room, "pos");
        if (!hs_jget(pos, user) || !hs_jget(pos, other))
            continue;
        bool both = hs_joined(hs, id, user) && hs_joined(hs, id, other);
        *share_now = *share_now || both;
        moved = moved || json_object_get_int64(hs_jget(pos, user)) > since ||
                json_object_get_int64(hs_jget(pos, other)) > since;
    }
    return moved;
}

static struct json_object *device_lists(struct hs *hs, const char *user, long since)
{
    struct json_object *changed = json_object_new_array();
    struct json_object *left = json_object_new_array();
    struct json_object *mine = hs_jget(hs->device_moved, user);
    if (mine && json_object_get_int64(mine) > since)
        json_object_array_add(changed, json_object_new_string(user));
    json_object_object_foreach(hs->devices, other, devs)
    {
        (void)devs;
        if (strcmp(other, user) == 0)
            continue;
        bool share;
        bool met = met_since(hs, user, other, since, &share);
        struct json_object *mv = hs_jget(hs->device_moved, other);
        if (share && (met || (mv && json_object_get_int64(mv) > since)))
            json_object_array_add(changed, json_object_new_string(other));
        else if (!share && met)
            json_object_array_add(left, json_object_new_string(other));
    }
    /* No order is promised: sometimes the list comes reversed. */
    size_t n = json_object_array_length(changed);
    if (n > 1 && hs_chance(hs, 2)) {
        struct json_object *rev = json_object_new_array();
        for (size_t i = n; i > 0; i--)
            json_object_array_add(rev, json_object_get(json_object_array_get_idx(changed, i - 1)));
        json_object_put(changed);
        changed = rev;
    }
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "changed", changed);
    json_object_object_add(o, "left", left);
    return o;
}

void hs_sync_keys(struct hs *hs, struct json_object *out, const char *user, const char *device,
                  long since, long since_td, long *next_td, bool *changes)
{
    struct json_object *td = to_device(hs, user, device, since_td, next_td);
    if (json_object_array_length(hs_jget(td, "events")) > 0)
        *changes = true;
    json_object_object_add(out, "to_device", td);
    if (since >= 0) {
        struct json_object *dl = device_lists(hs, user, since);
        if (json_object_array_length(hs_jget(dl, "changed")) > 0 ||
            json_object_array_length(hs_jget(dl, "left")) > 0)
            *changes = true;
        json_object_object_add(out, "device_lists", dl);
    }
    struct json_object *dev = device_of(hs, user, device);
    json_object_object_add(out, "device_one_time_keys_count", otk_counts(dev));
    struct json_object *types = json_object_new_array();
    json_object_object_foreach(hs_iter(hs_jget(dev, "fallback")), alg, fb)
    {
        if (!json_object_get_boolean(hs_jget(fb, "used")))
            json_object_array_add(types, json_object_new_string(alg));
    }
    json_object_object_add(out, "device_unused_fallback_key_types", types);
}

/* ---- control ---- */

int hs_one_time_keys(struct hs *hs, const char *user, const char *device)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *dev = device_of(hs, user, device);
    int n = dev ? json_object_object_length(hs_jget(dev, "otk")) : -1;
    uv_mutex_unlock(&hs->mu);
    return n;
}

void hs_remove_device(struct hs *hs, const char *user, const char *device)
{
    uv_mutex_lock(&hs->mu);
    json_object_object_del(hs_jobj(hs->devices, user), device);
    json_object_object_del(hs_jobj(hs->inbox, user), device);
    struct json_object *gone = json_object_new_array();
    json_object_object_foreach(hs->tokens, tok, t)
    {
        if (strcmp(hs_jstr(t, "user"), user) == 0 && strcmp(hs_jstr(t, "device"), device) == 0)
            json_object_array_add(gone, json_object_new_string(tok));
    }
    for (size_t i = 0; i < json_object_array_length(gone); i++)
        json_object_object_del(hs->tokens,
                               json_object_get_string(json_object_array_get_idx(gone, i)));
    json_object_put(gone);
    device_moved(hs, user);
    hs_unlock_wake(hs);
}

int hs_to_device_pending(struct hs *hs, const char *user, const char *device)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *box = hs_jget(hs_jget(hs->inbox, user), device);
    int n = box ? (int)json_object_array_length(box) : 0;
    uv_mutex_unlock(&hs->mu);
    return n;
}
