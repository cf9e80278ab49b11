/*
 * skim.h - a gateway message told from its text, without json-c's parse of
 * all of it: ignored, or read only as far as the adapter needs.
 */
#ifndef DISCORD_SKIM_H
#define DISCORD_SKIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-c/json.h>

/* What gw_skim() made of a gateway message. */
enum gw_skim {
    GW_SKIM_PARSE,   /* anything else, or the skimmer is not sure: parse it properly */
    GW_SKIM_IGNORE,  /* a dispatch the adapter ignores */
    GW_SKIM_MESSAGE, /* a MESSAGE_CREATE the adapter reads: see message below */
};

/*
 * Skims the gateway message txt (len bytes). GW_SKIM_IGNORE: a MESSAGE_CREATE
 * in a guild channel whose content starts with neither "!illegal" nor a
 * mention ("<@") and that mentions nobody, or one whose author is a bot
 * ("bot": true, as the echo of each of the bot's own). GW_SKIM_MESSAGE (only when message
 * is not NULL): any other MESSAGE_CREATE but such a line that mentions
 * someone (it may reply to the bot: GW_SKIM_PARSE);
 * *message is then a new object (the caller's to put) holding only what the
 * adapter reads of its "d" (skim.c lists it), each member as json-c would
 * read it. For both, *seq is its sequence ("s"; 0 when null or absent).
 * GW_SKIM_PARSE when it is anything else, when the skimmer is not sure, or
 * on no memory: the caller then parses it properly. Whatever it answers,
 * gw_decode() reads the message as a dispatch of that type and sequence
 * whose "d" agrees on every kept member (test_skim and the gateway fuzz
 * target check it).
 */
enum gw_skim gw_skim(const char *txt, size_t len, int64_t *seq, struct json_object **message);

#endif
