/*
 * helpers.c - see helpers.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "helpers.h"

static bool seen[PD_ERR_COUNT];

void t_saw(enum pd_error e)
{
    if ((unsigned)e < PD_ERR_COUNT)
        seen[e] = true;
}

bool t_all_errors_seen(const char **missing)
{
    for (unsigned e = 1; e < PD_ERR_COUNT; e++)
        if (!seen[e]) {
            *missing = pd_error_id((enum pd_error)e);
            return false;
        }
    return true;
}

void t_check(const struct t *t)
{
    char why[200];
    if (!pd_game_check(&t->g, why, sizeof why))
        fail_msg("invariant: %s", why);
}

unsigned t_card(const char *name)
{
    int c = pd_card_from_id(name);
    if (c < 0 || c >= PD_CARDS) {
        fail_msg("no card %s", name);
        return 0; /* not reached; tells the optimiser the range */
    }
    return (unsigned)c;
}

/* Takes one card of type c out of the pile, or else the discard. */
static void take(struct t *t, unsigned c)
{
    struct pd_game *g = &t->g;
    for (unsigned i = 0; i < g->npile; i++)
        if (g->pile[i] == c) {
            memmove(&g->pile[i], &g->pile[i + 1], g->npile - i - 1);
            g->pile[--g->npile] = 0;
            return;
        }
    if (g->discard.n[c]) {
        g->discard.n[c]--;
        return;
    }
    fail_msg("no %s left in the pile or the discard", pd_card_id(c));
}

/* Cards set aside go to the discard: the pile only ever shrinks. */
static void put_back(struct t *t, unsigned c)
{
    t->g.discard.n[c]++;
}

static void set_bundle(struct t *t, struct pd_bundle *b, const char *spec)
{
    for (unsigned c = 0; c < PD_CARDS; c++)
        while (b->n[c]) {
            b->n[c]--;
            put_back(t, c);
        }
    char words[512];
    snprintf(words, sizeof words, "%s", spec);
    for (char *save = NULL, *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        unsigned c = t_card(w);
        take(t, c);
        b->n[c]++;
    }
}

void t_hand(struct t *t, unsigned seat, const char *spec)
{
    set_bundle(t, &t->g.players[seat].hand, spec);
    t_check(t);
}

void t_business(struct t *t, unsigned seat, const char *spec)
{
    set_bundle(t, &t->g.players[seat].business, spec);
    t_check(t);
}

void t_burden(struct t *t, unsigned seat, const char *card)
{
    struct pd_player *p = &t->g.players[seat];
    if (p->burden != PD_NONE)
        put_back(t, p->burden);
    p->burden = PD_NONE;
    if (card) {
        p->burden = (uint8_t)t_card(card);
        take(t, p->burden);
    }
    t_check(t);
}

void t_turn(struct t *t, unsigned seat)
{
    struct pd_game *g = &t->g;
    g->current = (uint8_t)seat;
    g->phase = PD_PHASE_TURN;
    g->deadline = t->now + g->config.timer_ms[PD_TIMER_TURN];
    g->remind_at = g->deadline - g->config.reminder_ms;
    t_check(t);
}

void t_pile(struct t *t, unsigned keep)
{
    struct pd_game *g = &t->g;
    while (g->npile > keep) {
        g->discard.n[g->pile[0]]++;
        memmove(&g->pile[0], &g->pile[1], g->npile - 1);
        g->pile[--g->npile] = 0;
    }
    t_check(t);
}

void t_start(struct t *t, unsigned players, uint64_t seed)
{
    memset(t, 0, sizeof *t);
    struct pd_config c;
    pd_config_default(&c);
    t->now = 1000000;
    rng_seed(&t->rng, seed);
    assert_int_equal(pd_game_setup(&t->g, &c, players, NULL, t->now, &t->rng, &t->ev), PD_OK);
    t_check(t);
    t_turn(t, 0);
}

enum pd_error t_act(struct t *t, const struct pd_action *a)
{
    t->ev.n = 0;
    enum pd_error e = pd_game_apply(&t->g, a, t->now, &t->rng, &t->ev);
    t_saw(e);
    t_check(t);
    return e;
}

static uint8_t card_or_none(const char *name)
{
    return name ? (uint8_t)t_card(name) : PD_NONE;
}

enum pd_error t_play(struct t *t, int seat, const char *card, int target, const char *deal,
                     const char *extra)
{
    struct pd_action a;
    pd_action_init(&a, PD_ACT_PLAY, seat);
    a.card = card_or_none(card);
    a.target = (int8_t)target;
    a.deal = card_or_none(deal);
    a.extra = card_or_none(extra);
    return t_act(t, &a);
}

enum pd_error t_do(struct t *t, enum pd_action_type type, int seat, int target, const char *card)
{
    struct pd_action a;
    pd_action_init(&a, type, seat);
    a.target = (int8_t)target;
    a.card = card_or_none(card);
    return t_act(t, &a);
}

enum pd_error t_tick(struct t *t, int64_t at)
{
    struct pd_action a;
    pd_action_init(&a, PD_ACT_TICK, 0);
    t->now = at;
    return t_act(t, &a);
}

const struct pd_event *t_event(const struct t *t, enum pd_event_type type)
{
    for (unsigned i = 0; i < t->ev.n; i++)
        if (t->ev.v[i].type == type)
            return &t->ev.v[i];
    return NULL;
}

unsigned t_count(const struct t *t, enum pd_event_type type)
{
    unsigned n = 0;
    for (unsigned i = 0; i < t->ev.n; i++)
        n += t->ev.v[i].type == type;
    return n;
}
