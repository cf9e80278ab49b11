/*
 * skim_ix.h - an INTERACTION_CREATE read from its text as far as the adapter
 * needs (interactions.c, slash.c, components.c, activity.c), without json-c's
 * parse of all of it.
 */
#ifndef DISCORD_SKIM_IX_H
#define DISCORD_SKIM_IX_H

#include <stdbool.h>
#include <stdint.h>

#include "skim.h"

/* Discord sends at most 25 options a level and 25 values a menu: more is
 * left to the full parse. */
#define GW_IX_LIST_MAX 25

/* The option types that lead to a subcommand (Discord's application command
 * option types), and how many of them a command's way passes at most (a
 * group holds subcommands, a subcommand options: slash.c registers no more). */
enum { GW_IX_OPT_SUB = 1, GW_IX_OPT_GROUP = 2 };
#define GW_IX_SUB_DEPTH 2

/* An option of the command's leaf (the command, or the subcommand it
 * names). A span is as struct gw_span says (p NULL: absent or of another
 * type); value's text is a string's, or an integer's digits as written
 * (integer true then). */
struct gw_ix_option {
    struct gw_span name, value;
    bool integer;
    bool focused; /* its "focused" is true */
};

/* What the adapter reads of an INTERACTION_CREATE's "d", borrowed from the
 * text gw_skim_ix() read. An integer absent or of another type is 0, as
 * json-c's getter with 0 as its default reads it. */
struct gw_interaction {
    int64_t type;
    struct gw_span id, token, application_id, guild_id, channel_id, locale;
    bool member;                      /* "member" is an object: */
    struct gw_span nick, permissions; /* its strings */
    struct gw_span roles;             /* its "roles", as struct gw_message's */
    /* the user's: member's "user" when member is an object, else d's "user" */
    struct gw_span user_id, username, global_name;
    /* "data" (every member absent when it is no object) */
    int64_t data_type;
    struct gw_span leaf; /* "name", or the (sub)command data's first option names */
    struct gw_ix_option options[GW_IX_LIST_MAX]; /* the leaf's options */
    unsigned noptions;
    struct gw_span custom_id;
    struct gw_span values[GW_IX_LIST_MAX]; /* "values": a non-string's p NULL */
    unsigned nvalues;
    struct gw_span message_id; /* "message"'s "id" */
};

/*
 * Reads the gateway message txt (len bytes) when it is an INTERACTION_CREATE
 * dispatch the skimmer is sure of: *ix then holds the spans of what the
 * adapter reads of its "d", borrowed from txt, and *seq its sequence ("s";
 * 0 when null or absent). False for anything else or anything unsure (a key
 * the adapter reads twice, a number json-c reads otherwise, more than
 * GW_IX_LIST_MAX options or values, deep nesting, text JSON does not have):
 * the caller parses it properly. Read, the adapter's reader of json-c's
 * parse gives the same as its reader of these spans (test_skim_ix and the
 * fuzz targets check it).
 */
bool gw_skim_ix(const char *txt, size_t len, int64_t *seq, struct gw_interaction *ix);

#endif
