/*
 * e2ee_devices.c - other devices: their keys (/keys/query, tracked through
 * device_lists in sync), their one-time keys (/keys/claim), the Olm sessions
 * the bot has with them, and the to-device messages it sends them.
 *
 * One query and one claim are in flight at a time (the spec's guard against
 * answers overtaking each other); a user whose devices change while a query
 * runs stays outdated and is asked again. A device's keys are taken only with
 * a valid self-signature, and a device whose Ed25519 key changes under the
 * same id is not believed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../bot/log.h"
#include "client.h"
#include "e2ee.h"

#define MOD "matrix"

/* ---- device lists ---- */

static void tracked_save(struct mx *m)
{
    mx_state_set_json(m, "e2e/tracked", m->e2ee->tracked);
}

struct json_object *e2e_devices(struct mx *m, const char *user)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *d = jget_obj(e->devices, user);
    if (d)
        return d;
    d = e2e_load(m, "e2e/dev/", user);
    if (!d || !json_object_is_type(d, json_type_object)) {
        json_object_put(d);
        d = json_object_new_object();
    }
    json_object_object_add(e->devices, user, d);
    return d;
}

bool e2e_devices_current(struct mx *m, const char *user)
{
    int64_t v;
    return jget_int64(m->e2ee->tracked, user, &v) == 0 && v == 0;
}

void e2e_outdated(struct mx *m, const char *user)
{
    struct mx_e2ee *e = m->e2ee;
    if (jget(e->querying, user)) /* the answer in flight may be older than the change */
        json_object_object_add(e->querying, user, json_object_new_int(1));
    if (!jget(e->tracked, user))
        return;
    json_object_object_add(e->tracked, user, json_object_new_int(1));
    tracked_save(m);
    mx_pump(m); /* rooms with this user share again once the list is known */
}

void e2e_untrack(struct mx *m, const char *user)
{
    struct mx_e2ee *e = m->e2ee;
    if (!jget(e->tracked, user))
        return;
    json_object_object_del(e->tracked, user);
    json_object_object_del(e->devices, user);
    tracked_save(m);
    e2e_forget(m, "e2e/dev/", user);
}

/* The device d of user u in a /keys/query answer, if its keys are whole and self-signed:
 * {"curve","ed"}, or NULL. */
static struct json_object *checked_device(struct mx *m, const char *u, const char *d,
                                          struct json_object *keys)
{
    char kc[300], ke[300];
    snprintf(kc, sizeof kc, "curve25519:%s", d);
    snprintf(ke, sizeof ke, "ed25519:%s", d);
    const char *curve = jget_str(jget_obj(keys, "keys"), kc);
    const char *ed = jget_str(jget_obj(keys, "keys"), ke);
    const char *ku = jget_str(keys, "user_id"), *kd = jget_str(keys, "device_id");
    if (!curve || !ed || !ku || !kd || strcmp(ku, u) != 0 || strcmp(kd, d) != 0 ||
        !mx_verify_json(keys, u, ke, ed)) {
        char why[400];
        snprintf(why, sizeof why, "device %s %s", u, d);
        e2e_warn_once(m, why,
                      "device %s of %s has keys that are not whole or not signed by "
                      "itself; ignoring it",
                      d, u);
        return NULL;
    }
    struct json_object *old = jget_obj(e2e_devices(m, u), d);
    const char *old_ed = jget_str(old, "ed");
    if (old_ed && strcmp(old_ed, ed) != 0) {
        char why[400];
        snprintf(why, sizeof why, "changed %s %s", u, d);
        e2e_warn_once(m, why,
                      "device %s of %s came with another signing key than before; "
                      "keeping the old one",
                      d, u);
        return json_object_get(old);
    }
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "curve", json_object_new_string(curve));
    json_object_object_add(o, "ed", json_object_new_string(ed));
    return o;
}

/* Takes the devices of user u from a /keys/query answer (NULL: none, or the server failed). */
static void take_devices(struct mx *m, const char *u, struct json_object *answer)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *list = json_object_new_object();
    if (!json_object_is_type(answer, json_type_object))
        answer = list; /* none: an empty walk */
    json_object_object_foreach(answer, d, keys)
    {
        if (strcmp(u, m->user_id) == 0 && strcmp(d, m->device_id) == 0)
            continue; /* the bot itself */
        struct json_object *dev =
            json_object_is_type(keys, json_type_object) ? checked_device(m, u, d, keys) : NULL;
        if (dev)
            json_object_object_add(list, d, dev);
    }
    e2e_store(m, "e2e/dev/", u, list);
    json_object_object_add(e->devices, u, json_object_get(list));
    e2e_devices_changed(m, u, list);
    json_object_put(list);
}

static void query_start(struct mx *m);

static enum mx_next on_queried(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    struct mx_e2ee *e = m->e2ee;
    e->query_call = NULL;
    if (r->status == 401) {
        json_object_put(e->querying);
        e->querying = json_object_new_object();
        mx_token_rejected(m, "querying device keys");
        return MX_DONE;
    }
    struct json_object *keys = jget_obj(r->json, "device_keys");
    if (r->status != 200 || !keys)
        e2e_warn_once(m, "query",
                      "the homeserver did not answer /keys/query (HTTP %ld %s); the "
                      "devices asked for count as none for now",
                      r->status, r->errcode ? r->errcode : "");
    json_object_object_foreach(e->querying, u, again)
    {
        take_devices(m, u, jget_obj(keys, u));
        /* changed again while the query ran: stays outdated, and is asked again */
        json_object_object_add(e->tracked, u, json_object_new_int(json_object_get_int(again)));
    }
    tracked_save(m);
    json_object_put(e->querying);
    e->querying = json_object_new_object();
    if (e->query_again) {
        e->query_again = false;
        query_start(m);
    }
    mx_pump(m);
    return MX_DONE;
}

/* Asks for the devices of every tracked user that is outdated. */
static void query_start(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    if (e->query_call || !m->http)
        return;
    struct json_object *want = json_object_new_object();
    json_object_object_foreach(e->tracked, u, v)
    {
        if (json_object_get_int(v) != 0) {
            json_object_object_add(want, u, json_object_new_array());
            json_object_object_add(e->querying, u, json_object_new_int(0));
        }
    }
    if (json_object_object_length(want) == 0) {
        json_object_put(want);
        return;
    }
    struct json_object *body = json_object_new_object();
    json_object_object_add(body, "device_keys", want);
    json_object_object_add(body, "timeout", json_object_new_int(10000));
    e->query_call = mx_http_call(m->http, "POST", "/_matrix/client/v3/keys/query",
                                 json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN),
                                 MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_queried, m);
    json_object_put(body);
    if (!e->query_call) {
        json_object_put(e->querying);
        e->querying = json_object_new_object();
    }
}

void e2e_query(struct mx *m, struct json_object *users)
{
    struct mx_e2ee *e = m->e2ee;
    bool added = false;
    for (size_t i = 0; i < jarr_len(users); i++) {
        const char *u = jarr_str(users, i);
        if (!u || e2e_devices_current(m, u) || jget(e->querying, u))
            continue;
        json_object_object_add(e->tracked, u, json_object_new_int(1));
        added = true;
    }
    if (added)
        tracked_save(m);
    if (e->query_call)
        e->query_again = e->query_again || added;
    else
        query_start(m);
}

/* ---- Olm sessions ---- */

/* The stored sessions with the device of identity key curve: [{"p","id","t"}] (borrowed). */
static struct json_object *sessions(struct mx *m, const char *curve)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *l = jget_arr(e->olm, curve);
    if (l)
        return l;
    l = e2e_load(m, "e2e/olm/", curve);
    if (!l || !json_object_is_type(l, json_type_array)) {
        json_object_put(l);
        l = json_object_new_array();
    }
    json_object_object_add(e->olm, curve, l);
    return l;
}

/* Stores list (taken) as the sessions of curve, last used first, at most E2E_OLM_PER_DEVICE. */
static void sessions_save(struct mx *m, const char *curve, struct json_object *list)
{
    size_t n = json_object_array_length(list);
    if (n > E2E_OLM_PER_DEVICE)
        json_object_array_del_idx(list, E2E_OLM_PER_DEVICE, n - E2E_OLM_PER_DEVICE);
    e2e_store(m, "e2e/olm/", curve, list);
    json_object_object_add(m->e2ee->olm, curve, list);
}

/* A session record of s, used now. */
static struct json_object *session_rec(struct mx *m, struct mxc_session *s)
{
    struct mx_e2ee *e = m->e2ee;
    char *p = mxc_session_pickle(s, e->key, e->keylen);
    char *id = mxc_session_id(s);
    struct json_object *rec = NULL;
    if (p && id) {
        rec = json_object_new_object();
        json_object_object_add(rec, "p", json_object_new_string(p));
        json_object_object_add(rec, "id", json_object_new_string(id));
        json_object_object_add(rec, "t", json_object_new_int64((int64_t)clock_wall_ms()));
    }
    free(p);
    free(id);
    return rec;
}

/* A copy of list with rec first and without entry skip (-1: none). */
static struct json_object *with_first(struct json_object *list, struct json_object *rec,
                                      ssize_t skip)
{
    struct json_object *out = json_object_new_array();
    json_object_array_add(out, rec);
    for (size_t i = 0; i < json_object_array_length(list); i++)
        if ((ssize_t)i != skip)
            json_object_array_add(out, json_object_get(json_object_array_get_idx(list, i)));
    return out;
}

bool e2e_has_session(struct mx *m, const char *curve)
{
    return json_object_array_length(sessions(m, curve)) > 0;
}

bool e2e_no_otk(struct mx *m, const char *user, const char *device)
{
    char k[600];
    snprintf(k, sizeof k, "%s %s", user, device);
    int64_t t;
    return jget_int64(m->e2ee->no_otk, k, &t) == 0 && (int64_t)clock_wall_ms() - t < E2E_RETRY_MS;
}

static void no_otk_mark(struct mx *m, const char *user, const char *device)
{
    char k[600];
    snprintf(k, sizeof k, "%s %s", user, device);
    json_object_object_add(m->e2ee->no_otk, k, json_object_new_int64((int64_t)clock_wall_ms()));
}

/* Starts a session with device d of user u from its claimed key object (signed by it). */
static void session_from_claim(struct mx *m, const char *u, const char *d, struct json_object *keys)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *dev = jget_obj(e2e_devices(m, u), d);
    const char *curve = jget_str(dev, "curve"), *ed = jget_str(dev, "ed");
    char kid[300];
    snprintf(kid, sizeof kid, "ed25519:%s", d);
    json_object_object_foreach(keys, id, k)
    {
        const char *otk = jget_str(k, "key");
        if (strncmp(id, E2E_OTK_ALG ":", sizeof E2E_OTK_ALG) != 0 || !otk || !curve ||
            !mx_verify_json(k, u, kid, ed))
            continue;
        const char *why = NULL;
        struct mxc_session *s = mxc_session_outbound(e->acct, curve, otk, &why);
        struct json_object *rec = s ? session_rec(m, s) : NULL;
        mxc_session_free(s);
        if (!rec) {
            e2e_warn_once(m, "outbound olm", "cannot start an Olm session: %s", why ? why : "?");
            break;
        }
        struct json_object *list = sessions(m, curve);
        sessions_save(m, curve, with_first(list, rec, -1));
        char ud[600];
        snprintf(ud, sizeof ud, "%s %s", u, d);
        if (jget(m->e2ee->wedged, ud)) { /* tell the device of the new session (an m.dummy) */
            json_object_object_del(m->e2ee->wedged, ud);
            struct json_object *payload = json_object_new_object();
            json_object_object_add(payload, "type", json_object_new_string("m.dummy"));
            json_object_object_add(payload, "content", json_object_new_object());
            struct json_object *ct = e2e_olm_encrypt(m, u, d, payload);
            json_object_put(payload);
            if (ct)
                e2e_todevice(m, "m.room.encrypted", e2e_olm_content(m, u, d, ct), NULL, NULL);
        }
        return;
    }
    no_otk_mark(m, u, d);
}

static enum mx_next on_claimed(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    struct mx_e2ee *e = m->e2ee;
    e->claim_call = NULL;
    if (r->status == 401) {
        mx_token_rejected(m, "claiming one-time keys");
        return MX_DONE;
    }
    struct json_object *otks = jget_obj(r->json, "one_time_keys");
    if (r->status != 200)
        e2e_warn_once(m, "claim", "the homeserver did not answer /keys/claim (HTTP %ld %s)",
                      r->status, r->errcode ? r->errcode : "");
    json_object_object_foreach(e->claiming, u, devs)
    {
        json_object_object_foreach(devs, d, one)
        {
            (void)one;
            struct json_object *keys = jget_obj(jget_obj(otks, u), d);
            if (keys)
                session_from_claim(m, u, d, keys);
            else
                no_otk_mark(m, u, d);
        }
    }
    json_object_put(e->claiming);
    e->claiming = json_object_new_object();
    mx_pump(m);
    return MX_DONE;
}

bool e2e_claim_busy(struct mx *m)
{
    return m->e2ee->claim_call != NULL;
}

void e2e_claim(struct mx *m, struct json_object *want)
{
    struct mx_e2ee *e = m->e2ee;
    if (e->claim_call || !m->http || json_object_object_length(want) == 0)
        return;
    struct json_object *ask = json_object_new_object();
    json_object_object_foreach(want, u, devs)
    {
        struct json_object *per = json_object_new_object();
        json_object_object_foreach(devs, d, one)
        {
            (void)one;
            json_object_object_add(per, d, json_object_new_string(E2E_OTK_ALG));
        }
        json_object_object_add(ask, u, per);
    }
    struct json_object *body = json_object_new_object();
    json_object_object_add(body, "one_time_keys", ask);
    json_object_object_add(body, "timeout", json_object_new_int(10000));
    e->claim_call = mx_http_call(m->http, "POST", "/_matrix/client/v3/keys/claim",
                                 json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN),
                                 MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_claimed, m);
    json_object_put(body);
    if (e->claim_call) {
        json_object_put(e->claiming);
        e->claiming = json_object_get(want);
    }
}

struct json_object *e2e_olm_encrypt(struct mx *m, const char *user, const char *device,
                                    struct json_object *payload)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *dev = jget_obj(e2e_devices(m, user), device);
    const char *curve = jget_str(dev, "curve");
    struct json_object *list = curve ? sessions(m, curve) : NULL;
    /* the session last used to receive (or created last) is first */
    const char *p = jget_str(jarr_at(list, 0), "p");
    struct mxc_session *s = p ? mxc_session_unpickle(p, e->key, e->keylen, NULL) : NULL;
    if (!s)
        return NULL;
    json_object_object_add(payload, "sender", json_object_new_string(m->user_id));
    json_object_object_add(payload, "sender_device", json_object_new_string(m->device_id));
    struct json_object *keys = json_object_new_object();
    json_object_object_add(keys, "ed25519", json_object_new_string(mxc_account_ed25519(e->acct)));
    json_object_object_add(payload, "keys", keys);
    json_object_object_add(payload, "recipient", json_object_new_string(user));
    struct json_object *rk = json_object_new_object();
    json_object_object_add(rk, "ed25519", json_object_new_string(jget_str(dev, "ed")));
    json_object_object_add(payload, "recipient_keys", rk);
    const char *text = json_object_to_json_string_ext(payload, JSON_C_TO_STRING_PLAIN);
    int type = 0;
    char *body = mxc_session_encrypt(s, text, strlen(text), &type);
    char *np = body ? mxc_session_pickle(s, e->key, e->keylen) : NULL;
    mxc_session_free(s);
    if (!np) {
        free(body);
        return NULL;
    }
    /* E3: the session is stored before the message leaves; it stays where it was in the list */
    struct json_object *rec = json_object_get(jarr_at(list, 0));
    json_object_object_add(rec, "p", json_object_new_string(np));
    free(np);
    struct json_object *copy = with_first(list, rec, 0);
    sessions_save(m, curve, copy);
    struct json_object *ct = json_object_new_object();
    json_object_object_add(ct, "type", json_object_new_int(type));
    json_object_object_add(ct, "body", json_object_new_string(body));
    free(body);
    return ct;
}

/* The commit of a decryption: the sessions of curve as they are now, and whether the account
 * lost the one-time key a new session used. */
static struct json_object *commit_new(const char *curve, struct json_object *list, bool acct)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "curve", json_object_new_string(curve));
    json_object_object_add(c, "list", list);
    json_object_object_add(c, "acct", json_object_new_boolean(acct));
    return c;
}

/* Tries the stored sessions of curve; *matched says whether a pre-key message matched one. */
static char *decrypt_known(struct mx *m, const char *curve, int type, const char *body,
                           struct json_object **commit, bool *matched)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *list = sessions(m, curve);
    *matched = false;
    for (size_t i = 0; i < json_object_array_length(list); i++) {
        const char *p = jget_str(json_object_array_get_idx(list, i), "p");
        struct mxc_session *s = p ? mxc_session_unpickle(p, e->key, e->keylen, NULL) : NULL;
        if (!s)
            continue;
        if (type == 0 && !mxc_session_matches(s, curve, body)) {
            mxc_session_free(s);
            continue;
        }
        *matched = type == 0;
        size_t len;
        char *plain = mxc_session_decrypt(s, type, body, &len, NULL);
        struct json_object *rec = plain ? session_rec(m, s) : NULL;
        mxc_session_free(s);
        if (rec) {
            *commit = commit_new(curve, with_first(list, rec, (ssize_t)i), false);
            return plain;
        }
        free(plain);
        if (*matched)
            return NULL; /* the session it was made for could not read it */
    }
    return NULL;
}

char *e2e_olm_decrypt(struct mx *m, const char *curve, int type, const char *body,
                      struct json_object **commit)
{
    struct mx_e2ee *e = m->e2ee;
    bool matched;
    *commit = NULL;
    char *plain = decrypt_known(m, curve, type, body, commit, &matched);
    if (plain || type != 0 || matched)
        return plain;
    struct mxc_session *s = mxc_session_inbound(e->acct, curve, body, NULL);
    size_t len;
    plain = s ? mxc_session_decrypt(s, 0, body, &len, NULL) : NULL;
    struct json_object *rec = plain ? session_rec(m, s) : NULL;
    /* a fallback key stays in the account: nothing to remove then */
    bool removed = rec && mxc_account_remove_otk(e->acct, s) == 0;
    if (removed)
        e2e_otk_used(m);
    mxc_session_free(s);
    if (!rec) {
        free(plain);
        return NULL;
    }
    *commit = commit_new(curve, with_first(sessions(m, curve), rec, -1), removed);
    return plain;
}

void e2e_olm_commit(struct mx *m, struct json_object *commit)
{
    if (!commit)
        return;
    const char *curve = jget_str(commit, "curve");
    struct json_object *list = jget_arr(commit, "list");
    if (curve && list)
        sessions_save(m, curve, json_object_get(list));
    if (jget_true(commit, "acct"))
        e2e_account_save(m);
    json_object_put(commit);
}

struct json_object *e2e_olm_content(struct mx *m, const char *user, const char *device,
                                    struct json_object *ct)
{
    const char *curve = jget_str(jget_obj(e2e_devices(m, user), device), "curve");
    struct json_object *content = json_object_new_object();
    json_object_object_add(content, "algorithm", json_object_new_string(E2E_OLM));
    json_object_object_add(content, "sender_key",
                           json_object_new_string(mxc_account_curve25519(m->e2ee->acct)));
    struct json_object *cts = json_object_new_object();
    json_object_object_add(cts, curve ? curve : "", ct);
    json_object_object_add(content, "ciphertext", cts);
    struct json_object *per = json_object_new_object();
    json_object_object_add(per, device, content);
    struct json_object *messages = json_object_new_object();
    json_object_object_add(messages, user, per);
    return messages;
}

void e2e_unwedge(struct mx *m, const char *user, const char *curve)
{
    struct mx_e2ee *e = m->e2ee;
    json_object_object_foreach(e2e_devices(m, user), d, keys)
    {
        const char *c = jget_str(keys, "curve");
        if (!c || strcmp(c, curve) != 0)
            continue;
        char k[600];
        snprintf(k, sizeof k, "%s %s", user, d);
        int64_t last = jget_int64_or(e->unwedged, k, 0);
        if ((int64_t)clock_wall_ms() - last < E2E_RETRY_MS || e->claim_call)
            return; /* the spec: at most one new session an hour a device */
        json_object_object_add(e->unwedged, k, json_object_new_int64((int64_t)clock_wall_ms()));
        json_object_object_add(e->wedged, k, json_object_new_boolean(1));
        log_info(MOD, NULL, "the Olm session with device %s of %s is broken: starting a new one", d,
                 user);
        struct json_object *want = json_object_new_object(), *per = json_object_new_object();
        json_object_object_add(per, d, json_object_new_int(1));
        json_object_object_add(want, user, per);
        e2e_claim(m, want);
        json_object_put(want);
        return;
    }
}

/* ---- to-device messages ---- */

static void td_pump(struct mx *m);

static enum mx_next on_td_sent(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    struct mx_e2ee *e = m->e2ee;
    struct json_object *item = e->td_sending;
    e->td_call = NULL;
    e->td_sending = NULL;
    const char *room = jget_str(item, "room");
    if (r->status == 401)
        mx_token_rejected(m, "sending to devices");
    else if (r->status != 200)
        e2e_warn_once(m, "to-device", "a message to devices was refused: HTTP %ld %s", r->status,
                      r->errcode ? r->errcode : "");
    if (room)
        e2e_shared(m, room, jget_str(item, "sid"), jget_obj(item, "messages"), r->status == 200);
    json_object_put(item);
    td_pump(m);
    return MX_DONE;
}

static void td_pump(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    if (e->td_call || !m->http || m->phase == MX_STOPPED ||
        json_object_array_length(e->td_queue) == 0)
        return;
    struct json_object *item = json_object_get(json_object_array_get_idx(e->td_queue, 0));
    json_object_array_del_idx(e->td_queue, 0, 1);
    unsigned char rnd[12];
    char txn[48] = "ild.td.";
    if (mxc_random(rnd, sizeof rnd) != 0) {
        json_object_put(item);
        return;
    }
    for (size_t i = 0; i < sizeof rnd; i++)
        snprintf(txn + 7 + 2 * i, 3, "%02x", rnd[i]);
    char *et = mx_escape(jget_str(item, "type"));
    char path[256];
    snprintf(path, sizeof path, "/_matrix/client/v3/sendToDevice/%s/%s", et ? et : "", txn);
    free(et);
    struct json_object *body = json_object_new_object();
    json_object_object_add(body, "messages", json_object_get(jget_obj(item, "messages")));
    e->td_call = mx_http_call(m->http, "PUT", path,
                              json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN),
                              MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_td_sent, m);
    json_object_put(body);
    if (e->td_call) {
        e->td_sending = item;
        return;
    }
    const char *room = jget_str(item, "room");
    if (room)
        e2e_shared(m, room, jget_str(item, "sid"), jget_obj(item, "messages"), false);
    json_object_put(item);
}

void e2e_todevice(struct mx *m, const char *type, struct json_object *messages, const char *room,
                  const char *sid)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *item = json_object_new_object();
    json_object_object_add(item, "type", json_object_new_string(type));
    json_object_object_add(item, "messages", messages);
    if (room && sid) {
        json_object_object_add(item, "room", json_object_new_string(room));
        json_object_object_add(item, "sid", json_object_new_string(sid));
    }
    json_object_array_add(e->td_queue, item);
    td_pump(m);
}
