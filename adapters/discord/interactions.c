/*
 * interactions.c - slash commands, buttons and select menus, and their answers.
 *
 * Every interaction becomes canonical command text delivered as
 * INBOUND_COMMAND with reply_to "ix:<id>" (a press is read in components.c).
 * Replies the bot makes during deliver() become the initial response (type
 * 4, ephemeral); with none the interaction is deferred (type 5 for commands,
 * 6 for components) at once, and later replies edit the deferred response or
 * follow up. Discord takes a first answer only within 3 s of the interaction:
 * it is retried until then, no longer, and if it never got through, what was
 * meant for the interaction goes to the user's DMs as a plain message.
 * Autocomplete answers with what the bot completes from the game itself
 * (platform_host.complete): the adapter keeps nothing of what it sent.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "bot/log.h"
#include "internal.h"

enum {
    IX_PING = 1,
    IX_COMMAND = 2,
    IX_COMPONENT = 3,
    IX_AUTOCOMPLETE = 4,
};

enum {
    CB_MESSAGE = 4,
    CB_DEFERRED_MESSAGE = 5,
    CB_DEFERRED_UPDATE = 6,
    CB_AUTOCOMPLETE = 8,
};

#define IX_FALLBACK_MS 3000u               /* a deferred command says "done" after this */
#define IX_WINDOW_MS   3000u               /* Discord takes a first answer this long */
#define IX_LIFETIME_MS (15u * 60u * 1000u) /* and the token this long */

void dc_ix_free(void *p)
{
    struct dc_ixn *x = p;
    free(x->id);
    free(x->token);
    free(x->app_id);
    free(x->user);
    for (size_t i = 0; i < x->ncaptured; i++)
        free(x->captured[i]);
    free(x->captured);
    free(x);
}

/* Queues an interaction request with body (a string it takes; NULL: none). */
static void ix_request(struct dc *dc, struct dc_ixn *x, const char *method, const char *path,
                       char *body, unsigned flags, enum dc_ix_step step)
{
    struct dc_op *op = dc_op_new(dc, DC_OP_IX);
    if (!op) {
        free(body);
        return;
    }
    char q[96];
    snprintf(q, sizeof(q), "ix:%s", x->id);
    op->ix = strdup(q);
    op->step = step;
    op->body = body;
    if (!op->ix) {
        log_error(DC_MOD, NULL, "no memory to answer an interaction");
        dc_op_free(op);
        return;
    }
    uint64_t until = x->created + (step == DC_IX_CALLBACK ? IX_WINDOW_MS : IX_LIFETIME_MS);
    dc_rest_until(dc, op, q, method, path, flags, until);
}

/* req (a request's buffer) made, or else the error said: nothing half made goes. */
static bool made(const struct dc_ixn *x, int rc)
{
    if (rc < 0)
        log_error(DC_MOD, NULL,
                  "interaction %s: its answer passes %u bytes or found no memory; not sent", x->id,
                  DC_BODY_MAX);
    return rc == 0;
}

/* The first answer to x: req, a callback's whole body, taken. */
static void ix_send_callback(struct dc *dc, struct dc_ixn *x, char *req)
{
    char path[256];
    snprintf(path, sizeof(path), "/interactions/%s/%s/callback", x->id, x->token);
    ix_request(dc, x, "POST", path, req, REST_NO_GLOBAL, DC_IX_CALLBACK);
    x->answered = true;
}

/* The first answer to x, of callback type type: data (len bytes, a JSON
 * object's text) as its data, or none when NULL. */
static void ix_callback(struct dc *dc, struct dc_ixn *x, int type, const char *data, size_t len)
{
    struct buf req;
    buf_init(&req, DC_BODY_MAX);
    if (made(x, ixb_wrap(&req, type, data, len)))
        ix_send_callback(dc, x, buf_take(&req));
    else
        x->answered = true; /* nothing to send: no later answer waits for it */
}

/* What was meant for x, an ephemeral body of len bytes, as a plain message
 * in its user's DMs. */
static void ix_plain(struct dc *dc, struct dc_ixn *x, const char *body, size_t len)
{
    struct buf b;
    buf_init(&b, DC_BODY_MAX);
    if (!x->user || !made(x, ixb_unflag(&b, body, len))) /* in a DM, private as it is */
        return;
    struct dc_op *op = dc_op_new(dc, DC_OP_POST);
    if (op) {
        op->user = strdup(x->user);
        op->body = buf_take(&b);
    }
    buf_free(&b);
    if (!op || !op->user || !op->body) {
        log_error(DC_MOD, NULL, "no memory to send an interaction's answer as a message");
        dc_op_free(op);
        return;
    }
    dc_queue_on_dm(dc, x->user, op);
}

/* A later answer to x: body, an ephemeral body of len bytes. */
static void ix_followup(struct dc *dc, struct dc_ixn *x, const char *body, size_t len)
{
    if (x->dead) {
        ix_plain(dc, x, body, len);
        return;
    }
    char path[256];
    struct buf req;
    buf_init(&req, DC_BODY_MAX);
    if (x->original) {
        /* an edit sets no flags (receiving-and-responding: Edit Original
         * Interaction Response, as Edit Webhook Message): the deferral made
         * it ephemeral */
        if (!made(x, ixb_unflag(&req, body, len)))
            return;
        snprintf(path, sizeof(path), "/webhooks/%s/%s/messages/@original", x->app_id, x->token);
        x->original = false;
        ix_request(dc, x, "PATCH", path, buf_take(&req), 0, DC_IX_FOLLOWUP);
    } else if (made(x, buf_append(&req, body, len))) {
        snprintf(path, sizeof(path), "/webhooks/%s/%s", x->app_id, x->token);
        ix_request(dc, x, "POST", path, buf_take(&req), 0, DC_IX_FOLLOWUP);
    }
}

int dc_ix_prepare(struct dc *dc, struct dc_op *op)
{
    struct dc_ixn *x = map_get(&dc->ixns, op->ix);
    if (op->step != DC_IX_FOLLOWUP || !x || !x->dead)
        return 0;
    /* queued before the first answer failed: it goes as a plain message */
    if (op->body)
        ix_plain(dc, x, op->body, strlen(op->body));
    return 1;
}

void dc_ix_answered(struct dc *dc, struct dc_op *op, long status, const char *body)
{
    struct dc_ixn *x = map_get(&dc->ixns, op->ix);
    if ((status >= 200 && status < 300) || status == REST_STOPPED || status == 0)
        return;
    if (!x) {
        dc_log_http_error("answering", "an interaction", status, body);
        return;
    }
    if (op->step == DC_IX_CALLBACK && dc_api_code(body) == ERR_ANSWERED) {
        /* answered already, by this daemon before a restart: the input was
         * handed in again (its change, if any, was not on disk) */
        log_info(DC_MOD, NULL, "interaction %s was answered already; this answer is dropped",
                 x->id);
        return;
    }
    /* what it meant to say, as a message body: a first answer's data when it
     * said something (not a deferral, nor choices too late to offer) */
    const char *req = op->body ? op->body : "";
    size_t len = strlen(req), at = 0, meant = len;
    if (op->step == DC_IX_CALLBACK && !ixb_data(req, len, CB_MESSAGE, &at, &meant))
        meant = 0;
    if (op->step == DC_IX_CALLBACK || dc_api_code(body) == ERR_TOKEN_GONE) {
        /* no later answer can go through it either */
        x->dead = true;
        x->original = false;
    }
    /* one line for what could not be given: where it goes instead, or that it is dropped */
    if (status == REST_EXPIRED)
        log_warn(DC_MOD, NULL, "interaction %s: no answer from Discord in time; %s", x->id,
                 meant ? "its answer goes to the user's DMs" : "dropped");
    else
        log_warn(DC_MOD, NULL, "interaction %s: answer refused (HTTP %ld, code %d); %s", x->id,
                 status, dc_api_code(body), meant ? "it goes to the user's DMs" : "dropped");
    if (meant)
        ix_plain(dc, x, req + at, meant);
}

/* Writes into dc->body an answer's ephemeral body: m rendered, or text when
 * m is NULL. Returns that buffer, or NULL (logged) when the body cannot be
 * written; dc_body_done() when done with it. */
static struct buf *answer_body(struct dc *dc, const struct outbound *m, const char *text)
{
    struct jw w;
    struct buf *b = dc_body_start(dc, &w);
    ixb_ephemeral(&w);
    if (m)
        dc_render_into(dc, m, false, &w);
    else
        dc_render_text(&w, text);
    jw_object_end(&w);
    if (jw_finish(&w) == 0)
        return b;
    log_error(DC_MOD, NULL, "%s: its answer passes %u bytes or found no memory; not sent",
              m && m->key ? m->key : "an interaction", DC_BODY_MAX);
    return NULL;
}

/* Keeps body (len bytes) for x's first answer, after deliver(). */
static void capture(struct dc_ixn *x, const char *body, size_t len)
{
    char **list = realloc(x->captured, (x->ncaptured + 1) * sizeof(*list));
    char *copy = malloc(len + 1);
    if (list)
        x->captured = list;
    if (!list || !copy) {
        log_error(DC_MOD, NULL, "interaction %s: no memory to keep an answer; not sent", x->id);
        free(copy);
        return;
    }
    memcpy(copy, body, len + 1);
    x->captured[x->ncaptured++] = copy;
}

int dc_ix_reply(struct dc *dc, const char *ix, const struct outbound *m)
{
    struct dc_ixn *x = map_get(&dc->ixns, ix);
    if (!x)
        return 0;
    struct buf *b = answer_body(dc, m, NULL);
    if (b && dc->capture == x && !x->answered)
        capture(x, b->data, b->len);
    else if (b)
        ix_followup(dc, x, b->data, b->len);
    dc_body_done(dc);
    return 1;
}

/* The first answer, right after deliver(). */
static void ix_answer(struct dc *dc, struct dc_ixn *x)
{
    if (x->ncaptured == 0) {
        if (x->component) {
            ix_callback(dc, x, CB_DEFERRED_UPDATE, NULL, 0);
        } else {
            ix_callback(dc, x, CB_DEFERRED_MESSAGE, IXB_EPHEMERAL_ONLY,
                        sizeof IXB_EPHEMERAL_ONLY - 1);
            x->deferred = true;
            x->original = true;
        }
        return;
    }
    ix_callback(dc, x, CB_MESSAGE, x->captured[0], strlen(x->captured[0]));
    for (size_t i = 1; i < x->ncaptured; i++)
        ix_followup(dc, x, x->captured[i], strlen(x->captured[i]));
    for (size_t i = 0; i < x->ncaptured; i++)
        free(x->captured[i]);
    free(x->captured);
    x->captured = NULL;
    x->ncaptured = 0;
}

/* An ephemeral answer of one text, now (a stale press, an unknown command). */
void dc_ix_callback(struct dc *dc, struct dc_ixn *x, int type, const char *data)
{
    ix_callback(dc, x, type, data, data ? strlen(data) : 0);
}

void dc_ix_say(struct dc *dc, struct dc_ixn *x, const char *text)
{
    struct buf *b = answer_body(dc, NULL, text);
    if (b)
        ix_callback(dc, x, CB_MESSAGE, b->data, b->len);
    else
        x->answered = true;
    dc_body_done(dc);
}

void dc_ix_ack(struct dc *dc, struct dc_ixn *x)
{
    ix_callback(dc, x, CB_DEFERRED_UPDATE, NULL, 0);
}

struct sweep_ctx {
    struct dc *dc;
    uint64_t now;
    char *expired[64];
    unsigned nexpired;
};

static void sweep_one(const char *key, void *val, void *arg)
{
    struct sweep_ctx *c = arg;
    struct dc_ixn *x = val;
    if (x->original && c->now >= x->created + IX_FALLBACK_MS) {
        /* the bot said nothing to this command: close the "thinking" state */
        struct buf *b = answer_body(c->dc, NULL, "✅");
        if (b)
            ix_followup(c->dc, x, b->data, b->len);
        dc_body_done(c->dc);
    }
    if (c->now >= x->created + IX_LIFETIME_MS && c->nexpired < 64)
        c->expired[c->nexpired++] = strdup(key);
}

void dc_ix_sweep(struct dc *dc)
{
    struct sweep_ctx c = {.dc = dc, .now = clock_mono_ms()};
    map_each(&dc->ixns, sweep_one, &c);
    for (unsigned i = 0; i < c.nexpired; i++) {
        if (!c.expired[i])
            continue;
        struct dc_ixn *x = map_del(&dc->ixns, c.expired[i]);
        if (x)
            dc_ix_free(x);
        free(c.expired[i]);
    }
}

/* ---- autocomplete ---- */

/* The choices offered so far, written by w as they come. A value of at most
 * DC_CHOICE_TEXT_MAX characters takes at most 3 bytes a character (a 4-byte
 * sequence counts as two). */
struct offers {
    struct jw *w;
    unsigned n;
    char value[DC_CHOICES_MAX][3 * DC_CHOICE_TEXT_MAX + 1];
};

/* Offers a choice (platform_host.complete): its name cut to fit, its value
 * whole or not at all (a value cut short would be another command), once,
 * at most DC_CHOICES_MAX. */
static void offered(void *arg, const char *name, const char *value)
{
    struct offers *o = arg;
    size_t len = strlen(value);
    if (o->n >= DC_CHOICES_MAX || !*name || dc_chars(value) > DC_CHOICE_TEXT_MAX ||
        len >= sizeof o->value[0])
        return;
    for (unsigned i = 0; i < o->n; i++)
        if (strcmp(o->value[i], value) == 0)
            return;
    memcpy(o->value[o->n++], value, len + 1);
    jw_object(o->w);
    jw_key(o->w, "name");
    dc_fit_write(o->w, name, DC_CHOICE_TEXT_MAX);
    jw_key(o->w, "value");
    jw_str(o->w, value);
    jw_object_end(o->w);
}

static void autocomplete(struct dc *dc, struct dc_ixn *x, const struct dc_ix_in *in,
                         const char *channel)
{
    const char *focus = NULL, *typed = "";
    for (unsigned i = 0; i < in->noptions; i++) {
        const struct dc_ix_option *o = &in->options[i];
        if (o->focused) {
            focus = o->name;
            typed = o->string ? o->value : "";
        }
    }
    struct buf req;
    struct jw w;
    struct offers o = {.w = &w};
    buf_init(&req, DC_BODY_MAX);
    jw_init(&w, &req);
    jw_object(&w);
    jw_key(&w, "type");
    jw_int(&w, CB_AUTOCOMPLETE);
    jw_key(&w, "data");
    jw_object(&w);
    jw_key(&w, "choices");
    jw_array(&w);
    /* the bot completes from the game itself: the adapter keeps nothing of it */
    const struct platform_host *host = dc->base.host;
    if (focus && in->leaf && host->complete)
        host->complete(host->ctx, &dc->base, channel, in->uid, in->leaf, focus, typed, offered, &o);
    jw_array_end(&w);
    jw_object_end(&w);
    jw_object_end(&w);
    if (made(x, jw_finish(&w)))
        ix_send_callback(dc, x, buf_take(&req));
    buf_free(&req);
}

/* ---- INTERACTION_CREATE ---- */

/* The record of interaction in, kept under key ("ix:<id>"); NULL when
 * memory ran out. */
static struct dc_ixn *ix_record(struct dc *dc, const struct dc_ix_in *in, const char *key)
{
    const char *app = in->app_id;
    struct dc_ixn *x = calloc(1, sizeof(*x));
    if (!x)
        return NULL;
    x->id = strdup(in->id);
    x->token = strdup(in->token);
    x->app_id = strdup(app ? app : (dc->app_id ? dc->app_id : "0"));
    x->user = strdup(in->uid);
    x->created = clock_mono_ms();
    x->component = in->type == IX_COMPONENT;
    void *old = NULL;
    if (!x->id || !x->token || !x->app_id || !x->user || map_put(&dc->ixns, key, x, &old) < 0) {
        dc_ix_free(x);
        return NULL;
    }
    if (old)
        dc_ix_free(old);
    return x;
}

void dc_interaction(struct dc *dc, const struct dc_ix_in *in)
{
    if (!in->id || !in->token || !in->uid || in->type == IX_PING)
        return;
    char key[96];
    snprintf(key, sizeof(key), "ix:%s", in->id);
    struct dc_ixn *x = ix_record(dc, in, key);
    if (!x)
        return;
    const char *tchannel = in->guild ? in->channel : NULL;
    if (dc_activity_launch(dc, x, in))
        return;
    if (in->type == IX_AUTOCOMPLETE) {
        autocomplete(dc, x, in, tchannel);
        return;
    }
    char *text = NULL;
    if (in->type == IX_COMMAND) {
        text = dc_slash_text(in);
    } else if (in->type == IX_COMPONENT) {
        /* a press answered here (a stale one, a menu of the builder) gives no command */
        if (dc_press(dc, x, in, &text) < 0)
            return;
    }
    if (!text) /* nothing we know: the bot's help answers it */
        text = strdup("help");
    if (!text)
        return;
    /* The first answer goes in the interaction's callback, so the bot's turn
     * ends here and its answers are captured. */
    dc->capture = x;
    dc_send_command(dc, text, tchannel, in->uid, in->user_name, in->moderator, key, in->locale,
                    in->guild, strtoull(in->id, NULL, 10));
    if (dc->base.host->flush)
        dc->base.host->flush(dc->base.host->ctx);
    dc->capture = NULL;
    free(text);
    /* the interaction may be gone: replaced by one of the same id while delivered */
    if (!dc->stopping && map_get(&dc->ixns, key) == x)
        ix_answer(dc, x);
}
