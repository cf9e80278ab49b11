/*
 * answer.c - the id of a message Discord created, read from its answer
 * without json-c's parse of the whole message (answer.h).
 *
 * The answer to a post is the whole message object (its content, embeds,
 * components, author, ...), a kilobyte or more, and the adapter keeps only
 * its id. The reader walks the document once, checking it as JSON (RFC 8259:
 * strings, numbers, literals, nesting) and noting each member of the top
 * object named "id". It answers only when it is sure json-c would read the
 * same: a top-level object whose last "id" is a string of digits. It gives
 * up (and the caller parses properly) on anything else: a key or an id with
 * an escape, a surrogate escape out of its pair, a control character in a string, nesting
 * past ANSWER_DEPTH_MAX, bytes after the object.
 */
#include <stdbool.h>
#include <string.h>

#include "answer.h"

#define ANSWER_DEPTH_MAX 30 /* json-c's parse stops at 32 */

struct walk {
    const unsigned char *p, *end;
    unsigned depth;
    const unsigned char *id; /* the last top-level "id" value's digits */
    size_t id_len;
};

static bool value(struct walk *w);

static void spaces(struct walk *w)
{
    while (w->p < w->end && (*w->p == ' ' || *w->p == '\t' || *w->p == '\n' || *w->p == '\r'))
        w->p++;
}

static bool take(struct walk *w, unsigned char c)
{
    spaces(w);
    if (w->p == w->end || *w->p != c)
        return false;
    w->p++;
    return true;
}

static int hex_digit(unsigned char c)
{
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The four hex digits of a \u escape at p (its 'u'), or -1. */
static long hex4(const struct walk *w, const unsigned char *p)
{
    long v = 0;
    for (int i = 1; i <= 4; i++) {
        int d = w->end - p > i ? hex_digit(p[i]) : -1;
        if (d < 0)
            return -1;
        v = v << 4 | d;
    }
    return v;
}

/* An escape after its backslash; false when it is none, or a surrogate not
 * in a pair (json-c's reading of those is its own). */
static bool escape(struct walk *w)
{
    if (w->p == w->end)
        return false;
    if (*w->p != 'u') {
        bool known = *w->p && strchr("\"\\/bfnrt", *w->p);
        w->p++;
        return known;
    }
    long v = hex4(w, w->p);
    w->p += 5;
    if (v < 0 || (v >= 0xDC00 && v <= 0xDFFF))
        return false;
    if (v < 0xD800 || v > 0xDBFF)
        return true;
    if (w->end - w->p < 6 || w->p[0] != '\\' || w->p[1] != 'u')
        return false;
    v = hex4(w, w->p + 1);
    w->p += 6;
    return v >= 0xDC00 && v <= 0xDFFF;
}

/* A string at w->p; its inside is [*s, *s + *n), *plain when it held no
 * escape. */
static bool string(struct walk *w, const unsigned char **s, size_t *n, bool *plain)
{
    if (!take(w, '"'))
        return false;
    *s = w->p;
    *plain = true;
    while (w->p < w->end && *w->p != '"') {
        if (*w->p < 0x20)
            return false;
        if (*w->p++ == '\\') {
            *plain = false;
            if (!escape(w))
                return false;
        }
    }
    if (w->p == w->end)
        return false;
    *n = (size_t)(w->p - *s);
    w->p++;
    return true;
}

static size_t digits(struct walk *w)
{
    size_t n = 0;
    for (; w->p < w->end && *w->p >= '0' && *w->p <= '9'; w->p++)
        n++;
    return n;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static bool number(struct walk *w)
{
    if (w->p < w->end && *w->p == '-')
        w->p++;
    const unsigned char *first = w->p;
    size_t n = digits(w);
    if (n == 0 || (n > 1 && *first == '0'))
        return false;
    if (w->p < w->end && *w->p == '.' && (w->p++, digits(w) == 0))
        return false;
    if (w->p < w->end && (*w->p == 'e' || *w->p == 'E')) {
        w->p++;
        if (w->p < w->end && (*w->p == '+' || *w->p == '-'))
            w->p++;
        if (digits(w) == 0)
            return false;
    }
    return true;
}

static bool word(struct walk *w, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(w->end - w->p) < n || memcmp(w->p, lit, n) != 0)
        return false;
    w->p += n;
    return true;
}

/* A member's value; a top-level "id" must be a plain string of digits. */
static bool member(struct walk *w, bool is_id)
{
    if (!is_id)
        return value(w);
    const unsigned char *s;
    size_t n;
    bool plain;
    if (!string(w, &s, &n, &plain) || !plain || n == 0 || n > ANSWER_ID_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9')
            return false;
    w->id = s;
    w->id_len = n;
    return true;
}

static bool object(struct walk *w)
{
    w->p++; /* the brace */
    bool top = w->depth == 1;
    if (take(w, '}'))
        return true;
    do {
        const unsigned char *k;
        size_t n;
        bool plain;
        if (!string(w, &k, &n, &plain) || (top && !plain) || !take(w, ':'))
            return false; /* an escaped key at the top might spell "id" */
        if (!member(w, top && n == 2 && memcmp(k, "id", 2) == 0))
            return false;
    } while (take(w, ','));
    return take(w, '}');
}

static bool array(struct walk *w)
{
    w->p++; /* the bracket */
    if (take(w, ']'))
        return true;
    do
        if (!value(w))
            return false;
    while (take(w, ','));
    return take(w, ']');
}

static bool value(struct walk *w)
{
    spaces(w);
    if (w->p == w->end)
        return false;
    const unsigned char *s;
    size_t n;
    bool plain, ok;
    switch (*w->p) {
    case '{':
    case '[':
        if (++w->depth > ANSWER_DEPTH_MAX)
            return false;
        ok = *w->p == '{' ? object(w) : array(w);
        w->depth--;
        return ok;
    case '"':
        return string(w, &s, &n, &plain);
    case 't':
        return word(w, "true");
    case 'f':
        return word(w, "false");
    case 'n':
        return word(w, "null");
    default:
        return number(w);
    }
}

int dc_answer_id(const char *body, char *id, size_t len)
{
    struct walk w = {.p = (const unsigned char *)body};
    w.end = w.p + strlen(body);
    spaces(&w);
    if (w.p == w.end || *w.p != '{' || !value(&w))
        return -1;
    spaces(&w);
    if (w.p != w.end || !w.id || w.id_len >= len)
        return -1;
    memcpy(id, w.id, w.id_len);
    id[w.id_len] = '\0';
    return 0;
}
