/*
 * inbound_json.c - a recorded input, field by field.
 */
#include <json-c/json.h>
#include <stdint.h>

#include "inbound_json.h"

static void add_string(struct json_object *o, const char *key, const char *value)
{
    if (value)
        json_object_object_add(o, key, json_object_new_string(value));
}

struct json_object *inbound_to_json(const struct inbound *in)
{
    static const char *const types[] = {"message", "command", "reaction"};
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string(types[in->type]));
    add_string(o, "channel", in->channel);
    add_string(o, "user", in->user);
    add_string(o, "name", in->user_name);
    json_object_object_add(o, "moderator", json_object_new_boolean(in->moderator));
    add_string(o, "text", in->text);
    add_string(o, "key", in->msg_key);
    add_string(o, "reaction", in->reaction);
    add_string(o, "reply_to", in->reply_to);
    add_string(o, "locale", in->locale);
    json_object_object_add(o, "order", json_object_new_int64((int64_t)in->order));
    return o;
}
