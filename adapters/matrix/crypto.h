/*
 * crypto.h - every use of libolm by the Matrix adapter, behind one small
 * interface, so that another implementation (vodozemac, once it has a C API)
 * can replace it in one file.
 *
 * Four kinds of object, each opaque and freed by its own _free():
 *   an account     the device's identity keys (Curve25519 and Ed25519) and its
 *                  one-time and fallback keys;
 *   a session      an Olm session with one other device (to-device messages);
 *   an outbound    a Megolm session the bot encrypts one room's messages with;
 *   an inbound     a Megolm session someone else shared, to decrypt their messages.
 * Each is kept between runs as a pickle: a base64 text encrypted with the
 * pickle key (libolm's AES-256 and HMAC-SHA-256 over a key derived from it),
 * so that nothing secret is ever written in the clear.
 *
 * Keys, ids, ciphertexts and pickles are unpadded base64 text, as Matrix uses
 * them. Every text returned is malloc'd and the caller frees it; NULL means
 * failure (a bad input, a wrong pickle key, no memory), with a short reason
 * in *why when why is not NULL (a static string).
 */
#ifndef ADAPTERS_MATRIX_CRYPTO_H
#define ADAPTERS_MATRIX_CRYPTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/attributes.h"

struct mxc_account;
struct mxc_session;
struct mxc_outbound;
struct mxc_inbound;

/* Fills buf with n bytes from the kernel's random source. Returns 0 or -1. */
int mxc_random(void *buf, size_t n) MUST_USE;

/* The library in use, as "libolm 3.2.13" (static). */
const char *mxc_version(void);

/* ---- the account ---- */

/* A new account with fresh identity keys, or NULL. */
struct mxc_account *mxc_account_new(const char **why);
/* The account a pickle holds, or NULL (a wrong key, a damaged pickle). */
struct mxc_account *mxc_account_unpickle(const char *pickle, const void *key, size_t keylen,
                                         const char **why);
char *mxc_account_pickle(struct mxc_account *a, const void *key, size_t keylen);
void mxc_account_free(struct mxc_account *a);
/* The identity keys (borrowed, valid as long as the account). */
const char *mxc_account_curve25519(const struct mxc_account *a);
const char *mxc_account_ed25519(const struct mxc_account *a);
/* The Ed25519 signature of len bytes of msg. */
char *mxc_account_sign(struct mxc_account *a, const char *msg, size_t len);
/* The most one-time keys the account keeps; the oldest are forgotten beyond it. */
size_t mxc_account_max_otks(const struct mxc_account *a);
/* Makes n more one-time keys. Returns 0 or -1. */
int mxc_account_generate_otks(struct mxc_account *a, size_t n) MUST_USE;
/* A new fallback key (the one before it is kept until forgotten). Returns 0 or -1. */
int mxc_account_generate_fallback(struct mxc_account *a) MUST_USE;
/*
 * The one-time keys not yet published, as libolm writes them:
 * {"curve25519":{"<key id>":"<key>",...}}; with fallback true, the fallback key
 * not yet published, in the same form. A JSON text, or NULL.
 */
char *mxc_account_unpublished(struct mxc_account *a, bool fallback);
/* Marks every one-time and fallback key as published. */
void mxc_account_mark_published(struct mxc_account *a);
/* Forgets the fallback key before the current one. */
void mxc_account_forget_old_fallback(struct mxc_account *a);
/* Removes the one-time key a new inbound session used. Returns 0 or -1. */
int mxc_account_remove_otk(struct mxc_account *a, struct mxc_session *s) MUST_USE;

/* ---- Olm sessions ---- */

/* A session to the device with identity key their_curve, from one of its one-time keys. */
struct mxc_session *mxc_session_outbound(struct mxc_account *a, const char *their_curve,
                                         const char *their_otk, const char **why);
/* Whether a pre-key message (type 0) from their_curve was made for session s. */
bool mxc_session_matches(struct mxc_session *s, const char *their_curve, const char *body);
/* A session from a pre-key message of their_curve. The account's one-time key it used stays
 * until mxc_account_remove_otk(), once a message decrypted. */
struct mxc_session *mxc_session_inbound(struct mxc_account *a, const char *their_curve,
                                        const char *body, const char **why);
/* The plaintext of a message of the given type (0 pre-key, 1 normal); *len its length.
 * A failed decryption leaves the session as it was. */
char *mxc_session_decrypt(struct mxc_session *s, int type, const char *body, size_t *len,
                          const char **why);
/* The ciphertext of plaintext; *type receives its message type (0 or 1). */
char *mxc_session_encrypt(struct mxc_session *s, const char *plaintext, size_t len, int *type);
/* The session's id. */
char *mxc_session_id(struct mxc_session *s);
/* Whether the session has decrypted a message (it then sends type 1 messages). */
bool mxc_session_received(const struct mxc_session *s);
char *mxc_session_pickle(struct mxc_session *s, const void *key, size_t keylen);
struct mxc_session *mxc_session_unpickle(const char *pickle, const void *key, size_t keylen,
                                         const char **why);
void mxc_session_free(struct mxc_session *s);

/* ---- Megolm: outbound ---- */

struct mxc_outbound *mxc_outbound_new(const char **why);
/* The ciphertext of plaintext; the session's message index moves on by one. */
char *mxc_outbound_encrypt(struct mxc_outbound *o, const char *plaintext, size_t len);
/* The session id, and the session key at the current index, to share in m.room_key. */
char *mxc_outbound_id(struct mxc_outbound *o);
char *mxc_outbound_key(struct mxc_outbound *o);
/* How many messages the session encrypted (the index of the next one). */
uint32_t mxc_outbound_index(struct mxc_outbound *o);
char *mxc_outbound_pickle(struct mxc_outbound *o, const void *key, size_t keylen);
struct mxc_outbound *mxc_outbound_unpickle(const char *pickle, const void *key, size_t keylen,
                                           const char **why);
void mxc_outbound_free(struct mxc_outbound *o);

/* ---- Megolm: inbound ---- */

/* From the session_key of an m.room_key (signed by the sender's Ed25519 key). */
struct mxc_inbound *mxc_inbound_new(const char *session_key, const char **why);
/* From an exported key (m.forwarded_room_key). */
struct mxc_inbound *mxc_inbound_import(const char *exported, const char **why);
/* The plaintext of a Megolm message, with its message index in *index. */
char *mxc_inbound_decrypt(struct mxc_inbound *i, const char *ciphertext, size_t *len,
                          uint32_t *index, const char **why);
char *mxc_inbound_id(struct mxc_inbound *i);
/* The session exported from message index on (the form m.forwarded_room_key carries). */
char *mxc_inbound_export(struct mxc_inbound *i, uint32_t index);
/* The first message index the session can decrypt. */
uint32_t mxc_inbound_first_index(const struct mxc_inbound *i);
char *mxc_inbound_pickle(struct mxc_inbound *i, const void *key, size_t keylen);
struct mxc_inbound *mxc_inbound_unpickle(const char *pickle, const void *key, size_t keylen,
                                         const char **why);
void mxc_inbound_free(struct mxc_inbound *i);

/* ---- utilities ---- */

/* Whether sig is key's Ed25519 signature of len bytes of msg. */
bool mxc_ed25519_verify(const char *key, const char *msg, size_t len, const char *sig);
/* The SHA-256 of len bytes of data, in base64. */
char *mxc_sha256(const void *data, size_t len);

#endif
