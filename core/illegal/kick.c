/*
 * kick.c - the Game Master removes a player who cannot go on.
 */
#include <string.h>

#include "internal.h"

/* True when a case accuses seat s: a suspect card names one of their roles. */
static bool case_concerns(const struct il_case *k, const struct il_player *p)
{
    for (unsigned i = 0; i < k->ncards; i++) {
        unsigned t = k->cards[i];
        if (t == IL_CARD(IL_KIND_DEALER_SUSPECT, p->dealer) ||
            t == IL_CARD(IL_KIND_BUYER_SUSPECT, p->buyer))
            return true;
    }
    return false;
}

/* Drops the cases not yet judged that accuse p; their cards go to the
 * discard. Returns true when the case under judgement was one of them. */
static bool drop_cases(struct il_game *g, const struct il_player *p)
{
    bool judging = g->phase == IL_PHASE_DEBATE || g->phase == IL_PHASE_VOTE;
    bool current = judging && case_concerns(&g->cases[g->case_index], p);
    unsigned j = g->case_index;
    for (unsigned i = g->case_index; i < g->ncases; i++) {
        const struct il_case *k = &g->cases[i];
        if (case_concerns(k, p)) {
            for (unsigned n = 0; n < k->ncards; n++)
                g->discard.n[k->cards[n]]++;
        } else {
            g->cases[j++] = *k;
        }
    }
    memset(&g->cases[j], 0, (g->ncases - j) * sizeof g->cases[0]);
    g->ncases = (uint8_t)j;
    return current;
}

enum il_error il_act_kick(struct il_ctx *c, const struct il_action *a)
{
    struct il_game *g = c->g;
    if (a->player != IL_GM)
        return IL_ERR_NOT_GM;
    if (!il_is_active_seat(g, a->target))
        return IL_ERR_NOT_A_PLAYER;
    unsigned seat = (unsigned)a->target;
    struct il_player *p = &g->players[seat];

    for (unsigned i = 0; i < g->noffers;) {
        struct il_offer o = g->offers[i];
        if (o.from != seat && o.to != seat) {
            i++;
            continue;
        }
        il_offer_remove(g, i);
        il_emit_offer(c, IL_EV_OFFER_CANCELLED, &o);
    }
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (g->players[s].vote != (int8_t)seat)
            continue;
        g->players[s].vote = IL_NOBODY;
        struct il_event *e = il_emit(c, IL_EV_VOTE_RECORDED, (int)s);
        e->player = (int8_t)s;
        e->target = IL_NOBODY;
    }

    il_bundle_add(&g->discard, &p->hand);
    memset(&p->hand, 0, sizeof p->hand);
    p->active = false;
    p->grabbed = false;
    p->vote = IL_NOBODY;
    bool current = drop_cases(g, p);

    struct il_event *e = il_emit(c, IL_EV_PLAYER_REMOVED, IL_PUBLIC);
    e->player = (int8_t)seat;

    if (il_active_count(g) < 3) {
        il_finish(c);
    } else if (current) {
        il_clear_votes(g);
        il_open_case(c);
    } else {
        il_end_drop_if_complete(c);
    }
    return IL_OK;
}
