/*
 * fdclient.h - what Discord users do, as gateway dispatches on the test
 * server: slash commands, button and select clicks, reactions, messages.
 * Each returns the dispatch's sequence number.
 */
#ifndef FDCLIENT_H
#define FDCLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "fakediscord.h"

/* Permission bits a member may carry ("permissions" of the member object). */
#define FD_PERM_MANAGE_GUILD "32"
#define FD_PERM_NONE         "0"

/*
 * An APPLICATION_COMMAND interaction for the slash command whose word is sub,
 * wherever the bot registered it ("/illegal join", "/illegal host pause",
 * "/offer"), as Discord's client sends it; aborts when no command is sub
 * there (fd_slash_route). guild NULL: in the bot's DM (channel is the DM
 * channel). opts: a JSON array of {"name","type","value"} or NULL. perms: the
 * member's permissions.
 */
int64_t fdc_slash(struct fd_server *s, const char *ix_id, const char *guild, const char *channel,
                  const char *user, const char *sub, const char *opts, const char *perms);

/* A MESSAGE_COMPONENT interaction: a button (values NULL) or a select menu
 * (values: a JSON array of strings) on the bot's message message_id. */
int64_t fdc_component(struct fd_server *s, const char *ix_id, const char *guild,
                      const char *channel, const char *user, const char *message_id,
                      const char *custom_id, const char *values);

/* An APPLICATION_COMMAND interaction of the app's Entry Point command
 * ("launch", command type 4), as the App Launcher sends it. */
int64_t fdc_entry_point(struct fd_server *s, const char *ix_id, const char *guild,
                        const char *channel, const char *user);

/* An APPLICATION_COMMAND_AUTOCOMPLETE interaction: opts as in fdc_slash, the
 * focused option with "focused":true. */
int64_t fdc_autocomplete(struct fd_server *s, const char *ix_id, const char *guild,
                         const char *channel, const char *user, const char *sub, const char *opts);

/* MESSAGE_REACTION_ADD with a unicode emoji. guild NULL in a DM. */
int64_t fdc_reaction(struct fd_server *s, const char *guild, const char *channel,
                     const char *message_id, const char *user, const char *emoji);

/* The display name (username and global_name) of a user from now on. */
void fdc_set_name(const char *user, const char *name);
/* That name, or the id when none was set. */
const char *fdc_name(const char *user);

/* GUILD_CREATE of guild, owned by user owner, with its @everyone role alone. */
int64_t fdc_guild(struct fd_server *s, const char *guild, const char *owner);

/* MESSAGE_CREATE. guild NULL in a DM. Its mentions are the users text
 * mentions ("<@id>"). */
int64_t fdc_message(struct fd_server *s, const char *msg_id, const char *guild, const char *channel,
                    const char *user, const char *text);
/* MESSAGE_CREATE of a reply to the bot's message to_message, pinging the bot
 * (the default in Discord's clients) or not. */
int64_t fdc_reply(struct fd_server *s, const char *msg_id, const char *guild, const char *channel,
                  const char *user, const char *text, const char *to_message, bool ping);

#endif
