/*
 * table_commands.c - lobbies, the start, moderation and grabs: "!illegal ..."
 *
 * Anyone may open a lobby and join it; the host (its creator) and platform
 * moderators steer the game. Nothing here reveals a secret: answers to table
 * commands may go to the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "config.h"
#include "core/json.h"
#include "core/modules.h"
#include "core/text.h"
#include "core/catalog.h"
#include "dispatch.h"
#include "log.h"
#include "render.h"
#include "seats.h"
#include "store.h"

static void copy_text(char *dst, size_t len, const char *src)
{
    snprintf(dst, len, "%s", src ? src : "");
}

/* Whether user may open one more lobby on x's platform; answers when not. */
static bool may_open(struct bot_cmd *x)
{
    struct dispatcher *d = x->d;
    const struct inbound *in = x->in;
    struct game *existing = dispatch_game_at(d, x->p, in->channel);
    if (existing) {
        const char *vars[] = {"id", existing->id, NULL};
        cmd_reply(x, "msg.game-exists", vars);
        return false;
    }
    if (strlen(in->channel) >= GAME_TEXT_MAX || strlen(in->user) >= GAME_TEXT_MAX ||
        (in->user_name && strlen(in->user_name) >= GAME_TEXT_MAX)) {
        cmd_reply(x, "parse.too-long", NULL);
        return false;
    }
    /* Lobbies cost memory until they start or close: a user, a server and
     * the daemon each have a cap, so no crowd of users can fill it. The
     * counts are kept as lobbies open, start and close (games.c). */
    const char *server = in->community ? in->community : "";
    unsigned hosted = dispatch_lobbies_hosted(d, x->p, in->user);
    unsigned here = server[0] ? dispatch_lobbies_in(d, x->p, server) : 0, all = d->lobbies;
    const char *refusal = NULL, *cap = NULL;
    int max = 0;
    if (hosted >= (unsigned)d->config->lobbies_per_host)
        refusal = "msg.lobby-limit", max = d->config->lobbies_per_host;
    else if (here >= (unsigned)d->config->lobbies_per_server)
        refusal = "msg.lobby-limit-server", cap = "lobbies_per_server",
        max = d->config->lobbies_per_server;
    else if (all >= (unsigned)d->config->lobbies_total)
        refusal = "msg.lobby-limit-total", cap = "lobbies_total", max = d->config->lobbies_total;
    if (!refusal)
        return true;
    char count[16];
    snprintf(count, sizeof count, "%d", max);
    const char *vars[] = {"max", count, NULL};
    cmd_reply(x, refusal, vars);
    if (cap) /* the operator may want to raise it */
        log_warn("dispatch", NULL, "a lobby refused: [game] %s (%d) reached", cap, max);
    return false;
}

int commands_open_lobby(struct bot_cmd *x, const struct lobby_place *at,
                        const struct rules_module *rules, const char *mode,
                        const struct game *finished, struct game **opened)
{
    struct dispatcher *d = x->d;
    /* A table keeps its language: a rematch plays on in its game's, a new
     * game in the table's last one. */
    const char *lang = finished ? finished->language : readers_table(d, x->p, at->table);
    if (opened)
        *opened = NULL;
    struct game *g = calloc(1, sizeof *g);
    if (g && game_init(g, rules, mode, config_game(d->config, rules)) < 0) {
        free(g);
        return 1;
    }
    if (!g) {
        cmd_reply(x, "msg.store-failed", NULL);
        return -1;
    }
    uint64_t number = d->next_game;
    snprintf(g->id, sizeof g->id, "g%llu", (unsigned long long)number);
    g->platform = x->p;
    copy_text(g->table, sizeof g->table, at->table);
    copy_text(g->host, sizeof g->host, at->host);
    copy_text(g->host_name, sizeof g->host_name, at->host_name ? at->host_name : at->host);
    copy_text(g->language, sizeof g->language, lang);
    copy_text(g->community, sizeof g->community, at->community);
    copy_text(g->event, sizeof g->event, at->event);
    g->seed = dispatcher_seed(d, number);
    rng_seed(&g->rng, g->seed);
    if (dispatch_game_add(d, g) < 0) {
        game_free(g);
        cmd_reply(x, "msg.store-failed", NULL);
        return -1;
    }
    if (turn_created(d, g) < 0) {
        turn_drop_game(d, g);
        cmd_reply(x, "msg.store-failed", NULL);
        return -1;
    }
    d->next_game++;
    struct change open = {.type = CHANGE_LOBBY,
                          .lobby = {.type = finished ? LOBBY_REMATCH : LOBBY_OPEN,
                                    .finished = finished,
                                    .seats = at->seats,
                                    .nseats = at->nseats}};
    x->g = g;
    x->base.lang = g->language;
    if (pipeline_run(d, g, &open, x) < 0) {
        /* Never stored: it is as if it had never been opened. */
        d->next_game--;
        turn_drop_game(d, g);
        return -1;
    }
    log_info("dispatch", g->id, "%s %s game of %s at %s/%s", finished ? "rematch:" : "new",
             g->rules->mode(g->state), g->rules->id, x->p->ops->name, g->table);
    if (opened)
        *opened = g;
    return 0;
}

/* Opens a lobby at x's table, hosted by x's user (see commands_open_lobby). */
static int open_here(struct bot_cmd *x, const struct rules_module *rules, const char *mode,
                     const struct game *finished)
{
    const struct inbound *in = x->in;
    struct lobby_place here = {.table = in->channel,
                               .host = in->user,
                               .host_name = in->user_name,
                               .community = in->community};
    return commands_open_lobby(x, &here, rules, mode, finished, NULL);
}

/* Where a default game is kept (store.h: default_games). */
#define KIND_TABLE     "table"
#define KIND_COMMUNITY "community"

/* The community x was typed in: "" on a platform that has none. */
static const char *community_here(const struct bot_cmd *x)
{
    return x->in->community ? x->in->community : "";
}

/* The game set as the default of a table or community, or NULL (none set,
 * one this build does not know, or the store could not be read: logged). */
static const struct rules_module *stored_default(struct bot_cmd *x, const char *kind,
                                                 const char *id)
{
    char game[32];
    if (store_default_game_get(x->d->store, x->p->ops->name, kind, id, game, sizeof game) != 1)
        return NULL;
    return rules_by_id(game);
}

/* The module of the last game that ended at table, or NULL. */
static const struct rules_module *table_game(struct bot_cmd *x, const char *table)
{
    char *record = table ? store_game_last_finished(x->d->store, x->p->ops->name, table) : NULL;
    struct json_object *j = record ? json_tokener_parse(record) : NULL;
    const char *id = jget_str(j, "rules");
    const struct rules_module *rules = id ? rules_by_id(id) : NULL;
    json_object_put(j);
    free(record);
    return rules;
}

const struct rules_module *commands_game_of(struct bot_cmd *x, const char *table, const char *text,
                                            const char **mode)
{
    char word[32];
    size_t n = strcspn(text, " ");
    snprintf(word, sizeof word, "%.*s", (int)n, text);
    const struct rules_module *named = n < sizeof word ? rules_by_id(word) : NULL;
    if (named)
        text += n + strspn(text + n, " ");
    *mode = *text ? text : NULL;
    if (named)
        return named;
    const struct rules_module *set = table ? stored_default(x, KIND_TABLE, table) : NULL;
    const struct rules_module *last = set ? set : table_game(x, table);
    return last ? last : commands_community_game(x, community_here(x));
}

const struct rules_module *commands_community_game(struct bot_cmd *x, const char *community)
{
    const struct rules_module *set = stored_default(x, KIND_COMMUNITY, community);
    return set ? set : rules_by_id(x->d->config->default_game);
}

/* Answers the game `new` opens at x's table. */
static void tell_default(struct bot_cmd *x)
{
    const char *mode;
    const struct rules_module *rules = commands_game_of(x, x->in->channel, "", &mode);
    const char *vars[] = {"game", text_name(x->base.lang, rules->id, "game"), NULL};
    cmd_reply(x, "msg.default-game", vars);
}

/* Keeps game (NULL: none) as the default of a table or community, in a
 * transaction of its own: the answer comes once it is on disk. */
static int keep_default(struct bot_cmd *x, const char *kind, const char *id,
                        const struct rules_module *game)
{
    struct store *s = x->d->store;
    turn_flush(x->d);
    if (store_begin(s) < 0)
        return -1;
    if (store_default_game_put(s, x->p->ops->name, kind, id, game ? game->id : NULL) < 0 ||
        store_commit(s) < 0) {
        store_rollback(s);
        return -1;
    }
    return 0;
}

/* default [game|none] [server]: the game `new` opens here when none is
 * named; a moderator sets it for this table, or with "server" for the whole
 * server; "none" clears it. */
void cmd_default(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    char game[32], where[16];
    const char *arg = base->c->arg;
    size_t n = strcspn(arg, " ");
    snprintf(game, sizeof game, "%.*s", (int)(n < sizeof game ? n : 0), arg);
    arg += n + strspn(arg + n, " ");
    snprintf(where, sizeof where, "%s", arg);
    const struct rules_module *rules = rules_by_id(game);
    bool none = strcmp(game, "none") == 0, server = strcasecmp(where, "server") == 0;
    if (!arg[0] && !game[0]) {
        tell_default(x);
        return;
    }
    if ((!rules && !none) || (where[0] && !server)) {
        cmd_reply_usage(x);
        return;
    }
    if (!x->in->moderator) {
        cmd_reply(x, "msg.not-moderator", NULL);
        return;
    }
    if (keep_default(x, server ? KIND_COMMUNITY : KIND_TABLE,
                     server ? community_here(x) : x->in->channel, rules) < 0) {
        cmd_reply(x, "msg.store-failed", NULL);
        return;
    }
    const char *mode;
    if (!rules) /* none: the game new opens here now */
        rules = commands_game_of(x, x->in->channel, "", &mode);
    const char *vars[] = {"game", text_name(x->base.lang, rules->id, "game"), NULL};
    cmd_reply(x,
              server ? (none ? "msg.default-server-none" : "msg.default-server")
                     : (none ? "msg.default-table-none" : "msg.default-table"),
              vars);
}

/* new [game] [mode]: a lobby at this table. */
void cmd_new(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    const char *mode;
    if (!may_open(x))
        return;
    const struct rules_module *rules = commands_game_of(x, x->in->channel, base->c->arg, &mode);
    if (open_here(x, rules, mode, NULL) > 0)
        cmd_reply_usage(x);
}

void cmd_rematch(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    struct game *old = calloc(1, sizeof *old);
    struct json_object *j = NULL;
    char why[128];
    if (!old) {
        cmd_reply(x, "msg.store-failed", NULL);
        return;
    }
    if (!may_open(x))
        goto done;
    turn_flush(x->d); /* a game that ended in this turn is on disk before it is read */
    char *record = store_game_last_finished(x->d->store, x->p->ops->name, x->in->channel);
    j = record ? json_tokener_parse(record) : NULL;
    free(record);
    if (!j || game_from_json(old, j, why, sizeof why) < 0 || !old->started ||
        !old->rules->over(old->state)) {
        cmd_reply(x, "msg.no-rematch", NULL);
        goto done;
    }
    /* S11: someone who played it, or a moderator, calls the next one; S8:
     * nobody its host kicked. */
    if (seats_kicked(old, x->in->user)) {
        cmd_reply(x, "msg.rematch-kicked", NULL);
        goto done;
    }
    if (!x->in->moderator && game_seat_of(old, x->in->user) < 0) {
        cmd_reply(x, "msg.not-player", NULL);
        goto done;
    }
    open_here(x, old->rules, old->rules->mode(old->state), old);
done:
    json_object_put(j);
    game_free(old);
}
void cmd_join(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    if (x->g->started && x->base.seat >= 0) { /* S1 */
        cmd_reply(x, "msg.already-joined", NULL);
        return;
    }
    /* S3: a running game takes a newcomer only into a seat offered to someone else. */
    for (unsigned i = 0; x->g->started && x->base.seat < 0 && i < x->g->nseats; i++)
        if (x->g->seats[i].open && game_active(x->g, i)) {
            struct change c = {
                .type = CHANGE_TAKEOVER, .seat = i, .user = x->in->user, .name = x->in->user_name};
            pipeline_run(x->d, x->g, &c, x);
            return;
        }
    struct change c = {.type = CHANGE_LOBBY,
                       .lobby = {.type = LOBBY_JOIN,
                                 .user = x->in->user,
                                 .name = x->in->user_name,
                                 .language = catalog_match(x->in->locale)}};
    pipeline_run(x->d, x->g, &c, x);
}

/* Removes seat from x's game: from the lobby, or from the rules once started. */
static void remove_seat(struct bot_cmd *x, unsigned seat)
{
    if (!x->g->started) {
        struct change c = {.type = CHANGE_LOBBY, .lobby = {.type = LOBBY_LEAVE, .seat = seat}};
        pipeline_run(x->d, x->g, &c, x);
        return;
    }
    pipeline_steer(x->d, x->g, RULES_REMOVE, seat, 0, x);
}

/* S10: leaving a running game asks first: the seat is offered to someone
 * else, and a second leave removes it at once. */
void cmd_leave(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    int seat = x->base.seat;
    if (seat < 0 || !game_active(x->g, (unsigned)seat)) {
        cmd_reply(x, "msg.not-joined", NULL);
    } else if (x->g->started && !x->g->seats[seat].open) {
        struct change c = {.type = CHANGE_OPEN, .seat = (unsigned)seat};
        pipeline_run(x->d, x->g, &c, x);
    } else {
        remove_seat(x, (unsigned)seat);
    }
}

/* replace <player>: the host offers a seat to someone else (an absent
 * player); "replace <player> computer" is computer_commands.c's. */
void cmd_replace(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    int seat;
    if (cmd_replace_computer(x) || !cmd_resolve_player(x, x->base.c->arg, &seat))
        return;
    if (x->g->seats[seat].open) {
        cmd_reply(x, "msg.seat-already-open", NULL);
        return;
    }
    struct change c = {.type = CHANGE_OPEN, .seat = (unsigned)seat};
    pipeline_run(x->d, x->g, &c, x);
}

/* kick <player>: S7, the host removes a player, who stays out of this game
 * and of its rematch (S8). */
void cmd_kick(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    int seat;
    if (!cmd_resolve_player(x, x->base.c->arg, &seat))
        return;
    bool person = !game_seat_is_computer(x->g, (unsigned)seat); /* S13: no computer is kept out */
    if (!x->g->started) {
        struct change c = {.type = CHANGE_LOBBY,
                           .lobby = {.type = LOBBY_LEAVE, .seat = (unsigned)seat, .kick = person}};
        pipeline_run(x->d, x->g, &c, x);
        return;
    }
    struct change c = {
        .type = CHANGE_STEER, .steer = RULES_REMOVE, .seat = (unsigned)seat, .kick = person};
    pipeline_run(x->d, x->g, &c, x);
}

/*
 * A start waiting for the DM checks is kept in the store, "starting/<game>"
 * holding the seats it checks, so that a restart goes on with it: the host's
 * Start was answered ("Checking that every player can get DMs"), and a crash
 * before the checks came back must not drop it. A seat list changed since (a
 * join or a leave voids a start in progress) lets it go.
 */
#define STARTING_PREFIX "starting/"
#define STARTING_MAX    (RULES_MAX_SEATS * (GAME_TEXT_MAX + 1))

static void starting_key(char *key, size_t len, const char *game)
{
    snprintf(key, len, STARTING_PREFIX "%s", game);
}

static void starting_seats(const struct game *g, char *out, size_t len)
{
    struct text_list l;
    text_list_init(&l, out, len, " ");
    for (unsigned i = 0; i < g->nseats; i++)
        text_list_add(&l, "%s", g->seats[i].user);
}

/* Notes in the store that g's start waits for the DM checks (on: at once,
 * before the players are told), or no longer (with the turn's commit, which
 * holds the start). */
static void starting_note(struct dispatcher *d, const struct game *g, bool on)
{
    char key[GAME_ID_MAX + sizeof STARTING_PREFIX], seats[STARTING_MAX];
    starting_key(key, sizeof key, g->id);
    starting_seats(g, seats, sizeof seats);
    if ((on ? store_meta_set(d->store, key, seats) : store_meta_set_lazy(d->store, key, "")) < 0)
        log_warn("dispatch", g->id, "could not note the start in progress; a restart may drop it");
}

static void starting_found(void *arg, const char *key, const char *value)
{
    struct json_object *pair = json_object_new_array();
    json_object_array_add(pair, json_object_new_string(key + strlen(STARTING_PREFIX)));
    json_object_array_add(pair, json_object_new_string(value));
    json_object_array_add(arg, pair);
}

/* The lobby game id names, waiting for nothing, with the seats it had. */
static struct game *starting_game(struct dispatcher *d, const char *id, const char *seats)
{
    char now[STARTING_MAX];
    for (unsigned i = 0; i < d->nplatforms; i++) {
        struct game *g = dispatch_game_by_id(d, d->platforms[i], id);
        if (!g)
            continue;
        starting_seats(g, now, sizeof now);
        return !g->started && !g->probes_pending && strcmp(now, seats) == 0 ? g : NULL;
    }
    return NULL;
}

void commands_resume_starts(struct dispatcher *d)
{
    struct json_object *found = json_object_new_array();
    if (store_meta_each(d->store, STARTING_PREFIX, starting_found, found) < 0)
        log_warn("dispatch", NULL, "could not read the starts in progress before the restart");
    for (size_t i = 0; i < json_object_array_length(found); i++) {
        struct json_object *pair = json_object_array_get_idx(found, i);
        const char *id = json_object_get_string(json_object_array_get_idx(pair, 0));
        struct game *g =
            starting_game(d, id, json_object_get_string(json_object_array_get_idx(pair, 1)));
        char key[GAME_ID_MAX + sizeof STARTING_PREFIX];
        starting_key(key, sizeof key, id);
        if (g) {
            log_info("dispatch", g->id, "the start in progress before the restart goes on");
            commands_begin_start(g, g->platform);
        } else if (store_meta_delete(d->store, key) < 0) {
            log_warn("dispatch", id, "could not forget a start that is over");
        }
    }
    json_object_put(found);
}

static void finish_start(struct dispatcher *d, struct game *g)
{
    char names[1024];
    starting_note(d, g, false);
    struct text_list l;
    text_list_init(&l, names, sizeof names, ", ");
    for (unsigned i = 0; i < g->nseats; i++)
        if (g->seats[i].dm_unreachable)
            text_list_add(&l, "%s", game_seat_name(g, i));
    if (l.n) {
        const char *vars[] = {"players", names, NULL};
        dispatch_announce(g, "msg.dms-closed", vars);
        return;
    }
    /* Nobody typed this moment: the answers go to the table. */
    struct bot_cmd table = {
        .base = {.seat = -1, .lang = g->language}, .d = d, .p = g->platform, .g = g};
    struct change c = {.type = CHANGE_LOBBY, .lobby = {.type = LOBBY_START}};
    if (pipeline_run(d, g, &c, &table) == 0)
        log_info("dispatch", g->id, "started with %u players", g->nseats);
}

void commands_begin_start(struct game *g, struct platform *p)
{
    char users[RULES_MAX_SEATS][GAME_TEXT_MAX];
    unsigned n = 0;
    for (unsigned i = 0; i < g->nseats; i++) {
        g->seats[i].dm_unreachable = false;
        if (!game_seat_is_computer(g, i)) /* a computer reads no DMs, and needs none */
            copy_text(users[n++], sizeof users[0], g->seats[i].user);
    }
    if (!n) { /* computers alone: nobody to ask */
        finish_start(p->host->ctx, g);
        return;
    }
    starting_note(p->host->ctx, g, true);
    dispatch_announce(g, "msg.checking-dms", NULL);
    g->probes_pending = n;
    for (unsigned i = 0; i < n; i++)
        p->ops->probe_dm(p, users[i]);
}

void cmd_start(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    struct game *g = x->g;
    struct platform *p = x->p;
    if (g->started) {
        cmd_reply(x, "msg.already-started", NULL);
        return;
    }
    if (g->nseats < g->rules->min_players) {
        char count[16];
        snprintf(count, sizeof count, "%u", g->nseats);
        const char *vars[] = {"count", count, NULL};
        cmd_reply(x, "msg.too-few", vars);
        return;
    }
    if (!g->probes_pending)
        commands_begin_start(g, p);
}

void commands_scheduled_start(struct dispatcher *d, struct game *g)
{
    char count[16], min[16], max[16];
    struct change c = {.type = CHANGE_LOBBY,
                       .lobby = {.type = LOBBY_SET, .key = "start-at", .value = "off"}};
    if (pipeline_run(d, g, &c, NULL) < 0 || g->probes_pending)
        return;
    if (g->nseats < g->rules->min_players) {
        snprintf(count, sizeof count, "%u", g->nseats);
        snprintf(min, sizeof min, "%u", g->rules->min_players);
        snprintf(max, sizeof max, "%u", g->rules->max_players);
        const char *vars[] = {"count", count, "min", min, "max", max, NULL};
        dispatch_announce(g, "msg.start-at-too-few", vars);
        return;
    }
    commands_begin_start(g, g->platform);
}

void cmd_status(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    const struct game *g = x->g;
    char text[DISPATCH_TEXT_MAX];
    if (g->started) {
        struct game_view v;
        game_view(g, &v);
        g->rules->status(g->state, &v.t, dispatcher_now(x->d), text, sizeof text);
        dispatch_reply(x->p, x->in, x->private_answer, OUT_NOTICE, text);
        return;
    }
    char players[1024], count[8], max[16];
    game_seat_names(g, players, sizeof players);
    snprintf(count, sizeof count, "%u", g->nseats);
    snprintf(max, sizeof max, "%u", g->rules->max_players);
    const char *vars[] = {
        "id",      g->id,
        "variant", text_name(g->language, g->rules->mode_keys, g->rules->mode(g->state)),
        "count",   count,
        "players", players,
        "max",     max,
        NULL};
    cmd_reply(x, "msg.status-lobby", vars);
}

void cmd_set(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    struct change c = {
        .type = CHANGE_LOBBY,
        .lobby = {.type = LOBBY_SET, .key = x->base.c->arg, .value = x->base.c->arg2}};
    pipeline_run(x->d, x->g, &c, x);
}

const struct rules_module *commands_table_game(struct bot_cmd *x)
{
    const char *mode;
    const struct rules_module *addressed = commands_addressed_rules(x->d, x->p, x->in, x->base.c);
    return addressed ? addressed : commands_game_of(x, x->in->channel, "", &mode);
}

/* rules: the rules of the table's game, in a few lines. */
void cmd_rules(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    cmd_reply(x, commands_table_game(x)->rules_summary, NULL);
}

/* One game's settings for help set, from its settings table, into out. */
static void game_settings(const struct rules_module *rules, const char *lang, const char *prefix,
                          char *out, size_t len)
{
    char list[DISPATCH_TEXT_MAX / 2], line[512];
    struct text_list l;
    text_list_init(&l, list, sizeof list, "; ");
    for (const struct rules_setting *s = rules_settings(rules); s->name; s++) {
        if (!(s->where & (RULES_IN_LOBBY | RULES_IN_GAME)))
            continue;
        const char *vars[] = {"name",  s->name,
                              "label", catalog_text(lang, s->label),
                              "help",  catalog_text(lang, s->help),
                              NULL};
        text_fill(line, sizeof line, lang, "msg.help-setting", vars);
        text_list_add(&l, "%s", line);
    }
    const char *vars[] = {
        "game", text_name(lang, rules->id, "game"), "prefix", prefix, "settings", list, NULL};
    text_fill(out, len, lang, "msg.help-settings", vars);
}

/* help set: the settings of the game the command is about (the table's), or
 * of every game, one paragraph a game. */
static void help_settings(struct bot_cmd *x, const char *prefix, char *out, size_t len)
{
    const struct rules_module *rules = commands_addressed_rules(x->d, x->p, x->in, x->base.c);
    char one[DISPATCH_TEXT_MAX];
    struct text_list l;
    text_list_init(&l, out, len, "\n");
    for (size_t i = 0; i < rules_count(); i++)
        if (!rules || rules_at(i) == rules) {
            game_settings(rules_at(i), x->base.lang, prefix, one, sizeof one);
            text_list_add(&l, "%s", one);
        }
}

/* help [set]: the commands here, or the settings of the table's game. */
void cmd_help(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    char help[DISPATCH_TEXT_MAX], prefix[PLATFORM_PREFIX_MAX];
    platform_command_prefix(x->p, prefix, sizeof prefix);
    if (base->c->arg[0] && strcasecmp(base->c->arg, "set") != 0) {
        cmd_reply_usage(x);
        return;
    }
    if (base->c->arg[0])
        help_settings(x, prefix, help, sizeof help);
    else
        command_help(help, sizeof help, x->base.lang, x->in->channel != NULL, prefix,
                     commands_table_game(x),
                     commands_addressed_rules(x->d, x->p, x->in, x->base.c));
    dispatch_reply(x->p, x->in, x->private_answer, OUT_NOTICE, help);
}

void cmd_end(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    if (x->g->started) {
        pipeline_steer(x->d, x->g, RULES_END, 0, 0, x);
        return;
    }
    struct change c = {.type = CHANGE_LOBBY,
                       .lobby = {.type = LOBBY_CLOSE,
                                 .why = "msg.ended",
                                 .by = x->in->user_name ? x->in->user_name : x->in->user}};
    pipeline_run(x->d, x->g, &c, x);
}

/* pause, resume, extend, next: the host steers the rules' clock. */
void cmd_pause(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    pipeline_steer(x->d, x->g, RULES_PAUSE, 0, 0, x);
}

void cmd_resume(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    pipeline_steer(x->d, x->g, RULES_RESUME, 0, 0, x);
}

void cmd_extend(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    pipeline_steer(x->d, x->g, RULES_EXTEND, 0, base->c->ms, x);
}

void cmd_next(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    pipeline_steer(x->d, x->g, RULES_NEXT, 0, 0, x);
}

void commands_dm_result(void *ctx, struct platform *p, const char *user, bool reachable)
{
    struct dispatcher *d = ctx;
    struct seat_link *next;
    for (struct seat_link *l = dispatch_seats_of(d, p, user); l; l = next) {
        next = TAILQ_NEXT(l, next); /* a start below may move the seats */
        struct game *g = l->g;
        int seat = game_seat_of(g, user);
        if (seat < 0)
            continue;
        if (g->started) {
            /* Some platforms only learn it from a failed DM: tell the table once,
             * without a word of what the DM held. */
            bool was = g->seats[seat].dm_unreachable;
            g->seats[seat].dm_unreachable = !reachable;
            if (!reachable && !was && game_active(g, (unsigned)seat)) {
                const char *vars[] = {"player", game_seat_name(g, (unsigned)seat), NULL};
                dispatch_announce(g, "msg.dm-lost", vars);
            }
            continue;
        }
        if (!g->probes_pending)
            continue;
        g->seats[seat].dm_unreachable = !reachable;
        if (--g->probes_pending == 0) {
            timers_changed(d, g); /* a scheduled start waits for the probes */
            finish_start(d, g);
        }
    }
}

/* The games this build hosts as the greeting presents them, in lang: each
 * module's <id>.game-intro (its name, <id>.game, and its player range), and
 * what then comes in private: the one game's <id>.game-private, or a line
 * for any game. */
static void greeting_games(const char *lang, char *games, size_t glen, char *private_line,
                           size_t plen)
{
    struct text_list l;
    text_list_init(&l, games, glen, "; ");
    for (size_t i = 0; i < rules_count(); i++) {
        const struct rules_module *r = rules_at(i);
        char key[64], min[12], max[12], intro[512];
        snprintf(min, sizeof min, "%u", r->min_players);
        snprintf(max, sizeof max, "%u", r->max_players);
        const char *vars[] = {"name", text_name(lang, r->id, "game"), "min", min, "max", max, NULL};
        snprintf(key, sizeof key, "%s.game-intro", r->id);
        text_fill(intro, sizeof intro, lang, key, vars);
        text_list_add(&l, "%s", intro);
    }
    char key[64];
    snprintf(key, sizeof key, "%s.game-private", rules_at(0)->id);
    text_fill(private_line, plen, lang, rules_count() == 1 ? key : "msg.help-stranger-private",
              NULL);
}

bool commands_stranger(struct dispatcher *d, struct platform *p, const struct inbound *in)
{
    if (dispatch_seats_of(d, p, in->user))
        return false;
    /* Whatever they wrote, someone who plays nothing here wants to know what
     * the bot is and how to start, in what they read. */
    const char *lang = readers_user(d, p, in->user, in->locale);
    char prefix[PLATFORM_PREFIX_MAX], games[2048], private_line[512];
    greeting_games(lang, games, sizeof games, private_line, sizeof private_line);
    const char *vars[] = {"prefix",  platform_command_prefix(p, prefix, sizeof prefix),
                          "games",   games,
                          "private", private_line,
                          NULL};
    dispatch_reply_key(p, in, true, lang, "msg.help-stranger", vars);
    return true;
}

/* gm [follow|stop]: the Game Master's view, always in private, for a host
 * or moderator who does not play (S5: one who plays would read the others'
 * secrets): once, or kept up to date after every change until "stop". Its
 * reader is remembered as knowing the game's secrets (S4) before the view
 * goes out, so it is a change like any other. */
void cmd_gm(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    const char *arg = base->c->arg;
    x->private_answer = true;
    if (x->base.seat >= 0) { /* S5 */
        cmd_reply(x, "msg.gm-playing", NULL);
        return;
    }
    struct change c = {.type = CHANGE_WATCH, .user = x->in->user, .watch = WATCH_ONCE};
    if (strcasecmp(arg, "follow") == 0)
        c.watch = WATCH_FOLLOW;
    else if (strcasecmp(arg, "stop") == 0)
        c.watch = WATCH_STOP;
    else if (arg[0]) {
        cmd_reply_usage(x);
        return;
    }
    pipeline_run(x->d, x->g, &c, x);
}

/* language <code|table>: the language of a player's private messages, kept
 * with their seat. */
void cmd_language(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    const char *v = base->c->arg, *code = catalog_match(v);
    if (!code && strcasecmp(v, "table") != 0) {
        char choices[512];
        text_languages(choices, sizeof choices);
        const char *vars[] = {"value", v, "choices", choices, NULL};
        cmd_reply(x, "msg.language-bad", vars);
        return;
    }
    struct change c = {.type = CHANGE_LANGUAGE, .seat = (unsigned)x->base.seat, .language = code};
    pipeline_run(x->d, x->g, &c, x);
}

/* reminders on|off: a player's own private reminders, kept with their seat. */
void cmd_reminders(struct command_ctx *base)
{
    struct bot_cmd *x = bot_cmd(base);
    const char *v = base->c->arg;
    if (strcasecmp(v, "on") != 0 && strcasecmp(v, "off") != 0) {
        cmd_reply_usage(x);
        return;
    }
    struct change c = {.type = CHANGE_SEAT,
                       .seat = (unsigned)x->base.seat,
                       .reminders_off = strcasecmp(v, "off") == 0};
    pipeline_run(x->d, x->g, &c, x);
}
