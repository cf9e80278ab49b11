/*
 * lobby.c - the lobby state machine: join, leave, settings, start, close.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "config.h"
#include "lobby.h"
#include "render.h"

void lobby_defaults(struct il_config *out, enum il_variant v, const struct config *cfg)
{
    il_config_default(out, v);
    out->timer_ms[IL_TIMER_SESSION] =
        (v == IL_VARIANT_CASUAL ? cfg->casual_session_seconds : cfg->session_seconds) * 1000;
    out->timer_ms[IL_TIMER_REVEAL] = cfg->reveal_seconds * 1000;
    out->timer_ms[IL_TIMER_GRAB] = cfg->grab_seconds * 1000;
    out->timer_ms[IL_TIMER_DEBATE] = cfg->debate_seconds * 1000;
    out->timer_ms[IL_TIMER_VOTE] = cfg->vote_seconds * 1000;
}

const char *lobby_error_key(enum lobby_error e)
{
    static const char *const keys[] = {
        [LOBBY_OK] = "msg.set-done",
        [LOBBY_ERR_STARTED] = "msg.already-started",
        [LOBBY_ERR_JOINED] = "msg.already-joined",
        [LOBBY_ERR_FULL] = "msg.table-full",
        [LOBBY_ERR_TOO_LONG] = "parse.too-long",
        [LOBBY_ERR_NAME_IS_ID] = "msg.name-is-id",
        [LOBBY_ERR_TOO_FEW] = "msg.too-few",
        [LOBBY_ERR_BAD_KEY] = "msg.set-bad-key",
        [LOBBY_ERR_BAD_VALUE] = "msg.set-bad-value",
        [LOBBY_ERR_LOBBY_ONLY] = "msg.set-lobby-only",
        [LOBBY_ERR_RULES] = "msg.store-failed",
        [LOBBY_ERR_CLOSED] = "msg.no-game",
    };
    return (size_t)e < sizeof keys / sizeof *keys ? keys[e] : "msg.store-failed";
}

static void event(struct lobby_events *ev, enum lobby_event_type t)
{
    if (ev->n < sizeof ev->v / sizeof *ev->v)
        ev->v[ev->n++] = t;
}

static enum lobby_error join(struct game *g, const struct lobby_action *a, struct lobby_events *ev)
{
    if (g->started)
        return LOBBY_ERR_STARTED;
    if (game_seat_of(g, a->user) >= 0)
        return LOBBY_ERR_JOINED;
    if (g->nseats == IL_MAX_PLAYERS)
        return LOBBY_ERR_FULL;
    if (strlen(a->user) >= GAME_TEXT_MAX || (a->name && strlen(a->name) >= GAME_TEXT_MAX))
        return LOBBY_ERR_TOO_LONG;
    const char *ids[IL_MAX_PLAYERS];
    for (unsigned i = 0; i < g->nseats; i++)
        ids[i] = g->seats[i].user;
    if (a->name && command_name_claims_id(a->name, ids, g->nseats) >= 0)
        return LOBBY_ERR_NAME_IS_ID;
    struct seat *s = &g->seats[g->nseats];
    memset(s, 0, sizeof *s);
    snprintf(s->user, sizeof s->user, "%s", a->user);
    snprintf(s->name, sizeof s->name, "%s", a->name ? a->name : a->user);
    ev->seat = g->nseats++;
    ev->lobby_changed = true;
    event(ev, LOBBY_EV_JOINED);
    return LOBBY_OK;
}

static enum lobby_error leave(struct game *g, const struct lobby_action *a, struct lobby_events *ev)
{
    if (g->started)
        return LOBBY_ERR_STARTED;
    if (a->seat >= g->nseats)
        return LOBBY_ERR_CLOSED;
    memmove(&g->seats[a->seat], &g->seats[a->seat + 1],
            (g->nseats - a->seat - 1) * sizeof g->seats[0]);
    g->nseats--;
    ev->seat = a->seat;
    ev->lobby_changed = true;
    event(ev, LOBBY_EV_LEFT);
    return LOBBY_OK;
}

/* Parses "90", "90s", "3m", "2h" into milliseconds; -1 when invalid. */
static int64_t parse_duration(const char *s)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || v <= 0 || v > 7LL * 24 * 3600)
        return -1;
    int64_t unit = 1000;
    if (strcasecmp(end, "m") == 0 || strcasecmp(end, "min") == 0)
        unit = 60000;
    else if (strcasecmp(end, "h") == 0)
        unit = 3600000;
    else if (*end && strcasecmp(end, "s") != 0)
        return -1;
    return (int64_t)v * unit;
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
    if (command_parse_cards(text, 0xff, lang, &b, word, sizeof word, choices, sizeof choices) !=
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

static enum lobby_error set(struct game *g, const struct lobby_action *a, const struct config *cfg,
                            struct lobby_events *ev, struct il_action *rules_action)
{
    ev->key = a->key;
    snprintf(ev->shown_value, sizeof ev->shown_value, "%s", a->value);
    ev->set_reply = "msg.set-done";
    if (strcmp(a->key, "ballots") == 0) {
        bool poll = strcmp(a->value, "poll") == 0;
        if (!poll && strcmp(a->value, "private") != 0)
            return LOBBY_ERR_BAD_VALUE;
        g->poll_ballots = poll;
        if (poll)
            ev->set_reply = "msg.ballots-poll";
        event(ev, LOBBY_EV_SET);
        return LOBBY_OK;
    }
    if (strcmp(a->key, "variant") == 0 || strcmp(a->key, "resources") == 0) {
        if (g->started)
            return LOBBY_ERR_LOBBY_ONLY;
        struct il_config c = g->config;
        if (strcmp(a->key, "variant") == 0) {
            int v = il_variant_from_id(a->value);
            if (v < 0)
                return LOBBY_ERR_BAD_VALUE;
            /* The session length follows the variant unless set afterwards. */
            lobby_defaults(&c, (enum il_variant)v, cfg);
            c.resources = g->config.resources;
        } else if (parse_resource_set(a->value, g->language, &c.resources) < 0) {
            return LOBBY_ERR_BAD_VALUE;
        }
        g->config = c;
        ev->lobby_changed = true;
        event(ev, LOBBY_EV_SET);
        return LOBBY_OK;
    }
    int timer = il_timer_from_id(a->key);
    if (timer < 0)
        return LOBBY_ERR_BAD_KEY;
    int64_t ms = parse_duration(a->value);
    if (ms < IL_TIMER_MIN_MS || ms > IL_TIMER_MAX_MS)
        return LOBBY_ERR_BAD_VALUE;
    if (g->started) {
        *rules_action = (struct il_action){
            .type = IL_ACT_SET_TIMER, .player = IL_GM, .timer = (enum il_timer)timer, .ms = ms};
        ev->play_rules = true;
        return LOBBY_OK;
    }
    g->config.timer_ms[timer] = ms;
    render_duration(ev->shown_value, sizeof ev->shown_value, g->language, ms);
    event(ev, LOBBY_EV_SET);
    return LOBBY_OK;
}

static enum lobby_error start(struct game *g, int64_t now, struct lobby_events *ev,
                              enum il_error *rules_error)
{
    if (g->started)
        return LOBBY_ERR_STARTED;
    if (g->nseats < IL_MIN_PLAYERS)
        return LOBBY_ERR_TOO_FEW;
    struct il_game state;
    struct rng rng = g->rng;
    ev->rules.n = 0;
    enum il_error e = il_game_setup(&state, &g->config, g->nseats, now, &rng, &ev->rules);
    if (e != IL_OK) {
        *rules_error = e;
        return LOBBY_ERR_RULES;
    }
    g->state = state;
    g->rng = rng;
    g->started = true;
    ev->lobby_changed = true;
    event(ev, LOBBY_EV_STARTED);
    return LOBBY_OK;
}

enum lobby_error lobby_apply(struct game *g, const struct lobby_action *a, const struct config *cfg,
                             int64_t now, struct lobby_events *ev, struct il_action *rules_action,
                             enum il_error *rules_error)
{
    enum lobby_error e = LOBBY_ERR_CLOSED;
    memset(ev, 0, offsetof(struct lobby_events, rules));
    ev->rules.n = 0;
    if (g->closed)
        return LOBBY_ERR_CLOSED;
    switch (a->type) {
    case LOBBY_JOIN:
        e = join(g, a, ev);
        break;
    case LOBBY_LEAVE:
        e = leave(g, a, ev);
        break;
    case LOBBY_SET:
        e = set(g, a, cfg, ev, rules_action);
        break;
    case LOBBY_START:
        e = start(g, now, ev, rules_error);
        break;
    case LOBBY_CLOSE:
        if (g->started)
            return LOBBY_ERR_STARTED;
        g->closed = true;
        event(ev, LOBBY_EV_CLOSED);
        return LOBBY_OK;
    }
    /* Any change to a lobby is its activity; a new seat list voids a start
     * in progress, whose DM probes were for the old one. */
    if (e == LOBBY_OK && ev->n && !g->started) {
        g->lobby_activity = now;
        if (a->type == LOBBY_JOIN || a->type == LOBBY_LEAVE)
            g->probes_pending = 0;
    }
    return e;
}
