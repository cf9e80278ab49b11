/*
 * pipeline.c - the one path of every change to a game.
 *
 *     snapshot -> apply -> render and hold -> (turn end) commit -> send
 *
 * Invariants:
 *   P1. Nothing is sent about a change before it is committed to the store:
 *       what a change renders is held until its loop turn is committed
 *       (turn.c, T1).
 *   P2. A change that is refused leaves the game as it was before it (the
 *       snapshot is put back); a turn that cannot be committed is undone
 *       whole (T2).
 *   P3. A game that is over or closed leaves the hosted games; its turn's
 *       commit stores it as finished (a lobby closed without a game is
 *       deleted instead: T8), then frees it. Nothing else frees a game that
 *       has been stored.
 *   P4. No other code saves or restores a game.
 *   P5. A player's move is judged at the time it is applied: a deadline
 *       (or reminder) already due fires first, as if the clock had not been
 *       late, and the move meets the game that follows.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "chat.h"
#include "command.h"
#include "computers.h"
#include "config.h"
#include "core/catalog.h"
#include "core/text.h"
#include "dispatch.h"
#include "log.h"
#include "render.h"
#include "seats.h"

/* Everything one change produced, for rendering. */
struct outcome {
    struct lobby_events lobby;
    void *events;       /* the rules' events: rules->events_size bytes */
    bool rules_changed; /* `events` holds some */
    const char *notice; /* a table notice of the dispatcher's own (a reminder) */
    bool nudge;         /* remind in private the players the step waits for */
    const char *reply;  /* the answer to the cause, once the change is made */
    int opened;         /* a seat offered to someone else, or -1 */
    int absent;         /* a seat whose player is warned of their absence, or -1 */
    int taken;          /* a seat taken over, or -1 */
    int stood_in;       /* a seat a computer began to play for its person, or -1 */
    int handed_back;    /* a seat a computer stopped standing in for, or -1 */
    bool reply_private; /* `reply` goes to the cause alone, even at a table */
    bool watched;       /* someone started following the Game Master's view */
    bool gm_view;       /* the cause reads the Game Master's view, once */
    bool chat;          /* the table's chat has a new line */
    char old_user[GAME_TEXT_MAX], old_name[GAME_TEXT_MAX]; /* who had it */
};

/* Hands seat s to user (named name), keeping who had it in out. False when
 * the new user's id or name does not fit. */
static bool copy_seat_text(struct seat *s, const char *user, const char *name, struct outcome *out)
{
    if (!user || !*user || strlen(user) >= sizeof s->user ||
        (name && strlen(name) >= sizeof s->name))
        return false;
    snprintf(out->old_user, sizeof out->old_user, "%s", s->user);
    snprintf(out->old_name, sizeof out->old_name, "%s", s->name[0] ? s->name : s->user);
    snprintf(s->user, sizeof s->user, "%s", user);
    snprintf(s->name, sizeof s->name, "%s", name ? name : "");
    s->open = false;
    s->reminders_off = false;
    s->dm_unreachable = false;
    s->computer = 0; /* a person plays it now */
    s->standin = false;
    return true;
}

/* The start, a player's own change and a seat taken over are the moves the
 * absence warning counts from. */
static void moved(struct seat *s, int64_t now)
{
    s->last_move = now;
    s->absent_warned = false;
}

static void track_moves(struct game *g, const struct bot_cmd *cause, const struct outcome *out,
                        int64_t now)
{
    if (out->lobby.started)
        for (unsigned i = 0; i < g->nseats; i++)
            moved(&g->seats[i], now);
    if (out->taken >= 0)
        moved(&g->seats[out->taken], now);
    else if (g->started && cause && cause->base.seat >= 0 && (unsigned)cause->base.seat < g->nseats)
        moved(&g->seats[cause->base.seat], now);
}

/* Keeps the reminder bookkeeping in step with the rules' deadline. */
static void track_deadline(struct game *g, int64_t now)
{
    int64_t dl = g->started ? g->rules->deadline(g->state) : 0;
    if (dl != g->tracked_deadline) {
        g->tracked_deadline = dl;
        g->phase_length = dl ? dl - now : 0;
        g->reminders_sent = 0;
    }
}

/* Answers the cause of a change the rules refused, privately: it may say
 * something of the player's own hand. */
static void refuse_rules(struct bot_cmd *x, const struct game *g, int error)
{
    char key[64];
    snprintf(key, sizeof key, "%s%s", g->rules->error_keys, g->rules->error_id(error));
    bool was = x->private_answer;
    x->private_answer = true;
    cmd_reply(x, key, NULL);
    x->private_answer = was;
}

/* Answers a refused lobby action with its reason. */
static void refuse_lobby(struct bot_cmd *x, const struct game *g, enum lobby_error e,
                         const struct lobby_action *a, int rules_error)
{
    char count[16], key[64], languages[512], names[256], settings[512];
    snprintf(count, sizeof count, "%u", g->nseats);
    text_languages(languages, sizeof languages);
    rules_setting_names(g->rules, names, sizeof names);
    size_t used = (size_t)snprintf(settings, sizeof settings, "%s", names);
    for (const char *const *n = lobby_setting_names; *n && used < sizeof settings; n++)
        used += (size_t)snprintf(settings + used, sizeof settings - used, ", %s", *n);
    const char *vars[] = {"count",   count,     "name",     a->name ? a->name : "",
                          "key",     a->key,    "value",    a->value,
                          "choices", languages, "settings", settings,
                          NULL};
    if (e == LOBBY_ERR_RULES) {
        snprintf(key, sizeof key, "%s%s", g->rules->error_keys, g->rules->error_id(rules_error));
        cmd_reply(x, key, NULL);
        return;
    }
    cmd_reply(x, lobby_error_key(e), vars);
}

#ifndef NDEBUG
/* Debug builds: a change of phase is one its module lists (core/rules.h:
 * transitions), whatever the module. */
static void assert_transition(const struct game *g, const char *from)
{
    const char *to = g->rules->phase(g->state);
    if (strcmp(from, to) != 0 && !rules_transition_ok(g->rules->transitions, from, to)) {
        log_error("pipeline", g->id, "%s: no transition from %s to %s", g->rules->id, from, to);
        abort();
    }
}
#endif

/* Plays a rules action on g. Returns 1 when g changed, 0 when not, -1 when
 * the rules refused (and the cause was told). */
static int play(struct game *g, const void *action, struct bot_cmd *cause, int64_t now,
                struct outcome *out)
{
#ifndef NDEBUG
    const char *from = g->rules->phase(g->state);
#endif
    int e = g->rules->apply(g->state, action, now, &g->rng, out->events);
#ifndef NDEBUG
    assert_transition(g, from);
#endif
    if (e != 0) {
        if (cause)
            refuse_rules(cause, g, e);
        return -1;
    }
    out->rules_changed = g->rules->has_events(out->events);
    return out->rules_changed ? 1 : 0;
}

/* gm, gm follow, gm stop: the Game Master's view and its watchers. A player
 * never reads it (S5), and whoever does is remembered as knowing the game's
 * secrets (S4) before the view goes out. */
static int watch(struct game *g, const struct change *c, struct bot_cmd *cause, struct outcome *out)
{
    unsigned i = 0;
    bool reads = c->watch != WATCH_STOP;
    while (i < g->nwatchers && strcmp(g->watchers[i], c->user) != 0)
        i++;
    const char *refusal = NULL;
    if (!reads && i == g->nwatchers)
        refusal = "msg.gm-not-following";
    else if (reads && game_seat_of(g, c->user) >= 0)
        refusal = "msg.gm-playing";
    else if (c->watch == WATCH_FOLLOW && i == g->nwatchers && g->nwatchers == GAME_MAX_WATCHERS)
        refusal = "msg.gm-watchers-full";
    else if (strlen(c->user) >= GAME_TEXT_MAX)
        refusal = "parse.too-long";
    else if (reads && seats_note_insider(g, c->user) < 0)
        refusal = "msg.insiders-full";
    if (refusal) {
        if (cause) {
            char max[16];
            snprintf(max, sizeof max, "%d", GAME_MAX_WATCHERS);
            const char *vars[] = {"id", g->id, "max", max, NULL};
            cmd_reply(cause, refusal, vars);
        }
        return -1;
    }
    if (c->watch == WATCH_ONCE) {
        out->gm_view = true;
    } else if (c->watch == WATCH_FOLLOW) {
        if (i == g->nwatchers)
            snprintf(g->watchers[g->nwatchers++], GAME_TEXT_MAX, "%s", c->user);
        out->watched = true;
        out->reply = "msg.gm-following";
    } else {
        memmove(g->watchers[i], g->watchers[i + 1], (g->nwatchers - i - 1) * GAME_TEXT_MAX);
        g->nwatchers--;
        out->reply = "msg.gm-stopped";
    }
    return 1;
}

/* Someone not playing takes over an offered seat (S3): if the seat rules let
 * them (S1, S4, S8), and the one who had it is remembered as knowing the
 * seat's secrets from now on (S4). */
static int take_over(struct game *g, const struct change *c, struct bot_cmd *cause,
                     struct outcome *out)
{
    const char *ids[RULES_MAX_SEATS];
    for (unsigned i = 0; i < g->nseats; i++)
        ids[i] = g->seats[i].user;
    const char *refusal = NULL;
    enum seat_refusal why = seats_check(g, c->user);
    /* as at a join: no display name that passes for a player's id */
    if (c->name && command_name_claims_id(c->name, ids, g->nseats) >= 0)
        refusal = "msg.name-is-id";
    else if (why != SEAT_OK)
        refusal = seats_refusal_key(why);
    else if (c->seat >= g->nseats || !g->seats[c->seat].open || !game_active(g, c->seat))
        return -1;
    else if (!game_seat_is_computer(g, c->seat) &&
             seats_note_insider(g, g->seats[c->seat].user) < 0)
        refusal = "msg.insiders-full";
    else if (!copy_seat_text(&g->seats[c->seat], c->user, c->name, out))
        return -1;
    if (refusal) {
        const char *vars[] = {"id", g->id, NULL};
        if (cause)
            cmd_reply(cause, refusal, vars);
        return -1;
    }
    out->taken = (int)c->seat;
    return 1;
}

/* replace <player> computer: a computer plays the seat until its person acts
 * again (S14). */
static int stand_in(struct dispatcher *d, struct game *g, const struct change *c,
                    struct bot_cmd *cause, struct outcome *out)
{
    enum seat_refusal why =
        c->seat < g->nseats ? seats_check_stand_in(g, c->seat) : SEAT_STAND_IN_NO;
    const char *refusal = why != SEAT_OK                                    ? seats_refusal_key(why)
                          : computers_stand_in(d, g, c->seat, c->level) < 0 ? "msg.store-failed"
                                                                            : NULL;
    if (refusal) {
        if (cause) {
            const char *vars[] = {"id", g->id, NULL};
            cmd_reply(cause, refusal, vars);
        }
        return -1;
    }
    out->stood_in = (int)c->seat;
    return 1;
}

/* One change being applied: what apply() hands each kind's handler. */
struct apply_ctx {
    struct dispatcher *d;
    struct game *g;
    const struct change *c;
    struct bot_cmd *cause; /* NULL: the clock's or the daemon's own change */
    int64_t now;
    struct outcome *out;
    void *action; /* room for one rules action */
};

static int apply_lobby(struct apply_ctx *a)
{
    int rules_error = 0;
    enum lobby_error e = lobby_apply(a->g, &a->c->lobby, a->d->config, a->now, &a->out->lobby,
                                     a->out->events, a->action, &rules_error);
    if (e != LOBBY_OK) {
        if (a->cause)
            refuse_lobby(a->cause, a->g, e, &a->c->lobby, rules_error);
        return -1;
    }
    if (a->out->lobby.play_rules)
        return play(a->g, a->action, a->cause, a->now, a->out);
    a->out->rules_changed = a->out->lobby.started;
    return a->out->lobby.n ? 1 : 0;
}

static int apply_steer(struct apply_ctx *a)
{
    const struct change *c = a->c;
    struct game *g = a->g;
    const char *kicked = c->kick && c->seat < g->nseats ? g->seats[c->seat].user : NULL;
    g->rules->steer(a->action, c->steer, c->seat, c->ms);
    int rc = play(g, a->action, a->cause, a->now, a->out);
    if (rc > 0 && kicked) /* S7: kept out of this game's rematch too */
        seats_note_kicked(g, kicked);
    return rc;
}

static int apply_rules(struct apply_ctx *a)
{
    return play(a->g, a->c->action, a->cause, a->now, a->out);
}

static int apply_reminder(struct apply_ctx *a)
{
    a->g->reminders_sent |= a->c->reminder;
    a->out->notice = a->c->reminder_key;
    a->out->nudge = a->c->nudge;
    return 1;
}

static int apply_seat(struct apply_ctx *a)
{
    if (a->c->seat >= a->g->nseats)
        return -1;
    a->g->seats[a->c->seat].reminders_off = a->c->reminders_off;
    a->out->reply = a->c->reminders_off ? "msg.reminders-off" : "msg.reminders-on";
    return 1;
}

static int apply_language(struct apply_ctx *a)
{
    const struct change *c = a->c;
    if (c->seat >= a->g->nseats)
        return -1;
    struct seat *s = &a->g->seats[c->seat];
    snprintf(s->language, sizeof s->language, "%s", c->language ? c->language : "");
    a->out->reply = c->language ? "msg.language-personal" : "msg.language-table";
    return 1;
}

static int apply_open(struct apply_ctx *a)
{
    struct game *g = a->g;
    unsigned seat = a->c->seat;
    if (seat >= g->nseats || !g->started || !game_active(g, seat) || g->seats[seat].open)
        return -1;
    g->seats[seat].open = true;
    a->out->opened = (int)seat;
    if (a->cause && a->cause->base.seat == (int)seat) {
        a->out->reply = "msg.leave-confirm"; /* they asked to leave: told them alone */
        a->out->reply_private = true;
    }
    return 1;
}

static int apply_absent(struct apply_ctx *a)
{
    struct game *g = a->g;
    unsigned seat = a->c->seat;
    if (seat >= g->nseats || !g->started || !game_active(g, seat) || g->seats[seat].absent_warned)
        return -1;
    g->seats[seat].absent_warned = true;
    a->out->absent = (int)seat;
    /* S14: the table's setting has a computer play for them meanwhile */
    if (g->stand_in && seats_check_stand_in(g, seat) == SEAT_OK &&
        computers_stand_in(a->d, g, seat, g->stand_in) == 0)
        a->out->stood_in = (int)seat;
    return 1;
}

static int apply_hand_back(struct apply_ctx *a)
{
    struct game *g = a->g;
    unsigned seat = a->c->seat;
    if (seat >= g->nseats || !g->seats[seat].standin)
        return 0;
    g->seats[seat].computer = 0;
    g->seats[seat].standin = false;
    a->out->handed_back = (int)seat;
    return 1;
}

static int apply_chat(struct apply_ctx *a)
{
    const struct change *c = a->c;
    struct game_chat *old = a->g->chat, *chat = chat_with(old, c->user, c->name, c->text, a->now);
    if (!chat) {
        if (a->cause)
            cmd_reply(a->cause, "msg.store-failed", NULL);
        return -1;
    }
    a->g->chat = chat;
    turn_chat_replaced(a->d, a->g, old);
    a->out->chat = true;
    return 1;
}

static int apply_watch(struct apply_ctx *a)
{
    return watch(a->g, a->c, a->cause, a->out);
}

static int apply_stand_in(struct apply_ctx *a)
{
    return stand_in(a->d, a->g, a->c, a->cause, a->out);
}

static int apply_takeover(struct apply_ctx *a)
{
    return take_over(a->g, a->c, a->cause, a->out);
}

/* Each kind of change and what applies it. */
static int (*const appliers[])(struct apply_ctx *) = {
    [CHANGE_LOBBY] = apply_lobby,         [CHANGE_RULES] = apply_rules,
    [CHANGE_STEER] = apply_steer,         [CHANGE_REMINDER] = apply_reminder,
    [CHANGE_SEAT] = apply_seat,           [CHANGE_LANGUAGE] = apply_language,
    [CHANGE_OPEN] = apply_open,           [CHANGE_TAKEOVER] = apply_takeover,
    [CHANGE_ABSENT] = apply_absent,       [CHANGE_WATCH] = apply_watch,
    [CHANGE_CHAT] = apply_chat,           [CHANGE_STAND_IN] = apply_stand_in,
    [CHANGE_HAND_BACK] = apply_hand_back,
};

/* Applies c to g. Returns 1 when g changed, 0 when there was nothing to do,
 * -1 when it was refused (and answered). `action` has room for one action. */
static int apply(struct dispatcher *d, struct game *g, const struct change *c,
                 struct bot_cmd *cause, int64_t now, struct outcome *out, void *action)
{
    if ((size_t)c->type >= sizeof appliers / sizeof appliers[0] || !appliers[c->type])
        return 0;
    struct apply_ctx a = {d, g, c, cause, now, out, action};
    return appliers[c->type](&a);
}

/* Where a game is in its life, to tell adapters what changed. */
struct stage {
    bool started;
    const char *phase;
    unsigned seats;
};

static struct stage stage_of(const struct game *g)
{
    return (struct stage){g->started, g->started ? g->rules->phase(g->state) : "lobby", g->nseats};
}

/* Tells the game's platform what changed between `was` and now. */
static void tell_adapter(struct dispatcher *d, const struct game *g, const struct change *c,
                         struct stage was)
{
    struct platform *p = g->platform;
    if (!p->ops->game_changed)
        return;
    struct stage now = stage_of(g);
    struct game_news n = {.game = g->id, .table = g->table, .phase = now.phase, .seats = now.seats};
    if (c->type == CHANGE_LOBBY && (c->lobby.type == LOBBY_OPEN || c->lobby.type == LOBBY_REMATCH))
        n.stage = GAME_OPENED;
    else if (game_finished(g)) {
        n.stage = GAME_ENDED;
        n.phase = "over";
    } else if (!was.started && now.started)
        n.stage = GAME_STARTED;
    else if (strcmp(was.phase, now.phase) != 0)
        n.stage = GAME_PHASE;
    else if (was.seats != now.seats && !now.started)
        n.stage = GAME_SEATED;
    else
        return;
    if (turn_hold_news(d, p, &n) < 0)
        log_error("dispatch", g->id, "out of memory: %s is not told what changed", p->ops->name);
}

/* Reminds each player the current step waits for, in private, unless they
 * turned reminders off. */
static void nudge(struct dispatcher *d, struct game *g)
{
    char left[64];
    int64_t dl = g->rules->deadline(g->state);
    text_duration(left, sizeof left, g->language, dl - dispatcher_now(d));
    const char *vars[] = {"id", g->id, "left", left, NULL};
    for (unsigned i = 0; i < g->nseats; i++) {
        const char *key = g->rules->needs(g->state, i);
        if (key && !g->seats[i].reminders_off && !g->seats[i].dm_unreachable)
            dispatch_ask(g, g->seats[i].user, key, vars, "nudge");
    }
}

/* A seat as message data: {"id", "name"}. */
static struct json_object *player_json(const struct game *g, unsigned seat)
{
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "id", json_object_new_string(g->seats[seat].user));
    json_object_object_add(p, "name", json_object_new_string(game_seat_name(g, seat)));
    return p;
}

/* A seat changed hands: the table learns only that; the one who had it is
 * told, and the one who has it now gets its roles and hand in private. */
static void seat_taken(struct game *g, struct emit_ctx *ctx, const struct outcome *out, int64_t now)
{
    unsigned seat = (unsigned)out->taken;
    const char *vars[] = {"id", g->id, "old", out->old_name, "new", game_seat_name(g, seat), NULL};
    struct json_object *who = json_object_new_object();
    json_object_object_add(who, "old", json_object_new_string(out->old_name));
    json_object_object_add(who, "new", player_json(g, seat));
    dispatch_announce_data(g, "msg.seat-taken", vars, who);
    dispatch_tell(g, out->old_user, "msg.seat-handed", vars, "seat-handed");
    dispatch_tell(g, g->seats[seat].user, "msg.seat-yours", vars, "seat-yours");
    struct game_view v;
    game_view(g, &v);
    g->rules->render_private(g->state, &v.t, seat, true, dispatch_emit_rules, ctx);
    /* S6: what the seat has done in the step under way, and what it is asked */
    g->rules->render_taken(g->state, &v.t, seat, now, dispatch_emit_rules, ctx);
}

/* A computer began or stopped playing a seat for its person (S14): the
 * table and the person are told (an absence says it its own way). */
static void stand_in_told(struct game *g, const struct outcome *out)
{
    bool begins = out->stood_in >= 0;
    unsigned seat = (unsigned)(begins ? out->stood_in : out->handed_back);
    if (begins && out->absent == out->stood_in)
        return;
    const char *vars[] = {"id", g->id, "player", game_seat_name(g, seat), NULL};
    struct json_object *who = json_object_new_object();
    json_object_object_add(who, "player", player_json(g, seat));
    dispatch_announce_data(g, begins ? "msg.stand-in" : "msg.stand-in-over", vars, who);
    dispatch_tell(g, g->seats[seat].user, begins ? "msg.stand-in-you" : "msg.stand-in-over-you",
                  vars, begins ? "stand-in" : "stand-in-over");
}

/* The Game Master's view, to each watcher who does not play, in one message
 * of theirs edited in place; not after the game's end, which reveals all. */
static void show_watchers(struct dispatcher *d, struct game *g)
{
    if (!g->started || g->rules->over(g->state))
        return;
    struct emit_ctx ctx = {d, g, NULL};
    struct game_view v;
    char text[DISPATCH_TEXT_MAX], key[MSG_KEY_MAX];
    game_view(g, &v);
    g->rules->gm_view(g->state, &v.t, text, sizeof text);
    for (unsigned i = 0; i < g->nwatchers; i++) {
        struct msg_key k = {.number = 0};
        if (game_seat_of(g, g->watchers[i]) >= 0)
            continue; /* took a seat since: they play now */
        snprintf(k.game, sizeof k.game, "%s", g->id);
        snprintf(k.topic, sizeof k.topic, "gm");
        snprintf(k.user, sizeof k.user, "%s", g->watchers[i]);
        struct json_object *data = json_object_new_object();
        if (!data || msg_key_format(&k, key, sizeof key) < 0) {
            json_object_put(data);
            continue;
        }
        json_object_object_add(data, "game", json_object_new_string(g->id));
        json_object_object_add(data, "table", json_object_new_string(g->table));
        json_object_object_add(data, "event", json_object_new_string("gm-view"));
        json_object_object_add(data, "lang", json_object_new_string(g->language));
        struct outbound m = {.kind = OUT_NOTICE,
                             .user = g->watchers[i],
                             .key = key,
                             .key_parts = &k,
                             .replace = true,
                             .text = text,
                             .data = data};
        dispatch_emit(&ctx, &m);
        json_object_put(data);
    }
}

/* The lobby's events: its message, the idle warning, a setting's answer, the
 * close. */
static void render_lobby_events(struct dispatcher *d, struct game *g, const struct change *c,
                                struct bot_cmd *cause, const struct lobby_events *lev,
                                struct emit_ctx *ctx)
{
    const struct rules_defaults *defaults = config_game(d->config, g->rules);
    bool lobby_shown = false;
    char idle[64];
    if (lev->n)
        text_duration(idle, sizeof idle, g->language, d->config->lobby_idle_seconds * 1000);
    for (unsigned i = 0; i < lev->n; i++) {
        if (lev->v[i] == LOBBY_EV_OPENED) {
            render_lobby(g, defaults, d->config->absent_seconds, dispatch_emit, ctx);
            lobby_shown = true;
            if (g->event[0])
                continue; /* an event's table starts at once: no idle lobby to warn of */
            const char *vars[] = {"id", g->id, "idle", idle, NULL};
            dispatch_announce(g, "msg.lobby-expiry", vars);
        } else if (lev->v[i] == LOBBY_EV_SET && cause) {
            const char *vars[] = {"key", lev->key, "value", lev->shown_value, NULL};
            cmd_reply(cause, lev->set_reply, vars);
        } else if (lev->v[i] == LOBBY_EV_CLOSED) {
            const char *vars[] = {"id",   g->id, "player", c->lobby.by ? c->lobby.by : "",
                                  "idle", idle,  NULL};
            dispatch_announce(g, c->lobby.why, vars);
        }
    }
    /* The lobby message first: a start's notices follow it. */
    if (lev->lobby_changed && !lobby_shown)
        render_lobby(g, defaults, d->config->absent_seconds, dispatch_emit, ctx);
}

/* A seat offered, taken over, warned of its player's absence, or played by a
 * computer meanwhile. */
static void render_seats(struct dispatcher *d, struct game *g, struct emit_ctx *ctx,
                         const struct outcome *out, int64_t now)
{
    if (out->opened >= 0) {
        const char *vars[] = {"id", g->id, "player", game_seat_name(g, (unsigned)out->opened),
                              NULL};
        struct json_object *who = json_object_new_object();
        json_object_object_add(who, "player", player_json(g, (unsigned)out->opened));
        dispatch_announce_data(g, "msg.seat-open", vars, who);
    }
    if (out->taken >= 0)
        seat_taken(g, ctx, out, now);
    if (out->absent >= 0) {
        char idle[64];
        bool computer = out->stood_in == out->absent; /* S14: a computer plays meanwhile */
        text_duration(idle, sizeof idle, g->language, d->config->absent_seconds * 1000);
        const char *vars[] = {"id",   g->id, "player", game_seat_name(g, (unsigned)out->absent),
                              "idle", idle,  NULL};
        if (!g->seats[out->absent].reminders_off || computer)
            dispatch_ask(g, g->seats[out->absent].user,
                         computer ? "msg.stand-in-absent-you" : "msg.absent-you", vars, "absent");
        dispatch_announce(g, computer ? "msg.stand-in-absent-table" : "msg.absent-table", vars);
    }
    if (out->stood_in >= 0 || out->handed_back >= 0)
        stand_in_told(g, out);
}

/* What the cause is answered: the change's reply, or the Game Master's view. */
static void render_answer(struct game *g, struct bot_cmd *cause, const struct outcome *out)
{
    if (!cause)
        return;
    if (out->reply) {
        const char *vars[] = {"id", g->id, NULL};
        bool was = cause->private_answer;
        cause->private_answer = was || out->reply_private;
        cmd_reply(cause, out->reply, vars);
        cause->private_answer = was;
    }
    if (out->gm_view && cause->in) {
        char text[DISPATCH_TEXT_MAX];
        struct game_view v;
        game_view(g, &v);
        g->rules->gm_view(g->state, &v.t, text, sizeof text);
        dispatch_reply(cause->p, cause->in, true, OUT_NOTICE, text);
    }
}

/* Renders what a change produced; turn.c holds it until the commit. */
static void render(struct dispatcher *d, struct game *g, const struct change *c,
                   struct bot_cmd *cause, const struct outcome *out, int64_t now)
{
    struct emit_ctx ctx = {d, g, cause ? cause->in : NULL};
    render_lobby_events(d, g, c, cause, &out->lobby, &ctx);
    if (out->rules_changed) {
        struct game_view v;
        game_view(g, &v);
        g->rules->render(g->state, &v.t, out->events, now, dispatch_emit_rules, &ctx);
    }
    if (out->notice)
        dispatch_announce(g, out->notice, NULL);
    if (out->nudge)
        nudge(d, g);
    render_seats(d, g, &ctx, out, now);
    render_answer(g, cause, out);
    if (out->chat)
        chat_render(g, &ctx);
    if (out->rules_changed || out->taken >= 0 || out->opened >= 0 || out->watched)
        show_watchers(d, g);
}

/* After an accepted change: the clock, the moves, the indexes, the
 * computers' memories. Returns -1 when the indexes refused g (nothing done). */
static int settle(struct dispatcher *d, struct game *g, struct bot_cmd *cause,
                  const struct outcome *out, int64_t now)
{
    track_deadline(g, now);
    track_moves(g, cause, out, now);
    if (dispatch_game_changed(d, g) < 0)
        return -1;
    if (out->handed_back >= 0) /* its memory, once nothing can put the change back (P2) */
        memset(game_mind(g, (unsigned)out->handed_back), 0, game_mind_size(g));
    if (out->rules_changed)
        g->rules->note(g->state, out->events);
    if (out->rules_changed && !out->lobby.started) /* the start's were taken in above */
        computers_observe(d, g, out->events);
    turn_changed(d, g);
    return 0;
}

/* A game that is over or closed leaves the hosted games (P3). */
static void leave_if_finished(struct dispatcher *d, struct game *g)
{
    if (!game_finished(g))
        return;
    log_info("dispatch", g->id, g->closed ? "lobby closed" : "game over");
    turn_drop_game(d, g);
    if (g->event[0] && g->started) {
        d->turn.rendering = true;
        events_game_over(d, g);
        d->turn.rendering = false;
    }
}

int pipeline_run(struct dispatcher *d, struct game *g, const struct change *c,
                 struct bot_cmd *cause)
{
    int rc = -1;
    const struct rules_module *rules = g->rules;
    struct game *before = malloc(sizeof *before);
    struct outcome *out = calloc(1, sizeof *out);
    void *state = malloc(rules->state_size);
    void *action = calloc(1, rules->action_size);
    void *events = out ? malloc(rules->events_size) : NULL;
    if (!before || !out || !state || !action || !events) {
        log_error("dispatch", g->id, "out of memory");
        if (cause)
            cmd_reply(cause, "msg.store-failed", NULL);
        goto done;
    }
    out->events = events;
    out->opened = out->taken = out->absent = out->stood_in = out->handed_back = -1;
    /* snapshot */
    *before = *g;
    memcpy(state, g->state, rules->state_size);
    struct stage was = stage_of(g);
    int64_t now = dispatcher_now(d);
    if (turn_snapshot(d, g) < 0) {
        log_error("dispatch", g->id, "out of memory");
        if (cause)
            cmd_reply(cause, "msg.store-failed", NULL);
        goto done;
    }
    /* apply */
    int changed = apply(d, g, c, cause, now, out, action);
    if (changed > 0 && out->lobby.started && computers_begin(d, g, out->events) < 0) {
        log_error("dispatch", g->id, "out of memory: the computers cannot play");
        if (cause)
            cmd_reply(cause, "msg.store-failed", NULL);
        changed = -1;
    }
    if (changed <= 0) {
        game_put_back(g, before, state);
        rc = changed;
        goto done;
    }
    if (settle(d, g, cause, out, now) < 0) { /* the indexes stay as they were: so does g */
        game_put_back(g, before, state);
        if (cause)
            cmd_reply(cause, "msg.store-failed", NULL);
        goto done;
    }
    /* render and hold until the turn is committed */
    d->turn.rendering = true;
    render(d, g, c, cause, out, now);
    tell_adapter(d, g, c, was);
    d->turn.rendering = false;
    if (cause)
        cmd_reply_if_unsaved(cause);
    rc = 0;
    leave_if_finished(d, g);
done:
    free(before);
    free(state);
    free(action);
    free(events);
    free(out);
    return rc;
}

int pipeline_play(struct dispatcher *d, struct game *g, const void *action, struct bot_cmd *cause)
{
    struct change c = {.type = CHANGE_RULES, .action = action};
    if (g->started) /* P5; a game this ends refuses the move below */
        timers_fire_game(d, g, dispatcher_now(d));
    return pipeline_run(d, g, &c, cause);
}

int pipeline_steer(struct dispatcher *d, struct game *g, enum rules_steer how, unsigned seat,
                   int64_t ms, struct bot_cmd *cause)
{
    struct change c = {.type = CHANGE_STEER, .steer = how, .seat = seat, .ms = ms};
    return pipeline_run(d, g, &c, cause);
}
