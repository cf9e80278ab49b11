/*
 * setup.c - choosing resources, building the player decks and the suspect cases.
 */
#include <string.h>

#include "internal.h"

/* A random permutation p of 0..n-1 with p[i] != i and p[p[i]] != i: no deck
 * pairs a dealer with its own buyer, and no two decks mirror each other. */
static void draw_sigma(struct rng *rng, uint8_t *p, unsigned n)
{
    for (;;) {
        for (unsigned i = 0; i < n; i++)
            p[i] = (uint8_t)i;
        rng_shuffle_bytes(rng, p, n);
        bool ok = true;
        for (unsigned i = 0; i < n && ok; i++)
            ok = p[i] != i && p[p[i]] != i;
        if (ok)
            return;
    }
}

/* A random permutation e of 0..n-1 avoiding both the identity and sigma: the
 * extra card differs from the deck's dealer and buyer, and each resource is
 * someone's extra exactly once. */
static void draw_extra(struct rng *rng, uint8_t *e, const uint8_t *sigma, unsigned n)
{
    for (;;) {
        for (unsigned i = 0; i < n; i++)
            e[i] = (uint8_t)i;
        rng_shuffle_bytes(rng, e, n);
        bool ok = true;
        for (unsigned i = 0; i < n && ok; i++)
            ok = e[i] != i && e[i] != sigma[i];
        if (ok)
            return;
    }
}

static enum il_error check_config(const struct il_config *config, unsigned nplayers)
{
    if (nplayers < IL_MIN_PLAYERS || nplayers > IL_MAX_PLAYERS)
        return IL_ERR_BAD_PLAYER_COUNT;
    if ((unsigned)config->variant >= IL_VARIANTS)
        return IL_ERR_BAD_ACTION;
    if (config->tribunal >> IL_TRIBUNAL_OPTIONS)
        return IL_ERR_BAD_ACTION;
    if (config->resources && il_popcount8(config->resources) != nplayers)
        return IL_ERR_BAD_RESOURCES;
    for (unsigned t = 0; t < IL_TIMERS; t++)
        if (!il_timer_ok(config->timer_ms[t]))
            return IL_ERR_BAD_TIMER;
    return IL_OK;
}

/* The resources in play: the configured ones, or nplayers of the eight at
 * random. Fills res with them in id order and returns how many. */
static unsigned choose_resources(struct il_game *w, const struct il_config *config,
                                 unsigned nplayers, struct rng *r, uint8_t *res)
{
    if (config->resources) {
        w->in_play = config->resources;
    } else {
        uint8_t all[IL_RESOURCES];
        for (unsigned i = 0; i < IL_RESOURCES; i++)
            all[i] = (uint8_t)i;
        rng_shuffle_bytes(r, all, IL_RESOURCES);
        for (unsigned i = 0; i < nplayers; i++)
            w->in_play |= (uint8_t)(1u << all[i]);
    }
    unsigned n = 0;
    for (unsigned i = 0; i < IL_RESOURCES; i++)
        if (w->in_play & (1u << i))
            res[n++] = (uint8_t)i;
    return n;
}

/* Deck i deals res[i], buys res[sigma[i]] and holds res[extra[i]] as extra;
 * the decks go to the seats in a random order. */
static void deal_decks(struct il_game *w, const uint8_t *res, const uint8_t *sigma, unsigned n,
                       struct rng *r)
{
    uint8_t extra[IL_RESOURCES], order[IL_RESOURCES];
    draw_extra(r, extra, sigma, n);
    for (unsigned i = 0; i < n; i++)
        order[i] = (uint8_t)i;
    rng_shuffle_bytes(r, order, n);
    for (unsigned s = 0; s < n; s++) {
        struct il_player *p = &w->players[s];
        unsigned d = order[s];
        p->active = true;
        p->dealer = res[d];
        p->buyer = res[sigma[d]];
        p->extra = res[extra[d]];
        p->hand.n[IL_CARD(IL_KIND_RESOURCE, p->dealer)] = IL_DEALER_START;
        p->hand.n[IL_CARD(IL_KIND_RESOURCE, p->extra)] += 1;
        p->hand.n[IL_CARD(IL_KIND_DEALER, p->dealer)] = 1;
        p->hand.n[IL_CARD(IL_KIND_BUYER, p->buyer)] = 1;
        memset(p->votes, IL_NOBODY, sizeof p->votes);
    }
}

/* The suspect cases: one card each in the singles variant, shuffled; else a
 * deck's dealer and buyer suspects together, the decks in a random order. */
static void build_cases(struct il_game *w, enum il_variant variant, const uint8_t *res,
                        const uint8_t *sigma, unsigned n, struct rng *r)
{
    if (il_variant_singles(variant)) {
        uint8_t singles[2 * IL_RESOURCES];
        for (unsigned i = 0; i < n; i++) {
            singles[2 * i] = IL_CARD(IL_KIND_DEALER_SUSPECT, res[i]);
            singles[2 * i + 1] = IL_CARD(IL_KIND_BUYER_SUSPECT, res[sigma[i]]);
        }
        rng_shuffle_bytes(r, singles, 2 * n);
        for (unsigned i = 0; i < 2 * n; i++) {
            w->cases[i].ncards = 1;
            w->cases[i].cards[0] = singles[i];
        }
        w->ncases = (uint8_t)(2 * n);
        return;
    }
    uint8_t decks[IL_RESOURCES];
    for (unsigned i = 0; i < n; i++)
        decks[i] = (uint8_t)i;
    rng_shuffle_bytes(r, decks, n);
    for (unsigned i = 0; i < n; i++) {
        w->cases[i].ncards = 2;
        w->cases[i].cards[0] = IL_CARD(IL_KIND_DEALER_SUSPECT, res[decks[i]]);
        w->cases[i].cards[1] = IL_CARD(IL_KIND_BUYER_SUSPECT, res[sigma[decks[i]]]);
    }
    w->ncases = (uint8_t)n;
}

/* The start's events: the resources in play, each seat's hand, the session. */
static void announce_start(struct il_ctx *c, unsigned n)
{
    struct il_event *e = il_emit(c, IL_EV_GAME_STARTED, IL_PUBLIC);
    e->number = (uint8_t)n;
    il_bundle_of_mask(&e->cards, c->g->in_play);
    for (unsigned s = 0; s < n; s++) {
        e = il_emit(c, IL_EV_DEALT, (int)s);
        e->player = (int8_t)s;
        e->cards = c->g->players[s].hand;
    }
    il_open_session(c);
}

enum il_error il_game_setup(struct il_game *g, const struct il_config *config, unsigned nplayers,
                            int64_t now, struct rng *rng, struct il_events *ev)
{
    enum il_error err = check_config(config, nplayers);
    if (err)
        return err;
    if (now < -IL_NOW_LIMIT || now > IL_NOW_LIMIT)
        return IL_ERR_BAD_ACTION;

    /* Built in a zeroed copy, padding included, so stored games compare equal
     * byte for byte; g, rng and ev change only on success. */
    struct il_game w;
    struct rng r = *rng;
    struct il_events out;
    memset(&w, 0, sizeof w);
    out.n = 0;
    struct il_ctx c = {.g = &w, .now = now, .rng = &r, .ev = &out};

    w.config.variant = config->variant;
    w.config.resources = config->resources;
    w.config.tribunal = config->tribunal;
    for (unsigned t = 0; t < IL_TIMERS; t++)
        w.config.timer_ms[t] = config->timer_ms[t];
    w.nplayers = (uint8_t)nplayers;

    uint8_t res[IL_RESOURCES], sigma[IL_RESOURCES];
    unsigned n = choose_resources(&w, config, nplayers, &r, res);
    draw_sigma(&r, sigma, n);
    deal_decks(&w, res, sigma, n, &r);
    build_cases(&w, config->variant, res, sigma, n, &r);
    w.next_offer_id = 1;
    w.session = 0;
    announce_start(&c, n);

    if (ev->n + out.n > IL_MAX_EVENTS)
        return IL_ERR_BAD_ACTION;
    memcpy(&ev->v[ev->n], out.v, out.n * sizeof out.v[0]);
    ev->n += out.n;
    memcpy(g, &w, sizeof w);
    *rng = r;
    return IL_OK;
}
