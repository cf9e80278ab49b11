/*
 * evidence.c - what a computer seat's record suggests of the others.
 *
 * People ask for what they buy, hand over what they deal (the dealer starts
 * with five), keep what they buy, and grab what they buy when a drop lands.
 * Each count weighs as much as the move tells; asks in private weigh most,
 * since nobody but the one asked sees them.
 */
#include "ai.h"

int ai_buys(const struct il_mind *m, unsigned s, unsigned r)
{
    return 3 * m->asked[s][r] + 2 * m->grabs[s][r] + m->kept[s][r] - 4 * m->gave[s][r];
}

int ai_deals(const struct il_mind *m, unsigned s, unsigned r)
{
    int gave = m->gave[s][r];
    return 2 * gave + (gave >= 3 ? 4 : 0) - 3 * m->asked[s][r] - 2 * m->grabs[s][r];
}

int ai_has(const struct il_mind *m, unsigned s, unsigned r)
{
    return 3 * m->gave[s][r] + m->grabs[s][r] - 2 * m->kept[s][r];
}

int ai_public_suspicion(const struct il_mind *m, const struct il_view *v, unsigned s, unsigned k)
{
    int b = ai_case_buyer(v, k);
    return b >= 0 ? m->grabs[s][b] : 0;
}

int ai_suspicion(const struct il_mind *m, const struct il_view *v, unsigned s, unsigned k)
{
    int b = ai_case_buyer(v, k), d = ai_case_dealer(v, k), score = 0;
    if (b >= 0)
        score += ai_buys(m, s, (unsigned)b);
    if (d >= 0)
        score += ai_deals(m, s, (unsigned)d);
    return score;
}
