/*
 * setup.c - a new game: the series it continues, the deal, the first turn.
 */
#include <string.h>

#include "internal.h"

/* Totals a series may reach: far beyond any goal, far within int64_t. */
#define SERIES_TOTAL_LIMIT (INT64_C(1) << 40)
#define SERIES_GAMES_LIMIT 60000

bool pd_series_ok(const struct pd_series *s)
{
    if (s->games > SERIES_GAMES_LIMIT || s->nplayers > PD_MAX_PLAYERS)
        return false;
    if (s->dealer < PD_NOBODY || s->dealer >= (int)s->nplayers)
        return false;
    for (unsigned i = 0; i < PD_MAX_PLAYERS; i++)
        if (s->totals[i] < -SERIES_TOTAL_LIMIT || s->totals[i] > SERIES_TOTAL_LIMIT ||
            (i >= s->nplayers && s->totals[i] != 0))
            return false;
    return (s->games == 0) == (s->dealer == PD_NOBODY);
}

/* Whether `series` goes on in a game of nplayers with goal target. */
static bool continues(const struct pd_series *series, unsigned nplayers, int32_t target)
{
    return series && series->games > 0 && series->nplayers == nplayers &&
           pd_series_winners(series, target) == 0;
}

static enum pd_error check_config(const struct pd_config *config, unsigned nplayers,
                                  const struct pd_series *series)
{
    if (nplayers < PD_MIN_PLAYERS || nplayers > PD_MAX_PLAYERS)
        return PD_ERR_BAD_PLAYER_COUNT;
    for (unsigned t = 0; t < PD_TIMERS; t++)
        if (!pd_timer_ok(config->timer_ms[t]))
            return PD_ERR_BAD_TIMER;
    if (!pd_reminder_ok(config->reminder_ms))
        return PD_ERR_BAD_TIMER;
    if (!pd_series_target_ok(config->series_target) ||
        (series && series->games && !pd_series_ok(series)))
        return PD_ERR_BAD_SETTING;
    return PD_OK;
}

static void box(uint8_t deck[PD_DECK_SIZE])
{
    unsigned k = 0;
    for (unsigned t = 0; t < PD_CARDS; t++)
        for (unsigned i = 0; i < pd_card_count(t); i++)
            deck[k++] = (uint8_t)t;
}

static bool is_box(const uint8_t deck[PD_DECK_SIZE])
{
    unsigned n[PD_CARDS] = {0};
    for (unsigned k = 0; k < PD_DECK_SIZE; k++) {
        if (deck[k] >= PD_CARDS)
            return false;
        n[deck[k]]++;
    }
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (n[t] != pd_card_count(t))
            return false;
    return true;
}

/* The series this game belongs to, and its dealer: the next seat after the
 * last game's, or one drawn for a new series. */
static void start_series(struct pd_ctx *c, const struct pd_series *series)
{
    struct pd_game *g = c->g;
    if (continues(series, g->nplayers, g->config.series_target)) {
        /* Field by field: the caller's padding stays out of the game's bytes. */
        g->series.games = series->games;
        g->series.nplayers = series->nplayers;
        g->series.dealer = series->dealer;
        memcpy(g->series.totals, series->totals, sizeof g->series.totals);
        g->dealer = (uint8_t)((series->dealer + 1) % g->nplayers);
    } else {
        memset(&g->series, 0, sizeof g->series);
        g->series.nplayers = g->nplayers;
        g->series.dealer = PD_NOBODY;
        g->dealer = (uint8_t)rng_below(c->rng, g->nplayers);
    }
}

/* One card at a time, from the dealer's left; the rest is the pile. */
static void deal(struct pd_ctx *c, const uint8_t deck[PD_DECK_SIZE])
{
    struct pd_game *g = c->g;
    unsigned k = 0;
    for (unsigned round = 0; round < PD_HAND_SIZE; round++)
        for (unsigned i = 1; i <= g->nplayers; i++)
            g->players[(g->dealer + i) % g->nplayers].hand.n[deck[k++]]++;
    g->npile = (uint8_t)(PD_DECK_SIZE - k);
    memcpy(g->pile, deck + k, g->npile);
}

static void start(struct pd_ctx *c, const uint8_t deck[PD_DECK_SIZE])
{
    struct pd_game *g = c->g;
    deal(c, deck);
    struct pd_event *e = pd_emit(c, PD_EV_GAME_STARTED, PD_TABLE);
    e->player = (int8_t)g->dealer;
    e->target = (int8_t)pd_left_of(g, g->dealer);
    e->number = g->nplayers;
    e->count = g->npile;
    e->game = (uint16_t)(g->series.games + 1);
    e->amount = g->config.series_target;
    for (unsigned s = 0; s < g->nplayers; s++) {
        e = pd_emit(c, PD_EV_DEALT, (int)s);
        e->player = (int8_t)s;
        e->cards = g->players[s].hand;
    }
    g->current = g->dealer;
    pd_next_turn(c);
}

static enum pd_error setup(struct pd_game *g, const struct pd_config *config, unsigned nplayers,
                           const struct pd_series *series, int dealer, const uint8_t *deck,
                           int64_t now, struct rng *rng, struct pd_events *ev)
{
    enum pd_error err = check_config(config, nplayers, series);
    if (err)
        return err;
    if (now < -PD_NOW_LIMIT || now > PD_NOW_LIMIT || (deck && !is_box(deck)) ||
        dealer < PD_NOBODY || dealer >= (int)nplayers)
        return PD_ERR_BAD_ACTION;

    struct pd_game w;
    struct rng r = *rng;
    struct pd_events out;
    memset(&w, 0, sizeof w);
    out.n = 0;
    memcpy(w.config.timer_ms, config->timer_ms, sizeof w.config.timer_ms);
    w.config.reminder_ms = config->reminder_ms;
    w.config.series_target = config->series_target;
    w.nplayers = (uint8_t)nplayers;
    w.next_offer_id = 1;
    w.phase = PD_PHASE_TURN;
    for (unsigned s = 0; s < nplayers; s++) {
        w.players[s].active = true;
        w.players[s].burden = PD_NONE;
        w.players[s].pass = PD_NONE;
    }
    w.takeover_card = w.takeover_deal = PD_NONE;
    w.takeover_victim = PD_NONE;
    struct pd_ctx c = {.g = &w, .now = now, .rng = &r, .ev = &out};
    start_series(&c, series);
    if (dealer != PD_NOBODY)
        w.dealer = (uint8_t)dealer;

    uint8_t shuffled[PD_DECK_SIZE];
    if (!deck) {
        box(shuffled);
        rng_shuffle_bytes(&r, shuffled, PD_DECK_SIZE);
        deck = shuffled;
    }
    start(&c, deck);
    if (c.overflow || ev->n + out.n > PD_MAX_EVENTS)
        return PD_ERR_BAD_ACTION;
    memcpy(&ev->v[ev->n], out.v, out.n * sizeof out.v[0]);
    ev->n += out.n;
    memcpy(g, &w, sizeof w);
    *rng = r;
    return PD_OK;
}

enum pd_error pd_game_setup(struct pd_game *g, const struct pd_config *config, unsigned nplayers,
                            const struct pd_series *series, int64_t now, struct rng *rng,
                            struct pd_events *ev)
{
    return setup(g, config, nplayers, series, PD_NOBODY, NULL, now, rng, ev);
}

enum pd_error pd_game_setup_deck(struct pd_game *g, const struct pd_config *config,
                                 unsigned nplayers, const struct pd_series *series, int dealer,
                                 const uint8_t deck[PD_DECK_SIZE], int64_t now, struct rng *rng,
                                 struct pd_events *ev)
{
    return setup(g, config, nplayers, series, dealer, deck, now, rng, ev);
}
