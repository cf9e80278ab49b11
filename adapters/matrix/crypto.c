/*
 * crypto.c - the libolm implementation of crypto.h.
 *
 * libolm works in caller-provided memory and writes into its inputs (base64
 * is decoded in place), so every input is copied first; it reports errors as
 * olm_error() with a reason on the object, which becomes *why. Secret buffers
 * (random bytes, plaintexts of keys) are wiped before they are freed.
 */
#define _DEFAULT_SOURCE /* explicit_bzero */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <olm/olm.h>

#include "crypto.h"

struct mxc_account {
    OlmAccount *olm;
    char *curve, *ed;
};

struct mxc_session {
    OlmSession *olm;
};

struct mxc_outbound {
    OlmOutboundGroupSession *olm;
};

struct mxc_inbound {
    OlmInboundGroupSession *olm;
};

static void set_why(const char **why, const char *reason)
{
    if (why)
        *why = reason;
}

static void wipe_free(void *p, size_t n)
{
    if (!p)
        return;
    explicit_bzero(p, n);
    free(p);
}

int mxc_random(void *buf, size_t n)
{
    unsigned char *p = buf;
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
}

const char *mxc_version(void)
{
    static char v[32];
    uint8_t major, minor, patch;
    olm_get_library_version(&major, &minor, &patch);
    snprintf(v, sizeof v, "libolm %u.%u.%u", major, minor, patch);
    return v;
}

/* n random bytes in a new buffer (wiped by the caller with wipe_free), or NULL. */
static void *random_buf(size_t n)
{
    void *r = malloc(n ? n : 1);
    if (r && n && mxc_random(r, n) != 0) {
        free(r);
        return NULL;
    }
    return r;
}

/* A NUL-terminated copy of n bytes. */
static char *dup_n(const void *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

/* ---- pickles ---- */

/* libolm's pickle function of one kind of object. */
typedef size_t (*pickle_fn)(void *obj, const void *key, size_t keylen, void *out, size_t outlen);

/* The pickle of obj (len bytes long, as the kind's length function says), or NULL. */
static char *pickle_with(void *obj, size_t len, pickle_fn fn, const void *key, size_t keylen)
{
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    size_t n = fn(obj, key, keylen, out, len);
    if (n == olm_error()) {
        free(out);
        return NULL;
    }
    out[n] = '\0';
    return out;
}

/* Copies pickle into a scratch buffer for an unpickle function, which decodes in place. */
static char *scratch(const char *text, size_t *len)
{
    *len = text ? strlen(text) : 0;
    return text ? dup_n(text, *len) : NULL;
}

/* ---- the account ---- */

static int load_identity(struct mxc_account *a)
{
    size_t n = olm_account_identity_keys_length(a->olm);
    char *buf = malloc(n + 1);
    if (!buf)
        return -1;
    if (olm_account_identity_keys(a->olm, buf, n) == olm_error()) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    /* {"curve25519":"...","ed25519":"..."}: two base64 keys, read without a JSON parser */
    const char *c = strstr(buf, "\"curve25519\":\""), *e = strstr(buf, "\"ed25519\":\"");
    const char *ce = c ? strchr(c + 14, '"') : NULL, *ee = e ? strchr(e + 11, '"') : NULL;
    if (ce && ee) {
        a->curve = dup_n(c + 14, (size_t)(ce - (c + 14)));
        a->ed = dup_n(e + 11, (size_t)(ee - (e + 11)));
    }
    free(buf);
    return a->curve && a->ed ? 0 : -1;
}

static struct mxc_account *account_alloc(void)
{
    struct mxc_account *a = calloc(1, sizeof *a);
    void *mem = malloc(olm_account_size());
    if (!a || !mem) {
        free(a);
        free(mem);
        return NULL;
    }
    a->olm = olm_account(mem);
    return a;
}

struct mxc_account *mxc_account_new(const char **why)
{
    struct mxc_account *a = account_alloc();
    if (!a) {
        set_why(why, "no memory");
        return NULL;
    }
    size_t rl = olm_create_account_random_length(a->olm);
    void *r = random_buf(rl);
    if (!r || olm_create_account(a->olm, r, rl) == olm_error() || load_identity(a) != 0) {
        set_why(why, r ? olm_account_last_error(a->olm) : "no random bytes");
        wipe_free(r, rl);
        mxc_account_free(a);
        return NULL;
    }
    wipe_free(r, rl);
    return a;
}

struct mxc_account *mxc_account_unpickle(const char *pickle, const void *key, size_t keylen,
                                         const char **why)
{
    size_t n;
    char *buf = scratch(pickle, &n);
    struct mxc_account *a = buf ? account_alloc() : NULL;
    if (!a) {
        free(buf);
        set_why(why, "no memory");
        return NULL;
    }
    if (olm_unpickle_account(a->olm, key, keylen, buf, n) == olm_error() || load_identity(a) != 0) {
        set_why(why, olm_account_last_error(a->olm));
        wipe_free(buf, n);
        mxc_account_free(a);
        return NULL;
    }
    wipe_free(buf, n);
    return a;
}

static size_t account_pickle_fn(void *o, const void *k, size_t kl, void *out, size_t ol)
{
    return olm_pickle_account(o, k, kl, out, ol);
}

char *mxc_account_pickle(struct mxc_account *a, const void *key, size_t keylen)
{
    return pickle_with(a->olm, olm_pickle_account_length(a->olm), account_pickle_fn, key, keylen);
}

void mxc_account_free(struct mxc_account *a)
{
    if (!a)
        return;
    olm_clear_account(a->olm);
    free(a->olm);
    free(a->curve);
    free(a->ed);
    free(a);
}

const char *mxc_account_curve25519(const struct mxc_account *a)
{
    return a->curve;
}

const char *mxc_account_ed25519(const struct mxc_account *a)
{
    return a->ed;
}

char *mxc_account_sign(struct mxc_account *a, const char *msg, size_t len)
{
    size_t n = olm_account_signature_length(a->olm);
    char *sig = malloc(n + 1);
    if (!sig)
        return NULL;
    if (olm_account_sign(a->olm, msg, len, sig, n) == olm_error()) {
        free(sig);
        return NULL;
    }
    sig[n] = '\0';
    return sig;
}

size_t mxc_account_max_otks(const struct mxc_account *a)
{
    return olm_account_max_number_of_one_time_keys(a->olm);
}

int mxc_account_generate_otks(struct mxc_account *a, size_t n)
{
    size_t rl = olm_account_generate_one_time_keys_random_length(a->olm, n);
    void *r = random_buf(rl);
    int rc = r && olm_account_generate_one_time_keys(a->olm, n, r, rl) != olm_error() ? 0 : -1;
    wipe_free(r, rl);
    return rc;
}

int mxc_account_generate_fallback(struct mxc_account *a)
{
    size_t rl = olm_account_generate_fallback_key_random_length(a->olm);
    void *r = random_buf(rl);
    int rc = r && olm_account_generate_fallback_key(a->olm, r, rl) != olm_error() ? 0 : -1;
    wipe_free(r, rl);
    return rc;
}

char *mxc_account_unpublished(struct mxc_account *a, bool fallback)
{
    size_t n = fallback ? olm_account_unpublished_fallback_key_length(a->olm)
                        : olm_account_one_time_keys_length(a->olm);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t got = fallback ? olm_account_unpublished_fallback_key(a->olm, out, n)
                          : olm_account_one_time_keys(a->olm, out, n);
    if (got == olm_error()) {
        free(out);
        return NULL;
    }
    out[got] = '\0';
    return out;
}

void mxc_account_mark_published(struct mxc_account *a)
{
    olm_account_mark_keys_as_published(a->olm);
}

void mxc_account_forget_old_fallback(struct mxc_account *a)
{
    olm_account_forget_old_fallback_key(a->olm);
}

int mxc_account_remove_otk(struct mxc_account *a, struct mxc_session *s)
{
    return olm_remove_one_time_keys(a->olm, s->olm) == olm_error() ? -1 : 0;
}

/* ---- Olm sessions ---- */

static struct mxc_session *session_alloc(void)
{
    struct mxc_session *s = calloc(1, sizeof *s);
    void *mem = malloc(olm_session_size());
    if (!s || !mem) {
        free(s);
        free(mem);
        return NULL;
    }
    s->olm = olm_session(mem);
    return s;
}

struct mxc_session *mxc_session_outbound(struct mxc_account *a, const char *their_curve,
                                         const char *their_otk, const char **why)
{
    struct mxc_session *s = session_alloc();
    if (!s) {
        set_why(why, "no memory");
        return NULL;
    }
    size_t rl = olm_create_outbound_session_random_length(s->olm);
    void *r = random_buf(rl);
    if (!r || olm_create_outbound_session(s->olm, a->olm, their_curve, strlen(their_curve),
                                          their_otk, strlen(their_otk), r, rl) == olm_error()) {
        set_why(why, r ? olm_session_last_error(s->olm) : "no random bytes");
        wipe_free(r, rl);
        mxc_session_free(s);
        return NULL;
    }
    wipe_free(r, rl);
    return s;
}

bool mxc_session_matches(struct mxc_session *s, const char *their_curve, const char *body)
{
    size_t n;
    char *buf = scratch(body, &n);
    if (!buf)
        return false;
    size_t r = olm_matches_inbound_session_from(s->olm, their_curve, strlen(their_curve), buf, n);
    free(buf);
    return r == 1;
}

struct mxc_session *mxc_session_inbound(struct mxc_account *a, const char *their_curve,
                                        const char *body, const char **why)
{
    size_t n;
    char *buf = scratch(body, &n);
    struct mxc_session *s = buf ? session_alloc() : NULL;
    if (!s) {
        free(buf);
        set_why(why, "no memory");
        return NULL;
    }
    if (olm_create_inbound_session_from(s->olm, a->olm, their_curve, strlen(their_curve), buf, n) ==
        olm_error()) {
        set_why(why, olm_session_last_error(s->olm));
        free(buf);
        mxc_session_free(s);
        return NULL;
    }
    free(buf);
    return s;
}

char *mxc_session_decrypt(struct mxc_session *s, int type, const char *body, size_t *len,
                          const char **why)
{
    size_t n;
    char *buf = scratch(body, &n);
    if (!buf || (type != 0 && type != 1)) {
        free(buf);
        set_why(why, buf ? "unknown message type" : "no memory");
        return NULL;
    }
    size_t max = olm_decrypt_max_plaintext_length(s->olm, (size_t)type, buf, n);
    free(buf);
    if (max == olm_error()) {
        set_why(why, olm_session_last_error(s->olm));
        return NULL;
    }
    buf = scratch(body, &n); /* the length query decoded it in place */
    char *out = buf ? malloc(max + 1) : NULL;
    size_t got = out ? olm_decrypt(s->olm, (size_t)type, buf, n, out, max) : olm_error();
    free(buf);
    if (got == olm_error()) {
        set_why(why, out ? olm_session_last_error(s->olm) : "no memory");
        free(out);
        return NULL;
    }
    out[got] = '\0';
    *len = got;
    return out;
}

char *mxc_session_encrypt(struct mxc_session *s, const char *plaintext, size_t len, int *type)
{
    size_t rl = olm_encrypt_random_length(s->olm);
    size_t ml = olm_encrypt_message_length(s->olm, len);
    *type = (int)olm_encrypt_message_type(s->olm);
    void *r = random_buf(rl);
    char *out = r ? malloc(ml + 1) : NULL;
    if (!out || olm_encrypt(s->olm, plaintext, len, r, rl, out, ml) == olm_error()) {
        wipe_free(r, rl);
        free(out);
        return NULL;
    }
    wipe_free(r, rl);
    out[ml] = '\0';
    return out;
}

char *mxc_session_id(struct mxc_session *s)
{
    size_t n = olm_session_id_length(s->olm);
    char *id = malloc(n + 1);
    if (!id || olm_session_id(s->olm, id, n) == olm_error()) {
        free(id);
        return NULL;
    }
    id[n] = '\0';
    return id;
}

bool mxc_session_received(const struct mxc_session *s)
{
    return olm_session_has_received_message(s->olm) != 0;
}

static size_t session_pickle_fn(void *o, const void *k, size_t kl, void *out, size_t ol)
{
    return olm_pickle_session(o, k, kl, out, ol);
}

char *mxc_session_pickle(struct mxc_session *s, const void *key, size_t keylen)
{
    return pickle_with(s->olm, olm_pickle_session_length(s->olm), session_pickle_fn, key, keylen);
}

struct mxc_session *mxc_session_unpickle(const char *pickle, const void *key, size_t keylen,
                                         const char **why)
{
    size_t n;
    char *buf = scratch(pickle, &n);
    struct mxc_session *s = buf ? session_alloc() : NULL;
    if (!s) {
        free(buf);
        set_why(why, "no memory");
        return NULL;
    }
    if (olm_unpickle_session(s->olm, key, keylen, buf, n) == olm_error()) {
        set_why(why, olm_session_last_error(s->olm));
        wipe_free(buf, n);
        mxc_session_free(s);
        return NULL;
    }
    wipe_free(buf, n);
    return s;
}

void mxc_session_free(struct mxc_session *s)
{
    if (!s)
        return;
    olm_clear_session(s->olm);
    free(s->olm);
    free(s);
}

/* ---- Megolm: outbound ---- */

static struct mxc_outbound *outbound_alloc(void)
{
    struct mxc_outbound *o = calloc(1, sizeof *o);
    void *mem = malloc(olm_outbound_group_session_size());
    if (!o || !mem) {
        free(o);
        free(mem);
        return NULL;
    }
    o->olm = olm_outbound_group_session(mem);
    return o;
}

struct mxc_outbound *mxc_outbound_new(const char **why)
{
    struct mxc_outbound *o = outbound_alloc();
    if (!o) {
        set_why(why, "no memory");
        return NULL;
    }
    size_t rl = olm_init_outbound_group_session_random_length(o->olm);
    void *r = random_buf(rl);
    if (!r || olm_init_outbound_group_session(o->olm, r, rl) == olm_error()) {
        set_why(why, r ? olm_outbound_group_session_last_error(o->olm) : "no random bytes");
        wipe_free(r, rl);
        mxc_outbound_free(o);
        return NULL;
    }
    wipe_free(r, rl);
    return o;
}

char *mxc_outbound_encrypt(struct mxc_outbound *o, const char *plaintext, size_t len)
{
    size_t ml = olm_group_encrypt_message_length(o->olm, len);
    char *out = malloc(ml + 1);
    if (!out || olm_group_encrypt(o->olm, (const uint8_t *)plaintext, len, (uint8_t *)out, ml) ==
                    olm_error()) {
        free(out);
        return NULL;
    }
    out[ml] = '\0';
    return out;
}

char *mxc_outbound_id(struct mxc_outbound *o)
{
    size_t n = olm_outbound_group_session_id_length(o->olm);
    char *id = malloc(n + 1);
    if (!id || olm_outbound_group_session_id(o->olm, (uint8_t *)id, n) == olm_error()) {
        free(id);
        return NULL;
    }
    id[n] = '\0';
    return id;
}

char *mxc_outbound_key(struct mxc_outbound *o)
{
    size_t n = olm_outbound_group_session_key_length(o->olm);
    char *k = malloc(n + 1);
    if (!k || olm_outbound_group_session_key(o->olm, (uint8_t *)k, n) == olm_error()) {
        free(k);
        return NULL;
    }
    k[n] = '\0';
    return k;
}

uint32_t mxc_outbound_index(struct mxc_outbound *o)
{
    return olm_outbound_group_session_message_index(o->olm);
}

static size_t outbound_pickle_fn(void *o, const void *k, size_t kl, void *out, size_t ol)
{
    return olm_pickle_outbound_group_session(o, k, kl, out, ol);
}

char *mxc_outbound_pickle(struct mxc_outbound *o, const void *key, size_t keylen)
{
    return pickle_with(o->olm, olm_pickle_outbound_group_session_length(o->olm), outbound_pickle_fn,
                       key, keylen);
}

struct mxc_outbound *mxc_outbound_unpickle(const char *pickle, const void *key, size_t keylen,
                                           const char **why)
{
    size_t n;
    char *buf = scratch(pickle, &n);
    struct mxc_outbound *o = buf ? outbound_alloc() : NULL;
    if (!o) {
        free(buf);
        set_why(why, "no memory");
        return NULL;
    }
    if (olm_unpickle_outbound_group_session(o->olm, key, keylen, buf, n) == olm_error()) {
        set_why(why, olm_outbound_group_session_last_error(o->olm));
        wipe_free(buf, n);
        mxc_outbound_free(o);
        return NULL;
    }
    wipe_free(buf, n);
    return o;
}

void mxc_outbound_free(struct mxc_outbound *o)
{
    if (!o)
        return;
    olm_clear_outbound_group_session(o->olm);
    free(o->olm);
    free(o);
}

/* ---- Megolm: inbound ---- */

static struct mxc_inbound *inbound_alloc(void)
{
    struct mxc_inbound *i = calloc(1, sizeof *i);
    void *mem = malloc(olm_inbound_group_session_size());
    if (!i || !mem) {
        free(i);
        free(mem);
        return NULL;
    }
    i->olm = olm_inbound_group_session(mem);
    return i;
}

static struct mxc_inbound *inbound_from(const char *key, bool exported, const char **why)
{
    size_t n;
    char *buf = scratch(key, &n);
    struct mxc_inbound *i = buf ? inbound_alloc() : NULL;
    if (!i) {
        free(buf);
        set_why(why, "no memory");
        return NULL;
    }
    size_t r = exported ? olm_import_inbound_group_session(i->olm, (uint8_t *)buf, n)
                        : olm_init_inbound_group_session(i->olm, (uint8_t *)buf, n);
    wipe_free(buf, n);
    if (r == olm_error()) {
        set_why(why, olm_inbound_group_session_last_error(i->olm));
        mxc_inbound_free(i);
        return NULL;
    }
    return i;
}

struct mxc_inbound *mxc_inbound_new(const char *session_key, const char **why)
{
    return inbound_from(session_key, false, why);
}

struct mxc_inbound *mxc_inbound_import(const char *exported, const char **why)
{
    return inbound_from(exported, true, why);
}

char *mxc_inbound_decrypt(struct mxc_inbound *i, const char *ciphertext, size_t *len,
                          uint32_t *index, const char **why)
{
    size_t n;
    char *buf = scratch(ciphertext, &n);
    if (!buf) {
        set_why(why, "no memory");
        return NULL;
    }
    size_t max = olm_group_decrypt_max_plaintext_length(i->olm, (uint8_t *)buf, n);
    free(buf);
    if (max == olm_error()) {
        set_why(why, olm_inbound_group_session_last_error(i->olm));
        return NULL;
    }
    buf = scratch(ciphertext, &n);
    char *out = buf ? malloc(max + 1) : NULL;
    size_t got = out ? olm_group_decrypt(i->olm, (uint8_t *)buf, n, (uint8_t *)out, max, index)
                     : olm_error();
    free(buf);
    if (got == olm_error()) {
        set_why(why, out ? olm_inbound_group_session_last_error(i->olm) : "no memory");
        free(out);
        return NULL;
    }
    out[got] = '\0';
    *len = got;
    return out;
}

char *mxc_inbound_id(struct mxc_inbound *i)
{
    size_t n = olm_inbound_group_session_id_length(i->olm);
    char *id = malloc(n + 1);
    if (!id || olm_inbound_group_session_id(i->olm, (uint8_t *)id, n) == olm_error()) {
        free(id);
        return NULL;
    }
    id[n] = '\0';
    return id;
}

char *mxc_inbound_export(struct mxc_inbound *i, uint32_t index)
{
    size_t n = olm_export_inbound_group_session_length(i->olm);
    char *k = malloc(n + 1);
    if (!k || olm_export_inbound_group_session(i->olm, (uint8_t *)k, n, index) == olm_error()) {
        free(k);
        return NULL;
    }
    k[n] = '\0';
    return k;
}

uint32_t mxc_inbound_first_index(const struct mxc_inbound *i)
{
    return olm_inbound_group_session_first_known_index(i->olm);
}

static size_t inbound_pickle_fn(void *o, const void *k, size_t kl, void *out, size_t ol)
{
    return olm_pickle_inbound_group_session(o, k, kl, out, ol);
}

char *mxc_inbound_pickle(struct mxc_inbound *i, const void *key, size_t keylen)
{
    return pickle_with(i->olm, olm_pickle_inbound_group_session_length(i->olm), inbound_pickle_fn,
                       key, keylen);
}

struct mxc_inbound *mxc_inbound_unpickle(const char *pickle, const void *key, size_t keylen,
                                         const char **why)
{
    size_t n;
    char *buf = scratch(pickle, &n);
    struct mxc_inbound *i = buf ? inbound_alloc() : NULL;
    if (!i) {
        free(buf);
        set_why(why, "no memory");
        return NULL;
    }
    if (olm_unpickle_inbound_group_session(i->olm, key, keylen, buf, n) == olm_error()) {
        set_why(why, olm_inbound_group_session_last_error(i->olm));
        wipe_free(buf, n);
        mxc_inbound_free(i);
        return NULL;
    }
    wipe_free(buf, n);
    return i;
}

void mxc_inbound_free(struct mxc_inbound *i)
{
    if (!i)
        return;
    olm_clear_inbound_group_session(i->olm);
    free(i->olm);
    free(i);
}

/* ---- utilities ---- */

static OlmUtility *utility_new(void)
{
    void *mem = malloc(olm_utility_size());
    return mem ? olm_utility(mem) : NULL;
}

static void utility_free(OlmUtility *u)
{
    if (!u)
        return;
    olm_clear_utility(u);
    free(u);
}

bool mxc_ed25519_verify(const char *key, const char *msg, size_t len, const char *sig)
{
    OlmUtility *u = utility_new();
    size_t sl;
    char *sbuf = u ? scratch(sig, &sl) : NULL;
    bool ok =
        sbuf && key && olm_ed25519_verify(u, key, strlen(key), msg, len, sbuf, sl) != olm_error();
    free(sbuf);
    utility_free(u);
    return ok;
}

char *mxc_sha256(const void *data, size_t len)
{
    OlmUtility *u = utility_new();
    size_t n = u ? olm_sha256_length(u) : 0;
    char *out = u ? malloc(n + 1) : NULL;
    if (!out || olm_sha256(u, data, len, out, n) == olm_error()) {
        free(out);
        out = NULL;
    } else {
        out[n] = '\0';
    }
    utility_free(u);
    return out;
}
