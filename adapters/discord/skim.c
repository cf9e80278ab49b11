/*
 * skim.c - deciding from a gateway message's text, without parsing it into
 * objects, that the adapter would ignore it, or reading only what it needs.
 *
 * In a busy guild most gateway messages are chat: MESSAGE_CREATE in a guild
 * channel whose content does not start with "!illegal". Building a json-c
 * tree for each only to drop it cost most of an ignored message's time. The
 * skimmer walks the text and answers only when it is sure; anything unusual
 * (an escape in a key, a wanted key twice, a number it does not read exactly
 * as json-c would, deep nesting) means "parse it properly". A message the
 * adapter reads (a command, a DM) becomes a small object of the dozen members
 * it reads instead of a tree of the whole payload.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "skim.h"

#define SKIM_MAX_DEPTH 16 /* deeper values are parsed properly (json-c stops at 32) */

struct cursor {
    const char *p, *end;
};

struct span {
    const char *start; /* for a string: after the quote */
    size_t len;        /* for a string: up to the closing quote */
    bool escaped;      /* a string holding a backslash */
};

static void skip_ws(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* A string at c (its quote included) into s. */
static bool read_string(struct cursor *c, struct span *s)
{
    if (c->p >= c->end || *c->p != '"')
        return false;
    s->start = ++c->p;
    s->escaped = false;
    while (c->p < c->end && *c->p != '"') {
        if ((unsigned char)*c->p < 0x20)
            return false;
        if (*c->p == '\\') {
            s->escaped = true;
            /* strchr finds the string's own NUL: a NUL byte is no escape */
            if (++c->p >= c->end || !*c->p || !strchr("\"\\/bfnrtu", *c->p))
                return false;
            if (*c->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (c->p + i >= c->end || !isxdigit((unsigned char)c->p[i]))
                        return false;
                c->p += 4;
            }
        }
        c->p++;
    }
    if (c->p >= c->end)
        return false;
    s->len = (size_t)(c->p - s->start);
    c->p++;
    return true;
}

static bool is_digit(const struct cursor *c)
{
    return c->p < c->end && *c->p >= '0' && *c->p <= '9';
}

/* A literal at c, exactly. */
static bool skip_word(struct cursor *c, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, word, n) != 0 ||
        ((size_t)(c->end - c->p) > n && isalnum((unsigned char)c->p[n])))
        return false;
    c->p += n;
    return true;
}

/* A number at c, in JSON's own grammar only. */
static bool skip_number(struct cursor *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (!is_digit(c))
        return false;
    if (*c->p == '0')
        c->p++;
    else
        while (is_digit(c))
            c->p++;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!is_digit(c))
            return false;
        while (is_digit(c))
            c->p++;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!is_digit(c))
            return false;
        while (is_digit(c))
            c->p++;
    }
    return c->p == c->end || !isalnum((unsigned char)*c->p);
}

/* Any value at c, skipped over; its text (quotes included) into whole. */
static bool skip_value(struct cursor *c, unsigned depth, struct span *whole)
{
    if (c->p >= c->end || depth > SKIM_MAX_DEPTH)
        return false;
    whole->start = c->p;
    whole->escaped = false;
    char open = *c->p;
    if (open == '"') {
        struct span s;
        if (!read_string(c, &s))
            return false;
        whole->escaped = s.escaped;
    } else if (open == '{' || open == '[') {
        char close = open == '{' ? '}' : ']';
        c->p++;
        skip_ws(c);
        if (c->p < c->end && *c->p == close) {
            c->p++;
        } else {
            for (;;) {
                struct span ignored;
                if (open == '{') {
                    if (!read_string(c, &ignored))
                        return false;
                    skip_ws(c);
                    if (c->p >= c->end || *c->p++ != ':')
                        return false;
                    skip_ws(c);
                }
                if (!skip_value(c, depth + 1, &ignored))
                    return false;
                skip_ws(c);
                if (c->p >= c->end)
                    return false;
                if (*c->p == close) {
                    c->p++;
                    break;
                }
                if (*c->p++ != ',')
                    return false;
                skip_ws(c);
            }
        }
    } else if (!skip_word(c, "true") && !skip_word(c, "false") && !skip_word(c, "null") &&
               !skip_number(c)) {
        return false;
    }
    whole->len = (size_t)(c->p - whole->start);
    return true;
}

static bool is(const struct span *s, const char *word)
{
    return s->len == strlen(word) && memcmp(s->start, word, s->len) == 0;
}

/* What each_member() hands every member to; take returns false to give up. */
struct member_fn {
    bool (*take)(void *arg, const struct span *key, const struct span *value);
    void *arg;
};

/* Calls fn->take(key, value) for each member of the object at c; false when
 * the text is no object, a key holds an escape, or take gave up (a wanted key
 * came twice). */
static bool each_member(struct cursor *c, const struct member_fn *fn)
{
    skip_ws(c);
    if (c->p >= c->end || *c->p++ != '{')
        return false;
    skip_ws(c);
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return true;
    }
    for (;;) {
        struct span key, value;
        if (!read_string(c, &key) || key.escaped)
            return false;
        skip_ws(c);
        if (c->p >= c->end || *c->p++ != ':')
            return false;
        skip_ws(c);
        if (!skip_value(c, 1, &value) || !fn->take(fn->arg, &key, &value))
            return false;
        skip_ws(c);
        if (c->p >= c->end)
            return false;
        if (*c->p == '}') {
            c->p++;
            return true;
        }
        if (*c->p++ != ',')
            return false;
        skip_ws(c);
    }
}

/* Notes the value of a wanted key; refuses a second one. */
static bool note(struct span *slot, bool *seen, const struct span *value)
{
    if (*seen)
        return false;
    *seen = true;
    *slot = *value;
    return true;
}

struct top {
    struct span op, s, t, d;
    bool has_op, has_s, has_t, has_d;
};

static bool take_top(void *arg, const struct span *key, const struct span *value)
{
    struct top *t = arg;
    if (is(key, "op"))
        return note(&t->op, &t->has_op, value);
    if (is(key, "s"))
        return note(&t->s, &t->has_s, value);
    if (is(key, "t"))
        return note(&t->t, &t->has_t, value);
    if (is(key, "d"))
        return note(&t->d, &t->has_d, value);
    return true;
}

/* A sequence as json-c reads it into the adapter: digits (at most 18, so no
 * overflow) or null. */
static bool read_seq(const struct top *t, int64_t *seq)
{
    *seq = 0;
    if (!t->has_s || is(&t->s, "null"))
        return true;
    if (t->s.len == 0 || t->s.len > 18 || (t->s.len > 1 && t->s.start[0] == '0'))
        return false;
    for (size_t i = 0; i < t->s.len; i++) {
        if (t->s.start[i] < '0' || t->s.start[i] > '9')
            return false;
        *seq = *seq * 10 + (t->s.start[i] - '0');
    }
    return true;
}

/* Whether content (a string with its quotes) may be a command: it starts
 * with "!illegal" after spaces, or an escape could spell that. */
static bool is_command(const struct span *content)
{
    const char *text = content->start + 1, *end = content->start + content->len - 1;
    while (text < end && *text == ' ')
        text++;
    size_t n = (size_t)(end - text) < 8 ? (size_t)(end - text) : 8;
    if (memchr(text, '\\', n))
        return true;
    return n == 8 && strncasecmp(text, "!illegal", 8) == 0;
}

/* ---- what the adapter reads of a message ------------------------------- */

/* A string value into a json-c string: its bytes as they are, or, when it
 * holds an escape, decoded by json-c itself so that both paths agree. NULL
 * on no memory or when json-c reads it otherwise. */
static struct json_object *string_value(const struct span *v)
{
    if (!v->escaped)
        return json_object_new_string_len(v->start + 1, (int)(v->len - 2));
    struct json_tokener *tok = json_tokener_new();
    struct json_object *o = tok ? json_tokener_parse_ex(tok, v->start, (int)v->len) : NULL;
    if (o &&
        (!json_object_is_type(o, json_type_string) || json_tokener_get_parse_end(tok) != v->len)) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

enum kept_type { KEPT_STRING, KEPT_BOOL, KEPT_STRINGS, KEPT_OBJECT };

/* A member kept, within the object that holds it (NULL: the message itself). */
struct kept {
    const char *within, *name;
    enum kept_type type;
};

enum {
    K_ID,
    K_CHANNEL,
    K_GUILD,
    K_CONTENT,
    K_AUTHOR,
    K_MEMBER,
    K_AUTHOR_ID,
    K_USERNAME,
    K_GLOBAL_NAME,
    K_BOT,
    K_NICK,
    K_PERMISSIONS,
    K_ROLES,
    NKEPT
};

/* What inbound.c's on_message() and guilds.c's dc_is_moderator() read of a
 * MESSAGE_CREATE: nothing else is kept. A member of another type is left
 * out, as the adapter's getters would read nothing from it; so are the
 * array's elements that are not strings. */
static const struct kept kept[NKEPT] = {
    [K_ID] = {NULL, "id", KEPT_STRING},
    [K_CHANNEL] = {NULL, "channel_id", KEPT_STRING},
    [K_GUILD] = {NULL, "guild_id", KEPT_STRING},
    [K_CONTENT] = {NULL, "content", KEPT_STRING},
    [K_AUTHOR] = {NULL, "author", KEPT_OBJECT},
    [K_MEMBER] = {NULL, "member", KEPT_OBJECT},
    [K_AUTHOR_ID] = {"author", "id", KEPT_STRING},
    [K_USERNAME] = {"author", "username", KEPT_STRING},
    [K_GLOBAL_NAME] = {"author", "global_name", KEPT_STRING},
    [K_BOT] = {"author", "bot", KEPT_BOOL},
    [K_NICK] = {"member", "nick", KEPT_STRING},
    [K_PERMISSIONS] = {"member", "permissions", KEPT_STRING},
    [K_ROLES] = {"member", "roles", KEPT_STRINGS},
};

/* The kept members of one object as read: their text; a second is refused. */
struct reading {
    const char *within;
    struct span value[NKEPT];
    bool seen[NKEPT];
};

static bool take_kept(void *arg, const struct span *key, const struct span *value)
{
    struct reading *r = arg;
    for (size_t i = 0; i < NKEPT; i++) {
        bool here =
            r->within ? kept[i].within && strcmp(kept[i].within, r->within) == 0 : !kept[i].within;
        if (here && is(key, kept[i].name))
            return note(&r->value[i], &r->seen[i], value);
    }
    return true;
}

/* Reads the object in text (within: its name, NULL for the message) into r. */
static bool collect(const struct span *text, const char *within, struct reading *r)
{
    memset(r, 0, sizeof(*r));
    r->within = within;
    struct member_fn fn = {take_kept, r};
    struct cursor c = {text->start, text->start + text->len};
    return each_member(&c, &fn);
}

static struct json_object *build(const struct reading *r);

/* The strings of the array in text as a json-c array; NULL on no memory. */
static struct json_object *string_array(const struct span *text)
{
    struct json_object *arr = json_object_new_array();
    struct cursor c = {text->start + 1, text->start + text->len - 1};
    skip_ws(&c);
    while (arr && c.p < c.end) {
        struct span e;
        struct json_object *str = NULL;
        /* the whole value was checked already: a failure here is memory */
        if (!skip_value(&c, 1, &e) || (e.start[0] == '"' && !(str = string_value(&e))) ||
            (str && json_object_array_add(arr, str) != 0)) {
            json_object_put(str);
            json_object_put(arr);
            return NULL;
        }
        skip_ws(&c);
        if (c.p < c.end && *c.p == ',')
            c.p++;
        skip_ws(&c);
    }
    return arr;
}

/* Adds kept member i, whose text is v, to o: true when added or left out
 * (another type), false when unsure or out of memory. */
static bool add_kept(struct json_object *o, size_t i, const struct span *v)
{
    struct json_object *val = NULL;
    char first = v->start[0];
    struct reading inner;
    switch (kept[i].type) {
    case KEPT_STRING:
        if (first != '"')
            return true;
        val = string_value(v);
        break;
    case KEPT_BOOL:
        if (!is(v, "true") && !is(v, "false"))
            return true;
        val = json_object_new_boolean(is(v, "true"));
        break;
    case KEPT_OBJECT:
        if (first != '{')
            return true;
        if (!collect(v, kept[i].name, &inner))
            return false;
        val = build(&inner);
        break;
    case KEPT_STRINGS:
        if (first != '[')
            return true;
        val = string_array(v);
        break;
    }
    if (!val || json_object_object_add(o, kept[i].name, val) != 0) {
        json_object_put(val);
        return false;
    }
    return true;
}

/* The kept members r read, as a new json-c object; NULL when unsure or out of memory. */
static struct json_object *build(const struct reading *r)
{
    struct json_object *o = json_object_new_object();
    for (size_t i = 0; o && i < NKEPT; i++)
        if (r->seen[i] && !add_kept(o, i, &r->value[i])) {
            json_object_put(o);
            o = NULL;
        }
    return o;
}

enum gw_skim gw_skim(const char *txt, size_t len, int64_t *seq, struct json_object **message)
{
    struct cursor c = {txt, txt + len};
    struct top top = {0};
    struct member_fn top_fn = {take_top, &top};
    struct reading d;
    if (message)
        *message = NULL;
    if (!each_member(&c, &top_fn))
        return GW_SKIM_PARSE;
    skip_ws(&c);
    if (c.p != c.end || !top.has_op || !is(&top.op, "0") || !top.has_t ||
        !is(&top.t, "\"MESSAGE_CREATE\"") || !top.has_d || !read_seq(&top, seq) ||
        !collect(&top.d, NULL, &d))
        return GW_SKIM_PARSE;
    /* In a guild channel only "!illegal ..." matters (inbound.c, on_message). */
    if (d.seen[K_GUILD] && d.seen[K_CONTENT] && d.value[K_GUILD].start[0] == '"' &&
        d.value[K_CONTENT].start[0] == '"' && !is_command(&d.value[K_CONTENT]))
        return GW_SKIM_IGNORE;
    if (!message || !(*message = build(&d)))
        return GW_SKIM_PARSE;
    return GW_SKIM_MESSAGE;
}
