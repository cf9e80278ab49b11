/*
 * hs_player.c - a test player whose client really encrypts: a libolm
 * account for its device, keys uploaded and claimed through the server's
 * own endpoints (hs_request), Olm sessions over to-device messages, Megolm
 * to read and write encrypted rooms, checked as the specification's
 * "Validation of incoming decrypted events" asks. What the player reads is
 * kept in order, decrypted, for the test; what looked wrong (a bad
 * signature, a replayed Megolm message index, a failed check) is kept as
 * an error for the test to assert on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <olm/olm.h>

#include "hs_internal.h"

#define OLM_ALG       "m.olm.v1.curve25519-aes-sha2"
#define MEGOLM_ALG    "m.megolm.v1.aes-sha2"
#define OTK_ALG       "signed_curve25519"
#define OTK_TARGET    50 /* one-time keys kept on the server */
#define SYNC_LIMIT    50
#define MAX_SESSIONS  64
#define MAX_GROUP     128
#define MAX_OUTBOUND  32
#define MAX_PLAINTEXT (64u << 10)

struct olm_peer {
    char *curve; /* their identity key */
    OlmSession *s;
};

struct inbound {
    char *room, *session_id, *sender_key;
    OlmInboundGroupSession *s;
};

struct outbound {
    char *room;
    OlmOutboundGroupSession *s;
    struct json_object *shared; /* "user|device" -> true */
};

struct hs_player {
    struct hs *hs;
    char *user, *device, *token;
    OlmAccount *account;
    OlmUtility *util;
    char curve[64], ed[64];
    char *since;
    int txn;
    struct olm_peer peers[MAX_SESSIONS];
    size_t npeers;
    struct inbound in[MAX_GROUP];
    size_t nin;
    struct outbound out[MAX_OUTBOUND];
    size_t nout;
    struct json_object *events;  /* what the player read, decrypted, in order */
    struct json_object *pending; /* encrypted events whose key has not come yet */
    struct json_object *seen;    /* event id -> true */
    struct json_object *indexes; /* session|index -> event id (replays) */
    struct json_object *errors;  /* [text] */
    bool clear_reactions;        /* sends reactions unencrypted, as Element Web does */
};

static void *olm_new(size_t size)
{
    return calloc(1, size);
}

static void fill_random(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got <= 0)
            abort(); /* a test cannot go on without randomness */
        p += got;
        n -= (size_t)got;
    }
}

static void error(struct hs_player *p, const char *fmt, const char *a, const char *b)
{
    char text[512];
    snprintf(text, sizeof(text), fmt, a ? a : "", b ? b : "");
    fprintf(stderr, "player %s: %s\n", p->user, text);
    json_object_array_add(p->errors, json_object_new_string(text));
}

/* ---- canonical JSON (keys sorted, no spaces), what signatures cover ---- */

static int by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

struct buf_s {
    char *p;
    size_t len, cap;
};

static void put(struct buf_s *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 256;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = realloc(b->p, cap);
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void put_str(struct buf_s *b, const char *s)
{
    struct json_object *tmp = json_object_new_string(s);
    const char *t = json_object_to_json_string_ext(tmp, JSON_C_TO_STRING_PLAIN |
                                                            JSON_C_TO_STRING_NOSLASHESCAPE);
    put(b, t, strlen(t));
    json_object_put(tmp);
}

static void canonical_into(struct json_object *o, struct buf_s *out)
{
    if (json_object_is_type(o, json_type_object)) {
        size_t n = (size_t)json_object_object_length(o), i = 0;
        const char **keys = calloc(n ? n : 1, sizeof(*keys));
        json_object_object_foreach(o, k, v)
        {
            (void)v;
            keys[i++] = k;
        }
        qsort(keys, n, sizeof(*keys), by_key);
        put(out, "{", 1);
        for (i = 0; i < n; i++) {
            if (i)
                put(out, ",", 1);
            put_str(out, keys[i]);
            put(out, ":", 1);
            canonical_into(hs_jget(o, keys[i]), out);
        }
        put(out, "}", 1);
        free(keys);
    } else if (json_object_is_type(o, json_type_array)) {
        put(out, "[", 1);
        for (size_t i = 0; i < json_object_array_length(o); i++) {
            if (i)
                put(out, ",", 1);
            canonical_into(json_object_array_get_idx(o, i), out);
        }
        put(out, "]", 1);
    } else if (json_object_is_type(o, json_type_string)) {
        put_str(out, json_object_get_string(o));
    } else {
        const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        put(out, t, strlen(t));
    }
}

/* The canonical JSON of o without its "signatures" and "unsigned" (malloc'd). */
static char *signable(struct json_object *o)
{
    struct json_object *copy = NULL;
    json_object_deep_copy(o, &copy, NULL);
    json_object_object_del(copy, "signatures");
    json_object_object_del(copy, "unsigned");
    struct buf_s b = {0};
    canonical_into(copy, &b);
    json_object_put(copy);
    return b.p;
}

static void sign(struct hs_player *p, struct json_object *o)
{
    char *msg = signable(o);
    size_t n = olm_account_signature_length(p->account);
    char *sig = calloc(1, n + 1);
    olm_account_sign(p->account, msg, strlen(msg), sig, n);
    char kid[96];
    snprintf(kid, sizeof(kid), "ed25519:%s", p->device);
    struct json_object *mine = json_object_new_object();
    json_object_object_add(mine, kid, json_object_new_string(sig));
    json_object_object_add(hs_jobj(o, "signatures"), p->user, mine);
    free(msg);
    free(sig);
}

/* Is o signed by user's device with the ed25519 key ed? */
static bool verify(struct hs_player *p, struct json_object *o, const char *user, const char *device,
                   const char *ed)
{
    char kid[96];
    snprintf(kid, sizeof(kid), "ed25519:%s", device);
    const char *sig = hs_jstr(hs_jget(hs_jget(o, "signatures"), user), kid);
    if (!sig || !ed)
        return false;
    char *msg = signable(o);
    char *s = strdup(sig);
    bool ok =
        olm_ed25519_verify(p->util, ed, strlen(ed), msg, strlen(msg), s, strlen(s)) != olm_error();
    free(msg);
    free(s);
    return ok;
}

/* ---- requests ---- */

static int call(struct hs_player *p, const char *method, const char *path, struct json_object *body,
                struct json_object **out)
{
    char full[1024];
    snprintf(full, sizeof(full), "%s%s", HS_PREFIX, path);
    int status = hs_request(p->hs, p->token, method, full, body, out);
    if (status != 200) {
        char st[16];
        snprintf(st, sizeof(st), "%d", status);
        error(p, "%.400s answered HTTP %s", full, st); /* fits error()'s 512 bytes */
    }
    return status;
}

static char *escape(const char *s)
{
    char *out = malloc(strlen(s) * 3 + 1), *o = out;
    for (; *s; s++) {
        if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
            strchr("-_.~", *s))
            *o++ = *s;
        else
            o += sprintf(o, "%%%02X", (unsigned char)*s);
    }
    *o = '\0';
    return out;
}

/* ---- keys ---- */

static struct json_object *device_keys(struct hs_player *p)
{
    struct json_object *k = json_object_new_object();
    json_object_object_add(k, "user_id", json_object_new_string(p->user));
    json_object_object_add(k, "device_id", json_object_new_string(p->device));
    struct json_object *algs = json_object_new_array();
    json_object_array_add(algs, json_object_new_string(OLM_ALG));
    json_object_array_add(algs, json_object_new_string(MEGOLM_ALG));
    json_object_object_add(k, "algorithms", algs);
    struct json_object *keys = json_object_new_object();
    char kid[96];
    snprintf(kid, sizeof(kid), "curve25519:%s", p->device);
    json_object_object_add(keys, kid, json_object_new_string(p->curve));
    snprintf(kid, sizeof(kid), "ed25519:%s", p->device);
    json_object_object_add(keys, kid, json_object_new_string(p->ed));
    json_object_object_add(k, "keys", keys);
    sign(p, k);
    return k;
}

/* {"signed_curve25519:<id>": {"key", "signatures"[, "fallback"]}} from libolm's list. */
static struct json_object *signed_keys(struct hs_player *p, const char *olm_json, bool fallback)
{
    struct json_object *parsed = json_tokener_parse(olm_json);
    struct json_object *out = json_object_new_object();
    json_object_object_foreach(hs_iter(hs_jget(parsed, "curve25519")), id, key)
    {
        struct json_object *k = json_object_new_object();
        json_object_object_add(k, "key", json_object_get(key));
        if (fallback)
            json_object_object_add(k, "fallback", json_object_new_boolean(1));
        sign(p, k);
        char kid[96];
        snprintf(kid, sizeof(kid), OTK_ALG ":%s", id);
        json_object_object_add(out, kid, k);
    }
    json_object_put(parsed);
    return out;
}

/* Uploads new one-time keys up to OTK_TARGET (and the device keys the first time). */
static void upload_keys(struct hs_player *p, int have, bool with_device, bool new_fallback)
{
    struct json_object *body = json_object_new_object();
    if (with_device)
        json_object_object_add(body, "device_keys", device_keys(p));
    if (have < OTK_TARGET) {
        size_t n = (size_t)(OTK_TARGET - have);
        size_t rl = olm_account_generate_one_time_keys_random_length(p->account, n);
        void *rnd = malloc(rl ? rl : 1);
        fill_random(rnd, rl);
        olm_account_generate_one_time_keys(p->account, n, rnd, rl);
        free(rnd);
        size_t kl = olm_account_one_time_keys_length(p->account);
        char *keys = calloc(1, kl + 1);
        olm_account_one_time_keys(p->account, keys, kl);
        json_object_object_add(body, "one_time_keys", signed_keys(p, keys, false));
        free(keys);
    }
    if (new_fallback) {
        size_t rl = olm_account_generate_fallback_key_random_length(p->account);
        void *rnd = malloc(rl ? rl : 1);
        fill_random(rnd, rl);
        olm_account_generate_fallback_key(p->account, rnd, rl);
        free(rnd);
        size_t kl = olm_account_unpublished_fallback_key_length(p->account);
        char *keys = calloc(1, kl + 1);
        olm_account_unpublished_fallback_key(p->account, keys, kl);
        json_object_object_add(body, "fallback_keys", signed_keys(p, keys, true));
        free(keys);
    }
    if (call(p, "POST", "keys/upload", body, NULL) == 200)
        olm_account_mark_keys_as_published(p->account);
    json_object_put(body);
}

/* The device keys of user's devices, from /keys/query, their signatures checked. */
static struct json_object *query_devices(struct hs_player *p, const char *user)
{
    struct json_object *body = json_object_new_object();
    struct json_object *want = json_object_new_object();
    json_object_object_add(want, user, json_object_new_array());
    json_object_object_add(body, "device_keys", want);
    struct json_object *r = NULL;
    call(p, "POST", "keys/query", body, &r);
    json_object_put(body);
    struct json_object *out = json_object_new_object();
    json_object_object_foreach(hs_iter(hs_jget(hs_jget(r, "device_keys"), user)), dev, keys)
    {
        char kid[96];
        snprintf(kid, sizeof(kid), "ed25519:%s", dev);
        const char *ed = hs_jstr(hs_jget(keys, "keys"), kid);
        if (!verify(p, keys, user, dev, ed)) {
            error(p, "the device keys of %s's device %s are not validly signed", user, dev);
            continue;
        }
        json_object_object_add(out, dev, json_object_get(keys));
    }
    json_object_put(r);
    return out;
}

static const char *key_of(struct json_object *keys, const char *alg, const char *device)
{
    char kid[96];
    snprintf(kid, sizeof(kid), "%s:%s", alg, device);
    return hs_jstr(hs_jget(keys, "keys"), kid);
}

/* ---- Olm ---- */

static struct olm_peer *peer(struct hs_player *p, const char *curve)
{
    /* The newest session with them is the one to use. */
    for (size_t i = p->npeers; i > 0; i--)
        if (strcmp(p->peers[i - 1].curve, curve) == 0)
            return &p->peers[i - 1];
    return NULL;
}

static struct olm_peer *add_peer(struct hs_player *p, const char *curve, OlmSession *s)
{
    if (p->npeers == MAX_SESSIONS) {
        free(p->peers[0].curve);
        olm_clear_session(p->peers[0].s);
        free(p->peers[0].s);
        memmove(p->peers, p->peers + 1, (MAX_SESSIONS - 1) * sizeof(p->peers[0]));
        p->npeers--;
    }
    struct olm_peer *x = &p->peers[p->npeers++];
    x->curve = strdup(curve);
    x->s = s;
    return x;
}

/* Decrypts one Olm message (type 0 or 1) from sender_key; the plaintext is malloc'd. */
static char *olm_open(struct hs_player *p, const char *sender_key, int type, const char *body)
{
    for (size_t i = p->npeers; i > 0; i--) {
        struct olm_peer *x = &p->peers[i - 1];
        if (strcmp(x->curve, sender_key) != 0)
            continue;
        char *m = strdup(body);
        if (type == 0 && olm_matches_inbound_session_from(x->s, sender_key, strlen(sender_key), m,
                                                          strlen(m)) != 1) {
            free(m);
            continue;
        }
        free(m);
        m = strdup(body);
        size_t max = olm_decrypt_max_plaintext_length(x->s, (size_t)type, m, strlen(m));
        free(m);
        if (max == olm_error())
            continue;
        char *plain = calloc(1, max + 1);
        m = strdup(body);
        size_t n = olm_decrypt(x->s, (size_t)type, m, strlen(m), plain, max);
        free(m);
        if (n != olm_error()) {
            plain[n] = '\0';
            return plain;
        }
        free(plain);
    }
    if (type != 0)
        return NULL;
    OlmSession *s = olm_session(olm_new(olm_session_size()));
    char *m = strdup(body);
    if (olm_create_inbound_session_from(s, p->account, sender_key, strlen(sender_key), m,
                                        strlen(m)) == olm_error()) {
        free(m);
        olm_clear_session(s);
        free(s);
        return NULL;
    }
    free(m);
    olm_remove_one_time_keys(p->account, s);
    struct olm_peer *x = add_peer(p, sender_key, s);
    m = strdup(body);
    size_t max = olm_decrypt_max_plaintext_length(x->s, 0, m, strlen(m));
    free(m);
    char *plain = calloc(1, (max == olm_error() ? 0 : max) + 1);
    m = strdup(body);
    size_t n = max == olm_error() ? olm_error() : olm_decrypt(x->s, 0, m, strlen(m), plain, max);
    free(m);
    if (n == olm_error()) {
        free(plain);
        return NULL;
    }
    plain[n] = '\0';
    return plain;
}

static void keep_room_key(struct hs_player *p, struct json_object *content, const char *sender_key)
{
    const char *room = hs_jstr(content, "room_id");
    const char *sid = hs_jstr(content, "session_id");
    const char *key = hs_jstr(content, "session_key");
    const char *alg = hs_jstr(content, "algorithm");
    if (!room || !sid || !key || !alg || strcmp(alg, MEGOLM_ALG) != 0) {
        error(p, "a malformed m.room_key%s%s", "", "");
        return;
    }
    for (size_t i = 0; i < p->nin; i++)
        if (strcmp(p->in[i].session_id, sid) == 0 && strcmp(p->in[i].room, room) == 0)
            return; /* known: keep the earliest (a later copy cannot go further back) */
    if (p->nin == MAX_GROUP) {
        error(p, "too many Megolm sessions%s%s", "", "");
        return;
    }
    OlmInboundGroupSession *s =
        olm_inbound_group_session(olm_new(olm_inbound_group_session_size()));
    if (olm_init_inbound_group_session(s, (const uint8_t *)key, strlen(key)) == olm_error()) {
        error(p, "a room key that libolm refuses: %s%s", olm_inbound_group_session_last_error(s),
              "");
        olm_clear_inbound_group_session(s);
        free(s);
        return;
    }
    struct inbound *in = &p->in[p->nin++];
    in->room = strdup(room);
    in->session_id = strdup(sid);
    in->sender_key = strdup(sender_key);
    in->s = s;
}

/* A to-device m.room.encrypted: decrypted and checked, then acted on (m.room_key). */
static void to_device_encrypted(struct hs_player *p, struct json_object *ev)
{
    struct json_object *c = hs_jget(ev, "content");
    const char *sender = hs_jstr(ev, "sender");
    const char *sender_key = hs_jstr(c, "sender_key");
    struct json_object *mine = hs_jget(hs_jget(c, "ciphertext"), p->curve);
    const char *alg = hs_jstr(c, "algorithm");
    if (!alg || strcmp(alg, OLM_ALG) != 0 || !sender_key || !mine || !sender) {
        error(p, "a to-device message from %s not Olm-encrypted for this device%s", sender, "");
        return;
    }
    char *plain =
        olm_open(p, sender_key, json_object_get_int(hs_jget(mine, "type")), hs_jstr(mine, "body"));
    if (!plain) {
        error(p, "an Olm message from %s that does not decrypt%s", sender, "");
        return;
    }
    struct json_object *pt = json_tokener_parse(plain);
    free(plain);
    /* The checks of the specification (Validation of incoming decrypted events). */
    struct json_object *devs = query_devices(p, sender);
    const char *ed = hs_jstr(hs_jget(pt, "keys"), "ed25519");
    bool known = false;
    json_object_object_foreach(hs_iter(devs), dev, keys)
    {
        const char *dk_curve = key_of(keys, "curve25519", dev);
        const char *dk_ed = key_of(keys, "ed25519", dev);
        known = known || (dk_curve && dk_ed && ed && strcmp(dk_curve, sender_key) == 0 &&
                          strcmp(dk_ed, ed) == 0);
    }
    json_object_put(devs);
    const char *type = hs_jstr(pt, "type");
    if (!pt || !hs_jstr(pt, "sender") || strcmp(hs_jstr(pt, "sender"), sender) != 0 ||
        !hs_jstr(pt, "recipient") || strcmp(hs_jstr(pt, "recipient"), p->user) != 0 ||
        !hs_jstr(hs_jget(pt, "recipient_keys"), "ed25519") ||
        strcmp(hs_jstr(hs_jget(pt, "recipient_keys"), "ed25519"), p->ed) != 0 || !known || !type) {
        error(p, "an Olm message from %s fails the checks of the specification%s", sender, "");
    } else if (strcmp(type, "m.room_key") == 0) {
        keep_room_key(p, hs_jget(pt, "content"), sender_key);
    }
    json_object_put(pt);
}

/* ---- Megolm ---- */

static struct inbound *inbound_of(struct hs_player *p, const char *room, const char *sid)
{
    for (size_t i = 0; i < p->nin; i++)
        if (strcmp(p->in[i].session_id, sid) == 0 && strcmp(p->in[i].room, room) == 0)
            return &p->in[i];
    return NULL;
}

/* The decrypted form of an encrypted room event, or NULL while its key is missing. */
static struct json_object *megolm_open(struct hs_player *p, struct json_object *ev)
{
    struct json_object *c = hs_jget(ev, "content");
    const char *room = hs_jstr(ev, "room_id");
    const char *sid = hs_jstr(c, "session_id");
    const char *ct = hs_jstr(c, "ciphertext");
    struct inbound *in = sid ? inbound_of(p, room, sid) : NULL;
    if (!in || !ct)
        return NULL;
    uint8_t *m = (uint8_t *)strdup(ct);
    size_t max = olm_group_decrypt_max_plaintext_length(in->s, m, strlen(ct));
    free(m);
    if (max == olm_error() || max > MAX_PLAINTEXT)
        return NULL;
    uint8_t *plain = calloc(1, max + 1);
    m = (uint8_t *)strdup(ct);
    uint32_t index = 0;
    size_t n = olm_group_decrypt(in->s, m, strlen(ct), plain, max, &index);
    free(m);
    if (n == olm_error()) {
        error(p, "a Megolm message that does not decrypt: %s%s",
              olm_inbound_group_session_last_error(in->s), "");
        free(plain);
        return NULL;
    }
    plain[n] = '\0';
    char ik[256];
    snprintf(ik, sizeof(ik), "%s|%u", sid, index);
    const char *earlier = hs_jstr(p->indexes, ik);
    if (earlier && strcmp(earlier, hs_jstr(ev, "event_id")) != 0)
        error(p, "Megolm message index reused (a replay): %s and %s", earlier,
              hs_jstr(ev, "event_id"));
    json_object_object_add(p->indexes, ik, json_object_new_string(hs_jstr(ev, "event_id")));
    struct json_object *pt = json_tokener_parse((char *)plain);
    free(plain);
    if (!pt || !hs_jstr(pt, "room_id") || strcmp(hs_jstr(pt, "room_id"), room) != 0 ||
        !hs_jstr(pt, "type") || !json_object_is_type(hs_jget(pt, "content"), json_type_object)) {
        error(p, "a Megolm plaintext for another room or malformed, in %s%s", room, "");
        json_object_put(pt);
        return NULL;
    }
    /* The relation is the clear one: a copy inside the payload is ignored (the spec's
     * "Relationships" section), so that the client reads what the server aggregates. */
    struct json_object *content = json_object_new_object();
    json_object_object_foreach(hs_jget(pt, "content"), k, v)
    {
        if (strcmp(k, "m.relates_to") != 0)
            json_object_object_add(content, k, json_object_get(v));
    }
    struct json_object *rel = hs_jget(c, "m.relates_to");
    if (rel)
        json_object_object_add(content, "m.relates_to", json_object_get(rel));
    struct json_object *out = NULL;
    json_object_deep_copy(ev, &out, NULL);
    json_object_object_add(out, "type", json_object_new_string(hs_jstr(pt, "type")));
    json_object_object_add(out, "content", content);
    json_object_object_add(out, "encrypted", json_object_new_boolean(1));
    json_object_put(pt);
    return out;
}

/* ---- reading ---- */

static void receive(struct hs_player *p, struct json_object *ev, const char *room)
{
    const char *id = hs_jstr(ev, "event_id");
    if (!id || hs_jget(p->seen, id))
        return;
    json_object_object_add(p->seen, id, json_object_new_boolean(1));
    struct json_object *copy = NULL;
    json_object_deep_copy(ev, &copy, NULL);
    json_object_object_add(copy, "room_id", json_object_new_string(room));
    const char *type = hs_jstr(ev, "type");
    if (type && strcmp(type, "m.room.encrypted") == 0)
        json_object_array_add(p->pending, copy);
    else
        json_object_array_add(p->events, copy);
}

/* Retries the events still encrypted; decrypted ones move to the events, in order. */
static void retry_pending(struct hs_player *p)
{
    struct json_object *still = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(p->pending); i++) {
        struct json_object *ev = json_object_array_get_idx(p->pending, i);
        struct json_object *plain = megolm_open(p, ev);
        if (plain)
            json_object_array_add(p->events, plain);
        else
            json_object_array_add(still, json_object_get(ev));
    }
    json_object_put(p->pending);
    p->pending = still;
}

/* A limited timeline: the events between the last sync and this one, through /messages. */
static void fill_gap(struct hs_player *p, const char *room, const char *prev_batch)
{
    if (!p->since || !prev_batch)
        return;
    struct json_object *chunks = json_object_new_array();
    char *from = strdup(prev_batch);
    char *r_esc = escape(room);
    for (int guard = 0; from && guard < 100; guard++) {
        char path[768];
        char *f_esc = escape(from), *t_esc = escape(p->since);
        snprintf(path, sizeof(path), "rooms/%s/messages?from=%s&to=%s&dir=b&limit=100", r_esc,
                 f_esc, t_esc);
        free(f_esc);
        free(t_esc);
        struct json_object *r = NULL;
        if (call(p, "GET", path, NULL, &r) != 200) {
            json_object_put(r);
            break;
        }
        struct json_object *chunk = hs_jget(r, "chunk");
        for (size_t i = 0; chunk && i < json_object_array_length(chunk); i++)
            json_object_array_add(chunks, json_object_get(json_object_array_get_idx(chunk, i)));
        free(from);
        from = hs_jstr(r, "end") ? strdup(hs_jstr(r, "end")) : NULL;
        json_object_put(r);
    }
    free(from);
    free(r_esc);
    for (size_t i = json_object_array_length(chunks); i > 0; i--)
        receive(p, json_object_array_get_idx(chunks, i - 1), room);
    json_object_put(chunks);
}

static void read_rooms(struct hs_player *p, struct json_object *rooms)
{
    json_object_object_foreach(hs_iter(hs_jget(rooms, "invite")), rid, inv)
    {
        (void)inv;
        char *esc = escape(rid);
        char path[512];
        snprintf(path, sizeof(path), "rooms/%s/join", esc);
        free(esc);
        struct json_object *b = json_object_new_object();
        call(p, "POST", path, b, NULL);
        json_object_put(b);
    }
    json_object_object_foreach(hs_iter(hs_jget(rooms, "join")), rid2, room)
    {
        struct json_object *tl = hs_jget(room, "timeline");
        struct json_object *lim = hs_jget(tl, "limited");
        if (lim && json_object_get_boolean(lim))
            fill_gap(p, rid2, hs_jstr(tl, "prev_batch"));
        struct json_object *evs = hs_jget(tl, "events");
        for (size_t i = 0; evs && i < json_object_array_length(evs); i++)
            receive(p, json_object_array_get_idx(evs, i), rid2);
    }
}

int hs_player_sync(struct hs_player *p)
{
    size_t before = json_object_array_length(p->events);
    char path[512];
    char *esc = p->since ? escape(p->since) : NULL;
    snprintf(path, sizeof(path),
             "sync?timeout=0&filter=%%7B%%22room%%22%%3A%%7B%%22timeline%%22%%3A%%7B%%22limit%%22"
             "%%3A%d%%7D%%7D%%7D%s%s",
             SYNC_LIMIT, esc ? "&since=" : "", esc ? esc : "");
    free(esc);
    struct json_object *r = NULL;
    if (call(p, "GET", path, NULL, &r) != 200) {
        json_object_put(r);
        return -1;
    }
    struct json_object *td = hs_jget(hs_jget(r, "to_device"), "events");
    for (size_t i = 0; td && i < json_object_array_length(td); i++) {
        struct json_object *ev = json_object_array_get_idx(td, i);
        const char *type = hs_jstr(ev, "type");
        if (type && strcmp(type, "m.room.encrypted") == 0)
            to_device_encrypted(p, ev);
    }
    read_rooms(p, hs_jget(r, "rooms"));
    /* Top up: one-time keys below half, or a used fallback key. */
    struct json_object *counts = hs_jget(r, "device_one_time_keys_count");
    struct json_object *n = hs_jget(counts, OTK_ALG);
    struct json_object *fb = hs_jget(r, "device_unused_fallback_key_types");
    bool fallback_used =
        fb && json_object_is_type(fb, json_type_array) && json_object_array_length(fb) == 0;
    /* No counts in this answer says nothing (the section is optional): no top-up then. */
    int have = counts ? (n ? json_object_get_int(n) : 0) : OTK_TARGET;
    if (have < OTK_TARGET / 2 || fallback_used)
        upload_keys(p, have < OTK_TARGET / 2 ? have : OTK_TARGET, false, fallback_used);
    free(p->since);
    p->since = strdup(hs_jstr(r, "next_batch"));
    json_object_put(r);
    retry_pending(p);
    return (int)(json_object_array_length(p->events) - before);
}

/* ---- writing ---- */

static struct outbound *outbound_of(struct hs_player *p, const char *room)
{
    for (size_t i = 0; i < p->nout; i++)
        if (strcmp(p->out[i].room, room) == 0)
            return &p->out[i];
    if (p->nout == MAX_OUTBOUND)
        return NULL;
    struct outbound *o = &p->out[p->nout++];
    o->room = strdup(room);
    o->s = olm_outbound_group_session(olm_new(olm_outbound_group_session_size()));
    size_t rl = olm_init_outbound_group_session_random_length(o->s);
    void *rnd = malloc(rl ? rl : 1);
    fill_random(rnd, rl);
    olm_init_outbound_group_session(o->s, rnd, rl);
    free(rnd);
    o->shared = json_object_new_object();
    /* Our own inbound copy, so the player reads what it sent. */
    size_t kl = olm_outbound_group_session_key_length(o->s);
    char *key = calloc(1, kl + 1);
    olm_outbound_group_session_key(o->s, (uint8_t *)key, kl);
    size_t il = olm_outbound_group_session_id_length(o->s);
    char *sid = calloc(1, il + 1);
    olm_outbound_group_session_id(o->s, (uint8_t *)sid, il);
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "algorithm", json_object_new_string(MEGOLM_ALG));
    json_object_object_add(c, "room_id", json_object_new_string(room));
    json_object_object_add(c, "session_id", json_object_new_string(sid));
    json_object_object_add(c, "session_key", json_object_new_string(key));
    keep_room_key(p, c, p->curve);
    json_object_put(c);
    free(key);
    free(sid);
    return o;
}

/* An Olm session to their device, from a claimed one-time key signed by it. */
static struct olm_peer *olm_to(struct hs_player *p, const char *user, const char *device,
                               struct json_object *keys)
{
    const char *curve = key_of(keys, "curve25519", device);
    const char *ed = key_of(keys, "ed25519", device);
    struct olm_peer *x = curve ? peer(p, curve) : NULL;
    if (x || !curve)
        return x;
    struct json_object *body = json_object_new_object();
    struct json_object *want = json_object_new_object();
    struct json_object *devs = json_object_new_object();
    json_object_object_add(devs, device, json_object_new_string(OTK_ALG));
    json_object_object_add(want, user, devs);
    json_object_object_add(body, "one_time_keys", want);
    struct json_object *r = NULL;
    call(p, "POST", "keys/claim", body, &r);
    json_object_put(body);
    struct json_object *claimed = hs_jget(hs_jget(hs_jget(r, "one_time_keys"), user), device);
    const char *otk = NULL;
    json_object_object_foreach(hs_iter(claimed), kid, k)
    {
        if (strncmp(kid, OTK_ALG ":", strlen(OTK_ALG) + 1) == 0 && verify(p, k, user, device, ed))
            otk = hs_jstr(k, "key");
        else
            error(p, "a one-time key of %s's device %s is not validly signed", user, device);
    }
    if (!otk) {
        error(p, "no one-time key could be claimed for %s's device %s", user, device);
        json_object_put(r);
        return NULL;
    }
    OlmSession *s = olm_session(olm_new(olm_session_size()));
    size_t rl = olm_create_outbound_session_random_length(s);
    void *rnd = malloc(rl ? rl : 1);
    fill_random(rnd, rl);
    size_t rc =
        olm_create_outbound_session(s, p->account, curve, strlen(curve), otk, strlen(otk), rnd, rl);
    free(rnd);
    json_object_put(r);
    if (rc == olm_error()) {
        olm_clear_session(s);
        free(s);
        return NULL;
    }
    return add_peer(p, curve, s);
}

/* The Olm-encrypted to-device content carrying an m.room_key to one device. */
static struct json_object *olm_seal(struct hs_player *p, struct olm_peer *x, const char *user,
                                    const char *ed, struct json_object *room_key)
{
    struct json_object *pt = json_object_new_object();
    json_object_object_add(pt, "type", json_object_new_string("m.room_key"));
    json_object_object_add(pt, "content", json_object_get(room_key));
    json_object_object_add(pt, "sender", json_object_new_string(p->user));
    json_object_object_add(pt, "recipient", json_object_new_string(user));
    struct json_object *rk = json_object_new_object();
    json_object_object_add(rk, "ed25519", json_object_new_string(ed));
    json_object_object_add(pt, "recipient_keys", rk);
    struct json_object *kk = json_object_new_object();
    json_object_object_add(kk, "ed25519", json_object_new_string(p->ed));
    json_object_object_add(pt, "keys", kk);
    const char *text = json_object_to_json_string_ext(pt, JSON_C_TO_STRING_PLAIN);
    size_t type = olm_encrypt_message_type(x->s);
    size_t rl = olm_encrypt_random_length(x->s);
    void *rnd = malloc(rl ? rl : 1);
    fill_random(rnd, rl);
    size_t ml = olm_encrypt_message_length(x->s, strlen(text));
    char *msg = calloc(1, ml + 1);
    olm_encrypt(x->s, text, strlen(text), rnd, rl, msg, ml);
    free(rnd);
    json_object_put(pt);
    struct json_object *mine = json_object_new_object();
    json_object_object_add(mine, "type", json_object_new_int((int)type));
    json_object_object_add(mine, "body", json_object_new_string(msg));
    free(msg);
    struct json_object *ct = json_object_new_object();
    json_object_object_add(ct, x->curve, mine);
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "algorithm", json_object_new_string(OLM_ALG));
    json_object_object_add(c, "sender_key", json_object_new_string(p->curve));
    json_object_object_add(c, "ciphertext", ct);
    return c;
}

/* Shares the room's outbound session with every device of every joined member lacking it. */
static void share_room_key(struct hs_player *p, struct outbound *o, const char *room)
{
    struct json_object *members = hs_room_members(p->hs, room);
    struct json_object *rk = json_object_new_object();
    size_t kl = olm_outbound_group_session_key_length(o->s);
    char *key = calloc(1, kl + 1);
    olm_outbound_group_session_key(o->s, (uint8_t *)key, kl);
    size_t il = olm_outbound_group_session_id_length(o->s);
    char *sid = calloc(1, il + 1);
    olm_outbound_group_session_id(o->s, (uint8_t *)sid, il);
    json_object_object_add(rk, "algorithm", json_object_new_string(MEGOLM_ALG));
    json_object_object_add(rk, "room_id", json_object_new_string(room));
    json_object_object_add(rk, "session_id", json_object_new_string(sid));
    json_object_object_add(rk, "session_key", json_object_new_string(key));
    free(key);
    free(sid);
    struct json_object *messages = json_object_new_object();
    for (size_t i = 0; i < json_object_array_length(members); i++) {
        const char *user = json_object_get_string(json_object_array_get_idx(members, i));
        struct json_object *devs = query_devices(p, user);
        json_object_object_foreach(hs_iter(devs), dev, keys)
        {
            char sk[256];
            snprintf(sk, sizeof(sk), "%s|%s", user, dev);
            if (hs_jget(o->shared, sk) ||
                (strcmp(user, p->user) == 0 && strcmp(dev, p->device) == 0))
                continue;
            struct olm_peer *x = olm_to(p, user, dev, keys);
            if (!x)
                continue;
            json_object_object_add(hs_jobj(messages, user), dev,
                                   olm_seal(p, x, user, key_of(keys, "ed25519", dev), rk));
            json_object_object_add(o->shared, sk, json_object_new_boolean(1));
        }
        json_object_put(devs);
    }
    if (json_object_object_length(messages) > 0) {
        struct json_object *body = json_object_new_object();
        json_object_object_add(body, "messages", messages);
        char path[128];
        snprintf(path, sizeof(path), "sendToDevice/m.room.encrypted/p%d", ++p->txn);
        call(p, "PUT", path, body, NULL);
        json_object_put(body);
    } else {
        json_object_put(messages);
    }
    json_object_put(rk);
    json_object_put(members);
}

static struct json_object *megolm_seal(struct hs_player *p, struct outbound *o, const char *room,
                                       const char *type, struct json_object *content)
{
    /* The relation goes in the clear, where the server (and the spec) reads it. */
    struct json_object *inner = json_object_new_object();
    json_object_object_foreach(content, k, v)
    {
        if (strcmp(k, "m.relates_to") != 0)
            json_object_object_add(inner, k, json_object_get(v));
    }
    struct json_object *pt = json_object_new_object();
    json_object_object_add(pt, "type", json_object_new_string(type));
    json_object_object_add(pt, "content", inner);
    json_object_object_add(pt, "room_id", json_object_new_string(room));
    const char *text = json_object_to_json_string_ext(pt, JSON_C_TO_STRING_PLAIN);
    size_t ml = olm_group_encrypt_message_length(o->s, strlen(text));
    char *msg = calloc(1, ml + 1);
    olm_group_encrypt(o->s, (const uint8_t *)text, strlen(text), (uint8_t *)msg, ml);
    json_object_put(pt);
    size_t il = olm_outbound_group_session_id_length(o->s);
    char *sid = calloc(1, il + 1);
    olm_outbound_group_session_id(o->s, (uint8_t *)sid, il);
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "algorithm", json_object_new_string(MEGOLM_ALG));
    json_object_object_add(c, "sender_key", json_object_new_string(p->curve));
    json_object_object_add(c, "ciphertext", json_object_new_string(msg));
    json_object_object_add(c, "session_id", json_object_new_string(sid));
    json_object_object_add(c, "device_id", json_object_new_string(p->device));
    struct json_object *rel = hs_jget(content, "m.relates_to");
    if (rel)
        json_object_object_add(c, "m.relates_to", json_object_get(rel));
    free(msg);
    free(sid);
    return c;
}

char *hs_player_send(struct hs_player *p, const char *room, const char *type,
                     struct json_object *content)
{
    struct json_object *body = content;
    const char *send_type = type;
    /* Some clients (Element Web) send reactions in the clear even in encrypted rooms: their
     * content is the relation, which stays in the clear anyway. */
    bool clear = p->clear_reactions && strcmp(type, "m.reaction") == 0;
    if (!clear && hs_room_encrypted(p->hs, room)) {
        struct outbound *o = outbound_of(p, room);
        if (!o) {
            json_object_put(content);
            return NULL;
        }
        share_room_key(p, o, room);
        body = megolm_seal(p, o, room, type, content);
        json_object_put(content);
        send_type = "m.room.encrypted";
    }
    char *r_esc = escape(room);
    char path[512];
    snprintf(path, sizeof(path), "rooms/%s/send/%s/p%d", r_esc, send_type, ++p->txn);
    free(r_esc);
    struct json_object *r = NULL;
    call(p, "PUT", path, body, &r);
    json_object_put(body);
    char *id = hs_jstr(r, "event_id") ? strdup(hs_jstr(r, "event_id")) : NULL;
    json_object_put(r);
    return id;
}

char *hs_player_say(struct hs_player *p, const char *room, const char *text)
{
    return hs_player_send(p, room, "m.room.message", hs_text_content(text));
}

char *hs_player_react(struct hs_player *p, const char *room, const char *target, const char *key)
{
    return hs_player_send(p, room, "m.reaction", hs_reaction_content(target, key));
}

char *hs_player_poll_vote(struct hs_player *p, const char *room, const char *poll,
                          const char *answer, int form)
{
    const char *type;
    struct json_object *c = hs_poll_vote_content(poll, answer, form, &type);
    return hs_player_send(p, room, type, c);
}

/* ---- life ---- */

struct hs_player *hs_player_new(struct hs *hs, const char *user)
{
    struct hs_player *p = calloc(1, sizeof(*p));
    p->hs = hs;
    p->user = strdup(user);
    char dev[64];
    snprintf(dev, sizeof(dev), "DEV%08X", (unsigned)(hs_rnd_locked(hs) & 0xffffffffu));
    p->device = strdup(dev);
    p->clear_reactions = hs_rnd_locked(hs) % 2 == 0; /* from the seed: clients differ */
    p->token = hs_register(hs, user, dev);
    p->events = json_object_new_array();
    p->pending = json_object_new_array();
    p->seen = json_object_new_object();
    p->indexes = json_object_new_object();
    p->errors = json_object_new_array();
    p->util = olm_utility(olm_new(olm_utility_size()));
    p->account = olm_account(olm_new(olm_account_size()));
    size_t rl = olm_create_account_random_length(p->account);
    void *rnd = malloc(rl);
    fill_random(rnd, rl);
    olm_create_account(p->account, rnd, rl);
    free(rnd);
    size_t kl = olm_account_identity_keys_length(p->account);
    char *ids = calloc(1, kl + 1);
    olm_account_identity_keys(p->account, ids, kl);
    struct json_object *k = json_tokener_parse(ids);
    snprintf(p->curve, sizeof(p->curve), "%s", hs_jstr(k, "curve25519"));
    snprintf(p->ed, sizeof(p->ed), "%s", hs_jstr(k, "ed25519"));
    json_object_put(k);
    free(ids);
    upload_keys(p, 0, true, true);
    return p;
}

void hs_player_free(struct hs_player *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->npeers; i++) {
        free(p->peers[i].curve);
        olm_clear_session(p->peers[i].s);
        free(p->peers[i].s);
    }
    for (size_t i = 0; i < p->nin; i++) {
        free(p->in[i].room);
        free(p->in[i].session_id);
        free(p->in[i].sender_key);
        olm_clear_inbound_group_session(p->in[i].s);
        free(p->in[i].s);
    }
    for (size_t i = 0; i < p->nout; i++) {
        free(p->out[i].room);
        olm_clear_outbound_group_session(p->out[i].s);
        free(p->out[i].s);
        json_object_put(p->out[i].shared);
    }
    olm_clear_account(p->account);
    free(p->account);
    olm_clear_utility(p->util);
    free(p->util);
    json_object_put(p->events);
    json_object_put(p->pending);
    json_object_put(p->seen);
    json_object_put(p->indexes);
    json_object_put(p->errors);
    free(p->since);
    free(p->user);
    free(p->device);
    free(p->token);
    free(p);
}

const char *hs_player_user(struct hs_player *p)
{
    return p->user;
}

const char *hs_player_device(struct hs_player *p)
{
    return p->device;
}

const char *hs_player_curve_key(struct hs_player *p)
{
    return p->curve;
}

struct json_object *hs_player_events_after(struct hs_player *p, size_t *cursor)
{
    struct json_object *out = json_object_new_array();
    size_t n = json_object_array_length(p->events);
    for (size_t i = *cursor; i < n; i++)
        json_object_array_add(out, json_object_get(json_object_array_get_idx(p->events, i)));
    *cursor = n;
    return out;
}

int hs_player_undecrypted(struct hs_player *p)
{
    return (int)json_object_array_length(p->pending);
}

struct json_object *hs_player_errors(struct hs_player *p)
{
    return json_object_get(p->errors);
}

int hs_player_join(struct hs_player *p, const char *room)
{
    char *esc = escape(room);
    char path[512];
    snprintf(path, sizeof(path), "rooms/%s/join", esc);
    free(esc);
    struct json_object *b = json_object_new_object();
    int st = call(p, "POST", path, b, NULL);
    json_object_put(b);
    return st == 200 ? 0 : -1;
}

/* The decrypted copy of event id that p read, or NULL (borrowed). */
static struct json_object *read_copy(struct hs_player *p, const char *id)
{
    for (size_t i = json_object_array_length(p->events); i > 0; i--) {
        struct json_object *ev = json_object_array_get_idx(p->events, i - 1);
        const char *eid = hs_jstr(ev, "event_id");
        if (eid && strcmp(eid, id) == 0)
            return ev;
    }
    return NULL;
}

struct json_object *hs_bot_events_read(struct hs *hs, struct hs_player *const *readers, size_t n,
                                       const char *type)
{
    for (size_t i = 0; i < n; i++)
        hs_player_sync(readers[i]);
    struct json_object *all = hs_bot_events(hs, NULL);
    struct json_object *out = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(all); i++) {
        struct json_object *ev = json_object_array_get_idx(all, i);
        const char *id = hs_jstr(ev, "event_id");
        if (strcmp(hs_jstr(ev, "type"), "m.room.encrypted") == 0) {
            struct json_object *plain = NULL;
            for (size_t r = 0; r < n && !plain; r++)
                plain = read_copy(readers[r], id);
            if (plain)
                ev = plain;
        }
        if (!type || strcmp(hs_jstr(ev, "type"), type) == 0)
            json_object_array_add(out, json_object_get(ev));
    }
    json_object_put(all);
    return out;
}

void hs_player_push(struct hs_player *p, struct json_object *event, bool *notify, bool *highlight,
                    char *rule, size_t rule_len)
{
    hs_push_check(p->hs, p->user, hs_jstr(event, "room_id"), event, notify, highlight, rule,
                  rule_len);
}
