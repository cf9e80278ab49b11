/*
 * skim.h - a gateway message told from its text, without json-c's parse of
 * all of it: ignored, or read only as far as the adapter needs.
 */
#ifndef DISCORD_SKIM_H
#define DISCORD_SKIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What gw_skim() made of a gateway message. */
enum gw_skim {
    GW_SKIM_PARSE,   /* anything else, or the skimmer is not sure: parse it properly */
    GW_SKIM_IGNORE,  /* a dispatch the adapter ignores */
    GW_SKIM_MESSAGE, /* a MESSAGE_CREATE the adapter reads: see message below */
};

/*
 * A member's value where the skimmer found it, in the gateway message's own
 * text: borrowed from the caller of gw_skim(), valid as long as that text.
 * For a string, p is NULL when the member is absent or of another type (as
 * json-c's typed getters read nothing from it), else its bytes between the
 * quotes as written: gw_span_string() decodes them.
 */
struct gw_span {
    const char *p;
    size_t len;
    bool escaped; /* a string holding a backslash */
};

/* What the adapter reads of a MESSAGE_CREATE's "d" (inbound.c's
 * dc_read_skimmed(), guilds.c's dc_moderates()): nothing else is kept. */
struct gw_message {
    struct gw_span id, channel_id, guild_id, content;
    bool author;                                     /* "author" is an object: */
    struct gw_span author_id, username, global_name; /* its strings */
    bool bot;                                        /* its "bot" is true */
    bool member;                                     /* "member" is an object: */
    struct gw_span nick, permissions;                /* its strings */
    struct gw_span roles; /* its "roles": the array's text between its brackets, p NULL
                             when no array; gw_span_next_string() reads its strings */
};

/*
 * Skims the gateway message txt (len bytes). GW_SKIM_IGNORE: a MESSAGE_CREATE
 * in a guild channel whose content starts with neither "!illegal" nor a
 * mention ("<@") and that mentions nobody, or one whose author is a bot
 * ("bot": true, as the echo of each of the bot's own). GW_SKIM_MESSAGE (only
 * when message is not NULL): any other MESSAGE_CREATE but a guild line that
 * mentions someone and may not start with "!illegal" or a mention (it may
 * reply to the bot: GW_SKIM_PARSE); *message then holds the spans of what
 * the adapter reads of its "d", borrowed from txt. For both, *seq is its
 * sequence ("s"; 0 when null or absent). GW_SKIM_PARSE when it is anything
 * else or when the skimmer is not sure: the caller then parses it properly.
 * Whatever it answers, gw_decode() reads the message as a dispatch of that
 * type and sequence whose "d" agrees on every kept member (test_skim and the
 * skim and gateway fuzz targets check it).
 */
enum gw_skim gw_skim(const char *txt, size_t len, int64_t *seq, struct gw_message *message);

/* The longest a string span decodes to: it never grows (an escape is at
 * least as long as what it stands for). */
#define GW_SPAN_DECODED_MAX(s) ((s)->len)

/*
 * Decodes the string span s (one gw_skim() handed on, its escapes checked)
 * into out (room for GW_SPAN_DECODED_MAX(s) + 1 bytes, the caller's) exactly
 * as json-c reads it: escapes, \uXXXX and surrogate pairs (a lone surrogate
 * as json-c writes it). Returns its length (a NUL is written after it;
 * "\u0000" puts one inside it too, where C strings end as they do from
 * json-c's getters).
 */
size_t gw_span_string(const struct gw_span *s, char *out);

/*
 * The next string element of an array span as gw_message.roles holds it:
 * *rest starts as the array's span and is moved past each element read;
 * elements of other types are passed over. False at the array's end.
 */
bool gw_span_next_string(struct gw_span *rest, struct gw_span *element);

#endif
