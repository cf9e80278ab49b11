/*
 * discord_limits.h - what Discord refuses in what a bot sends, as its documentation
 * (docs.discord.com/developers) says: message bodies (content, embeds,
 * allowed_mentions, components), interaction responses, and application
 * command registrations. The test server answers with it, and unit tests hold
 * what the adapter builds against it. Written from the documentation alone,
 * never from the adapter's code, so that it does not share its assumptions.
 *
 * Each check adds form errors shaped as Discord's 400 answers (code 50035,
 * "Invalid Form Body") carry them: {"embeds": {"0": {"description":
 * {"_errors": [{"code", "message"}]}}}}; a check that adds none means Discord
 * would take the body.
 *
 * Characters are counted in UTF-16 code units, as a JavaScript string's
 * length: the documentation says "characters" without saying how it counts
 * them, and no count gives more (an emoji outside the BMP is two). Names are
 * matched as the documentation's regular expression does, per code point.
 */
#ifndef DISCORD_LIMITS_H
#define DISCORD_LIMITS_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;

/* receiving-and-responding: an interaction's first answer within 3 s, then its
 * token for 15 minutes. */
#define LIM_ANSWER_MS 3000u
#define LIM_TOKEN_MS  (15u * 60u * 1000u)

struct lim_errors {
    struct json_object *errors; /* Discord's "errors" object */
    unsigned n;                 /* how many were added */
    int code;                   /* the API error code: 50035, or 50006 for an empty message */
};

void lim_init(struct lim_errors *e);
void lim_free(struct lim_errors *e);
/* The whole 400 answer ({"code","message","errors"}); a new reference. */
struct json_object *lim_answer(const struct lim_errors *e);

/* Where a message body goes: a new message in a channel (Create Message), an
 * interaction's follow-up (Execute Webhook, which may be ephemeral), or an
 * edit (of a message, of a webhook's or an interaction's). A new message
 * must show something. */
enum lim_where { LIM_CREATE, LIM_FOLLOWUP, LIM_EDIT };
void lim_message(struct lim_errors *e, struct json_object *body, enum lim_where where);
/* An interaction response: {"type", "data"}: a message, an update, a
 * deferral or autocomplete choices. */
void lim_callback(struct lim_errors *e, struct json_object *body);
/* A bulk overwrite of application commands: an array of commands. */
void lim_commands(struct lim_errors *e, struct json_object *commands);

/* The length Discord counts for s (UTF-16 code units). */
size_t lim_chars(const char *s);
/* A command's combined size: names, descriptions and values of the command,
 * its options and choices, each field counted at its longest localization. */
size_t lim_command_size(struct json_object *command);

#endif
