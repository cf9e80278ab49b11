/*
 * trade.c - offers between two players during a dealing session.
 */
#include <string.h>

#include "internal.h"

void il_offer_remove(struct il_game *g, unsigned i)
{
    memmove(&g->offers[i], &g->offers[i + 1], (g->noffers - i - 1) * sizeof g->offers[0]);
    g->noffers--;
    memset(&g->offers[g->noffers], 0, sizeof g->offers[0]);
}

void il_emit_offer(struct il_ctx *c, enum il_event_type type, const struct il_offer *o)
{
    int sides[2] = {o->to, o->from};
    for (unsigned i = 0; i < 2; i++) {
        struct il_event *e = il_emit(c, type, sides[i]);
        e->player = (int8_t)o->from;
        e->target = (int8_t)o->to;
        e->offer_id = o->id;
        e->cards = o->give;
        e->cards2 = o->ask;
    }
}

void il_expire_offers(struct il_ctx *c)
{
    struct il_game *g = c->g;
    for (unsigned i = 0; i < g->noffers; i++)
        il_emit_offer(c, IL_EV_OFFER_EXPIRED, &g->offers[i]);
    memset(g->offers, 0, sizeof g->offers);
    g->noffers = 0;
}

static int find_offer(const struct il_game *g, uint32_t id)
{
    for (unsigned i = 0; i < g->noffers; i++)
        if (g->offers[i].id == id)
            return (int)i;
    return -1;
}

/* Cards in an offer must be resources that are in this game. Only the
 * offerer's side is checked against a hand: testing the receiver's would
 * tell the offerer what they hold. */
static enum il_error check_offer(const struct il_game *g, const struct il_action *a)
{
    if (a->target == a->player)
        return IL_ERR_SELF_TARGET;
    if (!il_is_active_seat(g, a->target))
        return IL_ERR_NOT_A_PLAYER;
    if (!il_bundle_only_resources(&a->give) || !il_bundle_only_resources(&a->ask))
        return IL_ERR_NOT_TRADABLE;
    if (!il_bundle_within(&a->give, g->in_play) || !il_bundle_within(&a->ask, g->in_play))
        return IL_ERR_NOT_IN_PLAY;
    if (il_bundle_total(&a->give) == 0 && il_bundle_total(&a->ask) == 0)
        return IL_ERR_EMPTY_OFFER;
    if (!il_bundle_contains(&g->players[a->player].hand, &a->give))
        return IL_ERR_CARDS_NOT_HELD;
    unsigned mine = 0;
    for (unsigned i = 0; i < g->noffers; i++)
        mine += g->offers[i].from == a->player;
    if (mine >= IL_MAX_OFFERS_FROM || g->noffers >= IL_MAX_OFFERS || g->next_offer_id == UINT32_MAX)
        return IL_ERR_TOO_MANY_OFFERS;
    return IL_OK;
}

static enum il_error offer(struct il_ctx *c, const struct il_action *a)
{
    struct il_game *g = c->g;
    enum il_error err = check_offer(g, a);
    if (err)
        return err;
    struct il_offer *o = &g->offers[g->noffers++];
    memset(o, 0, sizeof *o);
    o->id = g->next_offer_id++;
    o->from = (uint8_t)a->player;
    o->to = (uint8_t)a->target;
    o->give = a->give;
    o->ask = a->ask;
    il_emit_offer(c, IL_EV_OFFER_MADE, o);
    return IL_OK;
}

static enum il_error answer(struct il_ctx *c, const struct il_action *a)
{
    struct il_game *g = c->g;
    int i = find_offer(g, a->offer_id);
    if (i < 0)
        return IL_ERR_NO_SUCH_OFFER;
    struct il_offer o = g->offers[i];

    if (a->type == IL_ACT_CANCEL) {
        if (o.from != a->player)
            return IL_ERR_NOT_OFFERER;
        il_offer_remove(g, (unsigned)i);
        il_emit_offer(c, IL_EV_OFFER_CANCELLED, &o);
        return IL_OK;
    }
    if (o.to != a->player)
        return IL_ERR_NOT_RECEIVER;
    if (a->type == IL_ACT_DECLINE) {
        il_offer_remove(g, (unsigned)i);
        il_emit_offer(c, IL_EV_OFFER_DECLINED, &o);
        return IL_OK;
    }

    struct il_bundle *from = &g->players[o.from].hand, *to = &g->players[o.to].hand;
    if (!il_bundle_contains(from, &o.give))
        return IL_ERR_OFFERER_LACKS_CARDS;
    if (!il_bundle_contains(to, &o.ask))
        return IL_ERR_RECEIVER_LACKS_CARDS;
    il_bundle_sub(from, &o.give);
    il_bundle_add(to, &o.give);
    il_bundle_sub(to, &o.ask);
    il_bundle_add(from, &o.ask);
    if (g->ntrades < IL_MAX_TRADES) {
        struct il_trade *t = &g->trades[g->ntrades];
        t->from = o.from;
        t->to = o.to;
        t->session = g->session;
        for (unsigned r = 0; r < IL_RESOURCES; r++) {
            t->give[r] = o.give.n[IL_CARD(IL_KIND_RESOURCE, r)];
            t->ask[r] = o.ask.n[IL_CARD(IL_KIND_RESOURCE, r)];
        }
    }
    if (g->ntrades < UINT16_MAX)
        g->ntrades++;
    il_offer_remove(g, (unsigned)i);
    il_emit_offer(c, IL_EV_OFFER_ACCEPTED, &o);
    il_emit_hand(c, o.to);
    il_emit_hand(c, o.from);
    return IL_OK;
}

enum il_error il_act_trade(struct il_ctx *c, const struct il_action *a)
{
    struct il_game *g = c->g;
    if (!il_is_active_seat(g, a->player))
        return IL_ERR_NOT_A_PLAYER;
    if (g->paused)
        return IL_ERR_PAUSED;
    if (g->phase != IL_PHASE_DEALING)
        return IL_ERR_WRONG_PHASE;
    return a->type == IL_ACT_OFFER ? offer(c, a) : answer(c, a);
}
