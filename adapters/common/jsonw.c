/*
 * jsonw.c - JSON written straight into a capped buffer (jsonw.h).
 */
#include <string.h>

#include <json-c/json.h>

#include "jsonw.h"

#define REPLACEMENT "\xEF\xBF\xBD" /* U+FFFD, for a byte that starts no sequence */

size_t jw_utf8_len(const unsigned char *s, size_t avail)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (n == 0 || s[0] > 0xF4 || n > avail)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))
        return 0;
    return n;
}

void jw_init(struct jw *w, struct buf *b)
{
    *w = (struct jw){.b = b};
}

static void put(struct jw *w, const void *p, size_t n)
{
    struct buf *b = w->b;
    if (w->failed)
        return;
    if (b->data && b->cap - b->len > n) {
        /* room already there (and so within the cap: buf.c never allocates
         * past max + 1); buf_append's checks and call cost more than the copy */
        memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = '\0';
    } else if (buf_append(b, p, n) < 0) {
        w->failed = true;
    }
}

static bool in_object(const struct jw *w)
{
    return w->depth > 0 && (w->open >> w->depth & 1u);
}

/* Before a value: its comma, or the key it answers; false (failed) when a
 * value cannot go here. */
static bool value_starts(struct jw *w)
{
    if (w->failed || w->in_string)
        return !(w->failed = true);
    if (in_object(w)) {
        if (!w->keyed)
            return !(w->failed = true);
        w->keyed = false;
        return true;
    }
    if (w->depth == 0 && w->filled & 1u)
        return !(w->failed = true); /* one value a writer */
    if (w->filled >> w->depth & 1u)
        put(w, ",", 1);
    w->filled |= 1u << w->depth;
    return !w->failed;
}

/* Bytes that go as they are: printable ASCII but the quote and backslash. */
static bool plain(unsigned char c)
{
    return c >= 0x20 && c < 0x80 && c != '"' && c != '\\';
}

/* c (ASCII, not plain) escaped: its short form where JSON has one, else
 * \u00XX. */
static void escape(struct jw *w, unsigned char c)
{
    static const char hex[] = "0123456789abcdef",
                      shorts[] = {
                          ['"'] = '"',  ['\\'] = '\\', ['\b'] = 'b', ['\f'] = 'f',
                          ['\n'] = 'n', ['\r'] = 'r',  ['\t'] = 't',
                      };
    char e[6] = {'\\', c < sizeof shorts ? shorts[c] : 0, '0', '0', hex[c >> 4], hex[c & 15]};
    bool short_form = e[1] != 0;
    if (!short_form)
        e[1] = 'u';
    put(w, e, short_form ? 2 : 6);
}

/* Whether any of the eight bytes of x is not plain: a control character
 * (below 0x20), a quote, a backslash or a byte of a sequence (0x80 and up).
 * Exact for "any" (each test is), though not for which byte. */
static bool word_has_special(uint64_t x)
{
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    uint64_t quote = x ^ (ones * '"'), backslash = x ^ (ones * '\\');
    uint64_t below = (x - ones * 0x20) & ~x;
    uint64_t zero = ((quote - ones) & ~quote) | ((backslash - ones) & ~backslash);
    return ((below | zero | x) & highs) != 0;
}

/* Where the run of bytes from i that go as they are ends: plain bytes and
 * valid sequences. Plain ASCII is passed eight bytes at a time. */
static size_t plain_run(const unsigned char *s, size_t i, size_t n)
{
    for (;;) {
        for (uint64_t x; n - i >= 8 && (memcpy(&x, s + i, 8), !word_has_special(x));)
            i += 8;
        while (i < n && plain(s[i]))
            i++;
        size_t len = i < n && s[i] >= 0x80 ? jw_utf8_len(s + i, n - i) : 0;
        if (!len)
            return i;
        i += len;
    }
}

/* n bytes of s as a string's inside: runs that go as they are copied whole,
 * the rest escaped or replaced. */
static void string_bytes(struct jw *w, const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n && !w->failed; i++) {
        size_t run = plain_run(s, i, n);
        put(w, s + i, run - i);
        if (run == n)
            return;
        if (s[run] < 0x80)
            escape(w, s[run]);
        else
            put(w, REPLACEMENT, sizeof REPLACEMENT - 1);
        i = run;
    }
}

void jw_str_open(struct jw *w)
{
    if (value_starts(w)) {
        put(w, "\"", 1);
        w->in_string = true;
    }
}

void jw_str_add(struct jw *w, const char *s, size_t n)
{
    if (!w->in_string)
        w->failed = true;
    else
        string_bytes(w, (const unsigned char *)s, n);
}

void jw_str_close(struct jw *w)
{
    if (!w->in_string) {
        w->failed = true;
        return;
    }
    w->in_string = false;
    put(w, "\"", 1);
}

void jw_strn(struct jw *w, const char *s, size_t n)
{
    jw_str_open(w);
    jw_str_add(w, s, n);
    jw_str_close(w);
}

void jw_str(struct jw *w, const char *s)
{
    jw_strn(w, s, strlen(s));
}

void jw_key(struct jw *w, const char *key)
{
    if (w->failed || w->in_string || !in_object(w) || w->keyed) {
        w->failed = true;
        return;
    }
    bool comma = w->filled >> w->depth & 1u;
    size_t n = strlen(key);
    w->filled |= 1u << w->depth;
    w->keyed = true;
    char line[64]; /* a short plain key goes in one append: ,"key": */
    if (n <= sizeof line - 4 && plain_run((const unsigned char *)key, 0, n) == n) {
        line[0] = ',';
        line[1] = '"';
        memcpy(line + 2, key, n);
        memcpy(line + 2 + n, "\":", 2);
        put(w, line + !comma, n + 3 + comma);
        return;
    }
    put(w, &",\""[!comma], 1 + comma);
    string_bytes(w, (const unsigned char *)key, n);
    put(w, "\":", 2);
}

static void open_level(struct jw *w, bool object)
{
    if (!value_starts(w))
        return;
    if (w->depth + 1 >= JW_DEPTH_MAX) {
        w->failed = true;
        return;
    }
    w->depth++;
    w->open = (w->open & ~(1u << w->depth)) | (uint32_t)object << w->depth;
    w->filled &= ~(1u << w->depth);
    put(w, object ? "{" : "[", 1);
}

static void close_level(struct jw *w, bool object)
{
    if (w->failed || w->in_string || w->depth == 0 || in_object(w) != object || w->keyed) {
        w->failed = true;
        return;
    }
    w->depth--;
    put(w, object ? "}" : "]", 1);
}

void jw_object(struct jw *w)
{
    open_level(w, true);
}

void jw_object_end(struct jw *w)
{
    close_level(w, true);
}

void jw_array(struct jw *w)
{
    open_level(w, false);
}

void jw_array_end(struct jw *w)
{
    close_level(w, false);
}

/* A number or a word, written as it is. */
static void token(struct jw *w, const char *t, size_t n)
{
    if (value_starts(w))
        put(w, t, n);
}

void jw_int(struct jw *w, int64_t v)
{
    char d[24], *p = d + sizeof d;
    uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    do
        *--p = (char)('0' + u % 10);
    while (u /= 10);
    if (v < 0)
        *--p = '-';
    token(w, p, (size_t)(d + sizeof d - p));
}

void jw_bool(struct jw *w, bool v)
{
    token(w, v ? "true" : "false", v ? 4 : 5);
}

void jw_null(struct jw *w)
{
    token(w, "null", 4);
}

void jw_json(struct jw *w, const struct json_object *o)
{
    struct json_object *v = (struct json_object *)o; /* json-c's getters take no const */
    switch (json_object_get_type(v)) {
    case json_type_null:
        jw_null(w);
        return;
    case json_type_boolean:
        jw_bool(w, json_object_get_boolean(v));
        return;
    case json_type_int:
        jw_int(w, json_object_get_int64(v));
        return;
    case json_type_double: {
        const char *t = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
        token(w, t, strlen(t));
        return;
    }
    case json_type_string:
        jw_strn(w, json_object_get_string(v), (size_t)json_object_get_string_len(v));
        return;
    case json_type_array:
        jw_array(w);
        for (size_t i = 0, n = json_object_array_length(v); i < n && !w->failed; i++)
            jw_json(w, json_object_array_get_idx(v, i));
        jw_array_end(w);
        return;
    case json_type_object:
        jw_object(w);
        json_object_object_foreach(v, key, member)
        {
            jw_key(w, key);
            jw_json(w, member);
        }
        jw_object_end(w);
        return;
    }
}

int jw_finish(const struct jw *w)
{
    return w->failed || w->in_string || w->depth != 0 || !(w->filled & 1u) ? -1 : 0;
}
