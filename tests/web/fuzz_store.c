/*
 * fuzz_store.c - the fuzz targets' state store (fuzz_store.h).
 */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_store.h"

struct json_object *fuzz_state;

char *fuzz_state_get(void *ctx, struct platform *p, const char *key)
{
    (void)ctx;
    (void)p;
    struct json_object *v;
    if (!json_object_object_get_ex(fuzz_state, key, &v))
        return NULL;
    return strdup(json_object_get_string(v));
}

int fuzz_state_set(void *ctx, struct platform *p, const char *key, const char *value)
{
    (void)ctx;
    (void)p;
    return json_object_object_add(fuzz_state, key, json_object_new_string(value));
}

int fuzz_state_del(void *ctx, struct platform *p, const char *key)
{
    (void)ctx;
    (void)p;
    json_object_object_del(fuzz_state, key);
    return 0;
}
