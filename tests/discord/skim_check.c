/*
 * skim_check.c - the skimmer against the full parse (skim_check.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "adapters/discord/gateway.h"
#include "core/json.h"
#include "skim_check.h"

/* Copies from's member name into to when it is of type t (arrays: their strings). */
static void copy(struct json_object *to, struct json_object *from, const char *name, json_type t)
{
    struct json_object *v = jget_type(from, name, t), *c;
    if (!v)
        return;
    if (t == json_type_array) {
        c = json_object_new_array();
        for (size_t i = 0; c && i < jarr_len(v); i++) {
            struct json_object *e = jarr_at(v, i);
            if (json_object_is_type(e, json_type_string))
                json_object_array_add(c, json_object_get(e));
        }
    } else {
        c = json_object_get(v);
    }
    json_object_object_add(to, name, c);
}

/* Copies the string members of from named in names (NULL-terminated) into to. */
static void copy_strings(struct json_object *to, struct json_object *from, const char *const *names)
{
    for (; *names; names++)
        copy(to, from, *names, json_type_string);
}

/* What dc_read_message() and dc_is_moderator() read of a message's d, as a new
 * object: restated here rather than taken from skim.c's table, so that the
 * check does not take the skimmer's word for it. */
static struct json_object *project(struct json_object *d)
{
    static const char *const strings[] = {"id", "channel_id", "guild_id", "content", NULL};
    static const char *const author_strings[] = {"id", "username", "global_name", NULL};
    static const char *const member_strings[] = {"nick", "permissions", NULL};
    struct json_object *o = json_object_new_object();
    copy_strings(o, d, strings);
    struct json_object *author = jget_obj(d, "author"), *member = jget_obj(d, "member");
    if (author) {
        struct json_object *a = json_object_new_object();
        copy_strings(a, author, author_strings);
        json_object_object_add(a, "bot", json_object_new_boolean(jget_true(author, "bot")));
        json_object_object_add(o, "author", a);
    }
    if (member) {
        struct json_object *m = json_object_new_object();
        copy_strings(m, member, member_strings);
        copy(m, member, "roles", json_type_array);
        json_object_object_add(o, "member", m);
    }
    return o;
}

/* Span s decoded, as a new json-c string. */
static struct json_object *span_string(const struct gw_span *s)
{
    char *text = malloc(GW_SPAN_DECODED_MAX(s) + 1);
    if (!text)
        abort();
    size_t n = gw_span_string(s, text);
    struct json_object *o = json_object_new_string_len(text, (int)n);
    free(text);
    return o;
}

/* Adds span s, decoded, to o as name when it is there. */
static void add_span(struct json_object *o, const char *name, const struct gw_span *s)
{
    if (s->p)
        json_object_object_add(o, name, span_string(s));
}

/* Whether a line, after spaces, starts with "!illegal" or a mention: the
 * adapter then reads no mention of it (inbound.c, table_command). */
static bool addressed(const char *content)
{
    while (*content == ' ')
        content++;
    return strncasecmp(content, "!illegal", 8) == 0 || strncmp(content, "<@", 2) == 0;
}

/* The skimmer's spans of a message as project() writes the full parse's. */
static struct json_object *spans_object(const struct gw_message *m)
{
    struct json_object *o = json_object_new_object();
    add_span(o, "id", &m->id);
    add_span(o, "channel_id", &m->channel_id);
    add_span(o, "guild_id", &m->guild_id);
    add_span(o, "content", &m->content);
    if (m->author) {
        struct json_object *a = json_object_new_object();
        add_span(a, "id", &m->author_id);
        add_span(a, "username", &m->username);
        add_span(a, "global_name", &m->global_name);
        json_object_object_add(a, "bot", json_object_new_boolean(m->bot));
        json_object_object_add(o, "author", a);
    }
    if (m->member) {
        struct json_object *mem = json_object_new_object();
        add_span(mem, "nick", &m->nick);
        add_span(mem, "permissions", &m->permissions);
        if (m->roles.p) {
            struct json_object *roles = json_object_new_array();
            struct gw_span rest = m->roles, role;
            while (gw_span_next_string(&rest, &role))
                json_object_array_add(roles, span_string(&role));
            json_object_object_add(mem, "roles", roles);
        }
        json_object_object_add(o, "member", mem);
    }
    return o;
}

const char *skim_check(const char *txt, size_t len, enum gw_skim *got, int64_t *seq)
{
    struct gw_message message;
    *got = gw_skim(txt, len, seq, &message);
    if (*got == GW_SKIM_PARSE)
        return NULL;
    const char *why = NULL;
    struct gw_payload p;
    struct json_object *o = gw_decode(txt, len, &p), *want = NULL, *read = NULL;
    if (!o || p.op != 0 || !p.type || strcmp(p.type, "MESSAGE_CREATE") != 0) {
        why = "the full parse reads no MESSAGE_CREATE";
    } else if (p.seq != *seq) {
        why = "another sequence";
    } else if (*got == GW_SKIM_IGNORE) {
        /* a bot's message, or guild chat addressed to nobody: no command, no
         * mention, no one pinged */
        const char *content = jget_str(p.d, "content");
        if (!jget_true(jget_obj(p.d, "author"), "bot") &&
            (!jget_str(p.d, "guild_id") || !content || addressed(content) ||
             jarr_len(jget_arr(p.d, "mentions")) > 0))
            why = "ignored, but the adapter reads it";
    } else if (!(read = spans_object(&message)) || !(want = project(p.d)) ||
               !json_object_equal(read, want)) {
        why = "the message read differs from the full parse";
    } else if (jget_str(p.d, "guild_id") && jarr_len(jget_arr(p.d, "mentions")) > 0 &&
               jget_str(p.d, "content") && !addressed(jget_str(p.d, "content"))) {
        why = "read, but it mentions someone and may reply to the bot";
    }
    json_object_put(want);
    json_object_put(read);
    json_object_put(o);
    return why;
}
