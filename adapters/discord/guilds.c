/*
 * guilds.c - guilds and their roles: who moderates a channel.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "bot/log.h"
#include "internal.h"

/* ---- moderators ---- */

uint64_t dc_parse_u64(const char *s)
{
    if (!s)
        return 0;
    /* Discord's snowflakes and permissions are plain digits: read by hand
     * (strtoull cost 440 instructions a command); anything else, or a number
     * that could pass 64 bits, as before */
    uint64_t v = 0;
    size_t i = 0;
    for (; s[i] >= '0' && s[i] <= '9'; i++) {
        if (i == 19)
            return strtoull(s, NULL, 10);
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return i ? v : strtoull(s, NULL, 10);
}

bool dc_moderates(struct dc *dc, const char *guild_id, const char *user_id, const char *permissions,
                  struct dc_roles *roles)
{
    if (permissions) {
        uint64_t p = dc_parse_u64(permissions);
        if (p & (PERM_ADMINISTRATOR | PERM_MANAGE_GUILD))
            return true;
    }
    struct dc_guild *g = guild_id ? map_get(&dc->guilds, guild_id) : NULL;
    if (g && g->owner && user_id && strcmp(g->owner, user_id) == 0)
        return true;
    uint64_t total = 0;
    if (g) {
        struct dc_role *everyone = map_get(&g->roles, guild_id);
        if (everyone)
            total |= everyone->perms;
    }
    for (const char *rid; (rid = roles->next(roles));) {
        struct dc_role *r = g ? map_get(&g->roles, rid) : NULL;
        if (dc->mod_role && *dc->mod_role &&
            (strcmp(rid, dc->mod_role) == 0 ||
             (r && r->name && strcasecmp(r->name, dc->mod_role) == 0)))
            return true;
        if (r)
            total |= r->perms;
    }
    return (total & (PERM_ADMINISTRATOR | PERM_MANAGE_GUILD)) != 0;
}

/* The role ids of a member object's "roles" array. */
struct json_roles {
    struct dc_roles roles; /* first: what next() is handed */
    struct json_object *array;
    size_t i;
};

static const char *json_role_next(struct dc_roles *roles)
{
    struct json_roles *r = (struct json_roles *)roles;
    const char *id = NULL;
    while (!id && r->i < jarr_len(r->array))
        id = jarr_str(r->array, r->i++);
    return id;
}

bool dc_is_moderator(struct dc *dc, const char *guild_id, const char *user_id,
                     struct json_object *member)
{
    struct json_roles roles = {{json_role_next}, jget_arr(member, "roles"), 0};
    return member &&
           dc_moderates(dc, guild_id, user_id, jget_str(member, "permissions"), &roles.roles);
}

static void guild_role(struct dc_guild *g, struct json_object *role)
{
    const char *id = jget_str(role, "id");
    if (!id)
        return;
    struct dc_role *r = calloc(1, sizeof(*r));
    if (!r)
        return;
    r->perms = dc_parse_u64(jget_str(role, "permissions"));
    r->name = dc_xstrdup(jget_str(role, "name"));
    void *old = NULL;
    if (map_put(&g->roles, id, r, &old) < 0)
        dc_role_free(r);
    if (old)
        dc_role_free(old);
}

static struct dc_guild *guild_get(struct dc *dc, const char *id)
{
    struct dc_guild *g = map_get(&dc->guilds, id);
    if (g)
        return g;
    g = calloc(1, sizeof(*g));
    if (!g)
        return NULL;
    map_init(&g->roles);
    if (map_put(&dc->guilds, id, g, NULL) < 0) {
        free(g);
        return NULL;
    }
    return g;
}

void dc_on_guild(struct dc *dc, const char *type, struct json_object *d)
{
    if (strcmp(type, "GUILD_CREATE") == 0 || strcmp(type, "GUILD_UPDATE") == 0) {
        const char *id = jget_str(d, "id");
        struct dc_guild *g = id ? guild_get(dc, id) : NULL;
        if (!g)
            return;
        const char *owner = jget_str(d, "owner_id");
        if (owner) {
            free(g->owner);
            g->owner = dc_xstrdup(owner);
        }
        struct json_object *roles = jget_arr(d, "roles");
        for (size_t i = 0; i < jarr_len(roles); i++)
            guild_role(g, jarr_at(roles, i));
    } else if (strcmp(type, "GUILD_ROLE_CREATE") == 0 || strcmp(type, "GUILD_ROLE_UPDATE") == 0) {
        const char *gid = jget_str(d, "guild_id");
        struct dc_guild *g = gid ? guild_get(dc, gid) : NULL;
        if (g)
            guild_role(g, jget_obj(d, "role"));
    } else if (strcmp(type, "GUILD_ROLE_DELETE") == 0) {
        const char *gid = jget_str(d, "guild_id"), *rid = jget_str(d, "role_id");
        struct dc_guild *g = gid ? map_get(&dc->guilds, gid) : NULL;
        if (g && rid) {
            struct dc_role *r = map_del(&g->roles, rid);
            if (r)
                dc_role_free(r);
        }
    } else if (strcmp(type, "GUILD_DELETE") == 0) {
        const char *id = jget_str(d, "id");
        struct dc_guild *g = id ? map_del(&dc->guilds, id) : NULL;
        if (g)
            dc_guild_free(g);
    }
}
