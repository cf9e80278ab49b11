/*
 * game.c - il_game_apply(): validation order, the all-or-nothing wrapper and
 * the event helpers every step uses.
 */
#include <assert.h>
#include <string.h>

#include "internal.h"
#include "module.h"

/*
 * Every phase change one il_game_setup() or il_game_apply() makes. A single
 * action may pass a phase it does not stop in (the last session's close
 * opening the tribunal), so these are steps between two accepted actions.
 * The host's end, or a kick that leaves too few players, ends the game from
 * any phase.
 */
const struct rules_transition il_transitions[] = {
    {"", "dealing"},              /* setup: the first session */
    {"dealing", "drop-reveal"},   /* sessions 1-4 close: a drop (a casual draw stays dealing) */
    {"drop-reveal", "drop-grab"}, /* its last card is shown */
    {"drop-grab", "dealing"},     /* every player holds a card from it: the next session */
    {"dealing", "tribunal-hold"}, /* session 5 closes: held for the host or its time */
    {"dealing", "debate"},        /* session 5 closes: the first case */
    {"tribunal-hold", "debate"},  /* the host's next, or the time set */
    {"debate", "vote"},           /* the debate's time is up */
    {"vote", "debate"},           /* a verdict: the next case */
    {"dealing", "over"},          /* from here on: the end, or too few players left */
    {"drop-reveal", "over"},
    {"drop-grab", "over"},
    {"tribunal-hold", "over"},
    {"debate", "over"}, /* the last case judged early (close-early) */
    {"vote", "over"},   /* the last verdict */
    {NULL, NULL},
};

#ifndef NDEBUG
/* Debug builds, at every phase change: the step is one of il_transitions
 * and every invariant of il_game_check() holds (the tests and simulators
 * then stop at the first change that breaks one). */
static void assert_phase_change(enum il_phase from, const struct il_game *g)
{
    char why[256];
    if (from == g->phase)
        return;
    assert(rules_transition_ok(il_transitions, il_phase_id(from), il_phase_id(g->phase)));
    assert(il_game_check(g, why, sizeof why));
}
#endif

struct il_event *il_emit(struct il_ctx *c, enum il_event_type type, int audience)
{
    struct il_event *e = &c->sink;
    if (c->ev->n < IL_MAX_EVENTS)
        e = &c->ev->v[c->ev->n++];
    else
        c->overflow = true;
    memset(e, 0, sizeof *e);
    e->type = type;
    e->audience = (int8_t)audience;
    e->player = IL_NOBODY;
    e->target = IL_NOBODY;
    return e;
}

void il_emit_hand(struct il_ctx *c, unsigned seat)
{
    struct il_event *e = il_emit(c, IL_EV_HAND, (int)seat);
    e->player = (int8_t)seat;
    e->cards = c->g->players[seat].hand;
}

bool il_is_active_seat(const struct il_game *g, int seat)
{
    return seat >= 0 && seat < g->nplayers && g->players[seat].active;
}

unsigned il_active_count(const struct il_game *g)
{
    unsigned n = 0;
    for (unsigned s = 0; s < g->nplayers; s++)
        n += g->players[s].active;
    return n;
}

int64_t il_game_deadline(const struct il_game *g)
{
    return g->deadline;
}

enum il_error il_game_apply(struct il_game *g, const struct il_action *a, int64_t now,
                            struct rng *rng, struct il_events *ev)
{
    if ((unsigned)a->type > IL_ACT_SCHEDULE || now < -IL_NOW_LIMIT || now > IL_NOW_LIMIT)
        return IL_ERR_BAD_ACTION;
    if (g->phase == IL_PHASE_OVER)
        return a->type == IL_ACT_TICK ? IL_OK : IL_ERR_GAME_OVER;
    /* The common idle tick costs nothing. */
    if (a->type == IL_ACT_TICK && (g->paused || g->deadline == 0 || now < g->deadline))
        return IL_OK;

    /* Work on copies so a rejected action, or one whose events do not fit
     * in ev, leaves the game, the rng and ev exactly as they were. */
    struct il_game w;
    struct rng r = *rng;
    struct il_events out;
    memcpy(&w, g, sizeof w);
    out.n = 0;
    struct il_ctx c = {.g = &w, .now = now, .rng = &r, .ev = &out};

    enum il_error err;
    switch (a->type) {
    case IL_ACT_OFFER:
    case IL_ACT_ACCEPT:
    case IL_ACT_DECLINE:
    case IL_ACT_CANCEL:
        err = il_act_trade(&c, a);
        break;
    case IL_ACT_GRAB:
        err = il_act_grab(&c, a);
        break;
    case IL_ACT_VOTE:
    case IL_ACT_ABSTAIN:
        err = il_act_vote(&c, a);
        break;
    case IL_ACT_KICK:
        err = il_act_kick(&c, a);
        break;
    default:
        err = il_act_clock(&c, a);
        break;
    }
    if (err)
        return err;
    if (c.overflow || ev->n + out.n > IL_MAX_EVENTS)
        return IL_ERR_BAD_ACTION;
    memcpy(&ev->v[ev->n], out.v, out.n * sizeof out.v[0]);
    ev->n += out.n;
#ifndef NDEBUG
    assert_phase_change(g->phase, &w);
#endif
    memcpy(g, &w, sizeof w);
    *rng = r;
    return IL_OK;
}
