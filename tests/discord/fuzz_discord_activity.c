/*
 * fuzz_discord_activity.c - Discord's answers to an Activity's authorization
 * (adapters/discord/activity_read.c): the token endpoint's, /users/@me's and
 * the activity instance's, whatever their status and body.
 *
 * Input: a byte choosing the answer read (token, user, instance), a byte
 * choosing its HTTP status, then the body. What a reader lets through must
 * have its form: a token without spaces, ids of digits.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const long statuses[] = {200, 200, 200, 400, 401, 403, 404, 429, 500, 0};
    if (size < 2)
        return 0;
    char *body = malloc(size - 1);
    if (!body)
        return 0;
    memcpy(body, data + 2, size - 2);
    body[size - 2] = '\0';
    long status = statuses[data[1] % (sizeof statuses / sizeof statuses[0])];
    char token[ACT_TOKEN_MAX + 1], id[ACT_ID_MAX + 1], name[ACT_NAME_MAX + 1];
    char channel[ACT_ID_MAX + 1], guild[ACT_ID_MAX + 1];
    switch (data[0] % 3) {
    case 0:
        if (dc_activity_read_token(status, body, token) == ACTIVITY_OK &&
            (!*token || strchr(token, ' ')))
            abort();
        break;
    case 1:
        if (dc_activity_read_user(status, body, id, name) == ACTIVITY_OK && (!digits(id) || !*name))
            abort();
        break;
    default:
        if (dc_activity_read_instance(status, body, "900000000000000002", "610000000000000011",
                                      channel, guild) == ACTIVITY_OK &&
            (!digits(channel) || !digits(guild)))
            abort();
        break;
    }
    free(body);
    return 0;
}
