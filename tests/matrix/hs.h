/*
 * hs.h - a small Matrix homeserver for tests: the client-server endpoints the
 * adapter uses, as the specification defines them, over HTTP/1.1 on
 * loopback, in its own thread with its own libuv loop.
 *
 * One user is the bot (HS_BOT, token HS_BOT_TOKEN, password HS_BOT_PASSWORD);
 * every other user is played by the test through the control functions
 * below, which are safe to call from the test thread.
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

struct hs *hs_new(void);
/* Starts listening on 127.0.0.1 on a free port; returns the port or -1. */
int hs_start(struct hs *hs);
/* "http://127.0.0.1:PORT" */
const char *hs_url(struct hs *hs);
void hs_free(struct hs *hs);

/* Rooms and users. Returned strings are malloc'd. */
char *hs_create_room(struct hs *hs, const char *creator, bool encrypted);
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

/* What the bot did. */
/* A copy of the bot's events (each with "room_id"), oldest first, optionally of one type. */
struct json_object *hs_bot_events(struct hs *hs, const char *type);
/* The bot's events added since *cursor (a position in the server's log, start at 0). */
struct json_object *hs_bot_events_after(struct hs *hs, size_t *cursor);
/* Writes the server's whole event log (JSON) to path, for diagnostics. Returns 0 or -1. */
int hs_dump(struct hs *hs, const char *path);
/* The direct room the bot recorded in m.direct for user, or NULL (malloc'd). */
char *hs_direct_room(struct hs *hs, const char *user);
/* Requests seen whose "METHOD path" contains substr. */
int hs_count(struct hs *hs, const char *substr);
/* The last request body whose "METHOD path" contains substr, or NULL (malloc'd). */
char *hs_last_body(struct hs *hs, const char *substr);

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

#endif
