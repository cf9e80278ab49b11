/*
 * interactions.c - slash commands, buttons and select menus, and their answers.
 *
 * Every interaction becomes canonical command text delivered as
 * INBOUND_COMMAND with reply_to "ix:<id>" (a press is read in components.c).
 * Replies the bot makes during deliver() become the initial response (type
 * 4, ephemeral); with none the interaction is deferred (type 5 for commands,
 * 6 for components) at once, and later replies edit the deferred response or
 * follow up. Discord takes a first answer only within 3 s of the interaction:
 * it is retried until then, no longer, and if it never got through, what was
 * meant for the interaction goes to the user's DMs as a plain message.
 * Autocomplete answers with what the bot completes from the game itself
 * (platform_host.complete): the adapter keeps nothing of what it sent.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/log.h"
#include "internal.h"

enum {
    IX_PING = 1,
    IX_COMMAND = 2,
    IX_COMPONENT = 3,
    IX_AUTOCOMPLETE = 4,
};

enum {
    CB_MESSAGE = 4,
    CB_DEFERRED_MESSAGE = 5,
    CB_DEFERRED_UPDATE = 6,
    CB_AUTOCOMPLETE = 8,
};

#define IX_FALLBACK_MS 3000u               /* a deferred command says "done" after this */
#define IX_WINDOW_MS   3000u               /* Discord takes a first answer this long */
#define IX_LIFETIME_MS (15u * 60u * 1000u) /* and the token this long */

void dc_ix_free(void *p)
{
    struct dc_ixn *x = p;
    free(x->id);
    free(x->token);
    free(x->app_id);
    free(x->user);
    json_object_put(x->captured);
    free(x);
}

static void ix_request(struct dc *dc, struct dc_ixn *x, const char *method, const char *path,
                       struct json_object *body, unsigned flags, enum dc_ix_step step)
{
    struct dc_op *op = dc_op_new(dc, DC_OP_IX);
    if (!op)
        return;
    char q[96];
    snprintf(q, sizeof(q), "ix:%s", x->id);
    op->ix = strdup(q);
    op->step = step;
    if (body)
        op->body = strdup(json_object_to_json_string_ext(body, JSON_C_TO_STRING_PLAIN));
    if (!op->ix || (body && !op->body)) {
        log_error(DC_MOD, NULL, "no memory to answer an interaction");
        dc_op_free(op);
        return;
    }
    uint64_t until = x->created + (step == DC_IX_CALLBACK ? IX_WINDOW_MS : IX_LIFETIME_MS);
    dc_rest_until(dc, op, q, method, path, flags, until);
}

static void ix_callback(struct dc *dc, struct dc_ixn *x, int type, struct json_object *data)
{
    char path[256];
    snprintf(path, sizeof(path), "/interactions/%s/%s/callback", x->id, x->token);
    struct json_object *b = json_object_new_object();
    json_object_object_add(b, "type", json_object_new_int(type));
    if (data)
        json_object_object_add(b, "data", data);
    ix_request(dc, x, "POST", path, b, REST_NO_GLOBAL, DC_IX_CALLBACK);
    json_object_put(b);
    x->answered = true;
}

static void ix_followup(struct dc *dc, struct dc_ixn *x, struct json_object *body)
{
    char path[256];
    if (x->dead) {
        dc_ix_plain(dc, x, body);
    } else if (x->original) {
        /* an edit sets no flags (receiving-and-responding: Edit Original
         * Interaction Response, as Edit Webhook Message): the deferral made
         * it ephemeral */
        struct json_object *edit = NULL;
        if (json_object_deep_copy(body, &edit, NULL) != 0) {
            log_error(DC_MOD, NULL, "no memory to answer an interaction");
            return;
        }
        json_object_object_del(edit, "flags");
        snprintf(path, sizeof(path), "/webhooks/%s/%s/messages/@original", x->app_id, x->token);
        x->original = false;
        ix_request(dc, x, "PATCH", path, edit, 0, DC_IX_FOLLOWUP);
        json_object_put(edit);
    } else {
        snprintf(path, sizeof(path), "/webhooks/%s/%s", x->app_id, x->token);
        ix_request(dc, x, "POST", path, body, 0, DC_IX_FOLLOWUP);
    }
}

void dc_ix_plain(struct dc *dc, struct dc_ixn *x, struct json_object *body)
{
    struct json_object *copy = NULL;
    if (!body || !x->user || json_object_deep_copy(body, &copy, NULL) != 0)
        return;
    json_object_object_del(copy, "flags"); /* in a DM, private as it is */
    struct dc_op *op = dc_op_new(dc, DC_OP_POST);
    if (op) {
        op->user = strdup(x->user);
        op->body = strdup(json_object_to_json_string_ext(copy, JSON_C_TO_STRING_PLAIN));
    }
    json_object_put(copy);
    if (!op || !op->user || !op->body) {
        log_error(DC_MOD, NULL, "no memory to send an interaction's answer as a message");
        dc_op_free(op);
        return;
    }
    dc_queue_on_dm(dc, x->user, op);
}

int dc_ix_prepare(struct dc *dc, struct dc_op *op)
{
    struct dc_ixn *x = map_get(&dc->ixns, op->ix);
    if (op->step != DC_IX_FOLLOWUP || !x || !x->dead)
        return 0;
    /* queued before the first answer failed: it goes as a plain message */
    struct json_object *body = json_tokener_parse(op->body ? op->body : "");
    dc_ix_plain(dc, x, body);
    json_object_put(body);
    return 1;
}

/* What a failed first answer meant to say, as a message body, or NULL when
 * it said nothing (a deferral, choices that are too late to offer). */
static struct json_object *callback_content(const char *request)
{
    struct json_object *b = json_tokener_parse(request ? request : "");
    struct json_object *data =
        jget_int64_or(b, "type", 0) == CB_MESSAGE ? jget_obj(b, "data") : NULL;
    json_object_get(data);
    json_object_put(b);
    return data;
}

void dc_ix_answered(struct dc *dc, struct dc_op *op, long status, const char *body)
{
    struct dc_ixn *x = map_get(&dc->ixns, op->ix);
    if ((status >= 200 && status < 300) || status == REST_STOPPED || status == 0)
        return;
    if (!x) {
        dc_log_http_error("answering", "an interaction", status, body);
        return;
    }
    if (op->step == DC_IX_CALLBACK && dc_api_code(body) == ERR_ANSWERED) {
        /* answered already, by this daemon before a restart: the input was
         * handed in again (its change, if any, was not on disk) */
        log_info(DC_MOD, NULL, "interaction %s was answered already; this answer is dropped",
                 x->id);
        return;
    }
    struct json_object *meant =
        op->step == DC_IX_CALLBACK ? callback_content(op->body) : json_tokener_parse(op->body);
    if (op->step == DC_IX_CALLBACK || dc_api_code(body) == ERR_TOKEN_GONE) {
        /* no later answer can go through it either */
        x->dead = true;
        x->original = false;
    }
    /* one line for what could not be given: where it goes instead, or that it is dropped */
    if (status == REST_EXPIRED)
        log_warn(DC_MOD, NULL, "interaction %s: no answer from Discord in time; %s", x->id,
                 meant ? "its answer goes to the user's DMs" : "dropped");
    else
        log_warn(DC_MOD, NULL, "interaction %s: answer refused (HTTP %ld, code %d); %s", x->id,
                 status, dc_api_code(body), meant ? "it goes to the user's DMs" : "dropped");
    if (meant)
        dc_ix_plain(dc, x, meant);
    json_object_put(meant);
}

int dc_ix_reply(struct dc *dc, const char *ix, const struct outbound *m)
{
    struct dc_ixn *x = map_get(&dc->ixns, ix);
    if (!x)
        return 0;
    struct json_object *body = dc_render(dc, m);
    json_object_object_add(body, "flags", json_object_new_int(EPHEMERAL_FLAG));
    if (dc->capture == x && !x->answered) {
        if (!x->captured)
            x->captured = json_object_new_array();
        json_object_array_add(x->captured, body);
        return 1;
    }
    ix_followup(dc, x, body);
    json_object_put(body);
    return 1;
}

/* The first answer, right after deliver(). */
static void ix_answer(struct dc *dc, struct dc_ixn *x)
{
    size_t n = x->captured ? json_object_array_length(x->captured) : 0;
    if (n == 0) {
        if (x->component) {
            ix_callback(dc, x, CB_DEFERRED_UPDATE, NULL);
        } else {
            struct json_object *d = json_object_new_object();
            json_object_object_add(d, "flags", json_object_new_int(EPHEMERAL_FLAG));
            ix_callback(dc, x, CB_DEFERRED_MESSAGE, d);
            x->deferred = true;
            x->original = true;
        }
        return;
    }
    ix_callback(dc, x, CB_MESSAGE, json_object_get(json_object_array_get_idx(x->captured, 0)));
    for (size_t i = 1; i < n; i++)
        ix_followup(dc, x, json_object_array_get_idx(x->captured, i));
    json_object_put(x->captured);
    x->captured = NULL;
}

/* An ephemeral answer of one text, now (a stale press, an unknown command). */
void dc_ix_callback(struct dc *dc, struct dc_ixn *x, int type, struct json_object *data)
{
    ix_callback(dc, x, type, data);
}

void dc_ix_say(struct dc *dc, struct dc_ixn *x, const char *text)
{
    ix_callback(dc, x, CB_MESSAGE, dc_render_text(text, EPHEMERAL_FLAG));
}

void dc_ix_ack(struct dc *dc, struct dc_ixn *x)
{
    ix_callback(dc, x, CB_DEFERRED_UPDATE, NULL);
}

struct sweep_ctx {
    struct dc *dc;
    uint64_t now;
    char *expired[64];
    unsigned nexpired;
};

static void sweep_one(const char *key, void *val, void *arg)
{
    struct sweep_ctx *c = arg;
    struct dc_ixn *x = val;
    if (x->original && c->now >= x->created + IX_FALLBACK_MS) {
        /* the bot said nothing to this command: close the "thinking" state */
        struct json_object *b = dc_render_text("✅", EPHEMERAL_FLAG);
        ix_followup(c->dc, x, b);
        json_object_put(b);
    }
    if (c->now >= x->created + IX_LIFETIME_MS && c->nexpired < 64)
        c->expired[c->nexpired++] = strdup(key);
}

void dc_ix_sweep(struct dc *dc)
{
    struct sweep_ctx c = {.dc = dc, .now = clock_mono_ms()};
    map_each(&dc->ixns, sweep_one, &c);
    for (unsigned i = 0; i < c.nexpired; i++) {
        if (!c.expired[i])
            continue;
        struct dc_ixn *x = map_del(&dc->ixns, c.expired[i]);
        if (x)
            dc_ix_free(x);
        free(c.expired[i]);
    }
}

/* ---- autocomplete ---- */

/* Offers a choice: its name cut to fit, its value whole or not at all (a
 * value cut short would be another command), at most DC_CHOICES_MAX. */
static void choice(struct json_object *choices, const char *name, const char *value)
{
    if (jarr_len(choices) >= DC_CHOICES_MAX || !*name || dc_chars(value) > DC_CHOICE_TEXT_MAX)
        return;
    for (size_t i = 0; i < jarr_len(choices); i++) {
        const char *v = jget_str(jarr_at(choices, i), "value");
        if (v && strcmp(v, value) == 0)
            return;
    }
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "name", dc_fit_json(name, DC_CHOICE_TEXT_MAX));
    json_object_object_add(c, "value", json_object_new_string(value));
    json_object_array_add(choices, c);
}

/* Takes one of the bot's completions (platform_host.complete). */
static void offered(void *arg, const char *name, const char *value)
{
    choice(arg, name, value);
}

static void autocomplete(struct dc *dc, struct dc_ixn *x, struct json_object *data,
                         const char *user, const char *channel)
{
    struct json_object *args;
    const char *subname = dc_slash_leaf(data, &args);
    const char *focus = NULL, *typed = "";
    for (size_t i = 0; i < jarr_len(args); i++) {
        struct json_object *o = jarr_at(args, i);
        if (jget_true(o, "focused")) {
            focus = jget_str(o, "name");
            typed = jget_str(o, "value") ? jget_str(o, "value") : "";
        }
    }
    /* the bot completes from the game itself: the adapter keeps nothing of it */
    struct json_object *choices = json_object_new_array();
    const struct platform_host *host = dc->base.host;
    if (focus && subname && host->complete)
        host->complete(host->ctx, &dc->base, channel, user, subname, focus, typed, offered,
                       choices);
    struct json_object *d = json_object_new_object();
    dc_fix_utf8(choices); /* names as the bot was given them */
    json_object_object_add(d, "choices", choices);
    ix_callback(dc, x, CB_AUTOCOMPLETE, d);
}

/* ---- INTERACTION_CREATE ---- */

/* The record of interaction d, kept under key ("ix:<id>"); NULL when d is
 * none to answer or memory ran out. */
static struct dc_ixn *ix_record(struct dc *dc, struct json_object *d, const char *uid,
                                const char *key)
{
    const char *id = jget_str(d, "id"), *token = jget_str(d, "token");
    const char *app = jget_str(d, "application_id");
    struct dc_ixn *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    x->id = strdup(id);
    x->token = strdup(token);
    x->app_id = strdup(app ? app : (dc->app_id ? dc->app_id : "0"));
    x->user = strdup(uid);
    x->created = clock_mono_ms();
    x->component = jget_int64_or(d, "type", 0) == IX_COMPONENT;
    void *old = NULL;
    if (!x->id || !x->token || !x->app_id || !x->user || map_put(&dc->ixns, key, x, &old) < 0) {
        dc_ix_free(x);
        return NULL;
    }
    if (old)
        dc_ix_free(old);
    return x;
}

void dc_interaction(struct dc *dc, struct json_object *d, int64_t seq)
{
    (void)seq;
    int64_t type = jget_int64_or(d, "type", 0);
    const char *id = jget_str(d, "id"), *token = jget_str(d, "token");
    const char *guild = jget_str(d, "guild_id"), *channel = jget_str(d, "channel_id");
    struct json_object *member = jget_obj(d, "member");
    struct json_object *user = member ? jget_obj(member, "user") : jget_obj(d, "user");
    const char *uid = jget_str(user, "id");
    struct json_object *data = jget_obj(d, "data");
    if (!id || !token || !uid || type == IX_PING)
        return;
    char key[96];
    snprintf(key, sizeof(key), "ix:%s", id);
    struct dc_ixn *x = ix_record(dc, d, uid, key);
    if (!x)
        return;
    const char *tchannel = guild ? channel : NULL;
    if (dc_activity_launch(dc, x, type, data))
        return;
    if (type == IX_AUTOCOMPLETE) {
        autocomplete(dc, x, data, uid, tchannel);
        return;
    }
    char *text = NULL;
    if (type == IX_COMMAND) {
        text = dc_slash_text(data);
    } else if (type == IX_COMPONENT) {
        /* a press answered here (a stale one, a menu of the builder) gives no command */
        if (dc_press(dc, x, d, &text) < 0)
            return;
    }
    if (!text) /* nothing we know: the bot's help answers it */
        text = strdup("help");
    if (!text)
        return;
    const char *name = jget_str(member, "nick");
    if (!name)
        name = jget_str(user, "global_name");
    if (!name)
        name = jget_str(user, "username");
    bool moderator = guild ? dc_is_moderator(dc, guild, uid, member) : false;
    /* The first answer goes in the interaction's callback, so the bot's turn
     * ends here and its answers are captured. */
    dc->capture = x;
    dc_send_command(dc, text, tchannel, uid, name, moderator, key, jget_str(d, "locale"), guild,
                    strtoull(id, NULL, 10));
    if (dc->base.host->flush)
        dc->base.host->flush(dc->base.host->ctx);
    dc->capture = NULL;
    free(text);
    /* the interaction may be gone: replaced by one of the same id while delivered */
    if (!dc->stopping && map_get(&dc->ixns, key) == x)
        ix_answer(dc, x);
}
