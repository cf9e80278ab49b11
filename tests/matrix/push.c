/*
 * push.c - push rule evaluation (see push.h): conditions event_match (glob,
 * case-insensitive; on content.body, between word boundaries),
 * event_property_is, event_property_contains, contains_display_name,
 * room_member_count and sender_notification_permission; unknown conditions
 * never match.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "push.h"

/* The server-default rules, kind by kind in evaluation order. "[user]" and "[localpart]" are
 * filled in for the user. */
static const char default_rules[] =
    "{\"override\":["
    "{\"rule_id\":\".m.rule.master\",\"default\":true,\"enabled\":false,\"conditions\":[],"
    "\"actions\":[]},"
    "{\"rule_id\":\".m.rule.suppress_notices\",\"default\":true,\"enabled\":true,\"conditions\":"
    "[{\"kind\":\"event_match\",\"key\":\"content.msgtype\",\"pattern\":\"m.notice\"}],"
    "\"actions\":[]},"
    "{\"rule_id\":\".m.rule.invite_for_me\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.room.member\"},"
    "{\"kind\":\"event_match\",\"key\":\"content.membership\",\"pattern\":\"invite\"},"
    "{\"kind\":\"event_match\",\"key\":\"state_key\",\"pattern\":\"[user]\"}],"
    "\"actions\":[\"notify\",{\"set_tweak\":\"sound\",\"value\":\"default\"}]},"
    "{\"rule_id\":\".m.rule.member_event\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.room.member\"}],\"actions\":[]},"
    "{\"rule_id\":\".m.rule.is_user_mention\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_property_contains\",\"key\":\"content.m\\\\.mentions.user_ids\","
    "\"value\":\"[user]\"}],\"actions\":[\"notify\",{\"set_tweak\":\"sound\",\"value\":"
    "\"default\"},{\"set_tweak\":\"highlight\"}]},"
    "{\"rule_id\":\".m.rule.contains_display_name\",\"default\":true,\"enabled\":true,"
    "\"conditions\":[{\"kind\":\"contains_display_name\"}],"
    "\"actions\":[\"notify\",{\"set_tweak\":\"sound\",\"value\":\"default\"},"
    "{\"set_tweak\":\"highlight\"}]},"
    "{\"rule_id\":\".m.rule.is_room_mention\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_property_is\",\"key\":\"content.m\\\\.mentions.room\",\"value\":true},"
    "{\"kind\":\"sender_notification_permission\",\"key\":\"room\"}],"
    "\"actions\":[\"notify\",{\"set_tweak\":\"highlight\"}]},"
    "{\"rule_id\":\".m.rule.roomnotif\",\"default\":true,\"enabled\":true,"
    "\"conditions\":["
    "{\"kind\":\"event_match\",\"key\":\"content.body\",\"pattern\":\"@room\"},"
    "{\"kind\":\"sender_notification_permission\",\"key\":\"room\"}],"
    "\"actions\":[\"notify\",{\"set_tweak\":\"highlight\"}]},"
    "{\"rule_id\":\".m.rule.tombstone\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.room.tombstone\"},"
    "{\"kind\":\"event_match\",\"key\":\"state_key\",\"pattern\":\"\"}],"
    "\"actions\":[\"notify\",{\"set_tweak\":\"highlight\"}]},"
    "{\"rule_id\":\".m.rule.reaction\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.reaction\"}],\"actions\":[]},"
    "{\"rule_id\":\".m.rule.room.server_acl\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.room.server_acl\"},"
    "{\"kind\":\"event_match\",\"key\":\"state_key\",\"pattern\":\"\"}],\"actions\":[]},"
    "{\"rule_id\":\".m.rule.suppress_edits\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_property_is\",\"key\":\"content.m\\\\.relates_to.rel_type\","
    "\"value\":\"m.replace\"}],\"actions\":[]}"
    "],\"content\":["
    "{\"rule_id\":\".m.rule.contains_user_name\",\"default\":true,\"enabled\":true,"
    "\"pattern\":\"[localpart]\",\"actions\":[\"notify\","
    "{\"set_tweak\":\"sound\",\"value\":\"default\"},{\"set_tweak\":\"highlight\"}]}"
    "],\"room\":[],\"sender\":[],\"underride\":["
    "{\"rule_id\":\".m.rule.call\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.call.invite\"}],"
    "\"actions\":[\"notify\",{\"set_tweak\":\"sound\",\"value\":\"ring\"}]},"
    "{\"rule_id\":\".m.rule.encrypted_room_one_to_one\",\"default\":true,\"enabled\":true,"
    "\"conditions\":[{\"kind\":\"room_member_count\",\"is\":\"2\"},"
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.room.encrypted\"}],"
    "\"actions\":[\"notify\",{\"set_tweak\":\"sound\",\"value\":\"default\"}]},"
    "{\"rule_id\":\".m.rule.room_one_to_one\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"room_member_count\",\"is\":\"2\"},"
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.room.message\"}],"
    "\"actions\":[\"notify\",{\"set_tweak\":\"sound\",\"value\":\"default\"}]},"
    "{\"rule_id\":\".m.rule.message\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.room.message\"}],"
    "\"actions\":[\"notify\"]},"
    "{\"rule_id\":\".m.rule.encrypted\",\"default\":true,\"enabled\":true,\"conditions\":["
    "{\"kind\":\"event_match\",\"key\":\"type\",\"pattern\":\"m.room.encrypted\"}],"
    "\"actions\":[\"notify\"]}"
    "]}";

static struct json_object *get(struct json_object *o, const char *k)
{
    struct json_object *v;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static const char *str(struct json_object *o, const char *k)
{
    struct json_object *v = get(o, k);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* Replaces the placeholders in every string value of o. */
static void fill(struct json_object *o, const char *user, const char *localpart)
{
    if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++) {
            struct json_object *v = json_object_array_get_idx(o, i);
            fill(v, user, localpart);
        }
        return;
    }
    if (!json_object_is_type(o, json_type_object))
        return;
    json_object_object_foreach(o, k, v)
    {
        const char *s = json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
        if (strcmp(s, "[user]") == 0)
            json_object_object_add(o, k, json_object_new_string(user));
        else if (strcmp(s, "[localpart]") == 0)
            json_object_object_add(o, k, json_object_new_string(localpart));
        else
            fill(v, user, localpart);
    }
}

struct json_object *push_default_rules(const char *user_id)
{
    struct json_object *rules = json_tokener_parse(default_rules);
    char local[256] = "";
    if (user_id[0] == '@') {
        size_t n = strcspn(user_id + 1, ":");
        if (n < sizeof(local)) {
            memcpy(local, user_id + 1, n);
            local[n] = '\0';
        }
    }
    fill(rules, user_id, local);
    return rules;
}

/* ---- matching ---- */

/* Glob: '*' any run, '?' one character; ASCII case-insensitive; s is n bytes long. */
static bool glob(const char *p, const char *s, size_t n)
{
    if (*p == '\0')
        return n == 0;
    if (*p == '*') {
        for (size_t i = 0; i <= n; i++)
            if (glob(p + 1, s + i, n - i))
                return true;
        return false;
    }
    if (n == 0)
        return false;
    if (*p != '?' && tolower((unsigned char)*p) != tolower((unsigned char)*s))
        return false;
    return glob(p + 1, s + 1, n - 1);
}

static bool word_char(char c)
{
    return isalnum((unsigned char)c) || c == '_';
}

/* Does the glob match a substring of s that starts and ends at word boundaries? */
static bool glob_words(const char *pattern, const char *s)
{
    size_t n = strlen(s);
    for (size_t a = 0; a <= n; a++) {
        if (a > 0 && word_char(s[a - 1]))
            continue;
        for (size_t b = a; b <= n; b++) {
            if (b < n && word_char(s[b]))
                continue;
            if (glob(pattern, s + a, b - a))
                return true;
        }
    }
    return false;
}

/* The literal text t in s, case-insensitive, between word boundaries. */
static bool contains_words(const char *s, const char *t)
{
    size_t n = strlen(s), m = strlen(t);
    for (size_t a = 0; m > 0 && a + m <= n; a++) {
        if ((a > 0 && word_char(s[a - 1])) || (a + m < n && word_char(s[a + m])))
            continue;
        if (strncasecmp(s + a, t, m) == 0)
            return true;
    }
    return false;
}

/* Follows a dot-separated path ("content.m\.mentions.user_ids": "\." is a dot, "\\" a
 * backslash) from the event. NULL when absent. */
static struct json_object *property(struct json_object *event, const char *path)
{
    struct json_object *o = event;
    char part[256];
    while (o && *path) {
        size_t n = 0;
        while (*path && *path != '.' && n + 1 < sizeof(part)) {
            if (*path == '\\' && (path[1] == '.' || path[1] == '\\'))
                path++;
            part[n++] = *path++;
        }
        part[n] = '\0';
        if (*path == '.')
            path++;
        if (!json_object_is_type(o, json_type_object))
            return NULL;
        o = get(o, part);
    }
    return o;
}

/* Exact equality of non-compound values (string, integer, boolean, null). */
static bool same_value(struct json_object *a, struct json_object *b)
{
    if (!a || !b)
        return !a && !b;
    json_type t = json_object_get_type(a);
    if (t != json_object_get_type(b))
        return false;
    switch (t) {
    case json_type_string:
        return strcmp(json_object_get_string(a), json_object_get_string(b)) == 0;
    case json_type_int:
        return json_object_get_int64(a) == json_object_get_int64(b);
    case json_type_boolean:
        return json_object_get_boolean(a) == json_object_get_boolean(b);
    default:
        return false;
    }
}

static bool member_count_is(const char *is, int count)
{
    if (!is)
        return false;
    const char *op = "==";
    static const char *const ops[] = {"==", "<=", ">=", "<", ">"};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        if (strncmp(is, ops[i], strlen(ops[i])) == 0) {
            op = ops[i];
            is += strlen(ops[i]);
            break;
        }
    }
    char *end;
    long n = strtol(is, &end, 10);
    if (end == is || *end)
        return false;
    if (strcmp(op, "<") == 0)
        return count < n;
    if (strcmp(op, ">") == 0)
        return count > n;
    if (strcmp(op, "<=") == 0)
        return count <= n;
    if (strcmp(op, ">=") == 0)
        return count >= n;
    return count == n;
}

static bool condition(struct json_object *c, const struct push_room *room,
                      struct json_object *event)
{
    const char *kind = str(c, "kind");
    if (!kind)
        return false;
    if (strcmp(kind, "event_match") == 0) {
        const char *key = str(c, "key"), *pattern = str(c, "pattern");
        struct json_object *v = key ? property(event, key) : NULL;
        if (!pattern || !v || !json_object_is_type(v, json_type_string))
            return false;
        if (strcmp(key, "content.body") == 0)
            return glob_words(pattern, json_object_get_string(v));
        const char *s = json_object_get_string(v);
        return glob(pattern, s, strlen(s));
    }
    if (strcmp(kind, "event_property_is") == 0) {
        struct json_object *v = str(c, "key") ? property(event, str(c, "key")) : NULL;
        return v && same_value(v, get(c, "value"));
    }
    if (strcmp(kind, "event_property_contains") == 0) {
        struct json_object *v = str(c, "key") ? property(event, str(c, "key")) : NULL;
        if (!v || !json_object_is_type(v, json_type_array))
            return false;
        for (size_t i = 0; i < json_object_array_length(v); i++)
            if (same_value(json_object_array_get_idx(v, i), get(c, "value")))
                return true;
        return false;
    }
    if (strcmp(kind, "contains_display_name") == 0) {
        const char *body = str(get(event, "content"), "body");
        return body && room->display_name && contains_words(body, room->display_name);
    }
    if (strcmp(kind, "room_member_count") == 0)
        return member_count_is(str(c, "is"), room->member_count);
    if (strcmp(kind, "sender_notification_permission") == 0) {
        const char *key = str(c, "key");
        return key && strcmp(key, "room") == 0 && room->sender_power >= room->room_notif_power;
    }
    return false; /* unknown conditions never match */
}

/* The mention rules deprecated in v1.7 (removed in v1.17), which Synapse still runs. */
static bool legacy_mention(const char *rule_id)
{
    return strcmp(rule_id, ".m.rule.contains_display_name") == 0 ||
           strcmp(rule_id, ".m.rule.contains_user_name") == 0 ||
           strcmp(rule_id, ".m.rule.roomnotif") == 0;
}

static bool rule_matches(struct json_object *rule, const char *kind, const struct push_room *room,
                         struct json_object *event)
{
    struct json_object *en = get(rule, "enabled");
    if (en && !json_object_get_boolean(en))
        return false;
    struct json_object *content = get(event, "content");
    const char *id = str(rule, "rule_id");
    if (id && legacy_mention(id) && get(content, "m.mentions"))
        return false; /* v1.7: the body is not searched for mentions when m.mentions is there */
    if (strcmp(kind, "content") == 0) {
        const char *body = str(content, "body");
        return body && str(rule, "pattern") && glob_words(str(rule, "pattern"), body);
    }
    if (strcmp(kind, "room") == 0)
        return id && str(event, "room_id") && strcmp(id, str(event, "room_id")) == 0;
    if (strcmp(kind, "sender") == 0)
        return id && str(event, "sender") && strcmp(id, str(event, "sender")) == 0;
    struct json_object *conds = get(rule, "conditions");
    for (size_t i = 0; conds && i < json_object_array_length(conds); i++)
        if (!condition(json_object_array_get_idx(conds, i), room, event))
            return false;
    return true;
}

static void take_actions(struct json_object *rule, struct push_result *out)
{
    out->rule_id = str(rule, "rule_id");
    out->actions = get(rule, "actions");
    for (size_t i = 0; out->actions && i < json_object_array_length(out->actions); i++) {
        struct json_object *a = json_object_array_get_idx(out->actions, i);
        if (json_object_is_type(a, json_type_string)) {
            out->notify = out->notify || strcmp(json_object_get_string(a), "notify") == 0;
        } else if (str(a, "set_tweak") && strcmp(str(a, "set_tweak"), "highlight") == 0) {
            struct json_object *v = get(a, "value");
            out->highlight = !v || json_object_get_boolean(v);
        }
    }
}

void push_evaluate(struct json_object *rules, const struct push_room *room,
                   struct json_object *event, struct push_result *out)
{
    static const char *const kinds[] = {"override", "content", "room", "sender", "underride"};
    memset(out, 0, sizeof(*out));
    const char *sender = str(event, "sender");
    if (sender && room->user_id && strcmp(sender, room->user_id) == 0)
        return;
    /* .m.rule.master has priority over everything when enabled; it is first in override. */
    for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        struct json_object *list = get(rules, kinds[k]);
        for (size_t i = 0; list && i < json_object_array_length(list); i++) {
            struct json_object *rule = json_object_array_get_idx(list, i);
            if (rule_matches(rule, kinds[k], room, event)) {
                take_actions(rule, out);
                return;
            }
        }
    }
}

static int power_of(struct json_object *pl, const char *user)
{
    struct json_object *v = get(get(pl, "users"), user);
    if (!v)
        v = get(pl, "users_default");
    return v ? json_object_get_int(v) : 0;
}

void push_room_from_state(struct push_room *room, struct json_object *state, const char *user,
                          const char *sender)
{
    memset(room, 0, sizeof(*room));
    room->user_id = user;
    struct json_object *pl = get(get(state, "m.room.power_levels|"), "content");
    room->sender_power = sender ? power_of(pl, sender) : 0;
    struct json_object *np = get(get(pl, "notifications"), "room");
    room->room_notif_power = np ? json_object_get_int(np) : 50;
    if (!state || !json_object_is_type(state, json_type_object))
        return;
    json_object_object_foreach(state, k, ev)
    {
        if (strncmp(k, "m.room.member|", 14) != 0)
            continue;
        struct json_object *c = get(ev, "content");
        const char *ms = str(c, "membership");
        if (!ms || strcmp(ms, "join") != 0)
            continue;
        room->member_count++;
        if (strcmp(k + 14, user) == 0)
            room->display_name = str(c, "displayname");
    }
}
