/*
 * module.c - Palm & Drewes' Illegal behind the rules-module interface
 * (core/rules.h): each function adapts the rules (palm_drewes.h) to one
 * entry of the interface. Settings are in settings.c, messages in render.c,
 * commands in commands.c.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "../json.h"
#include "module.h"
#include "view.h"
#include "words.h"

static int init(void *state, const char *mode, const struct rules_defaults *defaults)
{
    return pd_settings_init(state, mode, defaults);
}

/* A rematch plays by the same settings and goes on with the series. */
static void rematch(void *state, const void *finished)
{
    struct pd_state *s = state;
    const struct pd_state *old = finished;
    memset(s, 0, sizeof *s);
    s->preset = old->preset;
    s->config = old->config;
    pd_series_after(&old->game, &s->series);
}

static const char *mode(const void *state)
{
    return pd_settings_mode(state);
}

static int settings(const void *state, const char *lang, const struct rules_defaults *defaults,
                    struct json_object *out, char *text, size_t len)
{
    return pd_settings_describe(state, lang, defaults, out, text, len);
}

static enum rules_set_result set(void *state, bool started, const char *key, const char *value,
                                 const char *lang, const struct rules_defaults *defaults,
                                 char *shown, size_t shownlen, void *action)
{
    return pd_settings_set(state, started, key, value, lang, defaults, shown, shownlen, action);
}

/* A series goes on only with the same number of players (pd_game_setup). */
static int setup(void *state, unsigned nseats, int64_t now, struct rng *rng, void *events)
{
    struct pd_state *s = state;
    struct pd_events *ev = events;
    ev->n = 0;
    return (int)pd_game_setup(&s->game, &s->config, nseats, s->series.games ? &s->series : NULL,
                              now, rng, ev);
}

static int apply(void *state, const void *action, int64_t now, struct rng *rng, void *events)
{
    struct pd_events *ev = events;
    ev->n = 0;
    return (int)pd_game_apply(&((struct pd_state *)state)->game, action, now, rng, ev);
}

static bool has_events(const void *events)
{
    return ((const struct pd_events *)events)->n > 0;
}

static void steer(void *action, enum rules_steer how, unsigned seat, int64_t ms)
{
    static const enum pd_action_type types[] = {
        [RULES_TICK] = PD_ACT_TICK,     [RULES_PAUSE] = PD_ACT_PAUSE,
        [RULES_RESUME] = PD_ACT_RESUME, [RULES_EXTEND] = PD_ACT_EXTEND,
        [RULES_NEXT] = PD_ACT_NEXT,     [RULES_END] = PD_ACT_END,
        [RULES_REMOVE] = PD_ACT_KICK,
    };
    struct pd_action *a = action;
    pd_action_init(a, types[how], PD_HOST);
    a->target = (int8_t)seat;
    a->ms = ms;
}

static const char *error_id(int e)
{
    return pd_error_id((enum pd_error)e);
}

static const struct pd_game *game_of(const void *state)
{
    return &((const struct pd_state *)state)->game;
}

static int64_t deadline(const void *state)
{
    return pd_game_deadline(game_of(state));
}

static bool over(const void *state)
{
    return game_of(state)->phase == PD_PHASE_OVER;
}

static bool aborted(const struct pd_game *g)
{
    return g->end == PD_END_HOST || g->end == PD_END_PLAYERS;
}

static void result(const void *state, unsigned seat, struct rules_result *out)
{
    const struct pd_game *g = game_of(state);
    memset(out, 0, sizeof *out);
    if (seat >= g->nplayers || !g->players[seat].active)
        return;
    out->played = true;
    out->score = g->players[seat].score;
    out->rank = 1;
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].active && g->players[s].score > out->score)
            out->rank++;
    out->aborted = aborted(g);
    out->tally = g->end == PD_END_RECKONING && g->current == seat;
    out->won = out->rank == 1 && !out->aborted;
}

static bool active(const void *state, unsigned seat)
{
    const struct pd_game *g = game_of(state);
    return seat < g->nplayers && g->players[seat].active;
}

/* The bot's own reminder (its vars: the game's id and the time left); the
 * rules' REMINDER event says the same from the game's clock. */
static const char *needs(const void *state, unsigned seat)
{
    const struct pd_game *g = game_of(state);
    static const char *const keys[PD_PHASES] = {
        [PD_PHASE_TURN] = PD_KEYS "msg.nudge-turn",
        [PD_PHASE_PASS] = PD_KEYS "msg.nudge-pass",
        [PD_PHASE_LOSS] = PD_KEYS "msg.nudge-loss",
    };
    return pd_waits_on(g, seat) ? keys[g->phase] : NULL;
}

static bool paused(const void *state)
{
    return game_of(state)->paused;
}

static const char *phase(const void *state)
{
    return pd_phase_id(game_of(state)->phase);
}

static const char *phase_at(unsigned i)
{
    /* A game that is over is dropped at once: no gauge counts it. */
    return i < PD_PHASE_OVER ? pd_phase_id((enum pd_phase)i) : NULL;
}

static int save(const void *state, bool started, struct json_object *record)
{
    const struct pd_state *s = state;
    struct json_object *settings = pd_settings_to_json(&s->config, &s->series);
    if (!settings ||
        json_object_object_add(settings, "mode", json_object_new_string(mode(s))) != 0 ||
        json_object_object_add(record, "settings", settings) != 0) {
        json_object_put(settings);
        return -1;
    }
    if (!started)
        return 0;
    struct json_object *game = pd_game_to_json(&s->game);
    if (!game || json_object_object_add(record, "state", game) != 0) {
        json_object_put(game);
        return -1;
    }
    return 0;
}

static int load(void *state, bool started, unsigned nseats, const struct json_object *record,
                char *why, size_t whylen)
{
    struct pd_state s;
    const struct json_object *settings = jget_obj(record, "settings");
    const char *mode = jget_str(settings, "mode");
    int preset = mode ? pd_preset_index(mode) : -1;
    memset(&s, 0, sizeof s);
    if (preset < 0 || pd_settings_from_json(&s.config, &s.series, settings) != PD_OK) {
        snprintf(why, whylen, "settings invalid");
        return -1;
    }
    s.preset = (uint8_t)preset;
    if (started && (pd_game_from_json(&s.game, jget_obj(record, "state")) != PD_OK ||
                    s.game.nplayers != nseats)) {
        snprintf(why, whylen, "rules state invalid");
        return -1;
    }
    memcpy(state, &s, sizeof s);
    return 0;
}

/* The module keeps no record of what the table was shown: every message is
 * written from the events and the state. */
static void note(void *state, const void *events)
{
    (void)state;
    (void)events;
}

static void render(const void *state, const struct rules_table *t, const void *events, int64_t now,
                   rules_emit_fn emit, void *arg)
{
    pd_render(state, t, events, now, emit, arg);
}

static void render_private(const void *state, const struct rules_table *t, unsigned seat,
                           bool fresh, rules_emit_fn emit, void *arg)
{
    pd_render_private(state, t, seat, fresh, emit, arg);
}

/* The prompts the one who left had open (a pass chosen stays chosen, and
 * asks no more). */
static void render_taken(const void *state, const struct rules_table *t, unsigned seat, int64_t now,
                         rules_emit_fn emit, void *arg)
{
    pd_render_open_prompts(state, t, seat, now, emit, arg);
}

static void gm_view(const void *state, const struct rules_table *t, char *out, size_t len)
{
    pd_gm_view(state, t, out, len);
}

static void status(const void *state, const struct rules_table *t, int64_t now, char *out,
                   size_t len)
{
    pd_status(state, t, now, out, len);
}

/* No message of this game takes reactions: every move is a command. */
static bool reaction(const void *state, const struct msg_key *key, const char *emoji, unsigned seat,
                     void *action)
{
    (void)state;
    (void)key;
    (void)emoji;
    (void)seat;
    (void)action;
    return false;
}

/* The topics of its messages' keys. */
static const struct msg_topic topics[] = {
    {"hand", false, true},    /* a seat's hand and business */
    {"table", false, false},  /* the table view: every business, burden and hand's size */
    {"pass", false, true},    /* a seat's choice of the card to pass */
    {"window", false, true},  /* a seat's answer to a takeover: waive, or the Magnum */
    {"loss", false, true},    /* the deal a seat's burden takes */
    {"offer", true, true},    /* an offer, to each side */
    {"result", false, false}, /* the reckoning */
    {NULL, false, false},
};

static bool seat_view(const void *state, unsigned seat, const void *events, void *view)
{
    return pd_view_build(game_of(state), seat, events, view);
}

const struct rules_module pd_module = {
    .id = "palm-drewes",
    .min_players = PD_MIN_PLAYERS,
    .max_players = PD_MAX_PLAYERS,
    .state_size = sizeof(struct pd_state),
    .events_size = sizeof(struct pd_events),
    .action_size = sizeof(struct pd_action),
    .init = init,
    .rematch = rematch,
    .mode = mode,
    .settings_table = pd_settings,
    .modes = pd_preset_ids,
    .mode_keys = PD_KEYS "preset",
    .rules_summary = PD_KEYS "rules",
    .stats_line = PD_KEYS "msg.stats",
    .preset_at = pd_settings_preset_at,
    .settings = settings,
    .set = set,
    .setup = setup,
    .apply = apply,
    .has_events = has_events,
    .steer = steer,
    .error_id = error_id,
    .error_keys = PD_KEYS "error.",
    .deadline = deadline,
    .over = over,
    .result = result,
    .active = active,
    .needs = needs,
    .paused = paused,
    .phase = phase,
    .phase_at = phase_at,
    .transitions = pd_transitions,
    .save = save,
    .load = load,
    .commands = pd_commands,
    .topics = topics,
    .note = note,
    .render = render,
    .render_private = render_private,
    .render_taken = render_taken,
    .gm_view = gm_view,
    .status = status,
    .reaction = reaction,
    .complete = pd_complete,
    .view_size = sizeof(struct pd_view),
    .seat_view = seat_view,
    .strategies = pd_strategies,
};

_Static_assert(sizeof(struct pd_events) <= RULES_EVENTS_MAX,
               "one change's events fit the bot's room");
