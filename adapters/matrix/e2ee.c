/*
 * e2ee.c - end-to-end encryption: its life cycle, the store, the pickle key,
 * the account and the uploads of its keys.
 *
 * The account is the device's identity. It is created once per device id and
 * kept pickled in the store; its device keys and one-time keys are uploaded
 * with /keys/upload, and one-time keys are topped up whenever a sync says the
 * server holds fewer than half of what libolm keeps (E2), with a fallback key
 * for when they run out.
 */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../../bot/config.h"
#include "../../bot/log.h"
#include "client.h"
#include "e2ee.h"

#define MOD                 "matrix"
#define PICKLE_KEY_MIN      16
#define PICKLE_KEY_FILE_MAX 4096
#define UPLOAD_BACKOFF_MIN  (5 * 60 * 1000)
#define UPLOAD_BACKOFF_MAX  (60 * 60 * 1000)

/* ---- the store ---- */

/* Writes a and b after each other into out (len bytes), cut to fit. */
static void join2(char *out, size_t len, const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    if (na >= len)
        na = len - 1;
    if (nb >= len - na)
        nb = len - na - 1;
    memcpy(out, a, na);
    memcpy(out + na, b, nb);
    out[na + nb] = '\0';
}

void e2e_key(char *out, size_t len, const char *prefix, const char *id)
{
    if (strlen(prefix) + strlen(id) < 160) {
        join2(out, len, prefix, id);
        return;
    }
    char *h = mxc_sha256(id, strlen(id));
    char tail[64];
    join2(tail, sizeof tail, "#", h ? h : "");
    free(h);
    join2(out, len, prefix, tail);
}

struct json_object *e2e_load(struct mx *m, const char *prefix, const char *id)
{
    char k[256];
    e2e_key(k, sizeof k, prefix, id);
    return mx_state_get_json(m, k);
}

void e2e_store(struct mx *m, const char *prefix, const char *id, struct json_object *v)
{
    char k[256];
    e2e_key(k, sizeof k, prefix, id);
    mx_state_set_json(m, k, v);
}

void e2e_forget(struct mx *m, const char *prefix, const char *id)
{
    char k[256];
    e2e_key(k, sizeof k, prefix, id);
    mx_state_del(m, k);
}

void e2e_warn_once(struct mx *m, const char *key, const char *fmt, ...)
{
    struct mx_e2ee *e = m->e2ee;
    if (jget(e->warned, key))
        return;
    if (json_object_object_length(e->warned) < E2E_WARNED_MAX)
        json_object_object_add(e->warned, key, json_object_new_boolean(1));
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    log_warn(MOD, NULL, "%s", line);
}

/* ---- the pickle key ---- */

/* Reads the key file, or creates it with a new random key (0600). Returns a malloc'd key. */
static char *key_file(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        unsigned char raw[64];
        char *fresh = mxc_random(raw, sizeof raw) == 0 ? mxc_sha256(raw, sizeof raw) : NULL;
        explicit_bzero(raw, sizeof raw);
        int wfd = fresh ? open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600) : -1;
        size_t n = fresh ? strlen(fresh) : 0;
        if (wfd < 0 || write(wfd, fresh, n) != (ssize_t)n || fsync(wfd) != 0) {
            snprintf(err, errlen, "cannot create the Matrix pickle key file %s: %s", path,
                     strerror(errno));
            if (wfd >= 0)
                close(wfd);
            free(fresh);
            return NULL;
        }
        close(wfd);
        log_info(MOD, NULL,
                 "created %s, the key the Matrix encryption keys are stored with; keep it with "
                 "the store, or set [matrix] pickle_key_file to a credential",
                 path);
        return fresh;
    }
    struct stat st;
    char *buf = malloc(PICKLE_KEY_FILE_MAX + 1);
    ssize_t n = fd >= 0 && buf && fstat(fd, &st) == 0 ? read(fd, buf, PICKLE_KEY_FILE_MAX) : -1;
    if (fd >= 0)
        close(fd);
    if (n < 0) {
        snprintf(err, errlen, "cannot read the Matrix pickle key file %s: %s", path,
                 strerror(errno));
        free(buf);
        return NULL;
    }
    if (st.st_mode & 077)
        log_warn(MOD, NULL, "%s can be read by other users; chmod 600 it", path);
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' '))
        n--;
    buf[n] = '\0';
    return buf;
}

int mx_e2e_new(struct mx *m, const struct config *cfg, char *err, size_t errlen)
{
    char *key = NULL;
    if (cfg->matrix_pickle_key && *cfg->matrix_pickle_key) {
        key = strdup(cfg->matrix_pickle_key);
    } else if (cfg->store_path && *cfg->store_path) {
        char path[4096];
        snprintf(path, sizeof path, "%s-matrix-key", cfg->store_path);
        if (!(key = key_file(path, err, errlen)))
            return -1;
    } else {
        snprintf(err, errlen,
                 "[matrix] pickle_key is not set, and there is no store to keep "
                 "a key file beside");
        return -1;
    }
    if (!key || strlen(key) < PICKLE_KEY_MIN) {
        snprintf(err, errlen, "[matrix] pickle_key must be at least %d characters", PICKLE_KEY_MIN);
        free(key);
        return -1;
    }
    struct mx_e2ee *e = calloc(1, sizeof *e);
    if (!e) {
        snprintf(err, errlen, "out of memory");
        free(key);
        return -1;
    }
    e->m = m;
    e->key = (unsigned char *)key;
    e->keylen = strlen(key);
    e->tracked = json_object_new_object();
    e->devices = json_object_new_object();
    e->querying = json_object_new_object();
    e->claiming = json_object_new_object();
    e->no_otk = json_object_new_object();
    e->unwedged = json_object_new_object();
    e->wedged = json_object_new_object();
    e->olm = json_object_new_object();
    e->td_queue = json_object_new_array();
    e->inbound = json_object_new_object();
    e->pending = json_object_new_array();
    e->requests = json_object_new_object();
    e->warned = json_object_new_object();
    e->key_wait_ms = E2E_KEY_WAIT_MS;
    e->tick_ms = E2E_TICK_MS;
    uv_timer_init(m->loop, &e->tick);
    e->tick.data = m;
    m->handles_open++; /* closed by mx_e2e_stop() */
    m->e2ee = e;
    return 0;
}

void mx_e2e_stop(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    if (!e)
        return;
    /* the calls went with the HTTP client, and their callbacks never run */
    e->upload_call = e->query_call = e->claim_call = e->td_call = NULL;
    if (!uv_is_closing((uv_handle_t *)&e->tick)) {
        uv_timer_stop(&e->tick);
        uv_close((uv_handle_t *)&e->tick, mx_handle_closed);
    }
}

void mx_e2e_free(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    if (!e)
        return;
    explicit_bzero(e->key, e->keylen);
    free(e->key);
    mxc_account_free(e->acct);
    json_object_put(e->acct_rec);
    json_object_put(e->tracked);
    json_object_put(e->devices);
    json_object_put(e->querying);
    json_object_put(e->claiming);
    json_object_put(e->no_otk);
    json_object_put(e->unwedged);
    json_object_put(e->wedged);
    json_object_put(e->olm);
    json_object_put(e->td_queue);
    json_object_put(e->td_sending);
    json_object_put(e->inbound);
    json_object_put(e->pending);
    json_object_put(e->requests);
    json_object_put(e->warned);
    free(e);
    m->e2ee = NULL;
}

/* ---- the account ---- */

void e2e_otk_used(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    int64_t held = jget_int64_or(e->acct_rec, "otks", 0);
    json_object_object_add(e->acct_rec, "otks", json_object_new_int64(held > 0 ? held - 1 : 0));
}

void e2e_account_save(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    char *p = mxc_account_pickle(e->acct, e->key, e->keylen);
    if (!p) {
        log_error(MOD, NULL, "cannot pickle the encryption account (out of memory)");
        return;
    }
    json_object_object_add(e->acct_rec, "p", json_object_new_string(p));
    free(p);
    mx_state_set_json(m, "e2e/account", e->acct_rec);
}

static void collect_key(void *arg, const char *key, const char *value)
{
    (void)value;
    json_object_array_add(arg, json_object_new_string(key));
}

/* The Olm sessions and the rooms' outbound Megolm sessions belong to the account that made them:
 * under a new account's identity key, a peer could decrypt nothing an old Olm session carries,
 * and it had the room keys from the old device. The new account starts its own. */
static void forget_sessions(struct mx *m)
{
    const char *const prefixes[] = {"e2e/olm/", "e2e/out/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++) {
        struct json_object *keys = json_object_new_array();
        mx_state_each(m, prefixes[i], collect_key, keys);
        for (size_t k = 0; k < json_object_array_length(keys); k++)
            mx_state_del(m, json_object_get_string(json_object_array_get_idx(keys, k)));
        json_object_put(keys);
    }
}

/* The stored account of this device, or a new one (stored at once). */
static int account_load(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *rec = mx_state_get_json(m, "e2e/account");
    const char *dev = jget_str(rec, "device"), *user = jget_str(rec, "user");
    const char *p = jget_str(rec, "p");
    const char *why = NULL;
    if (rec && dev && user && p && strcmp(dev, m->device_id) == 0 &&
        strcmp(user, m->user_id) == 0) {
        e->acct = mxc_account_unpickle(p, e->key, e->keylen, &why);
        if (!e->acct) {
            log_error(MOD, NULL,
                      "cannot read the stored encryption keys (%s): is [matrix] pickle_key the "
                      "one they were stored with? Encrypted rooms cannot be used.",
                      why ? why : "?");
            json_object_put(rec);
            return -1;
        }
        e->acct_rec = rec;
        if (!jget(rec, "otks")) /* stored before the count: what a full top-up leaves */
            json_object_object_add(
                rec, "otks", json_object_new_int64((int64_t)mxc_account_max_otks(e->acct) / 2));
        return 0;
    }
    bool replaced = rec != NULL;
    if (replaced)
        log_warn(MOD, NULL, "device %s is new (the stored keys are %s's); new encryption keys",
                 m->device_id, dev ? dev : "?");
    json_object_put(rec);
    e->acct = mxc_account_new(&why);
    if (!e->acct) {
        log_error(MOD, NULL, "cannot create encryption keys: %s", why ? why : "?");
        return -1;
    }
    e->acct_rec = json_object_new_object();
    json_object_object_add(e->acct_rec, "user", json_object_new_string(m->user_id));
    json_object_object_add(e->acct_rec, "device", json_object_new_string(m->device_id));
    json_object_object_add(e->acct_rec, "uploaded", json_object_new_boolean(0));
    json_object_object_add(e->acct_rec, "otks", json_object_new_int64(0));
    if (replaced)
        forget_sessions(m);
    e2e_account_save(m);
    log_info(MOD, NULL, "device %s has new encryption keys (Ed25519 %s)", m->device_id,
             mxc_account_ed25519(e->acct));
    return 0;
}

static void upload(struct mx *m);

/* How many one-time keys the account made that were not published yet. */
static int64_t unpublished(struct mx *m)
{
    char *text = mxc_account_unpublished(m->e2ee->acct, false);
    struct json_object *all = text ? json_tokener_parse(text) : NULL;
    free(text);
    int64_t n = (int64_t)json_object_object_length(jget_obj(all, "curve25519"));
    json_object_put(all);
    return n;
}

/* Keeps one-time keys on the server at half of what the account holds, by the server's count
 * n, and uploads what is unpublished. Never while an upload is in flight: its answer marks
 * every key made so far as published. */
static void top_up(struct mx *m, int64_t n)
{
    struct mx_e2ee *e = m->e2ee;
    if (e->upload_call || e->draining)
        return;
    int64_t max = (int64_t)mxc_account_max_otks(e->acct);
    int64_t want = max / 2 - n - unpublished(m);
    int64_t held = jget_int64_or(e->acct_rec, "otks", 0);
    if (want > max - held) { /* E6 */
        want = max - held;
        if (want <= 0)
            e2e_warn_once(m, "otks full",
                          "the device's %" PRId64 " one-time keys, libolm's most, are on the "
                          "server or claimed by peers that have not used them yet: no new "
                          "ones until they do; peers start sessions from the fallback key",
                          held);
    }
    bool changed = false;
    if (e->fallback_wanted && mxc_account_generate_fallback(e->acct) == 0) {
        json_object_object_add(e->acct_rec, "fallback_ms",
                               json_object_new_int64((int64_t)clock_wall_ms()));
        e->fallback_wanted = false;
        changed = true;
    }
    if (want > 0) {
        if (mxc_account_generate_otks(e->acct, (size_t)want) != 0) {
            log_error(MOD, NULL, "cannot make one-time keys (out of memory)");
            return;
        }
        json_object_object_add(e->acct_rec, "otks", json_object_new_int64(held + want));
        changed = true;
    }
    if (changed)
        e2e_account_save(m); /* E2: stored before they leave */
    upload(m);
}

/* Adds the unpublished keys of kind (one-time, or fallback) to body under name, each signed. */
static int add_keys(struct mx *m, struct json_object *body, const char *name, bool fallback)
{
    struct mx_e2ee *e = m->e2ee;
    char *text = mxc_account_unpublished(e->acct, fallback);
    struct json_object *all = text ? json_tokener_parse(text) : NULL;
    free(text);
    struct json_object *keys = jget_obj(all, "curve25519");
    if (!keys) {
        json_object_put(all);
        return -1;
    }
    struct json_object *out = json_object_new_object();
    json_object_object_foreach(keys, id, k)
    {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "key", json_object_get(k));
        if (fallback)
            json_object_object_add(o, "fallback", json_object_new_boolean(1));
        char name_id[64];
        snprintf(name_id, sizeof name_id, "%s:%s", E2E_OTK_ALG, id);
        if (mx_sign_json(e->acct, m->user_id, m->device_id, o) != 0) {
            json_object_put(o);
            json_object_put(out);
            json_object_put(all);
            return -1;
        }
        json_object_object_add(out, name_id, o);
    }
    if (json_object_object_length(out) > 0)
        json_object_object_add(body, name, out);
    else
        json_object_put(out);
    json_object_put(all);
    return 0;
}

static struct json_object *device_keys(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *d = json_object_new_object();
    json_object_object_add(d, "user_id", json_object_new_string(m->user_id));
    json_object_object_add(d, "device_id", json_object_new_string(m->device_id));
    struct json_object *algs = json_object_new_array();
    json_object_array_add(algs, json_object_new_string(E2E_OLM));
    json_object_array_add(algs, json_object_new_string(E2E_MEGOLM));
    json_object_object_add(d, "algorithms", algs);
    struct json_object *keys = json_object_new_object();
    char id[300];
    snprintf(id, sizeof id, "curve25519:%s", m->device_id);
    json_object_object_add(keys, id, json_object_new_string(mxc_account_curve25519(e->acct)));
    snprintf(id, sizeof id, "ed25519:%s", m->device_id);
    json_object_object_add(keys, id, json_object_new_string(mxc_account_ed25519(e->acct)));
    json_object_object_add(d, "keys", keys);
    if (mx_sign_json(e->acct, m->user_id, m->device_id, d) != 0) {
        json_object_put(d);
        return NULL;
    }
    return d;
}

/* The answer to an upload other than a rejected token. */
static void uploaded(struct mx *m, const struct mx_resp *r)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *counts = jget_obj(r->json, "one_time_key_counts");
    if (r->status != 200 || !counts) {
        e->upload_backoff_ms = e->upload_backoff_ms ? e->upload_backoff_ms * 2 : UPLOAD_BACKOFF_MIN;
        if (e->upload_backoff_ms > UPLOAD_BACKOFF_MAX)
            e->upload_backoff_ms = UPLOAD_BACKOFF_MAX;
        e->upload_retry_ms = clock_wall_ms() + (uint64_t)e->upload_backoff_ms;
        e2e_warn_once(m, "upload",
                      "the homeserver refused the encryption keys: HTTP %ld %s; "
                      "trying again later",
                      r->status, r->errcode ? r->errcode : "");
        return;
    }
    e->upload_backoff_ms = 0;
    mxc_account_mark_published(e->acct);
    json_object_object_add(e->acct_rec, "uploaded", json_object_new_boolean(1));
    e2e_account_save(m);
    e->counts_after = m->syncs_started; /* a sync in flight may count the keys before these */
    top_up(m, jget_int64_or(counts, E2E_OTK_ALG, 0));
}

static enum mx_next on_uploaded(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    m->e2ee->upload_call = NULL;
    if (r->status == 401) {
        mx_token_rejected(m, "uploading keys");
        return MX_DONE;
    }
    uploaded(m, r);
    m->e2ee->upload_answered = true;
    mx_sync_keys_taken(m); /* refused or not: the first sync waits no more */
    return MX_DONE;
}

static void drain_start(struct mx *m);

/* Uploads the device keys if the server has not got them, and the unpublished one-time and
 * fallback keys. One upload at a time; after a login, the server's copy is looked at first. */
static void upload(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    if (e->upload_call || clock_wall_ms() < e->upload_retry_ms || m->phase == MX_STOPPED ||
        !m->http)
        return;
    if (e->check_own) {
        drain_start(m); /* then this upload */
        return;
    }
    struct json_object *body = json_object_new_object();
    if (!jget_true(e->acct_rec, "uploaded")) {
        struct json_object *d = device_keys(m);
        if (d)
            json_object_object_add(body, "device_keys", d);
    }
    if (add_keys(m, body, "one_time_keys", false) != 0 ||
        add_keys(m, body, "fallback_keys", true) != 0) {
        json_object_put(body);
        log_error(MOD, NULL, "cannot sign the encryption keys (out of memory)");
        return;
    }
    if (json_object_object_length(body) == 0) {
        json_object_put(body);
        return;
    }
    e->upload_call = mx_http_call(m->http, "POST", "/_matrix/client/v3/keys/upload",
                                  json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN),
                                  MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_uploaded, m);
    json_object_put(body);
}

/* The fallback key before the current one is forgotten an hour after the new one came. */
#define FALLBACK_KEEP_MS (60 * 60 * 1000)

/* ---- a device that had keys before ----
 *
 * A store lost or made anew gives the same device a new account. The server may still hold
 * one-time keys of the old one: an upload of new keys under the same ids is refused, and a key
 * the server hands out would start a session the new account cannot read. So before the first
 * upload, if the server shows other keys for the device, the bot claims its own one-time keys
 * until none is left (or the fallback key comes), as a peer would; the upload then replaces
 * the device keys and the fallback key.
 *
 * A device deleted on the server (signed out from another session) loses its token and its
 * keys; the next login makes it anew under the same id, with no keys. So after each login the
 * server's copy is looked at too: with no device keys there, the account's are uploaded again,
 * with a new fallback key and a full set of one-time keys. */
#define DRAIN_MAX 1000

static void drain_next(struct mx *m);

static void drain_done(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    e->draining = false;
    if (e->drained)
        log_warn(MOD, NULL,
                 "device %s had keys of an earlier store on the homeserver: %d one-time keys "
                 "left there were claimed away; new ones replace them",
                 m->device_id, e->drained);
    top_up(m, 0);
}

static enum mx_next on_drained(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    struct mx_e2ee *e = m->e2ee;
    e->upload_call = NULL;
    struct json_object *keys =
        jget_obj(jget_obj(jget_obj(r->json, "one_time_keys"), m->user_id), m->device_id);
    bool got = false, fallback = false;
    if (keys) {
        json_object_object_foreach(keys, id, k)
        {
            (void)id;
            got = true;
            fallback = fallback || jget_true(k, "fallback");
        }
    }
    if (r->status == 200 && got && !fallback && ++e->drained < DRAIN_MAX)
        drain_next(m);
    else
        drain_done(m);
    return MX_DONE;
}

static void drain_next(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *b = json_object_new_object(), *per = json_object_new_object();
    struct json_object *dev = json_object_new_object();
    json_object_object_add(dev, m->device_id, json_object_new_string(E2E_OTK_ALG));
    json_object_object_add(per, m->user_id, dev);
    json_object_object_add(b, "one_time_keys", per);
    e->upload_call = mx_http_call(m->http, "POST", "/_matrix/client/v3/keys/claim",
                                  json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN),
                                  MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_drained, m);
    json_object_put(b);
    if (!e->upload_call)
        drain_done(m);
}

static enum mx_next on_own_keys(void *arg, const struct mx_resp *r)
{
    struct mx *m = arg;
    struct mx_e2ee *e = m->e2ee;
    e->upload_call = NULL;
    char kid[300];
    snprintf(kid, sizeof kid, "ed25519:%s", m->device_id);
    struct json_object *mine =
        jget_obj(jget_obj(jget_obj(r->json, "device_keys"), m->user_id), m->device_id);
    const char *ed = jget_str(jget_obj(mine, "keys"), kid);
    bool other = ed && strcmp(ed, mxc_account_ed25519(e->acct)) != 0;
    if (r->status == 200 && jget_true(e->acct_rec, "uploaded") && (!ed || other)) {
        log_warn(MOD, NULL,
                 "the homeserver has %s keys for device %s (it was deleted or signed out): "
                 "uploading the device's keys again",
                 ed ? "other" : "no", m->device_id);
        json_object_object_add(e->acct_rec, "uploaded", json_object_new_boolean(0));
        /* E6: the keys the server lost can no longer be claimed; a message that used one went
         * to the deleted device's inbox, lost too. Every one of them is older than the keys
         * made from now on, so they are the ones libolm pushes out. */
        json_object_object_add(e->acct_rec, "otks", json_object_new_int64(0));
        e2e_account_save(m);
        e->fallback_wanted = true;
    }
    if (other)
        drain_next(m);
    else if (jget_true(e->acct_rec, "uploaded")) {
        e->draining = false; /* the server has the keys: what a crash left unpublished (E2) */
        top_up(m, (int64_t)mxc_account_max_otks(e->acct) / 2);
    } else
        drain_done(m);
    return MX_DONE;
}

/* Before a new account's first upload: does the server hold other keys for this device? */
static void drain_start(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    e->check_own = false;
    struct json_object *b = json_object_new_object(), *dk = json_object_new_object();
    struct json_object *devs = json_object_new_array();
    json_object_array_add(devs, json_object_new_string(m->device_id));
    json_object_object_add(dk, m->user_id, devs);
    json_object_object_add(b, "device_keys", dk);
    e->draining = true;
    e->upload_call = mx_http_call(m->http, "POST", "/_matrix/client/v3/keys/query",
                                  json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN),
                                  MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_own_keys, m);
    json_object_put(b);
    if (!e->upload_call)
        drain_done(m);
}

static void on_tick(uv_timer_t *t)
{
    struct mx *m = t->data;
    struct mx_e2ee *e = m->e2ee;
    e2e_pending_tick(m);
    int64_t made = jget_int64_or(e->acct_rec, "fallback_ms", 0);
    if (made && (int64_t)clock_wall_ms() - made > FALLBACK_KEEP_MS &&
        jget_int64_or(e->acct_rec, "fallback_forgot", 0) != made) {
        mxc_account_forget_old_fallback(e->acct);
        json_object_object_add(e->acct_rec, "fallback_forgot", json_object_new_int64(made));
        e2e_account_save(m);
    }
}

void mx_e2e_set_wait(struct mx *m, int64_t key_wait_ms, int64_t tick_ms)
{
    struct mx_e2ee *e = m->e2ee;
    e->key_wait_ms = key_wait_ms;
    e->tick_ms = tick_ms;
    if (uv_is_active((uv_handle_t *)&e->tick))
        uv_timer_start(&e->tick, on_tick, (uint64_t)tick_ms, (uint64_t)tick_ms);
}

bool mx_e2e_keys_wait(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    return e && e->acct && !e->upload_answered && !jget_true(e->acct_rec, "uploaded");
}

void mx_e2e_logged_in(struct mx *m)
{
    if (m->e2ee)
        m->e2ee->check_own = true;
}

void mx_e2e_start(struct mx *m)
{
    struct mx_e2ee *e = m->e2ee;
    if (e && e->acct && e->check_own)
        upload(m); /* a new login while running: the check first */
    if (!e || e->acct)
        return;
    if (!m->device_id) {
        log_error(MOD, NULL,
                  "the homeserver named no device for the bot's session: encrypted "
                  "rooms cannot be used (set [matrix] device_id and log in with "
                  "a password)");
        return;
    }
    if (account_load(m) != 0)
        return;
    e2e_recv_load(m);
    uv_timer_start(&e->tick, on_tick, (uint64_t)e->tick_ms, (uint64_t)e->tick_ms);
    if (!jget_true(e->acct_rec, "uploaded") && !jget(e->acct_rec, "fallback_ms"))
        e->fallback_wanted = true;
    if ((!jget_true(e->acct_rec, "uploaded") || e->check_own) && m->http) {
        drain_start(m); /* then the first upload, or the keys a deleted device lost */
        return;
    }
    /* The keys a crash left unpublished (E2). The server's count is not known yet: assume it
     * holds what a full top-up would have put there. */
    top_up(m, (int64_t)mxc_account_max_otks(e->acct) / 2);
}

/* One-time key counts and the fallback key of one sync answer. A count absent altogether says
 * nothing (servers may leave it out); inside the object, an absent algorithm counts zero.
 * Counts of a sync that started before the last upload finished are stale. */
static void key_counts(struct mx *m, struct json_object *batch)
{
    struct mx_e2ee *e = m->e2ee;
    struct json_object *fb = jget_arr(batch, "device_unused_fallback_key_types");
    if (!fb)
        fb = jget_arr(batch, "org.matrix.msc2732.device_unused_fallback_key_types");
    bool unused = false;
    for (size_t i = 0; i < jarr_len(fb); i++)
        if (jarr_str(fb, i) && strcmp(jarr_str(fb, i), E2E_OTK_ALG) == 0)
            unused = true;
    if (fb && !unused && jget_true(e->acct_rec, "uploaded") && m->syncs_started > e->counts_after)
        e->fallback_wanted = true;
    struct json_object *counts = jget_obj(batch, "device_one_time_keys_count");
    if (counts && m->syncs_started > e->counts_after)
        top_up(m, jget_int64_or(counts, E2E_OTK_ALG, 0));
    else if (e->fallback_wanted)
        top_up(m, (int64_t)mxc_account_max_otks(e->acct));
}

void mx_e2e_sync(struct mx *m, struct json_object *batch)
{
    struct mx_e2ee *e = m->e2ee;
    if (!e || !e->acct)
        return;
    key_counts(m, batch);
    struct json_object *dl = jget_obj(batch, "device_lists");
    struct json_object *changed = jget_arr(dl, "changed"), *left = jget_arr(dl, "left");
    for (size_t i = 0; i < jarr_len(changed); i++)
        if (jarr_str(changed, i))
            e2e_outdated(m, jarr_str(changed, i));
    for (size_t i = 0; i < jarr_len(left); i++)
        if (jarr_str(left, i))
            e2e_untrack(m, jarr_str(left, i));
    e2e_to_device(m, jget_arr(jget_obj(batch, "to_device"), "events"));
}
