/*
 * invites.c - which room invites the bot takes, and which rooms it leaves.
 *
 * An invite is taken from a player (a user the bot has a direct room with),
 * a moderator (power level at moderator_power_level in a room the bot is in)
 * or a user invite_allow names (by default: any user of the bot's own
 * homeserver; "*": anyone). A direct chat is taken from anyone who has no
 * direct room with the bot yet. At most rooms_per_inviter rooms are joined on
 * one user's invites, and max_rooms in all; a flood of invites is declined,
 * at most MX_DECLINE_MAX a batch, and the rest ignored. A room the others
 * left, where the bot is the only member and no game runs, is left; a room
 * that only looks empty (one the bot has just created, before its invites)
 * is not: leaving follows someone's departure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "../../bot/log.h"
#include "client.h"
#include "mx.h"

#define MOD            "matrix"
#define MX_DECLINE_MAX 50

/* Whether list (invite_allow's form: users and servers, comma separated) names user. */
static bool list_names(const char *list, const char *user)
{
    const char *colon = strchr(user, ':');
    const char *p = list;
    while (*p) {
        while (*p == ' ' || *p == ',')
            p++;
        size_t n = strcspn(p, ",");
        size_t k = n;
        while (k > 0 && p[k - 1] == ' ')
            k--;
        if (k == 1 && p[0] == '*')
            return true;
        if (k > 0 && p[0] == '@' && strlen(user) == k && strncmp(user, p, k) == 0)
            return true;
        if (k > 0 && p[0] != '@' && colon && strlen(colon + 1) == k &&
            strncmp(colon + 1, p, k) == 0)
            return true;
        p += n;
    }
    return false;
}

bool mx_invite_allowed(struct mx *m, const char *inviter)
{
    if (!inviter)
        return false;
    if (m->invite_allow && *m->invite_allow)
        return list_names(m->invite_allow, inviter);
    const char *own = m->user_id ? strchr(m->user_id, ':') : NULL; /* its own server */
    return own && list_names(own + 1, inviter);
}

/* Whether user plays (has a direct room with the bot) or moderates a room the bot is in. */
static bool known_user(struct mx *m, const char *user)
{
    if (jget_arr(m->direct, user))
        return true;
    struct mx_room *r;
    SLIST_FOREACH(r, &m->rooms, link)
    {
        int64_t level;
        if (r->joined && jget_int64(r->power, user, &level) == 0 && level >= m->mod_level)
            return true;
    }
    return false;
}

/* Rooms joined (or being joined) in all, and on inviter's invites. */
static void count_rooms(struct mx *m, const char *inviter, size_t *all, size_t *theirs)
{
    *all = (size_t)json_object_object_length(m->joining);
    *theirs = 0;
    struct mx_room *r;
    SLIST_FOREACH(r, &m->rooms, link)
    {
        if (!r->joined || jget(m->joining, r->id))
            continue;
        (*all)++;
        if (r->inviter && inviter && strcmp(r->inviter, inviter) == 0 && !r->dm_for &&
            !mx_dm_user(m, r->id))
            (*theirs)++;
    }
    json_object_object_foreach(m->joining, room, dm)
    {
        struct mx_room *jr = mx_room_get(m, room, false);
        const char *d = json_object_get_string(dm);
        if (jr && jr->inviter && inviter && strcmp(jr->inviter, inviter) == 0 && (!d || !*d))
            (*theirs)++;
    }
}

/* Why an invite to room from inviter (a direct chat when direct) is declined, or NULL. */
static const char *refusal(struct mx *m, const char *inviter, bool direct)
{
    size_t all, theirs;
    count_rooms(m, inviter, &all, &theirs);
    if (!inviter)
        return "no inviter";
    if (all >= (size_t)m->max_rooms)
        return "max_rooms reached";
    if (direct)
        return mx_dm_room(m, inviter) ? "a direct room with them already exists" : NULL;
    if (!mx_invite_allowed(m, inviter) && !known_user(m, inviter))
        return "not a player, a moderator, or allowed by invite_allow";
    if (theirs >= (size_t)m->rooms_per_inviter)
        return "rooms_per_inviter reached";
    return NULL;
}

static void decline(struct mx *m, const char *room_id)
{
    char *er = mx_escape(room_id);
    char path[1024];
    if (er)
        snprintf(path, sizeof(path), "/_matrix/client/v3/rooms/%s/leave", er);
    if (!er ||
        !mx_http_call(m->http, "POST", path, "{}", MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, NULL, NULL))
        log_error(MOD, NULL, "no memory to leave %s", room_id);
    free(er);
}

void mx_invite(struct mx *m, const char *room_id, const char *inviter, bool direct)
{
    const char *why = refusal(m, inviter, direct);
    if (why) {
        if (m->declined++ < MX_DECLINE_MAX) {
            log_info(MOD, NULL, "invite to %s by %s declined: %s", room_id, inviter ? inviter : "?",
                     why);
            decline(m, room_id);
        } else if (m->declined == MX_DECLINE_MAX + 1) {
            log_warn(MOD, NULL, "more than %d invites declined in one batch; the rest are ignored",
                     MX_DECLINE_MAX);
        }
        return;
    }
    log_info(MOD, NULL, "invited to %s by %s%s: joining", room_id, inviter,
             direct ? " (a direct chat)" : "");
    struct mx_room *r = mx_room_get(m, room_id, true);
    if (r && !r->inviter && (r->inviter = strdup(inviter)))
        r->dirty = true;
    /* A direct chat someone opens with the bot is their DM room: what they write there
     * reaches the dispatcher as a private message, game or not. */
    mx_join(m, room_id, direct ? inviter : NULL);
}

static enum mx_next on_left(void *arg, const struct mx_resp *r)
{
    struct mx_req *q = arg;
    if (r->status == 200)
        log_info(MOD, NULL, "left %s, where nobody else was", q->key);
    mx_req_free(q);
    return MX_DONE;
}

void mx_rooms_tidy(struct mx *m)
{
    struct mx_room *r;
    SLIST_FOREACH(r, &m->rooms, link)
    {
        bool left = r->someone_left;
        r->someone_left = false;
        if (!left || !r->joined || r->joined_n != 1 || r->invited_n > 0 || jget(m->tables, r->id) ||
            jget(m->joining, r->id))
            continue;
        char *er = mx_escape(r->id);
        struct mx_req *q = er ? mx_req_new(m, r->id) : NULL;
        char path[1024];
        snprintf(path, sizeof path, "/_matrix/client/v3/rooms/%s/leave", er ? er : "");
        free(er);
        if (!q)
            continue;
        if (!mx_http_call(m->http, "POST", path, "{}", MX_CALL_TIMEOUT_MS, MX_CALL_RETRY, on_left,
                          q)) {
            mx_req_free(q);
            continue;
        }
        r->joined = false;
        r->dirty = true;
    }
}

void mx_tables_note(struct mx *m, const char *table, bool running)
{
    if (running == (jget(m->tables, table) != NULL))
        return;
    if (running)
        json_object_object_add(m->tables, table, json_object_new_boolean(1));
    else
        json_object_object_del(m->tables, table);
    mx_state_set_json(m, "tables", m->tables);
}
