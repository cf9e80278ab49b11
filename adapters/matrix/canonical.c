/*
 * canonical.c - Matrix canonical JSON, and signing and checking signed JSON
 * objects with it (device keys, one-time keys).
 *
 * Canonical JSON is what both ends sign: object keys sorted by code point,
 * no insignificant whitespace, strings in UTF-8 with only '"', '\\' and the
 * control characters escaped (the two-letter escapes where JSON has them,
 * \u00xx otherwise), integers only.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bot/util/buf.h"
#include "crypto.h"
#include "mx.h"

#define CANONICAL_MAX  (1u << 20) /* a signed object is a device's keys: far less */
#define CANONICAL_DEEP 32         /* nesting deeper than this is refused */

static int put_string(struct buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    if (buf_append(b, "\"", 1) < 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        const char *esc = c == '"'    ? "\\\""
                          : c == '\\' ? "\\\\"
                          : c == '\b' ? "\\b"
                          : c == '\f' ? "\\f"
                          : c == '\n' ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t"
                                      : NULL;
        char u[7];
        if (!esc && c < 0x20) {
            snprintf(u, sizeof u, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
            esc = u;
        }
        if (esc ? buf_puts(b, esc) < 0 : buf_append(b, s + i, 1) < 0)
            return -1;
    }
    return buf_append(b, "\"", 1);
}

static int by_bytes(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int put_value(struct buf *b, struct json_object *v, int depth);

static int put_object(struct buf *b, struct json_object *o, int depth)
{
    size_t n = (size_t)json_object_object_length(o), k = 0;
    const char **keys = calloc(n ? n : 1, sizeof *keys);
    if (!keys)
        return -1;
    json_object_object_foreach(o, key, val)
    {
        (void)val;
        keys[k++] = key;
    }
    qsort(keys, n, sizeof *keys, by_bytes);
    int rc = buf_append(b, "{", 1);
    for (size_t i = 0; rc == 0 && i < n; i++) {
        struct json_object *member = NULL;
        json_object_object_get_ex(o, keys[i], &member);
        rc = (i && buf_append(b, ",", 1) < 0) || put_string(b, keys[i], strlen(keys[i])) < 0 ||
                     buf_append(b, ":", 1) < 0 || put_value(b, member, depth + 1) < 0
                 ? -1
                 : 0;
    }
    free(keys);
    return rc == 0 ? buf_append(b, "}", 1) : -1;
}

static int put_value(struct buf *b, struct json_object *v, int depth)
{
    if (depth > CANONICAL_DEEP)
        return -1;
    switch (json_object_get_type(v)) {
    case json_type_null:
        return buf_puts(b, "null");
    case json_type_boolean:
        return buf_puts(b, json_object_get_boolean(v) ? "true" : "false");
    case json_type_int:
        return buf_printf(b, "%" PRId64, json_object_get_int64(v));
    case json_type_string:
        return put_string(b, json_object_get_string(v), (size_t)json_object_get_string_len(v));
    case json_type_object:
        return put_object(b, v, depth);
    case json_type_array:
        if (buf_append(b, "[", 1) < 0)
            return -1;
        for (size_t i = 0; i < json_object_array_length(v); i++)
            if ((i && buf_append(b, ",", 1) < 0) ||
                put_value(b, json_object_array_get_idx(v, i), depth + 1) < 0)
                return -1;
        return buf_append(b, "]", 1);
    case json_type_double: /* canonical JSON has integers only */
    default:
        return -1;
    }
}

char *mx_canonical_json(struct json_object *v)
{
    struct buf b;
    buf_init(&b, CANONICAL_MAX);
    if (put_value(&b, v, 0) < 0) {
        buf_free(&b);
        return NULL;
    }
    return buf_take(&b);
}

/* The canonical text of o without its "signatures" and "unsigned", which a signature leaves out. */
static char *signable(struct json_object *o)
{
    struct json_object *copy =
        json_object_is_type(o, json_type_object) ? json_object_new_object() : NULL;
    if (!copy)
        return NULL;
    json_object_object_foreach(o, k, v)
    {
        if (strcmp(k, "signatures") != 0 && strcmp(k, "unsigned") != 0)
            json_object_object_add(copy, k, json_object_get(v));
    }
    char *text = mx_canonical_json(copy);
    json_object_put(copy);
    return text;
}

int mx_sign_json(struct mxc_account *a, const char *user, const char *device, struct json_object *o)
{
    char *text = signable(o);
    char *sig = text ? mxc_account_sign(a, text, strlen(text)) : NULL;
    free(text);
    if (!sig)
        return -1;
    char key_id[256];
    snprintf(key_id, sizeof key_id, "ed25519:%s", device);
    struct json_object *sigs = jget_obj(o, "signatures");
    if (!sigs) {
        sigs = json_object_new_object();
        json_object_object_add(o, "signatures", sigs);
    }
    struct json_object *mine = jget_obj(sigs, user);
    if (!mine) {
        mine = json_object_new_object();
        json_object_object_add(sigs, user, mine);
    }
    json_object_object_add(mine, key_id, json_object_new_string(sig));
    free(sig);
    return 0;
}

bool mx_verify_json(struct json_object *o, const char *user, const char *key_id,
                    const char *ed25519)
{
    const char *sig = jget_str(jget_obj(jget_obj(o, "signatures"), user), key_id);
    if (!sig || !ed25519)
        return false;
    char *text = signable(o);
    bool ok = text && mxc_ed25519_verify(ed25519, text, strlen(text), sig);
    free(text);
    return ok;
}
