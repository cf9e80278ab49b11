/*
 * e2ee_recv.c - receiving: to-device messages (Olm), the room keys they carry,
 * and room events decrypted with them.
 *
 * A room key (m.room_key) is taken only from an Olm message whose plaintext
 * names the bot as its recipient and the to-device sender as its sender, and
 * whose signing key is the one that device published. A Megolm event is
 * decrypted only with a session of its own room and sender, and an index it
 * used for another event is refused (a replay). An event whose session is not
 * known yet waits in the store (E4), its key is asked for with
 * m.room_key_request from every device of its sender, and it is handled when
 * the key comes (m.room_key, or m.forwarded_room_key answering the request);
 * after E2E_KEY_WAIT_MS its room is told that a message could not be read.
 */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../bot/log.h"
#include "client.h"
#include "core/catalog.h"
#include "e2ee.h"

#define MOD "matrix"

/* ---- inbound sessions ---- */

static struct json_object *inbound_get(struct mx *m, const char *sid)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *rec = jget_obj(e->inbound, sid);
    if (rec)
        return rec;
    rec = e2e_load(m, "e2e/in/", sid);
    if (!rec || !json_object_is_type(rec, json_type_object)) {
        json_object_put(rec);
        return NULL;
    }
    if (json_object_object_length(e->inbound) >= 512) { /* a cache: start it afresh */
        json_object_put(e->inbound);
        e->inbound = json_object_new_object();
    }
    json_object_object_add(e->inbound, sid, rec);
    return rec;
}

/* Keeps at most E2E_IN_PER_SENDER sessions of one sender in one room: a sender cannot fill the
 * store with keys. */
static void inbound_index(struct mx *m, const char *room, const char *user, const char *sid)
{
    struct json_object *idx = e2e_load(m, "e2e/inidx/", room);
    if (!idx || !json_object_is_type(idx, json_type_object)) {
        json_object_put(idx);
        idx = json_object_new_object();
    }
    struct json_object *list = jget_arr(idx, user);
    if (!list) {
        list = json_object_new_array();
        json_object_object_add(idx, user, list);
    }
    json_object_array_add(list, json_object_new_string(sid));
    while (json_object_array_length(list) > E2E_IN_PER_SENDER) {
        const char *old = jarr_str(list, 0);
        if (old) {
            e2e_forget(m, "e2e/in/", old);
            json_object_object_del(m->e2ee->inbound, old);
        }
        json_object_array_del_idx(list, 0, 1);
    }
    e2e_store(m, "e2e/inidx/", room, idx);
    json_object_put(idx);
}

static void request_cancel(struct mx *m, const char *sid);

/* Takes a room key (content of m.room_key, or of m.forwarded_room_key with forwarded) that
 * user shared from the device of curve sk, which signs with ed. */
static void room_key(struct mx *m, const char *user, const char *sk, const char *ed,
                     struct json_object *content, bool forwarded)
{
    struct mx_e2ee *e = m->e2ee;
    const char *alg = jget_str(content, "algorithm"), *room = jget_str(content, "room_id");
    const char *sid = jget_str(content, "session_id"), *key = jget_str(content, "session_key");
    char wk[400];
    snprintf(wk, sizeof wk, "room key %s", user);
    if (!alg || strcmp(alg, E2E_MEGOLM) != 0 || !room || !sid || !key) {
        e2e_warn_once(m, wk, "a room key from %s is malformed or of an unknown algorithm", user);
        return;
    }
    const char *why = NULL;
    struct mxc_inbound *in = forwarded ? mxc_inbound_import(key, &why) : mxc_inbound_new(key, &why);
    char *id = in ? mxc_inbound_id(in) : NULL;
    char *p = id && strcmp(id, sid) == 0 ? mxc_inbound_pickle(in, e->key, e->keylen) : NULL;
    uint32_t first = in ? mxc_inbound_first_index(in) : 0;
    mxc_inbound_free(in);
    free(id);
    if (!p) {
        e2e_warn_once(m, wk, "a room key from %s cannot be used (%s)", user,
                      why ? why : "its id does not match");
        return;
    }
    struct json_object *old = inbound_get(m, sid);
    if (old) {
        const char *ou = jget_str(old, "user"), *osk = jget_str(old, "sk");
        if (!ou || strcmp(ou, user) != 0 || !osk || strcmp(osk, sk) != 0) {
            e2e_warn_once(m, wk, "%s sent the key of a session another device owns; ignored", user);
            free(p);
            return;
        }
        if (jget_int64_or(old, "first", 0) <= first) { /* ours reaches as far back already */
            free(p);
            request_cancel(m, sid);
            return;
        }
    }
    struct json_object *rec = json_object_new_object();
    json_object_object_add(rec, "p", json_object_new_string(p));
    free(p);
    json_object_object_add(rec, "room", json_object_new_string(room));
    json_object_object_add(rec, "user", json_object_new_string(user));
    json_object_object_add(rec, "sk", json_object_new_string(sk));
    if (ed)
        json_object_object_add(rec, "ed", json_object_new_string(ed));
    json_object_object_add(rec, "first", json_object_new_int64(first));
    e2e_store(m, "e2e/in/", sid, rec);
    json_object_object_add(e->inbound, sid, rec);
    if (!old)
        inbound_index(m, room, user, sid);
    request_cancel(m, sid);
    e->pending_retry = true;
}

/* ---- key requests ---- */

static void requests_save(struct mx *m)
{
    mx_state_set_json(m, "e2e/requests", m->e2ee->requests);
}

static void request_send(struct mx *m, const char *user, struct json_object *content)
{
    struct json_object *per = json_object_new_object();
    json_object_object_add(per, "*", content); /* every device of the sender */
    struct json_object *messages = json_object_new_object();
    json_object_object_add(messages, user, per);
    e2e_todevice(m, "m.room_key_request", messages, NULL, NULL);
}

/* Asks the devices of user for the key of the session of an event of room. */
static void request_key(struct mx *m, struct mx_room *r, const char *user,
                        struct json_object *content)
{
    struct mx_e2ee *e = m->e2ee;
    const char *sid = jget_str(content, "session_id");
    struct json_object *old = jget_obj(e->requests, sid);
    if (old && (int64_t)clock_wall_ms() - jget_int64_or(old, "t", 0) < E2E_RETRY_MS)
        return;
    char id[40] = "ild.kr.";
    unsigned char rnd[12];
    if (jget_str(old, "id"))
        snprintf(id, sizeof id, "%s", jget_str(old, "id")); /* the same request again */
    else if (mxc_random(rnd, sizeof rnd) == 0)
        for (size_t i = 0; i < sizeof rnd; i++)
            snprintf(id + 7 + 2 * i, 3, "%02x", rnd[i]);
    else
        return;
    const char *sk = jget_str(content, "sender_key");
    struct json_object *rec = json_object_new_object();
    json_object_object_add(rec, "id", json_object_new_string(id));
    json_object_object_add(rec, "room", json_object_new_string(r->id));
    json_object_object_add(rec, "user", json_object_new_string(user));
    if (sk)
        json_object_object_add(rec, "sk", json_object_new_string(sk));
    json_object_object_add(rec, "t", json_object_new_int64((int64_t)clock_wall_ms()));
    json_object_object_add(e->requests, sid, rec);
    requests_save(m);

    struct json_object *body = json_object_new_object();
    json_object_object_add(body, "algorithm", json_object_new_string(E2E_MEGOLM));
    json_object_object_add(body, "room_id", json_object_new_string(r->id));
    json_object_object_add(body, "session_id", json_object_new_string(sid));
    if (sk)
        json_object_object_add(body, "sender_key", json_object_new_string(sk));
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "action", json_object_new_string("request"));
    json_object_object_add(c, "body", body);
    json_object_object_add(c, "request_id", json_object_new_string(id));
    json_object_object_add(c, "requesting_device_id", json_object_new_string(m->device_id));
    request_send(m, user, c);
    log_info(MOD, NULL, "asked %s for the key of an encrypted event in %s", user, r->id);
}

static void request_cancel(struct mx *m, const char *sid)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *old = jget_obj(e->requests, sid);
    const char *id = jget_str(old, "id"), *user = jget_str(old, "user");
    if (!old)
        return;
    if (id && user) {
        struct json_object *c = json_object_new_object();
        json_object_object_add(c, "action", json_object_new_string("request_cancellation"));
        json_object_object_add(c, "request_id", json_object_new_string(id));
        json_object_object_add(c, "requesting_device_id", json_object_new_string(m->device_id));
        request_send(m, user, c);
    }
    json_object_object_del(e->requests, sid);
    requests_save(m);
}

/* A forwarded key is taken only as the answer to a request of ours, from the user asked. */
static void forwarded_key(struct mx *m, const char *sender, struct json_object *content)
{
    const char *sid = jget_str(content, "session_id");
    struct json_object *req = sid ? jget_obj(m->e2ee->requests, sid) : NULL;
    const char *ruser = jget_str(req, "user"), *rroom = jget_str(req, "room");
    const char *room = jget_str(content, "room_id"), *sk = jget_str(content, "sender_key");
    const char *rsk = jget_str(req, "sk");
    if (!req || !ruser || strcmp(ruser, sender) != 0 || !rroom || !room ||
        strcmp(rroom, room) != 0 || !sk || (rsk && strcmp(rsk, sk) != 0)) {
        char wk[400];
        snprintf(wk, sizeof wk, "forwarded %s", sender);
        e2e_warn_once(m, wk, "%s forwarded a room key the bot did not ask them for; ignored",
                      sender);
        return;
    }
    room_key(m, ruser, sk, jget_str(content, "sender_claimed_ed25519_key"), content, true);
}

/* ---- to-device messages ---- */

/* Whether the Olm plaintext p really comes from sender's device of curve sk, for the bot. */
static bool plaintext_ok(struct mx *m, const char *sender, const char *sk, struct json_object *p)
{
    struct mx_e2ee *e = m->e2ee;
    const char *ps = jget_str(p, "sender"), *rcpt = jget_str(p, "recipient");
    const char *rk = jget_str(jget_obj(p, "recipient_keys"), "ed25519");
    const char *ed = jget_str(jget_obj(p, "keys"), "ed25519");
    if (!ps || strcmp(ps, sender) != 0 || !rcpt || strcmp(rcpt, m->user_id) != 0 || !rk ||
        strcmp(rk, mxc_account_ed25519(e->acct)) != 0 || !ed)
        return false;
    /* the device that owns curve sk must sign with ed, when its keys are known */
    json_object_object_foreach(e2e_devices(m, sender), d, keys)
    {
        (void)d;
        const char *c = jget_str(keys, "curve"), *k = jget_str(keys, "ed");
        if (c && strcmp(c, sk) == 0)
            return k && strcmp(k, ed) == 0;
    }
    if (!e2e_devices_current(m, sender)) { /* learn the device, to check the next ones */
        struct json_object *users = json_object_new_array();
        json_object_array_add(users, json_object_new_string(sender));
        e2e_query(m, users);
        json_object_put(users);
    }
    return true;
}

static void olm_event(struct mx *m, const char *sender, struct json_object *content)
{
    struct mx_e2ee *e = m->e2ee;
    const char *alg = jget_str(content, "algorithm"), *sk = jget_str(content, "sender_key");
    struct json_object *mine =
        jget_obj(jget_obj(content, "ciphertext"), mxc_account_curve25519(e->acct));
    const char *body = jget_str(mine, "body");
    int64_t type = -1;
    char wk[400];
    snprintf(wk, sizeof wk, "to-device %s", sender);
    if (!alg || strcmp(alg, E2E_OLM) != 0 || !sk || !body || jget_int64(mine, "type", &type) != 0) {
        e2e_warn_once(m, wk,
                      "a to-device message from %s is malformed, not for this device, "
                      "or of an unknown algorithm; ignored",
                      sender);
        return;
    }
    struct json_object *commit = NULL;
    char *plain = e2e_olm_decrypt(m, sk, (int)type, body, &commit);
    struct json_object *p = plain ? json_tokener_parse(plain) : NULL;
    if (plain)
        explicit_bzero(plain, strlen(plain));
    free(plain);
    if (!p && !commit)
        e2e_unwedge(m, sender, sk);
    if (!p || !plaintext_ok(m, sender, sk, p)) {
        e2e_warn_once(m, wk,
                      "a to-device message from %s cannot be decrypted or is not "
                      "what it claims; ignored",
                      sender);
        json_object_put(p);
        json_object_put(commit); /* nothing it carried is kept: neither is the session */
        return;
    }
    const char *t = jget_str(p, "type");
    struct json_object *c = jget_obj(p, "content");
    if (t && c && strcmp(t, "m.room_key") == 0)
        room_key(m, sender, sk, jget_str(jget_obj(p, "keys"), "ed25519"), c, false);
    else if (t && c && strcmp(t, "m.forwarded_room_key") == 0)
        forwarded_key(m, sender, c);
    json_object_put(p);
    e2e_olm_commit(m, commit); /* E3: after what it carried is stored */
}

static void pending_retry(struct mx *m);

void e2e_to_device(struct mx *m, struct json_object *events)
{
    size_t n = jarr_len(events);
    if (n > E2E_TODEVICE_MAX) {
        e2e_warn_once(m, "flood", "%zu to-device messages in one sync: only the first %d are read",
                      n, E2E_TODEVICE_MAX);
        n = E2E_TODEVICE_MAX;
    }
    for (size_t i = 0; i < n; i++) {
        struct json_object *ev = jarr_at(events, i);
        const char *type = jget_str(ev, "type"), *sender = jget_str(ev, "sender");
        struct json_object *content = jget_obj(ev, "content");
        if (!type || !sender || !content)
            continue;
        if (strcmp(type, "m.room.encrypted") == 0)
            olm_event(m, sender, content);
        /* requests for the bot's own keys are not answered: other devices ask their owners */
    }
    pending_retry(m);
}

/* ---- room events ---- */

static void pending_save(struct mx *m)
{
    mx_state_set_json(m, "e2e/pending", m->e2ee->pending);
}

/* Keeps ev of room r until its key comes (E4): stored with the batch, before its token. At most
 * E2E_PENDING_PER_SENDER events of one sender wait, so that nobody fills the list. Returns
 * whether it was added now. */
static bool pending_add(struct mx *m, struct mx_room *r, struct json_object *ev)
{
    struct mx_e2ee *e = m->e2ee;
    const char *id = jget_str(ev, "event_id"), *sender = jget_str(ev, "sender");
    size_t theirs = 0;
    for (size_t i = 0; i < json_object_array_length(e->pending); i++) {
        struct json_object *other = jget_obj(jarr_at(e->pending, i), "ev");
        const char *oid = jget_str(other, "event_id"), *os = jget_str(other, "sender");
        if (oid && strcmp(oid, id) == 0)
            return false;
        theirs += os && sender && strcmp(os, sender) == 0;
    }
    if (theirs >= E2E_PENDING_PER_SENDER) {
        char wk[400];
        snprintf(wk, sizeof wk, "pending %s", sender);
        e2e_warn_once(m, wk, "%zu events of %s wait for their keys already; more are dropped",
                      theirs, sender);
        return false;
    }
    if (json_object_array_length(e->pending) >= E2E_PENDING_MAX) {
        e2e_warn_once(m, "pending full",
                      "%d encrypted events wait for their keys; the oldest "
                      "are given up",
                      E2E_PENDING_MAX);
        json_object_array_del_idx(e->pending, 0, 1);
    }
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "room", json_object_new_string(r->id));
    json_object_object_add(p, "ev", json_object_get(ev));
    json_object_object_add(p, "t", json_object_new_int64((int64_t)clock_wall_ms()));
    json_object_array_add(e->pending, p);
    e->pending_dirty = true;
    return true;
}

/* Remembers that index of session sid was event id; false when it was another event (a
 * replay). The record is written with the next commit. */
static bool index_fresh(struct mx *m, const char *sid, struct json_object *rec, uint32_t index,
                        const char *id)
{
    char k[16];
    snprintf(k, sizeof k, "%u", index);
    struct json_object *idx = jget_obj(rec, "idx");
    const char *seen = jget_str(idx, k);
    if (seen)
        return strcmp(seen, id) == 0;
    if (!idx) {
        idx = json_object_new_object();
        json_object_object_add(rec, "idx", idx);
    }
    json_object_object_add(idx, k, json_object_new_string(id));
    while (json_object_object_length(idx) > E2E_REPLAY_KEEP) {
        struct json_object_iterator it = json_object_iter_begin(idx);
        json_object_object_del(idx, json_object_iter_peek_name(&it));
    }
    char key[256];
    e2e_key(key, sizeof key, "e2e/in/", sid);
    mx_state_defer_json(m, key, rec);
    return true;
}

/* The decrypted form of ev: type and content from plaintext, the rest from ev; relations from
 * the clear part, where the spec puts them. NULL if plaintext is not a room event of r. */
static struct json_object *decrypted(struct mx_room *r, struct json_object *ev, const char *plain)
{
    struct json_object *p = json_tokener_parse(plain);
    const char *type = jget_str(p, "type"), *room = jget_str(p, "room_id");
    struct json_object *content = jget_obj(p, "content");
    if (!type || !content || !room || strcmp(room, r->id) != 0) {
        json_object_put(p);
        return NULL;
    }
    struct json_object *out = json_object_new_object();
    json_object_object_add(out, "type", json_object_new_string(type));
    struct json_object *c = json_object_new_object();
    json_object_object_foreach(content, k, v)
    {
        if (strcmp(k, "m.relates_to") != 0)
            json_object_object_add(c, k, json_object_get(v));
    }
    struct json_object *rel = jget(jget_obj(ev, "content"), "m.relates_to");
    if (rel)
        json_object_object_add(c, "m.relates_to", json_object_get(rel));
    json_object_object_add(out, "content", c);
    json_object_object_foreach(ev, k2, v2)
    {
        if (strcmp(k2, "type") != 0 && strcmp(k2, "content") != 0)
            json_object_object_add(out, k2, json_object_get(v2));
    }
    json_object_put(p);
    return out;
}

int mx_e2e_decrypt(struct mx *m, struct mx_room *r, struct json_object *ev,
                   struct json_object **out)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *content = jget_obj(ev, "content");
    const char *sender = jget_str(ev, "sender"), *id = jget_str(ev, "event_id");
    const char *alg = jget_str(content, "algorithm"), *ct = jget_str(content, "ciphertext");
    const char *sid = jget_str(content, "session_id");
    char wk[400];
    snprintf(wk, sizeof wk, "event %s", sender);
    *out = NULL;
    if (!e || !e->acct || !sender || !id)
        return -1;
    if (!alg || strcmp(alg, E2E_MEGOLM) != 0 || !ct || !sid) {
        e2e_warn_once(m, wk,
                      "an encrypted event from %s in %s is malformed or of an unknown "
                      "algorithm; ignored",
                      sender, r->id);
        return -1;
    }
    struct json_object *rec = inbound_get(m, sid);
    const char *ruser = jget_str(rec, "user"), *rroom = jget_str(rec, "room");
    if (rec && (!ruser || strcmp(ruser, sender) != 0 || !rroom || strcmp(rroom, r->id) != 0)) {
        e2e_warn_once(m, wk,
                      "an event from %s in %s uses a session of another sender or room; "
                      "ignored",
                      sender, r->id);
        return -1;
    }
    const char *p = jget_str(rec, "p");
    struct mxc_inbound *in = p ? mxc_inbound_unpickle(p, e->key, e->keylen, NULL) : NULL;
    size_t len = 0;
    uint32_t index = 0;
    const char *why = NULL;
    char *plain = in ? mxc_inbound_decrypt(in, ct, &len, &index, &why) : NULL;
    bool too_late = in && !plain && index < mxc_inbound_first_index(in);
    mxc_inbound_free(in);
    if (!plain && (!rec || too_late)) {
        if (pending_add(m, r, ev)) /* E4: stored with its batch */
            request_key(m, r, sender, content);
        return 1;
    }
    if (!plain || !index_fresh(m, sid, rec, index, id)) {
        e2e_warn_once(m, wk, "an encrypted event from %s in %s cannot be decrypted (%s); ignored",
                      sender, r->id,
                      plain ? "a message index used twice"
                      : why ? why
                            : "?");
        free(plain);
        return -1;
    }
    *out = decrypted(r, ev, plain);
    explicit_bzero(plain, len);
    free(plain);
    if (!*out) {
        e2e_warn_once(m, wk, "an encrypted event from %s in %s is not an event of that room",
                      sender, r->id);
        return -1;
    }
    return 0;
}

/* ---- events waiting for their key ---- */

static void pending_retry(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    if (!e->pending_retry)
        return;
    e->pending_retry = false;
    for (size_t i = 0; i < json_object_array_length(e->pending); i++) {
        struct json_object *p = jarr_at(e->pending, i);
        struct json_object *ev = jget_obj(p, "ev");
        const char *sid = jget_str(jget_obj(ev, "content"), "session_id");
        const char *room = jget_str(p, "room");
        struct mx_room *r = room ? mx_room_get(m, room, false) : NULL;
        if (jget_true(p, "done") || !sid || !inbound_get(m, sid) || !r)
            continue;
        struct json_object *dec = NULL;
        int rc = mx_e2e_decrypt(m, r, ev, &dec);
        if (rc == 1)
            continue;
        /* forgotten once the bot committed what it caused (mx_e2e_batch_done) */
        json_object_object_add(p, "done", json_object_new_boolean(1));
        if (rc == 0) {
            log_info(MOD, NULL, "the key of an event in %s came: it is handled now", room);
            mx_handle_event(m, r, dec);
        }
        json_object_put(dec);
        if (m->phase != MX_SYNCING && m->phase != MX_SNAPSHOT)
            return;
    }
}

void mx_e2e_batch_done(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    if (!e)
        return;
    struct json_object *keep = json_object_new_array();
    size_t n = json_object_array_length(e->pending);
    for (size_t i = 0; i < n; i++) {
        struct json_object *p = jarr_at(e->pending, i);
        if (!jget_true(p, "done"))
            json_object_array_add(keep, json_object_get(p));
    }
    bool changed = json_object_array_length(keep) != n;
    json_object_put(e->pending);
    e->pending = keep;
    if (changed || e->pending_dirty)
        pending_save(m);
    e->pending_dirty = false;
}

void e2e_recv_load(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *v = mx_state_get_json(m, "e2e/pending");
    json_object_put(e->pending);
    e->pending = json_object_new_array();
    for (size_t i = 0; v && json_object_is_type(v, json_type_array) && i < jarr_len(v); i++) {
        struct json_object *p = jarr_at(v, i);
        const char *id = jget_str(jget_obj(p, "ev"), "event_id");
        /* handled in the batch a crash interrupted, and committed: E4 */
        if (id && !mx_seen(m, id) && jget_str(p, "room"))
            json_object_array_add(e->pending, json_object_get(p));
    }
    json_object_put(v);
    v = mx_state_get_json(m, "e2e/requests");
    if (v && json_object_is_type(v, json_type_object)) {
        json_object_put(e->requests);
        e->requests = v;
    } else {
        json_object_put(v);
    }
    v = mx_state_get_json(m, "e2e/tracked");
    if (v && json_object_is_type(v, json_type_object)) {
        json_object_put(e->tracked);
        e->tracked = v;
    } else {
        json_object_put(v);
    }
    e->pending_retry = json_object_array_length(e->pending) > 0;
}

void e2e_pending_tick(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    int64_t now = (int64_t)clock_wall_ms();
    bool changed = false;
    for (size_t i = 0; i < json_object_array_length(e->pending);) {
        struct json_object *p = jarr_at(e->pending, i);
        int64_t t = jget_int64_or(p, "t", 0);
        if (now - t > E2E_PENDING_TTL_MS && !jget_true(p, "done")) {
            json_object_array_del_idx(e->pending, i, 1);
            changed = true;
            continue;
        }
        const char *room = jget_str(p, "room");
        struct mx_room *r = room ? mx_room_get(m, room, false) : NULL;
        if (r && !jget_true(p, "told") && now - t >= e->key_wait_ms) {
            mx_room_notice(m, r, "matrix.encrypted-room");
            json_object_object_add(p, "told", json_object_new_boolean(1));
            changed = true;
        }
        i++;
    }
    if (changed)
        pending_save(m);
    json_object_object_foreach(e->requests, sid, req)
    {
        if (now - jget_int64_or(req, "t", 0) > E2E_PENDING_TTL_MS) {
            json_object_object_del(e->requests, sid);
            requests_save(m);
            break; /* one a tick: the walk must not go on over a changed object */
        }
    }
}
