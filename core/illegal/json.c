/*
 * json.c - a game to and from json-c, with readable keys and identifiers
 * instead of numbers wherever the value is a card, phase or timer.
 */
#include <string.h>

#include <json-c/json.h>

#include "internal.h"

/* Bumped when the layout changes incompatibly. Format 2 added the tribunal
 * options, its schedule and a vote per case; format 1 is still read. */
#define IL_JSON_FORMAT     2
#define IL_JSON_FORMAT_MIN 1

/* Writing: every helper notes a failed allocation in *oom and carries on, so
 * the caller checks once at the end. */

static struct json_object *bundle_to_json(const struct il_bundle *b, bool *oom)
{
    return jcounts(b->n, IL_CARD_TYPES, il_card_id, oom);
}

static struct json_object *mask_to_json(uint8_t mask, bool *oom)
{
    struct json_object *a = jnew_arr(oom);
    for (unsigned r = 0; a && r < IL_RESOURCES; r++)
        if (mask & (1u << r))
            jpush(a, json_object_new_string(il_resource_id(r)), oom);
    return a;
}

static struct json_object *config_to_json(const struct il_config *c, bool *oom)
{
    struct json_object *o = jnew_obj(oom), *timers = jnew_obj(oom);
    if (!o || !timers) {
        json_object_put(o);
        json_object_put(timers);
        return NULL;
    }
    jput(o, "variant", json_object_new_string(il_variant_id(c->variant)), oom);
    jput(o, "resources", mask_to_json(c->resources, oom), oom);
    struct json_object *options = jnew_arr(oom);
    for (unsigned i = 0; options && i < IL_TRIBUNAL_OPTIONS; i++)
        if (c->tribunal & (1u << i))
            jpush(options, json_object_new_string(il_tribunal_option_id(i)), oom);
    jput(o, "tribunal", options, oom);
    for (unsigned t = 0; t < IL_TIMERS; t++)
        jput(timers, il_timer_id((enum il_timer)t), json_object_new_int64(c->timer_ms[t]), oom);
    jput(o, "timers", timers, oom);
    return o;
}

static struct json_object *player_to_json(const struct il_game *g, const struct il_player *p,
                                          bool *oom)
{
    struct json_object *o = jnew_obj(oom), *votes = jnew_arr(oom);
    if (!o || !votes) {
        json_object_put(o);
        json_object_put(votes);
        return NULL;
    }
    for (unsigned k = 0; k < g->ncases && k < IL_MAX_CASES; k++)
        jpush(votes, json_object_new_int(p->votes[k]), oom);
    jput(o, "active", json_object_new_boolean(p->active), oom);
    jput(o, "dealer", json_object_new_string(il_resource_id(p->dealer)), oom);
    jput(o, "buyer", json_object_new_string(il_resource_id(p->buyer)), oom);
    jput(o, "extra", json_object_new_string(il_resource_id(p->extra)), oom);
    jput(o, "hand", bundle_to_json(&p->hand, oom), oom);
    jput(o, "grabbed", json_object_new_boolean(p->grabbed), oom);
    jput(o, "votes", votes, oom);
    jput(o, "score", json_object_new_int(p->score), oom);
    return o;
}

/* A trade's resource counts as a bundle, to be written or read like one. */
static void trade_bundle(const uint8_t *n, struct il_bundle *b)
{
    memset(b, 0, sizeof *b);
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        b->n[IL_CARD(IL_KIND_RESOURCE, r)] = n[r];
}

static struct json_object *trade_to_json(const struct il_trade *t, bool *oom)
{
    struct il_bundle give, ask;
    struct json_object *o = jnew_obj(oom);
    trade_bundle(t->give, &give);
    trade_bundle(t->ask, &ask);
    jput(o, "from", json_object_new_int(t->from), oom);
    jput(o, "to", json_object_new_int(t->to), oom);
    jput(o, "session", json_object_new_int(t->session), oom);
    jput(o, "give", bundle_to_json(&give, oom), oom);
    jput(o, "ask", bundle_to_json(&ask, oom), oom);
    return o;
}

static struct json_object *drop_to_json(const struct il_game *g, bool *oom)
{
    struct json_object *o = jnew_obj(oom), *cards = jnew_arr(oom), *taken = jnew_arr(oom);
    if (!o || !cards || !taken) {
        json_object_put(o);
        json_object_put(cards);
        json_object_put(taken);
        return NULL;
    }
    for (unsigned i = 0; i < g->drop_count; i++) {
        jpush(cards, json_object_new_string(il_resource_id(g->drop_cards[i])), oom);
        jpush(taken, json_object_new_boolean(g->drop_taken[i]), oom);
    }
    jput(o, "cards", cards, oom);
    jput(o, "shown", json_object_new_int(g->drop_shown), oom);
    jput(o, "taken", taken, oom);
    return o;
}

static struct json_object *offer_to_json(const struct il_offer *f, bool *oom)
{
    struct json_object *o = jnew_obj(oom);
    if (!o)
        return NULL;
    jput(o, "id", json_object_new_int64(f->id), oom);
    jput(o, "from", json_object_new_int(f->from), oom);
    jput(o, "to", json_object_new_int(f->to), oom);
    jput(o, "give", bundle_to_json(&f->give, oom), oom);
    jput(o, "ask", bundle_to_json(&f->ask, oom), oom);
    return o;
}

static struct json_object *case_to_json(const struct il_case *k, bool *oom)
{
    struct json_object *a = jnew_arr(oom);
    for (unsigned i = 0; a && i < k->ncards; i++)
        jpush(a, json_object_new_string(il_card_id(k->cards[i])), oom);
    return a;
}

struct json_object *il_game_to_json(const struct il_game *g)
{
    bool oom = false;
    struct json_object *o = jnew_obj(&oom);
    struct json_object *players = jnew_arr(&oom), *offers = jnew_arr(&oom), *cases = jnew_arr(&oom),
                       *trades = jnew_arr(&oom);
    if (oom) {
        json_object_put(o);
        json_object_put(players);
        json_object_put(offers);
        json_object_put(cases);
        json_object_put(trades);
        return NULL;
    }
    for (unsigned i = 0; i < g->ntrades && i < IL_MAX_TRADES; i++)
        jpush(trades, trade_to_json(&g->trades[i], &oom), &oom);
    for (unsigned s = 0; s < g->nplayers && s < IL_MAX_PLAYERS; s++)
        jpush(players, player_to_json(g, &g->players[s], &oom), &oom);
    for (unsigned i = 0; i < g->noffers && i < IL_MAX_OFFERS; i++)
        jpush(offers, offer_to_json(&g->offers[i], &oom), &oom);
    for (unsigned i = 0; i < g->ncases && i < IL_MAX_CASES; i++)
        jpush(cases, case_to_json(&g->cases[i], &oom), &oom);

    jput(o, "format", json_object_new_int(IL_JSON_FORMAT), &oom);
    jput(o, "config", config_to_json(&g->config, &oom), &oom);
    jput(o, "nplayers", json_object_new_int(g->nplayers), &oom);
    jput(o, "in_play", mask_to_json(g->in_play, &oom), &oom);
    jput(o, "players", players, &oom);
    jput(o, "phase", json_object_new_string(il_phase_id(g->phase)), &oom);
    jput(o, "session", json_object_new_int(g->session), &oom);
    jput(o, "drops", json_object_new_int(g->drops), &oom);
    jput(o, "deadline", json_object_new_int64(g->deadline), &oom);
    jput(o, "paused", json_object_new_boolean(g->paused), &oom);
    jput(o, "paused_remaining", json_object_new_int64(g->paused_remaining), &oom);
    jput(o, "drop", drop_to_json(g, &oom), &oom);
    jput(o, "discard", bundle_to_json(&g->discard, &oom), &oom);
    jput(o, "next_offer_id", json_object_new_int64(g->next_offer_id), &oom);
    jput(o, "offers", offers, &oom);
    jput(o, "trades", trades, &oom);
    jput(o, "trades_total", json_object_new_int(g->ntrades), &oom);
    jput(o, "case_index", json_object_new_int(g->case_index), &oom);
    if (g->judged)
        jput(o, "judged", json_object_new_int(g->judged), &oom);
    jput(o, "cases", cases, &oom);
    jput(o, "tribunal_at", json_object_new_int64(g->tribunal_at), &oom);
    if (g->aborted)
        jput(o, "aborted", json_object_new_boolean(true), &oom);
    if (oom) {
        json_object_put(o);
        return NULL;
    }
    return o;
}

/* Reading: each helper returns false when the field is missing, of the wrong
 * type or out of range. */

/* A string field parsed by one of the *_from_id() functions. */
static bool get_id(const struct json_object *o, const char *key, int (*parse)(const char *),
                   int *out)
{
    struct json_object *v = jget_type(o, key, json_type_string);
    int x = v ? parse(json_object_get_string(v)) : -1;
    if (x < 0)
        return false;
    *out = x;
    return true;
}

static int phase_from_id(const char *id)
{
    for (int p = IL_PHASE_DEALING; p <= IL_PHASE_OVER; p++)
        if (strcmp(id, il_phase_id((enum il_phase)p)) == 0)
            return p;
    return -1;
}

static bool get_resource(const struct json_object *o, const char *key, uint8_t *out)
{
    int r;
    if (!get_id(o, key, il_resource_from_id, &r))
        return false;
    *out = (uint8_t)r;
    return true;
}

static bool bundle_from_json(const struct json_object *o, const char *key, struct il_bundle *b)
{
    return jget_counts(o, key, il_card_from_id, IL_CARD_TYPES, UINT8_MAX, b->n);
}

static bool mask_from_json(const struct json_object *o, const char *key, uint8_t *mask)
{
    struct json_object *v = jget_type(o, key, json_type_array);
    if (!v)
        return false;
    *mask = 0;
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        struct json_object *e = json_object_array_get_idx(v, i);
        int r = json_object_is_type(e, json_type_string)
                    ? il_resource_from_id(json_object_get_string(e))
                    : -1;
        if (r < 0 || (*mask & (1u << r)))
            return false;
        *mask |= (uint8_t)(1u << r);
    }
    return true;
}

static bool config_from_json(const struct json_object *o, int64_t format, struct il_config *c)
{
    struct json_object *v = jget_type(o, "config", json_type_object);
    int variant;
    if (!v || !get_id(v, "variant", il_variant_from_id, &variant) ||
        !mask_from_json(v, "resources", &c->resources))
        return false;
    c->variant = (enum il_variant)variant;
    /* Games stored before the options existed keep the live tribunal. */
    struct json_object *options = jget_type(v, "tribunal", json_type_array);
    if (format >= 2 && !options)
        return false;
    for (size_t i = 0; options && i < json_object_array_length(options); i++) {
        struct json_object *e = json_object_array_get_idx(options, i);
        int bit = json_object_is_type(e, json_type_string)
                      ? il_tribunal_option_from_id(json_object_get_string(e))
                      : -1;
        if (bit < 0 || (c->tribunal & bit))
            return false;
        c->tribunal |= (uint8_t)bit;
    }
    struct json_object *timers = jget_type(v, "timers", json_type_object);
    if (!timers)
        return false;
    for (unsigned t = 0; t < IL_TIMERS; t++)
        if (!jget_range(timers, il_timer_id((enum il_timer)t), IL_TIMER_MIN_MS, IL_TIMER_MAX_MS,
                        &c->timer_ms[t]))
            return false;
    return true;
}

/* A vote as stored: a seat, IL_ABSTAINED or IL_NOBODY. */
static bool vote_from_json(const struct json_object *v, int8_t *out)
{
    int64_t x = json_object_is_type(v, json_type_int) ? json_object_get_int64(v) : INT64_MIN;
    if (x != IL_NOBODY && x != IL_ABSTAINED && (x < 0 || x >= IL_MAX_PLAYERS))
        return false;
    *out = (int8_t)x;
    return true;
}

/* Format 1 kept one vote, on the case being judged; format 2 one per case. */
static bool votes_from_json(const struct json_object *o, int64_t format, unsigned case_index,
                            struct il_player *p)
{
    memset(p->votes, IL_NOBODY, sizeof p->votes);
    if (format < 2) {
        struct json_object *v = NULL;
        return json_object_object_get_ex(o, "vote", &v) && case_index < IL_MAX_CASES &&
               vote_from_json(v, &p->votes[case_index]);
    }
    struct json_object *votes = jget_type(o, "votes", json_type_array);
    if (!votes || json_object_array_length(votes) > IL_MAX_CASES)
        return false;
    for (size_t k = 0; k < json_object_array_length(votes); k++)
        if (!vote_from_json(json_object_array_get_idx(votes, k), &p->votes[k]))
            return false;
    return true;
}

static bool player_from_json(const struct json_object *o, int64_t format, unsigned case_index,
                             struct il_player *p)
{
    int64_t score;
    if (jget_bool(o, "active", &p->active) < 0 || !get_resource(o, "dealer", &p->dealer) ||
        !get_resource(o, "buyer", &p->buyer) || !get_resource(o, "extra", &p->extra) ||
        !bundle_from_json(o, "hand", &p->hand) || jget_bool(o, "grabbed", &p->grabbed) < 0 ||
        !votes_from_json(o, format, case_index, p) ||
        !jget_range(o, "score", INT16_MIN, INT16_MAX, &score))
        return false;
    p->score = (int16_t)score;
    return true;
}

static bool players_from_json(const struct json_object *o, int64_t format, struct il_game *g)
{
    struct json_object *v = jget_type(o, "players", json_type_array);
    if (!v || json_object_array_length(v) != g->nplayers)
        return false;
    for (unsigned s = 0; s < g->nplayers; s++) {
        struct json_object *p = json_object_array_get_idx(v, s);
        if (!json_object_is_type(p, json_type_object) ||
            !player_from_json(p, format, g->case_index, &g->players[s]))
            return false;
    }
    return true;
}

static bool drop_from_json(const struct json_object *o, struct il_game *g)
{
    struct json_object *v = jget_type(o, "drop", json_type_object);
    struct json_object *cards = v ? jget_type(v, "cards", json_type_array) : NULL;
    struct json_object *taken = v ? jget_type(v, "taken", json_type_array) : NULL;
    if (!cards || !taken || !jget_u8(v, "shown", IL_RESOURCES, &g->drop_shown))
        return false;
    size_t n = json_object_array_length(cards);
    if (n > IL_RESOURCES || json_object_array_length(taken) != n)
        return false;
    g->drop_count = (uint8_t)n;
    for (size_t i = 0; i < n; i++) {
        struct json_object *c = json_object_array_get_idx(cards, i);
        struct json_object *t = json_object_array_get_idx(taken, i);
        int r = json_object_is_type(c, json_type_string)
                    ? il_resource_from_id(json_object_get_string(c))
                    : -1;
        if (r < 0 || !json_object_is_type(t, json_type_boolean))
            return false;
        g->drop_cards[i] = (uint8_t)r;
        g->drop_taken[i] = json_object_get_boolean(t);
    }
    return true;
}

/* The trade log; a record from before it was kept has none. Only resources
 * may be traded, which the game check confirms. */
static bool trades_from_json(const struct json_object *o, struct il_game *g)
{
    struct json_object *v = jget(o, "trades");
    int64_t total = 0;
    if (!v)
        return !jget(o, "trades_total");
    if (!json_object_is_type(v, json_type_array) || json_object_array_length(v) > IL_MAX_TRADES ||
        !jget_range(o, "trades_total", (int64_t)json_object_array_length(v),
                    json_object_array_length(v) < IL_MAX_TRADES
                        ? (int64_t)json_object_array_length(v)
                        : UINT16_MAX,
                    &total))
        return false;
    g->ntrades = (uint16_t)total;
    for (size_t i = 0; i < json_object_array_length(v); i++) {
        struct json_object *e = json_object_array_get_idx(v, i);
        struct il_trade *t = &g->trades[i];
        struct il_bundle give = {{0}}, ask = {{0}}; /* bundle_from_json sets only its keys */
        if (!json_object_is_type(e, json_type_object) ||
            !jget_u8(e, "from", IL_MAX_PLAYERS - 1, &t->from) ||
            !jget_u8(e, "to", IL_MAX_PLAYERS - 1, &t->to) ||
            !jget_u8(e, "session", IL_SESSIONS, &t->session) ||
            !bundle_from_json(e, "give", &give) || !bundle_from_json(e, "ask", &ask))
            return false;
        for (unsigned c = 0; c < IL_CARD_TYPES; c++)
            if (IL_CARD_KIND(c) != IL_KIND_RESOURCE && (give.n[c] || ask.n[c]))
                return false;
        for (unsigned r = 0; r < IL_RESOURCES; r++) {
            t->give[r] = give.n[IL_CARD(IL_KIND_RESOURCE, r)];
            t->ask[r] = ask.n[IL_CARD(IL_KIND_RESOURCE, r)];
        }
    }
    return true;
}

static bool offers_from_json(const struct json_object *o, struct il_game *g)
{
    struct json_object *v = jget_type(o, "offers", json_type_array);
    if (!v || json_object_array_length(v) > IL_MAX_OFFERS)
        return false;
    g->noffers = (uint8_t)json_object_array_length(v);
    for (unsigned i = 0; i < g->noffers; i++) {
        struct json_object *e = json_object_array_get_idx(v, i);
        struct il_offer *f = &g->offers[i];
        int64_t id;
        if (!json_object_is_type(e, json_type_object) || !jget_range(e, "id", 1, UINT32_MAX, &id) ||
            !jget_u8(e, "from", IL_MAX_PLAYERS - 1, &f->from) ||
            !jget_u8(e, "to", IL_MAX_PLAYERS - 1, &f->to) ||
            !bundle_from_json(e, "give", &f->give) || !bundle_from_json(e, "ask", &f->ask))
            return false;
        f->id = (uint32_t)id;
    }
    return true;
}

static bool cases_from_json(const struct json_object *o, struct il_game *g)
{
    struct json_object *v = jget_type(o, "cases", json_type_array);
    if (!v || json_object_array_length(v) > IL_MAX_CASES)
        return false;
    g->ncases = (uint8_t)json_object_array_length(v);
    for (unsigned i = 0; i < g->ncases; i++) {
        struct json_object *e = json_object_array_get_idx(v, i);
        if (!json_object_is_type(e, json_type_array) || json_object_array_length(e) < 1 ||
            json_object_array_length(e) > 2)
            return false;
        g->cases[i].ncards = (uint8_t)json_object_array_length(e);
        for (unsigned k = 0; k < g->cases[i].ncards; k++) {
            struct json_object *c = json_object_array_get_idx(e, k);
            int t = json_object_is_type(c, json_type_string)
                        ? il_card_from_id(json_object_get_string(c))
                        : -1;
            if (t < 0)
                return false;
            g->cases[i].cards[k] = (uint8_t)t;
        }
    }
    return true;
}

enum il_error il_game_from_json(struct il_game *g, const struct json_object *json)
{
    if (!json || !json_object_is_type(json, json_type_object))
        return IL_ERR_CORRUPT;
    /* Filled into a zeroed copy, padding included, so a round trip gives
     * back the same bytes; g changes only once the whole game checks out. */
    struct il_game w;
    memset(&w, 0, sizeof w);
    int64_t format, next_id, judged = 0, far = IL_NOW_LIMIT + IL_TIMER_MAX_MS;
    int phase;
    if (!jget_range(json, "format", IL_JSON_FORMAT_MIN, IL_JSON_FORMAT, &format) ||
        !config_from_json(json, format, &w.config) ||
        !jget_u8(json, "nplayers", IL_MAX_PLAYERS, &w.nplayers) || w.nplayers < IL_MIN_PLAYERS ||
        !jget_u8(json, "case_index", IL_MAX_CASES, &w.case_index) ||
        (jget(json, "judged") &&
         !jget_range(json, "judged", 0, (1 << IL_MAX_CASES) - 1, &judged)) ||
        !mask_from_json(json, "in_play", &w.in_play) || !players_from_json(json, format, &w) ||
        !get_id(json, "phase", phase_from_id, &phase) ||
        !jget_u8(json, "session", IL_SESSIONS, &w.session) ||
        !jget_u8(json, "drops", IL_DROPS, &w.drops) ||
        !jget_range(json, "deadline", -far, far, &w.deadline) ||
        jget_bool(json, "paused", &w.paused) < 0 ||
        !jget_range(json, "paused_remaining", 0, IL_TIMER_MAX_MS, &w.paused_remaining) ||
        !drop_from_json(json, &w) || !bundle_from_json(json, "discard", &w.discard) ||
        !jget_range(json, "next_offer_id", 1, UINT32_MAX, &next_id) ||
        !offers_from_json(json, &w) || !trades_from_json(json, &w) || !cases_from_json(json, &w) ||
        (format >= 2 && !jget_range(json, "tribunal_at", -far, far, &w.tribunal_at)) ||
        (jget(json, "aborted") && jget_bool(json, "aborted", &w.aborted) < 0))
        return IL_ERR_CORRUPT;
    w.phase = (enum il_phase)phase;
    w.next_offer_id = (uint32_t)next_id;
    w.judged = (uint16_t)judged; /* absent: no early verdict, as in records before it */
    if (!il_game_check(&w, NULL, 0))
        return IL_ERR_CORRUPT;
    memcpy(g, &w, sizeof w);
    return IL_OK;
}
