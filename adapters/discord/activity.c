/*
 * activity.c - the Discord side of the Activity (adapters/common/activity.h):
 * who an OAuth2 code belongs to, the page's inputs and answers, the messages
 * mirrored to the pages, and how players launch it (a button, the Entry Point
 * command).
 *
 * Authorizing one page is three requests, each checked before the next:
 *   1. POST /oauth2/token (form: client id and secret, the code): a token;
 *   2. GET /users/@me with that token (Bearer): the user, as Discord says;
 *   3. GET /applications/<id>/activity-instances/<instance> with the bot's
 *      token: the instance's channel, and that the user is in it.
 * Nothing the page says about who it is or where it runs is trusted. The
 * whole takes at most ACT_EXCHANGE_MS; a step that fails ends it with one
 * log line and the refusal the page shows.
 */
#include <curl/curl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "adapters/common/activity.h"
#include "bot/log.h"
#include "bot/util/buf.h"
#include "internal.h"

#define ACT_EXCHANGE_MS 10000u /* a whole authorization, the three requests */
#define ACT_QUEUES      4u     /* REST queues the authorizations take turns on */
#define ACT_FORM_MAX    2048u  /* the token request's body */
#define CB_LAUNCH       12     /* LAUNCH_ACTIVITY, the interaction callback type */
#define CMD_ENTRY_POINT 4      /* PRIMARY_ENTRY_POINT, the command type */
#define ENTRY_APP       1      /* APP_HANDLER: the app answers, with LAUNCH_ACTIVITY */

/* One authorization under way. */
struct act_auth {
    struct dc *dc;
    char *instance, *token, *user, *name;
    activity_done_fn done;
    void *arg;
    uint64_t id, deadline;
    char queue[16];
};

static void auth_free(struct act_auth *a)
{
    free(a->instance);
    free(a->token);
    free(a->user);
    free(a->name);
    free(a);
}

static const char *refusal_name(enum activity_refusal r)
{
    switch (r) {
    case ACTIVITY_OK:
        return "ok";
    case ACTIVITY_BAD_CODE:
        return "a code or token Discord refused";
    case ACTIVITY_NOT_IN_INSTANCE:
        return "the user is not in the instance";
    case ACTIVITY_NO_CHANNEL:
        return "the instance is in no server channel";
    case ACTIVITY_UNAVAILABLE:
        break;
    }
    return "Discord failed or did not answer in time";
}

/* Ends a: its page hears r (and who, when r is ACTIVITY_OK), unless the web
 * side stopped meanwhile. */
static void auth_end(struct act_auth *a, enum activity_refusal r, const char *channel,
                     const char *guild)
{
    if (!a->dc->activity || !a->dc->activity->web) {
        auth_free(a);
        return;
    }
    if (r == ACTIVITY_OK) {
        struct activity_user u = {a->user, a->name, channel, guild, a->token};
        log_info(DC_MOD, NULL, "activity: %s opened the table of channel %s", a->user, channel);
        a->done(a->arg, a->id, r, &u);
    } else {
        log_warn(DC_MOD, NULL, "activity: refused a page (%s)", refusal_name(r));
        a->done(a->arg, a->id, r, NULL);
    }
    auth_free(a);
}

/* An instance id as Discord writes them ("i-1234-gc-5678-..."): nothing to
 * escape, so it goes into a path as it is. */
static bool instance_valid(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 128)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '-' || *s == '_' || *s == '.' || *s == ':'))
            return false;
    return true;
}

static void instance_done(struct rest_req *r, long status, const char *body, void *ud)
{
    (void)r;
    struct act_auth *a = ud;
    char channel[ACT_ID_MAX + 1], guild[ACT_ID_MAX + 1];
    enum activity_refusal why =
        dc_activity_read_instance(status, body, a->dc->app_id, a->user, channel, guild);
    auth_end(a, why, channel, guild);
}

static void user_done(struct rest_req *r, long status, const char *body, void *ud)
{
    (void)r;
    struct act_auth *a = ud;
    struct dc *dc = a->dc;
    char id[ACT_ID_MAX + 1], name[ACT_NAME_MAX + 1];
    enum activity_refusal why = dc_activity_read_user(status, body, id, name);
    if (why == ACTIVITY_OK && (!(a->user = strdup(id)) || !(a->name = strdup(name))))
        why = ACTIVITY_UNAVAILABLE;
    char path[256];
    snprintf(path, sizeof path, "/applications/%s/activity-instances/%s", dc->app_id, a->instance);
    if (why != ACTIVITY_OK || !dc->rest ||
        rest_enqueue_until(dc->rest, a->queue, "GET", path, NULL, 0, a->deadline, NULL,
                           instance_done, a) < 0)
        auth_end(a, why != ACTIVITY_OK ? why : ACTIVITY_UNAVAILABLE, NULL, NULL);
}

static void token_done(struct rest_req *r, long status, const char *body, void *ud)
{
    (void)r;
    struct act_auth *a = ud;
    struct dc *dc = a->dc;
    char token[ACT_TOKEN_MAX + 1], auth[ACT_TOKEN_MAX + 16];
    enum activity_refusal why = dc_activity_read_token(status, body, token);
    if (why == ACTIVITY_OK && !(a->token = strdup(token)))
        why = ACTIVITY_UNAVAILABLE;
    snprintf(auth, sizeof auth, "Bearer %s", token);
    if (why != ACTIVITY_OK || !dc->rest ||
        rest_enqueue_as(dc->rest, a->queue, "GET", "/users/@me", NULL, auth, false, a->deadline,
                        user_done, a) < 0)
        auth_end(a, why != ACTIVITY_OK ? why : ACTIVITY_UNAVAILABLE, NULL, NULL);
}

/* The token request's form body, values escaped. NULL on no memory. */
static char *token_form(const struct dc *dc, const char *code)
{
    char *id = curl_easy_escape(NULL, dc->client_id, 0);
    char *secret = curl_easy_escape(NULL, dc->client_secret, 0);
    char *c = curl_easy_escape(NULL, code, 0);
    struct buf b;
    buf_init(&b, ACT_FORM_MAX);
    char *out = NULL;
    if (id && secret && c &&
        buf_printf(&b, "client_id=%s&client_secret=%s&grant_type=authorization_code&code=%s", id,
                   secret, c) == 0)
        out = buf_take(&b);
    buf_free(&b);
    curl_free(id);
    curl_free(secret);
    curl_free(c);
    return out;
}

/* activity_link.authorize */
static int act_authorize(struct platform *p, const char *code, const char *instance,
                         activity_done_fn done, void *arg, uint64_t id)
{
    struct dc *dc = (struct dc *)p;
    struct act_auth *a = calloc(1, sizeof *a);
    if (!a)
        return -1;
    a->dc = dc;
    a->done = done;
    a->arg = arg;
    a->id = id;
    a->deadline = clock_mono_ms() + ACT_EXCHANGE_MS;
    snprintf(a->queue, sizeof a->queue, "oauth%" PRIu64, id % ACT_QUEUES);
    if (!(a->instance = strdup(instance))) {
        free(a);
        return -1;
    }
    /* refused without a request: a code that is no code, a path we would not send */
    if (!*code || strlen(code) > 256 || !instance_valid(instance) || dc->stopping || !dc->rest) {
        log_warn(DC_MOD, NULL, "activity: refused a page (%s)",
                 dc->rest && !dc->stopping ? "a code or instance id of no valid form" : "stopping");
        enum activity_refusal r =
            dc->rest && !dc->stopping ? ACTIVITY_BAD_CODE : ACTIVITY_UNAVAILABLE;
        done(arg, id, r, NULL);
        auth_free(a);
        return 0;
    }
    char *form = token_form(dc, code);
    int rc = form ? rest_enqueue_as(dc->rest, a->queue, "POST", "/oauth2/token", form, NULL, true,
                                    a->deadline, token_done, a)
                  : -1;
    free(form);
    if (rc < 0) {
        auth_free(a);
        return -1;
    }
    return 0;
}

static int act_deliver(struct platform *p, const struct inbound *in)
{
    return dc_deliver((struct dc *)p, in);
}

void discord_activity_link(struct platform *p, struct activity_link *l)
{
    struct dc *dc = (struct dc *)p;
    if (!dc->activity_on)
        return;
    dc->activity = l;
    l->client_id = dc->client_id;
    l->discord = p;
    l->authorize = act_authorize;
    l->deliver = act_deliver;
}

int dc_activity_send(struct dc *dc, const struct outbound *m)
{
    struct activity_link *l = dc->activity;
    if (!l || !l->web)
        return 0;
    const char *to = dc_answered_input(m);
    if (to && strncmp(to, ACTIVITY_REPLY_PREFIX, strlen(ACTIVITY_REPLY_PREFIX)) == 0) {
        const char *user = m->cause && m->cause->user ? m->cause->user : m->user;
        if (user && l->answer)
            l->answer(l->web, user, m);
        dc_sent(dc, m->outbox_id);
        return 1;
    }
    if (!to && l->mirror)
        l->mirror(l->web, m); /* an answer to Discord's own input stays there */
    return 0;
}

void dc_activity_news(struct dc *dc, const struct game_news *n)
{
    struct activity_link *l = dc->activity;
    if (l && l->web && l->news)
        l->news(l->web, n);
}

bool dc_activity_launch(struct dc *dc, struct dc_ixn *x, const struct dc_ix_in *in)
{
    if (!dc->activity_on)
        return false;
    const char *cid = in->custom_id;
    bool entry = in->type == 2 && in->data_type == CMD_ENTRY_POINT;
    bool button = in->type == 3 && cid && strcmp(cid, DC_LAUNCH_ID) == 0;
    if (!entry && !button)
        return false;
    dc_ix_callback(dc, x, CB_LAUNCH, NULL);
    return true;
}

struct json_object *dc_activity_button(const struct dc *dc, const char *lang)
{
    struct json_object *b = json_object_new_object();
    json_object_object_add(b, "type", json_object_new_int(2));
    json_object_object_add(b, "style", json_object_new_int(1)); /* primary */
    json_object_object_add(b, "label",
                           json_object_new_string(dc_word_for(dc, lang, "ui.play-in-discord")));
    json_object_object_add(b, "custom_id", json_object_new_string(DC_LAUNCH_ID));
    return b;
}

struct json_object *dc_activity_entry_point(const struct dc *dc)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "name", json_object_new_string("launch"));
    json_object_object_add(c, "type", json_object_new_int(CMD_ENTRY_POINT));
    json_object_object_add(c, "handler", json_object_new_int(ENTRY_APP));
    json_object_object_add(c, "description",
                           json_object_new_string(dc_word(dc, "ui.play-in-discord")));
    struct json_object *contexts = json_object_new_array();
    json_object_array_add(contexts, json_object_new_int(0)); /* GUILD */
    json_object_object_add(c, "contexts", contexts);
    struct json_object *itypes = json_object_new_array();
    json_object_array_add(itypes, json_object_new_int(0)); /* GUILD_INSTALL */
    json_object_object_add(c, "integration_types", itypes);
    return c;
}
