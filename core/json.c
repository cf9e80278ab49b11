/*
 * json.c - typed getters over json-c; each checks every type it relies on.
 */
#include <string.h>

#include "json.h"

struct json_object *jget(const struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    if (!o || !json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
        return NULL;
    return v;
}

struct json_object *jget_type(const struct json_object *o, const char *key, json_type t)
{
    struct json_object *v = jget(o, key);
    return v && json_object_is_type(v, t) ? v : NULL;
}

const char *jget_str(const struct json_object *o, const char *key)
{
    struct json_object *v = jget_type(o, key, json_type_string);
    return v ? json_object_get_string(v) : NULL;
}

bool jget_str_into(const struct json_object *o, const char *key, char *dst, size_t len)
{
    const char *s = jget_str(o, key);
    size_t n = s ? strlen(s) : 0;
    if (!s || n >= len)
        return false;
    memcpy(dst, s, n + 1);
    return true;
}

struct json_object *jget_obj(const struct json_object *o, const char *key)
{
    return jget_type(o, key, json_type_object);
}

struct json_object *jget_arr(const struct json_object *o, const char *key)
{
    return jget_type(o, key, json_type_array);
}

int jget_int64(const struct json_object *o, const char *key, int64_t *out)
{
    struct json_object *v = jget_type(o, key, json_type_int);
    if (!v)
        return -1;
    *out = json_object_get_int64(v);
    return 0;
}

int64_t jget_int64_or(const struct json_object *o, const char *key, int64_t def)
{
    int64_t v;
    return jget_int64(o, key, &v) == 0 ? v : def;
}

int jget_double(const struct json_object *o, const char *key, double *out)
{
    struct json_object *v = jget(o, key);
    if (!v || !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
        return -1;
    *out = json_object_get_double(v);
    return 0;
}

int jget_bool(const struct json_object *o, const char *key, bool *out)
{
    struct json_object *v = jget_type(o, key, json_type_boolean);
    if (!v)
        return -1;
    *out = json_object_get_boolean(v);
    return 0;
}

bool jget_true(const struct json_object *o, const char *key)
{
    bool v;
    return jget_bool(o, key, &v) == 0 && v;
}

struct json_object *jobj(struct json_object *o)
{
    return o && json_object_is_type(o, json_type_object) ? o : NULL;
}

size_t jarr_len(const struct json_object *arr)
{
    return arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;
}

struct json_object *jarr_at(const struct json_object *arr, size_t i)
{
    return i < jarr_len(arr) ? json_object_array_get_idx(arr, i) : NULL;
}

const char *jarr_str(const struct json_object *arr, size_t i)
{
    struct json_object *v = jarr_at(arr, i);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

bool jget_range(const struct json_object *o, const char *key, int64_t min, int64_t max,
                int64_t *out)
{
    int64_t x;
    if (jget_int64(o, key, &x) < 0 || x < min || x > max)
        return false;
    *out = x;
    return true;
}

bool jget_u8(const struct json_object *o, const char *key, unsigned max, uint8_t *out)
{
    int64_t x;
    if (!jget_range(o, key, 0, max > UINT8_MAX ? UINT8_MAX : max, &x))
        return false;
    *out = (uint8_t)x;
    return true;
}

bool jget_counts(const struct json_object *o, const char *key, int (*parse)(const char *),
                 unsigned count, unsigned max, uint8_t *n)
{
    struct json_object *v = jget_obj(o, key);
    if (!v)
        return false;
    /* Walking the few keys a hand has costs less than looking up every id. */
    memset(n, 0, count);
    json_object_object_foreach(v, id, value)
    {
        int i = parse(id);
        (void)value;
        if (i < 0 || (unsigned)i >= count || !jget_u8(v, id, max, &n[i]) || n[i] == 0)
            return false;
    }
    return true;
}

struct json_object *jnew_obj(bool *oom)
{
    struct json_object *o = json_object_new_object();
    *oom |= !o;
    return o;
}

struct json_object *jnew_arr(bool *oom)
{
    struct json_object *a = json_object_new_array();
    *oom |= !a;
    return a;
}

void jput(struct json_object *obj, const char *key, struct json_object *val, bool *oom)
{
    if (!val || json_object_object_add(obj, key, val) != 0) {
        json_object_put(val);
        *oom = true;
    }
}

void jpush(struct json_object *arr, struct json_object *val, bool *oom)
{
    if (!val || json_object_array_add(arr, val) != 0) {
        json_object_put(val);
        *oom = true;
    }
}

struct json_object *jcounts(const uint8_t *n, unsigned count, const char *(*id)(unsigned),
                            bool *oom)
{
    struct json_object *o = jnew_obj(oom);
    for (unsigned i = 0; o && i < count; i++)
        if (n[i])
            jput(o, id(i), json_object_new_int(n[i]), oom);
    return o;
}
