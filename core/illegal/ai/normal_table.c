/*
 * normal_table.c - the normal computer player at the table, where everyone
 * sees what it does: the drops and the tribunal.
 *
 * A grab is public, and a seat seen grabbing a resource is suspected of
 * buying it: so it grabs what it can trade for its goods, or its own
 * dealer's goods as a bluff, and its goods only when nothing else is left.
 * It votes for the seat its record points at; on a case that names its own
 * role it votes for the seat the table most suspects, to draw the votes off.
 */
#include <limits.h>

#include "ai.h"

#define BLUFF 1 /* what a grab of its own dealer's goods is worth, as a bluff */

static int grab_worth(struct il_mind *m, const struct il_view *v, unsigned r)
{
    if (r == v->buyer)
        return 0; /* a point, but the table would see whose goods they are */
    return ai_worth(m, v, r) + (r == v->dealer ? BLUFF : 0);
}

#define PATIENCE_MS 25000 /* how long a person would sit on a drop before grabbing */

/* When a patient seat grabs after all: with a quarter of the grab time left,
 * or once a person would have given up waiting, whichever comes first (two
 * patient computers would otherwise wait for each other on a long timer). */
static int64_t patience_ends(const struct il_view *v)
{
    int64_t grab = v->config.timer_ms[IL_TIMER_GRAB];
    int64_t quarter_left = v->deadline - grab / 4;
    int64_t given_up = v->deadline - grab + PATIENCE_MS;
    return quarter_left < given_up ? quarter_left : given_up;
}

/* Whether to let the others grab first: while its goods lie on the table
 * and there is time, the last one waiting gets the last card unseen. */
static bool patient(const struct il_view *v, int64_t now)
{
    bool goods = false;
    unsigned waiting = 0;
    for (unsigned i = 0; i < v->drop_shown && i < AI_RES; i++)
        goods |= !v->drop_taken[i] && v->drop_cards[i] == v->buyer;
    for (unsigned s = 0; s < v->nplayers; s++)
        waiting += s != v->seat && ai_is_active(v, s) && !(v->grabbed & (1u << s));
    return goods && waiting && now < patience_ends(v);
}

bool ai_normal_grab(struct il_mind *m, const struct il_view *v, int64_t now, struct il_action *a)
{
    if (patient(v, now)) {
        m->grab_at = patience_ends(v);
        return false;
    }
    int best = -1, top = INT_MIN;
    unsigned ties = 0;
    for (unsigned i = 0; i < v->drop_shown && i < AI_RES; i++) {
        if (v->drop_taken[i])
            continue;
        unsigned r = v->drop_cards[i];
        int w = grab_worth(m, v, r);
        if (w > top) {
            top = w;
            best = (int)r;
            ties = 1;
        } else if (w == top && rng_below(&m->rng, ++ties) == 0) {
            best = (int)r;
        }
    }
    if (best < 0)
        return false;
    a->type = IL_ACT_GRAB;
    a->resource = (uint8_t)best;
    return true;
}

bool ai_normal_vote(struct il_mind *m, const struct il_view *v, unsigned k, struct il_action *a)
{
    bool mine = ai_case_mine(v, k);
    int score[AI_SEATS] = {0};
    for (unsigned s = 0; s < v->nplayers; s++) {
        int seen = ai_public_suspicion(m, v, s, k), known = ai_suspicion(m, v, s, k);
        score[s] = mine ? 4 * seen + known : 4 * known + seen;
    }
    int target = ai_best_seat(m, v, score, INT_MIN);
    a->number = (uint8_t)k;
    a->type = target >= 0 ? IL_ACT_VOTE : IL_ACT_ABSTAIN;
    a->target = (int8_t)target;
    return true;
}
