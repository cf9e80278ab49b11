/*
 * ixread.c - what the adapter reads of an INTERACTION_CREATE, from either
 * reader: json-c's tree of it, or the skimmer's spans of it (skim_ix.h),
 * both into one struct dc_ix_in (internal.h) that interactions.c, slash.c,
 * components.c and activity.c read, so what they do never depends on the
 * reader taken (test_skim_ix and the fuzz targets compare the two).
 */
#include <stdlib.h>
#include <string.h>

#include "bot/log.h"
#include "internal.h"

/* ---- json-c's tree ---- */

/* The command word of a command's data (its command, or the subcommand in
 * it, grouped or not) and, in *args, the options given to it. Borrowed from
 * data; NULL when data names none. */
static const char *slash_leaf(struct json_object *data, struct json_object **args)
{
    const char *word = jget_str(data, "name");
    struct json_object *opts = jget_arr(data, "options");
    for (int depth = 0; depth < GW_IX_SUB_DEPTH; depth++) {
        struct json_object *first = jarr_at(opts, 0);
        int64_t type = jget_int64_or(first, "type", 0);
        if (type != GW_IX_OPT_SUB && type != GW_IX_OPT_GROUP)
            break;
        word = jget_str(first, "name");
        opts = jget_arr(first, "options");
    }
    *args = opts;
    return word;
}

/* The options args into in (a string's or an integer's value). */
static void json_options(struct json_object *args, struct dc_ix_in *in)
{
    for (size_t i = 0; i < jarr_len(args) && i < GW_IX_LIST_MAX; i++) {
        struct json_object *o = jarr_at(args, i), *v = jget(o, "value");
        struct dc_ix_option *opt = &in->options[in->noptions++];
        bool string = json_object_is_type(v, json_type_string);
        *opt = (struct dc_ix_option){
            .name = jget_str(o, "name"),
            .value =
                string || json_object_is_type(v, json_type_int) ? json_object_get_string(v) : NULL,
            .string = string,
            .focused = jget_true(o, "focused"),
        };
    }
}

void dc_ix_read_json(struct dc *dc, struct json_object *d, struct dc_ix_read *r)
{
    struct dc_ix_in *in = &r->in;
    struct json_object *member = jget_obj(d, "member");
    struct json_object *user = member ? jget_obj(member, "user") : jget_obj(d, "user");
    struct json_object *data = jget_obj(d, "data"), *args = NULL;
    struct json_object *values = jget_arr(data, "values");
    r->decoded = NULL;
    *in = (struct dc_ix_in){
        .type = jget_int64_or(d, "type", 0),
        .data_type = jget_int64_or(data, "type", 0),
        .id = jget_str(d, "id"),
        .token = jget_str(d, "token"),
        .app_id = jget_str(d, "application_id"),
        .guild = jget_str(d, "guild_id"),
        .channel = jget_str(d, "channel_id"),
        .locale = jget_str(d, "locale"),
        .uid = jget_str(user, "id"),
        .user_name = jget_str(member, "nick"),
        .custom_id = jget_str(data, "custom_id"),
        .message_id = jget_str(jget_obj(d, "message"), "id"),
        .nvalues = jarr_len(values),
    };
    if (!in->user_name)
        in->user_name = jget_str(user, "global_name");
    if (!in->user_name)
        in->user_name = jget_str(user, "username");
    in->moderator = in->guild && in->uid && dc_is_moderator(dc, in->guild, in->uid, member);
    in->leaf = slash_leaf(data, &args);
    json_options(args, in);
    for (size_t i = 0; i < in->nvalues && i < GW_IX_LIST_MAX; i++)
        in->values[i] = jarr_str(values, i);
}

/* ---- the skimmer's spans ---- */

/* The skimmed strings decoded into a read's buffer, one after another. */
struct decoding {
    char *out;
};

/* s decoded at the decoding's end, as a C string; NULL when s is absent. */
static const char *decode(struct decoding *dec, const struct gw_span *s)
{
    if (!s->p)
        return NULL;
    const char *at = dec->out;
    dec->out += gw_span_string(s, dec->out) + 1;
    return at;
}

/* The room ix's strings take decoded, each with its NUL (none grows), and
 * a role's, decoded last. */
static size_t decoded_size(const struct gw_interaction *ix)
{
    const struct gw_span *all[] = {
        &ix->id,       &ix->token,       &ix->application_id, &ix->guild_id,  &ix->channel_id,
        &ix->locale,   &ix->nick,        &ix->permissions,    &ix->roles,     &ix->user_id,
        &ix->username, &ix->global_name, &ix->leaf,           &ix->custom_id, &ix->message_id};
    size_t n = 0;
    for (size_t i = 0; i < sizeof(all) / sizeof(*all); i++)
        n += GW_SPAN_DECODED_MAX(all[i]) + 1;
    for (unsigned i = 0; i < ix->noptions; i++)
        n += GW_SPAN_DECODED_MAX(&ix->options[i].name) +
             GW_SPAN_DECODED_MAX(&ix->options[i].value) + 2;
    for (unsigned i = 0; i < ix->nvalues; i++)
        n += GW_SPAN_DECODED_MAX(&ix->values[i]) + 1;
    return n;
}

/* The first of the names there is, as dc_ix_read_json() takes it. */
static const struct gw_span *span_name(const struct gw_interaction *ix)
{
    return ix->nick.p ? &ix->nick : ix->global_name.p ? &ix->global_name : &ix->username;
}

/* The leaf's options and the chosen values, decoded. */
static void decode_lists(struct decoding *dec, const struct gw_interaction *ix, struct dc_ix_in *in)
{
    for (unsigned i = 0; i < ix->noptions; i++) {
        const struct gw_ix_option *o = &ix->options[i];
        in->options[i] = (struct dc_ix_option){
            .name = decode(dec, &o->name),
            .value = decode(dec, &o->value),
            .string = o->value.p && !o->integer,
            .focused = o->focused,
        };
    }
    in->noptions = ix->noptions;
    for (unsigned i = 0; i < ix->nvalues; i++)
        in->values[i] = decode(dec, &ix->values[i]);
    in->nvalues = ix->nvalues;
}

bool dc_ix_read_skimmed(struct dc *dc, const struct gw_interaction *ix, struct dc_ix_read *r)
{
    struct dc_ix_in *in = &r->in;
    size_t size = decoded_size(ix);
    *in = (struct dc_ix_in){0};
    r->decoded = size <= sizeof(r->buf) ? r->buf : malloc(size);
    if (!r->decoded) {
        log_warn(DC_MOD, NULL, "no memory to read an interaction (%zu bytes)", size);
        return false;
    }
    struct decoding dec = {r->decoded};
    in->type = ix->type;
    in->data_type = ix->data_type;
    in->id = decode(&dec, &ix->id);
    in->token = decode(&dec, &ix->token);
    in->app_id = decode(&dec, &ix->application_id);
    in->guild = decode(&dec, &ix->guild_id);
    in->channel = decode(&dec, &ix->channel_id);
    in->locale = decode(&dec, &ix->locale);
    in->uid = decode(&dec, &ix->user_id);
    in->user_name = decode(&dec, span_name(ix));
    in->leaf = decode(&dec, &ix->leaf);
    in->custom_id = decode(&dec, &ix->custom_id);
    in->message_id = decode(&dec, &ix->message_id);
    decode_lists(&dec, ix, in);
    if (in->guild && in->uid && ix->member) {
        const char *permissions = decode(&dec, &ix->permissions);
        struct dc_span_roles roles = {{dc_span_role_next}, ix->roles, dec.out};
        in->moderator = dc_moderates(dc, in->guild, in->uid, permissions, &roles.roles);
    }
    return true;
}

void dc_ix_read_done(struct dc_ix_read *r)
{
    if (r->decoded != r->buf)
        free(r->decoded);
    r->decoded = NULL;
}
