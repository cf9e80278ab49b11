/*
 * player_commands.c - what a player of Illegal does: hand, offers, grabs, votes.
 *
 * These are Illegal's own commands; they reach into its module's state until
 * modules declare their commands themselves (core/rules.h).
 * Every answer goes to the player alone, by DM or ephemerally.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "dispatch.h"
#include "core/illegal/module.h"
#include "core/text.h"

void cmd_offers(struct command_ctx *x)
{
    const struct game *g = x->g;
    const struct il_state *il = g->state;
    int seat = x->seat;
    char list[DISPATCH_TEXT_MAX], line[1024], give[256], ask[256], id[16];
    size_t n = 0;
    list[0] = '\0';
    for (unsigned i = 0; i < il->game.noffers; i++) {
        const struct il_offer *o = &il->game.offers[i];
        if (o->from != seat && o->to != seat)
            continue;
        snprintf(id, sizeof id, "%u", o->id);
        il_render_cards(give, sizeof give, g->language, &o->give);
        il_render_cards(ask, sizeof ask, g->language, &o->ask);
        const char *vars[] = {"id",   id,
                              "from", game_seat_name(g, o->from),
                              "to",   game_seat_name(g, o->to),
                              "give", give,
                              "ask",  ask,
                              NULL};
        text_fill(line, sizeof line, g->language, "msg.offer-line", vars);
        int w = snprintf(list + n, sizeof list - n, "%s%s", n ? "; " : "", line);
        if (w > 0 && (size_t)w < sizeof list - n)
            n += (size_t)w;
    }
    if (!n) {
        cmd_reply(x, "msg.no-offers", NULL);
        return;
    }
    const char *vars[] = {"list", list, NULL};
    cmd_reply(x, "msg.offers", vars);
}

void cmd_offer(struct command_ctx *x)
{
    const struct game *g = x->g;
    const struct il_state *il = g->state;
    struct il_action a = {.type = IL_ACT_OFFER, .player = (int8_t)x->seat};
    char word[COMMAND_ARG_MAX], choices[512];
    int target;
    if (!cmd_resolve_player(x, x->c->arg, &target))
        return;
    a.target = (int8_t)target;
    enum resolve_error e = il_parse_cards(x->c->arg2, il->game.in_play, g->language, &a.give, word,
                                          sizeof word, choices, sizeof choices);
    if (e == RESOLVE_OK)
        e = il_parse_cards(x->c->arg3, il->game.in_play, g->language, &a.ask, word, sizeof word,
                           choices, sizeof choices);
    if (e != RESOLVE_OK) {
        cmd_resolve_error(x, e, word, choices);
        return;
    }
    pipeline_play(x->d, x->g, &a, x);
}

void cmd_grab(struct command_ctx *x)
{
    const struct il_state *il = x->g->state;
    char choices[512];
    int res;
    enum resolve_error e =
        il_parse_resource(x->c->arg, il->game.in_play, x->lang, &res, choices, sizeof choices);
    if (e != RESOLVE_OK) {
        cmd_resolve_error(x, e, x->c->arg, choices);
        return;
    }
    struct il_action a = {.type = IL_ACT_GRAB, .player = (int8_t)x->seat, .resource = (uint8_t)res};
    pipeline_play(x->d, x->g, &a, x);
}

void cmd_hand(struct command_ctx *x)
{
    const struct game *g = x->g;
    const char *users[RULES_MAX_SEATS], *names[RULES_MAX_SEATS];
    struct rules_table t;
    struct emit_ctx ctx = {x->d, x->g, x->in};
    game_table(g, &t, users, names);
    g->rules->render_private(g->state, &t, (unsigned)x->seat, true, dispatch_emit_rules, &ctx);
}

/* accept, decline, cancel: an answer to an offer, by its number. */
void cmd_answer(struct command_ctx *x)
{
    struct il_action a = {.player = (int8_t)x->seat, .offer_id = (uint32_t)x->c->number};
    a.type = x->c->type == CMD_ACCEPT    ? IL_ACT_ACCEPT
             : x->c->type == CMD_DECLINE ? IL_ACT_DECLINE
                                         : IL_ACT_CANCEL;
    pipeline_play(x->d, x->g, &a, x);
}

/* vote, abstain: on the case being judged. */
void cmd_vote(struct command_ctx *x)
{
    const struct il_state *il = x->g->state;
    struct il_action a = {
        .type = IL_ACT_ABSTAIN, .player = (int8_t)x->seat, .number = il->game.case_index};
    if (x->c->type == CMD_VOTE) {
        int target;
        if (!cmd_resolve_player(x, x->c->arg, &target))
            return;
        a.type = IL_ACT_VOTE;
        a.target = (int8_t)target;
    }
    pipeline_play(x->d, x->g, &a, x);
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
