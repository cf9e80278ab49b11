/*
 * lobby.c - the lobby state machine: join, leave, settings, start, close.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "core/catalog.h"
#include "core/text.h"
#include "computers.h"
#include "config.h"
#include "lobby.h"
#include "seats.h"

const char *const lobby_setting_names[] = {"start-at", "language", "kicked", "stand-in", NULL};

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
        [LOBBY_ERR_BAD_LANGUAGE] = "msg.language-bad",
        [LOBBY_ERR_LOBBY_ONLY] = "msg.set-lobby-only",
        [LOBBY_ERR_GAME_ONLY] = "msg.set-game-only",
        [LOBBY_ERR_RULES] = "msg.store-failed",
        [LOBBY_ERR_CLOSED] = "msg.no-game",
        [LOBBY_ERR_NO_MEMORY] = "msg.store-failed",
        [LOBBY_ERR_NO_REMATCH] = "msg.no-rematch",
        [LOBBY_ERR_KICKED] = "msg.seat-kicked",
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
    char id[GAME_TEXT_MAX], name[GAME_TEXT_MAX];
    const char *user = a->user, *shown = a->name;
    unsigned number = 0;
    if (g->started)
        return LOBBY_ERR_STARTED;
    if (a->computer) { /* L7: its id (S12) and a name of the table's language */
        if (!computers_level(g->rules, a->computer))
            return LOBBY_ERR_BAD_VALUE;
        number = seats_computer_id(g, id, sizeof id);
        computers_name(g, number, name, sizeof name);
        user = id;
        shown = name;
    }
    switch (seats_check(g, user)) {
    case SEAT_OK:
        break;
    case SEAT_KICKED:
        return LOBBY_ERR_KICKED;
    case SEAT_HELD:
    case SEAT_INSIDER:
        return LOBBY_ERR_JOINED;
    case SEAT_COMPUTER_STARTED:
    case SEAT_STAND_IN_NO:
        return LOBBY_ERR_STARTED;
    }
    if (g->nseats == g->rules->max_players || g->nseats == RULES_MAX_SEATS) /* S2 */
        return LOBBY_ERR_FULL;
    if (strlen(user) >= GAME_TEXT_MAX || (shown && strlen(shown) >= GAME_TEXT_MAX))
        return LOBBY_ERR_TOO_LONG;
    const char *ids[RULES_MAX_SEATS];
    for (unsigned i = 0; i < g->nseats; i++)
        ids[i] = g->seats[i].user;
    if (shown && command_name_claims_id(shown, ids, g->nseats) >= 0)
        return LOBBY_ERR_NAME_IS_ID;
    struct seat *s = &g->seats[g->nseats];
    memset(s, 0, sizeof *s);
    snprintf(s->user, sizeof s->user, "%s", user);
    snprintf(s->name, sizeof s->name, "%s", shown ? shown : user);
    if (a->language && strcmp(a->language, g->language) != 0)
        snprintf(s->language, sizeof s->language, "%s", a->language);
    if (a->computer) {
        s->computer = a->computer;
        g->computers_named = (uint8_t)(number > UINT8_MAX ? UINT8_MAX : number);
    }
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
    if (a->kick) /* S7: kept out of the lobby from now on */
        seats_note_kicked(g, g->seats[a->seat].user);
    memmove(&g->seats[a->seat], &g->seats[a->seat + 1],
            (g->nseats - a->seat - 1) * sizeof g->seats[0]);
    g->nseats--;
    ev->seat = a->seat;
    ev->lobby_changed = true;
    event(ev, LOBBY_EV_LEFT);
    return LOBBY_OK;
}

/* A lobby setting took its value (ev->shown_value): the answer is `reply`. */
static enum lobby_error setting_changed(struct lobby_events *ev, const char *key, const char *reply,
                                        bool lobby_changed)
{
    ev->key = key;
    ev->set_reply = reply;
    ev->lobby_changed = lobby_changed;
    event(ev, LOBBY_EV_SET);
    return LOBBY_OK;
}

/* "start-at 2h": the lobby starts by itself then; "off" takes that back. */
static enum lobby_error schedule_start(struct game *g, const struct lobby_action *a, int64_t now,
                                       struct lobby_events *ev)
{
    int64_t ms = strcmp(a->value, "off") == 0 ? 0 : text_parse_duration(a->value, 60000);
    if (g->started)
        return LOBBY_ERR_LOBBY_ONLY;
    if (ms < 0)
        return LOBBY_ERR_BAD_VALUE;
    g->start_at = ms ? now + ms : 0;
    if (g->start_at)
        text_time(ev->shown_value, sizeof ev->shown_value, g->start_at);
    else
        snprintf(ev->shown_value, sizeof ev->shown_value, "off");
    return setting_changed(ev, a->key, "msg.set-done", true);
}

/* "kicked none": S9, the host lets back everyone kicked (here, or from the
 * game this one plays again). */
static enum lobby_error forgive(struct game *g, const struct lobby_action *a,
                                struct lobby_events *ev)
{
    if (g->started)
        return LOBBY_ERR_LOBBY_ONLY;
    if (strcasecmp(a->value, "none") != 0)
        return LOBBY_ERR_BAD_VALUE;
    seats_forgive(g);
    snprintf(ev->shown_value, sizeof ev->shown_value, "none");
    return setting_changed(ev, a->key, "msg.set-done", true);
}

/* "stand-in on|off|<level>": whether a computer plays for a player who has
 * been away [game] absent_seconds (S14), at any time. */
static enum lobby_error set_stand_in(struct game *g, const struct lobby_action *a,
                                     struct lobby_events *ev)
{
    unsigned level = strcasecmp(a->value, "off") == 0  ? 0
                     : strcasecmp(a->value, "on") == 0 ? 1
                                                       : computers_level_named(g->rules, a->value);
    const struct rules_strategy *l = computers_level(g->rules, level);
    if (level ? !l : strcasecmp(a->value, "off") != 0) /* a game with no computers has no "on" */
        return LOBBY_ERR_BAD_VALUE;
    g->stand_in = (uint8_t)level;
    snprintf(ev->shown_value, sizeof ev->shown_value, "%s", l ? l->id : "off");
    return setting_changed(ev, a->key, "msg.set-done", !g->started);
}

/* "language de": the table's language, in the lobby or during the game. */
static enum lobby_error set_language(struct game *g, const struct lobby_action *a,
                                     struct lobby_events *ev)
{
    const char *code = catalog_match(a->value);
    if (!code)
        return LOBBY_ERR_BAD_LANGUAGE;
    snprintf(g->language, sizeof g->language, "%s", code);
    snprintf(ev->shown_value, sizeof ev->shown_value, "%s", code);
    return setting_changed(ev, a->key, "msg.table-language", !g->started);
}

static enum lobby_error set(struct game *g, const struct lobby_action *a, const struct config *cfg,
                            struct lobby_events *ev, void *rules_action)
{
    void *changed = malloc(g->rules->state_size);
    if (!changed)
        return LOBBY_ERR_NO_MEMORY;
    memcpy(changed, g->state, g->rules->state_size);
    enum rules_set_result r = g->rules->set(changed, g->started, a->key, a->value, g->language,
                                            config_game(cfg, g->rules), ev->shown_value,
                                            sizeof ev->shown_value, rules_action);
    enum lobby_error e = LOBBY_OK;
    switch (r) {
    case RULES_SET_DONE:
        memcpy(g->state, changed, g->rules->state_size);
        ev->lobby_changed = true; /* the lobby message shows every setting */
        ev->key = a->key;
        ev->set_reply = strcmp(a->key, "ballots") == 0 && strcmp(a->value, "poll") == 0
                            ? "msg.ballots-poll"
                            : "msg.set-done";
        event(ev, LOBBY_EV_SET);
        break;
    case RULES_SET_PLAY:
        ev->play_rules = true;
        break;
    case RULES_SET_BAD_KEY:
        e = LOBBY_ERR_BAD_KEY;
        break;
    case RULES_SET_BAD_VALUE:
        e = LOBBY_ERR_BAD_VALUE;
        break;
    case RULES_SET_LOCKED:
        e = LOBBY_ERR_LOBBY_ONLY;
        break;
    case RULES_SET_GAME_ONLY:
        e = LOBBY_ERR_GAME_ONLY;
        break;
    }
    free(changed);
    return e;
}

static enum lobby_error start(struct game *g, int64_t now, struct lobby_events *ev,
                              void *rules_events, int *rules_error)
{
    if (g->started)
        return LOBBY_ERR_STARTED;
    if (g->nseats < g->rules->min_players)
        return LOBBY_ERR_TOO_FEW;
    void *state = malloc(g->rules->state_size);
    if (!state)
        return LOBBY_ERR_NO_MEMORY;
    memcpy(state, g->state, g->rules->state_size);
    struct rng rng = g->rng;
    int e = g->rules->setup(state, g->nseats, now, &rng, rules_events);
    if (e != 0) {
        free(state);
        *rules_error = e;
        return LOBBY_ERR_RULES;
    }
    memcpy(g->state, state, g->rules->state_size);
    free(state);
    g->rng = rng;
    g->started = true;
    ev->lobby_changed = true;
    ev->started = true;
    event(ev, LOBBY_EV_STARTED);
    return LOBBY_OK;
}

static enum lobby_error open(struct game *g, const struct lobby_action *a, struct lobby_events *ev)
{
    if (g->started || g->nseats)
        return LOBBY_ERR_STARTED;
    if (a->type == LOBBY_REMATCH) {
        const struct game *f = a->finished;
        if (!f || !f->started || f->rules != g->rules || !f->rules->over(f->state))
            return LOBBY_ERR_NO_REMATCH;
        g->rules->rematch(g->state, f->state);
        seats_carry_kicks(g, f); /* S8 */
        for (unsigned i = 0; i < f->nseats; i++)
            if (f->rules->active(f->state, i)) {
                struct seat *s = &g->seats[g->nseats++];
                *s = f->seats[i];
                s->dm_unreachable = false;
                if (s->standin) /* L7: the person plays their own seat again */
                    s->computer = 0, s->standin = false;
            }
        g->stand_in = f->stand_in;
        g->computers_named = f->computers_named;
    } else if (a->nseats) {
        if (a->nseats > g->rules->max_players || a->nseats > RULES_MAX_SEATS)
            return LOBBY_ERR_FULL;
        for (unsigned i = 0; i < a->nseats; i++) /* L2 */
            for (unsigned k = 0; k < i; k++)
                if (strcmp(a->seats[i].user, a->seats[k].user) == 0)
                    return LOBBY_ERR_JOINED;
        memcpy(g->seats, a->seats, a->nseats * sizeof *a->seats);
        g->nseats = a->nseats;
    }
    ev->lobby_changed = true;
    event(ev, LOBBY_EV_OPENED);
    return LOBBY_OK;
}

enum lobby_error lobby_apply(struct game *g, const struct lobby_action *a, const struct config *cfg,
                             int64_t now, struct lobby_events *ev, void *rules_events,
                             void *rules_action, int *rules_error)
{
    enum lobby_error e = LOBBY_ERR_CLOSED;
    memset(ev, 0, sizeof *ev);
    if (g->closed)
        return LOBBY_ERR_CLOSED;
    switch (a->type) {
    case LOBBY_OPEN:
    case LOBBY_REMATCH:
        e = open(g, a, ev);
        break;
    case LOBBY_JOIN:
        e = join(g, a, ev);
        break;
    case LOBBY_LEAVE:
        e = leave(g, a, ev);
        break;
    case LOBBY_SET:
        if (strcmp(a->key, "start-at") == 0)
            e = schedule_start(g, a, now, ev);
        else if (strcmp(a->key, "language") == 0)
            e = set_language(g, a, ev);
        else if (strcmp(a->key, "kicked") == 0)
            e = forgive(g, a, ev);
        else if (strcmp(a->key, "stand-in") == 0)
            e = set_stand_in(g, a, ev);
        else
            e = set(g, a, cfg, ev, rules_action);
        break;
    case LOBBY_START:
        e = start(g, now, ev, rules_events, rules_error);
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
