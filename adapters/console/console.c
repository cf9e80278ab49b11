/*
 * console.c - JSON lines in, JSON lines out.
 *
 * Input is read on the daemon's loop (a pipe or a terminal through libuv; a
 * regular file, which cannot be polled, a chunk per loop turn). Output is
 * written synchronously so that its order is exactly the order of sends; the
 * console's own lines wait for the bot's answers to the lines before them.
 */
#include <errno.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "bot/log.h"
#include "core/json.h"
#include "bot/util/map.h"
#include "console.h"

#define LINE_MAX_BYTES (64 * 1024)
#define ID_BLOCK       64 /* message ids reserved in the store at a time */

struct console {
    struct platform base;
    struct console_options o;
    union {
        uv_pipe_t pipe;
        uv_tty_t tty;
        uv_idle_t idle;
    } in;
    uv_handle_type in_type;
    bool reading;
    char *line;
    size_t len, cap;
    bool overlong; /* dropping the rest of a line that was too long */
    uint64_t line_number;
    struct map key_to_id, id_to_key, closed_dms, reacted;
    uint64_t next_id, reserved_id;
};

static void write_all(int fd, const char *s, size_t n)
{
    while (n) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            log_error("console", NULL, "cannot write output: %s", strerror(errno));
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

/* Writes one JSON line and releases o. */
static void emit(struct console *c, struct json_object *o)
{
    size_t n;
    const char *s = json_object_to_json_string_length(o, JSON_C_TO_STRING_PLAIN, &n);
    write_all(c->o.out_fd, s, n);
    write_all(c->o.out_fd, "\n", 1);
    json_object_put(o);
}

/* The console's own lines (errors, pong) come after every answer to the
 * lines before them: the bot's turn ends first. */
static void flush_bot(struct console *c)
{
    const struct platform_host *h = c->base.host;
    if (h->flush)
        h->flush(h->ctx);
}

static void emit_error(struct console *c, const char *what)
{
    flush_bot(c);
    struct json_object *o = json_object_new_object();
    char text[256];
    snprintf(text, sizeof text, "line %" PRIu64 ": %s", c->line_number, what);
    json_object_object_add(o, "type", json_object_new_string("error"));
    json_object_object_add(o, "text", json_object_new_string(text));
    emit(c, o);
}

/* Message ids survive restarts: a block is reserved in the store before use. */
static void new_id(struct console *c, char *out, size_t len)
{
    if (c->next_id >= c->reserved_id) {
        char v[32];
        snprintf(v, sizeof v, "%" PRIu64, c->next_id + ID_BLOCK);
        if (c->base.host->state_set(c->base.host->ctx, &c->base, "next_id", v) == 0)
            c->reserved_id = c->next_id + ID_BLOCK;
    }
    snprintf(out, len, "m%" PRIu64, c->next_id++);
}

static struct json_object *copy_field(const struct json_object *data, const char *k)
{
    return json_object_get(jget(data, k));
}

/* The commands of m's choices: the options of a poll. A new array. */
static struct json_object *choice_commands(const struct outbound *m)
{
    struct json_object *choices = jget_arr(m->data, "choices");
    struct json_object *list = json_object_new_array();
    for (size_t i = 0; i < jarr_len(choices); i++) {
        const char *command = jget_str(jarr_at(choices, i), "command");
        if (command)
            json_object_array_add(list, json_object_new_string(command));
    }
    return list;
}

/* The reactions that make the choices of a table message (a drop's cards),
 * once a message, as a platform's bot puts them. */
static void add_reactions(struct console *c, const struct outbound *m, const char *channel,
                          const char *id)
{
    struct json_object *choices = jget_arr(m->data, "choices");
    if (!m->key || !m->channel || !choices || map_get(&c->reacted, m->key))
        return;
    for (size_t i = 0; i < jarr_len(choices); i++) {
        const char *emoji = jget_str(jarr_at(choices, i), "emoji");
        if (!emoji)
            continue;
        if (!map_get(&c->reacted, m->key) && map_set_str(&c->reacted, m->key, id) < 0)
            return;
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "type", json_object_new_string("react"));
        json_object_object_add(o, "channel", json_object_new_string(channel));
        json_object_object_add(o, "id", json_object_new_string(id));
        json_object_object_add(o, "key", json_object_new_string(emoji));
        emit(c, o);
    }
}

/* Whether m goes to a user whose direct messages are closed: then nothing is shown and the bot is
 * told, as on a real platform. */
static bool dm_refused(struct console *c, const struct outbound *m)
{
    const char *state = m->user ? map_get(&c->closed_dms, m->user) : NULL;
    if (!state || strcmp(state, "closed") != 0)
        return false;
    c->base.host->dm_result(c->base.host->ctx, &c->base, m->user, false);
    return true;
}

/* Fills o with the end of a game: its scores and winners. */
static void game_over_line(const struct outbound *m, const char *channel, struct json_object *o)
{
    json_object_object_add(o, "type", json_object_new_string("game_over"));
    json_object_object_add(o, "channel", json_object_new_string(channel));
    json_object_object_add(o, "scores", copy_field(m->data, "scores"));
    json_object_object_add(o, "winners", copy_field(m->data, "winners"));
    if (jget_true(m->data, "aborted"))
        json_object_object_add(o, "aborted", json_object_new_boolean(true));
}

/* The id m is shown under: its key's earlier message when m replaces it (true), else a new one,
 * recorded under its key (false). */
static bool message_id(struct console *c, const struct outbound *m, char *id, size_t len)
{
    const char *old = m->key ? map_get(&c->key_to_id, m->key) : NULL;
    if (m->replace && old) {
        snprintf(id, len, "%s", old);
        return true;
    }
    new_id(c, id, len);
    if (m->key &&
        (map_set_str(&c->key_to_id, m->key, id) < 0 || map_set_str(&c->id_to_key, id, m->key) < 0))
        log_warn("console", NULL, "out of memory recording message %s", id);
    return false;
}

/* Fills o with message m as sent (or edited, with edit) under id. */
static void message_line(const struct outbound *m, const char *channel, const char *id, bool edit,
                         struct json_object *o)
{
    json_object_object_add(o, "type",
                           json_object_new_string(edit                    ? "edit"
                                                  : m->kind == OUT_BALLOT ? "poll"
                                                                          : "send"));
    json_object_object_add(o, "channel", json_object_new_string(channel));
    json_object_object_add(o, "id", json_object_new_string(id));
    char topic[MSG_TOPIC_MAX];
    /* the module's name for it ("hand"), and what it is */
    json_object_object_add(o, "kind",
                           json_object_new_string(msg_label(m->kind, m->key, topic, sizeof topic)));
    json_object_object_add(o, "form", json_object_new_string(msg_kind_name(m->kind)));
    json_object_object_add(o, "text", json_object_new_string(m->text ? m->text : ""));
    if (m->kind == OUT_BALLOT)
        json_object_object_add(o, "options", choice_commands(m));
    if (m->data)
        json_object_object_add(o, "data", json_object_get((struct json_object *)m->data));
}

static int console_send(struct platform *p, const struct outbound *m)
{
    struct console *c = (struct console *)p;
    char channel[512], id[32];
    struct json_object *o = json_object_new_object();
    if (!o)
        return -1;
    if (m->channel)
        snprintf(channel, sizeof channel, "%s", m->channel);
    else
        snprintf(channel, sizeof channel, "dm:%s", m->user ? m->user : "");
    if (dm_refused(c, m)) {
        json_object_put(o);
        return 0;
    }
    if (m->kind == OUT_GAME_OVER) {
        game_over_line(m, channel, o);
        emit(c, o);
        return 0;
    }
    bool edit = message_id(c, m, id, sizeof id);
    message_line(m, channel, id, edit, o);
    emit(c, o);
    add_reactions(c, m, channel, id);
    return 0;
}

static void console_probe_dm(struct platform *p, const char *user)
{
    struct console *c = (struct console *)p;
    const char *state = map_get(&c->closed_dms, user);
    p->host->dm_result(p->host->ctx, p, user, !state || strcmp(state, "closed") != 0);
}

static void handle_message(struct console *c, struct json_object *o, bool reaction)
{
    const char *channel = jget_str(o, "channel");
    const char *user = jget_str(o, "user");
    struct inbound in = {.type = reaction ? INBOUND_REACTION : INBOUND_MESSAGE};
    if (!channel || !user || !*user || !*channel) {
        emit_error(c, "\"channel\" and \"user\" must be non-empty strings");
        return;
    }
    if (strncmp(channel, "dm:", 3) == 0 || strcmp(channel, "dm") == 0)
        channel = NULL;
    in.channel = channel;
    in.user = user;
    in.user_name = jget_str(o, "name");
    in.moderator = jget_true(o, "moderator");
    in.community = jget_str(o, "server");
    in.locale = jget_str(o, "locale");
    in.order = c->line_number;
    if (reaction) {
        const char *id = jget_str(o, "message");
        in.reaction = jget_str(o, "key");
        if (!id || !in.reaction) {
            emit_error(c, "a reaction needs \"message\" and \"key\"");
            return;
        }
        in.msg_key = map_get(&c->id_to_key, id);
        if (!in.msg_key) {
            emit_error(c, "no message with that id");
            return;
        }
    } else {
        in.text = jget_str(o, "text");
        if (!in.text) {
            emit_error(c, "a message needs a \"text\" string");
            return;
        }
    }
    c->base.host->deliver(c->base.host->ctx, &c->base, &in);
}

/* The line as a JSON object whose strings hold no NUL byte; NULL with an error emitted. */
static struct json_object *parse_line(struct console *c, const char *line, size_t len)
{
    struct json_tokener *tok = json_tokener_new();
    struct json_object *o = tok ? json_tokener_parse_ex(tok, line, (int)len) : NULL;
    bool complete = tok && json_tokener_get_error(tok) == json_tokener_success &&
                    json_tokener_get_parse_end(tok) == len;
    json_tokener_free(tok);
    if (!o || !complete || !json_object_is_type(o, json_type_object)) {
        emit_error(c, "not a JSON object");
        json_object_put(o);
        return NULL;
    }
    /* Strings are read as C strings: one with a NUL byte inside would be
     * cut short there ("a\u0000b" playing as "a"), so the line is refused. */
    json_object_object_foreach(o, member, value)
    {
        if (json_object_is_type(value, json_type_string) &&
            strlen(json_object_get_string(value)) != (size_t)json_object_get_string_len(value)) {
            char why[128];
            snprintf(why, sizeof why, "\"%.64s\" holds a NUL byte", member);
            emit_error(c, why);
            json_object_put(o);
            return NULL;
        }
    }
    return o;
}

static void on_message(struct console *c, struct json_object *o)
{
    handle_message(c, o, false);
}

static void on_reaction(struct console *c, struct json_object *o)
{
    handle_message(c, o, true);
}

static void on_advance(struct console *c, struct json_object *o)
{
    double seconds;
    if (jget_double(o, "seconds", &seconds) < 0 || seconds < 0 || seconds > 1e9)
        emit_error(c, "\"seconds\" must be a number from 0 to 1e9");
    else if (!c->o.advance)
        emit_error(c, "\"advance\" needs --virtual-time");
    else
        c->o.advance(c->o.arg, (int64_t)(seconds * 1000));
}

static void on_dms(struct console *c, struct json_object *o)
{
    const char *user = jget_str(o, "user");
    if (!user)
        emit_error(c, "\"dms\" needs a \"user\"");
    else if (map_set_str(&c->closed_dms, user, jget_true(o, "open") ? "open" : "closed") < 0)
        emit_error(c, "out of memory");
}

static void on_ping(struct console *c, struct json_object *o)
{
    flush_bot(c);
    struct json_object *out = json_object_new_object();
    struct json_object *id = jget(o, "id");
    json_object_object_add(out, "type", json_object_new_string("pong"));
    if (id)
        json_object_object_add(out, "id", json_object_get(id));
    emit(c, out);
}

/* What a line's "type" asks for. */
static const struct {
    const char *type;
    void (*handle)(struct console *c, struct json_object *o);
} line_types[] = {
    {"message", on_message}, {"reaction", on_reaction}, {"advance", on_advance},
    {"dms", on_dms},         {"ping", on_ping},
};

static void handle_line(struct console *c, const char *line, size_t len)
{
    c->line_number++;
    while (len && (line[len - 1] == '\r' || line[len - 1] == ' '))
        len--;
    if (!len)
        return;
    struct json_object *o = parse_line(c, line, len);
    if (!o)
        return;
    const char *type = jget_str(o, "type");
    size_t i = 0, n = sizeof line_types / sizeof *line_types;
    while (type && i < n && strcmp(type, line_types[i].type) != 0)
        i++;
    if (!type)
        emit_error(c, "missing \"type\"");
    else if (i == n)
        emit_error(c, "unknown \"type\"");
    else
        line_types[i].handle(c, o);
    json_object_put(o);
}

/* Appends input bytes and handles every complete line. */
static void feed(struct console *c, const char *data, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char ch = data[i];
        if (ch == '\n') {
            if (c->overlong) {
                c->line_number++;
                emit_error(c, "line longer than 64 KiB ignored");
            } else {
                handle_line(c, c->line, c->len);
            }
            c->len = 0;
            c->overlong = false;
            continue;
        }
        if (c->overlong)
            continue;
        if (c->len == LINE_MAX_BYTES) {
            c->overlong = true;
            continue;
        }
        if (c->len == c->cap) {
            size_t cap = c->cap ? c->cap * 2 : 4096;
            char *v = realloc(c->line, cap);
            if (!v) {
                c->overlong = true;
                continue;
            }
            c->line = v;
            c->cap = cap;
        }
        c->line[c->len++] = ch;
    }
}

void console_input(struct platform *p, const char *data, size_t n, bool end)
{
    struct console *c = (struct console *)p;
    feed(c, data, n);
    if (end) {
        if (c->len && !c->overlong)
            handle_line(c, c->line, c->len);
        c->len = 0;
        c->overlong = false;
    }
}

static void finish_input(struct console *c)
{
    console_input(&c->base, NULL, 0, true);
    if (c->reading) {
        c->reading = false;
        if (c->in_type == UV_FILE)
            uv_idle_stop(&c->in.idle);
        else
            uv_read_stop((uv_stream_t *)&c->in.pipe);
        if (c->o.eof)
            c->o.eof(c->o.arg);
    }
}

static void on_alloc(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    (void)h;
    buf->base = malloc(suggested);
    buf->len = buf->base ? suggested : 0;
}

static void on_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf)
{
    struct console *c = s->data;
    if (n > 0)
        feed(c, buf->base, (size_t)n);
    free(buf->base);
    if (n < 0) {
        if (n != UV_EOF)
            log_error("console", NULL, "read error: %s", uv_strerror((int)n));
        finish_input(c);
    }
}

/* Regular files cannot be polled: read one chunk per loop turn. */
static void on_idle(uv_idle_t *h)
{
    struct console *c = h->data;
    char buf[16384];
    ssize_t n = read(c->o.in_fd, buf, sizeof buf);
    if (n > 0)
        feed(c, buf, (size_t)n);
    else if (n == 0 || errno != EINTR)
        finish_input(c);
}

static int console_start(struct platform *p)
{
    struct console *c = (struct console *)p;
    uv_loop_t *loop = p->host->loop;
    char *v = p->host->state_get(p->host->ctx, p, "next_id");
    if (v) {
        c->next_id = c->reserved_id = strtoull(v, NULL, 10);
        free(v);
    }
    c->in_type = uv_guess_handle(c->o.in_fd);
    int rc;
    if (c->in_type == UV_NAMED_PIPE) {
        rc = uv_pipe_init(loop, &c->in.pipe, 0);
        if (rc == 0)
            rc = uv_pipe_open(&c->in.pipe, c->o.in_fd);
    } else if (c->in_type == UV_TTY) {
        rc = uv_tty_init(loop, &c->in.tty, c->o.in_fd, 1);
    } else {
        c->in_type = UV_FILE;
        rc = uv_idle_init(loop, &c->in.idle);
    }
    if (rc < 0) {
        log_error("console", NULL, "cannot read input: %s", uv_strerror(rc));
        return -1;
    }
    c->in.pipe.data = c;
    rc = c->in_type == UV_FILE ? uv_idle_start(&c->in.idle, on_idle)
                               : uv_read_start((uv_stream_t *)&c->in.pipe, on_alloc, on_read);
    if (rc < 0) {
        log_error("console", NULL, "cannot read input: %s", uv_strerror(rc));
        uv_close((uv_handle_t *)&c->in.pipe, NULL);
        return -1;
    }
    c->reading = true;
    return 0;
}

static void console_stop(struct platform *p)
{
    struct console *c = (struct console *)p;
    if (c->reading) {
        c->reading = false;
        if (c->in_type == UV_FILE)
            uv_idle_stop(&c->in.idle);
        else
            uv_read_stop((uv_stream_t *)&c->in.pipe);
    }
    if (c->in_type != UV_UNKNOWN_HANDLE && !uv_is_closing((uv_handle_t *)&c->in.pipe))
        uv_close((uv_handle_t *)&c->in.pipe, NULL);
}

static void console_destroy(struct platform *p)
{
    struct console *c = (struct console *)p;
    map_clear(&c->key_to_id, free);
    map_clear(&c->id_to_key, free);
    map_clear(&c->closed_dms, free);
    map_clear(&c->reacted, free);
    free(c->line);
    free(c);
}

static const struct platform_ops console_ops = {
    .name = "console",
    .caps = PLATFORM_CAP_DM | PLATFORM_CAP_REACTIONS | PLATFORM_CAP_EDITS | PLATFORM_CAP_POLLS,
    .start = console_start,
    .send = console_send,
    .probe_dm = console_probe_dm,
    .stop = console_stop,
    .destroy = console_destroy,
};

struct platform *console_platform_new(const struct platform_host *host,
                                      const struct console_options *o)
{
    struct console *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->base.ops = &console_ops;
    c->base.host = host;
    c->o = *o;
    c->in_type = UV_UNKNOWN_HANDLE;
    return &c->base;
}
