/*
 * out.h - one message of Palm & Drewes' Illegal being written: its kind, key,
 * text and data, shared by the renderers of the notices, the hand, the table
 * view and the prompts (render.c, table.c, prompts.c). Not an API.
 */
#ifndef CORE_PALM_DREWES_OUT_H
#define CORE_PALM_DREWES_OUT_H

#include "module.h"

#define PD_TEXT_MAX 8192
#define PD_LINE_MAX 1024

/* The data every message of the game carries (game, table, lang, module,
 * phase, paused, deadline), then its own; its text, one line an event. */
struct out {
    struct rules_msg msg;
    struct msg_key key;
    struct json_object *data, *events;
    char text[PD_TEXT_MAX];
    size_t used;
};

/* The language of audience: its seat's, else the table's. */
const char *pd_lang_of(const struct rules_table *t, int audience);

/* Starts a message of kind to audience (MSG_TABLE or a seat): no key, no
 * text, the common data. */
void pd_out_init(struct out *o, const struct pd_state *s, const struct rules_table *t,
                 enum outbound_kind kind, int audience);

/* Adds a line of text, and its event id to the data's "events" (NULL: none). */
void pd_out_line(struct out *o, const char *line, const char *event);

/* Keys the message "<game>/<topic>[/<number>][/<user of seat>]": number 0
 * and seat -1 leave that part out. */
void pd_out_key(struct out *o, const struct rules_table *t, const char *topic, unsigned number,
                int seat);

/* Adds name: value (owned by the data from then on) to the message's data. */
void pd_out_set(struct out *o, const char *name, struct json_object *value);

/* Sends the message if it has a line of text, and frees what it holds. */
void pd_out_emit(struct out *o, rules_emit_fn emit, void *arg);

/* {card id: count} of b's cards (a new object the caller owns). */
struct json_object *pd_bundle_json(const struct pd_bundle *b);

/* p's business as the rulebook lays it out (a new object the caller owns):
 * {"opening": whether it has one, "burden": the card on it or null,
 * "illegal": {card: count} (left of the opening), "legal": {card: count}
 * (right of it)}. */
struct json_object *pd_layout_json(const struct pd_player *p);

#endif
