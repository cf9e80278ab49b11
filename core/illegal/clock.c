/*
 * clock.c - deadlines, the session flow and the Game Master's clock actions.
 */
#include "internal.h"

int64_t il_start_timer(struct il_ctx *c, enum il_timer t)
{
    struct il_game *g = c->g;
    int64_t ms = g->config.timer_ms[t];
    if (g->paused) {
        /* A step that opens while the clock is stopped keeps its full time. */
        g->paused_remaining = ms;
        g->deadline = 0;
    } else {
        g->deadline = c->now + ms;
    }
    return g->deadline;
}

void il_open_session(struct il_ctx *c)
{
    struct il_game *g = c->g;
    g->session++;
    g->phase = IL_PHASE_DEALING;
    struct il_event *e = il_emit(c, IL_EV_SESSION_OPENED, IL_PUBLIC);
    e->number = g->session;
    e->deadline = il_start_timer(c, IL_TIMER_SESSION);
}

void il_close_session(struct il_ctx *c)
{
    struct il_game *g = c->g;
    il_expire_offers(c);
    struct il_event *e = il_emit(c, IL_EV_SESSION_CLOSED, IL_PUBLIC);
    e->number = g->session;
    if (g->session < IL_SESSIONS)
        il_start_drop(c);
    else
        il_end_sessions(c);
}

void il_fire(struct il_ctx *c)
{
    switch (c->g->phase) {
    case IL_PHASE_DEALING:
        il_close_session(c);
        break;
    case IL_PHASE_DROP_REVEAL:
        il_reveal_next(c);
        break;
    case IL_PHASE_DROP_GRAB:
        il_end_drop(c);
        break;
    case IL_PHASE_HOLD:
        il_open_tribunal(c);
        break;
    case IL_PHASE_DEBATE:
        il_open_vote(c);
        break;
    case IL_PHASE_VOTE:
        il_verdict(c);
        break;
    case IL_PHASE_OVER:
        break;
    }
}

/* The GM sets when the tribunal opens: ahead of time, or during the hold. */
static enum il_error act_schedule(struct il_ctx *c, int64_t at)
{
    struct il_game *g = c->g;
    if (g->phase == IL_PHASE_DEBATE || g->phase == IL_PHASE_VOTE)
        return IL_ERR_WRONG_PHASE;
    if (at != 0 && (at <= c->now || at - c->now > IL_TIMER_MAX_MS))
        return IL_ERR_BAD_TIMER;
    g->tribunal_at = at;
    if (g->phase == IL_PHASE_HOLD)
        g->deadline = at;
    struct il_event *e = il_emit(c, IL_EV_TRIBUNAL_SCHEDULED, IL_PUBLIC);
    e->deadline = at;
    return IL_OK;
}

static enum il_error act_extend(struct il_ctx *c, const struct il_action *a)
{
    struct il_game *g = c->g;
    int64_t ms = a->ms;
    if (ms <= 0 || ms > IL_TIMER_MAX_MS)
        return IL_ERR_BAD_TIMER;
    int64_t left = (g->paused ? g->paused_remaining : g->deadline - c->now) + ms;
    if (left > IL_TIMER_MAX_MS)
        return IL_ERR_BAD_TIMER;
    if (g->paused)
        g->paused_remaining = left;
    else
        g->deadline += ms;
    struct il_event *e = il_emit(c, IL_EV_EXTENDED, IL_PUBLIC);
    e->deadline = g->deadline;
    e->ms = left;
    return IL_OK;
}

static enum il_error act_pause(struct il_ctx *c, const struct il_action *a)
{
    (void)a;
    struct il_game *g = c->g;
    if (g->paused)
        return IL_ERR_PAUSED;
    g->paused = true;
    g->paused_remaining = g->deadline - c->now;
    if (g->paused_remaining < 0)
        g->paused_remaining = 0;
    if (g->paused_remaining > IL_TIMER_MAX_MS)
        g->paused_remaining = IL_TIMER_MAX_MS;
    g->deadline = 0;
    struct il_event *e = il_emit(c, IL_EV_PAUSED, IL_PUBLIC);
    e->ms = g->paused_remaining;
    return IL_OK;
}

static enum il_error act_resume(struct il_ctx *c, const struct il_action *a)
{
    (void)a;
    struct il_game *g = c->g;
    if (!g->paused)
        return IL_ERR_NOT_PAUSED;
    g->paused = false;
    g->deadline = c->now + g->paused_remaining;
    struct il_event *e = il_emit(c, IL_EV_RESUMED, IL_PUBLIC);
    e->deadline = g->deadline;
    e->ms = g->paused_remaining;
    g->paused_remaining = 0;
    /* A kick while paused may have left only voters on an open case. */
    il_close_if_all_voted(c);
    return IL_OK;
}

static enum il_error act_next(struct il_ctx *c, const struct il_action *a)
{
    (void)a;
    if (c->g->paused)
        return IL_ERR_PAUSED;
    il_fire(c);
    return IL_OK;
}

static enum il_error act_end(struct il_ctx *c, const struct il_action *a)
{
    (void)a;
    il_finish(c, true);
    return IL_OK;
}

/* The tribunal's time: ms from now, or the time at (both 0: when the GM says NEXT). */
static enum il_error act_schedule_at(struct il_ctx *c, const struct il_action *a)
{
    if (a->ms < 0 || a->ms > IL_TIMER_MAX_MS)
        return IL_ERR_BAD_TIMER;
    return act_schedule(c, a->ms ? c->now + a->ms : a->at);
}

static enum il_error act_set_timer(struct il_ctx *c, const struct il_action *a)
{
    if ((unsigned)a->timer >= IL_TIMERS)
        return IL_ERR_BAD_ACTION;
    if (!il_timer_ok(a->ms))
        return IL_ERR_BAD_TIMER;
    c->g->config.timer_ms[a->timer] = a->ms;
    struct il_event *e = il_emit(c, IL_EV_TIMER_SET, IL_PUBLIC);
    e->timer = a->timer;
    e->ms = a->ms;
    return IL_OK;
}

/* The Game Master's clock actions. */
static const struct {
    enum il_action_type type;
    enum il_error (*act)(struct il_ctx *c, const struct il_action *a);
} gm_clock[] = {
    {IL_ACT_PAUSE, act_pause},
    {IL_ACT_RESUME, act_resume},
    {IL_ACT_EXTEND, act_extend},
    {IL_ACT_NEXT, act_next},
    {IL_ACT_END, act_end},
    {IL_ACT_SCHEDULE, act_schedule_at},
    {IL_ACT_SET_TIMER, act_set_timer},
};

enum il_error il_act_clock(struct il_ctx *c, const struct il_action *a)
{
    if (a->type == IL_ACT_TICK) {
        /* il_game_apply() has already seen that the deadline is due. */
        il_fire(c);
        return IL_OK;
    }
    if (a->player != IL_GM)
        return IL_ERR_NOT_GM;

    /* The hold is no timed step: its time moves with SCHEDULE, not the clock. */
    if (c->g->phase == IL_PHASE_HOLD && (a->type == IL_ACT_PAUSE || a->type == IL_ACT_EXTEND))
        return IL_ERR_WRONG_PHASE;
    for (size_t i = 0; i < sizeof gm_clock / sizeof *gm_clock; i++)
        if (gm_clock[i].type == a->type)
            return gm_clock[i].act(c, a);
    return IL_ERR_BAD_ACTION;
}
