/*
 * harness.h - runs the real Matrix adapter against the test homeserver with
 * a recording platform host: what the adapter delivers is kept as JSON, and
 * its stored state lives in a JSON object that survives a "restart".
 */
#ifndef TESTS_MATRIX_HARNESS_H
#define TESTS_MATRIX_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include <json-c/json.h>
#include <uv.h>

#include "bot/config.h"
#include "bot/platform.h"
#include "hs.h"

struct th {
    struct platform_host host;
    uv_loop_t loop;
    struct json_object *state;     /* the store: key -> value */
    struct json_object *inbox;     /* [{"type","channel","user","text",...}] */
    struct json_object *dm;        /* user -> reachable */
    struct json_object *confirmed; /* outbox id -> how often the adapter confirmed it (sent()) */
    struct json_object *lazy;      /* deferred writes not on disk yet (th_defer_writes), or NULL */
    char *kill_key, *kill_value;   /* th_kill_at's write, or NULL */
    bool killed;                   /* that write came: the store takes nothing more */
    struct platform *p;
    struct hs *hs;
    /* Players whose clients read what the bot sends (it may be encrypted), or none. */
    struct hs_player *readers[4];
    size_t nreaders;
    struct config cfg;
};

void th_init(struct th *t, struct hs *hs);
/* Creates and starts the adapter; returns start()'s result (or -2 if construction failed). */
int th_start(struct th *t);
/* Stops and destroys the adapter, keeping the state (deferred writes included). */
void th_stop(struct th *t);
/* From now on the adapter's deferred writes (state_defer) wait, as the daemon's do until its
 * next commit, and th_crash() loses them. */
void th_defer_writes(struct th *t);
/* A kill -9: the deferred writes not on disk are lost, then the adapter is destroyed. */
void th_crash(struct th *t);
/* A kill -9 that lands just before the adapter sets key to value: from that write on the store
 * takes no write, the bot no confirmation and the homeserver no request (a request already on
 * its way may still land), and the loop stops (th_killed() then holds); th_crash() ends the
 * adapter and clears the homeserver's faults. */
void th_kill_at(struct th *t, const char *key, const char *value);
bool th_killed(struct th *t);
void th_free(struct th *t);

/* Runs the loop until pred(arg) holds or ms pass. Returns pred's last value. */
bool th_run_until(struct th *t, bool (*pred)(struct th *, void *), void *arg, int ms);
/* Runs the loop for ms. */
void th_run_for(struct th *t, int ms);
/* Waits until the inbox has n entries. */
bool th_wait_inbox(struct th *t, size_t n, int ms);
/* Adds a player whose client reads what the bot sends (at most 4). */
void th_add_reader(struct th *t, struct hs_player *p);
/* For teardowns: 0 when the bot sent nothing in clear into a room it knew was encrypted
 * (hs_bot_clear_sends), else -1 with those sends on stderr. */
int th_check_no_clear_sends(struct th *t);
/* The bot's events (of type, or any) as the readers see them: hs_bot_events_read. */
struct json_object *th_bot_events(struct th *t, const char *type);
/* Waits until the bot sent n events of type (NULL: any), as the readers read them. */
bool th_wait_bot_events(struct th *t, const char *type, size_t n, int ms);
/* Waits until the server holds n events of type (NULL: any) from the bot, read or not. */
bool th_wait_bot_sent(struct th *t, const char *type, size_t n, int ms);
/* Waits until the adapter is syncing (the first incremental /sync was made). */
bool th_wait_ready(struct th *t, int ms);

/* Sends one outbound message through the adapter. data_json may be NULL. */
int th_send(struct th *t, enum outbound_kind kind, const char *channel, const char *user,
            const char *key, bool replace, const char *text, const char *data_json);

/* Sends a notice to channel as a message the bot keeps in its outbox under outbox_id. */
int th_send_stored(struct th *t, int64_t outbox_id, const char *channel, const char *text);
/* th_send for a message the bot keeps in its outbox under outbox_id. */
int th_send_kept(struct th *t, int64_t outbox_id, enum outbound_kind kind, const char *channel,
                 const char *key, const char *text, const char *data_json);
/* How often the adapter confirmed the message outbox_id. */
int th_confirmed(struct th *t, int64_t outbox_id);
const char *th_in_str(struct th *t, size_t i, const char *field);

#endif
