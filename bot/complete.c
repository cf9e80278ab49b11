/*
 * complete.c - choices for what a user is typing, for platforms that offer
 * them (platform_host.complete): a game's own commands are completed by its
 * rules module, from what the user's seat may know; the host's commands that
 * name a player, by the bot from the seats.
 */
#include <string.h>
#include <strings.h>

#include "dispatch.h"

/* The game user's input at channel is about: the table's, else (a DM) the
 * running game on p where they took a seat first. */
static struct game *game_of(struct dispatcher *d, struct platform *p, const char *channel,
                            const char *user)
{
    struct game *g = channel ? dispatch_game_at(d, p, channel) : NULL;
    for (struct seat_link *l = dispatch_seats_of(d, p, user); !g && l; l = TAILQ_NEXT(l, next))
        if (l->g->started)
            g = l->g;
    return g;
}

/* Whether word is one of the module's own commands. */
static bool module_command(const struct rules_module *m, const char *word)
{
    for (const struct command_def *c = m->commands; c && c->word; c++)
        if (strcmp(c->word, word) == 0)
            return true;
    return false;
}

void dispatch_complete(void *ctx, struct platform *p, const char *channel, const char *user,
                       const char *word, const char *option, const char *typed, rules_choice_fn add,
                       void *arg)
{
    struct dispatcher *d = ctx;
    struct game *g = user && word && option ? game_of(d, p, channel, user) : NULL;
    if (!g)
        return;
    int seat = game_seat_of(g, user);
    if (module_command(g->rules, word)) {
        if (!g->started || seat < 0 || !g->rules->complete)
            return;
        struct game_view v;
        game_view(g, &v);
        g->rules->complete(g->state, &v.t, (unsigned)seat, word, option, typed, add, arg);
        return;
    }
    if (strcmp(option, "player") != 0) /* the host's kick and replace */
        return;
    for (unsigned i = 0; i < g->nseats; i++) {
        const char *name = game_seat_name(g, i);
        if (game_active(g, i) && strncasecmp(name, typed, strlen(typed)) == 0)
            add(arg, name, g->seats[i].user);
    }
}
