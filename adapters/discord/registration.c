/*
 * registration.c - whether the slash commands go to Discord at this start.
 *
 * A registration is a bulk overwrite of every command, about 42 KB of JSON
 * built from every language's words: Discord limits how many commands an
 * application may create a day, and the building reads texts the daemon
 * otherwise never touches. So each request's target (the global commands, or
 * one guild's) keeps a record in the store once Discord answered 2xx: what
 * made its body. A start whose record for a target is the same sends nothing
 * there, and builds nothing when no target is due.
 *
 * The record is the inputs, not the body: the body is what we want not to
 * build. It is one line of text, "<format> <build id> <application id>
 * <what>": the build id (bot/util/build_id.h) stands for everything compiled
 * in (the command tables, the catalog's words, the layout in slash.c), the
 * application id for whose commands they are, and <what> for what the target
 * takes from the settings: "guild" (a guild's commands), "commands" (the
 * global ones), "launch <language>" (the Activity's Entry Point command,
 * described in the settings' language), or both of the last two. Whatever
 * the store holds is only compared with it: a record damaged, of an older
 * format or never written reads as changed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/log.h"
#include "bot/util/build_id.h"
#include "internal.h"

#define RECORD_FORMAT 1 /* the record's layout: a new one makes every start register once */
#define RECORD_MAX    (2 * BUILD_ID_MAX + 128)
#define GUILD_KEY     "commands/guild/"

const char *dc_commands_key(char *out, size_t len, const char *guild)
{
    if (guild)
        snprintf(out, len, GUILD_KEY "%s", guild);
    else
        snprintf(out, len, "commands/global");
    return out;
}

/* What the target at key takes from the settings (the file's comment). */
static const char *what_of(const struct dc *dc, const char *key, char *out, size_t len)
{
    if (strncmp(key, GUILD_KEY, strlen(GUILD_KEY)) == 0)
        return "guild";
    if (!dc->activity_on)
        return "commands";
    snprintf(out, len, "%slaunch %s", dc->nguilds ? "" : "commands ",
             dc->language ? dc->language : "en");
    return out;
}

/* The record of what a registration at key would be made of, into out.
 * Returns false when this build has no id to tell it from another: then no
 * record is ever written or trusted, and every start registers. */
static bool record_of(const struct dc *dc, const char *key, char *out, size_t len)
{
    size_t n;
    const uint8_t *id = build_id(&n);
    char hex[2 * BUILD_ID_MAX + 1] = "", what[64];
    if (!n || !dc->app_id)
        return false;
    for (size_t i = 0; i < n; i++)
        snprintf(hex + 2 * i, 3, "%02x", id[i]);
    snprintf(out, len, "%d %s %s %s", RECORD_FORMAT, hex, dc->app_id,
             what_of(dc, key, what, sizeof what));
    return true;
}

/* Whether the commands at key must go: the operator forces it, or their
 * record is not what this start would register. */
static bool due(struct dc *dc, const char *key)
{
    char want[RECORD_MAX];
    if (dc->register_forced || !record_of(dc, key, want, sizeof want))
        return true;
    char *have = dc_gw_state_get(dc, key);
    bool same = have && strcmp(have, want) == 0;
    free(have);
    return !same;
}

/* Says in the log what this start does with the commands: n of targets due. */
static void log_plan(const struct dc *dc, unsigned n, unsigned targets)
{
    size_t idlen;
    build_id(&idlen);
    if (dc->register_forced)
        log_info(DC_MOD, NULL, "slash commands: registering them, as --register-commands asks");
    else if (!idlen)
        log_warn(DC_MOD, NULL,
                 "slash commands: registering them at every start: this build "
                 "has no build id to tell a changed set by");
    else if (n)
        log_info(DC_MOD, NULL,
                 "slash commands: registering them: changed since their last registration, "
                 "or never registered (%u of %u bulk overwrites)",
                 n, targets);
    else
        log_info(DC_MOD, NULL,
                 "slash commands: the same as at their last registration; not registered "
                 "again (illegald --register-commands registers them anyway)");
}

unsigned dc_commands_due(struct dc *dc, bool *global, bool guild[])
{
    char key[DC_COMMANDS_KEY_MAX];
    /* the Entry Point command is global only: with guild commands, it goes alone */
    bool has_global = dc->nguilds == 0 || dc->activity_on;
    *global = has_global && due(dc, dc_commands_key(key, sizeof key, NULL));
    unsigned n = *global;
    for (unsigned i = 0; i < dc->nguilds; i++) {
        guild[i] = due(dc, dc_commands_key(key, sizeof key, dc->guild_ids[i]));
        n += guild[i];
    }
    log_plan(dc, n, has_global + dc->nguilds);
    return n;
}

void dc_commands_answered(struct dc *dc, const char *key, long status, const char *body)
{
    char record[RECORD_MAX];
    if (dc->commands_pending)
        dc->commands_pending--;
    if (status < 200 || status >= 300) {
        dc_log_http_error("registering", "slash commands", status, body);
        return;
    }
    log_info(DC_MOD, NULL, "slash commands registered (%s)", key + strlen("commands/"));
    if (record_of(dc, key, record, sizeof record))
        dc_gw_state_set(dc, key, record);
}
