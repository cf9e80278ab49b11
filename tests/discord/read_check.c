/*
 * read_check.c - the spans' reader against json-c's (read_check.h).
 */
#include <string.h>

#include "adapters/discord/internal.h"
#include "bot/dispatcher.h"
#include "read_check.h"
#include "tests/fuzz/fuzz_host.h"

/* A guild the readers' moderator answers depend on: its owner, a role that
 * administers it, and a role named as [discord] moderator_role. */
static const char guild[] =
    "{\"op\":0,\"t\":\"GUILD_CREATE\",\"s\":1,\"d\":{\"id\":\"7001\",\"owner_id\":\"6100\","
    "\"roles\":[{\"id\":\"7001\",\"name\":\"@everyone\",\"permissions\":\"0\"},"
    "{\"id\":\"9001\",\"name\":\"admins\",\"permissions\":\"8\"},"
    "{\"id\":\"9002\",\"name\":\"Game Masters\",\"permissions\":\"0\"}]}}";

/* The bot's own user: its messages are refused. */
static const char ready[] = "{\"op\":0,\"t\":\"READY\",\"s\":2,\"d\":{\"session_id\":\"s1\","
                            "\"user\":{\"id\":\"900000000000000001\"}}}";

struct platform *read_check_adapter(struct fuzz_host *h)
{
    char err[512];
    fuzz_host_config(h);
    fuzz_host_set(&h->config.discord_token, "test-token");
    fuzz_host_set(&h->config.discord_api_url, "http://127.0.0.1:9/api/v10");
    fuzz_host_set(&h->config.discord_application_id, "900000000000000001");
    fuzz_host_set(&h->config.discord_moderator_role, "game masters");
    fuzz_host_open(h);
    struct platform *p = discord_platform_new(&h->config, dispatcher_host(h->d), err, sizeof err);
    if (!p || dispatcher_add_platform(h->d, p) < 0)
        return NULL;
    discord_gateway_input(p, ready, strlen(ready));
    discord_gateway_input(p, guild, strlen(guild));
    return p;
}

/* Whether two borrowed strings are the same, or both absent. */
static bool same(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* What differs between two inputs, or NULL. */
static const char *differs(const struct inbound *a, const struct inbound *b)
{
    if (a->type != b->type)
        return "another type";
    if (!same(a->channel, b->channel) || !same(a->community, b->community))
        return "another channel";
    if (!same(a->user, b->user) || !same(a->user_name, b->user_name))
        return "another user";
    if (a->moderator != b->moderator)
        return "another moderator answer";
    if (!same(a->text, b->text))
        return "another text";
    if (a->order != b->order)
        return "another order";
    return NULL;
}

const char *read_check(struct platform *p, const char *txt, size_t len, bool *read)
{
    struct dc *dc = (struct dc *)p;
    int64_t seq;
    struct gw_message m;
    *read = false;
    if (gw_skim(txt, len, &seq, &m) != GW_SKIM_MESSAGE)
        return NULL;
    struct gw_payload gp;
    struct json_object *o = gw_decode(txt, len, &gp);
    if (!o)
        return "the full parse reads nothing";
    struct dc_read spans, parsed;
    *read = dc_read_skimmed(dc, &m, &spans);
    bool parsed_read = dc_read_message(dc, gp.d, &parsed);
    const char *why = *read != parsed_read ? "one reader ignores it, the other does not"
                      : *read              ? differs(&spans.in, &parsed.in)
                                           : NULL;
    dc_read_done(&spans);
    dc_read_done(&parsed);
    json_object_put(o);
    return why;
}

/* What differs between two options, or NULL. */
static const char *option_differs(const struct dc_ix_option *a, const struct dc_ix_option *b)
{
    if (!same(a->name, b->name))
        return "an option's other name";
    if (!same(a->value, b->value) || a->string != b->string)
        return "an option's other value";
    if (a->focused != b->focused)
        return "an option focused in one only";
    return NULL;
}

/* What differs between two interactions read, or NULL. */
static const char *ix_differs(const struct dc_ix_in *a, const struct dc_ix_in *b)
{
    if (a->type != b->type || a->data_type != b->data_type)
        return "another type";
    if (!same(a->id, b->id) || !same(a->token, b->token) || !same(a->app_id, b->app_id))
        return "another id, token or application";
    if (!same(a->guild, b->guild) || !same(a->channel, b->channel) || !same(a->locale, b->locale))
        return "another guild, channel or locale";
    if (!same(a->uid, b->uid) || !same(a->user_name, b->user_name))
        return "another user";
    if (a->moderator != b->moderator)
        return "another moderator answer";
    if (!same(a->leaf, b->leaf) || a->noptions != b->noptions)
        return "another command";
    for (unsigned i = 0; i < a->noptions; i++)
        if (option_differs(&a->options[i], &b->options[i]))
            return option_differs(&a->options[i], &b->options[i]);
    if (!same(a->custom_id, b->custom_id) || !same(a->message_id, b->message_id))
        return "another component";
    if (a->nvalues != b->nvalues)
        return "another count of values";
    for (size_t i = 0; i < a->nvalues && i < GW_IX_LIST_MAX; i++)
        if (!same(a->values[i], b->values[i]))
            return "another value chosen";
    return NULL;
}

const char *ix_read_check(struct platform *p, const char *txt, size_t len, bool *read)
{
    struct dc *dc = (struct dc *)p;
    int64_t seq;
    struct gw_interaction ix;
    *read = gw_skim_ix(txt, len, &seq, &ix);
    if (!*read)
        return NULL;
    struct gw_payload gp;
    struct json_object *o = gw_decode(txt, len, &gp);
    const char *why = NULL;
    if (!o || gp.op != 0 || !gp.type || strcmp(gp.type, "INTERACTION_CREATE") != 0)
        why = "the full parse reads no INTERACTION_CREATE";
    else if (gp.seq != seq)
        why = "another sequence";
    struct dc_ix_read spans = {0}, parsed = {0};
    if (!why && !dc_ix_read_skimmed(dc, &ix, &spans))
        why = "no memory for the spans";
    if (!why) {
        dc_ix_read_json(dc, gp.d, &parsed);
        why = ix_differs(&spans.in, &parsed.in);
    }
    dc_ix_read_done(&spans);
    dc_ix_read_done(&parsed);
    json_object_put(o);
    return why;
}
