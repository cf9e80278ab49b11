/*
 * answer_check.c - dc_answer_id() against json-c (answer_check.h).
 */
#include <string.h>

#include <json-c/json.h>

#include "adapters/discord/answer.h"
#include "answer_check.h"

bool answer_check(const char *body, char id[24])
{
    id[0] = '\0';
    if (dc_answer_id(body, id, 24) < 0) {
        id[0] = '\0';
        return true; /* it gave up: json-c reads it, whatever it is */
    }
    struct json_object *o = json_tokener_parse(body), *v = NULL;
    bool same =
        json_object_is_type(o, json_type_object) && json_object_object_get_ex(o, "id", &v) &&
        json_object_is_type(v, json_type_string) && strcmp(json_object_get_string(v), id) == 0;
    json_object_put(o);
    return same;
}
