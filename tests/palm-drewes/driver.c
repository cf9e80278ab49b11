/*
 * driver.c - the random player behind palm-drewes-sim and the property tests.
 *
 * It plays what a table might try: mostly moves that make sense in the phase
 * (a card from the hand with a plausible target and deal, a discard, an
 * offer, an answer, a Magnum, a pass, a loss), a few that the rules must
 * refuse (another player's move, a card not held, garbage), the host now and
 * then, and time running out. After every step it checks the invariants, that
 * a refusal changed nothing, and the events' audiences; with roundtrip it
 * also goes on from the game's JSON text read back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "driver.h"
#include "sim_common.h"

/* A game that has not ended after this many actions is stuck. */
#define SIM_MAX_ACTIONS 100000

struct sim {
    const struct pd_sim_opts *o;
    struct pd_game g;
    struct rng game_rng; /* the engine's */
    struct rng pick;     /* the driver's own choices */
    struct pd_events ev;
    int64_t now;
    struct pd_sim_stats *st;
    uint64_t violations, seed;
};

/* The seats still playing, a bit each. */
static uint32_t active_seats(const struct sim *s)
{
    uint32_t active = 0;
    for (unsigned i = 0; i < s->g.nplayers; i++)
        active |= (uint32_t)s->g.players[i].active << i;
    return active;
}

static bool chance(struct sim *s, unsigned per_mille)
{
    return sim_chance(&s->pick, per_mille);
}

static void violation(struct sim *s, const char *what, const char *why)
{
    sim_violation(&s->violations, s->seed, what, why);
}

static int random_active(struct sim *s)
{
    return sim_random_seat(&s->pick, s->g.nplayers, active_seats(s));
}

static int random_other(struct sim *s, int not_this)
{
    return sim_random_other(&s->pick, s->g.nplayers, active_seats(s), not_this);
}

/* A card of b at random (each card as likely as the next), or PD_NONE. */
static unsigned random_of(struct sim *s, const struct pd_bundle *b)
{
    unsigned n = pd_bundle_total(b);
    if (n == 0)
        return PD_NONE;
    unsigned k = rng_below(&s->pick, n);
    for (unsigned t = 0; t < PD_CARDS; t++) {
        if (k < b->n[t])
            return t;
        k -= b->n[t];
    }
    return PD_NONE;
}

/* A deal of b at random, or PD_NONE. */
static unsigned random_deal(struct sim *s, const struct pd_bundle *b)
{
    struct pd_bundle deals = *b;
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (!pd_card_is_deal(t))
            deals.n[t] = 0;
    return random_of(s, &deals);
}

static void fuzz(struct sim *s, struct pd_action *a)
{
    pd_action_init(a, (enum pd_action_type)rng_below(&s->pick, PD_ACT_TYPES + 2),
                   chance(s, 200) ? PD_HOST : (int)rng_below(&s->pick, 10) - 2);
    if ((a->type == PD_ACT_END || a->type == PD_ACT_KICK) && a->player == PD_HOST)
        a->player = 0; /* keep games going: the host ends and removes on purpose only */
    a->target = (int8_t)((int)rng_below(&s->pick, 10) - 2);
    a->card = (uint8_t)(chance(s, 100) ? PD_NONE : rng_below(&s->pick, PD_CARDS + 2));
    a->extra = (uint8_t)(chance(s, 500) ? PD_NONE : rng_below(&s->pick, PD_CARDS + 2));
    a->deal = (uint8_t)(chance(s, 500) ? PD_NONE : rng_below(&s->pick, PD_CARDS + 2));
    a->blind = chance(s, 500);
    a->offer_id = rng_below(&s->pick, s->g.next_offer_id + 2);
    for (unsigned i = rng_below(&s->pick, 3); i > 0; i--)
        a->give.n[rng_below(&s->pick, PD_CARDS)]++;
    for (unsigned i = rng_below(&s->pick, 3); i > 0; i--)
        a->ask.n[rng_below(&s->pick, PD_CARDS)]++;
    a->timer = (enum pd_timer)rng_below(&s->pick, PD_TIMERS + 1);
    a->ms = chance(s, 100) ? PD_TIMER_MAX_MS + 1 - (int64_t)rng_below(&s->pick, 3)
                           : (int64_t)rng_below(&s->pick, 4000000) - 2000000;
}

static void tick(struct sim *s, struct pd_action *a)
{
    pd_action_init(a, PD_ACT_TICK, 0);
    int64_t due = pd_game_deadline(&s->g);
    if (due > s->now && chance(s, 900))
        s->now = chance(s, 500) ? due : s->g.deadline ? s->g.deadline : due;
}

/* The host steps in now and then; returns true when they do. */
static bool choose_host(struct sim *s, struct pd_action *a)
{
    unsigned r = rng_below(&s->pick, 10000);
    if (s->g.paused) {
        if (r < 3000)
            pd_action_init(a, PD_ACT_RESUME, PD_HOST);
        else if (r < 3300)
            pd_action_init(a, PD_ACT_EXTEND, PD_HOST), a->ms = 1000 + rng_below(&s->pick, 60000);
        else
            return false;
        return true;
    }
    if (r < 60)
        pd_action_init(a, PD_ACT_PAUSE, PD_HOST);
    else if (r < 120)
        pd_action_init(a, PD_ACT_EXTEND, PD_HOST), a->ms = 1000 + rng_below(&s->pick, 60000);
    else if (r < 200)
        pd_action_init(a, PD_ACT_NEXT, PD_HOST);
    else if (r < 230) {
        pd_action_init(a, PD_ACT_SET_TIMER, PD_HOST);
        a->timer = (enum pd_timer)rng_below(&s->pick, PD_TIMERS);
        a->ms = PD_TIMER_MIN_MS + rng_below(&s->pick, 600000);
    } else if (r < 236) {
        pd_action_init(a, PD_ACT_KICK, PD_HOST);
        a->target = (int8_t)random_active(s);
    } else if (r < 238) {
        pd_action_init(a, PD_ACT_END, PD_HOST);
    } else {
        return false;
    }
    return true;
}

/* A card from the current player's hand, with what it plausibly needs. */
static void choose_play(struct sim *s, struct pd_action *a)
{
    const struct pd_game *g = &s->g;
    const struct pd_player *p = &g->players[g->current];
    pd_action_init(a, PD_ACT_PLAY, g->current);
    a->card = (uint8_t)random_of(s, &p->hand);
    if (a->card == PD_NONE)
        a->card = (uint8_t)rng_below(&s->pick, PD_CARDS);
    a->target = (int8_t)random_other(s, g->current);
    if (chance(s, 100))
        a->target = chance(s, 500) ? PD_NOBODY : (int8_t)g->current;
    switch (pd_card_kind(a->card)) {
    case PD_KIND_ILLEGAL:
        if (chance(s, 500))
            a->extra = (uint8_t)random_deal(s, &p->hand);
        break;
    case PD_KIND_RELIEF:
        if (chance(s, 400))
            a->target = PD_NOBODY;
        a->deal = (uint8_t)(chance(s, 700) ? random_deal(s, &p->hand) : PD_NONE);
        break;
    case PD_KIND_NUISANCE:
        a->deal = (uint8_t)(chance(s, 500) ? random_deal(s, &p->business) : PD_NONE);
        break;
    case PD_KIND_TAKEOVER:
        a->deal = (uint8_t)random_deal(s, &g->players[a->target >= 0 ? a->target : 0].business);
        if (chance(s, 50))
            a->target = PD_NOBODY;
        break;
    default:
        break;
    }
}

static void choose_discard(struct sim *s, struct pd_action *a)
{
    const struct pd_player *p = &s->g.players[s->g.current];
    pd_action_init(a, PD_ACT_DISCARD, s->g.current);
    a->card = (uint8_t)random_of(s, &p->hand);
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (p->hand.n[t] >= 3 && chance(s, 600))
            a->extra = (uint8_t)t;
    if (a->extra != PD_NONE && chance(s, 500))
        a->card = PD_NONE;
}

static void choose_trade(struct sim *s, struct pd_action *a)
{
    const struct pd_game *g = &s->g;
    if (g->noffers && chance(s, 600)) {
        const struct pd_offer *o = &g->offers[rng_below(&s->pick, g->noffers)];
        unsigned r = rng_below(&s->pick, 10);
        pd_action_init(a,
                       r < 6   ? PD_ACT_ACCEPT
                       : r < 8 ? PD_ACT_DECLINE
                               : PD_ACT_CANCEL,
                       r < 8 ? o->to : g->current);
        if (chance(s, 50))
            a->player = (int8_t)random_active(s);
        a->offer_id = o->id;
        return;
    }
    pd_action_init(a, PD_ACT_OFFER, g->current);
    a->target = (int8_t)random_other(s, g->current);
    a->blind = chance(s, 300);
    struct pd_bundle left = g->players[g->current].hand;
    for (unsigned i = 1 + rng_below(&s->pick, 2); i > 0; i--) {
        unsigned t = random_of(s, &left);
        if (t != PD_NONE) {
            left.n[t]--;
            a->give.n[t]++;
        }
    }
    const struct pd_bundle *theirs = &g->players[a->target].hand;
    for (unsigned i = rng_below(&s->pick, 3); i > 0; i--) {
        unsigned t = chance(s, 700) ? random_of(s, theirs) : rng_below(&s->pick, PD_CARDS);
        if (t != PD_NONE)
            a->ask.n[t]++;
    }
}

static void choose_magnum(struct sim *s, struct pd_action *a)
{
    int who = random_active(s);
    for (unsigned i = 0; i < s->g.nplayers; i++)
        if (s->g.players[i].hand.n[PD_MAGNUM] && chance(s, 800))
            who = (int)i;
    pd_action_init(a, chance(s, 500) ? PD_ACT_MAGNUM : PD_ACT_PLAY, who);
    a->card = PD_MAGNUM;
    a->target =
        s->g.phase == PD_PHASE_WINDOW && chance(s, 700) ? PD_NOBODY : (int8_t)random_active(s);
}

static void choose_move(struct sim *s, struct pd_action *a)
{
    const struct pd_game *g = &s->g;
    switch (g->phase) {
    case PD_PHASE_TURN:
        if (chance(s, 30))
            tick(s, a);
        else if (chance(s, 150))
            choose_trade(s, a);
        else if (chance(s, 20))
            choose_magnum(s, a);
        else if (chance(s, 700))
            choose_play(s, a);
        else
            choose_discard(s, a);
        if (chance(s, 30))
            a->player = (int8_t)random_other(s, g->current); /* out of turn */
        break;
    case PD_PHASE_WINDOW:
        if (chance(s, 100))
            tick(s, a);
        else if (chance(s, 200))
            choose_magnum(s, a);
        else
            pd_action_init(a, PD_ACT_WAIVE, random_active(s));
        break;
    case PD_PHASE_PASS:
        if (chance(s, 50)) {
            tick(s, a);
        } else {
            pd_action_init(a, PD_ACT_PASS, random_active(s));
            a->card = (uint8_t)random_of(s, &g->players[a->player].hand);
            if (a->card == PD_NONE || chance(s, 50))
                a->card = (uint8_t)rng_below(&s->pick, PD_CARDS);
        }
        break;
    default: /* loss */
        if (chance(s, 50) || chance(s, 30)) {
            tick(s, a);
            break;
        }
        pd_action_init(a, PD_ACT_LOSE, chance(s, 900) ? g->current : random_active(s));
        a->card = (uint8_t)random_deal(s, &g->players[g->current].business);
        if (chance(s, 30))
            choose_magnum(s, a);
        break;
    }
}

static void choose(struct sim *s, struct pd_action *a)
{
    s->now += rng_below(&s->pick, 3000);
    if (chance(s, 40))
        fuzz(s, a);
    else if (!choose_host(s, a))
        choose_move(s, a);
}

const char *pd_sim_check_events(const struct pd_game *g, const struct pd_events *ev)
{
    for (unsigned i = 0; i < ev->n; i++) {
        const struct pd_event *e = &ev->v[i];
        if ((unsigned)e->type >= PD_EV_TYPES)
            return "an event of no type";
        if (e->audience != PD_TABLE && (e->audience < 0 || e->audience >= g->nplayers))
            return "an event for nobody";
        switch (e->type) {
        case PD_EV_DEALT:
        case PD_EV_HAND:
        case PD_EV_DREW:
        case PD_EV_REMINDER:
        case PD_EV_PASS_CHOSEN:
        case PD_EV_PASSED:
        case PD_EV_ASK_CLOSED:
            if (e->audience != e->player)
                return "a private event shown to another seat";
            break;
        case PD_EV_OFFER_MADE:
        case PD_EV_OFFER_ACCEPTED:
        case PD_EV_OFFER_DECLINED:
        case PD_EV_OFFER_CANCELLED:
        case PD_EV_OFFER_EXPIRED:
            if (e->audience != e->player && e->audience != e->target)
                return "an offer shown beyond its two sides";
            if (e->blind && e->audience == e->target && e->type != PD_EV_OFFER_ACCEPTED &&
                pd_bundle_total(&e->cards) != 0)
                return "a blind offer's cards shown to its receiver";
            break;
        default:
            if (e->audience != PD_TABLE)
                return "a table event shown to one seat";
            break;
        }
    }
    return NULL;
}

static void check_refused(struct sim *s, enum pd_error err, const struct pd_game *before,
                          const struct rng *rng_before, const struct pd_event *first)
{
    if (memcmp(before, &s->g, sizeof *before) != 0)
        violation(s, "a refused action changed the game", pd_error_id(err));
    if (memcmp(rng_before, &s->game_rng, sizeof *rng_before) != 0)
        violation(s, "a refused action drew from the rng", pd_error_id(err));
    if (s->ev.n != 0 || memcmp(first, &s->ev.v[0], sizeof *first) != 0)
        violation(s, "a refused action touched the events", pd_error_id(err));
}

/* The game as text and back: the same bytes, or a violation. */
static void roundtrip(struct sim *s)
{
    struct json_object *j = pd_game_to_json(&s->g);
    const char *text = j ? json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN) : NULL;
    struct json_object *back = text ? json_tokener_parse(text) : NULL;
    struct pd_game g;
    memset(&g, 0xa5, sizeof g);
    if (!back || pd_game_from_json(&g, back) != PD_OK)
        violation(s, "a game's JSON was refused", NULL);
    else if (memcmp(&g, &s->g, sizeof g) != 0)
        violation(s, "a game's JSON read back differs", NULL);
    else
        memcpy(&s->g, &g, sizeof g); /* go on from what was read */
    json_object_put(j);
    json_object_put(back);
}

static void check_end(struct sim *s)
{
    const struct pd_game *g = &s->g;
    const struct pd_event *over = NULL;
    for (unsigned i = 0; i < s->ev.n; i++)
        if (s->ev.v[i].type == PD_EV_GAME_OVER)
            over = &s->ev.v[i];
    if (!over) {
        violation(s, "the game ended without GAME_OVER", NULL);
        return;
    }
    bool aborted = g->end == PD_END_HOST || g->end == PD_END_PLAYERS;
    int32_t top = INT32_MIN;
    for (unsigned p = 0; p < g->nplayers; p++)
        if (g->players[p].active && pd_score(g, p) > top)
            top = pd_score(g, p);
    for (unsigned p = 0; p < g->nplayers; p++) {
        bool active = g->players[p].active;
        int32_t want = active ? pd_score(g, p) : 0;
        if (g->players[p].score != want || over->scores[p] != want)
            violation(s, "a final score differs from pd_score", NULL);
        if (!!(over->winners & (1u << p)) != (active && want == top && !aborted))
            violation(s, "the winners are wrong", NULL);
    }
}

/* A finished game refuses everything but a tick, and a tick does nothing. */
static void check_after_end(struct sim *s)
{
    struct pd_game before;
    struct rng rng_before = s->game_rng;
    memcpy(&before, &s->g, sizeof before);
    for (unsigned i = 0; i < 4; i++) {
        struct pd_action a;
        fuzz(s, &a);
        s->ev.n = 0;
        enum pd_error err = pd_game_apply(&s->g, &a, s->now, &s->game_rng, &s->ev);
        enum pd_error want = a.type == PD_ACT_TICK              ? PD_OK
                             : (unsigned)a.type >= PD_ACT_TYPES ? PD_ERR_BAD_ACTION
                                                                : PD_ERR_GAME_OVER;
        if (err != want || s->ev.n || memcmp(&before, &s->g, sizeof before) ||
            memcmp(&rng_before, &s->game_rng, sizeof rng_before))
            violation(s, "a finished game took an action", pd_error_id(err));
    }
}

static void count(struct sim *s, const struct pd_action *a)
{
    s->st->accepted[a->type]++;
    if (a->type == PD_ACT_PLAY || a->type == PD_ACT_MAGNUM)
        s->st->played[a->type == PD_ACT_MAGNUM ? PD_MAGNUM : a->card]++;
    for (unsigned i = 0; i < s->ev.n; i++)
        s->st->events[s->ev.v[i].type]++;
    if (s->ev.n > s->st->max_events)
        s->st->max_events = s->ev.n;
}

static void step(struct sim *s)
{
    static const struct pd_event blank;
    struct pd_game before;
    struct pd_action a;
    char why[160];
    choose(s, &a);
    s->ev.n = 0;
    struct rng rng_before = s->game_rng;
    if (s->o->verify) {
        memcpy(&before, &s->g, sizeof before);
        s->ev.v[0] = blank;
    }
    enum pd_error err = pd_game_apply(&s->g, &a, s->now, &s->game_rng, &s->ev);
    if (err) {
        s->st->rejected++;
        if ((unsigned)err < PD_ERR_COUNT)
            s->st->errors[err]++;
        if (s->o->verify)
            check_refused(s, err, &before, &rng_before, &blank);
        return;
    }
    count(s, &a);
    if (s->o->verify) {
        const char *bad = pd_sim_check_events(&s->g, &s->ev);
        if (!pd_game_check(&s->g, why, sizeof why))
            violation(s, "an accepted action broke an invariant", why);
        if (bad)
            violation(s, bad, pd_event_id(s->ev.v[0].type));
    }
    if (s->o->roundtrip)
        roundtrip(s);
    if (s->o->on_step)
        s->o->on_step(&s->g, &s->ev, s->o->arg);
}

uint64_t pd_sim_play(const struct pd_sim_opts *o, uint64_t seed, struct pd_series *series,
                     struct pd_sim_stats *st, struct pd_game *out)
{
    struct sim *s = calloc(1, sizeof *s);
    if (!s)
        return 1;
    s->o = o;
    s->st = st;
    s->seed = seed;
    s->now = 1000000;
    rng_seed(&s->game_rng, seed);
    rng_seed(&s->pick, seed ^ 0x5eed5eed5eed5eedULL);

    struct pd_config cfg;
    pd_config_default(&cfg);
    cfg.series_target = o->series;
    char why[160];
    enum pd_error err =
        pd_game_setup(&s->g, &cfg, o->players, series, s->now, &s->game_rng, &s->ev);
    if (err)
        violation(s, "setup failed", pd_error_id(err));
    else if (o->verify && !pd_game_check(&s->g, why, sizeof why))
        violation(s, "setup breaks an invariant", why);
    else if (o->verify && pd_sim_check_events(&s->g, &s->ev))
        violation(s, "setup's events", pd_sim_check_events(&s->g, &s->ev));
    if (!err && o->on_step)
        o->on_step(&s->g, &s->ev, o->arg);

    uint64_t actions = 0;
    while (!err && s->g.phase != PD_PHASE_OVER && actions++ < SIM_MAX_ACTIONS)
        step(s);
    if (!err && s->g.phase != PD_PHASE_OVER)
        violation(s, "the game did not end", NULL);
    else if (!err && o->verify)
        check_end(s);
    if (!err && s->g.phase == PD_PHASE_OVER && o->verify)
        check_after_end(s);
    if (!err && series)
        pd_series_after(&s->g, series);

    st->games++;
    st->actions += actions;
    st->turns += s->g.turns;
    st->ends[s->g.end <= PD_END_PLAYERS ? s->g.end : 0]++;
    st->violations += s->violations;
    if (out)
        memcpy(out, &s->g, sizeof *out);
    uint64_t v = s->violations;
    free(s);
    return v;
}
