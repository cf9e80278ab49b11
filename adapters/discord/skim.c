/*
 * skim.c - deciding from a gateway message's text, without parsing it into
 * objects, that the adapter would ignore it.
 *
 * In a busy guild most gateway messages are chat: MESSAGE_CREATE in a guild
 * channel whose content does not start with "!illegal". Building a json-c
 * tree for each only to drop it cost most of an ignored message's time. The
 * skimmer walks the text once and answers "ignorable" only when it is sure;
 * anything unusual (an escape in a key, a key twice, a number it does not
 * read exactly as json-c would, deep nesting) means "parse it properly".
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
            if (++c->p >= c->end || !strchr("\"\\/bfnrtu", *c->p))
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

struct message {
    struct span guild_id, content;
    bool has_guild_id, has_content;
};

static bool take_message(void *arg, const struct span *key, const struct span *value)
{
    struct message *m = arg;
    if (is(key, "guild_id"))
        return note(&m->guild_id, &m->has_guild_id, value);
    if (is(key, "content"))
        return note(&m->content, &m->has_content, value);
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

bool gw_skim_ignorable(const char *txt, size_t len, int64_t *seq)
{
    struct cursor c = {txt, txt + len};
    struct top top = {0};
    struct member_fn top_fn = {take_top, &top};
    if (!each_member(&c, &top_fn))
        return false;
    skip_ws(&c);
    if (c.p != c.end || !top.has_op || !is(&top.op, "0") || !top.has_t ||
        !is(&top.t, "\"MESSAGE_CREATE\"") || !top.has_d || !read_seq(&top, seq))
        return false;
    struct message m = {0};
    struct member_fn message_fn = {take_message, &m};
    struct cursor d = {top.d.start, top.d.start + top.d.len};
    if (!each_member(&d, &message_fn) || !m.has_guild_id || !m.has_content ||
        m.guild_id.start[0] != '"' || m.content.start[0] != '"')
        return false;
    /* In a guild channel only "!illegal ..." matters (inbound.c, on_message). */
    const char *text = m.content.start + 1, *end = m.content.start + m.content.len - 1;
    while (text < end && *text == ' ')
        text++;
    size_t n = (size_t)(end - text) < 8 ? (size_t)(end - text) : 8;
    if (memchr(text, '\\', n))
        return false; /* an escape could spell the prefix */
    return n < 8 || strncasecmp(text, "!illegal", 8) != 0;
}
