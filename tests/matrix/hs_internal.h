/*
 * hs_internal.h - what the files of the test homeserver share: its state, a
 * request and its answer, and the handlers each file serves.
 *
 * Every handler runs with hs->mu held, on the server's thread (HTTP) or on
 * the test's (hs_request, the test players).
 */
#ifndef TESTS_MATRIX_HS_INTERNAL_H
#define TESTS_MATRIX_HS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>
#include <uv.h>

#include "hs.h"

#define HS_PREFIX   "/_matrix/client/v3/"
#define HS_MAX_SEGS 8
/* Synapse hands at most 100 to-device messages to one sync. */
#define HS_TO_DEVICE_BATCH 100

struct conn;

struct hs {
    uv_loop_t loop;
    uv_tcp_t server;
    uv_async_t wake;
    uv_timer_t tick;
    uv_thread_t thread;
    uv_mutex_t mu;
    bool running;
    int port;
    char url[64];
    struct conn *conns;

    /* Rooms (hs_rooms.c). */
    struct json_object *log;   /* [{"pos","room","event"}] */
    struct json_object *rooms; /* id -> {"state":{type|key: ev},"members":{},"pos":{}} */
    struct json_object *txns;  /* token|txn -> event id (or to-device: token|type|txn -> 1) */
    enum hs_encryption encryption;
    /* A second identical annotation of one sender refused (M_DUPLICATE_ANNOTATION), as the
     * spec says a server should (not must): Synapse does, others may not. */
    bool refuse_dup_annotations;
    /* A /messages page ends after this many events of the room, those the filter drops
     * included, as Synapse counts them, so that a page may come empty with an `end` to go on
     * from (the spec: an empty chunk does not mean that no more events are available), and may
     * hold fewer than the limit asked (a maximum). Set by hs_set_messages_page; 0: the limit
     * asked, counting the events returned only. */
    int messages_page;
    /* Accounts (hs.c): access token -> {"user","device"}; user -> type -> {"content","pos"}. */
    struct json_object *tokens;
    struct json_object *account_data;
    struct json_object *filters;  /* id -> filter */
    struct json_object *requests; /* [{"line","body"}] */
    struct json_object *faults;   /* [{"substr","status","body","header","count"}] */
    /* Keys and to-device (hs_keys.c). */
    struct json_object *devices;      /* user -> device -> {"keys","name","otk":{},"fallback":{}} */
    struct json_object *device_moved; /* user -> stream position of the last device change */
    struct json_object *inbox;        /* user -> device -> [{"td","event"}] */
    long td;                          /* the to-device stream */
    /* Push (hs_push.c): user -> [{"room_id","event","actions","ts"}] oldest first; user ->
     * their rules (the defaults of the specification). */
    struct json_object *notifications;
    struct json_object *push_rules;

    /* The bot's sends in clear into rooms it knew were encrypted (hs_bot_clear_sends), and the
     * `since` of each of its syncs: what it had read when it sent. */
    struct json_object *clear_sends;
    struct json_object *bot_since;

    long pos;
    int next_room, next_event, next_filter, next_login;
    int max_timeline;
    bool soft_logout;
    bool dirty; /* the stream moved: parked syncs may have something to say */
    /* Variation of what the specification leaves open, from a printed seed. */
    uint64_t seed, rng;
    struct json_object *last_initial; /* an earlier initial sync, served again as a stale copy */
};

/* One request, as the routes see it: the path after HS_PREFIX in decoded segments. */
struct hs_req {
    const char *method;
    char *seg[HS_MAX_SEGS];
    int nseg;
    struct json_object *query; /* name -> string */
    struct json_object *body;  /* parsed, or NULL */
    const char *token;
    const char *user;   /* who the token belongs to */
    const char *device; /* and its device */
};

/* Its answer: a status and a body, or a /sync to hold until something happens. */
struct hs_resp {
    int status;
    struct json_object *body;
    bool park;
    long since;
    long since_td;
    struct json_object *filter; /* owned by the response until parked */
    uint64_t deadline;
};

/* ---- helpers (hs.c) ---- */
uint64_t hs_now_ms(void);
const char *hs_jstr(struct json_object *o, const char *k);
struct json_object *hs_jget(struct json_object *o, const char *k);
/* o if it is an object, else an empty object: what json_object_object_foreach may walk. */
struct json_object *hs_iter(struct json_object *o);
/* o[k], made an empty object first when absent. */
struct json_object *hs_jobj(struct json_object *o, const char *k);
uint64_t hs_rnd(struct hs *hs);
bool hs_chance(struct hs *hs, unsigned in);
/* hs_rnd for the test's thread. */
uint64_t hs_rnd_locked(struct hs *hs);
void hs_reply(struct hs_resp *rs, int status, struct json_object *body);
void hs_error(struct hs_resp *rs, int status, const char *code, const char *msg);
/* Routes one request (the token checked here). */
void hs_route(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
/* Fills rq->seg from the path after HS_PREFIX (each segment malloc'd). */
void hs_split_path(struct hs_req *rq, const char *p, size_t len);
/* Unlocks hs->mu and wakes the server's loop when the stream moved. */
void hs_unlock_wake(struct hs *hs);
/* Frees what hs_new made (the loop and thread are already gone). */
void hs_free_state(struct hs *hs);

/* ---- HTTP (hs_http.c) ---- */
char *hs_url_decode(const char *s, size_t n, bool query);
struct json_object *hs_parse_query(const char *q);

/* ---- rooms (hs_rooms.c) ---- */
struct json_object *hs_room(struct hs *hs, const char *id);
const char *hs_membership(struct hs *hs, const char *room, const char *user);
bool hs_joined(struct hs *hs, const char *room, const char *user);
/* Appends an event to a room (content is taken); returns its id (malloc'd) or NULL. */
char *hs_add_event(struct hs *hs, const char *room, const char *sender, const char *type,
                   const char *state_key, struct json_object *content);
struct json_object *hs_member_content(const char *membership);
/* A room as createRoom makes it (preset NULL: from visibility, as Synapse does). */
char *hs_new_room(struct hs *hs, const char *creator, struct json_object *request);
/* Number of members whose membership is "join". */
int hs_joined_count(struct hs *hs, const char *room);
/* Do a and b share a room where both are joined? */
bool hs_share_room(struct hs *hs, const char *a, const char *b);
/* The routes: POST createRoom, rooms/{id}/join, join/{id}, rooms/{id}/leave,
 * PUT rooms/{id}/send/{type}/{txn}, rooms/{id}/state/{type}[/{key}], GET rooms/{id}/messages. */
void hs_on_create_room(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
void hs_on_join(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
void hs_on_leave(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
void hs_on_send(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
void hs_on_state(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
void hs_on_messages(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
/* GET rooms/{id}/members. */
void hs_on_members(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);

/* ---- sync (hs_sync.c) ---- */
/* Is type in a filter's "types" (absent: every type)? */
bool hs_type_ok(struct json_object *types, const char *type);
void hs_sync(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
/* The answer for a parked sync, or NULL while it has nothing to say and has not timed out. */
struct json_object *hs_sync_parked(struct hs *hs, const char *user, const char *device, long since,
                                   long since_td, struct json_object *filter, bool timed_out);

/* ---- keys and to-device (hs_keys.c) ---- */
/* POST keys/upload, keys/query, keys/claim; PUT sendToDevice/{type}/{txn}. */
void hs_on_keys_upload(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
void hs_on_keys_query(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
void hs_on_keys_claim(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
void hs_on_send_to_device(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
/* A device exists for user (made by a login or a test player). */
void hs_device_add(struct hs *hs, const char *user, const char *device);
/* Adds the to-device and device-key sections to a sync answer for (user, device), after
 * dropping what since_td acknowledged; sets *changes when there is news since the token. */
void hs_sync_keys(struct hs *hs, struct json_object *out, const char *user, const char *device,
                  long since, long since_td, long *next_td, bool *changes);

/* ---- push (hs_push.c) ---- */
/* Evaluates the default push rules of every member for a new event. */
void hs_push_event(struct hs *hs, const char *room, struct json_object *ev, long pos);
/* GET notifications, pushrules/. */
void hs_on_notifications(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);
void hs_on_push_rules(struct hs *hs, struct hs_req *rq, struct hs_resp *rs);

#endif
