/*
 * fakediscord.h - a Discord test server on loopback: the gateway (v10 JSON
 * over websocket) and the REST API, on libwebsockets' server side in its own
 * thread, with a control API for tests: inject dispatches, read what the bot
 * posted, force 429s, withhold heartbeat ACKs, send op 7 / op 9, close with
 * any code, drop the connection, refuse DMs (50007), send bad payloads.
 */
#ifndef FAKEDISCORD_H
#define FAKEDISCORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct json_object;
struct fd_server;

#define FD_BOT_ID   "900000000000000001"
#define FD_APP_ID   "900000000000000002"
#define FD_GUILD_ID "700000000000000001"

/* Starts on 127.0.0.1 at a free port. hb_ms: the heartbeat interval in HELLO.
 * The variation's seed is FD_SEED, else one of its own; it is printed. */
struct fd_server *fd_start(const char *token, unsigned hb_ms);
/* The same with the variation's seed given (0: as fd_start chooses). */
struct fd_server *fd_start_seeded(const char *token, unsigned hb_ms, unsigned long seed);
/* The variation's seed, for a test to print with its own when it fails. */
unsigned long fd_seed(const struct fd_server *s);
void fd_stop(struct fd_server *s);
int fd_port(const struct fd_server *s);

/* Gateway. fd_dispatch logs the event in the session (sent at once when
 * connected, replayed on RESUME) and returns its sequence number. */
int64_t fd_dispatch(struct fd_server *s, const char *type, const char *d_json);
void fd_withhold_acks(struct fd_server *s, bool on);
/* Op 1 to the bot on a live session: a heartbeat asked for at once (the fake
 * also asks so now and then after a dispatch, from the seed). The record's
 * gateway counts the asks ("heartbeats_asked") and those a heartbeat
 * followed ("asks_answered"). */
void fd_ask_heartbeat(struct fd_server *s);
void fd_send_raw(struct fd_server *s, const char *text);
void fd_send_oversized(struct fd_server *s, size_t bytes);
void fd_close(struct fd_server *s, int code);
void fd_drop(struct fd_server *s);
void fd_reconnect(struct fd_server *s);                       /* op 7 */
void fd_invalid_session(struct fd_server *s, bool resumable); /* op 9 */

/* REST. */
void fd_force_429(struct fd_server *s, const char *path_prefix, int count, bool global,
                  double retry_after);
void fd_dm_closed(struct fd_server *s, const char *user, bool closed);
/* The next count requests whose path starts with path_prefix get status (a
 * 5xx: retried; a 4xx: final). */
void fd_force_status(struct fd_server *s, const char *path_prefix, int count, int status);
/* Forgets what fd_force_429 and fd_force_status asked that is still to come. */
void fd_clear_forces(struct fd_server *s);
/* Messages per channel per second before the fake bucket says 429 (default 5). */
void fd_set_bucket_limit(struct fd_server *s, int limit);

/* The intents: the privileged ones the app may use, as its Developer Portal
 * toggles say (none by default, as for a new application): an IDENTIFY asking
 * for another is closed with 4014, and without MESSAGE_CONTENT a guild
 * message comes with empty content, embeds, attachments and components unless
 * it mentions the bot (a reply that pings it does); DMs keep theirs. */
#define FD_INTENT_MESSAGE_CONTENT (1 << 15)
void fd_set_privileged(struct fd_server *s, int64_t intents);
/* A first answer to an interaction later than ms after its dispatch is
 * refused with 10062, and so are its follow-ups, as Discord refuses them
 * after 3 s; 0 (the default, for tests on a loaded machine): no limit. A
 * second first answer is refused (40060), and a follow-up before the first
 * answer (10015), always. */
void fd_set_interaction_window(struct fd_server *s, unsigned ms);
/* An interaction's token lasts ms after its dispatch (LIM_TOKEN_MS, Discord's
 * 15 minutes, by default); a follow-up or an edit through it later is
 * refused with 401 (50027). */
void fd_set_token_life(struct fd_server *s, unsigned ms);

/* The points of a request's way, for kill tests: the next request of a kind
 * (to channel, when not NULL) is held unanswered until its connection
 * closes, applied first or not (sent, not acknowledged), or answered 429
 * with retry_after (queued). */
enum fd_kind {
    FD_KIND_POST,  /* a new message */
    FD_KIND_EDIT,  /* an edit of one */
    FD_KIND_CLOSE, /* an edit that only takes its controls away */
};
void fd_hold_next(struct fd_server *s, enum fd_kind kind, const char *channel, bool applied);
void fd_delay_next(struct fd_server *s, enum fd_kind kind, const char *channel, double retry_after);
/* Whether every trap set was met; fd_disarm() clears those that were not. */
bool fd_trap_sprung(struct fd_server *s);
void fd_disarm(struct fd_server *s);
/* How many requests of kind got a 2xx answer the client could read. */
unsigned long fd_answered(struct fd_server *s, enum fd_kind kind);

/* The Activity (fakeactivity.h): the OAuth2 client (FD_APP_ID with no secret
 * until set), instances in a channel of guild (NULL: none) with their users
 * (a JSON array of ids), and codes as the SDK's authorize gives them, each
 * good once. vary: seeded 5xx, 429 and slow answers, fields absent, null or
 * unknown; hang: the next n token requests are never answered. The record:
 * fakeactivity.h's fa_record(); the caller puts it. */
void fd_activity_client(struct fd_server *s, const char *client_id, const char *secret);
void fd_activity_instance(struct fd_server *s, const char *instance, const char *channel,
                          const char *guild, const char *users_json);
void fd_activity_code(struct fd_server *s, const char *user, const char *name, char *out,
                      size_t len);
void fd_activity_vary(struct fd_server *s, bool on);
/* The app's Activities toggle (off, as for a new app): only with it on is a
 * LAUNCH_ACTIVITY answer (callback type 12, no data) taken. */
void fd_set_activities(struct fd_server *s, bool on);
void fd_activity_hang(struct fd_server *s, int n);
struct json_object *fd_activity_record(struct fd_server *s);

/*
 * A copy of the server's record, as JSON:
 * {"messages":[{"id","channel","body","edits","reactions":[...],"t"}],
 *  "callbacks":[{"id","user","type","data","t"}], "webhooks":[{"method","path","body","t"}],
 *  "commands":[{"path","body"}], "refused":[{"method","path","body","errors"}], "requests":n,
 * "r429":n, "r429_global":n, "invalid":n, "nonce_repeats":n, "ix_refused":n, "stripped":n,
 * "held":n, "forced":n, "gateway":{"connects","identifies","resumes","heartbeats",
 *             "heartbeats_asked","asks_answered","client_close",
 *             "intents","refused_intents","ready","connected","seq","user_agent",
 *             "compressed" (its messages go as a zlib stream: the upgrade asked
 *             compress=zlib-stream; cut over binary messages as the seed chooses)}}
 * The caller puts it.
 */
struct json_object *fd_snapshot(struct fd_server *s);
/* The snapshot's "gateway" object alone, cheap enough to poll. The caller
 * puts it. */
struct json_object *fd_gateway(struct fd_server *s);
/* A count that grows with whatever may change the record (a request, a
 * gateway frame, a call that sets something): a waiter skips the snapshot
 * while it stands still. */
unsigned long fd_changes(struct fd_server *s);

/*
 * Where a user finds slash command `word` among those the bot registered, as
 * Discord's command picker shows them: in the guild's commands, then in the
 * global ones whose contexts allow the place (guild NULL: the bot's DM, where
 * guild commands never show). Fills top (the command's name) and group (its
 * subcommand group, "" when none; word is a subcommand unless it is top) and
 * returns true; false when no command available there is word, or when one
 * of the option names in opts (a JSON array of {"name"}, or NULL) is not an
 * option of it.
 */
bool fd_slash_route(struct fd_server *s, const char *guild, const char *word, const char *opts,
                    char *top, size_t toplen, char *group, size_t grouplen);

/* How many interaction callbacks the server got, without copying the record. */
size_t fd_callback_count(struct fd_server *s);

/* The clock of the "t" fields in the snapshot (monotonic seconds). */
double fd_now(void);

#endif
