/*
 * commands.c - running a command: the checks every command gets from its
 * table entry (where, which game, who), then its handler, with the services
 * handlers are offered (struct command_host).
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "core/modules.h"
#include "core/text.h"
#include "dispatch.h"

/* --- what handlers are offered (struct command_host) ---------------------- */

static void host_reply(struct command_ctx *x, const char *key, const char *const *vars)
{
    cmd_reply(bot_cmd(x), key, vars);
}

static bool host_player(struct command_ctx *x, const char *text, int *seat)
{
    return cmd_resolve_player(bot_cmd(x), text, seat);
}

static void host_play(struct command_ctx *base, const void *action)
{
    struct bot_cmd *x = bot_cmd(base);
    pipeline_play(x->d, x->g, action, x);
}

static void host_show(struct command_ctx *base, const struct rules_msg *m)
{
    struct bot_cmd *x = bot_cmd(base);
    struct emit_ctx ctx = {x->d, x->g, x->in};
    dispatch_emit_rules(&ctx, m);
}

static const struct command_host command_host = {
    .reply = host_reply,
    .player = host_player,
    .play = host_play,
    .show = host_show,
};

bool cmd_resolve_player(struct bot_cmd *x, const char *text, int *seat)
{
    const struct game *g = x->g;
    const char *ids[RULES_MAX_SEATS], *names[RULES_MAX_SEATS];
    int map[RULES_MAX_SEATS];
    unsigned n = 0;
    char choices[1024];
    for (unsigned i = 0; i < g->nseats; i++) {
        if (!game_active(g, i))
            continue;
        ids[n] = g->seats[i].user;
        names[n] = g->seats[i].name;
        map[n++] = (int)i;
    }
    int index;
    enum resolve_error e =
        command_match_player(text, ids, names, n, &index, choices, sizeof choices);
    if (e == RESOLVE_OK) {
        *seat = map[index];
        return true;
    }
    const char *vars[] = {"word", text, "choices", choices, NULL};
    cmd_reply(x, e == RESOLVE_AMBIGUOUS ? "resolve.ambiguous-player" : "resolve.unknown-player",
              vars);
    return false;
}

/* Finds the running game a private command is for; answers the user if none. */
static struct game *private_game(struct bot_cmd *x)
{
    struct dispatcher *d = x->d;
    const struct inbound *in = x->in;
    struct game *g = NULL;
    if (in->channel) {
        g = dispatch_game_at(d, x->p, in->channel);
    } else if (x->base.c->game[0]) {
        g = dispatch_game_by_id(d, x->p, x->base.c->game);
        if (!g || game_seat_of(g, in->user) < 0) {
            const char *vars[] = {"id", x->base.c->game, NULL};
            cmd_reply(x, "msg.no-such-game", vars);
            return NULL;
        }
    } else {
        char list[1024];
        struct text_list games;
        unsigned count = 0;
        const char *example = NULL;
        text_list_init(&games, list, sizeof list, ", ");
        for (struct seat_link *l = dispatch_seats_of(d, x->p, in->user); l;
             l = TAILQ_NEXT(l, next)) {
            struct game *y = l->g;
            if (!y->started && x->base.c->def->game != CMD_ANY_GAME)
                continue;
            g = y;
            example = y->id;
            count++;
            char table[GAME_TEXT_MAX + 8];
            /* the table as players know it: a link where the platform has them */
            text_list_add(&games, "%s (%s)", y->id,
                          platform_channel_name(x->p, y->table, table, sizeof table));
        }
        if (count > 1) {
            const char *vars[] = {"games", list, "example", example, NULL};
            cmd_reply(x, "msg.which-game", vars);
            return NULL;
        }
    }
    if (!g || game_seat_of(g, in->user) < 0) {
        cmd_reply(x, "msg.not-in-game", NULL);
        return NULL;
    }
    return g;
}

void commands_back(struct dispatcher *d, struct game *g, int seat, struct bot_cmd *cause)
{
    if (seat >= 0 && g->seats[seat].standin) { /* S14: they act again */
        struct change c = {.type = CHANGE_HAND_BACK, .seat = (unsigned)seat};
        pipeline_run(d, g, &c, cause);
    }
}

/* Answers a line that did not parse (e) with the usage of the command it
 * named, if any, and the help of the commands of the game `rules`. */
static void refuse_parse(struct bot_cmd *x, enum command_error e, const struct command_def *def,
                         const struct rules_module *rules)
{
    char key[32], usage[512], help[DISPATCH_TEXT_MAX], prefix[PLATFORM_PREFIX_MAX];
    usage[0] = '\0';
    if (def)
        command_usage(usage, sizeof usage, x->base.lang, def, rules);
    command_help(help, sizeof help, x->base.lang, x->in->channel != NULL,
                 platform_command_prefix(x->p, prefix, sizeof prefix), rules, rules);
    const char *vars[] = {"usage", usage, "help", help, NULL};
    snprintf(key, sizeof key, "parse.%s", command_error_id(e));
    cmd_reply(x, key, vars);
}

static void run(struct bot_cmd *x)
{
    const struct command_def *def = x->base.c->def;
    const struct inbound *in = x->in;
    if (!(def->places & CMD_IN_PRIVATE) && !in->channel) {
        /* A table command sent to the bot in private: say what works here. */
        char help[DISPATCH_TEXT_MAX];
        command_help(help, sizeof help, x->base.lang, false, NULL, command_module(def),
                     command_module(def));
        dispatch_reply(x->p, in, true, OUT_NOTICE, help);
        return;
    }
    if (def->game != CMD_NO_GAME) {
        if (in->channel && (def->places & CMD_IN_TABLE)) { /* else typed in private */
            x->g = dispatch_game_at(x->d, x->p, in->channel);
            if (!x->g) {
                cmd_reply(x, "msg.no-game", NULL);
                return;
            }
        } else if (!(x->g = private_game(x))) {
            return;
        }
        const struct rules_module *owner = command_module(def);
        if (owner && owner != x->g->rules) { /* another game's command */
            refuse_parse(x, CMD_ERR_UNKNOWN, NULL, x->g->rules);
            return;
        }
        x->base.seat = game_seat_of(x->g, in->user);
        commands_back(x->d, x->g, x->base.seat, x);
        /* a player's private commands speak the player's language */
        x->base.lang = x->private_answer && x->base.seat >= 0
                           ? game_seat_language(x->g, (unsigned)x->base.seat)
                           : x->g->language;
        x->base.state = x->g->state;
        game_view(x->g, &x->view);
        x->base.table = &x->view.t;
    }
    if (def->who == CMD_HOST && !in->moderator && strcmp(x->g->host, in->user) != 0) {
        cmd_reply(x, "msg.not-moderator", NULL);
        return;
    }
    if (def->game == CMD_RUNNING && !x->g->started) {
        cmd_reply(x, "msg.not-started", NULL);
        return;
    }
    if (def->who == CMD_PLAYER &&
        (x->base.seat < 0 || !game_active(x->g, (unsigned)x->base.seat))) {
        cmd_reply(x, "msg.not-player", NULL);
        return;
    }
    def->run(&x->base);
}

const struct rules_module *commands_addressed_rules(struct dispatcher *d, struct platform *p,
                                                    const struct inbound *in,
                                                    const struct command *c)
{
    const struct rules_module *rules = NULL;
    if (in->channel) {
        struct game *g = dispatch_game_at(d, p, in->channel);
        return g ? g->rules : NULL;
    }
    if (c->game[0]) {
        struct game *g = dispatch_game_by_id(d, p, c->game);
        return g ? g->rules : NULL;
    }
    for (struct seat_link *l = dispatch_seats_of(d, p, in->user); l; l = TAILQ_NEXT(l, next)) {
        if (rules && l->g->rules != rules)
            return NULL; /* games of two kinds: the line must say which (private_game) */
        rules = l->g->rules;
    }
    return rules;
}

int commands_handle(struct dispatcher *d, struct platform *p, const struct inbound *in)
{
    /* Answers that belong to no game speak their reader's language. */
    const char *lang =
        in->channel ? readers_table(d, p, in->channel) : readers_user(d, p, in->user, in->locale);
    struct command c;
    /* Typed text in a table is chat unless it starts with "!illegal";
     * native commands are always commands. */
    bool in_table = in->channel && in->type == INBOUND_MESSAGE;
    enum command_error e = command_parse(in->text, in_table, &c);
    const struct rules_module *rules = commands_addressed_rules(d, p, in, &c);
    if (rules && rules != rules_default())
        e = command_parse_for(in->text, in_table, rules, &c);
    if (!c.def && e == CMD_OK && !(in_table && p->ops->table_chat))
        return 0;
    struct bot_cmd x = {.base = {.c = &c, .lang = lang, .seat = -1, .host = &command_host},
                        .d = d,
                        .p = p,
                        .in = in};
    if (!c.def && e == CMD_OK)
        return chat_typed(&x); /* the table's own chat: the platform has none */
    /* Private commands are answered in private, even their mistakes. */
    x.private_answer = (c.def && !(c.def->places & CMD_IN_TABLE)) || !in->channel;
    if (e == CMD_OK) {
        run(&x);
        return 0;
    }
    refuse_parse(&x, e, c.def, rules);
    return -1;
}
