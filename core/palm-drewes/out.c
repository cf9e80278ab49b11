/*
 * out.c - one message of Palm & Drewes' Illegal being written (out.h).
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "out.h"

const char *pd_lang_of(const struct rules_table *t, int audience)
{
    if (audience >= 0 && (unsigned)audience < t->nseats && t->langs && t->langs[audience])
        return t->langs[audience];
    return t->lang;
}

void pd_out_init(struct out *o, const struct pd_state *s, const struct rules_table *t,
                 enum outbound_kind kind, int audience)
{
    memset(&o->msg, 0, sizeof o->msg);
    o->msg.kind = kind;
    o->msg.audience = audience;
    o->text[0] = '\0';
    o->used = 0;
    o->data = json_object_new_object();
    o->events = json_object_new_array();
    pd_out_set(o, "game", json_object_new_string(t->game));
    pd_out_set(o, "table", json_object_new_string(t->channel));
    pd_out_set(o, "lang", json_object_new_string(pd_lang_of(t, audience)));
    pd_out_set(o, "module", json_object_new_string(pd_module.id));
    pd_out_set(o, "phase", json_object_new_string(pd_phase_id(s->game.phase)));
    pd_out_set(o, "paused", json_object_new_boolean(s->game.paused));
    if (pd_game_deadline(&s->game))
        pd_out_set(o, "deadline", json_object_new_int64(pd_game_deadline(&s->game)));
}

void pd_out_line(struct out *o, const char *line, const char *event)
{
    if (o->used && o->used + 1 < sizeof o->text)
        o->text[o->used++] = '\n';
    int w = snprintf(o->text + o->used, sizeof o->text - o->used, "%s", line);
    o->used = w < 0 ? o->used : o->used + (size_t)w;
    if (o->used >= sizeof o->text)
        o->used = sizeof o->text - 1;
    if (event)
        json_object_array_add(o->events, json_object_new_string(event));
}

void pd_out_key(struct out *o, const struct rules_table *t, const char *topic, unsigned number,
                int seat)
{
    memset(&o->key, 0, sizeof o->key);
    snprintf(o->key.game, sizeof o->key.game, "%s", t->game);
    snprintf(o->key.topic, sizeof o->key.topic, "%s", topic);
    o->key.number = number;
    if (seat >= 0 && (unsigned)seat < t->nseats)
        snprintf(o->key.user, sizeof o->key.user, "%s", t->users[seat]);
    o->msg.key = &o->key;
}

void pd_out_set(struct out *o, const char *name, struct json_object *value)
{
    json_object_object_add(o->data, name, value);
}

void pd_out_emit(struct out *o, rules_emit_fn emit, void *arg)
{
    pd_out_set(o, "events", o->events);
    if (o->text[0]) {
        o->msg.text = o->text;
        o->msg.data = o->data;
        emit(arg, &o->msg);
    }
    json_object_put(o->data);
    o->data = o->events = NULL;
}

struct json_object *pd_bundle_json(const struct pd_bundle *b)
{
    struct json_object *o = json_object_new_object();
    for (unsigned c = 0; o && c < PD_CARDS; c++)
        if (b->n[c])
            json_object_object_add(o, pd_card_id(c), json_object_new_int(b->n[c]));
    return o;
}

/* The cards of b of one kind. */
static struct json_object *kind_json(const struct pd_bundle *b, enum pd_kind kind)
{
    struct pd_bundle some = {0};
    for (unsigned c = 0; c < PD_CARDS; c++)
        if (pd_card_kind(c) == kind)
            some.n[c] = b->n[c];
    return pd_bundle_json(&some);
}

struct json_object *pd_layout_json(const struct pd_player *p)
{
    const struct pd_bundle *b = &p->business;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "opening", json_object_new_boolean(b->n[PD_OPENING] > 0));
    json_object_object_add(
        o, "burden", p->burden == PD_NONE ? NULL : json_object_new_string(pd_card_id(p->burden)));
    json_object_object_add(o, "illegal", kind_json(b, PD_KIND_ILLEGAL));
    json_object_object_add(o, "legal", kind_json(b, PD_KIND_LEGAL));
    return o;
}
