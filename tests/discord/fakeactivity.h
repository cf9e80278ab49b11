/*
 * fakeactivity.h - the Activity's endpoints of the Discord test server: the
 * OAuth2 token exchange, /users/@me with a Bearer token, and the activity
 * instances the bot may read. The server (fakediscord.c) routes requests
 * here; tests reach it through fd_activity_*() in fakediscord.h.
 */
#ifndef FAKEACTIVITY_H
#define FAKEACTIVITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fa;
struct json_object;

struct fa *fa_new(uint64_t seed);
void fa_free(struct fa *a);

/* What a request of the Activity gets. */
struct fa_answer {
    int status;
    char *body;        /* malloc'd JSON */
    unsigned delay_ms; /* answered this late (a slow Discord) */
    bool hang;         /* never answered (the connection closes first) */
};

/*
 * Answers method route when it is one of the Activity's (true), with auth the
 * request's Authorization header and bot whether it is the bot's token; body
 * is the request's (a form for the token endpoint).
 */
bool fa_route(struct fa *a, const char *method, const char *route, const char *auth, bool bot,
              const char *body, struct fa_answer *out);

void fa_client(struct fa *a, const char *client_id, const char *secret);
/* An instance in channel of guild (NULL: none, as in a DM) with these users
 * (a JSON array of ids), made or replaced. */
void fa_instance(struct fa *a, const char *instance, const char *channel, const char *guild,
                 struct json_object *users);
/* A code for user (named name), good once, as the SDK's authorize gives it. */
void fa_code(struct fa *a, const char *user, const char *name, char *out, size_t len);
/* Seeded variation: errors Discord retries through (5xx, 429), slow answers,
 * optional fields absent or null, fields of a newer API. */
void fa_vary(struct fa *a, bool on);
/* The next n token requests are never answered. */
void fa_hang(struct fa *a, int n);
/* {"tokens","tokens_refused","me","me_refused","instances","instances_refused",
 *  "secret_seen": the client secret came in a request other than the token's} */
struct json_object *fa_record(struct fa *a);

#endif
