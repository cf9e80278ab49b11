/*
 * fit.h - Discord's limits on what the bot sends, named once, and texts cut
 * to keep them.
 *
 * Each number comes from the page of docs.discord.com/developers named
 * beside it. Discord counts "characters" without saying how; we count UTF-16
 * code units (a JavaScript string's length), never fewer than code points,
 * so that a text we let through is one Discord takes however it counts.
 * tests/discord/limits.c checks what the adapter sends against the same
 * pages, written apart from this file.
 */
#ifndef DISCORD_FIT_H
#define DISCORD_FIT_H

#include <stdbool.h>
#include <stddef.h>

struct json_object;
struct jw;

/* resources/message: Create Message (content, embeds) and Embed Limits */
#define DC_CONTENT_MAX     2000
#define DC_EMBEDS_MAX      10
#define DC_EMBED_TITLE_MAX 256
#define DC_EMBED_DESC_MAX  4096
#define DC_EMBED_TOTAL_MAX 6000 /* titles and descriptions of all a message's embeds */
/* components/reference: Legacy Message Component Behavior (rows), Action
 * Row, Button, String Select and its Select Option; custom_id under "What is
 * a Component" */
#define DC_ROWS_MAX           5
#define DC_ROW_BUTTONS_MAX    5
#define DC_LABEL_MAX          80
#define DC_SELECT_OPTIONS_MAX 25
#define DC_OPTION_TEXT_MAX    100 /* a select option's label and value */
#define DC_PLACEHOLDER_MAX    150
#define DC_CUSTOM_ID_MAX      100
/* interactions/receiving-and-responding: Autocomplete; interactions/
 * application-commands: Option Choice Structure */
#define DC_CHOICES_MAX     25
#define DC_CHOICE_TEXT_MAX 100
/* interactions/application-commands: Application Command Naming, the
 * command and option structures, Registering a Command (how many), Slash
 * Commands (the combined size, at each field's longest localization) */
#define DC_NAME_MAX         32
#define DC_DESCRIPTION_MAX  100
#define DC_OPTIONS_MAX      25
#define DC_COMMAND_SIZE_MAX 8000
#define DC_COMMANDS_MAX     100

/* The characters Discord counts in s (UTF-16 code units), and in its first
 * bytes bytes (or up to its NUL). */
size_t dc_chars(const char *s);
size_t dc_chars_n(const char *s, size_t bytes);
/* How many bytes of s make its longest prefix of at most max characters,
 * never cutting a UTF-8 sequence. */
size_t dc_fit(const char *s, size_t max);
/* s as a new JSON string of at most max characters (max >= 1): whole when it
 * fits, else cut and ended with "…", so a reader sees that it was cut. */
struct json_object *dc_fit_json(const char *s, size_t max);
/* How many bytes of s to keep within max characters (max >= 1); *cut says
 * whether an ellipsis follows them (then they are within max - 1). */
size_t dc_fit_cut(const char *s, size_t max, bool *cut);
/* dc_fit_json()'s string written by w (adapters/common/jsonw.h); returns the
 * characters written, the ellipsis counted. */
size_t dc_fit_write(struct jw *w, const char *s, size_t max);
/* Whether s may name a slash command or option: Application Command Naming's
 * rule, as far as the catalog's words need (lower-case letters of any
 * script, digits, - _ '; 1 to DC_NAME_MAX code points). */
bool dc_valid_name(const char *s);

#endif
