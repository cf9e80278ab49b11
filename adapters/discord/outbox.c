/*
 * outbox.c - REST operations: per-channel queues, DM channels, requests and
 * their answers.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "bot/log.h"
#include "answer.h"
#include "internal.h"

int dc_api_code(const char *body)
{
    struct json_object *o = json_tokener_parse(body);
    int code = (int)jget_int64_or(o, "code", 0);
    json_object_put(o);
    return code;
}

/* How much of an error answer a log line carries: a log line holds 1024 bytes. */
#define ERROR_TEXT_MAX 900

/* Appends Discord's field errors under o ({"field":{"_errors":[{code,message}]}}) as
 * "path: CODE message; " to b, as many as fit (b is capped at ERROR_TEXT_MAX).
 * Returns 0, or -1 once b is full: the rest is left out. */
static int field_errors(struct buf *b, struct json_object *o, const char *path, unsigned depth)
{
    if (!jobj(o) || depth > 8)
        return 0;
    json_object_object_foreach(o, k, v)
    {
        if (strcmp(k, "_errors") == 0) {
            for (size_t i = 0; i < jarr_len(v); i++) {
                struct json_object *e = jarr_at(v, i);
                const char *code = jget_str(e, "code"), *msg = jget_str(e, "message");
                if (buf_printf(b, "%s%s: %s %s", b->len ? "; " : "", path, code ? code : "?",
                               msg ? msg : "") < 0)
                    return -1;
            }
        } else {
            struct buf sub;
            buf_init(&sub, ERROR_TEXT_MAX);
            int rc = buf_printf(&sub, "%s%s%s", path, *path ? "." : "", k);
            if (rc == 0)
                rc = field_errors(b, v, sub.data, depth + 1);
            buf_free(&sub);
            if (rc < 0)
                return -1;
        }
    }
    return 0;
}

/*
 * Logs a refused request once, with all Discord said: its code and message and
 * every field error, or the raw body (one line) when it is not JSON, cut at
 * ERROR_TEXT_MAX bytes.
 */
void dc_log_http_error(const char *what, const char *target, long status, const char *body)
{
    struct json_object *o = json_tokener_parse(body);
    struct buf fields;
    buf_init(&fields, ERROR_TEXT_MAX);
    char text[ERROR_TEXT_MAX + 1];
    if (jobj(o)) {
        const char *msg = jget_str(o, "message");
        /* -1: the errors that did not fit are left out, as the line has room for so much */
        field_errors(&fields, jget_obj(o, "errors"), "", 0);
        snprintf(text, sizeof(text), "code %lld, %s%s%s", (long long)jget_int64_or(o, "code", 0),
                 msg ? msg : "no message", fields.len ? ": " : "", fields.len ? fields.data : "");
    } else {
        size_t n = 0;
        for (const char *c = body; *c && n < ERROR_TEXT_MAX; c++)
            text[n++] = (unsigned char)*c < 0x20 ? ' ' : *c;
        text[n] = '\0';
    }
    log_error(DC_MOD, NULL, "%s %s failed: HTTP %ld, %s", what, target ? target : "", status, text);
    buf_free(&fields);
    json_object_put(o);
}

static int op_prepare(struct rest_req *r, void *ud);
static void op_done(struct rest_req *r, long status, const char *body, void *ud);

int dc_rest(struct dc *dc, struct dc_op *op, const char *queue, const char *method,
            const char *path, unsigned flags)
{
    return dc_rest_until(dc, op, queue, method, path, flags, 0);
}

int dc_rest_until(struct dc *dc, struct dc_op *op, const char *queue, const char *method,
                  const char *path, unsigned flags, uint64_t deadline)
{
    if (rest_enqueue_until(dc->rest, queue, method, path, op->body, flags, deadline, op_prepare,
                           op_done, op) < 0) {
        log_error(DC_MOD, NULL, "no memory to queue %s %s; dropped", method, path);
        dc_op_free(op);
        return -1;
    }
    return 0;
}

/* a, b and c joined into out, cut to len bytes with its NUL as snprintf
 * would cut them: snprintf cost 700 instructions a call, two a message. */
static void join3(char *out, size_t len, const char *a, const char *b, const char *c)
{
    const char *const parts[] = {a, b, c};
    size_t o = 0;
    for (size_t i = 0; i < 3; i++) {
        size_t n = strlen(parts[i]);
        if (n > len - 1 - o)
            n = len - 1 - o;
        memcpy(out + o, parts[i], n);
        o += n;
    }
    out[o] = '\0';
}

static void channel_queue(const char *channel, char *q, size_t len)
{
    join3(q, len, "c:", channel, "");
}

/* Queues op (POST, EDIT or REACT) on its channel. */
int dc_queue_on_channel(struct dc *dc, struct dc_op *op)
{
    char q[96], path[160];
    if (!op->channel) { /* its copy failed for want of memory */
        log_error(DC_MOD, NULL, "no memory for a message's channel; dropped");
        dc->st.lost++;
        dc_op_free(op);
        return -1;
    }
    channel_queue(op->channel, q, sizeof(q));
    join3(path, sizeof(path), "/channels/", op->channel, "/messages");
    const char *method = op->type == DC_OP_REACT ? "PUT" : "POST";
    return dc_rest(dc, op, q, method, path, 0);
}

void dc_create_dm(struct dc *dc, const char *user_id, struct dc_user *u)
{
    if (u->creating || u->dm_channel)
        return;
    struct dc_op *op = dc_op_new(dc, DC_OP_DM_CREATE);
    if (!op)
        return;
    op->user = dc_xstrdup(user_id);
    struct json_object *b = json_object_new_object();
    json_object_object_add(b, "recipient_id", json_object_new_string(user_id));
    op->body = dc_xstrdup(json_object_to_json_string_ext(b, JSON_C_TO_STRING_PLAIN));
    json_object_put(b);
    if (!op->user || !op->body) {
        log_error(DC_MOD, NULL, "no memory to open a DM channel");
        dc_op_free(op);
        return;
    }
    char q[96];
    snprintf(q, sizeof(q), "u:%s", user_id);
    u->creating = true;
    if (dc_rest(dc, op, q, "POST", "/users/@me/channels", 0) < 0)
        u->creating = false;
}

/* Sends op to a user's DM channel, creating it first when needed. */
int dc_queue_on_dm(struct dc *dc, const char *user_id, struct dc_op *op)
{
    struct dc_user *u = dc_user_get(dc, user_id);
    if (!u) {
        dc_op_free(op);
        return -1;
    }
    if (u->unreachable && clock_mono_ms() < u->unreachable_at + DM_REFUSED_HOLD_MS) {
        dc->st.lost++;
        dc_delivery_answered(dc, op, false); /* refused for good, as Discord just said */
        dc_op_free(op);
        return 0;
    }
    if (u->dm_channel) {
        op->channel = dc_xstrdup(u->dm_channel);
        return dc_queue_on_channel(dc, op);
    }
    struct dc_pending *p = calloc(1, sizeof(*p));
    if (!p) {
        dc_op_free(op);
        return -1;
    }
    p->op = op;
    STAILQ_INSERT_TAIL(&u->pending, p, link);
    dc_create_dm(dc, user_id, u);
    return 0;
}

static void url_encode(const char *s, char *out, size_t len)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    for (; *s && o + 4 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~' || c == ':') {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hex[c >> 4];
            out[o++] = hex[c & 15];
        }
    }
    out[o] = '\0';
}

static int op_prepare(struct rest_req *r, void *ud)
{
    struct dc_op *op = ud;
    struct dc *dc = op->dc;
    char path[512];
    if (op->type == DC_OP_IX)
        return dc_ix_prepare(dc, op);
    if (op->type == DC_OP_EDIT) {
        struct dc_msg *m = map_get(&dc->msgs, op->key);
        if (m && m->id && m->channel && strcmp(m->channel, op->channel) == 0) {
            snprintf(path, sizeof(path), "/channels/%s/messages/%s", op->channel, m->id);
            return rest_req_set(r, "PATCH", path, op->body);
        }
        join3(path, sizeof(path), "/channels/", op->channel, "/messages");
        return rest_req_set(r, "POST", path, op->post_body ? op->post_body : op->body);
    } else if (op->type == DC_OP_CLOSE) {
        /* the message may have been forgotten (the game ended) since the op
         * was queued: then the id noted then is used */
        struct dc_msg *m = op->replaced ? NULL : map_get(&dc->msgs, op->key);
        const char *id = m && m->id ? m->id : op->msg_id;
        const char *channel = m && m->id && m->channel ? m->channel : op->channel;
        if (!id || !channel)
            return 1;
        snprintf(path, sizeof(path), "/channels/%s/messages/%s", channel, id);
        return rest_req_set(r, "PATCH", path, op->body);
    } else if (op->type == DC_OP_REACT) {
        struct dc_msg *m = map_get(&dc->msgs, op->key);
        if (!m || !m->id)
            return 1;
        char emoji[128];
        url_encode(op->emoji, emoji, sizeof(emoji));
        snprintf(path, sizeof(path), "/channels/%s/messages/%s/reactions/%s/@me", m->channel, m->id,
                 emoji);
        return rest_req_set(r, "PUT", path, NULL);
    }
    return 0;
}

static void flush_pending(struct dc *dc, struct dc_user *u, bool ok)
{
    struct dc_pending *p;
    while ((p = STAILQ_FIRST(&u->pending))) {
        STAILQ_REMOVE_HEAD(&u->pending, link);
        if (ok) {
            p->op->channel = dc_xstrdup(u->dm_channel);
            dc_queue_on_channel(dc, p->op);
        } else {
            dc->st.lost++;
            dc_delivery_answered(dc, p->op, false); /* no DM channel: it can never be sent */
            dc_op_free(p->op);
        }
        free(p);
    }
}

void dc_report_probe(struct dc *dc, const char *user, bool reachable)
{
    if (!dc->stopping && dc->base.host->dm_result)
        dc->base.host->dm_result(dc->base.host->ctx, &dc->base, user, reachable);
}

/* Discord refused a DM to user (50007, or no DM channel): remember it and
 * tell the bot. */
void dc_dm_refused(struct dc *dc, const char *user, long status, int code)
{
    struct dc_user *u = dc_user_get(dc, user);
    dc->st.dm_unreachable++;
    if (code == ERR_CANNOT_DM)
        log_warn(DC_MOD, NULL, "cannot DM user %s (50007): their DMs are closed", user);
    else
        log_warn(DC_MOD, NULL, "cannot open a DM with user %s: HTTP %ld, code %d", user, status,
                 code);
    if (u) {
        u->reachable = false;
        u->unreachable = true;
        u->unreachable_at = clock_mono_ms();
        u->probing = false;
    }
    dc_report_probe(dc, user, false);
}

/* Notes which Discord message now carries op's key. A message without a key
 * is never referred to again: its answer is not even parsed. The id is read
 * from the answer without parsing all of it when it can be (answer.h). */
static void posted(struct dc *dc, struct dc_op *op, const char *body)
{
    if (!op->key)
        return;
    char digits[ANSWER_ID_MAX + 1];
    struct json_object *o = NULL;
    const char *id = digits;
    if (dc_answer_id(body, digits, sizeof digits) < 0)
        id = jget_str(o = json_tokener_parse(body), "id");
    if (id) {
        struct dc_msg *m = dc_msg_get(dc, op->key, op->channel);
        if (m) {
            free(m->id);
            m->id = dc_xstrdup(id);
            m->outbox_id = op->outbox_id;
            free(m->replaced); /* the message it replaces is closed, or closing */
            m->replaced = NULL;
            if (!m->channel || strcmp(m->channel, op->channel) != 0) {
                free(m->channel);
                m->channel = dc_xstrdup(op->channel);
            }
            char *k = dc_xstrdup(op->key);
            void *old = NULL;
            if (k && map_put(&dc->msg_ids, id, k, &old) == 0)
                free(old);
            else
                free(k);
            dc_msg_persist(dc, op->key, op->channel, id, op->outbox_id);
        }
    }
    json_object_put(o);
}

/* A post or edit Discord took: its message noted, its user reachable. */
static void message_taken(struct dc *dc, struct dc_op *op, const char *method, const char *body)
{
    if (strcmp(method, "PATCH") == 0) {
        dc->st.edited++;
    } else {
        dc->st.sent++;
        posted(dc, op, body);
    }
    struct dc_user *u = op->user ? dc_user_get(dc, op->user) : NULL;
    if (u) {
        u->reachable = true;
        u->unreachable = false;
    }
}

/* The message op edits was deleted: op goes again, first in its channel's
 * queue, as a new message (op_prepare posts an edit without an id). */
static void post_again(struct dc *dc, struct dc_op *op)
{
    struct dc_msg *m = map_get(&dc->msgs, op->key);
    if (m) {
        free(m->id);
        m->id = NULL;
    }
    char q[96];
    channel_queue(op->channel, q, sizeof(q));
    if (dc_rest(dc, op, q, "POST", "/", REST_FRONT) < 0)
        dc->st.lost++;
}

/* A post or edit Discord refused: a DM it cannot deliver tells the bot. */
static void message_refused(struct dc *dc, struct dc_op *op, const char *method, long status,
                            const char *body)
{
    int code = dc_api_code(body);
    if (code == ERR_CANNOT_DM && op->user) {
        dc_dm_refused(dc, op->user, status, code);
    } else {
        char target[96];
        snprintf(target, sizeof(target), "to channel %s", op->channel ? op->channel : "?");
        dc_log_http_error(method, target, status, body);
    }
    dc->st.lost++;
}

/* A post or edit answered. Returns false when op went again (post_again)
 * and is no longer the caller's. */
static bool message_done(struct dc *dc, struct dc_op *op, const char *method, long status,
                         const char *body)
{
    if (status >= 200 && status < 300) {
        message_taken(dc, op, method, body);
    } else if (status == 404 && strcmp(method, "PATCH") == 0 &&
               dc_api_code(body) == UNKNOWN_MESSAGE) {
        post_again(dc, op);
        return false;
    } else {
        message_refused(dc, op, method, status, body);
    }
    return true;
}

/* A DM channel opened, or refused: what waited for it goes, or is given up. */
static void dm_channel_done(struct dc *dc, struct dc_op *op, long status, const char *body)
{
    struct dc_user *u = dc_user_get(dc, op->user);
    if (!u)
        return;
    u->creating = false;
    struct json_object *o = json_tokener_parse(body);
    const char *id = status >= 200 && status < 300 ? jget_str(o, "id") : NULL;
    if (id) {
        free(u->dm_channel);
        u->dm_channel = dc_xstrdup(id);
        char *uid = dc_xstrdup(op->user);
        void *old = NULL;
        if (uid && map_put(&dc->dm_users, id, uid, &old) == 0)
            free(old);
        else
            free(uid);
        if (u->probing) {
            /* the channel exists: the first real DM will tell for sure */
            u->probing = false;
            dc_report_probe(dc, op->user, true);
        }
        flush_pending(dc, u, true);
    } else if (status > 0) {
        flush_pending(dc, u, false);
        dc_dm_refused(dc, op->user, status, dc_api_code(body));
    }
    json_object_put(o);
}

/* What is left to note of an answer to anything but a post or an edit. */
static void other_done(struct dc *dc, struct dc_op *op, long status, const char *body)
{
    bool ok = status >= 200 && status < 300;
    switch (op->type) {
    case DC_OP_REACT:
        if (ok)
            dc->st.reactions++;
        else if (status)
            dc_log_http_error("adding reaction", op->emoji, status, body);
        break;
    case DC_OP_DM_CREATE:
        dm_channel_done(dc, op, status, body);
        break;
    case DC_OP_COMMANDS:
        dc_commands_answered(dc, op->key, status, body);
        break;
    case DC_OP_CLOSE:
        if (ok)
            dc->st.edited++;
        else if (status > 0)
            dc_log_http_error("closing the controls of", op->key, status, body);
        break;
    case DC_OP_POST:
    case DC_OP_EDIT:
    case DC_OP_IX:
    case DC_OP_GATEWAY:
        break;
    }
}

static void op_done(struct rest_req *r, long status, const char *body, void *ud)
{
    struct dc_op *op = ud;
    struct dc *dc = op->dc;
    bool message = op->type == DC_OP_POST || op->type == DC_OP_EDIT;
    if (op->type == DC_OP_IX) {
        dc_ix_answered(dc, op, status, body);
    } else if (status < 0) {
        /* cut short: its delivery stays in the outbox */
        if (message)
            dc->st.lost++;
    } else if (message && !message_done(dc, op, rest_req_method(r), status, body)) {
        return; /* queued again */
    } else {
        if (!message)
            other_done(dc, op, status, body);
        dc_delivery_answered(dc, op, false); /* answered, for good or ill */
    }
    dc_op_free(op);
}
