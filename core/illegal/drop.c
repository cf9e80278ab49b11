/*
 * drop.c - the resource drops between dealing sessions: revealed one card at a
 * time and grabbed (standard, advanced), or drawn in private (casual).
 */
#include <string.h>

#include "internal.h"

/* The next drop deck, shuffled: one card of every resource in play. */
static unsigned shuffled_deck(struct il_ctx *c, uint8_t *deck)
{
    unsigned n = 0;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (c->g->in_play & (1u << r))
            deck[n++] = (uint8_t)r;
    rng_shuffle_bytes(c->rng, deck, n);
    return n;
}

static void give_card(struct il_ctx *c, unsigned seat, unsigned res)
{
    c->g->players[seat].hand.n[IL_CARD(IL_KIND_RESOURCE, res)]++;
}

static void drop_done(struct il_ctx *c)
{
    struct il_event *e = il_emit(c, IL_EV_DROP_DONE, IL_PUBLIC);
    e->number = c->g->drops;
    il_open_session(c);
}

void il_clear_drop(struct il_game *g)
{
    for (unsigned i = 0; i < g->drop_count; i++)
        if (!g->drop_taken[i])
            g->discard.n[IL_CARD(IL_KIND_RESOURCE, g->drop_cards[i])]++;
    memset(g->drop_cards, 0, sizeof g->drop_cards);
    memset(g->drop_taken, 0, sizeof g->drop_taken);
    g->drop_count = 0;
    g->drop_shown = 0;
    for (unsigned s = 0; s < g->nplayers; s++)
        g->players[s].grabbed = false;
}

/* Casual: each active player draws one card in private; the rest is set aside. */
static void casual_drop(struct il_ctx *c)
{
    struct il_game *g = c->g;
    uint8_t deck[IL_RESOURCES];
    unsigned n = shuffled_deck(c, deck), next = 0;
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (!g->players[s].active)
            continue;
        give_card(c, s, deck[next]);
        struct il_event *e = il_emit(c, IL_EV_DREW, (int)s);
        e->player = (int8_t)s;
        e->resource = deck[next++];
        il_emit_hand(c, s);
    }
    for (; next < n; next++)
        g->discard.n[IL_CARD(IL_KIND_RESOURCE, deck[next])]++;
    drop_done(c);
}

void il_start_drop(struct il_ctx *c)
{
    struct il_game *g = c->g;
    g->drops++;
    struct il_event *e = il_emit(c, IL_EV_DROP_STARTED, IL_PUBLIC);
    e->number = g->drops;
    il_bundle_of_mask(&e->cards, g->in_play);
    if (il_variant_casual(g->config.variant)) {
        casual_drop(c);
        return;
    }
    g->drop_count = (uint8_t)shuffled_deck(c, g->drop_cards);
    g->drop_shown = 0;
    g->phase = IL_PHASE_DROP_REVEAL;
    il_reveal_next(c);
}

void il_reveal_next(struct il_ctx *c)
{
    struct il_game *g = c->g;
    struct il_event *e = il_emit(c, IL_EV_DROP_REVEALED, IL_PUBLIC);
    e->number = g->drop_shown;
    e->resource = g->drop_cards[g->drop_shown];
    g->drop_shown++;
    if (g->drop_shown < g->drop_count) {
        e->deadline = il_start_timer(c, IL_TIMER_REVEAL);
        return;
    }
    g->phase = IL_PHASE_DROP_GRAB;
    e = il_emit(c, IL_EV_GRAB_OPENED, IL_PUBLIC);
    e->number = g->drops;
    e->deadline = il_start_timer(c, IL_TIMER_GRAB);
}

void il_end_drop(struct il_ctx *c)
{
    struct il_game *g = c->g;
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (!g->players[s].active || g->players[s].grabbed)
            continue;
        uint8_t left[IL_RESOURCES];
        unsigned n = 0;
        for (unsigned i = 0; i < g->drop_count; i++)
            if (!g->drop_taken[i])
                left[n++] = (uint8_t)i;
        /* One card per player was revealed, so someone empty-handed always
         * finds one left. */
        unsigned pick = left[rng_below(c->rng, n)];
        g->drop_taken[pick] = true;
        g->players[s].grabbed = true;
        give_card(c, s, g->drop_cards[pick]);
        struct il_event *e = il_emit(c, IL_EV_LEFTOVER, IL_PUBLIC);
        e->player = (int8_t)s;
        e->resource = g->drop_cards[pick];
        il_emit_hand(c, s);
    }
    il_clear_drop(g);
    drop_done(c);
}

void il_end_drop_if_complete(struct il_ctx *c)
{
    const struct il_game *g = c->g;
    if (g->phase != IL_PHASE_DROP_GRAB)
        return;
    unsigned waiting = 0, left = 0;
    for (unsigned s = 0; s < g->nplayers; s++)
        waiting += g->players[s].active && !g->players[s].grabbed;
    for (unsigned i = 0; i < g->drop_count; i++)
        left += !g->drop_taken[i];
    /* One player waiting for the one card left has nothing to choose: the
     * leftover rule would give it to them anyway, so nobody waits for it. */
    if (waiting == 0 || (waiting == 1 && left == 1))
        il_end_drop(c);
}

enum il_error il_act_grab(struct il_ctx *c, const struct il_action *a)
{
    struct il_game *g = c->g;
    if (a->resource >= IL_RESOURCES)
        return IL_ERR_BAD_ACTION;
    if (!il_is_active_seat(g, a->player))
        return IL_ERR_NOT_A_PLAYER;
    if (g->paused)
        return IL_ERR_PAUSED;
    if (g->phase == IL_PHASE_DROP_REVEAL)
        return IL_ERR_GRAB_NOT_OPEN;
    if (g->phase != IL_PHASE_DROP_GRAB)
        return IL_ERR_WRONG_PHASE;
    if (!(g->in_play & (1u << a->resource)))
        return IL_ERR_NOT_IN_PLAY;
    struct il_player *p = &g->players[a->player];
    if (p->grabbed)
        return IL_ERR_ALREADY_GRABBED;
    int at = -1;
    for (unsigned i = 0; i < g->drop_count; i++)
        if (g->drop_cards[i] == a->resource && !g->drop_taken[i])
            at = (int)i;
    if (at < 0)
        return IL_ERR_CARD_GONE;

    g->drop_taken[at] = true;
    p->grabbed = true;
    give_card(c, (unsigned)a->player, a->resource);
    struct il_event *e = il_emit(c, IL_EV_GRABBED, IL_PUBLIC);
    e->player = a->player;
    e->resource = a->resource;
    il_emit_hand(c, (unsigned)a->player);
    il_end_drop_if_complete(c);
    return IL_OK;
}
