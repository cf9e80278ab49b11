/*
 * clock.c - deadlines and reminders, what a deadline does in each phase, and
 * the host's clock actions.
 */
#include "internal.h"

/* The reminder of the running step: reminder_ms before its deadline, when
 * the step still has longer than that to run. The Magnum's window is too
 * short for one, and waits on nobody in particular. */
static void set_reminder(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    int64_t r = g->config.reminder_ms;
    g->remind_at = 0;
    if (r > 0 && !g->paused && g->deadline && g->phase != PD_PHASE_WINDOW &&
        g->deadline - c->now > r)
        g->remind_at = g->deadline - r;
}

int64_t pd_start_timer(struct pd_ctx *c, enum pd_timer t)
{
    struct pd_game *g = c->g;
    int64_t ms = g->config.timer_ms[t];
    if (g->paused) {
        /* A step that opens while the clock is stopped keeps its full time. */
        g->paused_remaining = ms;
        g->deadline = 0;
    } else {
        g->deadline = c->now + ms;
    }
    set_reminder(c);
    return g->deadline;
}

void pd_stop_timer(struct pd_game *g)
{
    g->deadline = 0;
    g->remind_at = 0;
    g->paused = false;
    g->paused_remaining = 0;
}

static void remind(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    g->remind_at = 0;
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (!pd_waits_on(g, s))
            continue;
        struct pd_event *e = pd_emit(c, PD_EV_REMINDER, (int)s);
        e->player = (int8_t)s;
        e->number = (uint8_t)g->phase;
        e->deadline = g->deadline;
    }
}

void pd_fire(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    switch (g->phase) {
    case PD_PHASE_TURN:
        pd_turn_timeout(c);
        break;
    case PD_PHASE_WINDOW:
        pd_close_window(c);
        break;
    case PD_PHASE_PASS:
        pd_pass_timeout(c);
        break;
    case PD_PHASE_LOSS:
        pd_loss_timeout(c);
        break;
    default:
        break;
    }
}

void pd_tick(struct pd_ctx *c)
{
    /* pd_game_apply() has seen that the reminder or the deadline is due. */
    struct pd_game *g = c->g;
    if (g->deadline && c->now >= g->deadline)
        pd_fire(c);
    else
        remind(c);
}

static enum pd_error act_pause(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    if (g->paused)
        return PD_ERR_PAUSED;
    int64_t left = g->deadline - c->now;
    g->paused = true;
    g->paused_remaining = left > 0 ? left : 0;
    g->deadline = 0;
    g->remind_at = 0;
    pd_emit(c, PD_EV_PAUSED, PD_TABLE)->ms = g->paused_remaining;
    return PD_OK;
}

static enum pd_error act_resume(struct pd_ctx *c)
{
    struct pd_game *g = c->g;
    if (!g->paused)
        return PD_ERR_NOT_PAUSED;
    g->paused = false;
    g->deadline = c->now + g->paused_remaining;
    g->paused_remaining = 0;
    set_reminder(c);
    pd_emit(c, PD_EV_RESUMED, PD_TABLE)->deadline = g->deadline;
    return PD_OK;
}

static enum pd_error act_extend(struct pd_ctx *c, int64_t ms)
{
    struct pd_game *g = c->g;
    if (ms <= 0 || ms > PD_TIMER_MAX_MS)
        return PD_ERR_BAD_TIMER;
    int64_t left = (g->paused ? g->paused_remaining : g->deadline - c->now) + ms;
    if (left > PD_TIMER_MAX_MS)
        return PD_ERR_BAD_TIMER;
    if (g->paused) {
        g->paused_remaining = left;
    } else {
        g->deadline += ms;
        set_reminder(c);
    }
    struct pd_event *e = pd_emit(c, PD_EV_EXTENDED, PD_TABLE);
    e->deadline = g->deadline;
    e->ms = left;
    return PD_OK;
}

static enum pd_error act_set_timer(struct pd_ctx *c, const struct pd_action *a)
{
    if ((unsigned)a->timer >= PD_TIMERS)
        return PD_ERR_BAD_ACTION;
    if (!pd_timer_ok(a->ms))
        return PD_ERR_BAD_TIMER;
    c->g->config.timer_ms[a->timer] = a->ms;
    struct pd_event *e = pd_emit(c, PD_EV_TIMER_SET, PD_TABLE);
    e->timer = a->timer;
    e->ms = a->ms;
    return PD_OK;
}

enum pd_error pd_act_host(struct pd_ctx *c, const struct pd_action *a)
{
    switch (a->type) {
    case PD_ACT_PAUSE:
        return act_pause(c);
    case PD_ACT_RESUME:
        return act_resume(c);
    case PD_ACT_EXTEND:
        return act_extend(c, a->ms);
    case PD_ACT_NEXT:
        if (c->g->paused)
            return PD_ERR_PAUSED;
        pd_fire(c);
        return PD_OK;
    case PD_ACT_END:
        pd_finish(c, PD_END_HOST);
        return PD_OK;
    case PD_ACT_SET_TIMER:
        return act_set_timer(c, a);
    default:
        return PD_ERR_BAD_ACTION;
    }
}
