/*
 * inbound.c - what browsers send: hello, open, say, react, and their checks.
 */
#include "internal.h"

/* ---- inbound ---- */

void web_deliver(struct web *w, struct conn *c, enum inbound_type type, const char *channel,
                 const char *text, const char *key, const char *reaction)
{
    struct inbound in = {
        .type = type,
        .channel = channel,
        .user = c->user,
        .user_name = c->name,
        .moderator = false,
        .text = text,
        .msg_key = key,
        .reaction = reaction,
        .locale = c->lang[0] ? c->lang : NULL,
        .order = ++w->order,
    };
    w->base.host->deliver(w->base.host->ctx, &w->base, &in);
}

/* Reads hello's language onto c, then its token and name; false with an error sent. A name given
 * empty counts as none (*name NULL). */
static bool hello_read(struct conn *c, struct json_object *o, const char **token, const char **name)
{
    size_t tlen = 0, nlen = 0, llen = 0;
    *token = web_get_str(o, "token", &tlen);
    *name = web_get_str(o, "name", &nlen);
    const char *lang = web_get_str(o, "lang", &llen);
    /* the page's language: private answers and a new seat speak it */
    snprintf(c->lang, sizeof c->lang, "%s",
             lang && llen < 16 && catalog_match(lang) ? catalog_match(lang) : "");
    if (!*token || !web_valid_token(*token, tlen)) {
        web_send_error(c, "bad-token",
                       "the seat token must be %d to %d letters, digits, '-' or '_'", WEB_TOKEN_MIN,
                       WEB_TOKEN_MAX);
        return false;
    }
    if (*name && nlen == 0)
        *name = NULL;
    if (*name && !web_valid_name(*name, nlen)) {
        web_send_error(c, "bad-name",
                       "a name is 1 to %d letters, digits, '-', '_' or '.', without spaces",
                       WEB_NAME_MAX);
        return false;
    }
    return true;
}

/* The seat of token, found or made (*fresh); NULL with an error sent. */
static struct seat *hello_seat(struct web *w, struct conn *c, const char *token, bool *fresh)
{
    bool refused;
    struct seat *s = web_seat_get(w, token, c->addr, fresh, &refused);
    if (!s && refused) {
        log_warn(MOD, NULL, "refused a new seat from %s: %u made there (seats_per_address)",
                 c->addr[0] ? c->addr : "?", w->seats_per_addr);
        web_send_error(c, "too-many-seats",
                       "this address has made %u seats: sit down with one of them",
                       w->seats_per_addr);
        return NULL;
    }
    if (!s)
        web_send_error(c, "internal", "out of memory");
    return s;
}

/* Whether c may sit at s under name (NULL: keep the seat's), renaming and saving s if name is new;
 * false with an error sent. */
static bool hello_name_seat(struct web *w, struct conn *c, struct seat *s, const char *name)
{
    if (c->user && strcmp(c->user, s->user) != 0) {
        web_send_error(c, "already-seated", "this connection already holds another seat");
        return false;
    }
    if (!name && !s->name) {
        web_send_error(c, "bad-name", "pick a name first");
        return false;
    }
    if (!name || (s->name && strcmp(name, s->name) == 0))
        return true;
    if (web_name_taken(w, s, name)) {
        web_send_error(c, "name-taken", "the name %s is taken: pick another", name);
        return false;
    }
    char *copy = strdup(name);
    if (!copy) {
        web_send_error(c, "internal", "out of memory");
        return false;
    }
    free(s->name);
    s->name = copy;
    web_seat_save(w, s);
    return true;
}

/* Sends the welcome; at a connection's first hello also who is online, the tables and its
 * private room's frames. */
static void hello_welcome(struct web *w, struct conn *c, bool first)
{
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "type", json_object_new_string("welcome"));
    json_object_object_add(r, "user", json_object_new_string(c->user));
    json_object_object_add(r, "name", json_object_new_string(c->name));
    json_object_object_add(r, "games", web_games_json());
    web_conn_queue_obj(c, r);
    json_object_put(r);
    if (!first)
        return;
    log_info(MOD, NULL, "%s (%s) took their seat", c->user, c->name);
    web_presence_changed(w); /* and this socket learns who is online */
    r = web_tables_json(w);
    web_conn_queue_obj(c, r);
    json_object_put(r);
    struct scope *dm = web_scope_find(w, c->user, true);
    if (dm)
        web_scope_replay(c, dm);
}

static void on_hello(struct web *w, struct conn *c, struct json_object *o)
{
    const char *token, *name;
    if (!hello_read(c, o, &token, &name))
        return;
    bool fresh;
    struct seat *s = hello_seat(w, c, token, &fresh);
    if (!s)
        return;
    if (!hello_name_seat(w, c, s, name)) {
        if (fresh)
            web_seat_free(s);
        return;
    }
    if (fresh) {
        LIST_INSERT_HEAD(&w->seats, s, link);
        w->nseats++;
    }
    web_seat_visit(w, s);
    bool first = c->user == NULL;
    free(c->user);
    free(c->name);
    c->user = strdup(s->user);
    c->name = strdup(s->name);
    if (!c->user || !c->name) {
        web_send_error(c, "internal", "out of memory");
        web_conn_kill(c);
        return;
    }
    hello_welcome(w, c, first);
}

/* Reads "channel": a table id into id (true), null or absent (true, id empty), or bad (false). */
static bool get_channel(struct json_object *o, char id[WEB_TABLE_MAX + 1])
{
    id[0] = '\0';
    if (!jget(o, "channel"))
        return true;
    size_t len;
    const char *s = web_get_str(o, "channel", &len);
    return s && web_table_id(s, len, id);
}

/* Follows table id on c (replaying its frames). Returns false with an error sent. */
static bool conn_open(struct web *w, struct conn *c, const char *id)
{
    if (web_conn_follows(c, id))
        return true;
    if (c->nopen == WEB_MAX_OPEN) {
        web_send_error(c, "too-many-tables", "close a table first: one page follows at most %d",
                       WEB_MAX_OPEN);
        return false;
    }
    struct scope *t = web_scope_find(w, id, false);
    if (!t && web_tables_opened_by(w, c->user) >= w->tables_per_seat) {
        web_send_error(c, "too-many-tables", "start a game at one of your %u new tables first",
                       w->tables_per_seat);
        return false;
    }
    if (!t && (t = web_table_get(w, id)) != NULL && !(t->creator = strdup(c->user))) {
        web_table_drop_if_empty(w, t);
        t = NULL;
    }
    if (!t) {
        web_send_error(c, "too-many-tables", "this server already has %d tables", WEB_MAX_TABLES);
        return false;
    }
    char *copy = strdup(id);
    if (!copy) {
        web_send_error(c, "internal", "out of memory");
        web_table_drop_if_empty(w, t);
        return false;
    }
    c->open[c->nopen++] = copy;
    web_seat_played(w, c->user);
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "type", json_object_new_string("opened"));
    json_object_object_add(r, "channel", json_object_new_string(id));
    web_conn_queue_obj(c, r);
    json_object_put(r);
    web_scope_replay(c, t);
    return true;
}

static void on_open(struct web *w, struct conn *c, struct json_object *o, bool open)
{
    char id[WEB_TABLE_MAX + 1];
    if (!get_channel(o, id) || !id[0]) {
        web_send_error(c, "bad-channel",
                       "a table name is 1 to %d letters, digits, spaces, '-' or '_'",
                       WEB_TABLE_MAX);
        return;
    }
    if (open) {
        conn_open(w, c, id);
        return;
    }
    for (unsigned i = 0; i < c->nopen; i++) {
        if (strcmp(c->open[i], id) != 0)
            continue;
        free(c->open[i]);
        c->open[i] = c->open[--c->nopen];
        struct scope *t = web_scope_find(w, id, false);
        if (t)
            web_table_drop_if_empty(w, t);
        break;
    }
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "type", json_object_new_string("closed"));
    json_object_object_add(r, "channel", json_object_new_string(id));
    web_conn_queue_obj(c, r);
    json_object_put(r);
}

static void on_say(struct web *w, struct conn *c, struct json_object *o, enum inbound_type type)
{
    char id[WEB_TABLE_MAX + 1];
    if (!get_channel(o, id)) {
        web_send_error(c, "bad-channel", "channel is a table name, or null for your trading room");
        return;
    }
    size_t len;
    const char *text = web_get_str(o, "text", &len);
    if (!text || len == 0 || len > WEB_TEXT_MAX) {
        web_send_error(c, "bad-text", "text is a command of 1 to %d bytes", WEB_TEXT_MAX);
        return;
    }
    if (id[0] && !conn_open(w, c, id))
        return;
    web_seat_played(w, c->user);
    web_deliver(w, c, type, id[0] ? id : NULL, text, NULL, NULL);
}

static void on_react(struct web *w, struct conn *c, struct json_object *o)
{
    size_t klen = 0, rlen = 0;
    const char *key = web_get_str(o, "key", &klen);
    const char *reaction = web_get_str(o, "reaction", &rlen);
    if (!key || klen == 0 || klen > WEB_KEY_MAX || !reaction || rlen == 0 || rlen > 32) {
        web_send_error(c, "bad-reaction", "a reaction needs the message's key and an emoji");
        return;
    }
    /* only a message this socket can see: one of its tables, or its own DMs */
    const char *channel = NULL;
    bool found = false;
    for (unsigned i = 0; i < c->nopen && !found; i++) {
        struct scope *t = web_scope_find(w, c->open[i], false);
        if (t && web_scope_has_key(t, key)) {
            channel = t->id;
            found = true;
        }
    }
    if (!found) {
        struct scope *dm = web_scope_find(w, c->user, true);
        found = dm && web_scope_has_key(dm, key);
    }
    if (!found) {
        web_send_error(c, "unknown-message", "no message %s here to react to", key);
        return;
    }
    web_seat_played(w, c->user);
    web_deliver(w, c, INBOUND_REACTION, channel, NULL, key, reaction);
}

void web_on_message(struct web *w, struct conn *c, const char *buf, size_t len)
{
    struct json_tokener *tok = json_tokener_new_ex(16);
    if (!tok) {
        web_send_error(c, "internal", "out of memory");
        return;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    struct json_object *o = json_tokener_parse_ex(tok, buf, (int)len);
    bool complete = json_tokener_get_error(tok) == json_tokener_success &&
                    json_tokener_get_parse_end(tok) == len;
    json_tokener_free(tok);
    if (!o || !complete) {
        json_object_put(o);
        web_send_error(c, "bad-json", "a frame is one JSON object in UTF-8");
        return;
    }
    const char *type =
        json_object_is_type(o, json_type_object) ? web_get_str(o, "type", NULL) : NULL;
    if (!type) {
        web_send_error(c, "bad-frame", "a frame is a JSON object with a \"type\"");
    } else if (web_activity_frame(w, c, type, o)) {
        /* a page inside Discord */
    } else if (strcmp(type, "hello") == 0) {
        on_hello(w, c, o);
    } else if (!c->user) {
        web_send_error(c, "hello-first", "say hello with your seat token first");
    } else if (strcmp(type, "say") == 0) {
        on_say(w, c, o, INBOUND_MESSAGE);
    } else if (strcmp(type, "command") == 0) {
        on_say(w, c, o, INBOUND_COMMAND);
    } else if (strcmp(type, "react") == 0) {
        on_react(w, c, o);
    } else if (strcmp(type, "open") == 0) {
        on_open(w, c, o, true);
    } else if (strcmp(type, "close") == 0) {
        on_open(w, c, o, false);
    } else if (strcmp(type, "tables") == 0) {
        struct json_object *r = web_tables_json(w);
        web_conn_queue_obj(c, r);
        json_object_put(r);
    } else {
        web_send_error(c, "unknown-type", "unknown frame type: %.40s", type);
    }
    json_object_put(o);
}

void web_on_receive(struct web *w, struct conn *c, const void *in, size_t len)
{
    if (!c->in_msg) {
        c->in_msg = true;
        c->rxlen = 0;
        c->rx_over = false;
        c->rx_binary = lws_frame_is_binary(c->wsi) != 0;
    }
    if (!c->rx_over && !c->rx_binary) {
        if (c->rxlen + len > WEB_MAX_FRAME) {
            c->rx_over = true;
        } else {
            if (!c->rx && !(c->rx = malloc(WEB_MAX_FRAME + 1))) {
                web_conn_kill(c);
                return;
            }
            memcpy(c->rx + c->rxlen, in, len);
            c->rxlen += len;
        }
    }
    if (!lws_is_final_fragment(c->wsi) || lws_remaining_packet_payload(c->wsi) > 0)
        return;
    c->in_msg = false;
    if (c->rx_binary)
        web_send_error(c, "binary", "frames are JSON text, not binary");
    else if (c->rx_over)
        web_send_error(c, "too-large", "a frame is at most %d bytes", WEB_MAX_FRAME);
    else
        web_on_message(w, c, c->rx, c->rxlen);
}
