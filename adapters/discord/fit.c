/*
 * fit.c - texts measured as Discord counts them, and cut to fit (fit.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fit.h"

#define ELLIPSIS "\xE2\x80\xA6" /* U+2026, one character */

/* The length of the valid UTF-8 sequence s starts (RFC 3629: no overlong
 * form, no surrogate, nothing past U+10FFFF), or 0 when it starts none. */
static size_t valid_len(const unsigned char *s)
{
    if (s[0] < 0x80)
        return 1;
    size_t n = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 ? 2 : 0;
    if (n == 0 || s[0] > 0xF4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80)
            return 0;
    if ((s[0] == 0xE0 && s[1] < 0xA0) || (s[0] == 0xED && s[1] >= 0xA0) ||
        (s[0] == 0xF0 && s[1] < 0x90) || (s[0] == 0xF4 && s[1] >= 0x90))
        return 0;
    return n;
}

/* The bytes of the sequence s starts: a byte that starts none is one (and
 * one character: dc_fix_utf8() makes it U+FFFD). */
static size_t seq_len(const unsigned char *s)
{
    size_t n = valid_len(s);
    return n ? n : 1;
}

size_t dc_chars(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t len = seq_len(p);
        n += len == 4 ? 2 : 1; /* beyond the BMP: a surrogate pair */
        p += len;
    }
    return n;
}

size_t dc_fit(const char *s, size_t max)
{
    size_t bytes = 0, chars = 0;
    const unsigned char *p = (const unsigned char *)s;
    while (p[bytes]) {
        size_t len = seq_len(p + bytes), units = len == 4 ? 2 : 1;
        if (chars + units > max)
            break;
        chars += units;
        bytes += len;
    }
    return bytes;
}

struct json_object *dc_fit_json(const char *s, size_t max)
{
    size_t keep = dc_fit(s, max);
    if (!s[keep])
        return json_object_new_string(s);
    keep = dc_fit(s, max - 1);
    char *out = malloc(keep + sizeof ELLIPSIS);
    if (!out) /* no memory for the mark: the cut text alone */
        return json_object_new_string_len(s, (int)keep);
    memcpy(out, s, keep);
    memcpy(out + keep, ELLIPSIS, sizeof ELLIPSIS);
    struct json_object *j = json_object_new_string(out);
    free(out);
    return j;
}

bool dc_valid_name(const char *s)
{
    size_t points = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; points++) {
        if (*p >= 0x80) {
            /* the capitals of Latin-1 (U+00C0 to U+00DE) have lower-case
             * forms Discord asks for; other letters are taken as they are */
            if (p[0] == 0xC3 && p[1] >= 0x80 && p[1] <= 0x9E)
                return false;
            p += seq_len(p);
        } else if (islower(*p) || isdigit(*p) || *p == '-' || *p == '_' || *p == '\'') {
            p++;
        } else {
            return false;
        }
    }
    return points >= 1 && points <= DC_NAME_MAX;
}

/* s with each byte that starts no valid sequence made U+FFFD (malloc'd), or
 * NULL when s is valid UTF-8 (or memory ran out: s goes as it is). */
static char *fixed(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t bad = 0, len = 0;
    for (; p[len]; len += seq_len(p + len))
        bad += valid_len(p + len) == 0;
    if (!bad)
        return NULL;
    char *out = malloc(len + 2 * bad + 1), *o = out;
    for (size_t i = 0; out && p[i];) {
        size_t n = valid_len(p + i);
        if (n) {
            memcpy(o, p + i, n);
            o += n;
            i += n;
        } else {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    if (out)
        *o = '\0';
    return out;
}

void dc_fix_utf8(struct json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_string: {
        char *f = fixed(json_object_get_string(o));
        if (f)
            json_object_set_string(o, f);
        free(f);
        break;
    }
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(o); i++)
            dc_fix_utf8(json_object_array_get_idx(o, i));
        break;
    case json_type_object: {
        json_object_object_foreach(o, key, v)
        {
            (void)key; /* the adapter's own keys, ASCII */
            dc_fix_utf8(v);
        }
        break;
    }
    default:
        break;
    }
}
