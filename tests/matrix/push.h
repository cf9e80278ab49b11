/*
 * push.h - the push rules of the client-server specification, evaluated for
 * one user and one event. The test homeserver runs it on every event for
 * every member (GET /notifications); a test player runs the same code on a
 * decrypted event, as clients decide to notify in encrypted rooms.
 *
 * The rule set is the specification's server-default rules (override,
 * content, room, sender, underride), with the mention rules deprecated in
 * v1.7 (.m.rule.contains_display_name, .m.rule.contains_user_name,
 * .m.rule.roomnotif) kept as Synapse keeps them: they apply only to events
 * without an m.mentions property.
 */
#ifndef TESTS_MATRIX_PUSH_H
#define TESTS_MATRIX_PUSH_H

#include <stdbool.h>

#include <json-c/json.h>

/* What the conditions read about the room, for the user whose rules run. */
struct push_room {
    const char *user_id;
    const char *display_name; /* the user's in this room, or NULL */
    int member_count;         /* joined members */
    int sender_power;         /* the event sender's power level */
    int room_notif_power;     /* power level needed for @room ("notifications.room") */
};

struct push_result {
    bool notify;
    bool highlight;
    const char *rule_id;         /* the rule that matched, or NULL; points into the rule set */
    struct json_object *actions; /* its actions (a reference into the rule set), or NULL */
};

/* The default rule set for user_id, as GET /pushrules/ shows it under "global" (new object,
 * the caller owns it). */
struct json_object *push_default_rules(const char *user_id);

/* Runs rules (a rule set as above) on event (a client event: type, sender, content,
 * state_key...). The first matching enabled rule in kind order decides; none matching, or
 * the user being the sender, means no notification. */
void push_evaluate(struct json_object *rules, const struct push_room *room,
                   struct json_object *event, struct push_result *out);

/* Fills room from a room's current state ("type|state_key" -> event, as the test homeserver
 * keeps it) for user and the sender of an event. Strings point into state. */
void push_room_from_state(struct push_room *room, struct json_object *state, const char *user,
                          const char *sender);

#endif
