/*
 * mind.c - a computer seat between two moves: what it takes in from each
 * change, and when each of its next moves is due. move.c makes the moves;
 * the levels (easy.c, normal_*.c) only choose them.
 */
#include <string.h>

#include "ai.h"

const struct ai_level *ai_level_of(const struct il_mind *m)
{
    return m->level == AI_NORMAL ? &ai_normal : &ai_easy;
}

int64_t ai_between(struct il_mind *m, int64_t lo, int64_t hi)
{
    return hi > lo ? lo + (int64_t)rng_below(&m->rng, (uint32_t)(hi - lo + 1)) : lo;
}

bool ai_chance(struct il_mind *m, unsigned percent)
{
    return rng_below(&m->rng, 100) < percent;
}

int64_t ai_delay(struct il_mind *m, const int64_t range[2])
{
    return ai_between(m, range[0], range[1]) * m->pace / RULES_PACE_HUMAN;
}

int64_t ai_due(struct il_mind *m, const struct il_view *v, int64_t now, const int64_t range[2])
{
    int64_t at = now + ai_delay(m, range);
    if (v->deadline > now && at > now + (v->deadline - now) * 3 / 4)
        at = now + (v->deadline - now) * 3 / 4;
    if (at <= now)
        at = now + 1;
    return at ? at : 1;
}

void ai_start(struct il_mind *m, enum ai_level_id level, uint64_t seed, unsigned pace)
{
    memset(m, 0, sizeof *m);
    rng_seed(&m->rng, seed);
    m->level = (uint8_t)level;
    m->pace = (uint16_t)(pace > 10 * RULES_PACE_HUMAN ? 10 * RULES_PACE_HUMAN : pace);
    m->decoy = AI_RES;
}

bool ai_playing(const struct il_view *v)
{
    return v->phase != IL_PHASE_OVER && ai_is_active(v, v->seat);
}

bool ai_grabbing(const struct il_view *v)
{
    return v->phase == IL_PHASE_DROP_GRAB && !(v->grabbed & (1u << v->seat));
}

bool ai_to_vote(const struct il_view *v, unsigned k)
{
    return (v->open & (1u << k)) && v->votes[k] == IL_NOBODY;
}

/* -- What it takes in ------------------------------------------------------ */

static void bump(uint8_t *counter, unsigned n)
{
    *counter = (uint8_t)(*counter + n > UINT8_MAX ? UINT8_MAX : *counter + n);
}

static void count_cards(uint8_t row[AI_RES], const struct il_bundle *b)
{
    for (unsigned r = 0; r < AI_RES; r++)
        bump(&row[r], b->n[r]);
}

static bool a_seat(int s)
{
    return s >= 0 && s < AI_SEATS;
}

/* Adds what one event shows of the other seats to the record. */
static void note(struct il_mind *m, const struct il_view *v, const struct il_event *e)
{
    bool mine = e->player == v->seat, to_me = e->target == v->seat;
    switch (e->type) {
    case IL_EV_GRABBED:
        if (a_seat(e->player) && e->resource < AI_RES)
            bump(&m->grabs[e->player][e->resource], 1);
        break;
    case IL_EV_OFFER_MADE:
        if (to_me && a_seat(e->player)) {
            count_cards(m->asked[e->player], &e->cards2);
            count_cards(m->gave[e->player], &e->cards);
        }
        break;
    case IL_EV_OFFER_ACCEPTED:
        if (mine && a_seat(e->target))
            count_cards(m->gave[e->target], &e->cards2);
        break;
    case IL_EV_OFFER_DECLINED:
        if (mine && a_seat(e->target))
            count_cards(m->kept[e->target], &e->cards2);
        break;
    case IL_EV_VOTE_WITHDRAWN:
        if (e->number < IL_MAX_CASES)
            m->vote_at[e->number] = 0; /* to vote again, after a while */
        break;
    default:
        break;
    }
}

/* -- When its moves are due ------------------------------------------------ */

void ai_offer_gap(const struct ai_level *l, const struct il_view *v, int64_t gap[2])
{
    int64_t spread = v->config.timer_ms[IL_TIMER_SESSION] / (l->offers + 2);
    gap[0] = spread > l->offer_every[1] ? spread / 2 : l->offer_every[0];
    gap[1] = spread > l->offer_every[1] ? spread : l->offer_every[1];
}

/* The first offer of a session; after a change, the next one it had to put
 * off (no seat to ask, nothing to pay with, enough offers open). */
static void plan_offers(struct il_mind *m, const struct il_view *v, int64_t now,
                        const struct ai_level *l, bool changed)
{
    int64_t gap[2];
    if (v->phase != IL_PHASE_DEALING)
        return;
    ai_offer_gap(l, v, gap);
    if (m->session != v->session) {
        m->session = v->session;
        m->made = 0;
        m->offer_at = ai_due(m, v, now, gap);
    } else if (changed && !m->offer_at && m->made < l->offers) {
        m->offer_at = ai_due(m, v, now, gap);
    }
}

static bool open_to_me(const struct il_view *v, uint32_t id)
{
    for (unsigned i = 0; i < v->noffers; i++)
        if (v->offers[i].id == id && v->offers[i].to == v->seat)
            return true;
    return false;
}

static int reply_slot(const struct il_mind *m, uint32_t id)
{
    for (unsigned i = 0; i < IL_MAX_OFFERS; i++)
        if (m->reply_at[i] && m->reply_id[i] == id)
            return (int)i;
    return -1;
}

/* An answer planned for each offer made to it, and none for the others. */
static void plan_replies(struct il_mind *m, const struct il_view *v, int64_t now,
                         const struct ai_level *l)
{
    for (unsigned i = 0; i < IL_MAX_OFFERS; i++)
        if (m->reply_at[i] && !open_to_me(v, m->reply_id[i]))
            m->reply_at[i] = m->reply_id[i] = 0;
    for (unsigned i = 0; i < v->noffers; i++) {
        if (v->offers[i].to != v->seat || reply_slot(m, v->offers[i].id) >= 0)
            continue;
        int free = -1;
        for (unsigned j = 0; free < 0 && j < IL_MAX_OFFERS; j++)
            if (!m->reply_at[j])
                free = (int)j;
        if (free >= 0) {
            m->reply_id[free] = v->offers[i].id;
            m->reply_at[free] = ai_due(m, v, now, l->reply_in);
        }
    }
}

static void plan_grab(struct il_mind *m, const struct il_view *v, int64_t now,
                      const struct ai_level *l)
{
    if (!ai_grabbing(v) || m->drop == v->drops)
        return;
    m->drop = v->drops;
    m->grab_at = ai_due(m, v, now, l->grab_in);
}

static void plan_votes(struct il_mind *m, const struct il_view *v, int64_t now,
                       const struct ai_level *l)
{
    for (unsigned k = 0; k < v->ncases && k < IL_MAX_CASES; k++)
        if (ai_to_vote(v, k) && !m->vote_at[k])
            m->vote_at[k] = ai_due(m, v, now, l->vote_in);
}

static int64_t earliest(int64_t a, int64_t b)
{
    return !a || (b && b < a) ? b : a;
}

/* The first move still waiting, or 0. */
static int64_t next_wake(const struct il_mind *m, const struct il_view *v)
{
    int64_t at = 0;
    if (!ai_playing(v) || v->paused)
        return 0;
    if (v->phase == IL_PHASE_DEALING)
        at = earliest(at, m->offer_at);
    for (unsigned i = 0; i < IL_MAX_OFFERS; i++)
        at = earliest(at, m->reply_at[i]);
    if (ai_grabbing(v))
        at = earliest(at, m->grab_at);
    for (unsigned k = 0; k < v->ncases && k < IL_MAX_CASES; k++)
        if (ai_to_vote(v, k))
            at = earliest(at, m->vote_at[k]);
    return at;
}

/* The goods it will pretend to buy: neither of its own. */
static void choose_decoy(struct il_mind *m, const struct il_view *v)
{
    unsigned res[AI_RES], n = 0;
    for (unsigned r = 0; r < AI_RES && m->decoy == AI_RES; r++)
        if ((v->in_play & (1u << r)) && r != v->buyer && r != v->dealer)
            res[n++] = r;
    if (n)
        m->decoy = (uint8_t)res[rng_below(&m->rng, n)];
}

void ai_plan(struct il_mind *m, const struct il_view *v, int64_t now, bool changed)
{
    const struct ai_level *l = ai_level_of(m);
    if (ai_playing(v)) {
        choose_decoy(m, v);
        plan_offers(m, v, now, l, changed);
        plan_replies(m, v, now, l);
        plan_grab(m, v, now, l);
        plan_votes(m, v, now, l);
    }
    m->wake = next_wake(m, v);
}

void ai_observe(void *memory, const void *view, int64_t now)
{
    struct il_mind *m = memory;
    const struct il_view *v = view;
    for (unsigned i = 0; i < v->seen.n && i < IL_MAX_EVENTS; i++)
        note(m, v, &v->seen.v[i]);
    ai_plan(m, v, now, true);
}

int64_t ai_wake(const void *memory)
{
    return ((const struct il_mind *)memory)->wake;
}
