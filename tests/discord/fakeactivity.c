/*
 * fakeactivity.c - the Activity's endpoints, as Discord documents them:
 *
 *   POST /oauth2/token (application/x-www-form-urlencoded: client_id,
 *     client_secret, grant_type=authorization_code, code): a code is good
 *     once; a forged, replayed or expired one is 400 invalid_grant, a wrong
 *     client 401 invalid_client;
 *   GET /users/@me with "Bearer <access token>": the user, 401 otherwise;
 *   GET /applications/<app>/activity-instances/<instance> with the bot's
 *     token: the instance (its location and users), 404 when unknown.
 *
 * With variation on (a seeded choice per request): a 500 or a 429 first,
 * which a client retries; a slow answer; optional fields absent or null and
 * fields of a newer API.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fakeactivity.h"

#define FA_MAX 64 /* codes, tokens */

struct grant {
    char key[48]; /* a code or an access token */
    char user[32], name[64];
    bool used; /* a code exchanged already */
};

struct fa {
    uint64_t rng;
    char client_id[32], secret[64];
    struct grant codes[FA_MAX], tokens[FA_MAX];
    unsigned ncodes, ntokens;
    struct json_object *instances; /* id -> instance object */
    bool vary;
    int hang;
    unsigned long tokens_ok, tokens_refused, me_ok, me_refused, inst_ok, inst_refused;
    bool secret_seen;
    unsigned long serial;
};

static unsigned rnd(struct fa *a, unsigned n)
{
    a->rng ^= a->rng << 13;
    a->rng ^= a->rng >> 7;
    a->rng ^= a->rng << 17;
    return (unsigned)(a->rng % n);
}

struct fa *fa_new(uint64_t seed)
{
    struct fa *a = calloc(1, sizeof *a);
    if (!a)
        return NULL;
    a->rng = seed * 6364136223846793005ull + 1442695040888963407ull;
    a->instances = json_object_new_object();
    return a;
}

void fa_free(struct fa *a)
{
    if (!a)
        return;
    json_object_put(a->instances);
    free(a);
}

static void answer(struct fa_answer *out, int status, struct json_object *body)
{
    out->status = status;
    out->body = strdup(json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN));
    json_object_put(body);
}

static struct json_object *oauth_error(const char *error, const char *description)
{
    struct json_object *e = json_object_new_object();
    json_object_object_add(e, "error", json_object_new_string(error));
    json_object_object_add(e, "error_description", json_object_new_string(description));
    return e;
}

static struct json_object *api_error(int code, const char *message)
{
    struct json_object *e = json_object_new_object();
    json_object_object_add(e, "message", json_object_new_string(message));
    json_object_object_add(e, "code", json_object_new_int(code));
    return e;
}

/* One form value (not decoded beyond %XX and '+'), into out. */
static bool form_value(const char *form, const char *name, char *out, size_t len)
{
    size_t n = strlen(name);
    for (const char *p = form; p && *p;) {
        const char *amp = strchr(p, '&');
        size_t plen = amp ? (size_t)(amp - p) : strlen(p);
        if (plen > n && strncmp(p, name, n) == 0 && p[n] == '=') {
            size_t o = 0;
            for (size_t i = n + 1; i < plen && o + 1 < len; i++) {
                unsigned v;
                if (p[i] == '%' && i + 2 < plen && sscanf(p + i + 1, "%2x", &v) == 1) {
                    out[o++] = (char)v;
                    i += 2;
                } else {
                    out[o++] = p[i] == '+' ? ' ' : p[i];
                }
            }
            out[o] = '\0';
            return true;
        }
        p = amp ? amp + 1 : NULL;
    }
    return false;
}

static void token(struct fa *a, const char *body, struct fa_answer *out)
{
    char id[64] = "", secret[128] = "", grant[64] = "", code[128] = "";
    form_value(body, "client_id", id, sizeof id);
    form_value(body, "client_secret", secret, sizeof secret);
    form_value(body, "grant_type", grant, sizeof grant);
    form_value(body, "code", code, sizeof code);
    if (strcmp(id, a->client_id) != 0 || strcmp(secret, a->secret) != 0) {
        a->tokens_refused++;
        answer(out, 401, oauth_error("invalid_client", "Unknown client or wrong secret"));
        return;
    }
    if (strcmp(grant, "authorization_code") != 0) {
        a->tokens_refused++;
        answer(out, 400, oauth_error("unsupported_grant_type", "Unsupported grant type"));
        return;
    }
    struct grant *g = NULL;
    for (unsigned i = 0; i < a->ncodes && i < FA_MAX && !g; i++)
        if (strcmp(a->codes[i].key, code) == 0)
            g = &a->codes[i];
    if (!g || g->used) {
        a->tokens_refused++;
        answer(out, 400, oauth_error("invalid_grant", "Invalid \"code\" in request."));
        return;
    }
    g->used = true;
    struct grant *t = &a->tokens[a->ntokens++ % FA_MAX];
    snprintf(t->key, sizeof t->key, "tok%lu%08x", ++a->serial, rnd(a, 0x7fffffff));
    snprintf(t->user, sizeof t->user, "%s", g->user);
    snprintf(t->name, sizeof t->name, "%s", g->name);
    a->tokens_ok++;
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "access_token", json_object_new_string(t->key));
    json_object_object_add(r, "token_type", json_object_new_string("Bearer"));
    json_object_object_add(r, "expires_in", json_object_new_int(604800));
    json_object_object_add(r, "refresh_token", json_object_new_string("refresh-not-used"));
    json_object_object_add(r, "scope", json_object_new_string("identify"));
    answer(out, 200, r);
}

static void me(struct fa *a, const char *auth, struct fa_answer *out)
{
    struct grant *t = NULL;
    for (unsigned i = 0; i < FA_MAX && !t; i++)
        if (a->tokens[i].key[0] && auth && strncmp(auth, "Bearer ", 7) == 0 &&
            strcmp(auth + 7, a->tokens[i].key) == 0)
            t = &a->tokens[i];
    if (!t) {
        a->me_refused++;
        answer(out, 401, api_error(0, "401: Unauthorized"));
        return;
    }
    a->me_ok++;
    struct json_object *u = json_object_new_object();
    json_object_object_add(u, "id", json_object_new_string(t->user));
    json_object_object_add(u, "username", json_object_new_string(t->name));
    json_object_object_add(u, "discriminator", json_object_new_string("0"));
    /* a user without a display name has global_name null: the username is the name */
    json_object_object_add(u, "global_name",
                           a->vary && rnd(a, 3) == 0 ? NULL : json_object_new_string(t->name));
    json_object_object_add(u, "avatar", NULL);
    if (!a->vary || rnd(a, 2))
        json_object_object_add(u, "public_flags", json_object_new_int(0));
    if (a->vary && rnd(a, 2))
        json_object_object_add(u, "fd_unknown_field", json_object_new_string("from a newer API"));
    answer(out, 200, u);
}

static void instance(struct fa *a, const char *id, bool bot, struct fa_answer *out)
{
    struct json_object *i = NULL;
    if (!bot) {
        a->inst_refused++;
        answer(out, 401, api_error(0, "401: Unauthorized"));
        return;
    }
    if (!json_object_object_get_ex(a->instances, id, &i)) {
        a->inst_refused++;
        answer(out, 404, api_error(10064, "Unknown Activity Instance"));
        return;
    }
    a->inst_ok++;
    struct json_object *copy = json_tokener_parse(json_object_to_json_string(i));
    if (a->vary && rnd(a, 2))
        json_object_object_add(copy, "fd_unknown_field", json_object_new_int(7));
    answer(out, 200, copy);
}

bool fa_route(struct fa *a, const char *method, const char *route, const char *auth, bool bot,
              const char *body, struct fa_answer *out)
{
    char app[64], id[160];
    bool is_token = strcmp(method, "POST") == 0 && strcmp(route, "/oauth2/token") == 0;
    bool is_me = strcmp(method, "GET") == 0 && strcmp(route, "/users/@me") == 0 && !bot;
    bool is_inst = strcmp(method, "GET") == 0 &&
                   sscanf(route, "/applications/%63[0-9]/activity-instances/%159s", app, id) == 2;
    if (!is_token && !is_me && !is_inst)
        return false;
    memset(out, 0, sizeof *out);
    if (!is_token && body && a->secret[0] && strstr(body, a->secret))
        a->secret_seen = true;
    if (auth && a->secret[0] && strstr(auth, a->secret))
        a->secret_seen = true;
    if (is_token && a->hang > 0) {
        a->hang--;
        out->hang = true;
        return true;
    }
    if (a->vary) {
        unsigned r = rnd(a, 8);
        if (getenv("FA_DEBUG"))
            fprintf(stderr, "fakeactivity: %s %s varied %u\n", method, route, r);
        if (r == 0) {
            answer(out, 500, api_error(0, "500: Internal Server Error"));
            return true;
        }
        if (r == 1) {
            struct json_object *e = api_error(0, "You are being rate limited.");
            json_object_object_add(e, "retry_after", json_object_new_double(0.2));
            json_object_object_add(e, "global", json_object_new_boolean(0));
            answer(out, 429, e);
            return true;
        }
        if (r <= 3)
            out->delay_ms = 100 + rnd(a, 300);
    }
    if (is_token)
        token(a, body ? body : "", out);
    else if (is_me)
        me(a, auth, out);
    else
        instance(a, id, bot, out);
    if (getenv("FA_DEBUG"))
        fprintf(stderr, "fakeactivity: %s %s -> %d (%u ms late)\n", method, route, out->status,
                out->delay_ms);
    return true;
}

void fa_client(struct fa *a, const char *client_id, const char *secret)
{
    snprintf(a->client_id, sizeof a->client_id, "%s", client_id);
    snprintf(a->secret, sizeof a->secret, "%s", secret);
}

void fa_instance(struct fa *a, const char *instance, const char *channel, const char *guild,
                 struct json_object *users)
{
    struct json_object *i = json_object_new_object(), *loc = json_object_new_object();
    char launch[32];
    snprintf(launch, sizeof launch, "%lu", 1300000000000000000ul + ++a->serial);
    json_object_object_add(i, "application_id", json_object_new_string(a->client_id));
    json_object_object_add(i, "instance_id", json_object_new_string(instance));
    json_object_object_add(i, "launch_id", json_object_new_string(launch));
    json_object_object_add(loc, "id",
                           json_object_new_string(guild ? "gc-location" : "pc-location"));
    json_object_object_add(loc, "kind", json_object_new_string(guild ? "gc" : "pc"));
    json_object_object_add(loc, "channel_id", json_object_new_string(channel));
    if (guild)
        json_object_object_add(loc, "guild_id", json_object_new_string(guild));
    json_object_object_add(i, "location", loc);
    json_object_object_add(i, "users", users ? json_object_get(users) : json_object_new_array());
    json_object_object_add(a->instances, instance, i);
}

void fa_code(struct fa *a, const char *user, const char *name, char *out, size_t len)
{
    struct grant *g = &a->codes[a->ncodes++ % FA_MAX];
    memset(g, 0, sizeof *g);
    snprintf(g->key, sizeof g->key, "code%lu%08x", ++a->serial, rnd(a, 0x7fffffff));
    snprintf(g->user, sizeof g->user, "%s", user);
    snprintf(g->name, sizeof g->name, "%s", name);
    snprintf(out, len, "%s", g->key);
}

void fa_vary(struct fa *a, bool on)
{
    a->vary = on;
}

void fa_hang(struct fa *a, int n)
{
    a->hang = n;
}

struct json_object *fa_record(struct fa *a)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "tokens", json_object_new_int64((int64_t)a->tokens_ok));
    json_object_object_add(o, "tokens_refused", json_object_new_int64((int64_t)a->tokens_refused));
    json_object_object_add(o, "me", json_object_new_int64((int64_t)a->me_ok));
    json_object_object_add(o, "me_refused", json_object_new_int64((int64_t)a->me_refused));
    json_object_object_add(o, "instances", json_object_new_int64((int64_t)a->inst_ok));
    json_object_object_add(o, "instances_refused", json_object_new_int64((int64_t)a->inst_refused));
    json_object_object_add(o, "secret_seen", json_object_new_boolean(a->secret_seen));
    return o;
}
