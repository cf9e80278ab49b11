/*
 * hs_push.c - notifications on the test homeserver: every new event is run
 * through each member's push rules (push.c) as Synapse does when it persists
 * an event, and what notifies is listed by GET /notifications, newest first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hs_internal.h"
#include "push.h"

#define NOTIFICATIONS_DEFAULT_LIMIT 50

static struct json_object *rules_of(struct hs *hs, const char *user)
{
    struct json_object *r = hs_jget(hs->push_rules, user);
    if (!r) {
        r = push_default_rules(user);
        json_object_object_add(hs->push_rules, user, r);
    }
    return r;
}

static void notify(struct hs *hs, const char *user, const char *room, struct json_object *ev,
                   struct json_object *actions)
{
    struct json_object *list = hs_jget(hs->notifications, user);
    if (!list) {
        list = json_object_new_array();
        json_object_object_add(hs->notifications, user, list);
    }
    struct json_object *n = json_object_new_object();
    json_object_object_add(n, "actions", json_object_get(actions));
    json_object_object_add(n, "event", json_object_get(ev));
    json_object_object_add(n, "read", json_object_new_boolean(0));
    json_object_object_add(n, "room_id", json_object_new_string(room));
    json_object_object_add(n, "ts", json_object_new_int64((int64_t)hs_now_ms()));
    json_object_array_add(list, n);
}

void hs_push_event(struct hs *hs, const char *room, struct json_object *ev, long pos)
{
    (void)pos;
    struct json_object *r = hs_room(hs, room);
    struct json_object *state = hs_jget(r, "state");
    const char *sender = hs_jstr(ev, "sender");
    /* Joined members, and the user an invite is for. */
    json_object_object_foreach(hs_iter(hs_jget(r, "members")), user, ms)
    {
        bool invited = strcmp(json_object_get_string(ms), "invite") == 0 &&
                       hs_jstr(ev, "state_key") && strcmp(hs_jstr(ev, "state_key"), user) == 0;
        if (strcmp(json_object_get_string(ms), "join") != 0 && !invited)
            continue;
        struct push_room pr;
        push_room_from_state(&pr, state, user, sender);
        struct push_result res;
        push_evaluate(rules_of(hs, user), &pr, ev, &res);
        if (res.notify)
            notify(hs, user, room, ev, res.actions);
    }
}

static bool highlights(struct json_object *actions)
{
    for (size_t i = 0; i < json_object_array_length(actions); i++) {
        struct json_object *a = json_object_array_get_idx(actions, i);
        const char *t = hs_jstr(a, "set_tweak");
        if (t && strcmp(t, "highlight") == 0)
            return !hs_jget(a, "value") || json_object_get_boolean(hs_jget(a, "value"));
    }
    return false;
}

/* GET /notifications?from=&limit=&only=highlight; tokens are positions in the user's list. */
void hs_on_notifications(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    struct json_object *list = hs_jget(hs->notifications, rq->user);
    long n = list ? (long)json_object_array_length(list) : 0;
    const char *from = hs_jstr(rq->query, "from");
    const char *lim = hs_jstr(rq->query, "limit");
    const char *only = hs_jstr(rq->query, "only");
    long start = from ? strtol(from, NULL, 10) : n;
    long limit = lim ? strtol(lim, NULL, 10) : NOTIFICATIONS_DEFAULT_LIMIT;
    if (start < 0 || start > n || limit <= 0) {
        hs_error(rs, 400, "M_INVALID_PARAM", "bad from or limit");
        return;
    }
    struct json_object *out = json_object_new_array();
    long i = start;
    while (i > 0 && (long)json_object_array_length(out) < limit) {
        struct json_object *e = json_object_array_get_idx(list, (size_t)--i);
        if (only && strcmp(only, "highlight") == 0 && !highlights(hs_jget(e, "actions")))
            continue;
        json_object_array_add(out, json_object_get(e));
    }
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "notifications", out);
    if (i > 0) {
        char t[32];
        snprintf(t, sizeof(t), "%ld", i);
        json_object_object_add(r, "next_token", json_object_new_string(t));
    }
    hs_reply(rs, 200, r);
}

void hs_on_push_rules(struct hs *hs, struct hs_req *rq, struct hs_resp *rs)
{
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "global", json_object_get(rules_of(hs, rq->user)));
    hs_reply(rs, 200, r);
}

/* ---- control ---- */

struct json_object *hs_notifications(struct hs *hs, const char *user)
{
    uv_mutex_lock(&hs->mu);
    struct json_object *list = hs_jget(hs->notifications, user);
    struct json_object *copy = NULL;
    if (list)
        json_object_deep_copy(list, &copy, NULL);
    uv_mutex_unlock(&hs->mu);
    return copy ? copy : json_object_new_array();
}

void hs_push_check(struct hs *hs, const char *user, const char *room, struct json_object *event,
                   bool *notify_out, bool *highlight_out, char *rule, size_t rule_len)
{
    uv_mutex_lock(&hs->mu);
    struct push_room pr;
    push_room_from_state(&pr, hs_jget(hs_room(hs, room), "state"), user, hs_jstr(event, "sender"));
    struct push_result res;
    push_evaluate(rules_of(hs, user), &pr, event, &res);
    *notify_out = res.notify;
    *highlight_out = res.highlight;
    if (rule && rule_len)
        snprintf(rule, rule_len, "%s", res.rule_id ? res.rule_id : "");
    uv_mutex_unlock(&hs->mu);
}
