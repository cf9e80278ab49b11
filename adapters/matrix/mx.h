/*
 * mx.h - what the Matrix adapter's files share: the adapter struct, the room
 * table, the outbox and the renderer. Private to adapters/matrix/.
 */
#ifndef ADAPTERS_MATRIX_MX_H
#define ADAPTERS_MATRIX_MX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

#include <uv.h>

#include "../../bot/platform.h"
#include "bot/util/clock.h"
#include "core/json.h"

struct json_object;
struct mx_http;
struct mx_call;
struct mx_req;
struct mx_e2ee;
struct mxc_outbound;
struct config;

#define MX_SYNC_TIMEOUT_MS 30000            /* the /sync long poll */
#define MX_CALL_TIMEOUT_MS 30000            /* any other call */
#define MX_NOTICE_EVERY_MS (10 * 60 * 1000) /* encrypted-room notice, per room */
#define MX_SEEN_MAX        4096             /* event ids remembered against replays */
#define MX_SEND_LANES      6                /* sends in flight at once, one per room */
#define MX_DM_RECHECK_MS   5000             /* a failed createRoom is looked for this long */
/* At most this many direct rooms created for one user in MX_DM_CREATE_WINDOW_MS: should a new
 * room ever look unusable, the bot must not create rooms in a loop. */
#define MX_DM_CREATE_MAX       3
#define MX_DM_CREATE_WINDOW_MS (60 * 60 * 1000)
/* State event the bot sets in each direct room it creates, naming the player: after a crash or
 * a lost createRoom answer, the room is found in the sync and reused, not created again. */
#define MX_DM_MARKER "org.illegald.direct"
/* Key of every event the bot sends, holding its transaction id: a send made under an earlier
 * access token is found by it after a new login (send.c). */
#define MX_TXN_MARK "org.illegald.txn"

/* A call waiting for its answer, with what its callback needs. Kept on m->reqs, so the ones a
 * stop cancels (their callback never runs) are freed with the adapter. */
struct mx_req {
    LIST_ENTRY(mx_req) link; /* in the adapter's reqs */
    struct mx *m;
    char *key;     /* the user (createRoom), the room (join, members) */
    char *dm_user; /* join: the user whose direct chat this is, or NULL */
};

struct mx_room {
    char *id;
    SLIST_ENTRY(mx_room) link; /* in the adapter's rooms */
    bool joined;
    bool encrypted;
    /* A sync showed the room's state (or the store knew it): whether it is encrypted is known.
     * Nothing is sent into a room before: a room the bot just created or joined may be
     * encrypted by the server's default or by its creator. */
    bool state_seen;
    int users_default;
    struct json_object *power; /* "users" of m.room.power_levels, or NULL */
    struct json_object *names; /* user id -> display name */
    struct json_object *gone;  /* user id -> true: left or banned */
    char *dm_for;              /* the player named by the bot's MX_DM_MARKER state, or NULL */
    char *inviter;             /* whose invite the bot joined it on, or NULL */
    char *alias, *name;        /* m.room.canonical_alias and m.room.name, or NULL */
    int joined_n, invited_n;   /* members, from the sync's summary; -1: not told */
    bool someone_left;         /* a member left (or declined) since the rooms were tidied */
    uint64_t notice_ms;        /* when the encrypted-room notice was last sent */
    bool dirty;                /* changed since the rooms were last stored */

    /* End-to-end encryption (e2ee_rooms.c), in encrypted rooms. */
    int64_t rot_ms, rot_msgs;    /* rotation of the outbound session, from m.room.encryption */
    struct json_object *members; /* user -> "join" or "invite", once fetched in this run */
    struct json_object *known;   /* user -> membership, as far as this run's sync showed them */
    bool members_busy;
    struct mxc_outbound *out;    /* the outbound Megolm session, or NULL */
    struct json_object *out_rec; /* its record in the store */
    bool out_loaded;             /* the store was read for it */
    bool sharing;                /* its key is on its way to devices */
};

enum mx_phase { MX_IDLE, MX_STARTING, MX_SNAPSHOT, MX_SYNCING, MX_FAILED, MX_STOPPED };

struct mx {
    struct platform base;
    uv_loop_t *loop;
    struct mx_http *http;
    struct mx_e2ee *e2ee; /* end-to-end encryption (e2ee*.c) */

    char *hs, *user_id, *token, *password, *device_id, *invite_allow;
    const char *language; /* catalog language of the adapter's own notices (the config's) */
    int mod_level;
    int rooms_per_inviter, max_rooms; /* invites taken (invites.c) */
    size_t declined;                  /* invites declined in this batch */
    struct json_object *tables;       /* rooms with a game, open or running ("tables") */

    enum mx_phase phase;
    struct mx_call *sync_call, *boot_call;
    char *filter_id;
    char *since;
    bool since_stored;          /* this run resumed from a stored sync token */
    bool since_current;         /* since is this run's: past everything sent before the start */
    bool relogin;               /* a login after a rejected token is under way */
    bool keys_wait;             /* start-up waits for the device's first key upload */
    struct json_object *warned; /* names of /sync fields already logged as malformed */

    SLIST_HEAD(, mx_room) rooms;
    struct json_object *direct; /* m.direct: user -> [room ids] */
    struct json_object
        *direct_pending; /* user -> [room ids] added here, not yet seen from the server */
    bool direct_busy, direct_dirty;  /* one m.direct PUT at a time; another one after it */
    struct json_object *dm_creating; /* user -> true while createRoom runs, false if it failed */
    struct json_object *dm_recheck;  /* user -> sync number after which to look again */
    struct json_object *dm_created;  /* user -> [wall ms of each createRoom in the window] */
    uv_timer_t dm_timer;             /* looks again for rooms whose creation got no answer */
    uint64_t syncs_started;          /* /sync requests started, to order rechecks */
    struct json_object *probes;      /* user -> true: probe_dm waiting for a DM room */
    struct json_object *joining;     /* room id -> DM user or "" while a join runs (stored) */
    LIST_HEAD(, mx_req) reqs;        /* createRoom and join calls waiting for an answer */

    /* Outbox, persisted one item per key (send.c): items still to PUT, in sending order. */
    struct json_object *outbox;
    int64_t out_head;          /* lowest transaction number that may still be queued */
    struct json_object *keys;  /* cache of "key/<key>": {"e","room","r"} */
    struct json_object *polls; /* open polls: event id -> {"room","answers","deadline"} */
    struct json_object *votes; /* DM vote messages: event id -> {emoji: action} */
    struct json_object *sent;  /* the bot's outbox ids delivered, until it forgot them ("sent/") */
    uint64_t txn;
    struct mx_lane {
        struct mx *m;
        struct mx_call *call;
        char *txn, *target;
    } lanes[MX_SEND_LANES];
    uv_timer_t poll_timer;             /* ends polls at their deadline */
    uv_timer_t defer;                  /* runs deferred work (probe answers, the pump) */
    struct json_object *probe_answers; /* user -> bool, answered on the next tick */
    int handles_open;
    bool destroyed;

    /* Replays: event ids handled recently, and those handled in the batch in flight. */
    char *seen[MX_SEEN_MAX];
    size_t seen_next;
    struct json_object *inflight;
    uint64_t order;

    /* The sync batch being handled while gaps of limited timelines are filled. */
    struct json_object *batch;
    bool batch_initial;
    struct json_object *gaps; /* [{"room","from","events":[]}] */
    size_t gap_idx;
};

/* matrix.c: persisted adapter state. */
char *mx_state_get(struct mx *m, const char *key);
void mx_state_set(struct mx *m, const char *key, const char *value);
/* mx_state_set that says whether the value reached the store: 0, or -1 (logged). */
int mx_state_put(struct mx *m, const char *key, const char *value) MUST_USE;
/* Forgets a stored key (no error when it was never set). */
void mx_state_del(struct mx *m, const char *key);
/* Calls fn with each stored key that starts with prefix (the whole key) and its value. */
void mx_state_each(struct mx *m, const char *prefix,
                   void (*fn)(void *arg, const char *key, const char *value), void *arg);
struct json_object *mx_state_get_json(struct mx *m, const char *key);
void mx_state_set_json(struct mx *m, const char *key, struct json_object *v);
/* Stores data that a replay makes good (the events in flight) with the
 * bot's next commit, so that it lands with the changes those events caused,
 * or within about a second. */
void mx_state_defer(struct mx *m, const char *key, const char *value);
void mx_state_defer_json(struct mx *m, const char *key, struct json_object *v);
void mx_fail(struct mx *m, const char *why);
/* The close callback of the adapter's libuv handles: the adapter is freed after the last. */
void mx_handle_closed(uv_handle_t *h);
void mx_defer(struct mx *m);
void mx_probes_after_snapshot(struct mx *m);
/* The body of a password login with the stable device id (malloc'd JSON), or NULL. */
char *mx_login_body(struct mx *m);
/* Takes a login answer: keeps and stores the token and device. Returns 0, or -1 if refused. */
int mx_login_done(struct mx *m, long status, struct json_object *answer) MUST_USE;
/* The homeserver answered 401 to `where`: logs in again with the password if there is one
 * (once, however many calls saw the 401), else stops the adapter. */
void mx_token_rejected(struct mx *m, const char *where);

/* sync.c */
/* Starts the start-up chain; with login true, a password login comes first. */
void mx_sync_begin(struct mx *m, bool login);
/* The homeserver answered the device's first key upload: a start-up that waited for it
 * (mx_e2e_keys_wait) goes on to its first sync. */
void mx_sync_keys_taken(struct mx *m);
/* Handles one /sync answer body (borrowed) as the batch after m->since. Returns 0, or -1 when
 * it has no next_batch. */
int mx_sync_apply(struct mx *m, struct json_object *body) MUST_USE;
/* Without a homeserver (matrix_feed_sync): applies the batch in flight without the gaps still
 * to fetch, as when /messages fails, and cancels the next long poll. */
void mx_sync_settle(struct mx *m);
char *mx_filter_json(void);
bool mx_seen(struct mx *m, const char *event_id);
void mx_seen_add(struct mx *m, const char *event_id);

/* rooms.c */
struct mx_room *mx_room_get(struct mx *m, const char *id, bool create);
void mx_room_apply_state(struct mx *m, struct mx_room *r, struct json_object *ev);
bool mx_room_is_moderator(struct mx *m, struct mx_room *r, const char *user);
/* How a text names room: its alias, else its name and a link, else a link (matrix.to). */
void mx_channel_name(struct mx *m, const char *room, char *out, size_t len);
/* The display names the rooms know of users (a JSON array of ids): {user: name} (the caller's). */
struct json_object *mx_known_names(struct mx *m, const struct json_object *users);
const char *mx_dm_user(struct mx *m, const char *room_id);
const char *mx_dm_room(struct mx *m, const char *user);
int mx_dm_ensure(struct mx *m, const char *user) MUST_USE;
void mx_dm_recheck(struct mx *m, bool timer);
void mx_direct_set(struct mx *m, struct json_object *content);
/* invites.c */
/* Whether invite_allow lets inviter in (by default: users of the bot's own server). */
bool mx_invite_allowed(struct mx *m, const char *inviter);
/* Joins room_id on inviter's invite (direct: a direct chat), or declines it (invites.c). */
void mx_invite(struct mx *m, const char *room_id, const char *inviter, bool direct);
/* Leaves the rooms where nobody but the bot is left and no game runs. */
void mx_rooms_tidy(struct mx *m);
/* A game opened or runs (running) at table, or ended there. */
void mx_tables_note(struct mx *m, const char *table, bool running);
/* Joins a room the bot was invited to; dm_user (or NULL) names whose direct chat it is. */
void mx_join(struct mx *m, const char *room_id, const char *dm_user);
/* Joins again the rooms whose join a stop or crash interrupted (stored under "joining"). */
void mx_joins_resume(struct mx *m);
void mx_rooms_free(struct mx *m);
/* Stores what is known of every room ("rooms") if any changed; loads it at start. */
void mx_rooms_save(struct mx *m);
void mx_rooms_load(struct mx *m);
/* Loads the stored m.direct and the rooms not yet seen on the server ("direct"). */
void mx_direct_load(struct mx *m);
/* PUTs m.direct again if it holds rooms the server has not shown yet. */
void mx_direct_flush(struct mx *m);

/* send.c */
/* Queues item (taken) and sends what can go. */
void mx_outbox_push(struct mx *m, struct json_object *item);
void mx_outbox_load(struct mx *m);
void mx_pump(struct mx *m);
void mx_polls_arm(struct mx *m);
void mx_polls_end_room(struct mx *m, const char *room);
int mx_send_outbound(struct mx *m, const struct outbound *o) MUST_USE;
void mx_send_plain_notice(struct mx *m, const char *room, const char *text);
char *mx_key_for_event(struct mx *m, const char *event_id);

/* e2ee*.c: end-to-end encryption (e2ee.h tells how). */
/* Sets up encryption with the pickle key of the config (or its key file). Returns 0, or -1 with
 * a reason in err. */
int mx_e2e_new(struct mx *m, const struct config *cfg, char *err, size_t errlen) MUST_USE;
void mx_e2e_free(struct mx *m);
/* The device is known: loads or creates the account and uploads what the server lacks. */
void mx_e2e_start(struct mx *m);
/* A password login succeeded: the device may have been deleted and made anew without its keys,
 * so the server's copy is checked before the next upload. */
void mx_e2e_logged_in(struct mx *m);
void mx_e2e_stop(struct mx *m);
/* For tests: how long an event waits for its key before its room is told, and how often that is
 * looked at (E2E_KEY_WAIT_MS and E2E_TICK_MS by default). */
void mx_e2e_set_wait(struct mx *m, int64_t key_wait_ms, int64_t tick_ms);
/* Whether the first sync waits for the device's keys: until the homeserver answered their first
 * upload (a first start, or a store made anew). A player's client shares a room key only with
 * the devices it finds, so what a player writes in a room the bot joined before its keys were
 * on the server could never be read. */
bool mx_e2e_keys_wait(struct mx *m);
/* A sync batch, before its rooms: device lists, one-time key counts, to-device messages. */
void mx_e2e_sync(struct mx *m, struct json_object *batch);
/* The bot committed the batch: events handled from the waiting list are forgotten (E4). */
void mx_e2e_batch_done(struct mx *m);
/* An m.room.encrypted event of room r: 0 and the decrypted event in *out (the caller puts
 * it), 1 when it waits for its key (stored, the key requested), -1 when it is bad (logged). */
int mx_e2e_decrypt(struct mx *m, struct mx_room *r, struct json_object *ev,
                   struct json_object **out) MUST_USE;
/* The m.room.encrypted content of an event of type and content for room r: 0 and *out, 1
 * when the room's key is not yet with every device (what is missing is under way, and the pump
 * runs again), -1 on failure. */
int mx_e2e_encrypt(struct mx *m, struct mx_room *r, const char *type, struct json_object *content,
                   struct json_object **out) MUST_USE;
/* Room r's member user is now in membership ms (from its state or timeline). */
void mx_e2e_member(struct mx *m, struct mx_room *r, const char *user, const char *ms);
/* Room r's m.room.encryption content. */
void mx_e2e_room_config(struct mx_room *r, struct json_object *content);
void mx_e2e_room_free(struct mx_room *r);
/* Handles one timeline event of room r (sync.c); a decrypted event goes the same way. */
void mx_handle_event(struct mx *m, struct mx_room *r, struct json_object *ev);
/* Tells room r a notice of the catalog, at most every MX_NOTICE_EVERY_MS (sync.c). */
void mx_room_notice(struct mx *m, struct mx_room *r, const char *catalog_key);
/* canonical.c: Matrix canonical JSON and signed JSON objects. */
char *mx_canonical_json(struct json_object *v);
struct mxc_account;
int mx_sign_json(struct mxc_account *a, const char *user, const char *device,
                 struct json_object *o) MUST_USE;
bool mx_verify_json(struct json_object *o, const char *user, const char *key_id,
                    const char *ed25519);
/* A call waiting for its answer (rooms.c): freed with the adapter if a stop cancels it. */
struct mx_req *mx_req_new(struct mx *m, const char *key);
void mx_req_free(struct mx_req *q);

/* render.c: pure functions from outbound messages to event contents. */
char *mx_html_escape(const char *text);
/* The content of a message: a notice, or with ping an m.text whose pills and m.mentions name
 * data's "mentions" (known: user -> display name, for those data does not name). */
struct json_object *mx_render_message(const char *text, enum outbound_kind kind,
                                      const struct json_object *data, bool ping,
                                      const struct json_object *known);
/* How a ballot or a poll names one of data's choices (msg_choice_label() in data's
 * language; its command when it has no label), written into out. */
void mx_choice_label(const struct json_object *data, const struct json_object *choice, char *out,
                     size_t len);
struct json_object *mx_render_edit(struct json_object *new_content, const char *event_id);
struct json_object *mx_render_reaction(const char *event_id, const char *key);
struct json_object *mx_render_poll(const char *text, const struct json_object *data,
                                   struct json_object **answers);
struct json_object *mx_render_poll_end(const char *event_id, const char *text);
const char *mx_vote_emoji(size_t i);

#endif
