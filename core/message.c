/*
 * message.c - message keys: one format, one parse.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "catalog.h"
#include "json.h"
#include "message.h"
#include "modules.h"

/* The bot's own topics; each game's are in its module. */
static const struct msg_topic bot_topics[] = {
    {"lobby", false, false},  {"gm", false, true}, /* the Game Master's view, per watcher */
    {"signup", false, false},                      /* an event's sign-up list: "e3/signup" */
    {"chat", false, false},                        /* a table's chat: "g7/chat" */
    {NULL, false, false},
};

const struct msg_topic *msg_topic_find(const char *t)
{
    for (const struct msg_topic *p = bot_topics; p->topic; p++)
        if (strcmp(p->topic, t) == 0)
            return p;
    for (size_t i = 0; i < rules_count(); i++)
        for (const struct msg_topic *p = rules_at(i)->topics; p && p->topic; p++)
            if (strcmp(p->topic, t) == 0)
                return p;
    return NULL;
}

int msg_key_format(const struct msg_key *k, char *out, size_t len)
{
    const struct msg_topic *t = msg_topic_find(k->topic);
    int w;
    if (!t || !k->game[0])
        return -1;
    if (t->number && t->user)
        w = snprintf(out, len, "%s/%s/%u/%s", k->game, k->topic, k->number, k->user);
    else if (t->number)
        w = snprintf(out, len, "%s/%s/%u", k->game, k->topic, k->number);
    else if (t->user)
        w = snprintf(out, len, "%s/%s/%s", k->game, k->topic, k->user);
    else
        w = snprintf(out, len, "%s/%s", k->game, k->topic);
    return w < 0 || (size_t)w >= len ? -1 : 0;
}

/* Copies the part of *s up to the next '/' (or the end) into out. */
static int take_part(const char **s, char *out, size_t len, bool to_end)
{
    const char *end = to_end ? *s + strlen(*s) : strchr(*s, '/');
    if (!end)
        end = *s + strlen(*s);
    size_t n = (size_t)(end - *s);
    if (n == 0 || n >= len)
        return -1;
    memcpy(out, *s, n);
    out[n] = '\0';
    *s = *end ? end + 1 : end;
    return 0;
}

int msg_key_parse(const char *s, struct msg_key *k)
{
    char number[16];
    memset(k, 0, sizeof *k);
    if (take_part(&s, k->game, sizeof k->game, false) < 0 ||
        take_part(&s, k->topic, sizeof k->topic, false) < 0)
        return -1;
    const struct msg_topic *t = msg_topic_find(k->topic);
    if (!t)
        return -1;
    if (t->number) {
        char *end;
        if (take_part(&s, number, sizeof number, false) < 0 || !isdigit((unsigned char)*number))
            return -1;
        unsigned long v = strtoul(number, &end, 10);
        if (*end || v >= MSG_ANY_NUMBER) /* that one means "any" in a pattern */
            return -1;
        k->number = (unsigned)v;
    }
    /* A user id is the rest, whatever it holds. */
    if (t->user && take_part(&s, k->user, sizeof k->user, true) < 0)
        return -1;
    return *s ? -1 : 0;
}

bool msg_key_matches(const char *s, const struct msg_key *of)
{
    struct msg_key k;
    return msg_key_parse(s, &k) == 0 && strcmp(k.game, of->game) == 0 &&
           (!of->topic[0] || strcmp(k.topic, of->topic) == 0) &&
           (of->number == MSG_ANY_NUMBER || k.number == of->number) &&
           (!of->user[0] || strcmp(k.user, of->user) == 0);
}

static const char *const kind_names[] = {
    [OUT_NOTICE] = "notice",         [OUT_LOBBY] = "lobby",
    [OUT_TABLE_VIEW] = "table_view", [OUT_PRIVATE_VIEW] = "private_view",
    [OUT_PROMPT] = "prompt",         [OUT_BALLOT] = "ballot",
    [OUT_RESULT] = "result",         [OUT_ERROR] = "error",
    [OUT_GAME_OVER] = "game_over",
};
_Static_assert(sizeof kind_names / sizeof kind_names[0] == OUT_GAME_OVER + 1,
               "every kind has a name");

/* The names Illegal's kinds had before the kinds were generic: an outbox
 * stored by an older daemon still holds them. */
static const struct {
    const char *name;
    enum outbound_kind kind;
} older_names[] = {
    {"hand", OUT_PRIVATE_VIEW},
    {"drop", OUT_TABLE_VIEW},
    {"offer", OUT_PROMPT},
    {"vote", OUT_BALLOT},
};

const char *msg_kind_name(enum outbound_kind k)
{
    return (unsigned)k <= OUT_GAME_OVER ? kind_names[k] : "notice";
}

int msg_kind_parse(const char *name, enum outbound_kind *k)
{
    for (unsigned i = 0; name && i <= OUT_GAME_OVER; i++)
        if (strcmp(name, kind_names[i]) == 0) {
            *k = (enum outbound_kind)i;
            return 0;
        }
    for (size_t i = 0; name && i < sizeof older_names / sizeof older_names[0]; i++)
        if (strcmp(name, older_names[i].name) == 0) {
            *k = older_names[i].kind;
            return 0;
        }
    return -1;
}

const char *msg_label(enum outbound_kind k, const char *key, char *out, size_t len)
{
    struct msg_key parsed;
    bool named = k == OUT_TABLE_VIEW || k == OUT_PRIVATE_VIEW || k == OUT_PROMPT || k == OUT_BALLOT;
    if (!named || !key || msg_key_parse(key, &parsed) < 0 ||
        (size_t)snprintf(out, len, "%s", parsed.topic) >= len)
        return msg_kind_name(k);
    return out;
}

const char *msg_event_name(const char *key)
{
    const char *dot = strchr(key, '.');
    if (strncmp(key, "msg.", 4) == 0)
        return key + 4;
    return dot && strncmp(dot + 1, "msg.", 4) == 0 ? dot + 5 : key;
}

struct json_object *msg_say(const char *key, const char *const *vars)
{
    struct json_object *say = json_object_new_object(), *values = json_object_new_object();
    if (!say || !values || json_object_object_add(say, "key", json_object_new_string(key)) < 0) {
        json_object_put(say);
        json_object_put(values);
        return NULL;
    }
    for (const char *const *v = vars; v && v[0]; v += 2)
        json_object_object_add(values, v[0], json_object_new_string(v[1] ? v[1] : ""));
    json_object_object_add(say, "vars", values);
    return say;
}

void msg_choice_label(const struct json_object *choice, const char *lang, char *out, size_t len)
{
    const char *label = jget_str(choice, "label"), *key = jget_str(choice, "label_key");
    const char *tag = jget_str(choice, "tag");
    if (!label && key)
        label = catalog_text(catalog_has_language(lang) ? lang : "en", key);
    if (!label)
        label = key ? key : "";
    snprintf(out, len, tag && *label ? "%s %s" : "%s%s", label, tag ? tag : "");
}
