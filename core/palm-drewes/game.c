/*
 * game.c - pd_game_apply(): the phases, the validation order, the
 * all-or-nothing wrapper, and the event helpers every step uses.
 *
 * The phases and their transitions are pd_transitions[] below (pd_set_phase()
 * asserts each one; a turn that follows a turn is no change of phase).
 *
 * A player's move happens only in `turn` (theirs), a trade only in `turn`
 * (the current player's, with anyone), a choice of card to pass only in
 * `pass`, a choice of deal to lose only in `loss`, a waiver only in `window`;
 * the Magnum in any phase but `over`. With debug builds every accepted action
 * that changed the phase is followed by pd_game_check(), the pager's habit.
 */
#include <assert.h>
#include <string.h>

#include "internal.h"
#include "module.h"

const struct rules_transition pd_transitions[] = {
    {"", "turn"},       /* setup: the dealer's left neighbour begins */
    {"turn", "window"}, /* a Takeover or Connections names a deal to take */
    {"turn", "pass"},   /* a nuisance card: everyone passes a card to the left */
    {"turn", "loss"},   /* the turn of a player whose Raid or Protection Money takes a deal
                           ends, with a choice to make */
    {"turn", "over"},   /* the Day of Reckoning; an emptied hand; the pile empty at the draw;
                           the host's end or too few players */
    {"window", "turn"}, /* nobody stopped the takeover, or the Magnum did: the next turn */
    {"window", "over"}, /* the pile empty at the draw; an emptied hand; the host */
    {"pass", "turn"},   /* the cards moved; the turn ends */
    {"pass", "loss"},   /* the cards moved; the nuisance player's burden takes a deal */
    {"pass", "over"},   /* the pile empty at the draw; a hand the pass emptied; the host */
    {"loss", "turn"},   /* the deal is lost (or the burden lifted); the turn ends */
    {"loss", "over"},   /* the pile empty at the draw; the host */
    {NULL, NULL},       /* over: nothing; every action but a tick is refused */
};

void pd_set_phase(struct pd_game *g, enum pd_phase p)
{
    assert((unsigned)g->phase < PD_PHASES &&
           (g->phase == p ||
            rules_transition_ok(pd_transitions, pd_phase_id(g->phase), pd_phase_id(p))));
    g->phase = p;
}

/* The invariants hold: checked in debug builds where the phase changes
 * (a release build skips the check, not only the assert). */
static void assert_state(const struct pd_game *g)
{
#ifndef NDEBUG
    char why[160];
    bool ok = pd_game_check(g, why, sizeof why);
    assert(ok && "pd_game_check");
#else
    (void)g;
#endif
}

struct pd_event *pd_emit(struct pd_ctx *c, enum pd_event_type type, int audience)
{
    struct pd_event *e = &c->sink;
    if (c->ev->n < PD_MAX_EVENTS)
        e = &c->ev->v[c->ev->n++];
    else
        c->overflow = true;
    pd_event_blank(e, type, audience);
    return e;
}

void pd_event_blank(struct pd_event *e, enum pd_event_type type, int audience)
{
    memset(e, 0, sizeof *e);
    e->type = type;
    e->audience = (int8_t)audience;
    e->player = e->target = e->source = PD_NOBODY;
    e->card = e->card2 = e->deal = PD_NONE;
}

bool pd_hand_open(const struct pd_game *g, unsigned seat)
{
    return seat < g->nplayers && g->players[seat].burden == PD_TAX_AUDIT;
}

void pd_emit_hand(struct pd_ctx *c, unsigned seat)
{
    struct pd_event *e = pd_emit(c, PD_EV_HAND, (int)seat);
    e->player = (int8_t)seat;
    e->cards = c->g->players[seat].hand;
    if (pd_hand_open(c->g, seat)) {
        e = pd_emit(c, PD_EV_HAND_SHOWN, PD_TABLE);
        e->player = (int8_t)seat;
        e->cards = c->g->players[seat].hand;
    }
}

bool pd_is_active(const struct pd_game *g, int seat)
{
    return seat >= 0 && seat < g->nplayers && g->players[seat].active;
}

unsigned pd_active_count(const struct pd_game *g)
{
    unsigned n = 0;
    for (unsigned s = 0; s < g->nplayers; s++)
        n += g->players[s].active;
    return n;
}

unsigned pd_left_of(const struct pd_game *g, unsigned seat)
{
    for (unsigned i = 1; i <= g->nplayers; i++) {
        unsigned s = (seat + i) % g->nplayers;
        if (g->players[s].active)
            return s;
    }
    return seat;
}

bool pd_waits_on(const struct pd_game *g, unsigned seat)
{
    if (!pd_is_active(g, (int)seat) || g->paused)
        return false;
    switch (g->phase) {
    case PD_PHASE_TURN:
    case PD_PHASE_LOSS:
        return seat == g->current;
    case PD_PHASE_PASS:
        return g->players[seat].pass == PD_NONE && pd_bundle_total(&g->players[seat].hand) > 0;
    default:
        return false;
    }
}

bool pd_step_asks(const struct pd_game *g, unsigned seat)
{
    if (!pd_is_active(g, (int)seat))
        return false;
    switch (g->phase) {
    case PD_PHASE_PASS:
        return g->players[seat].pass == PD_NONE && pd_bundle_total(&g->players[seat].hand) > 0;
    case PD_PHASE_WINDOW:
        return seat != g->current && !g->players[seat].waived;
    case PD_PHASE_LOSS:
        return seat == g->current;
    default:
        return false;
    }
}

/* Tells each seat the step before the action (g) waited on and that w, after
 * it, no longer asks: whatever it was asked is closed. */
static void close_asks(struct pd_ctx *c, const struct pd_game *g)
{
    for (unsigned s = 0; s < g->nplayers; s++)
        if (pd_step_asks(g, s) && (c->g->phase != g->phase || !pd_step_asks(c->g, s))) {
            struct pd_event *e = pd_emit(c, PD_EV_ASK_CLOSED, (int)s);
            e->player = (int8_t)s;
            e->number = (uint8_t)g->phase;
        }
}

int64_t pd_game_deadline(const struct pd_game *g)
{
    if (g->remind_at && (g->deadline == 0 || g->remind_at < g->deadline))
        return g->remind_at;
    return g->deadline;
}

static bool host_action(enum pd_action_type t)
{
    return t >= PD_ACT_PAUSE;
}

/* The checks every action shares, in order: the actor, the clock. */
static enum pd_error check_actor(const struct pd_game *g, const struct pd_action *a)
{
    if (host_action(a->type))
        return a->player == PD_HOST ? PD_OK : PD_ERR_NOT_HOST;
    if (!pd_is_active(g, a->player))
        return PD_ERR_NOT_A_PLAYER;
    if (g->paused)
        return PD_ERR_PAUSED;
    return PD_OK;
}

static enum pd_error dispatch(struct pd_ctx *c, const struct pd_action *a)
{
    switch (a->type) {
    case PD_ACT_TICK:
        pd_tick(c);
        return PD_OK;
    case PD_ACT_PLAY:
        return pd_act_play(c, a);
    case PD_ACT_DISCARD:
        return pd_act_discard(c, a);
    case PD_ACT_MAGNUM:
        return pd_act_magnum(c, a);
    case PD_ACT_WAIVE:
        return pd_act_waive(c, a);
    case PD_ACT_PASS:
        return pd_act_pass(c, a);
    case PD_ACT_LOSE:
        return pd_act_lose(c, a);
    case PD_ACT_OFFER:
    case PD_ACT_ACCEPT:
    case PD_ACT_DECLINE:
    case PD_ACT_CANCEL:
        return pd_act_trade(c, a);
    case PD_ACT_KICK:
        return pd_act_kick(c, a);
    default:
        return pd_act_host(c, a);
    }
}

enum pd_error pd_game_apply(struct pd_game *g, const struct pd_action *a, int64_t now,
                            struct rng *rng, struct pd_events *ev)
{
    if ((unsigned)a->type >= PD_ACT_TYPES || now < -PD_NOW_LIMIT || now > PD_NOW_LIMIT)
        return PD_ERR_BAD_ACTION;
    if (g->phase == PD_PHASE_OVER)
        return a->type == PD_ACT_TICK ? PD_OK : PD_ERR_GAME_OVER;
    /* The common idle tick costs nothing. */
    int64_t due = pd_game_deadline(g);
    if (a->type == PD_ACT_TICK && (g->paused || due == 0 || now < due))
        return PD_OK;
    enum pd_error err = a->type == PD_ACT_TICK ? PD_OK : check_actor(g, a);
    if (err)
        return err;

    /* Work on copies, so that a refused action, or one whose events do not
     * fit in ev, leaves the game, the rng and ev as they were. */
    struct pd_game w;
    struct rng r = *rng;
    struct pd_events out;
    memcpy(&w, g, sizeof w);
    out.n = 0;
    struct pd_ctx c = {.g = &w, .now = now, .rng = &r, .ev = &out};
    err = dispatch(&c, a);
    if (err)
        return err;
    pd_end_if_hand_empty(&c);
    close_asks(&c, g);
    if (c.overflow || ev->n + out.n > PD_MAX_EVENTS)
        return PD_ERR_BAD_ACTION;
    if (w.phase != g->phase)
        assert_state(&w);
    memcpy(&ev->v[ev->n], out.v, out.n * sizeof out.v[0]);
    ev->n += out.n;
    memcpy(g, &w, sizeof w);
    *rng = r;
    return PD_OK;
}
