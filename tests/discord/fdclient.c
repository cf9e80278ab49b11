/*
 * fdclient.c - gateway dispatches for what users do (see fdclient.h), shaped
 * as Discord's documentation describes the interaction, reaction and message
 * objects.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fdclient.h"

static struct {
    char id[32], name[192]; /* a display name of 32 characters, four bytes each at most */
} names[64];
static unsigned nnames;

void fdc_set_name(const char *user, const char *name)
{
    for (unsigned i = 0; i < nnames; i++)
        if (strcmp(names[i].id, user) == 0) {
            snprintf(names[i].name, sizeof(names[i].name), "%s", name);
            return;
        }
    if (nnames < sizeof(names) / sizeof(names[0])) {
        snprintf(names[nnames].id, sizeof(names[nnames].id), "%s", user);
        snprintf(names[nnames].name, sizeof(names[nnames].name), "%s", name);
        nnames++;
    }
}

const char *fdc_name(const char *user)
{
    for (unsigned i = 0; i < nnames; i++)
        if (strcmp(names[i].id, user) == 0)
            return names[i].name;
    return user;
}

static struct json_object *user_obj(const char *user)
{
    struct json_object *u = json_object_new_object();
    json_object_object_add(u, "id", json_object_new_string(user));
    json_object_object_add(u, "username", json_object_new_string(fdc_name(user)));
    json_object_object_add(u, "global_name", json_object_new_string(fdc_name(user)));
    return u;
}

static struct json_object *member_obj(const char *user, const char *perms)
{
    struct json_object *m = json_object_new_object();
    json_object_object_add(m, "user", user_obj(user));
    json_object_object_add(m, "roles", json_object_new_array());
    if (perms)
        json_object_object_add(m, "permissions", json_object_new_string(perms));
    return m;
}

/* The fields every interaction has; who acts depends on where. */
static struct json_object *interaction(const char *ix_id, int type, const char *guild,
                                       const char *channel, const char *user, const char *perms)
{
    char token[96];
    snprintf(token, sizeof(token), "tok-%s", ix_id);
    struct json_object *d = json_object_new_object();
    json_object_object_add(d, "id", json_object_new_string(ix_id));
    json_object_object_add(d, "application_id", json_object_new_string(FD_APP_ID));
    json_object_object_add(d, "type", json_object_new_int(type));
    json_object_object_add(d, "channel_id", json_object_new_string(channel));
    json_object_object_add(d, "token", json_object_new_string(token));
    json_object_object_add(d, "version", json_object_new_int(1));
    /* the user's client language: Brazilian for user 72, absent for 73 (as in
     * an older payload), English for the others */
    if (user && strcmp(user, "73") != 0)
        json_object_object_add(d, "locale",
                               json_object_new_string(strcmp(user, "72") == 0 ? "pt-BR" : "en-US"));
    if (guild) {
        json_object_object_add(d, "guild_id", json_object_new_string(guild));
        json_object_object_add(d, "member", member_obj(user, perms));
    } else {
        json_object_object_add(d, "user", user_obj(user));
    }
    return d;
}

static int64_t send_dispatch(struct fd_server *s, const char *type, struct json_object *d)
{
    int64_t seq = fd_dispatch(s, type, json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN));
    json_object_put(d);
    return seq;
}

/* The data of "/<word>" as Discord's client sends it: the registered command
 * word belongs to (fd_slash_route), its subcommand group and subcommand as
 * nested options, and opts (a JSON array, or NULL) on the innermost. Aborts
 * when word is not registered where it is used: a test can only use what a
 * user could pick. */
static struct json_object *command_data(struct fd_server *s, const char *guild, const char *word,
                                        const char *opts)
{
    char top[64], group[64];
    if (!fd_slash_route(s, guild, word, opts, top, sizeof top, group, sizeof group)) {
        fprintf(stderr, "fdclient: no command /%s (options %s) registered %s\n", word,
                opts ? opts : "none", guild ? "in the guild" : "for the bot's DM");
        abort();
    }
    struct json_object *data = json_object_new_object();
    json_object_object_add(data, "id", json_object_new_string("800000000000000001"));
    json_object_object_add(data, "name", json_object_new_string(top));
    json_object_object_add(data, "type", json_object_new_int(1));
    struct json_object *o = opts ? json_tokener_parse(opts) : NULL;
    struct json_object *inner = data;
    const char *const levels[][2] = {{group, "2"}, {strcmp(top, word) ? word : "", "1"}};
    for (size_t i = 0; i < 2; i++) {
        if (!*levels[i][0])
            continue;
        struct json_object *level = json_object_new_object(), *list = json_object_new_array();
        json_object_object_add(level, "name", json_object_new_string(levels[i][0]));
        json_object_object_add(level, "type", json_object_new_int(atoi(levels[i][1])));
        json_object_array_add(list, level);
        json_object_object_add(inner, "options", list);
        inner = level;
    }
    if (o)
        json_object_object_add(inner, "options", o);
    return data;
}

int64_t fdc_slash(struct fd_server *s, const char *ix_id, const char *guild, const char *channel,
                  const char *user, const char *sub, const char *opts, const char *perms)
{
    struct json_object *d = interaction(ix_id, 2, guild, channel, user, perms);
    json_object_object_add(d, "data", command_data(s, guild, sub, opts));
    return send_dispatch(s, "INTERACTION_CREATE", d);
}

int64_t fdc_entry_point(struct fd_server *s, const char *ix_id, const char *guild,
                        const char *channel, const char *user)
{
    struct json_object *d = interaction(ix_id, 2, guild, channel, user, FD_PERM_NONE);
    struct json_object *data = json_object_new_object();
    json_object_object_add(data, "id", json_object_new_string("1300000000000000099"));
    json_object_object_add(data, "name", json_object_new_string("launch"));
    json_object_object_add(data, "type", json_object_new_int(4)); /* PRIMARY_ENTRY_POINT */
    json_object_object_add(d, "data", data);
    return send_dispatch(s, "INTERACTION_CREATE", d);
}

int64_t fdc_autocomplete(struct fd_server *s, const char *ix_id, const char *guild,
                         const char *channel, const char *user, const char *sub, const char *opts)
{
    struct json_object *d = interaction(ix_id, 4, guild, channel, user, FD_PERM_NONE);
    json_object_object_add(d, "data", command_data(s, guild, sub, opts));
    return send_dispatch(s, "INTERACTION_CREATE", d);
}

int64_t fdc_component(struct fd_server *s, const char *ix_id, const char *guild,
                      const char *channel, const char *user, const char *message_id,
                      const char *custom_id, const char *values)
{
    struct json_object *d = interaction(ix_id, 3, guild, channel, user, FD_PERM_NONE);
    struct json_object *data = json_object_new_object(), *msg = json_object_new_object();
    json_object_object_add(data, "custom_id", json_object_new_string(custom_id));
    json_object_object_add(data, "component_type", json_object_new_int(values ? 3 : 2));
    struct json_object *v = values ? json_tokener_parse(values) : NULL;
    if (v)
        json_object_object_add(data, "values", v);
    json_object_object_add(d, "data", data);
    json_object_object_add(msg, "id", json_object_new_string(message_id));
    json_object_object_add(msg, "channel_id", json_object_new_string(channel));
    json_object_object_add(d, "message", msg);
    return send_dispatch(s, "INTERACTION_CREATE", d);
}

int64_t fdc_reaction(struct fd_server *s, const char *guild, const char *channel,
                     const char *message_id, const char *user, const char *emoji)
{
    struct json_object *d = json_object_new_object(), *e = json_object_new_object();
    json_object_object_add(d, "user_id", json_object_new_string(user));
    json_object_object_add(d, "channel_id", json_object_new_string(channel));
    json_object_object_add(d, "message_id", json_object_new_string(message_id));
    if (guild) {
        json_object_object_add(d, "guild_id", json_object_new_string(guild));
        json_object_object_add(d, "member", member_obj(user, NULL));
    }
    json_object_object_add(e, "id", NULL);
    json_object_object_add(e, "name", json_object_new_string(emoji));
    json_object_object_add(d, "emoji", e);
    return send_dispatch(s, "MESSAGE_REACTION_ADD", d);
}

int64_t fdc_guild(struct fd_server *s, const char *guild, const char *owner)
{
    struct json_object *d = json_object_new_object(), *roles = json_object_new_array();
    struct json_object *everyone = json_object_new_object();
    json_object_object_add(d, "id", json_object_new_string(guild));
    json_object_object_add(d, "name", json_object_new_string("fake guild"));
    json_object_object_add(d, "owner_id", json_object_new_string(owner));
    json_object_object_add(everyone, "id", json_object_new_string(guild));
    json_object_object_add(everyone, "name", json_object_new_string("@everyone"));
    json_object_object_add(everyone, "permissions", json_object_new_string("0"));
    json_object_array_add(roles, everyone);
    json_object_object_add(d, "roles", roles);
    return send_dispatch(s, "GUILD_CREATE", d);
}

/* The users text mentions ("<@id>", "<@!id>"), as Discord lists them. */
static struct json_object *mentions_in(const char *text)
{
    struct json_object *list = json_object_new_array();
    for (const char *p = strstr(text, "<@"); p; p = strstr(p + 2, "<@")) {
        const char *id = p + 2 + (p[2] == '!');
        size_t n = strspn(id, "0123456789");
        if (n == 0 || n > 24 || id[n] != '>')
            continue;
        char user[32];
        snprintf(user, sizeof user, "%.*s", (int)n, id);
        json_object_array_add(list, user_obj(user));
    }
    return list;
}

static struct json_object *message(const char *msg_id, const char *guild, const char *channel,
                                   const char *user, const char *text)
{
    struct json_object *d = json_object_new_object();
    json_object_object_add(d, "id", json_object_new_string(msg_id));
    json_object_object_add(d, "type", json_object_new_int(0));
    json_object_object_add(d, "channel_id", json_object_new_string(channel));
    json_object_object_add(d, "author", user_obj(user));
    json_object_object_add(d, "content", json_object_new_string(text));
    json_object_object_add(d, "mentions", mentions_in(text));
    json_object_object_add(d, "mention_roles", json_object_new_array());
    json_object_object_add(d, "attachments", json_object_new_array());
    json_object_object_add(d, "embeds", json_object_new_array());
    json_object_object_add(d, "tts", json_object_new_boolean(0));
    json_object_object_add(d, "pinned", json_object_new_boolean(0));
    if (guild) {
        json_object_object_add(d, "guild_id", json_object_new_string(guild));
        struct json_object *m = json_object_new_object();
        json_object_object_add(m, "roles", json_object_new_array());
        json_object_object_add(d, "member", m);
    }
    return d;
}

int64_t fdc_message(struct fd_server *s, const char *msg_id, const char *guild, const char *channel,
                    const char *user, const char *text)
{
    return send_dispatch(s, "MESSAGE_CREATE", message(msg_id, guild, channel, user, text));
}

int64_t fdc_reply(struct fd_server *s, const char *msg_id, const char *guild, const char *channel,
                  const char *user, const char *text, const char *to_message, bool ping)
{
    struct json_object *d = message(msg_id, guild, channel, user, text);
    struct json_object *ref = json_object_new_object();
    json_object_object_add(d, "type", json_object_new_int(19)); /* REPLY */
    json_object_object_add(ref, "type", json_object_new_int(0));
    json_object_object_add(ref, "message_id", json_object_new_string(to_message));
    json_object_object_add(ref, "channel_id", json_object_new_string(channel));
    if (guild)
        json_object_object_add(ref, "guild_id", json_object_new_string(guild));
    json_object_object_add(d, "message_reference", ref);
    /* a reply that pings its author (the default in Discord's clients)
     * mentions the bot, whose message it replies to */
    if (ping) {
        struct json_object *bot = json_object_new_object();
        json_object_object_add(bot, "id", json_object_new_string(FD_BOT_ID));
        json_object_object_add(bot, "username", json_object_new_string("illegald"));
        json_object_object_add(bot, "bot", json_object_new_boolean(1));
        json_object_array_add(json_object_object_get(d, "mentions"), bot);
    }
    return send_dispatch(s, "MESSAGE_CREATE", d);
}
