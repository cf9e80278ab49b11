/*
 * inbound.c - gateway dispatches turned into inbound inputs, and slash-command
 * registration.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "bot/command.h"
#include "bot/log.h"
#include "internal.h"
#include "skim.h"

/* ---- inbound ---- */

static const char *display_name(struct json_object *author, struct json_object *member)
{
    const char *n = jget_str(member, "nick");
    if (!n)
        n = jget_str(author, "global_name");
    if (!n)
        n = jget_str(author, "username");
    return n;
}

/* The rest of text after a leading mention of the bot ("<@id>" or
 * "<@!id>"), or NULL when it starts with none. */
static const char *after_mention(const struct dc *dc, const char *text)
{
    const char *self = dc->self_id ? dc->self_id : dc->app_id;
    size_t n = self ? strlen(self) : 0;
    if (!n || strncmp(text, "<@", 2) != 0)
        return NULL;
    text += 2;
    if (*text == '!')
        text++;
    if (strncmp(text, self, n) != 0 || text[n] != '>')
        return NULL;
    for (text += n + 1; *text == ' '; text++)
        ;
    return text;
}

/* Whether d replies to one of the bot's messages and pings it (a reply that
 * does not ping the bot does not mention it, and without the Message Content
 * intent Discord gives no text for it). */
static bool replies_to_bot(struct dc *dc, struct json_object *d)
{
    const char *self = dc->self_id ? dc->self_id : dc->app_id;
    struct json_object *mentions = jget_arr(d, "mentions");
    bool pinged = false;
    for (size_t i = 0; self && i < jarr_len(mentions) && !pinged; i++) {
        const char *id = jget_str(jarr_at(mentions, i), "id");
        pinged = id && strcmp(id, self) == 0;
    }
    if (!pinged)
        return false;
    const char *author = jget_str(jget_obj(jget_obj(d, "referenced_message"), "author"), "id");
    if (author)
        return strcmp(author, self) == 0;
    /* no copy of the message replied to: ours if we know its id */
    const char *ref = jget_str(jget_obj(d, "message_reference"), "message_id");
    char *key = ref ? dc_msg_key_of(dc, ref) : NULL;
    bool ours = key != NULL;
    free(key);
    return ours;
}

/*
 * The command a line typed in a table gives, or NULL for chat (or no memory):
 * "!illegal ..." as it is, text itself past its spaces; a line that starts
 * with the bot's mention ("@bot join"), the same as "!illegal join" (a bare
 * mention asks for help); a reply to the bot that pings it and starts with a
 * command word ("join"), the same. The last two are the ways that work
 * without the Message Content intent, and are written into *made (malloc'd,
 * the caller's to free).
 */
static const char *table_command(struct dc *dc, struct json_object *d, const char *text,
                                 char **made)
{
    while (*text == ' ')
        text++;
    size_t np = strlen(PLATFORM_COMMAND_PREFIX);
    if (strncasecmp(text, PLATFORM_COMMAND_PREFIX, np) == 0)
        return text;
    const char *rest = after_mention(dc, text);
    bool reply = !rest && *text && replies_to_bot(dc, d);
    if (reply) {
        char word[32];
        size_t n = strcspn(text, " ");
        snprintf(word, sizeof word, "%.*s", (int)n, text);
        if (!command_find(word, CMD_IN_TABLE | CMD_IN_PRIVATE))
            return NULL; /* chat in reply to an announcement */
        rest = text;
    }
    if (!rest)
        return NULL;
    if (strncasecmp(rest, PLATFORM_COMMAND_PREFIX, np) == 0)
        return rest;
    struct buf b;
    buf_init(&b, DC_COMMAND_TEXT_MAX);
    if (buf_printf(&b, "%s %s", PLATFORM_COMMAND_PREFIX, *rest ? rest : "help") < 0) {
        buf_free(&b);
        return NULL;
    }
    return *made = buf_take(&b);
}

/* What the bot's input from a MESSAGE_CREATE needs of it, as C strings
 * borrowed from either reader: json-c's tree of it, or the skimmer's spans
 * decoded. */
struct message {
    const char *id, *channel, *guild, *content, *uid;
    bool bot;
    struct json_object *d; /* the whole "d", for a reply's mentions; NULL when
                              skimmed (the skimmer hands on no reply) */
};

/* The input m gives into r (r->in's user_name and moderator left for the
 * reader, since only a message read needs them); false when the adapter
 * ignores it. A DM notes its channel as the author's. */
static bool message_input(struct dc *dc, const struct message *m, struct dc_read *r)
{
    const char *text = m->content;
    if (!m->uid || !text || !m->channel || m->bot ||
        (dc->self_id && strcmp(m->uid, dc->self_id) == 0))
        return false;
    if (m->guild) {
        /* in a table only what is addressed to the bot matters */
        if (!(text = table_command(dc, m->d, text, &r->command)))
            return false;
    } else {
        struct dc_user *u = dc_user_get(dc, m->uid);
        if (u && !u->dm_channel) {
            u->dm_channel = dc_xstrdup(m->channel);
            /* a guild-less channel may be shared (a group DM): the last
             * author's id replaces the one before it */
            char *k = dc_xstrdup(m->uid);
            void *old = NULL;
            if (k && map_put(&dc->dm_users, m->channel, k, &old) < 0)
                free(k);
            free(old);
        }
        if (u)
            u->reachable = true;
        /* "@bot hand" in a DM is "hand" */
        const char *rest = after_mention(dc, text);
        if (rest)
            text = rest;
    }
    r->in = (struct inbound){
        .type = INBOUND_MESSAGE,
        .channel = m->guild ? m->channel : NULL,
        .user = m->uid,
        .text = text,
        .community = m->guild,
        .order = dc_parse_u64(m->id),
    };
    return true;
}

/* r as nothing read yet (its buffer left as it is: only what is decoded
 * into it is read). */
static void read_start(struct dc_read *r)
{
    r->in = (struct inbound){0};
    r->command = NULL;
    r->decoded = NULL;
}

bool dc_read_message(struct dc *dc, struct json_object *d, struct dc_read *r)
{
    struct json_object *author = jget_obj(d, "author"), *member = jget_obj(d, "member");
    struct message m = {
        .id = jget_str(d, "id"),
        .channel = jget_str(d, "channel_id"),
        .guild = jget_str(d, "guild_id"),
        .content = jget_str(d, "content"),
        .uid = jget_str(author, "id"),
        .bot = jget_true(author, "bot"),
        .d = d,
    };
    read_start(r);
    if (!message_input(dc, &m, r))
        return false;
    r->in.user_name = display_name(author, member);
    r->in.moderator = m.guild && dc_is_moderator(dc, m.guild, m.uid, member);
    return true;
}

/* A skimmed message's strings decoded into a read's buffer, one after another. */
struct decoding {
    struct dc_read *r;
    size_t at;
};

/* s decoded at the decoding's end, as a C string; NULL when s is absent. */
static const char *decode(struct decoding *dec, const struct gw_span *s)
{
    if (!s->p)
        return NULL;
    char *out = dec->r->decoded + dec->at;
    dec->at += gw_span_string(s, out) + 1;
    return out;
}

const char *dc_span_role_next(struct dc_roles *roles)
{
    struct dc_span_roles *r = (struct dc_span_roles *)roles;
    struct gw_span id;
    if (!r->rest.p || !gw_span_next_string(&r->rest, &id))
        return NULL;
    gw_span_string(&id, r->out);
    return r->out;
}

/* The room m's strings take decoded, each with its NUL: none grows. */
static size_t decoded_size(const struct gw_message *m)
{
    const struct gw_span *all[] = {&m->id,          &m->channel_id, &m->guild_id,    &m->content,
                                   &m->author_id,   &m->username,   &m->global_name, &m->nick,
                                   &m->permissions, &m->roles};
    size_t n = 0;
    for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
        n += GW_SPAN_DECODED_MAX(all[i]) + 1;
    return n;
}

/* The first of a skimmed message's names there is, as display_name(). */
static const struct gw_span *span_name(const struct gw_message *m)
{
    return m->nick.p ? &m->nick : m->global_name.p ? &m->global_name : &m->username;
}

bool dc_read_skimmed(struct dc *dc, const struct gw_message *sm, struct dc_read *r)
{
    read_start(r);
    size_t size = decoded_size(sm);
    r->decoded = size <= sizeof(r->buf) ? r->buf : malloc(size);
    if (!r->decoded) {
        log_warn(DC_MOD, NULL, "no memory to read a message (%zu bytes)", size);
        return false;
    }
    struct decoding dec = {r, 0};
    struct message m = {
        .id = decode(&dec, &sm->id),
        .channel = decode(&dec, &sm->channel_id),
        .guild = decode(&dec, &sm->guild_id),
        .content = decode(&dec, &sm->content),
        .uid = decode(&dec, &sm->author_id),
        .bot = sm->bot,
    };
    if (!message_input(dc, &m, r))
        return false;
    r->in.user_name = decode(&dec, span_name(sm));
    if (m.guild && sm->member) {
        const char *permissions = decode(&dec, &sm->permissions);
        struct dc_span_roles roles = {{dc_span_role_next}, sm->roles, r->decoded + dec.at};
        r->in.moderator = dc_moderates(dc, m.guild, m.uid, permissions, &roles.roles);
    }
    return true;
}

void dc_read_done(struct dc_read *r)
{
    free(r->command);
    if (r->decoded != r->buf)
        free(r->decoded);
    read_start(r);
}

static void on_reaction(struct dc *dc, struct json_object *d, int64_t seq)
{
    const char *uid = jget_str(d, "user_id"), *mid = jget_str(d, "message_id");
    const char *channel = jget_str(d, "channel_id"), *guild = jget_str(d, "guild_id");
    struct json_object *member = jget_obj(d, "member"), *emoji = jget_obj(d, "emoji");
    if (!uid || !mid || !emoji || (dc->self_id && strcmp(uid, dc->self_id) == 0) ||
        jget_true(jget_obj(member, "user"), "bot"))
        return;
    char *stored = dc_msg_key_of(dc, mid);
    const char *key = stored;
    if (!key)
        return;
    const char *name = jget_str(emoji, "name"), *eid = jget_str(emoji, "id");
    char custom[160];
    if (eid) {
        snprintf(custom, sizeof(custom), "%s:%s", name ? name : "", eid);
        name = custom;
    }
    if (!name) {
        free(stored);
        return;
    }
    struct inbound in = {
        .type = INBOUND_REACTION,
        .channel = guild ? channel : NULL,
        .user = uid,
        .user_name = display_name(jget_obj(member, "user"), member),
        .moderator = guild ? dc_is_moderator(dc, guild, uid, member) : false,
        .msg_key = key,
        .reaction = name,
        .community = guild,
        .order = (uint64_t)seq,
    };
    dc_deliver(dc, &in);
    free(stored);
}

/* Queues the registration at path for the record key (registration.c). */
static void put_commands(struct dc *dc, const char *body, const char *path, const char *key)
{
    struct dc_op *op = dc_op_new(dc, DC_OP_COMMANDS);
    if (!op || !(op->body = dc_xstrdup(body)) || !(op->key = dc_xstrdup(key))) {
        dc_op_free(op);
        return;
    }
    if (dc_rest(dc, op, "commands", "PUT", path, 0) == 0)
        dc->commands_pending++;
}

void dc_register_commands(struct dc *dc)
{
    if (dc->commands_registered || !dc->app_id)
        return;
    dc->commands_registered = true;
    bool global, guild[CONFIG_MAX_GUILDS];
    /* built only when a registration goes: every language's words, 42 KB */
    unsigned due = dc_commands_due(dc, &global, guild);
    if (!due)
        return;
    bool guilds_due = due > (unsigned)global;
    struct json_object *cmds =
        dc->nguilds == 0 || guilds_due ? dc_commands_json(dc->nguilds == 0) : NULL;
    /* the Entry Point command is global only: with guild commands, it goes alone */
    struct json_object *all = dc->nguilds ? json_object_new_array() : json_object_get(cmds);
    if (dc->activity_on)
        json_object_array_add(all, dc_activity_entry_point(dc));
    char path[256], key[DC_COMMANDS_KEY_MAX];
    if (global) {
        snprintf(path, sizeof(path), "/applications/%s/commands", dc->app_id);
        put_commands(dc, json_object_to_json_string_ext(all, JSON_C_TO_STRING_PLAIN), path,
                     dc_commands_key(key, sizeof key, NULL));
    }
    const char *body =
        guilds_due ? json_object_to_json_string_ext(cmds, JSON_C_TO_STRING_PLAIN) : "";
    for (unsigned i = 0; i < dc->nguilds; i++) {
        if (!guild[i])
            continue;
        snprintf(path, sizeof(path), "/applications/%s/guilds/%s/commands", dc->app_id,
                 dc->guild_ids[i]);
        put_commands(dc, body, path, dc_commands_key(key, sizeof key, dc->guild_ids[i]));
    }
    json_object_put(all);
    json_object_put(cmds);
}

void dc_on_dispatch(void *ud, int shard, const char *type, struct json_object *d, int64_t seq)
{
    struct dc *dc = ud;
    (void)shard;
    if (dc->stopping)
        return;
    if (strcmp(type, "READY") == 0) {
        const char *id = jget_str(jget_obj(d, "user"), "id");
        if (id && !dc->self_id)
            dc->self_id = dc_xstrdup(id);
        const char *app = jget_str(jget_obj(d, "application"), "id");
        if (app && !dc->app_id)
            dc->app_id = dc_xstrdup(app);
        dc_register_commands(dc);
    } else if (strcmp(type, "MESSAGE_CREATE") == 0) {
        struct dc_read r;
        if (dc_read_message(dc, d, &r))
            dc_deliver(dc, &r.in);
        dc_read_done(&r);
    } else if (strcmp(type, "MESSAGE_REACTION_ADD") == 0) {
        on_reaction(dc, d, seq);
    } else if (strcmp(type, "INTERACTION_CREATE") == 0) {
        struct dc_ix_read r;
        dc_ix_read_json(dc, d, &r);
        dc_interaction(dc, &r.in);
        dc_ix_read_done(&r);
    } else if (strncmp(type, "GUILD_", 6) == 0) {
        dc_on_guild(dc, type, d);
    }
}

void dc_on_message(void *ud, int shard, const struct gw_message *m, int64_t seq)
{
    struct dc *dc = ud;
    struct dc_read r;
    (void)shard;
    (void)seq; /* a message's order is its id, as on_dispatch's */
    if (dc->stopping)
        return;
    if (dc_read_skimmed(dc, m, &r))
        dc_deliver(dc, &r.in);
    dc_read_done(&r);
}

void dc_on_interaction(void *ud, int shard, const struct gw_interaction *ix, int64_t seq)
{
    struct dc *dc = ud;
    struct dc_ix_read r;
    (void)shard;
    (void)seq;
    if (dc->stopping)
        return;
    if (dc_ix_read_skimmed(dc, ix, &r))
        dc_interaction(dc, &r.in);
    dc_ix_read_done(&r);
}

void discord_gateway_input(struct platform *p, const char *payload, size_t len)
{
    /* the shard's way: skimmed first (gateway.c, handle_message) */
    int64_t seq;
    struct gw_message message;
    struct gw_interaction ix;
    switch (gw_skim(payload, len, &seq, &message)) {
    case GW_SKIM_IGNORE:
        return;
    case GW_SKIM_MESSAGE:
        dc_on_message(p, 0, &message, seq);
        return;
    case GW_SKIM_PARSE:
        if (gw_skim_ix(payload, len, &seq, &ix)) {
            dc_on_interaction(p, 0, &ix, seq);
            return;
        }
        break;
    }
    struct gw_payload gp;
    struct json_object *o = gw_decode(payload, len, &gp);
    if (o && gp.op == 0 && gp.type)
        dc_on_dispatch(p, 0, gp.type, gp.d, gp.seq);
    json_object_put(o);
}
