/*
 * json.c - a game to and from json-c, with readable keys and identifiers
 * wherever a value is a card, a phase, a timer or an end.
 *
 * Reading is strict: every field must be there with its type and within its
 * range, bundles name only cards with counts of 1 or more, and the result
 * must pass pd_game_check(). The struct is filled from zero, padding
 * included, so a round trip gives the same bytes.
 */
#include <string.h>

#include <json-c/json.h>

#include "../json.h"
#include "internal.h"

/* Bumped when the layout changes incompatibly. */
#define PD_JSON_FORMAT 1

/* Writing: every helper notes a failed allocation in *oom and carries on, so
 * the caller checks once at the end. */

static struct json_object *card_or_null(unsigned card)
{
    return card == PD_NONE ? NULL : json_object_new_string(pd_card_id(card));
}

/* A card field that may be empty: json null is written by adding NULL. */
static void put_card(struct json_object *obj, const char *key, unsigned card, bool *oom)
{
    struct json_object *v = card_or_null(card);
    if (card != PD_NONE && !v) {
        *oom = true;
        return;
    }
    if (json_object_object_add(obj, key, v) != 0) {
        json_object_put(v);
        *oom = true;
    }
}

static struct json_object *bundle_to_json(const struct pd_bundle *b, bool *oom)
{
    return jcounts(b->n, PD_CARDS, pd_card_id, oom);
}

static struct json_object *config_to_json(const struct pd_config *c, bool *oom)
{
    struct json_object *o = jnew_obj(oom), *timers = jnew_obj(oom);
    if (!o || !timers) {
        json_object_put(o);
        json_object_put(timers);
        return NULL;
    }
    for (unsigned t = 0; t < PD_TIMERS; t++)
        jput(timers, pd_timer_id((enum pd_timer)t), json_object_new_int64(c->timer_ms[t]), oom);
    jput(o, "timers", timers, oom);
    jput(o, "reminder", json_object_new_int64(c->reminder_ms), oom);
    jput(o, "series", json_object_new_int(c->series_target), oom);
    return o;
}

static struct json_object *series_to_json(const struct pd_series *series, unsigned nplayers,
                                          bool *oom)
{
    struct json_object *o = jnew_obj(oom), *totals = jnew_arr(oom);
    if (!o || !totals) {
        json_object_put(o);
        json_object_put(totals);
        return NULL;
    }
    for (unsigned s = 0; s < nplayers; s++)
        jpush(totals, json_object_new_int64(series->totals[s]), oom);
    jput(o, "games", json_object_new_int(series->games), oom);
    jput(o, "dealer", json_object_new_int(series->dealer), oom);
    jput(o, "totals", totals, oom);
    return o;
}

static struct json_object *player_to_json(const struct pd_player *p, bool *oom)
{
    struct json_object *o = jnew_obj(oom);
    if (!o)
        return NULL;
    jput(o, "active", json_object_new_boolean(p->active), oom);
    jput(o, "hand", bundle_to_json(&p->hand, oom), oom);
    jput(o, "business", bundle_to_json(&p->business, oom), oom);
    put_card(o, "burden", p->burden, oom);
    jput(o, "skips", json_object_new_int(p->skips), oom);
    put_card(o, "pass", p->pass, oom);
    jput(o, "waived", json_object_new_boolean(p->waived), oom);
    jput(o, "score", json_object_new_int(p->score), oom);
    return o;
}

static struct json_object *offer_to_json(const struct pd_offer *f, bool *oom)
{
    struct json_object *o = jnew_obj(oom);
    if (!o)
        return NULL;
    jput(o, "id", json_object_new_int64(f->id), oom);
    jput(o, "to", json_object_new_int(f->to), oom);
    jput(o, "blind", json_object_new_boolean(f->blind), oom);
    jput(o, "give", bundle_to_json(&f->give, oom), oom);
    jput(o, "ask", bundle_to_json(&f->ask, oom), oom);
    return o;
}

static struct json_object *takeover_to_json(const struct pd_game *g, bool *oom)
{
    if (g->takeover_card == PD_NONE)
        return NULL;
    struct json_object *o = jnew_obj(oom);
    if (!o)
        return NULL;
    put_card(o, "card", g->takeover_card, oom);
    jput(o, "victim", json_object_new_int(g->takeover_victim), oom);
    put_card(o, "deal", g->takeover_deal, oom);
    return o;
}

static void lists_to_json(const struct pd_game *g, struct json_object *o, bool *oom)
{
    struct json_object *pile = jnew_arr(oom), *players = jnew_arr(oom), *offers = jnew_arr(oom);
    for (unsigned i = 0; pile && i < g->npile; i++)
        jpush(pile, json_object_new_string(pd_card_id(g->pile[i])), oom);
    for (unsigned s = 0; players && s < g->nplayers; s++)
        jpush(players, player_to_json(&g->players[s], oom), oom);
    for (unsigned i = 0; offers && i < g->noffers; i++)
        jpush(offers, offer_to_json(&g->offers[i], oom), oom);
    jput(o, "pile", pile, oom);
    jput(o, "players", players, oom);
    jput(o, "offers", offers, oom);
}

struct json_object *pd_game_to_json(const struct pd_game *g)
{
    bool oom = false;
    struct json_object *o = jnew_obj(&oom);
    if (!o)
        return NULL;
    jput(o, "format", json_object_new_int(PD_JSON_FORMAT), &oom);
    jput(o, "config", config_to_json(&g->config, &oom), &oom);
    jput(o, "series", series_to_json(&g->series, g->nplayers, &oom), &oom);
    jput(o, "nplayers", json_object_new_int(g->nplayers), &oom);
    jput(o, "dealer", json_object_new_int(g->dealer), &oom);
    jput(o, "current", json_object_new_int(g->current), &oom);
    jput(o, "phase", json_object_new_string(pd_phase_id(g->phase)), &oom);
    jput(o, "end", json_object_new_string(pd_end_id(g->end)), &oom);
    jput(o, "turns", json_object_new_int(g->turns), &oom);
    jput(o, "deadline", json_object_new_int64(g->deadline), &oom);
    jput(o, "remind_at", json_object_new_int64(g->remind_at), &oom);
    jput(o, "paused", json_object_new_boolean(g->paused), &oom);
    jput(o, "paused_remaining", json_object_new_int64(g->paused_remaining), &oom);
    jput(o, "discard", bundle_to_json(&g->discard, &oom), &oom);
    jput(o, "next_offer_id", json_object_new_int64(g->next_offer_id), &oom);
    lists_to_json(g, o, &oom);
    struct json_object *t = takeover_to_json(g, &oom);
    if (json_object_object_add(o, "takeover", t) != 0) {
        json_object_put(t);
        oom = true;
    }
    if (oom) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* Reading: each helper returns false on anything missing or out of range. */

static bool read_bool(const struct json_object *o, const char *key, bool *out)
{
    return jget_bool(o, key, out) == 0;
}

/* A card id, or json null for none (a member that must be present). */
static bool read_card(const struct json_object *o, const char *key, uint8_t *out)
{
    struct json_object *v;
    if (!json_object_object_get_ex(o, key, &v))
        return false;
    if (!v) {
        *out = PD_NONE;
        return true;
    }
    int t =
        json_object_is_type(v, json_type_string) ? pd_card_from_id(json_object_get_string(v)) : -1;
    if (t < 0)
        return false;
    *out = (uint8_t)t;
    return true;
}

static bool read_bundle(const struct json_object *o, const char *key, struct pd_bundle *b)
{
    return jget_counts(o, key, pd_card_from_id, PD_CARDS, PD_DECK_SIZE, b->n);
}

static bool read_config(const struct json_object *o, struct pd_config *c)
{
    struct json_object *timers = jget_obj(o, "timers");
    int64_t v;
    for (unsigned t = 0; t < PD_TIMERS; t++)
        if (!jget_range(timers, pd_timer_id((enum pd_timer)t), PD_TIMER_MIN_MS, PD_TIMER_MAX_MS,
                        &c->timer_ms[t]))
            return false;
    if (!jget_range(o, "reminder", 0, PD_REMINDER_MAX_MS, &c->reminder_ms) ||
        !jget_range(o, "series", 0, PD_SERIES_LONG, &v))
        return false;
    c->series_target = (int32_t)v;
    return true;
}

static bool read_series(const struct json_object *o, unsigned nplayers, struct pd_series *s)
{
    int64_t v;
    struct json_object *totals = jget_arr(o, "totals");
    if (!jget_range(o, "games", 0, UINT16_MAX, &v))
        return false;
    s->games = (uint16_t)v;
    if (!jget_range(o, "dealer", PD_NOBODY, PD_MAX_PLAYERS - 1, &v))
        return false;
    s->dealer = (int8_t)v;
    s->nplayers = (uint8_t)nplayers;
    if (jarr_len(totals) != nplayers)
        return false;
    for (unsigned i = 0; i < nplayers; i++) {
        struct json_object *t = jarr_at(totals, i);
        if (!json_object_is_type(t, json_type_int))
            return false;
        s->totals[i] = json_object_get_int64(t);
    }
    return true;
}

static bool read_player(const struct json_object *o, struct pd_player *p)
{
    int64_t v;
    if (!read_bool(o, "active", &p->active) || !read_bundle(o, "hand", &p->hand) ||
        !read_bundle(o, "business", &p->business) || !read_card(o, "burden", &p->burden) ||
        !jget_u8(o, "skips", PD_MAX_SKIPS, &p->skips) || !read_card(o, "pass", &p->pass) ||
        !read_bool(o, "waived", &p->waived) || !jget_range(o, "score", INT32_MIN, INT32_MAX, &v))
        return false;
    p->score = (int32_t)v;
    return true;
}

static bool read_offer(const struct json_object *o, struct pd_offer *f)
{
    int64_t v;
    if (!jget_range(o, "id", 1, UINT32_MAX, &v))
        return false;
    f->id = (uint32_t)v;
    return jget_u8(o, "to", PD_MAX_PLAYERS - 1, &f->to) && read_bool(o, "blind", &f->blind) &&
           read_bundle(o, "give", &f->give) && read_bundle(o, "ask", &f->ask);
}

static int id_index(const char *id, const char *(*name)(unsigned), unsigned n)
{
    for (unsigned i = 0; id && i < n; i++)
        if (strcmp(name(i), id) == 0)
            return (int)i;
    return -1;
}

static const char *phase_name(unsigned i)
{
    return pd_phase_id((enum pd_phase)i);
}

static const char *end_name(unsigned i)
{
    return pd_end_id((enum pd_end)i);
}

static bool read_lists(const struct json_object *json, struct pd_game *g)
{
    struct json_object *pile = jget_arr(json, "pile"), *players = jget_arr(json, "players"),
                       *offers = jget_arr(json, "offers");
    if (!pile || jarr_len(pile) > PD_DECK_SIZE || jarr_len(players) != g->nplayers || !offers ||
        jarr_len(offers) > PD_MAX_OFFERS)
        return false;
    g->npile = (uint8_t)jarr_len(pile);
    for (unsigned i = 0; i < g->npile; i++) {
        int t = pd_card_from_id(jarr_str(pile, i));
        if (t < 0)
            return false;
        g->pile[i] = (uint8_t)t;
    }
    for (unsigned s = 0; s < g->nplayers; s++)
        if (!read_player(jarr_at(players, s), &g->players[s]))
            return false;
    g->noffers = (uint8_t)jarr_len(offers);
    for (unsigned i = 0; i < g->noffers; i++)
        if (!read_offer(jarr_at(offers, i), &g->offers[i]))
            return false;
    return true;
}

static bool read_takeover(const struct json_object *json, struct pd_game *g)
{
    struct json_object *t;
    g->takeover_card = g->takeover_deal = PD_NONE;
    g->takeover_victim = PD_NONE;
    if (!json_object_object_get_ex(json, "takeover", &t))
        return false;
    if (!t)
        return true;
    return json_object_is_type(t, json_type_object) && read_card(t, "card", &g->takeover_card) &&
           jget_u8(t, "victim", PD_MAX_PLAYERS - 1, &g->takeover_victim) &&
           read_card(t, "deal", &g->takeover_deal) && g->takeover_card != PD_NONE;
}

static bool read_game(const struct json_object *json, struct pd_game *g)
{
    int64_t v;
    int phase = id_index(jget_str(json, "phase"), phase_name, PD_PHASES);
    int end = id_index(jget_str(json, "end"), end_name, PD_END_PLAYERS + 1);
    if (!jget_range(json, "format", PD_JSON_FORMAT, PD_JSON_FORMAT, &v) ||
        !read_config(jget_obj(json, "config"), &g->config) ||
        !jget_u8(json, "nplayers", PD_MAX_PLAYERS, &g->nplayers) ||
        !read_series(jget_obj(json, "series"), g->nplayers, &g->series) ||
        !jget_u8(json, "dealer", PD_MAX_PLAYERS - 1, &g->dealer) ||
        !jget_u8(json, "current", PD_MAX_PLAYERS - 1, &g->current) || phase < 0 || end < 0 ||
        !jget_range(json, "turns", 1, UINT16_MAX, &v))
        return false;
    g->phase = (enum pd_phase)phase;
    g->end = (enum pd_end)end;
    g->turns = (uint16_t)v;
    int64_t far = PD_NOW_LIMIT + PD_TIMER_MAX_MS;
    if (!jget_range(json, "deadline", -far, far, &g->deadline) ||
        !jget_range(json, "remind_at", -far, far, &g->remind_at) ||
        !read_bool(json, "paused", &g->paused) ||
        !jget_range(json, "paused_remaining", 0, PD_TIMER_MAX_MS, &g->paused_remaining) ||
        !read_bundle(json, "discard", &g->discard) ||
        !jget_range(json, "next_offer_id", 1, UINT32_MAX, &v))
        return false;
    g->next_offer_id = (uint32_t)v;
    return read_lists(json, g) && read_takeover(json, g);
}

enum pd_error pd_game_from_json(struct pd_game *g, const struct json_object *json)
{
    struct pd_game w;
    memset(&w, 0, sizeof w);
    if (!json_object_is_type(json, json_type_object) || !read_game(json, &w) ||
        !pd_game_check(&w, NULL, 0))
        return PD_ERR_CORRUPT;
    memcpy(g, &w, sizeof w);
    return PD_OK;
}

struct json_object *pd_settings_to_json(const struct pd_config *c, const struct pd_series *series)
{
    bool oom = false;
    struct json_object *o = config_to_json(c, &oom);
    if (o)
        jput(o, "series_so_far", series_to_json(series, series->nplayers, &oom), &oom);
    if (oom) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

enum pd_error pd_settings_from_json(struct pd_config *c, struct pd_series *series,
                                    const struct json_object *json)
{
    struct pd_config cfg;
    struct pd_series sr;
    struct json_object *so = jget_obj(json, "series_so_far");
    memset(&cfg, 0, sizeof cfg);
    memset(&sr, 0, sizeof sr);
    size_t n = so ? jarr_len(jget_arr(so, "totals")) : 0;
    if (!read_config(json, &cfg) || !pd_series_target_ok(cfg.series_target) || !so ||
        n > PD_MAX_PLAYERS || !read_series(so, (unsigned)n, &sr) || !pd_series_ok(&sr))
        return PD_ERR_CORRUPT;
    *c = cfg;
    *series = sr;
    return PD_OK;
}
