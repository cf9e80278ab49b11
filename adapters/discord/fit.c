/*
 * fit.c - texts measured as Discord counts them, and cut to fit (fit.h).
 */
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "adapters/common/jsonw.h"
#include "fit.h"

#define ELLIPSIS "\xE2\x80\xA6" /* U+2026, one character */

/* The bytes of the sequence s starts: a byte that starts none is one (and
 * one character: the body writer makes it U+FFFD). */
static size_t seq_len(const unsigned char *s)
{
    size_t n = jw_utf8_len(s, SIZE_MAX);
    return n ? n : 1;
}

size_t dc_chars_n(const char *s, size_t bytes)
{
    size_t n = 0;
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < bytes && p[i];) {
        size_t len = seq_len(p + i);
        n += len == 4 ? 2 : 1; /* beyond the BMP: a surrogate pair */
        i += len;
    }
    return n;
}

size_t dc_chars(const char *s)
{
    return dc_chars_n(s, SIZE_MAX);
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

size_t dc_fit_cut(const char *s, size_t max, bool *cut)
{
    size_t keep = dc_fit(s, max);
    *cut = s[keep] != '\0';
    return *cut ? dc_fit(s, max - 1) : keep;
}

size_t dc_fit_write(struct jw *w, const char *s, size_t max)
{
    bool cut;
    size_t keep = dc_fit_cut(s, max, &cut);
    jw_str_open(w);
    jw_str_add(w, s, keep);
    if (cut)
        jw_str_add(w, ELLIPSIS, sizeof ELLIPSIS - 1);
    jw_str_close(w);
    return dc_chars_n(s, keep) + cut;
}

struct json_object *dc_fit_json(const char *s, size_t max)
{
    bool cut;
    size_t keep = dc_fit_cut(s, max, &cut);
    if (!cut)
        return json_object_new_string(s);
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
