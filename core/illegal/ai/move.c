/*
 * move.c - the move a computer seat makes when one is due: an answer to an
 * offer first, then a grab, a vote, an offer of its own.
 */
#include <string.h>

#include "ai.h"

static const struct il_offer *offer_by_id(const struct il_view *v, uint32_t id)
{
    for (unsigned i = 0; i < v->noffers; i++)
        if (v->offers[i].id == id)
            return &v->offers[i];
    return NULL;
}

/* The answer due first (the earliest, then the oldest offer). */
static bool act_reply(struct il_mind *m, const struct il_view *v, int64_t now,
                      const struct ai_level *l, struct il_action *a)
{
    int best = -1;
    for (unsigned i = 0; i < IL_MAX_OFFERS; i++)
        if (m->reply_at[i] && m->reply_at[i] <= now &&
            (best < 0 || m->reply_at[i] < m->reply_at[best] ||
             (m->reply_at[i] == m->reply_at[best] && m->reply_id[i] < m->reply_id[best])))
            best = (int)i;
    const struct il_offer *o = best >= 0 ? offer_by_id(v, m->reply_id[best]) : NULL;
    if (!o)
        return false; /* gone: plan() forgets it */
    if (o->id == m->accepted) {
        /* Still open after its accept: the rules refused it, the offerer no
         * longer holding the cards. A person turns it down then. */
        a->type = IL_ACT_DECLINE;
        a->offer_id = o->id;
    } else if (!l->reply(m, v, o, a)) {
        m->reply_at[best] = ai_due(m, v, now, l->reply_in);
        return false;
    }
    if (a->type == IL_ACT_ACCEPT)
        m->accepted = o->id;
    /* A cancellation first frees the cards the answer needs: it follows. */
    if (a->type != IL_ACT_CANCEL)
        m->reply_at[best] = m->reply_id[best] = 0;
    return true;
}

static bool act_grab(struct il_mind *m, const struct il_view *v, int64_t now,
                     const struct ai_level *l, struct il_action *a)
{
    if (!ai_grabbing(v) || !m->grab_at || m->grab_at > now)
        return false;
    m->grab_at = ai_due(m, v, now, l->grab_in); /* again, should this one be refused or wait */
    return l->grab(m, v, now, a);
}

static bool act_vote(struct il_mind *m, const struct il_view *v, int64_t now,
                     const struct ai_level *l, struct il_action *a)
{
    for (unsigned k = 0; k < v->ncases && k < IL_MAX_CASES; k++) {
        if (!ai_to_vote(v, k) || !m->vote_at[k] || m->vote_at[k] > now)
            continue;
        m->vote_at[k] = ai_due(m, v, now, l->vote_in); /* again, should this one be refused */
        if (l->vote(m, v, k, a))
            return true;
    }
    return false;
}

/* Cancels an offer it can no longer pay, the newest first: a seat taken
 * over from a person may have promised more than it holds. */
static bool cancel_unpaid(const struct il_view *v, struct il_action *a)
{
    struct il_bundle promised;
    ai_promised(v, &promised);
    for (unsigned i = v->noffers; i-- > 0;) {
        const struct il_offer *o = &v->offers[i];
        if (o->from != v->seat || ai_holds(&v->hand, &promised))
            continue;
        a->type = IL_ACT_CANCEL;
        a->offer_id = o->id;
        return true;
    }
    return false;
}

static bool act_offer(struct il_mind *m, const struct il_view *v, int64_t now,
                      const struct ai_level *l, struct il_action *a)
{
    int64_t gap[2];
    if (v->phase != IL_PHASE_DEALING || !m->offer_at || m->offer_at > now)
        return false;
    if (cancel_unpaid(v, a))
        return true;
    bool late = v->deadline && v->deadline - now < ai_delay(m, l->reply_in);
    if (m->made >= l->offers || late || ai_open_offers(v) >= l->open || !l->offer(m, v, a)) {
        m->offer_at = 0; /* until a change (plan_offers) */
        return false;
    }
    m->made++;
    ai_offer_gap(l, v, gap);
    m->offer_at = ai_due(m, v, now, gap);
    return true;
}

bool ai_act(void *memory, const void *view, int64_t now, void *action)
{
    struct il_mind *m = memory;
    const struct il_view *v = view;
    const struct ai_level *l = ai_level_of(m);
    struct il_action *a = action;
    memset(a, 0, sizeof *a);
    a->player = (int8_t)v->seat;
    a->target = IL_NOBODY;
    bool moved = ai_playing(v) && !v->paused &&
                 (act_reply(m, v, now, l, a) || act_grab(m, v, now, l, a) ||
                  act_vote(m, v, now, l, a) || act_offer(m, v, now, l, a));
    ai_plan(m, v, now, false);
    return moved;
}
