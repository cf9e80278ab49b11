/*
 * event_commands.c - "!illegal event <action> ...": a moderator's event of
 * several tables and rounds (event.h), one handler per action.
 *
 * A command's event is the open event of its community. A change notes the
 * event in the loop turn before it happens (turn.c, T7), and what is said
 * about it is held until the turn is committed, like a game's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"
#include "core/catalog.h"
#include "core/modules.h"
#include "core/text.h"
#include "dispatch.h"
#include "log.h"

/* Enough for every player of three full tables, within a message. */
#define EVENT_LEADERBOARD_ROWS 24

struct event_cmd {
    struct bot_cmd *x;
    struct event *e;  /* the community's open event; NULL before "open" */
    const char *rest; /* what follows the action word */
};

enum event_action_id {
    EV_OPEN,
    EV_JOIN,
    EV_LEAVE,
    EV_TABLE,
    EV_SEAT,
    EV_MOVE,
    EV_START,
    EV_STATUS,
    EV_LEADERBOARD,
    EV_STATS,
    EV_CLOSE,
    EV_COUNT
};

const char *const event_actions[EV_COUNT + 1] = {
    [EV_OPEN] = "open",   [EV_JOIN] = "join",     [EV_LEAVE] = "leave",
    [EV_TABLE] = "table", [EV_SEAT] = "seat",     [EV_MOVE] = "move",
    [EV_START] = "start", [EV_STATUS] = "status", [EV_LEADERBOARD] = "leaderboard",
    [EV_STATS] = "stats", [EV_CLOSE] = "close",   [EV_COUNT] = NULL,
};

static const char *community_of(const struct bot_cmd *x)
{
    return x->in->community ? x->in->community : "";
}

/* How text names a channel on p (a link on Discord), into buf. */
static const char *channel_name(struct platform *p, const char *channel, char *buf, size_t len)
{
    if (!p->ops->channel_name)
        return channel;
    p->ops->channel_name(p, channel, buf, len);
    return buf;
}

static bool organizes(const struct event_cmd *c)
{
    return c->x->in->moderator || strcmp(c->e->organizer, c->x->in->user) == 0;
}

/* Whether a game of the event's latest round is still hosted. */
static bool round_running(const struct event_cmd *c)
{
    for (unsigned t = 0; t < c->e->ntables; t++)
        if (c->e->tables[t].game[0] && dispatch_game_by_id(c->x->d, c->x->p, c->e->tables[t].game))
            return true;
    return false;
}

/* Notes the event in the turn before it changes; answers when it cannot. */
static bool touch(struct event_cmd *c)
{
    if (turn_event_touch(c->x->d, c->e, false) == 0)
        return true;
    cmd_reply(c->x, "msg.store-failed", NULL);
    return false;
}

/* Tells of a change: held until the turn is committed; if the commit fails,
 * the user hears that it did not happen instead. */
static void tell_change(struct event_cmd *c, const char *key, const char *const *vars)
{
    struct dispatcher *d = c->x->d;
    d->turn.rendering = true;
    cmd_reply(c->x, key, vars);
    d->turn.rendering = false;
    cmd_reply_if_unsaved(c->x);
}

static void reply_error(struct event_cmd *c, enum event_error err)
{
    char max[16];
    snprintf(max, sizeof max, "%u",
             err == EVENT_ERR_TABLES_FULL ? EVENT_MAX_TABLES : EVENT_MAX_PLAYERS);
    const char *vars[] = {"max", max, NULL};
    cmd_reply(c->x, event_error_key(err), vars);
}

static void count_text(char *out, size_t len, unsigned n)
{
    snprintf(out, len, "%u", n);
}

/* Whether open may not go on: an event here already, a user who is no moderator, or names
 * too long to keep (answered). */
static bool open_refused(struct event_cmd *c, const char *name)
{
    struct bot_cmd *x = c->x;
    const struct inbound *in = x->in;
    if (c->e) {
        char hall[GAME_TEXT_MAX + 8];
        const char *vars[] = {"name", c->e->name, "table",
                              channel_name(x->p, c->e->hall, hall, sizeof hall), NULL};
        cmd_reply(x, "msg.event-exists", vars);
        return true;
    }
    if (!in->moderator) {
        cmd_reply(x, "msg.event-moderators", NULL);
        return true;
    }
    if (strlen(c->rest) >= EVENT_NAME_MAX || strlen(in->channel) >= GAME_TEXT_MAX ||
        strlen(in->user) >= GAME_TEXT_MAX || strlen(name) >= GAME_TEXT_MAX ||
        strlen(community_of(x)) >= GAME_TEXT_MAX) {
        cmd_reply(x, "parse.too-long", NULL);
        return true;
    }
    return false;
}

/* Fills e: the event numbered number, opened here by the command's user (organizer_name). */
static void event_fill(struct event_cmd *c, struct event *e, uint64_t number,
                       const char *organizer_name)
{
    struct bot_cmd *x = c->x;
    snprintf(e->id, sizeof e->id, "e%llu", (unsigned long long)number);
    /* a name read at the table like a display name: one clean line */
    if (!command_clean_name(c->rest, e->name, sizeof e->name))
        snprintf(e->name, sizeof e->name, "%s", e->id);
    e->platform = x->p;
    text_copy(e->community, sizeof e->community, community_of(x));
    text_copy(e->hall, sizeof e->hall, x->in->channel);
    text_copy(e->organizer, sizeof e->organizer, x->in->user);
    text_copy(e->organizer_name, sizeof e->organizer_name, organizer_name);
    e->seed = dispatcher_seed(x->d, number ^ 0xe7e7e7e7ULL);
}

/* open <name>: a moderator opens an event in this community, here. */
static void ev_open(struct event_cmd *c)
{
    struct bot_cmd *x = c->x;
    struct dispatcher *d = x->d;
    const char *name = x->in->user_name ? x->in->user_name : x->in->user;
    if (open_refused(c, name))
        return;
    struct event *e = calloc(1, sizeof *e);
    if (!e) {
        cmd_reply(x, "msg.store-failed", NULL);
        return;
    }
    event_fill(c, e, d->next_event, name);
    if (dispatch_event_add(d, e) < 0) {
        free(e);
        cmd_reply(x, "msg.store-failed", NULL);
        return;
    }
    if (turn_event_touch(d, e, true) < 0) {
        dispatch_event_remove(d, e);
        free(e);
        cmd_reply(x, "msg.store-failed", NULL);
        return;
    }
    d->next_event++;
    log_info("dispatch", e->id, "event opened at %s/%s", x->p->ops->name, e->hall);
    char prefix[PLATFORM_PREFIX_MAX];
    const char *vars[] = {"name",   e->name,
                          "player", e->organizer_name,
                          "prefix", platform_command_prefix(x->p, prefix, sizeof prefix),
                          NULL};
    tell_change(c, "msg.event-opened", vars);
}

/*
 * The sign-ups, one message in the hall edited as players come and go
 * ("e3/signup"), held like a change's other messages. Only a user who can
 * be answered privately (reply_to) also hears of their own sign-up.
 */
static void tell_signups(struct event_cmd *c, const char *key, const char *const *vars)
{
    struct bot_cmd *x = c->x;
    const struct event *e = c->e;
    char players[DISPATCH_TEXT_MAX / 2], count[16], text[DISPATCH_TEXT_MAX], name[MSG_KEY_MAX];
    struct text_list names;
    text_list_init(&names, players, sizeof players, ", ");
    for (unsigned i = 0; i < e->nplayers; i++)
        text_list_add(&names, "%s", e->players[i].name);
    count_text(count, sizeof count, e->nplayers);
    const char *list[] = {"name",    e->name,
                          "count",   count,
                          "players", names.n ? players : catalog_text(x->base.lang, "msg.nobody"),
                          NULL};
    text_fill(text, sizeof text, x->base.lang, "msg.event-signups", list);
    struct msg_key k = {.number = 0};
    snprintf(k.game, sizeof k.game, "%s", e->id);
    snprintf(k.topic, sizeof k.topic, "signup");
    struct outbound m = {.kind = OUT_NOTICE,
                         .channel = e->hall,
                         .key = name,
                         .key_parts = &k,
                         .replace = true,
                         .text = text,
                         .cause = x->in};
    x->d->turn.rendering = true;
    if (msg_key_format(&k, name, sizeof name) < 0 || turn_hold_message(x->d, e->platform, &m) < 0)
        log_error("dispatch", e->id, "out of memory: the sign-up list is not shown");
    x->d->turn.rendering = false;
    if (x->in->reply_to)
        tell_change(c, key, vars);
    else
        cmd_reply_if_unsaved(x);
}

/* join: the user signs up. */
static void ev_join(struct event_cmd *c)
{
    const struct inbound *in = c->x->in;
    if (!touch(c))
        return;
    enum event_error err = event_sign_up(c->e, in->user, in->user_name, catalog_match(in->locale));
    if (err) {
        reply_error(c, err);
        return;
    }
    char count[16];
    count_text(count, sizeof count, c->e->nplayers);
    const char *vars[] = {
        "player", c->e->players[c->e->nplayers - 1].name, "name", c->e->name, "count", count, NULL};
    tell_signups(c, "msg.event-joined", vars);
}

/* leave: the user takes their sign-up back (a game they play goes on). */
static void ev_leave(struct event_cmd *c)
{
    int i = event_player_of(c->e, c->x->in->user);
    if (i < 0) {
        reply_error(c, EVENT_ERR_NOT_JOINED);
        return;
    }
    if (!touch(c))
        return;
    char player[GAME_TEXT_MAX], count[16];
    snprintf(player, sizeof player, "%s", c->e->players[i].name);
    if (event_withdraw(c->e, (unsigned)i) != EVENT_OK)
        return;
    count_text(count, sizeof count, c->e->nplayers);
    const char *vars[] = {"player", player, "name", c->e->name, "count", count, NULL};
    tell_signups(c, "msg.event-left", vars);
}

/* table: this channel becomes the event's next table; "table off" takes it
 * back, unseating its players. */
static void ev_table(struct event_cmd *c)
{
    const char *channel = c->x->in->channel;
    char number[16];
    int t = event_table_of(c->e, channel);
    if (strcasecmp(c->rest, "off") == 0) {
        if (t < 0) {
            cmd_reply(c->x, "msg.event-not-table", NULL);
            return;
        }
        if (!touch(c) || event_remove_table(c->e, (unsigned)t) != EVENT_OK)
            return;
        count_text(number, sizeof number, (unsigned)t + 1);
        const char *vars[] = {"number", number, "name", c->e->name, NULL};
        tell_change(c, "msg.event-table-removed", vars);
        return;
    }
    if (c->rest[0]) {
        cmd_reply_usage(c->x);
        return;
    }
    if (!touch(c))
        return;
    enum event_error err = event_add_table(c->e, channel);
    if (err) {
        count_text(number, sizeof number, (unsigned)t + 1);
        char max[16];
        count_text(max, sizeof max, EVENT_MAX_TABLES);
        const char *vars[] = {"number", number, "max", max, NULL};
        cmd_reply(c->x, event_error_key(err), vars);
        return;
    }
    count_text(number, sizeof number, c->e->ntables);
    const char *vars[] = {"number", number, "name", c->e->name, NULL};
    tell_change(c, "msg.event-table-added", vars);
}

/* The seating, one line per table, and a line of the players without one. */
static void seating_lines(const struct event_cmd *c, char *out, size_t len)
{
    const struct event *e = c->e;
    const char *lang = c->x->base.lang;
    struct text_list lines;
    text_list_init(&lines, out, len, "\n");
    for (int t = EVENT_NO_TABLE; t < (int)e->ntables; t++) {
        char players[1024], number[16], line[1400], channel[GAME_TEXT_MAX + 8];
        struct text_list names;
        text_list_init(&names, players, sizeof players, ", ");
        for (unsigned i = 0; i < e->nplayers; i++)
            if (e->players[i].table == t)
                text_list_add(&names, "%s", e->players[i].name);
        if (t == EVENT_NO_TABLE && !names.n)
            continue;
        count_text(number, sizeof number, (unsigned)(t + 1));
        const char *vars[] = {
            "number",
            number,
            "table",
            t >= 0 ? channel_name(e->platform, e->tables[t].channel, channel, sizeof channel) : "",
            "players",
            names.n ? players : "-",
            NULL};
        text_fill(line, sizeof line, lang,
                  t == EVENT_NO_TABLE ? "msg.event-unseated-line" : "msg.event-table-line", vars);
        text_list_add(&lines, "%s", line);
    }
}

/* seat: every player gets a table afresh, balanced. */
static void ev_seat(struct event_cmd *c)
{
    /* seated for the daemon's game; `start` may name another, whose range it checks */
    const struct rules_module *rules = commands_community_game(c->x, c->e->community);
    unsigned needed = 0;
    if (!touch(c))
        return;
    enum event_error err =
        event_seat_balanced(c->e, rules->min_players, rules->max_players, &needed);
    if (err) {
        char count[16], tables[16], min[16];
        count_text(count, sizeof count, c->e->nplayers);
        count_text(tables, sizeof tables, needed);
        count_text(min, sizeof min, rules->min_players);
        const char *vars[] = {"count", count, "tables", tables, "min", min, NULL};
        cmd_reply(c->x, event_error_key(err), vars);
        return;
    }
    char lines[DISPATCH_TEXT_MAX - 256], round[16];
    seating_lines(c, lines, sizeof lines);
    count_text(round, sizeof round, c->e->round + 1);
    const char *vars[] = {"round", round, "lines", lines, NULL};
    tell_change(c, "msg.event-seated", vars);
}

/* move <player> <table|none>: the organiser seats one player by hand. */
static void ev_move(struct event_cmd *c)
{
    char who[COMMAND_ARG_MAX];
    const char *last = strrchr(c->rest, ' ');
    if (!last) {
        cmd_reply_usage(c->x);
        return;
    }
    snprintf(who, sizeof who, "%.*s", (int)(last - c->rest), c->rest);
    char *end;
    long t = strcasecmp(last + 1, "none") == 0 ? 0 : strtol(last + 1, &end, 10);
    if (strcasecmp(last + 1, "none") != 0 && (*end || end == last + 1)) {
        cmd_reply_usage(c->x);
        return;
    }
    if (t < 0 || t > (long)c->e->ntables) {
        char count[16];
        count_text(count, sizeof count, c->e->ntables);
        const char *vars[] = {"value", last + 1, "count", count, NULL};
        cmd_reply(c->x, "msg.event-bad-table", vars);
        return;
    }
    const char *ids[EVENT_MAX_PLAYERS], *names[EVENT_MAX_PLAYERS];
    char choices[1024];
    int index;
    for (unsigned i = 0; i < c->e->nplayers; i++) {
        ids[i] = c->e->players[i].user;
        names[i] = c->e->players[i].name;
    }
    enum resolve_error re =
        command_match_player(who, ids, names, c->e->nplayers, &index, choices, sizeof choices);
    if (re != RESOLVE_OK) {
        const char *vars[] = {"word", who, "choices", choices, NULL};
        cmd_reply(c->x,
                  re == RESOLVE_AMBIGUOUS ? "resolve.ambiguous-player" : "resolve.unknown-player",
                  vars);
        return;
    }
    if (!touch(c) || event_move(c->e, (unsigned)index, (int)t - 1) != EVENT_OK)
        return;
    char lines[DISPATCH_TEXT_MAX - 256];
    seating_lines(c, lines, sizeof lines);
    const char *vars[] = {"player", c->e->players[index].name, "lines", lines, NULL};
    tell_change(c, "msg.event-moved", vars);
}

/* Whether every table of the round can start: its number of players in the
 * game's range, its channel free. Answers x when not. */
static bool round_ready(struct event_cmd *c, const struct rules_module *rules)
{
    struct bot_cmd *x = c->x;
    struct event *e = c->e;
    unsigned bad = 0;
    enum event_error err = event_check_round(e, rules->min_players, rules->max_players, &bad);
    if (err) {
        char number[16], count[16], min[16], max[16];
        count_text(number, sizeof number, bad + 1);
        count_text(count, sizeof count,
                   err == EVENT_ERR_TABLE_SIZE ? event_table_count(e, (int)bad) : e->nplayers);
        count_text(min, sizeof min, rules->min_players);
        count_text(max, sizeof max, rules->max_players);
        const char *vars[] = {"number", number, "count", count, "min", min, "max", max, NULL};
        cmd_reply(x, event_error_key(err), vars);
        return false;
    }
    for (unsigned t = 0; t < e->ntables; t++) {
        const struct game *busy = dispatch_game_at(x->d, x->p, e->tables[t].channel);
        if (busy && event_table_count(e, (int)t)) {
            char channel[GAME_TEXT_MAX + 8];
            const char *vars[] = {"table",
                                  channel_name(x->p, e->tables[t].channel, channel, sizeof channel),
                                  "id", busy->id, NULL};
            cmd_reply(x, "msg.event-table-busy", vars);
            return false;
        }
    }
    return true;
}

/* The seats of table t: its players, in the event's order. Returns how many. */
static unsigned table_seats(const struct event *e, unsigned t, struct seat *seats)
{
    unsigned n = 0;
    for (unsigned i = 0; i < e->nplayers && n < RULES_MAX_SEATS; i++) {
        const struct event_player *p = &e->players[i];
        if (p->table != (int)t)
            continue;
        memset(&seats[n], 0, sizeof seats[n]);
        text_copy(seats[n].user, sizeof seats[n].user, p->user);
        text_copy(seats[n].name, sizeof seats[n].name, p->name);
        text_copy(seats[n].language, sizeof seats[n].language, p->language);
        n++;
    }
    return n;
}

/* start [game] [mode]: a game at every table with players, all at once. */
static void ev_start(struct event_cmd *c)
{
    struct bot_cmd *x = c->x;
    struct event *e = c->e;
    const char *mode;
    const struct rules_module *rules = commands_game_of(x, NULL, c->rest, &mode);
    if (!round_ready(c, rules) || !touch(c))
        return;
    unsigned started = 0;
    char round[16];
    e->round++;
    count_text(round, sizeof round, e->round);
    for (unsigned t = 0; t < e->ntables; t++) {
        struct seat seats[RULES_MAX_SEATS];
        e->tables[t].game[0] = '\0';
        unsigned n = table_seats(e, t, seats);
        if (!n)
            continue;
        struct lobby_place at = {.table = e->tables[t].channel,
                                 .host = e->organizer,
                                 .host_name = e->organizer_name,
                                 .community = e->community,
                                 .event = e->id,
                                 .seats = seats,
                                 .nseats = n};
        struct game *g;
        int rc = commands_open_lobby(x, &at, rules, mode, NULL, &g);
        if (rc > 0) { /* no such variant: the first table tells, before anything opened */
            e->round--;
            cmd_reply_usage(c->x);
            return;
        }
        if (rc < 0)
            continue; /* answered; the other tables start */
        snprintf(e->tables[t].game, sizeof e->tables[t].game, "%s", g->id);
        commands_begin_start(g, x->p);
        started++;
    }
    x->g = NULL;
    x->base.lang = x->d->config->language;
    char count[16];
    count_text(count, sizeof count, started);
    log_info("dispatch", e->id, "round %u started at %u tables", e->round, started);
    const char *vars[] = {"name", e->name, "round", round, "count", count, NULL};
    tell_change(c, "msg.event-started", vars);
}

/* status: every table at once: its game's phase and time, or its seating. */
static void ev_status(struct event_cmd *c)
{
    struct bot_cmd *x = c->x;
    const struct event *e = c->e;
    const char *lang = x->base.lang;
    char lines[DISPATCH_TEXT_MAX - 256], line[DISPATCH_TEXT_MAX], number[16], round[16], count[16];
    struct text_list list;
    text_list_init(&list, lines, sizeof lines, "\n");
    for (unsigned t = 0; t < e->ntables; t++) {
        const struct game *g =
            e->tables[t].game[0] ? dispatch_game_by_id(x->d, x->p, e->tables[t].game) : NULL;
        char channel[GAME_TEXT_MAX + 8];
        const char *table = channel_name(x->p, e->tables[t].channel, channel, sizeof channel);
        count_text(number, sizeof number, t + 1);
        if (g && g->started) {
            struct game_view v;
            game_view(g, &v);
            char status[DISPATCH_TEXT_MAX];
            g->rules->status(g->state, &v.t, dispatcher_now(x->d), status, sizeof status);
            const char *vars[] = {"number", number, "table", table, "status", status, NULL};
            text_fill(line, sizeof line, lang, "msg.event-table-playing", vars);
            text_list_add(&list, "%s", line);
            continue;
        }
        const char *vars[] = {"number", number, "table", table, "id", g ? g->id : e->tables[t].game,
                              NULL};
        text_fill(line, sizeof line, lang,
                  g                      ? "msg.event-table-starting"
                  : e->tables[t].game[0] ? "msg.event-table-over"
                                         : "msg.event-table-idle",
                  vars);
        text_list_add(&list, "%s", line);
    }
    count_text(count, sizeof count, e->nplayers);
    count_text(round, sizeof round, e->round);
    const char *vars[] = {"name",  e->name, "player", e->organizer_name,
                          "count", count,   "round",  round,
                          "lines", lines,   NULL};
    cmd_reply(x, e->ntables ? "msg.event-status" : "msg.event-status-no-tables", vars);
}

/* Answers with the event's leaderboard under `key`. */
static void tell_leaderboard(struct event_cmd *c, const char *key, bool change)
{
    char lines[DISPATCH_TEXT_MAX - 256], round[16];
    int n = stats_leaderboard_text(c->x->d, c->x->p, c->e->community, c->e->id, NULL, false,
                                   EVENT_LEADERBOARD_ROWS, c->x->base.lang, lines, sizeof lines);
    if (n < 0) {
        cmd_reply(c->x, "msg.store-failed", NULL);
        return;
    }
    if (!n)
        snprintf(lines, sizeof lines, "%s",
                 catalog_text(c->x->base.lang, "msg.event-leaderboard-empty"));
    count_text(round, sizeof round, c->e->round);
    const char *vars[] = {"name", c->e->name, "round", round, "lines", lines, NULL};
    if (change)
        tell_change(c, key, vars);
    else
        cmd_reply(c->x, key, vars);
}

static void ev_leaderboard(struct event_cmd *c)
{
    tell_leaderboard(c, "msg.event-leaderboard", false);
}

/* stats [player]: a player's statistics in the event's games. */
static void ev_stats(struct event_cmd *c)
{
    stats_reply(c->x, c->e->community, c->e->id, NULL, c->rest);
}

/* close: the event ends with its leaderboard; its record stays in the store. */
static void ev_close(struct event_cmd *c)
{
    if (!touch(c))
        return;
    c->e->closed = true;
    log_info("dispatch", c->e->id, "event closed after %u rounds", c->e->round);
    tell_leaderboard(c, "msg.event-closed", true);
}

void events_game_over(struct dispatcher *d, const struct game *g)
{
    struct event *e = dispatch_event_by_id(d, g->platform, g->event);
    int t = e ? event_table_of(e, g->table) : -1;
    if (t < 0 || strcmp(e->tables[t].game, g->id) != 0)
        return; /* a game of an earlier round, or of a table taken away */
    char players[1024], number[16], round[16], count[16], channel[GAME_TEXT_MAX + 8];
    struct text_list won;
    unsigned playing = 0;
    text_list_init(&won, players, sizeof players, ", ");
    for (unsigned i = 0; i < g->nseats; i++) {
        struct rules_result r;
        g->rules->result(g->state, i, &r);
        if (r.played && r.won)
            text_list_add(&won, "%s", game_seat_name(g, i));
    }
    for (unsigned i = 0; i < e->ntables; i++)
        playing += e->tables[i].game[0] && dispatch_game_by_id(d, e->platform, e->tables[i].game);
    count_text(number, sizeof number, (unsigned)t + 1);
    count_text(round, sizeof round, e->round);
    count_text(count, sizeof count, playing);
    const char *lang = d->config->language;
    const char *vars[] = {"number",  number,
                          "table",   channel_name(e->platform, g->table, channel, sizeof channel),
                          "round",   round,
                          "name",    e->name,
                          "players", won.n ? players : catalog_text(lang, "msg.nobody"),
                          "count",   count,
                          NULL};
    dispatch_notice(e->platform, e->hall, lang, "msg.event-table-done", vars);
    if (!playing)
        dispatch_notice(e->platform, e->hall, lang, "msg.event-round-done", vars);
}

static const struct event_action {
    bool organizer; /* the organiser or a moderator only */
    bool idle;      /* refused while a round is played */
    void (*run)(struct event_cmd *c);
} actions[EV_COUNT] = {
    [EV_OPEN] = {false, false, ev_open},
    [EV_JOIN] = {false, false, ev_join},
    [EV_LEAVE] = {false, false, ev_leave},
    [EV_TABLE] = {true, true, ev_table},
    [EV_SEAT] = {true, true, ev_seat},
    [EV_MOVE] = {true, true, ev_move},
    [EV_START] = {true, true, ev_start},
    [EV_STATUS] = {false, false, ev_status},
    [EV_LEADERBOARD] = {false, false, ev_leaderboard},
    [EV_STATS] = {false, false, ev_stats},
    [EV_CLOSE] = {true, true, ev_close},
};

void cmd_event(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    const char *arg = base->c->arg;
    size_t word = strcspn(arg, " ");
    struct event_cmd c = {.x = x, .e = dispatch_event_of(x->d, x->p, community_of(x))};
    c.rest = arg + word + strspn(arg + word, " ");
    unsigned a = 0;
    while (a < EV_COUNT &&
           (strlen(event_actions[a]) != word || strncasecmp(arg, event_actions[a], word) != 0))
        a++;
    if (a == EV_COUNT) {
        cmd_reply_usage(x);
        return;
    }
    if (a != EV_OPEN && !c.e) {
        cmd_reply(x, "msg.event-none", NULL);
        return;
    }
    if (actions[a].organizer && !organizes(&c)) {
        const char *vars[] = {"player", c.e->organizer_name, NULL};
        cmd_reply(x, "msg.event-organizer", vars);
        return;
    }
    if (actions[a].idle && round_running(&c)) {
        char round[16];
        count_text(round, sizeof round, c.e->round);
        const char *vars[] = {"round", round, NULL};
        cmd_reply(x, "msg.event-round-running", vars);
        return;
    }
    actions[a].run(&c);
}
