/*
 * player_commands.c - what a player does in private: hand, offers, votes.
 *
 * Every answer goes to the player alone, by DM or ephemerally.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "dispatch.h"
#include "render.h"

/* Finds the running game a private command is for; answers the user if none. */
static struct game *private_game(struct dispatcher *d, struct platform *p, const struct inbound *in,
                                 const struct command *c)
{
    const char *lang = d->config->language;
    struct game *g = NULL;
    if (in->channel) {
        g = dispatch_game_at(d, p, in->channel);
    } else if (c->game[0]) {
        g = dispatch_game_by_id(d, p, c->game);
        if (!g || game_seat_of(g, in->user) < 0) {
            const char *vars[] = {"id", c->game, NULL};
            dispatch_reply_key(p, in, true, lang, "msg.no-such-game", vars);
            return NULL;
        }
    } else {
        char list[1024];
        size_t n = 0;
        unsigned count = 0;
        const char *example = NULL;
        list[0] = '\0';
        for (unsigned i = 0; i < d->ngames; i++) {
            struct game *x = d->games[i];
            if (x->platform != p || !x->started || game_seat_of(x, in->user) < 0)
                continue;
            g = x;
            example = x->id;
            count++;
            int w =
                snprintf(list + n, sizeof list - n, "%s%s (%s)", n ? ", " : "", x->id, x->table);
            if (w > 0 && (size_t)w < sizeof list - n)
                n += (size_t)w;
        }
        if (count > 1) {
            const char *vars[] = {"games", list, "example", example, NULL};
            dispatch_reply_key(p, in, true, lang, "msg.which-game", vars);
            return NULL;
        }
    }
    if (!g || game_seat_of(g, in->user) < 0) {
        dispatch_reply_key(p, in, true, lang, "msg.not-in-game", NULL);
        return NULL;
    }
    if (!g->started) {
        dispatch_reply_key(p, in, true, g->language, "msg.not-started", NULL);
        return NULL;
    }
    return g;
}

static void cmd_offers(struct platform *p, const struct inbound *in, const struct game *g, int seat)
{
    char list[DISPATCH_TEXT_MAX], line[1024], give[256], ask[256], id[16];
    size_t n = 0;
    list[0] = '\0';
    for (unsigned i = 0; i < g->state.noffers; i++) {
        const struct il_offer *o = &g->state.offers[i];
        if (o->from != seat && o->to != seat)
            continue;
        snprintf(id, sizeof id, "%u", o->id);
        render_cards(give, sizeof give, g->language, &o->give);
        render_cards(ask, sizeof ask, g->language, &o->ask);
        const char *vars[] = {"id",   id,
                              "from", game_seat_name(g, o->from),
                              "to",   game_seat_name(g, o->to),
                              "give", give,
                              "ask",  ask,
                              NULL};
        render_fill(line, sizeof line, g->language, "msg.offer-line", vars);
        int w = snprintf(list + n, sizeof list - n, "%s%s", n ? "; " : "", line);
        if (w > 0 && (size_t)w < sizeof list - n)
            n += (size_t)w;
    }
    if (!n) {
        dispatch_reply_key(p, in, true, g->language, "msg.no-offers", NULL);
        return;
    }
    const char *vars[] = {"list", list, NULL};
    dispatch_reply_key(p, in, true, g->language, "msg.offers", vars);
}

static void cmd_offer(struct dispatcher *d, struct platform *p, const struct inbound *in,
                      struct game *g, int seat, const struct command *c)
{
    struct il_action a = {.type = IL_ACT_OFFER, .player = (int8_t)seat};
    char word[COMMAND_ARG_MAX], choices[512];
    int target;
    if (!dispatch_resolve_player(p, in, g, c->arg, true, &target))
        return;
    a.target = (int8_t)target;
    enum resolve_error e = command_parse_cards(c->arg2, g->state.in_play, g->language, &a.give,
                                               word, sizeof word, choices, sizeof choices);
    if (e == RESOLVE_OK)
        e = command_parse_cards(c->arg3, g->state.in_play, g->language, &a.ask, word, sizeof word,
                                choices, sizeof choices);
    if (e != RESOLVE_OK) {
        dispatch_resolve_error(p, in, g, e, word, choices, true);
        return;
    }
    dispatch_play(d, g, &a, p, in);
}

bool commands_stranger(struct dispatcher *d, struct platform *p, const struct inbound *in)
{
    for (unsigned i = 0; i < d->ngames; i++)
        if (d->games[i]->platform == p && game_seat_of(d->games[i], in->user) >= 0)
            return false;
    /* Whatever they wrote, someone who plays nothing here wants to know what
     * the bot is and how to start. */
    dispatch_reply_key(p, in, true, d->config->language, "msg.help-stranger", NULL);
    return true;
}

void commands_private(struct dispatcher *d, struct platform *p, const struct inbound *in,
                      const struct command *c)
{
    if (c->type == CMD_DM_HELP) {
        dispatch_reply_key(p, in, true, d->config->language, "msg.help-dm", NULL);
        return;
    }
    struct game *g = private_game(d, p, in, c);
    if (!g)
        return;
    int seat = game_seat_of(g, in->user);
    if (!g->state.players[seat].active) {
        dispatch_reply_key(p, in, true, g->language, "msg.not-player", NULL);
        return;
    }
    struct il_action a = {.player = (int8_t)seat, .offer_id = (uint32_t)c->number};
    switch (c->type) {
    case CMD_HAND: {
        struct emit_ctx ctx = {d, g};
        render_hand(g, (unsigned)seat, true, dispatch_emit, &ctx);
        return;
    }
    case CMD_OFFERS:
        cmd_offers(p, in, g, seat);
        return;
    case CMD_OFFER:
        cmd_offer(d, p, in, g, seat, c);
        return;
    case CMD_VOTE: {
        int target;
        if (!dispatch_resolve_player(p, in, g, c->arg, true, &target))
            return;
        a.type = IL_ACT_VOTE;
        a.target = (int8_t)target;
        a.number = g->state.case_index;
        break;
    }
    case CMD_ACCEPT:
        a.type = IL_ACT_ACCEPT;
        break;
    case CMD_DECLINE:
        a.type = IL_ACT_DECLINE;
        break;
    case CMD_CANCEL:
        a.type = IL_ACT_CANCEL;
        break;
    case CMD_ABSTAIN:
        a.type = IL_ACT_ABSTAIN;
        a.number = g->state.case_index;
        break;
    default:
        return;
    }
    dispatch_play(d, g, &a, p, in);
}
