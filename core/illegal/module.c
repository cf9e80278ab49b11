/*
 * module.c - Illegal behind the rules-module interface (core/rules.h).
 *
 * Each function adapts the rules (illegal.h) to one entry of the interface;
 * the lobby's settings and their stored form are here too.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../catalog.h"
#include "../text.h"
#include "internal.h"
#include "module.h"
#include "view.h"

/* The tribunal of the casual variants: the rulebook's casual game has the
 * players "only need to get together for the Tribunal", so it waits for the
 * host (or the time they set) and moves on as soon as everyone has voted. */
#define CASUAL_TRIBUNAL (IL_TRIBUNAL_HOLD | IL_TRIBUNAL_CLOSE_EARLY)

/* A variant's settings by default: the daemon's timers, and its tribunal. */
static void variant_defaults(struct il_config *c, enum il_variant v, const struct rules_defaults *d)
{
    il_config_default(c, v);
    for (unsigned t = 0; t < IL_TIMERS; t++)
        c->timer_ms[t] = d->value[il_timer_setting((enum il_timer)t, v)] * 1000;
    c->tribunal = il_variant_casual(v) ? CASUAL_TRIBUNAL : 0;
}

/* Ready-made settings: a variant with its tribunal, and the value of each
 * setting of the table it sets (a duration in seconds), 0 taking the
 * daemon's default for that variant. */
static const struct preset {
    const char *id;
    enum il_variant variant;
    int64_t value[IL_SETTINGS];
} presets[] = {
    /* Five one-minute sessions: about 10 minutes with 4 players. */
    {"quick",
     IL_VARIANT_STANDARD,
     {[IL_SET_SESSION] = 60,
      [IL_SET_REVEAL] = 2,
      [IL_SET_GRAB] = 15,
      [IL_SET_DEBATE] = 20,
      [IL_SET_VOTE] = 15}},
    {"standard", IL_VARIANT_STANDARD, {0}},
    {"casual", IL_VARIANT_CASUAL, {0}},
};

static const char *preset_at(unsigned i)
{
    return i < sizeof presets / sizeof *presets ? presets[i].id : NULL;
}

/* The settings of preset p, keeping c's resources: a preset is a whole way
 * of playing, its variant, timers and tribunal. */
static void preset_config(struct il_config *c, const struct preset *p,
                          const struct rules_defaults *d)
{
    uint8_t resources = c->resources;
    variant_defaults(c, p->variant, d);
    for (unsigned t = 0; t < IL_TIMERS; t++) {
        int64_t s = p->value[il_timer_setting((enum il_timer)t, p->variant)];
        if (s)
            c->timer_ms[t] = s * 1000;
    }
    c->resources = resources;
}

static int init(void *state, const char *mode, const struct rules_defaults *d)
{
    struct il_state *s = state;
    int64_t v = mode ? il_variant_parse(mode) : d->value[IL_SET_VARIANT];
    if (v < 0 || v >= IL_VARIANTS)
        return -1;
    memset(s, 0, sizeof *s);
    variant_defaults(&s->config, (enum il_variant)v, d);
    return 0;
}

static void rematch(void *state, const void *finished)
{
    struct il_state *s = state;
    const struct il_state *old = finished;
    memset(s, 0, sizeof *s);
    s->config = old->config;
    s->poll_ballots = old->poll_ballots;
}

static const char *mode(const void *state)
{
    return il_variant_id(((const struct il_state *)state)->config.variant);
}

/* "live", or options separated by commas or blanks ("hold, close-early"):
 * how the tribunal runs. */
static int parse_tribunal(const char *text, uint8_t *options)
{
    char word[32];
    *options = 0;
    if (strcasecmp(text, "live") == 0)
        return 0;
    for (const char *p = text; *p;) {
        size_t n = strcspn(p, ", ");
        if (n >= sizeof word)
            return -1;
        memcpy(word, p, n);
        word[n] = '\0';
        int bit = n ? il_tribunal_option_from_id(word) : 0;
        if (bit < 0)
            return -1;
        *options |= (uint8_t)bit;
        p += n;
        p += strspn(p, ", ");
    }
    return *options ? 0 : -1;
}

/* Writes the options as the table reads them: "hold, close-early", or "live". */
static void tribunal_text(uint8_t options, char *out, size_t len)
{
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    for (unsigned i = 0; i < IL_TRIBUNAL_OPTIONS; i++)
        if (options & (1u << i))
            text_list_add(&l, "%s", il_tribunal_option_id(i));
    if (!l.n)
        snprintf(out, len, "live");
}

/* "guns,alcohol,..." or "random": the GM's choice of resources. */
static int parse_resource_set(const char *text, const char *lang, uint8_t *mask)
{
    struct il_bundle b;
    char word[64], choices[256];
    if (strcasecmp(text, "random") == 0) {
        *mask = 0;
        return 0;
    }
    if (il_parse_cards(text, 0xff, lang, &b, word, sizeof word, choices, sizeof choices) !=
        RESOLVE_OK)
        return -1;
    *mask = 0;
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        if (b.n[r] > 1)
            return -1;
        if (b.n[r])
            *mask |= (uint8_t)(1u << r);
    }
    return 0;
}

/* "set preset quick": a whole way of playing, its variant, timers and tribunal. */
static enum rules_set_result set_preset(struct il_state *s, const char *value,
                                        const struct rules_defaults *d, char *shown,
                                        size_t shownlen)
{
    for (unsigned i = 0; preset_at(i); i++)
        if (strcasecmp(value, presets[i].id) == 0) {
            preset_config(&s->config, &presets[i], d);
            snprintf(shown, shownlen, "%s", presets[i].id);
            return RULES_SET_DONE;
        }
    return RULES_SET_BAD_VALUE;
}

/* "set variant casual". Timers and a tribunal still at the old variant's
 * defaults take the new one's; what the host set stays as set. */
static enum rules_set_result set_variant(struct il_state *s, const char *value,
                                         const struct rules_defaults *d, char *shown,
                                         size_t shownlen)
{
    int v = il_variant_parse(value);
    if (v < 0)
        return RULES_SET_BAD_VALUE;
    struct il_config c, old;
    variant_defaults(&old, s->config.variant, d);
    variant_defaults(&c, (enum il_variant)v, d);
    for (unsigned t = 0; t < IL_TIMERS; t++)
        if (s->config.timer_ms[t] != old.timer_ms[t])
            c.timer_ms[t] = s->config.timer_ms[t];
    if (s->config.tribunal != old.tribunal)
        c.tribunal = s->config.tribunal;
    c.resources = s->config.resources;
    s->config = c;
    snprintf(shown, shownlen, "%s", il_variant_id((enum il_variant)v));
    return RULES_SET_DONE;
}

/* "set grab 20": a timer, in the lobby or (as an action) in the game. */
static enum rules_set_result set_timer(struct il_state *s, bool started, enum il_setting row,
                                       const char *value, const char *lang, char *shown,
                                       size_t shownlen, void *action)
{
    static const enum il_timer timers[IL_SETTINGS] = {
        [IL_SET_SESSION] = IL_TIMER_SESSION, [IL_SET_REVEAL] = IL_TIMER_REVEAL,
        [IL_SET_GRAB] = IL_TIMER_GRAB,       [IL_SET_DEBATE] = IL_TIMER_DEBATE,
        [IL_SET_VOTE] = IL_TIMER_VOTE,
    };
    const struct rules_setting *r = &il_settings[row];
    int64_t ms = text_parse_duration(value, 1000);
    if (ms < r->min * 1000 || ms > r->max * 1000)
        return RULES_SET_BAD_VALUE;
    if (started) {
        *(struct il_action *)action = (struct il_action){
            .type = IL_ACT_SET_TIMER, .player = IL_GM, .timer = timers[row], .ms = ms};
        return RULES_SET_PLAY;
    }
    s->config.timer_ms[timers[row]] = ms;
    text_duration(shown, shownlen, lang, ms);
    return RULES_SET_DONE;
}

static enum rules_set_result set(void *state, bool started, const char *key, const char *value,
                                 const char *lang, const struct rules_defaults *d, char *shown,
                                 size_t shownlen, void *action)
{
    struct il_state *s = state;
    const struct rules_setting *r;
    uint8_t options;
    snprintf(shown, shownlen, "%s", value);
    enum rules_set_result where = rules_setting_check(il_settings, key, started, &r);
    if (where != RULES_SET_DONE)
        return where;
    switch ((enum il_setting)(r - il_settings)) {
    case IL_SET_PRESET:
        return set_preset(s, value, d, shown, shownlen);
    case IL_SET_VARIANT:
        return set_variant(s, value, d, shown, shownlen);
    case IL_SET_RESOURCES:
        if (parse_resource_set(value, lang, &options) < 0)
            return RULES_SET_BAD_VALUE;
        s->config.resources = options;
        return RULES_SET_DONE;
    case IL_SET_TRIBUNAL:
        if (parse_tribunal(value, &options) < 0)
            return RULES_SET_BAD_VALUE;
        s->config.tribunal = options;
        tribunal_text(options, shown, shownlen);
        return RULES_SET_DONE;
    case IL_SET_TRIBUNAL_AT: {
        /* "host": when the host says next; else a duration from now */
        int64_t ms = strcasecmp(value, "host") == 0 ? 0 : text_parse_duration(value, 60000);
        if (ms < 0)
            return RULES_SET_BAD_VALUE;
        *(struct il_action *)action =
            (struct il_action){.type = IL_ACT_SCHEDULE, .player = IL_GM, .ms = ms};
        return RULES_SET_PLAY;
    }
    case IL_SET_BALLOTS: {
        bool poll = strcmp(value, "poll") == 0;
        if (!poll && strcmp(value, "private") != 0)
            return RULES_SET_BAD_VALUE;
        s->poll_ballots = poll;
        return RULES_SET_DONE;
    }
    case IL_SET_SESSION:
    case IL_SET_REVEAL:
    case IL_SET_GRAB:
    case IL_SET_DEBATE:
    case IL_SET_VOTE:
        return set_timer(s, started, (enum il_setting)(r - il_settings), value, lang, shown,
                         shownlen, action);
    case IL_SET_CASUAL_SESSION:
    case IL_SETTINGS:
        break;
    }
    return RULES_SET_BAD_KEY;
}

/* The preset the settings equal (variant, timers and tribunal), or NULL. */
static const char *preset_of(const struct il_config *c, const struct rules_defaults *d)
{
    for (unsigned i = 0; preset_at(i); i++) {
        struct il_config p = *c;
        preset_config(&p, &presets[i], d);
        if (p.variant == c->variant && p.tribunal == c->tribunal &&
            memcmp(p.timer_ms, c->timer_ms, sizeof p.timer_ms) == 0)
            return presets[i].id;
    }
    return NULL;
}

/* What the lobby calls settings that equal no preset: their variant, and
 * whether its timers were changed. */
static void label_of(const struct il_config *c, const struct rules_defaults *d, const char *lang,
                     char *out, size_t len)
{
    struct il_config v;
    variant_defaults(&v, c->variant, d);
    const char *variant = text_name(lang, IL_KEYS "variant-label", il_variant_id(c->variant));
    if (memcmp(v.timer_ms, c->timer_ms, sizeof v.timer_ms) == 0) {
        snprintf(out, len, "%s", variant);
        return;
    }
    const char *vars[] = {"variant", variant, NULL};
    text_fill(out, len, lang, IL_KEYS "msg.settings-custom-timers", vars);
}

/* The tribunal options in words, after a space: " Tribunal (hold): it waits
 * for the host's ...". Nothing for the rulebook's live tribunal. */
static void tribunal_sentence(uint8_t options, const char *lang, char *out, size_t len)
{
    char ids[96], rules[512];
    struct text_list l;
    out[0] = '\0';
    if (!options)
        return;
    tribunal_text(options, ids, sizeof ids);
    text_list_init(&l, rules, sizeof rules, "; ");
    for (unsigned i = 0; i < IL_TRIBUNAL_OPTIONS; i++)
        if (options & (1u << i))
            text_list_add(&l, "%s",
                          text_name(lang, IL_KEYS "tribunal-option", il_tribunal_option_id(i)));
    const char *vars[] = {"options", ids, "rules", rules, NULL};
    out[0] = ' ';
    text_fill(out + 1, len - 1, lang, IL_KEYS "msg.settings-tribunal", vars);
}

static int settings(const void *state, const char *lang, const struct rules_defaults *d,
                    struct json_object *out, char *text, size_t len)
{
    const struct il_state *s = state;
    const struct il_config *c = &s->config;
    const char *preset = preset_of(c, d);
    char durations[IL_TIMERS][48], tribunal[96];
    tribunal_text(c->tribunal, tribunal, sizeof tribunal);
    for (unsigned t = 0; t < IL_TIMERS; t++) {
        text_duration(durations[t], sizeof durations[t], lang, c->timer_ms[t]);
        if (json_object_object_add(out, il_timer_id((enum il_timer)t),
                                   json_object_new_int64(c->timer_ms[t] / 1000)) != 0)
            return -1;
    }
    struct json_object *resources =
        c->resources ? json_object_new_array() : json_object_new_string("random");
    for (unsigned r = 0; c->resources && r < IL_RESOURCES; r++)
        if (c->resources & (1u << r))
            json_object_array_add(resources, json_object_new_string(il_resource_id(r)));
    if (json_object_object_add(out, "preset", preset ? json_object_new_string(preset) : NULL) ||
        json_object_object_add(out, "variant", json_object_new_string(il_variant_id(c->variant))) ||
        json_object_object_add(out, "resources", resources) ||
        json_object_object_add(out, "ballots",
                               json_object_new_string(s->poll_ballots ? "poll" : "private")) ||
        json_object_object_add(out, "tribunal", json_object_new_string(tribunal)))
        return -1;
    char label[256], sentence[640];
    if (preset)
        snprintf(label, sizeof label, "%s", text_name(lang, IL_KEYS "preset", preset));
    else
        label_of(c, d, lang, label, sizeof label);
    const char *vars[] = {"preset",  label,
                          "session", durations[IL_TIMER_SESSION],
                          "grab",    durations[IL_TIMER_GRAB],
                          "debate",  durations[IL_TIMER_DEBATE],
                          "vote",    durations[IL_TIMER_VOTE],
                          NULL};
    /* a casual game has no grabs: each player draws in private */
    text_fill(text, len, lang,
              il_variant_casual(c->variant) ? IL_KEYS "msg.settings-casual"
                                            : IL_KEYS "msg.settings",
              vars);
    tribunal_sentence(c->tribunal, lang, sentence, sizeof sentence);
    size_t used = strlen(text);
    if (used < len)
        snprintf(text + used, len - used, "%s", sentence);
    return 0;
}

static int setup(void *state, unsigned nseats, int64_t now, struct rng *rng, void *events)
{
    struct il_state *s = state;
    struct il_events *ev = events;
    ev->n = 0;
    memset(&s->drop, 0, sizeof s->drop);
    return (int)il_game_setup(&s->game, &s->config, nseats, now, rng, ev);
}

static int apply(void *state, const void *action, int64_t now, struct rng *rng, void *events)
{
    struct il_events *ev = events;
    ev->n = 0;
    return (int)il_game_apply(&((struct il_state *)state)->game, action, now, rng, ev);
}

static bool has_events(const void *events)
{
    return ((const struct il_events *)events)->n > 0;
}

static void steer(void *action, enum rules_steer how, unsigned seat, int64_t ms)
{
    static const enum il_action_type types[] = {
        [RULES_TICK] = IL_ACT_TICK,     [RULES_PAUSE] = IL_ACT_PAUSE,
        [RULES_RESUME] = IL_ACT_RESUME, [RULES_EXTEND] = IL_ACT_EXTEND,
        [RULES_NEXT] = IL_ACT_NEXT,     [RULES_END] = IL_ACT_END,
        [RULES_REMOVE] = IL_ACT_KICK,
    };
    *(struct il_action *)action =
        (struct il_action){.type = types[how], .player = IL_GM, .target = (int8_t)seat, .ms = ms};
}

static const char *error_id(int e)
{
    return il_error_id((enum il_error)e);
}

static int64_t deadline(const void *state)
{
    return il_game_deadline(&((const struct il_state *)state)->game);
}

static void result(const void *state, unsigned seat, struct rules_result *out)
{
    const struct il_game *g = &((const struct il_state *)state)->game;
    memset(out, 0, sizeof *out);
    if (seat >= g->nplayers || !g->players[seat].active)
        return;
    out->played = true;
    out->score = g->players[seat].score;
    out->rank = 1;
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].active && g->players[s].score > out->score)
            out->rank++;
    out->aborted = g->aborted;
    out->won = out->rank == 1 && !g->aborted;
    out->tally = il_score_parts(g, seat).right > 0;
}

static bool over(const void *state)
{
    return ((const struct il_state *)state)->game.phase == IL_PHASE_OVER;
}

static bool active(const void *state, unsigned seat)
{
    const struct il_state *s = state;
    return seat < s->game.nplayers && s->game.players[seat].active;
}

static bool paused(const void *state)
{
    return ((const struct il_state *)state)->game.paused;
}

static const char *phase(const void *state)
{
    return il_phase_id(((const struct il_state *)state)->game.phase);
}

static const char *needs(const void *state, unsigned seat)
{
    const struct il_game *g = &((const struct il_state *)state)->game;
    if (seat >= g->nplayers || !g->players[seat].active || g->paused)
        return NULL;
    switch (g->phase) {
    case IL_PHASE_DEALING:
        for (unsigned i = 0; i < g->noffers; i++)
            if (g->offers[i].to == seat)
                return IL_KEYS "msg.nudge-offer";
        return NULL;
    case IL_PHASE_DROP_GRAB:
        return g->players[seat].grabbed ? NULL : IL_KEYS "msg.nudge-grab";
    case IL_PHASE_DEBATE:
    case IL_PHASE_VOTE:
        for (unsigned k = g->case_index; k < g->ncases; k++)
            if (il_case_open(g, k) && g->players[seat].votes[k] == IL_NOBODY)
                return IL_KEYS "msg.nudge-vote";
        return NULL;
    default:
        return NULL;
    }
}

static const char *phase_at(unsigned i)
{
    /* A game that is over is dropped at once: no gauge counts it. */
    return i < IL_PHASE_OVER ? il_phase_id((enum il_phase)i) : NULL;
}

/* --- the stored form ------------------------------------------------------ */

static void add_int(struct json_object *o, const char *k, int64_t v)
{
    json_object_object_add(o, k, json_object_new_int64(v));
}

static struct json_object *drop_to_json(const struct il_drop *d)
{
    struct json_object *o = json_object_new_object();
    struct json_object *cards = json_object_new_array();
    struct json_object *takers = json_object_new_array();
    if (!o || !cards || !takers) {
        json_object_put(o);
        json_object_put(cards);
        json_object_put(takers);
        return NULL;
    }
    add_int(o, "number", d->number);
    for (unsigned i = 0; i < d->count && i < IL_RESOURCES; i++) {
        json_object_array_add(cards, json_object_new_string(il_resource_id(d->cards[i])));
        json_object_array_add(takers, json_object_new_int(d->taker[i]));
    }
    json_object_object_add(o, "cards", cards);
    json_object_object_add(o, "takers", takers);
    add_int(o, "leftover", d->leftover);
    json_object_object_add(o, "open", json_object_new_boolean(d->open));
    json_object_object_add(o, "done", json_object_new_boolean(d->done));
    return o;
}

static int save(const void *state, bool started, struct json_object *o)
{
    const struct il_state *s = state;
    struct json_object *timers = json_object_new_object();
    if (!timers)
        return -1;
    json_object_object_add(o, "variant", json_object_new_string(il_variant_id(s->config.variant)));
    add_int(o, "resources", s->config.resources);
    add_int(o, "tribunal", s->config.tribunal);
    json_object_object_add(o, "ballots",
                           json_object_new_string(s->poll_ballots ? "poll" : "private"));
    for (unsigned t = 0; t < IL_TIMERS; t++)
        add_int(timers, il_timer_id(t), s->config.timer_ms[t]);
    json_object_object_add(o, "timers", timers);
    if (!started)
        return 0;
    struct json_object *game = il_game_to_json(&s->game);
    struct json_object *drop = drop_to_json(&s->drop);
    if (!game || !drop) {
        json_object_put(game);
        json_object_put(drop);
        return -1;
    }
    json_object_object_add(o, "state", game);
    json_object_object_add(o, "drop", drop);
    return 0;
}

static const char *get_str(const struct json_object *o, const char *k)
{
    struct json_object *v = jget_type(o, k, json_type_string);
    return v ? json_object_get_string(v) : NULL;
}

/* Reads the drop record; a record written before it existed gets the drop
 * the rules still hold, with its takers unknown. Returns false if damaged. */
static bool drop_from_json(struct il_state *s, unsigned nseats, const struct json_object *o)
{
    struct il_drop *d = &s->drop;
    struct json_object *j, *cards, *takers;
    int64_t n;
    memset(d, 0, sizeof *d);
    if (!json_object_object_get_ex(o, "drop", &j)) {
        const struct il_game *g = &s->game;
        d->number = g->drops;
        d->count = g->drop_shown;
        for (unsigned i = 0; i < d->count; i++) {
            d->cards[i] = g->drop_cards[i];
            d->taker[i] = g->drop_taken[i] ? IL_DROP_UNKNOWN : IL_DROP_ON_TABLE;
        }
        d->open = g->phase == IL_PHASE_DROP_GRAB;
        return true;
    }
    if (!jget_range(j, "number", 0, IL_DROPS, &n))
        return false;
    d->number = (uint8_t)n;
    if (!jget_range(j, "leftover", 0, 255, &n))
        return false;
    d->leftover = (uint8_t)n;
    if (jget_bool(j, "open", &d->open) < 0 || jget_bool(j, "done", &d->done) < 0 ||
        !json_object_object_get_ex(j, "cards", &cards) ||
        !json_object_is_type(cards, json_type_array) ||
        !json_object_object_get_ex(j, "takers", &takers) ||
        !json_object_is_type(takers, json_type_array) ||
        json_object_array_length(cards) > IL_RESOURCES ||
        json_object_array_length(takers) != json_object_array_length(cards))
        return false;
    d->count = (uint8_t)json_object_array_length(cards);
    for (unsigned i = 0; i < d->count; i++) {
        struct json_object *c = json_object_array_get_idx(cards, i);
        struct json_object *t = json_object_array_get_idx(takers, i);
        int r = json_object_is_type(c, json_type_string)
                    ? il_resource_from_id(json_object_get_string(c))
                    : -1;
        if (r < 0 || !json_object_is_type(t, json_type_int))
            return false;
        int64_t seat = json_object_get_int64(t);
        if (seat < IL_DROP_UNKNOWN || seat >= (int64_t)nseats)
            return false;
        d->cards[i] = (uint8_t)r;
        d->taker[i] = (int8_t)seat;
    }
    return true;
}

static int load(void *state, bool started, unsigned nseats, const struct json_object *o, char *why,
                size_t whylen)
{
    struct il_state *s = state;
    struct json_object *timers;
    int64_t n;
    memset(s, 0, sizeof *s);
    int variant = il_variant_from_id(get_str(o, "variant") ? get_str(o, "variant") : "");
    if (variant < 0 || !jget_range(o, "resources", 0, 255, &n)) {
        snprintf(why, whylen, "variant or resources invalid");
        return -1;
    }
    s->config.variant = (enum il_variant)variant;
    s->config.resources = (uint8_t)n;
    /* Records written before the tribunal options have none. */
    if (json_object_object_get_ex(o, "tribunal", NULL) &&
        !jget_range(o, "tribunal", 0, (1 << IL_TRIBUNAL_OPTIONS) - 1, &n)) {
        snprintf(why, whylen, "tribunal options invalid");
        return -1;
    }
    s->config.tribunal = json_object_object_get_ex(o, "tribunal", NULL) ? (uint8_t)n : 0;
    const char *ballots = get_str(o, "ballots");
    if (!ballots || (strcmp(ballots, "poll") != 0 && strcmp(ballots, "private") != 0)) {
        snprintf(why, whylen, "ballots invalid");
        return -1;
    }
    s->poll_ballots = strcmp(ballots, "poll") == 0;
    if (!json_object_object_get_ex(o, "timers", &timers)) {
        snprintf(why, whylen, "timers missing");
        return -1;
    }
    for (unsigned t = 0; t < IL_TIMERS; t++)
        if (!jget_range(timers, il_timer_id(t), IL_TIMER_MIN_MS, IL_TIMER_MAX_MS,
                        &s->config.timer_ms[t])) {
            snprintf(why, whylen, "timer %s invalid", il_timer_id(t));
            return -1;
        }
    if (!started)
        return 0;
    struct json_object *game;
    if (!json_object_object_get_ex(o, "state", &game) ||
        il_game_from_json(&s->game, game) != IL_OK || s->game.nplayers != nseats) {
        snprintf(why, whylen, "rules state invalid");
        return -1;
    }
    if (!drop_from_json(s, nseats, o)) {
        snprintf(why, whylen, "drop invalid");
        return -1;
    }
    return 0;
}

/* --- messages ---------------------------------------------------------------- */

static void note(void *state, const void *events)
{
    il_render_note(state, events);
}

/* Every time Illegal shows is a deadline in its events. */
static void render(const void *state, const struct rules_table *t, const void *events, int64_t now,
                   rules_emit_fn emit, void *arg)
{
    (void)now;
    il_render(state, t, events, emit, arg);
}

static void render_private(const void *state, const struct rules_table *t, unsigned seat,
                           bool fresh, rules_emit_fn emit, void *arg)
{
    il_render_private(state, t, seat, fresh, emit, arg);
}

/* Illegal's votes say no time left: now is not needed. */
static void render_taken(const void *state, const struct rules_table *t, unsigned seat, int64_t now,
                         rules_emit_fn emit, void *arg)
{
    (void)now;
    il_render_taken(state, t, seat, emit, arg);
}

void il_phase_line(const struct il_game *s, const char *lang, char *out, size_t len)
{
    char session[16], drop[16], kase[16], cases[16], key[32];
    snprintf(session, sizeof session, "%u", s->session);
    snprintf(drop, sizeof drop, "%u", s->drops);
    snprintf(kase, sizeof kase, "%u", s->case_index + 1);
    snprintf(cases, sizeof cases, "%u", s->ncases);
    snprintf(key, sizeof key, IL_KEYS "phase.%s", il_phase_id(s->phase));
    const char *vars[] = {"session", session, "drop", drop, "case", kase, "cases", cases, NULL};
    text_fill(out, len, lang, key, vars);
}

static void gm_view(const void *state, const struct rules_table *t, char *out, size_t len)
{
    il_gm_view(&((const struct il_state *)state)->game, t, out, len);
}

static void status(const void *state, const struct rules_table *t, int64_t now, char *out,
                   size_t len)
{
    const struct il_state *st = state;
    const struct il_game *s = &st->game;
    char phase_line[256], left[64], players[1024];
    struct text_list active;
    il_phase_line(s, t->lang, phase_line, sizeof phase_line);
    int64_t remaining = s->paused ? s->paused_remaining : il_game_deadline(s) - now;
    text_duration(left, sizeof left, t->lang, remaining > 0 ? remaining : 0);
    text_list_init(&active, players, sizeof players, ", ");
    for (unsigned i = 0; i < t->nseats; i++)
        if (s->players[i].active)
            text_list_add(&active, "%s", t->names[i]);
    const char *vars[] = {
        "id",      t->game,
        "variant", text_name(t->lang, IL_KEYS "variant", il_variant_id(st->config.variant)),
        "phase",   phase_line,
        "paused",  s->paused ? catalog_text(t->lang, IL_KEYS "msg.status-paused") : "",
        "left",    left,
        "players", players,
        NULL};
    /* a tribunal held for the host has no clock to show */
    bool untimed = !s->paused && il_game_deadline(s) == 0;
    text_fill(out, len, t->lang,
              untimed ? IL_KEYS "msg.status-game-untimed" : IL_KEYS "msg.status-game", vars);
}

/* The topics of its messages' keys. */
static const struct msg_topic topics[] = {
    {"hand", false, true},    /* a seat's roles and hand */
    {"offer", true, true},    /* an offer, to each side */
    {"drop", true, false},    /* drop 1..4 */
    {"vote", true, false},    /* the ballot of case k */
    {"votes", true, false},   /* who has voted on case k */
    {"recap", true, false},   /* a part of the recap */
    {"result", false, false}, /* the scores */
    {NULL, false, false},
};

/* A reaction on the open drop's message is a grab of the card it stands for. */
static bool reaction(const void *state, const struct msg_key *key, const char *emoji, unsigned seat,
                     void *action)
{
    const struct il_game *g = &((const struct il_state *)state)->game;
    int res = il_emoji_resource(emoji);
    if (res < 0 || strcmp(key->topic, "drop") != 0 || g->drops != key->number ||
        g->phase != IL_PHASE_DROP_GRAB)
        return false;
    *(struct il_action *)action =
        (struct il_action){.type = IL_ACT_GRAB, .player = (int8_t)seat, .resource = (uint8_t)res};
    return true;
}

const struct rules_module il_module = {
    .id = "illegal",
    .min_players = IL_MIN_PLAYERS,
    .max_players = IL_MAX_PLAYERS,
    .state_size = sizeof(struct il_state),
    .events_size = sizeof(struct il_events),
    .action_size = sizeof(struct il_action),
    .settings_table = il_settings,
    .modes = il_variant_ids,
    .mode_keys = IL_KEYS "variant",
    .rules_summary = IL_KEYS "msg.rules",
    .stats_line = IL_KEYS "msg.stats",
    .config_in_game_section = true,
    .init = init,
    .rematch = rematch,
    .mode = mode,
    .preset_at = preset_at,
    .settings = settings,
    .set = set,
    .setup = setup,
    .apply = apply,
    .has_events = has_events,
    .steer = steer,
    .error_id = error_id,
    .error_keys = IL_KEYS "error.",
    .deadline = deadline,
    .over = over,
    .result = result,
    .active = active,
    .paused = paused,
    .phase = phase,
    .phase_at = phase_at,
    .transitions = il_transitions,
    .needs = needs,
    .gm_view = gm_view,
    .save = save,
    .load = load,
    .commands = il_commands,
    .topics = topics,
    .note = note,
    .render = render,
    .render_private = render_private,
    .render_taken = render_taken,
    .status = status,
    .reaction = reaction,
    .complete = il_complete,
    .view_size = sizeof(struct il_view),
    .seat_view = il_seat_view,
    .strategies = il_strategies,
};
