/*
 * hs.h - a small Matrix homeserver for tests: the client-server endpoints the
 * adapter uses, as the specification defines them, over HTTP/1.1 on
 * loopback, in its own thread with its own libuv loop.
 *
 * One user is the bot (HS_BOT, token HS_BOT_TOKEN, password HS_BOT_PASSWORD);
 * every other user is played by the test through the control functions
 * below, which are safe to call from the test thread, or through test
 * players (hs_player_*) that hold a real libolm device and go through the
 * server's own endpoints.
 *
 * The server is configured as real deployments are: new rooms are encrypted
 * by default as Synapse's encryption_enabled_by_default_for_room_type makes
 * them (chosen from the seed between "invite" and "all" unless a test sets
 * it), the end-to-end encryption endpoints are served, and every event is
 * run through every member's default push rules (GET /notifications).
 *
 * The code: hs.c (state, accounts, routes), hs_http.c (the HTTP front),
 * hs_rooms.c (rooms), hs_sync.c (/sync), hs_keys.c (keys and to-device),
 * hs_push.c with push.c (push rules), hs_player.c (test players, libolm).
 */
#ifndef TESTS_MATRIX_HS_H
#define TESTS_MATRIX_HS_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct hs;

#define HS_BOT          "@illegal:test.local"
#define HS_BOT_TOKEN    "syt_bot_token"
#define HS_BOT_PASSWORD "hunter2-test"

/* encryption_enabled_by_default_for_room_type: which createRoom presets come out encrypted. */
enum hs_encryption {
    HS_ENC_OFF,    /* none */
    HS_ENC_INVITE, /* private_chat and trusted_private_chat */
    HS_ENC_ALL,    /* every preset */
};

struct hs *hs_new(void);
/* Overrides the seed's choice; "off" only where a test says why. */
void hs_set_encryption(struct hs *hs, enum hs_encryption e);
enum hs_encryption hs_get_encryption(struct hs *hs);
/* Overrides the seed's choice of whether a second identical annotation is refused. */
void hs_set_duplicate_annotations_refused(struct hs *hs, bool refused);
const char *hs_encryption_name(enum hs_encryption e);
/* Starts listening on 127.0.0.1 on a free port; returns the port or -1. */
int hs_start(struct hs *hs);
/* "http://127.0.0.1:PORT" */
const char *hs_url(struct hs *hs);
void hs_free(struct hs *hs);

/* Rooms and users. Returned strings are malloc'd. */
/* A private_chat room, encrypted or not whatever the server's default. */
char *hs_create_room(struct hs *hs, const char *creator, bool encrypted);
/* A room as a client's createRoom with this preset makes it: encrypted by the server's default. */
char *hs_create_room_as(struct hs *hs, const char *creator, const char *preset);
/* A direct chat with the bot opened by user as Element opens one: trusted_private_chat,
 * is_direct, the bot invited, m.room.encryption in the initial state. */
char *hs_open_dm(struct hs *hs, const char *user);
/* user turns encryption on in a room (an m.room.encryption state event), as mid-game. */
void hs_enable_encryption(struct hs *hs, const char *room, const char *user);
bool hs_room_encrypted(struct hs *hs, const char *room);
/* The joined members of a room (a new array of user ids). */
struct json_object *hs_room_members(struct hs *hs, const char *room);
void hs_join(struct hs *hs, const char *room, const char *user);
void hs_leave(struct hs *hs, const char *room, const char *user);
void hs_invite_bot(struct hs *hs, const char *room, const char *inviter);
/* An invite to a direct chat (is_direct in the bot's member event), as clients send it. */
void hs_invite_bot_direct(struct hs *hs, const char *room, const char *inviter);
void hs_set_power(struct hs *hs, const char *room, const char *user, int level);
void hs_set_displayname(struct hs *hs, const char *room, const char *user, const char *name);
char *hs_send(struct hs *hs, const char *room, const char *user, const char *type,
              const char *content_json);
char *hs_say(struct hs *hs, const char *room, const char *user, const char *text);
char *hs_react(struct hs *hs, const char *room, const char *user, const char *target,
               const char *key);
/* form 0: org.matrix.msc3381.poll.response; 1: m.poll.response with m.selections. */
char *hs_poll_vote(struct hs *hs, const char *room, const char *user, const char *poll,
                   const char *answer, int form);

/* Event contents as clients write them (new objects). */
struct json_object *hs_text_content(const char *text);
struct json_object *hs_reaction_content(const char *target, const char *key);
struct json_object *hs_poll_vote_content(const char *poll, const char *answer, int form,
                                         const char **type);

/* Accounts and requests. */
/* Gives user a device and an access token (malloc'd), as a login would. */
char *hs_register(struct hs *hs, const char *user, const char *device);
/* One request through the server's routes, in process (a /sync answers at once). path
 * starts with "/_matrix/client/v3/"; *out (may be NULL) gets the answer. Returns the
 * HTTP status, or -1 for a path outside the API. */
int hs_request(struct hs *hs, const char *token, const char *method, const char *path,
               struct json_object *body, struct json_object **out);
/* A copy of user's account data of type, or NULL. */
struct json_object *hs_account_data(struct hs *hs, const char *user, const char *type);
/* One-time keys the server holds for a device (-1: no such device). */
int hs_one_time_keys(struct hs *hs, const char *user, const char *device);
/* To-device messages not yet acknowledged by the device. */
int hs_to_device_pending(struct hs *hs, const char *user, const char *device);
/* The user deletes one of their devices (DELETE /devices/{id}): its keys, tokens and
 * to-device messages go, and the users who share a room with them see a device list change. */
void hs_remove_device(struct hs *hs, const char *user, const char *device);

/* Push. */
/* A copy of user's notifications, oldest first ({"room_id","event","actions","ts","read"}). */
struct json_object *hs_notifications(struct hs *hs, const char *user);
/* The same evaluator on an event the server never saw in clear (a decrypted event), with the
 * room's current state, as a client decides to notify. rule gets the matching rule id. */
void hs_push_check(struct hs *hs, const char *user, const char *room, struct json_object *event,
                   bool *notify, bool *highlight, char *rule, size_t rule_len);

/* Test players: a client with a real libolm device (hs_player.c). Each call runs in the
 * test's thread and goes through the server's endpoints (hs_request). */
struct hs_player;
/* Registers user with a new device, uploads its signed device keys, one-time keys and a
 * fallback key (/keys/upload). */
struct hs_player *hs_player_new(struct hs *hs, const char *user);
void hs_player_free(struct hs_player *p);
const char *hs_player_user(struct hs_player *p);
const char *hs_player_device(struct hs_player *p);
const char *hs_player_curve_key(struct hs_player *p);
/* One /sync (no wait): invites accepted, to-device messages decrypted with Olm and checked
 * as the specification asks, room keys kept, limited timelines filled through /messages,
 * encrypted events decrypted (or kept until their key comes), one-time keys topped up.
 * Returns how many events became readable, or -1. */
int hs_player_sync(struct hs_player *p);
/* What the player read since *cursor, in order, as the player sees it: an encrypted event
 * with the type and content of its plaintext and "encrypted": true; each with "room_id". */
struct json_object *hs_player_events_after(struct hs_player *p, size_t *cursor);
/* Encrypted events the player could not decrypt yet. */
int hs_player_undecrypted(struct hs_player *p);
/* What went wrong for the player (bad signatures, failed checks, a reused Megolm index):
 * an array of texts (a new reference). */
struct json_object *hs_player_errors(struct hs_player *p);
int hs_player_join(struct hs_player *p, const char *room);
/* Sends as the player's client: in an encrypted room, its outbound Megolm session is shared
 * over Olm with every device of every joined member first (one-time keys claimed and their
 * signatures checked), and the event goes out as m.room.encrypted. content is taken.
 * Returns the event id (malloc'd) or NULL. */
char *hs_player_send(struct hs_player *p, const char *room, const char *type,
                     struct json_object *content);
char *hs_player_say(struct hs_player *p, const char *room, const char *text);
char *hs_player_react(struct hs_player *p, const char *room, const char *target, const char *key);
char *hs_player_poll_vote(struct hs_player *p, const char *room, const char *poll,
                          const char *answer, int form);
/* The bot's events as these players read them: hs_bot_events (optionally of one type), each
 * m.room.encrypted replaced by its decrypted form from the first reader that decrypted it
 * (the readers sync first); an event no reader could decrypt stays m.room.encrypted. */
struct json_object *hs_bot_events_read(struct hs *hs, struct hs_player *const *readers, size_t n,
                                       const char *type);
/* Would the player's client notify for this event it read (decrypted)? hs_push_check. */
void hs_player_push(struct hs_player *p, struct json_object *event, bool *notify, bool *highlight,
                    char *rule, size_t rule_len);

/* What the bot did. */
/* A copy of the bot's events (each with "room_id"), oldest first, optionally of one type. */
struct json_object *hs_bot_events(struct hs *hs, const char *type);
/* The bot's events added since *cursor (a position in the server's log, start at 0). */
struct json_object *hs_bot_events_after(struct hs *hs, size_t *cursor);
/* The stream's position now, and whether the bot has read up to pos: it made a sync request
 * whose `since` covers it (so it handled the batch that brought it). */
long hs_position(struct hs *hs);
bool hs_bot_has_read(struct hs *hs, long pos);
/* What the bot sent in clear into a room it knew was encrypted (it had made two syncs since
 * the room's m.room.encryption): [{"room","type","event_id"}], a copy; tests assert it stays
 * empty. */
struct json_object *hs_bot_clear_sends(struct hs *hs);
/* Writes the server's whole event log (JSON) to path, for diagnostics. Returns 0 or -1. */
int hs_dump(struct hs *hs, const char *path);
/* Writes every request the server saw ([{"line","body","ms"}], in order) to path, likewise. */
int hs_dump_requests(struct hs *hs, const char *path);
/* The direct room the bot recorded in m.direct for user, or NULL (malloc'd). */
char *hs_direct_room(struct hs *hs, const char *user);
/* Requests seen whose "METHOD path" contains substr. */
int hs_count(struct hs *hs, const char *substr);
/* The last request body whose "METHOD path" contains substr, or NULL (malloc'd). */
char *hs_last_body(struct hs *hs, const char *substr);
/* Every request body whose "METHOD path" contains substr, oldest first (a new array of the
 * parsed bodies; a body that is not JSON is left out). */
struct json_object *hs_bodies(struct hs *hs, const char *substr);

/* Faults. The next `count` requests whose "METHOD path" contains substr get
 * this answer instead: status 0 closes the connection without an answer;
 * status -1 handles the request, then closes the connection instead of
 * answering (a lost reply); status -2 handles it and never answers; header
 * may be NULL ("Retry-After: 1"). */
void hs_fault(struct hs *hs, const char *substr, int status, const char *body, const char *header,
              int count);
/* Forgets every fault not used up yet. */
void hs_faults_clear(struct hs *hs);
/* Makes every token unknown (401 M_UNKNOWN_TOKEN, with soft_logout as given). */
void hs_revoke_tokens(struct hs *hs, bool soft_logout);
/* Timeline limit the server applies at most (to force limited timelines). */
void hs_set_max_timeline(struct hs *hs, int limit);
/* Ends every /messages page after this many events of the room, those its filter drops
 * included (0: at the limit asked, counting the events returned only). */
void hs_set_messages_page(struct hs *hs, int events);

#endif
