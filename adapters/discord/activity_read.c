/*
 * activity_read.c - what Discord answers an Activity's authorization, read:
 * the OAuth2 token, the user behind it, the activity instance. Pure functions
 * of the answer (fuzzed: tests/discord/fuzz_discord_activity.c). Every field
 * goes through core/json.h's typed getters, and what is copied out is checked
 * for its form first: a snowflake is 1 to 20 digits, a token has no space.
 */
#include <string.h>
#include <strings.h>

#include "adapters/common/activity.h"
#include "internal.h"

static bool snowflake(const char *s)
{
    if (!s || !*s || strlen(s) > ACT_ID_MAX)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The bytes of s's longest prefix of whole UTF-8 characters within max bytes,
 * or 0 when s is empty or not UTF-8 there. */
static size_t utf8_prefix(const char *s, size_t max)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (p[i]) {
        size_t n = p[i] < 0x80             ? 1
                   : (p[i] & 0xE0) == 0xC0 ? 2
                   : (p[i] & 0xF0) == 0xE0 ? 3
                   : (p[i] & 0xF8) == 0xF0 ? 4
                                           : 0;
        if (!n || (n == 2 && p[i] < 0xC2))
            return 0;
        for (size_t k = 1; k < n; k++)
            if ((p[i + k] & 0xC0) != 0x80)
                return 0;
        if (i + n > max)
            break;
        i += n;
    }
    return i;
}

/* What a step that got no 200 means: Discord's own refusal, or its failure. */
static enum activity_refusal failed(long status)
{
    return status == 400 || status == 401 || status == 403 ? ACTIVITY_BAD_CODE
                                                           : ACTIVITY_UNAVAILABLE;
}

enum activity_refusal dc_activity_read_token(long status, const char *body,
                                             char token[ACT_TOKEN_MAX + 1])
{
    token[0] = '\0';
    if (status != 200)
        return failed(status);
    struct json_object *o = json_tokener_parse(body);
    const char *t = jget_str(o, "access_token"), *type = jget_str(o, "token_type");
    enum activity_refusal why = ACTIVITY_UNAVAILABLE;
    if (t && *t && strlen(t) <= ACT_TOKEN_MAX && !strpbrk(t, " \t\r\n") &&
        (!type || strcasecmp(type, "Bearer") == 0)) {
        memcpy(token, t, strlen(t) + 1);
        why = ACTIVITY_OK;
    }
    json_object_put(o);
    return why;
}

enum activity_refusal dc_activity_read_user(long status, const char *body, char id[ACT_ID_MAX + 1],
                                            char name[ACT_NAME_MAX + 1])
{
    id[0] = name[0] = '\0';
    if (status != 200)
        return failed(status);
    struct json_object *o = json_tokener_parse(body);
    const char *u = jget_str(o, "id");
    const char *n = jget_str(o, "global_name");
    if (!n || !*n)
        n = jget_str(o, "username"); /* no display name: the username is the name */
    enum activity_refusal why = ACTIVITY_UNAVAILABLE;
    if (snowflake(u)) {
        memcpy(id, u, strlen(u) + 1);
        /* the name cut within ACT_NAME_MAX bytes, at a character's start; one that is no
         * UTF-8 (which a page could not read) gives way to the id */
        size_t len = utf8_prefix(n ? n : "", ACT_NAME_MAX);
        if (!len) {
            n = u;
            len = strlen(u);
        }
        memcpy(name, n, len);
        name[len] = '\0';
        why = ACTIVITY_OK;
    }
    json_object_put(o);
    return why;
}

enum activity_refusal dc_activity_read_instance(long status, const char *body, const char *app,
                                                const char *user, char channel[ACT_ID_MAX + 1],
                                                char guild[ACT_ID_MAX + 1])
{
    channel[0] = guild[0] = '\0';
    if (status == 404)
        return ACTIVITY_NOT_IN_INSTANCE; /* no such instance (any more) */
    if (status != 200)
        return failed(status);
    struct json_object *o = json_tokener_parse(body);
    struct json_object *users = jget_arr(o, "users"), *where = jget_obj(o, "location");
    const char *owner = jget_str(o, "application_id");
    const char *c = jget_str(where, "channel_id"), *g = jget_str(where, "guild_id");
    bool in = false;
    for (size_t i = 0; i < jarr_len(users) && !in; i++) {
        const char *u = jarr_str(users, i);
        in = u && strcmp(u, user) == 0;
    }
    enum activity_refusal why = ACTIVITY_OK;
    if (!o || (owner && app && strcmp(owner, app) != 0) || !in)
        why = ACTIVITY_NOT_IN_INSTANCE;
    else if (!snowflake(c) || !snowflake(g)) /* a DM or a group DM: no table there */
        why = ACTIVITY_NO_CHANNEL;
    if (why == ACTIVITY_OK) {
        memcpy(channel, c, strlen(c) + 1);
        memcpy(guild, g, strlen(g) + 1);
    }
    json_object_put(o);
    return why;
}
