/*
 * e2ee.h - end-to-end encryption in the Matrix adapter: what the e2ee*.c
 * files share. Private to adapters/matrix/; the rest of the adapter uses the
 * mx_e2e_* functions of mx.h.
 *
 *   e2ee.c          life cycle, the store, the account and its key uploads
 *   e2ee_devices.c  members' device lists (/keys/query), one-time key claims,
 *                   Olm sessions to other devices, the to-device queue
 *   e2ee_rooms.c    one outbound Megolm session per room: rotation, sharing its
 *                   key with every device of every member, encrypting
 *   e2ee_recv.c     to-device messages, inbound Megolm sessions, decrypting room
 *                   events, events waiting for their key, key requests
 *
 * What is stored (adapter keys, through the platform host; "<h>" is the id
 * itself, or "#" and its SHA-256 when it is long). Every secret is a pickle,
 * encrypted with the pickle key:
 *   e2e/account      {"user","device","p","uploaded","fallback_ms","otks"}
 *   e2e/olm/<curve>  [{"p","id","t"}]: Olm sessions with one device, last used first
 *   e2e/out/<h room> {"room","p","created","shared":{user:{device:1}}}
 *   e2e/in/<id>      {"p","room","user","sk","ed","first"}: an inbound Megolm session
 *   e2e/inidx/<h room>  {user:[session ids, oldest first]}: for the cap per sender
 *   e2e/dev/<h user> {device:{"curve","ed"}}: a member's devices (public keys)
 *   e2e/tracked      {user:0|1}: users whose devices are known; 1: outdated
 *   e2e/pending      [{"room","ev","t","told"}]: events waiting for their key
 *   e2e/requests     {session id:{"id","room","user","sk","t"}}: key requests sent
 *
 * Invariants:
 *   E1. A Megolm outbound session is stored with its next message index before
 *       any message it encrypted leaves: no index is ever used twice.
 *   E2. One-time keys are stored (unpublished) before they are uploaded, and
 *       uploaded again unchanged after a crash: no key id is signed twice.
 *   E3. An Olm session is stored before anything it encrypted leaves, and after
 *       what a message it decrypted carried (a room key) is stored.
 *   E4. An event waiting for its key is stored before its batch is acknowledged
 *       (with the batch, once), and forgotten only after the bot committed what it
 *       caused.
 *   E5. Bad input (a malformed or undecryptable event, an unknown algorithm, a
 *       flood) is logged once per reason and sender and skipped; nothing waits
 *       on it but the messages of its own room.
 *   E6. "otks" counts the one-time keys a peer may still use: those made, less
 *       those a peer's first message used, and none once the server lost them with
 *       a deleted device. No key is made past libolm's maximum of them: libolm
 *       pushes out its oldest keys first, so a key a peer claimed is never pushed
 *       out. While the count is full, peers start sessions from the fallback key.
 *   E7. While the server has never taken the device's keys, no sync starts before
 *       the first upload is answered (mx_e2e_keys_wait): the bot joins no room, and
 *       so is sent no message, before players' clients can find its device.
 */
#ifndef ADAPTERS_MATRIX_E2EE_H
#define ADAPTERS_MATRIX_E2EE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "crypto.h"
#include "mx.h"

#define E2E_OLM     "m.olm.v1.curve25519-aes-sha2"
#define E2E_MEGOLM  "m.megolm.v1.aes-sha2"
#define E2E_OTK_ALG "signed_curve25519"

#define E2E_OLM_PER_DEVICE     4   /* Olm sessions kept per device (the spec: at least 4) */
#define E2E_TODEVICE_MAX       200 /* to-device events handled per sync batch */
#define E2E_IN_PER_SENDER      64  /* inbound Megolm sessions kept per sender and room */
#define E2E_PENDING_MAX        256 /* events kept waiting for their key */
#define E2E_PENDING_PER_SENDER 32  /* of them, from one sender */
#define E2E_PENDING_TTL_MS     (24LL * 3600 * 1000)
#define E2E_KEY_WAIT_MS        (60 * 1000) /* then the room is told a message could not be read */
#define E2E_RETRY_MS           (60LL * 60 * 1000) /* a device without one-time keys, a request */
#define E2E_ROT_MS             (7LL * 24 * 3600 * 1000) /* the spec's default rotation period */
#define E2E_ROT_MSGS           100
#define E2E_WARNED_MAX         1024 /* distinct reasons logged once; then the log's own dedup */
#define E2E_REPLAY_KEEP        512  /* message indices remembered per inbound session */
#define E2E_TICK_MS            (15 * 1000)

struct mx_e2ee {
    struct mx *m;
    unsigned char *key; /* the pickle key */
    size_t keylen;
    struct mxc_account *acct; /* NULL until mx_e2e_start() knows the device */
    struct json_object *acct_rec;

    /* key uploads */
    struct mx_call *upload_call;
    bool fallback_wanted;     /* the server used our fallback key */
    uint64_t counts_after;    /* sync counts of syncs started after this one are current */
    uint64_t upload_retry_ms; /* no upload before then (after a failure) */
    bool draining;            /* clearing the one-time keys an earlier store left on the server */
    bool check_own;           /* a new login: does the server still hold the device's keys? */
    int drained;
    int64_t upload_backoff_ms;
    bool upload_answered; /* an upload had an answer in this run: syncs wait no more */

    /* device lists */
    struct json_object *tracked; /* user -> 0 known, 1 outdated */
    struct json_object *devices; /* cache: user -> {device: {"curve","ed"}} */
    struct mx_call *query_call;
    struct json_object *querying; /* users of the query in flight */
    bool query_again;
    struct mx_call *claim_call;
    struct json_object *claiming; /* user -> {device: 1} */
    struct json_object *no_otk;   /* "user device" -> ms: a claim that gave no key */
    struct json_object *unwedged; /* "user device" -> ms of the last new session after a failure */
    struct json_object *wedged;   /* "user device" -> 1: an m.dummy goes once the claim lands */
    struct json_object *olm;      /* cache: curve -> [{"p","id","t"}] */

    /* to-device sends, one at a time */
    struct json_object *td_queue; /* [{"type","messages","room"?}] */
    struct mx_call *td_call;
    struct json_object *td_sending;

    /* receiving */
    struct json_object *inbound; /* cache: session id -> record */
    struct json_object *pending;
    bool pending_retry; /* a key arrived: look at the pending events again */
    bool pending_dirty; /* events were added since the list was stored */
    struct json_object *requests;
    struct json_object *warned;
    uv_timer_t tick;
    int64_t key_wait_ms, tick_ms; /* E2E_KEY_WAIT_MS and E2E_TICK_MS, shorter in tests */
};

/* e2ee.c */
/* The store key for prefix and id: prefix+id, or prefix+"#"+SHA-256 of id when long. */
void e2e_key(char *out, size_t len, const char *prefix, const char *id);
struct json_object *e2e_load(struct mx *m, const char *prefix, const char *id);
void e2e_store(struct mx *m, const char *prefix, const char *id, struct json_object *v);
void e2e_forget(struct mx *m, const char *prefix, const char *id);
/* Logs once per distinct key (reason and sender), then leaves it to the log's dedup. */
void e2e_warn_once(struct mx *m, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The account record's pickle refreshed and stored (after any change to the account). */
void e2e_account_save(struct mx *m);
/* A peer's first message used one of the account's one-time keys (E6). */
void e2e_otk_used(struct mx *m);

/* e2ee_devices.c */
/* The devices of user (borrowed; an empty object when none are known). */
struct json_object *e2e_devices(struct mx *m, const char *user);
/* Whether user's device list is known and current. */
bool e2e_devices_current(struct mx *m, const char *user);
/* Asks the server for the devices of users (a JSON array of user ids) whose list is not
 * current; the pump runs again when they are known. */
void e2e_query(struct mx *m, struct json_object *users);
/* Marks user's device list outdated, if it is tracked. */
void e2e_outdated(struct mx *m, const char *user);
void e2e_untrack(struct mx *m, const char *user);
/* Claims one-time keys of the devices in want ({user:{device:1}}) to start Olm sessions. */
void e2e_claim(struct mx *m, struct json_object *want);
bool e2e_claim_busy(struct mx *m);
/* Whether the device with identity key curve has an Olm session. */
bool e2e_has_session(struct mx *m, const char *curve);
/* Whether a claim for user's device found no key within E2E_RETRY_MS. */
bool e2e_no_otk(struct mx *m, const char *user, const char *device);
/* The Olm ciphertext of payload (a JSON object, completed with the sender and recipient keys)
 * for one device, with its session stored (E3): {"type","body"}, or NULL. */
struct json_object *e2e_olm_encrypt(struct mx *m, const char *user, const char *device,
                                    struct json_object *payload);
/* The plaintext of an Olm message from curve (NUL-terminated), trying its sessions and then a
 * new inbound session; *commit receives what to store once the plaintext's effects are stored:
 * call e2e_olm_commit() with it (and it frees it). NULL when it cannot be decrypted. */
char *e2e_olm_decrypt(struct mx *m, const char *curve, int type, const char *body,
                      struct json_object **commit);
void e2e_olm_commit(struct mx *m, struct json_object *commit);
/* The to-device messages object {user:{device:content}} of one Olm ciphertext ct (taken). */
struct json_object *e2e_olm_content(struct mx *m, const char *user, const char *device,
                                    struct json_object *ct);
/* A message from user's device of curve could not be decrypted: a new Olm session with it, and
 * an m.dummy to tell it so (the spec's recovery, at most once an hour a device). */
void e2e_unwedge(struct mx *m, const char *user, const char *curve);
/* Queues a to-device message: messages is {user:{device:content}} (taken). room and sid, if
 * not NULL, name the room and the session whose key it shares: e2e_shared() is told. */
void e2e_todevice(struct mx *m, const char *type, struct json_object *messages, const char *room,
                  const char *sid);

/* e2ee_rooms.c */
/* The to-device send sharing session sid of room finished (ok: delivered). */
void e2e_shared(struct mx *m, const char *room, const char *sid, struct json_object *messages,
                bool ok);
/* A device list changed: rooms whose session reached a device no longer there rotate. */
void e2e_devices_changed(struct mx *m, const char *user, struct json_object *devices);

/* e2ee_recv.c */
/* Loads the events waiting for their key and the key requests. */
void e2e_recv_load(struct mx *m);
/* The to-device events of a sync batch (borrowed). */
void e2e_to_device(struct mx *m, struct json_object *events);
/* Every E2E_TICK_MS: tells rooms of events still waiting for their key, forgets old ones. */
void e2e_pending_tick(struct mx *m);

#endif
