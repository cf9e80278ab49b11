/*
 * outbox.c - a message as the store's outbox keeps it, and the messages a
 * crash left there, sent again at start.
 *
 * A stored message is a JSON object: "kind", "channel" or "user", "key",
 * "replace", "text", "data", and its "cause" reduced to what an adapter
 * reads of it after a restart ("type", "channel", "user", "order"; an
 * interaction's token does not outlive the process, so answers to one are
 * never stored).
 */
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json.h"
#include "dispatch.h"
#include "log.h"
#include "store.h"

static void add_str(struct json_object *o, const char *k, const char *v)
{
    if (v)
        json_object_object_add(o, k, json_object_new_string(v));
}

char *outbox_encode(const struct outbound *m)
{
    struct json_object *o = json_object_new_object();
    if (!o)
        return NULL;
    add_str(o, "kind", msg_kind_name(m->kind));
    add_str(o, "channel", m->channel);
    add_str(o, "user", m->user);
    add_str(o, "key", m->key);
    if (m->replace)
        json_object_object_add(o, "replace", json_object_new_boolean(1));
    add_str(o, "text", m->text);
    if (m->data)
        json_object_object_add(o, "data", json_object_get((struct json_object *)m->data));
    const struct inbound *c = m->cause;
    if (c) {
        struct json_object *cause = json_object_new_object();
        char order[24];
        snprintf(order, sizeof order, "%" PRIu64, c->order);
        add_str(cause, "type",
                c->type == INBOUND_MESSAGE   ? "message"
                : c->type == INBOUND_COMMAND ? "command"
                                             : "reaction");
        add_str(cause, "channel", c->channel);
        add_str(cause, "user", c->user);
        add_str(cause, "order", order);
        json_object_object_add(o, "cause", cause);
    }
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    char *copy = text ? strdup(text) : NULL;
    json_object_put(o);
    return copy;
}

/* A stored message read back; every string points into root. */
struct decoded {
    struct json_object *root;
    struct outbound m;
    struct inbound cause;
    struct msg_key key_parts;
};

static int decode(const char *text, struct decoded *out)
{
    memset(out, 0, sizeof *out);
    out->root = json_tokener_parse(text);
    struct json_object *o = out->root;
    struct outbound *m = &out->m;
    if (!json_object_is_type(o, json_type_object) ||
        msg_kind_parse(jget_str(o, "kind"), &m->kind) < 0)
        return -1;
    m->channel = jget_str(o, "channel");
    m->user = jget_str(o, "user");
    m->key = jget_str(o, "key");
    m->replace = jget_true(o, "replace");
    m->text = jget_str(o, "text");
    m->data = jget_obj(o, "data");
    if (!m->text || !m->channel == !m->user)
        return -1;
    if (m->key) {
        if (msg_key_parse(m->key, &out->key_parts) < 0)
            return -1;
        m->key_parts = &out->key_parts;
    }
    struct json_object *c = jget_obj(o, "cause");
    if (c) {
        const char *type = jget_str(c, "type"), *order = jget_str(c, "order");
        out->cause.type = type && strcmp(type, "message") == 0   ? INBOUND_MESSAGE
                          : type && strcmp(type, "command") == 0 ? INBOUND_COMMAND
                                                                 : INBOUND_REACTION;
        out->cause.channel = jget_str(c, "channel");
        out->cause.user = jget_str(c, "user");
        out->cause.order = order ? strtoull(order, NULL, 10) : 0;
        if (!out->cause.user)
            return -1;
        m->cause = &out->cause;
    }
    return 0;
}

struct replay {
    struct dispatcher *d;
    struct platform *p;
    unsigned sent, bad;
};

static int replay_one(void *arg, int64_t id, const char *text)
{
    struct replay *r = arg;
    struct decoded x;
    if (decode(text, &x) < 0) {
        /* a row this daemon cannot read would be tried at every start */
        log_error("dispatch", NULL, "outbox message %" PRId64 " is unreadable; dropped", id);
        r->bad++;
        if (store_outbox_sent(r->d->store, id) < 0)
            log_error("dispatch", NULL, "out of memory");
    } else {
        x.m.outbox_id = id;
        if (r->p->ops->send(r->p, &x.m) < 0)
            log_warn("dispatch", NULL, "%s could not queue outbox message %" PRId64,
                     r->p->ops->name, id);
        else
            r->sent++;
    }
    json_object_put(x.root);
    return 0;
}

int outbox_replay(struct dispatcher *d, struct platform *p)
{
    struct replay r = {d, p, 0, 0};
    if (store_outbox_each(d->store, p->ops->name, replay_one, &r) < 0)
        return -1;
    if (r.sent || r.bad)
        log_info("dispatch", NULL, "%s: %u messages committed before the restart sent again",
                 p->ops->name, r.sent);
    return 0;
}
