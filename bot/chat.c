/*
 * chat.c - a table's chat on a platform without its own (chat.h).
 */
#include <ctype.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chat.h"
#include "core/json.h"
#include "core/text.h"
#include "dispatch.h"
#include "log.h"

struct game_chat *chat_with(const struct game_chat *c, const char *user, const char *name,
                            const char *text, int64_t at)
{
    if (strlen(user) >= GAME_TEXT_MAX || strlen(name) >= GAME_TEXT_MAX ||
        strlen(text) >= CHAT_TEXT_MAX)
        return NULL;
    struct game_chat *n = malloc(sizeof *n);
    if (!n)
        return NULL;
    n->n = 0;
    unsigned keep = c ? c->n : 0, from = keep == GAME_CHAT_LINES ? 1 : 0;
    for (unsigned i = from; i < keep; i++)
        n->lines[n->n++] = c->lines[i];
    struct chat_line *l = &n->lines[n->n++];
    memset(l, 0, sizeof *l);
    text_copy(l->user, sizeof l->user, user);
    text_copy(l->name, sizeof l->name, name);
    text_copy(l->text, sizeof l->text, text);
    l->at = at;
    return n;
}

struct json_object *chat_to_json(const struct game_chat *c)
{
    if (!c || !c->n)
        return NULL;
    struct json_object *a = json_object_new_array();
    for (unsigned i = 0; a && i < c->n; i++) {
        struct json_object *o = json_object_new_object();
        json_object_object_add(o, "user", json_object_new_string(c->lines[i].user));
        json_object_object_add(o, "name", json_object_new_string(c->lines[i].name));
        json_object_object_add(o, "text", json_object_new_string(c->lines[i].text));
        json_object_object_add(o, "at", json_object_new_int64(c->lines[i].at));
        json_object_array_add(a, o);
    }
    return a;
}

int chat_from_json(const struct json_object *a, struct game_chat **out)
{
    *out = NULL;
    size_t n = jarr_len(a);
    if (!n)
        return 0;
    struct game_chat *c = calloc(1, sizeof *c);
    if (!c || n > GAME_CHAT_LINES)
        goto fail;
    for (size_t i = 0; i < n; i++) {
        struct json_object *o = jarr_at(a, i);
        struct chat_line *l = &c->lines[c->n++];
        if (!jget_str_into(o, "user", l->user, sizeof l->user) ||
            !jget_str_into(o, "name", l->name, sizeof l->name) ||
            !jget_str_into(o, "text", l->text, sizeof l->text) || jget_int64(o, "at", &l->at) < 0)
            goto fail;
    }
    *out = c;
    return 0;
fail:
    free(c);
    return -1;
}

/* The chat message: every line kept, "name: text", and the same as data. */
void chat_render(struct game *g, struct emit_ctx *ctx)
{
    const struct game_chat *c = g->chat;
    char text[DISPATCH_TEXT_MAX] = "", key[MSG_KEY_MAX];
    struct msg_key k = {.number = 0};
    snprintf(k.game, sizeof k.game, "%s", g->id);
    snprintf(k.topic, sizeof k.topic, "chat");
    struct json_object *data = json_object_new_object(), *lines = json_object_new_array();
    if (!c || !data || !lines || msg_key_format(&k, key, sizeof key) < 0) {
        json_object_put(data);
        json_object_put(lines);
        return;
    }
    size_t n = 0;
    for (unsigned i = 0; i < c->n; i++) {
        const struct chat_line *l = &c->lines[i];
        /* the newest lines are the ones a short text keeps */
        if (c->n - i <= 8) {
            int w =
                snprintf(text + n, sizeof text - n, "%s%s: %s", n ? "\n" : "", l->name, l->text);
            if (w > 0)
                n = (size_t)w >= sizeof text - n ? sizeof text - 1 : n + (size_t)w;
        }
        struct json_object *line = json_object_new_object(), *from = json_object_new_object();
        json_object_object_add(from, "id", json_object_new_string(l->user));
        json_object_object_add(from, "name", json_object_new_string(l->name));
        json_object_object_add(line, "from", from);
        json_object_object_add(line, "text", json_object_new_string(l->text));
        json_object_object_add(line, "at", json_object_new_int64(l->at));
        json_object_array_add(lines, line);
    }
    json_object_object_add(data, "game", json_object_new_string(g->id));
    json_object_object_add(data, "table", json_object_new_string(g->table));
    json_object_object_add(data, "lang", json_object_new_string(g->language));
    json_object_object_add(data, "event", json_object_new_string("chat"));
    json_object_object_add(data, "lines", lines);
    struct outbound m = {.kind = OUT_NOTICE,
                         .channel = g->table,
                         .key = key,
                         .key_parts = &k,
                         .replace = true,
                         .text = text,
                         .data = data};
    dispatch_emit(ctx, &m);
    json_object_put(data);
}

int chat_typed(struct bot_cmd *x)
{
    const struct inbound *in = x->in;
    char word[32] = "", rest[2] = "", text[CHAT_TEXT_MAX];
    /* the first word: a private command typed at the table is answered, never shown */
    int words = sscanf(in->text, " %31s %1s", word, rest);
    for (char *w = word; *w; w++)
        *w = (char)tolower((unsigned char)*w);
    const struct command_def *def = word[0] ? command_find(word, CMD_IN_PRIVATE) : NULL;
    if (def && !(def->places & CMD_IN_TABLE)) {
        const char *vars[] = {"command", def->word, NULL};
        x->private_answer = true;
        cmd_reply(x, "msg.private-at-table", vars);
        return 0;
    }
    /* a question asked alone is asked of the bot: help, rules, status */
    static const char *const asked[] = {"help", "rules", "status"};
    for (size_t i = 0; words == 1 && i < sizeof asked / sizeof *asked; i++) {
        if (strcmp(word, asked[i]) != 0)
            continue;
        char line[32];
        snprintf(line, sizeof line, "!illegal %s", asked[i]);
        struct inbound ask = *in;
        ask.text = line;
        return commands_handle(x->d, x->p, &ask);
    }
    if (!command_clean_text(in->text, CHAT_TEXT_CHARS, text, sizeof text))
        return 0; /* nothing left to show */
    x->g = dispatch_game_at(x->d, x->p, in->channel);
    if (!x->g) {
        x->private_answer = true;
        cmd_reply(x, "msg.chat-no-game", NULL);
        return -1;
    }
    struct change c = {.type = CHANGE_CHAT,
                       .user = in->user,
                       .name = in->user_name ? in->user_name : in->user,
                       .text = text};
    return pipeline_run(x->d, x->g, &c, x);
}
