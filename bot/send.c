/*
 * send.c - every message the bot sends: a game's messages, answers to a
 * user, notices to a table. Each goes to the game's (or the input's)
 * platform with the input that caused it, held until the turn's commit
 * (turn.c).
 */
#include <json-c/json.h>
#include <string.h>

#include "core/catalog.h"
#include "core/modules.h"
#include "core/text.h"
#include "dispatch.h"
#include "log.h"
#include "seats.h"

/* Holds m for p until the turn ends. A computer's own private messages go
 * nowhere (K4 in computers.h): no platform user reads them. */
static void hold(struct platform *p, const struct outbound *m)
{
    if (m->user && seats_is_computer_id(m->user))
        return;
    if (turn_hold_message(p->host->ctx, p, m) < 0)
        log_error("dispatch", NULL, "out of memory: a message to %s is lost", p->ops->name);
}

void dispatch_emit(void *arg, const struct outbound *m)
{
    struct emit_ctx *ctx = arg;
    struct outbound o = *m;
    o.cause = ctx->cause;
    hold(ctx->g->platform, &o);
}

void dispatch_emit_rules(void *arg, const struct rules_msg *m)
{
    struct emit_ctx *ctx = arg;
    const struct game *g = ctx->g;
    char key[MSG_KEY_MAX];
    struct outbound o = {.kind = m->kind, .replace = m->replace, .text = m->text, .data = m->data};
    if (m->audience == MSG_TABLE)
        o.channel = g->table;
    else if (m->audience >= 0 && (unsigned)m->audience < g->nseats)
        o.user = g->seats[m->audience].user;
    else
        return; /* a seat that does not exist: a module bug, and no one to tell */
    if (m->key && msg_key_format(m->key, key, sizeof key) == 0) {
        o.key = key;
        o.key_parts = m->key;
    }
    /* A result offers the next game with the same players: a "Play again"
     * control where the platform has one. The module's data is its own: the
     * offer goes on a copy. */
    struct json_object *result = NULL, *actions = NULL;
    if (m->kind == OUT_RESULT && m->audience == MSG_TABLE && m->data &&
        json_object_deep_copy((struct json_object *)m->data, &result, NULL) == 0 &&
        (actions = json_object_new_array()) &&
        json_object_array_add(actions, json_object_new_string(OUT_ACTION_REMATCH)) == 0 &&
        json_object_object_add(result, "actions", actions) == 0) {
        actions = NULL;
        o.data = result;
    }
    json_object_put(actions);
    dispatch_emit(arg, &o);
    json_object_put(result);
}

/* Adds to data the line the text was written from (msg_say): its "say". */
static void add_say(struct json_object *data, const char *key, const char *const *vars)
{
    struct json_object *list = json_object_new_array();
    if (list && json_object_array_add(list, msg_say(key, vars)) == 0)
        json_object_object_add(data, "say", list);
    else
        json_object_put(list);
}

/* New data naming the language of a catalog text, and its "say", for a
 * platform that words lines its own way; NULL for the others, whose answers
 * carry no data. */
static struct json_object *said(const struct platform *p, const char *lang, const char *key,
                                const char *const *vars)
{
    if (!p->ops->rewords)
        return NULL;
    struct json_object *data = json_object_new_object();
    if (data) {
        json_object_object_add(data, "lang", json_object_new_string(lang));
        add_say(data, key, vars);
    }
    return data;
}

void dispatch_notice(struct platform *p, const char *channel, const char *lang, const char *key,
                     const char *const *vars)
{
    char text[DISPATCH_TEXT_MAX];
    text_fill(text, sizeof text, lang, key, vars);
    struct json_object *data = said(p, lang, key, vars);
    struct outbound m = {.kind = OUT_NOTICE, .channel = channel, .text = text, .data = data};
    hold(p, &m);
    json_object_put(data);
}

/* dispatch_reply() with data (borrowed; may be NULL). */
static void reply_data(struct platform *p, const struct inbound *in, bool private_answer,
                       enum outbound_kind kind, const char *text, const struct json_object *data)
{
    struct outbound m = {
        .kind = kind, .text = text, .reply_to = in->reply_to, .cause = in, .data = data};
    if (!private_answer && in->channel)
        m.channel = in->channel;
    else if (private_answer && in->channel && in->reply_to)
        m.channel = in->channel;
    else
        m.user = in->user;
    hold(p, &m);
}

void dispatch_reply(struct platform *p, const struct inbound *in, bool private_answer,
                    enum outbound_kind kind, const char *text)
{
    reply_data(p, in, private_answer, kind, text, NULL);
}

/* Whether key is an error's or a name's that did not resolve: the bot's own
 * ("error.", "resolve.") or a game's under its id ("palm-drewes.error."). */
static bool error_key(const char *key)
{
    const char *dot = strchr(key, '.');
    char id[32];
    if (dot && (size_t)(dot - key) < sizeof id) {
        memcpy(id, key, (size_t)(dot - key)); /* not snprintf: 600 instructions a reply */
        id[dot - key] = '\0';
        if (rules_by_id(id))
            key = dot + 1;
    }
    return strncmp(key, "error.", 6) == 0 || strncmp(key, "resolve.", 8) == 0;
}

void dispatch_reply_key(struct platform *p, const struct inbound *in, bool private_answer,
                        const char *lang, const char *key, const char *const *vars)
{
    char text[DISPATCH_TEXT_MAX];
    text_fill(text, sizeof text, lang, key, vars);
    struct json_object *data = said(p, lang, key, vars);
    reply_data(p, in, private_answer, error_key(key) ? OUT_ERROR : OUT_NOTICE, text, data);
    json_object_put(data);
}

static void tell(const struct game *g, const char *user, const char *key, const char *const *vars,
                 const char *event, bool ask)
{
    char text[DISPATCH_TEXT_MAX];
    struct json_object *data = json_object_new_object();
    if (!data) {
        log_error("dispatch", g->id, "out of memory: a message to %s is lost", user);
        return;
    }
    json_object_object_add(data, "game", json_object_new_string(g->id));
    json_object_object_add(data, "table", json_object_new_string(g->table));
    json_object_object_add(data, "event", json_object_new_string(event));
    int seat = game_seat_of(g, user);
    const char *lang = seat >= 0 ? game_seat_language(g, (unsigned)seat) : g->language;
    json_object_object_add(data, "lang", json_object_new_string(lang));
    if (ask) {
        struct json_object *to = json_object_new_array();
        json_object_array_add(to, json_object_new_string(user));
        json_object_object_add(data, "mentions", to);
    }
    text_fill(text, sizeof text, lang, key, vars);
    add_say(data, key, vars);
    struct outbound m = {.kind = OUT_NOTICE, .user = user, .text = text, .data = data};
    hold(g->platform, &m);
    json_object_put(data);
}

void dispatch_tell(const struct game *g, const char *user, const char *key, const char *const *vars,
                   const char *event)
{
    tell(g, user, key, vars, event, false);
}

void dispatch_ask(const struct game *g, const char *user, const char *key, const char *const *vars,
                  const char *event)
{
    tell(g, user, key, vars, event, true);
}

void dispatch_announce_data(struct game *g, const char *key, const char *const *vars,
                            struct json_object *extra)
{
    char text[DISPATCH_TEXT_MAX];
    struct json_object *data = json_object_new_object();
    text_fill(text, sizeof text, g->language, key, vars);
    if (data) {
        json_object_object_add(data, "game", json_object_new_string(g->id));
        json_object_object_add(data, "table", json_object_new_string(g->table));
        json_object_object_add(data, "lang", json_object_new_string(g->language));
        json_object_object_add(data, "event", json_object_new_string(msg_event_name(key)));
        add_say(data, key, vars);
        if (extra) {
            json_object_object_foreach(extra, name, value)
                json_object_object_add(data, name, json_object_get(value));
        }
    }
    struct outbound m = {.kind = OUT_NOTICE, .channel = g->table, .text = text, .data = data};
    hold(g->platform, &m);
    json_object_put(data);
    json_object_put(extra);
}

void dispatch_announce(struct game *g, const char *key, const char *const *vars)
{
    dispatch_announce_data(g, key, vars, NULL);
}

/* A private answer is in the player's language: the one they chose, else the
 * one their platform says they use; anything else in the command's. */
static const char *reply_language(const struct bot_cmd *x)
{
    bool seated = x->g && x->base.seat >= 0;
    if (x->private_answer) {
        if (seated && x->g->seats[x->base.seat].language[0])
            return x->g->seats[x->base.seat].language;
        if (catalog_match(x->in->locale))
            return catalog_match(x->in->locale);
        if (seated)
            return x->g->language;
    }
    return x->base.lang;
}

void cmd_reply_usage(struct bot_cmd *x)
{
    char usage[256];
    command_usage(usage, sizeof usage, x->base.lang, x->base.c->def,
                  commands_addressed_rules(x->d, x->p, x->in, x->base.c));
    const char *vars[] = {"usage", usage, NULL};
    cmd_reply(x, "parse.usage", vars);
}

void cmd_reply_if_unsaved(struct bot_cmd *x)
{
    struct dispatcher *d = x->d;
    d->turn.if_failed = true;
    cmd_reply(x, "msg.store-failed", NULL);
    d->turn.if_failed = false;
}

void cmd_reply(struct bot_cmd *x, const char *key, const char *const *vars)
{
    if (x->in)
        dispatch_reply_key(x->p, x->in, x->private_answer, reply_language(x), key, vars);
    else
        dispatch_announce(x->g, key, vars); /* no input: the table asked, by the clock */
}
