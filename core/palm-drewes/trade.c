/*
 * trade.c - trades: in their turn the current player offers cards to anyone,
 * who accepts or declines. The offer gives at least one card and may ask for
 * none; a blind offer shows the receiver how many cards, not which. Offers
 * reserve nothing and close when the move is made.
 */
#include <string.h>

#include "internal.h"

void pd_offer_event(struct pd_event *e, const struct pd_game *g, enum pd_event_type type,
                    const struct pd_offer *o, unsigned seat)
{
    pd_event_blank(e, type, (int)seat);
    e->offer_id = o->id;
    e->player = (int8_t)g->current;
    e->target = (int8_t)o->to;
    e->blind = o->blind;
    e->number = (uint8_t)pd_bundle_total(&o->give);
    e->cards2 = o->ask;
    if (seat != o->to || !o->blind || type == PD_EV_OFFER_ACCEPTED)
        e->cards = o->give;
}

/* Emits `type` for offer o to both sides: the receiver first (who, for a
 * blind offer still open, sees only the number of cards), then the offerer. */
static void emit_offer(struct pd_ctx *c, enum pd_event_type type, const struct pd_offer *o)
{
    pd_offer_event(pd_emit(c, type, o->to), c->g, type, o, o->to);
    pd_offer_event(pd_emit(c, type, c->g->current), c->g, type, o, c->g->current);
}

static void remove_offer(struct pd_game *g, unsigned i)
{
    memmove(&g->offers[i], &g->offers[i + 1], (g->noffers - i - 1) * sizeof g->offers[0]);
    g->noffers--;
    memset(&g->offers[g->noffers], 0, sizeof g->offers[0]);
}

void pd_close_offers(struct pd_ctx *c, enum pd_event_type type, int only_with)
{
    struct pd_game *g = c->g;
    for (unsigned i = 0; i < g->noffers;) {
        const struct pd_offer *o = &g->offers[i];
        if (only_with != PD_NOBODY && only_with != o->to && only_with != g->current) {
            i++;
            continue;
        }
        emit_offer(c, type, o);
        remove_offer(g, i);
    }
}

static int find_offer(const struct pd_game *g, uint32_t id)
{
    for (unsigned i = 0; i < g->noffers; i++)
        if (g->offers[i].id == id)
            return (int)i;
    return -1;
}

static bool within_box(const struct pd_bundle *b)
{
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (b->n[t] > pd_card_count(t))
            return false;
    return true;
}

static enum pd_error offer(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (a->player != g->current)
        return PD_ERR_NOT_YOUR_TURN;
    if (a->target == a->player)
        return PD_ERR_SELF_TARGET;
    if (!pd_is_active(g, a->target))
        return PD_ERR_NOT_A_PLAYER;
    if (!within_box(&a->give) || !within_box(&a->ask))
        return PD_ERR_BAD_ACTION;
    unsigned give = pd_bundle_total(&a->give);
    const struct pd_bundle *hand = &g->players[g->current].hand;
    if (give == 0)
        return PD_ERR_GIVE_NOTHING;
    if (!pd_bundle_contains(hand, &a->give))
        return PD_ERR_NOT_HELD;
    if (give == pd_bundle_total(hand) && pd_bundle_total(&a->ask) == 0)
        return PD_ERR_EMPTIES_HAND;
    if (g->noffers >= PD_MAX_OFFERS)
        return PD_ERR_TOO_MANY_OFFERS;
    struct pd_offer *o = &g->offers[g->noffers++];
    memset(o, 0, sizeof *o);
    o->id = g->next_offer_id++;
    o->to = (uint8_t)a->target;
    o->blind = a->blind;
    o->give = a->give;
    o->ask = a->ask;
    emit_offer(c, PD_EV_OFFER_MADE, o);
    return PD_OK;
}

static enum pd_error accept(struct pd_ctx *c, const struct pd_offer *o)
{
    struct pd_game *g = c->g;
    struct pd_player *from = &g->players[g->current], *to = &g->players[o->to];
    if (!pd_bundle_contains(&from->hand, &o->give))
        return PD_ERR_OFFERER_LACKS_CARDS;
    if (!pd_bundle_contains(&to->hand, &o->ask))
        return PD_ERR_RECEIVER_LACKS_CARDS;
    if (pd_bundle_total(&from->hand) - pd_bundle_total(&o->give) + pd_bundle_total(&o->ask) == 0)
        return PD_ERR_EMPTIES_HAND;
    pd_bundle_sub(&from->hand, &o->give);
    pd_bundle_add(&to->hand, &o->give);
    pd_bundle_sub(&to->hand, &o->ask);
    pd_bundle_add(&from->hand, &o->ask);
    emit_offer(c, PD_EV_OFFER_ACCEPTED, o);
    struct pd_event *e = pd_emit(c, PD_EV_TRADED, PD_TABLE);
    e->player = (int8_t)g->current;
    e->target = (int8_t)o->to;
    e->number = (uint8_t)pd_bundle_total(&o->give);
    e->count = (uint8_t)pd_bundle_total(&o->ask);
    pd_emit_hand(c, o->to);
    pd_emit_hand(c, g->current);
    return PD_OK;
}

enum pd_error pd_act_trade(struct pd_ctx *c, const struct pd_action *a)
{
    struct pd_game *g = c->g;
    if (g->phase != PD_PHASE_TURN)
        return PD_ERR_WRONG_PHASE;
    if (a->type == PD_ACT_OFFER)
        return offer(c, a);
    int i = find_offer(g, a->offer_id);
    if (i < 0)
        return PD_ERR_NO_SUCH_OFFER;
    const struct pd_offer *o = &g->offers[i];
    if (a->type == PD_ACT_CANCEL) {
        if (a->player != g->current)
            return PD_ERR_NOT_OFFERER;
        emit_offer(c, PD_EV_OFFER_CANCELLED, o);
    } else {
        if (a->player != o->to)
            return PD_ERR_NOT_RECEIVER;
        enum pd_error err = a->type == PD_ACT_ACCEPT ? accept(c, o) : PD_OK;
        if (err)
            return err;
        if (a->type == PD_ACT_DECLINE)
            emit_offer(c, PD_EV_OFFER_DECLINED, o);
    }
    remove_offer(g, (unsigned)i);
    return PD_OK;
}
