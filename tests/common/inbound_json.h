/*
 * inbound_json.h - what an adapter delivered, as JSON, for adapter tests.
 */
#ifndef TESTS_INBOUND_JSON_H
#define TESTS_INBOUND_JSON_H

#include "bot/platform.h"

/* A new object with every field of in that is set ("type" is "message",
 * "command" or "reaction"; "key" is msg_key). The caller owns it. */
struct json_object *inbound_to_json(const struct inbound *in);

#endif
