/*
 * compose.h - a command put together from parts a player picks: a module's
 * "compose" (bot/platform.h), filled in by an adapter that draws it as a
 * form (Discord's trade builder under a hand).
 *
 * A template is the command as a player would type it, with each part in
 * braces: "offer {to} {give|nothing} for {ask|nothing}". "{name}" must be
 * chosen; "{name|text}" is written as text when it is not chosen, or chosen
 * empty. Whether the command so filled makes sense is the rules' to say.
 * A part's name is 1 to COMPOSE_NAME_MAX of a-z, 0-9 and '-'. The template
 * starts with its command's words, which a template that cannot be filled
 * yet comes down to, so that the bot answers with the command's usage.
 */
#ifndef CORE_COMPOSE_H
#define CORE_COMPOSE_H

#include <stdbool.h>
#include <stddef.h>

#include "attributes.h"

struct json_object;

#define COMPOSE_NAME_MAX  16 /* a part's name */
#define COMPOSE_PARTS_MAX 4  /* a form's parts: four menus and a send button fill Discord's rows */

enum compose_fill {
    COMPOSE_OK,         /* out holds the command */
    COMPOSE_INCOMPLETE, /* a part that must be chosen is not: out holds the command's words */
    COMPOSE_BAD,        /* the template or a value does not fit: out says why */
};

/* The text a player chose for the part called name: NULL when it is not
 * chosen, "" when it was chosen empty. Borrowed until the fill returns. */
typedef const char *(*compose_value_fn)(void *arg, const char *name);

/* Fills tmpl with the parts value() gives, into out (len bytes, always
 * ended). A value with a control character, a template that is not well
 * formed or a command longer than out are COMPOSE_BAD. */
MUST_USE enum compose_fill compose_fill(const char *tmpl, compose_value_fn value, void *arg,
                                        char *out, size_t len);

/* Whether the n bytes at s are a part's name. */
bool compose_name_ok(const char *s, size_t n);

/*
 * Checks a module's "compose" (bot/platform.h): a "command" template that
 * starts with a word and names each of its "parts" once and nothing else;
 * 1 to COMPOSE_PARTS_MAX parts, each with a "name" and either "players"
 * [{"id", "name"}] (one to pick) or "items" [{"id", "label_key" or "label",
 * "max"}] (counts to pick). Returns 0, or -1 with the reason in why.
 */
MUST_USE int compose_check(const struct json_object *compose, char *why, size_t len);

#endif
