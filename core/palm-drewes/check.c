/*
 * check.c - pd_game_check(): every invariant a game keeps, numbered as in
 * README.md ("Invariants"), so that a stored game can be trusted before it
 * is played on, and a bug is caught at the step that made it.
 */

#include "../invariant.h"
#include "internal.h"

/* 1. The settings lie within their bounds. 2. Seats and the series fit. */
static bool check_setup(const struct pd_game *g, char *why, size_t len)
{
    const struct pd_config *c = &g->config;
    for (unsigned t = 0; t < PD_TIMERS; t++)
        if (!pd_timer_ok(c->timer_ms[t]))
            return invariant_fails(why, len, "1: timer %s out of bounds",
                                   pd_timer_id((enum pd_timer)t));
    if (!pd_reminder_ok(c->reminder_ms) || !pd_series_target_ok(c->series_target))
        return invariant_fails(why, len, "1: reminder or series goal out of bounds");
    if (g->nplayers < PD_MIN_PLAYERS || g->nplayers > PD_MAX_PLAYERS)
        return invariant_fails(why, len, "2: %u players", (unsigned)g->nplayers);
    if (g->dealer >= g->nplayers || g->current >= g->nplayers)
        return invariant_fails(why, len, "2: dealer %u, current %u", (unsigned)g->dealer,
                               (unsigned)g->current);
    if (!pd_series_ok(&g->series) || g->series.nplayers != g->nplayers)
        return invariant_fails(why, len, "2: the series is out of bounds");
    if (g->series.games && pd_series_winners(&g->series, c->series_target))
        return invariant_fails(why, len, "2: the series this game continues is already won");
    for (unsigned s = g->nplayers; s < PD_MAX_PLAYERS; s++)
        if (!invariant_zero(&g->players[s], sizeof g->players[s]))
            return invariant_fails(why, len, "2: seat %u is beyond the table but not empty", s);
    if (g->turns < 1 || g->next_offer_id < 1)
        return invariant_fails(why, len, "2: %u turns, next offer %u", (unsigned)g->turns,
                               (unsigned)g->next_offer_id);
    return true;
}

/* 3. The phase and the end agree. 4. The clock runs only while it may. */
static bool check_clock(const struct pd_game *g, char *why, size_t len)
{
    bool over = g->phase == PD_PHASE_OVER;
    if ((unsigned)g->phase >= PD_PHASES || (unsigned)g->end > PD_END_PLAYERS)
        return invariant_fails(why, len, "3: phase %d, end %d", (int)g->phase, (int)g->end);
    if (over != (g->end != PD_END_NONE))
        return invariant_fails(why, len, "3: phase %s with end %s", pd_phase_id(g->phase),
                               pd_end_id(g->end));
    int64_t far = PD_NOW_LIMIT + PD_TIMER_MAX_MS;
    if (g->deadline < -far || g->deadline > far || g->remind_at < -far || g->remind_at > far)
        return invariant_fails(why, len, "4: deadline out of range");
    if (g->paused_remaining < 0 || g->paused_remaining > PD_TIMER_MAX_MS)
        return invariant_fails(why, len, "4: paused time out of range");
    if ((over || g->paused) && (g->deadline != 0 || g->remind_at != 0))
        return invariant_fails(why, len, "4: a deadline runs while paused or over");
    if (!over && !g->paused && g->deadline == 0)
        return invariant_fails(why, len, "4: a running step with no deadline");
    if (over && g->paused)
        return invariant_fails(why, len, "4: a finished game is paused");
    if (!g->paused && g->paused_remaining != 0)
        return invariant_fails(why, len, "4: paused time kept while running");
    if (g->remind_at && (g->remind_at >= g->deadline || g->phase == PD_PHASE_WINDOW))
        return invariant_fails(why, len, "4: a reminder after its deadline, or in the window");
    return true;
}

/* 5. Every card of the box is in exactly one place. */
static bool check_cards(const struct pd_game *g, char *why, size_t len)
{
    unsigned n[PD_CARDS] = {0};
    if (g->npile > PD_DECK_SIZE - PD_HAND_SIZE * g->nplayers)
        return invariant_fails(why, len, "5: %u cards in the pile", (unsigned)g->npile);
    for (unsigned i = 0; i < PD_DECK_SIZE; i++) {
        if (i >= g->npile && g->pile[i] != 0)
            return invariant_fails(why, len, "5: pile slot %u beyond the pile is not empty", i);
        if (i < g->npile && g->pile[i] >= PD_CARDS)
            return invariant_fails(why, len, "5: pile slot %u holds no card", i);
        if (i < g->npile)
            n[g->pile[i]]++;
    }
    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct pd_player *p = &g->players[s];
        for (unsigned t = 0; t < PD_CARDS; t++)
            n[t] += p->hand.n[t] + p->business.n[t];
        if (p->burden != PD_NONE && p->burden < PD_CARDS)
            n[p->burden]++;
    }
    if (g->takeover_card < PD_CARDS)
        n[g->takeover_card]++;
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (n[t] + g->discard.n[t] != pd_card_count(t))
            return invariant_fails(why, len, "5: %u of %s instead of %u", n[t] + g->discard.n[t],
                                   pd_card_id(t), pd_card_count(t));
    return true;
}

/* 6. A business holds one opening at most and deals only beside one; a
 * burden lies only on an opening. */
static bool check_business(const struct pd_game *g, unsigned s, char *why, size_t len)
{
    const struct pd_player *p = &g->players[s];
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (p->business.n[t] && t != PD_OPENING && !pd_card_is_deal(t))
            return invariant_fails(why, len, "6: seat %u has %s in their business", s,
                                   pd_card_id(t));
    bool open = p->business.n[PD_OPENING] == 1;
    if (p->business.n[PD_OPENING] > 1 || (!open && pd_bundle_total(&p->business) != 0))
        return invariant_fails(why, len, "6: seat %u has deals without one opening", s);
    if (p->burden != PD_NONE &&
        (p->burden >= PD_CARDS || pd_card_kind(p->burden) != PD_KIND_BURDEN))
        return invariant_fails(why, len, "6: seat %u carries no burden card as a burden", s);
    if (p->burden != PD_NONE && !open)
        return invariant_fails(why, len, "6: seat %u carries a burden without an opening", s);
    return true;
}

/* 7. Removed players hold nothing; 8. the current player plays on; 9. hands
 * are empty only between a move and its draw. */
static bool check_players(const struct pd_game *g, char *why, size_t len)
{
    bool over = g->phase == PD_PHASE_OVER;
    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct pd_player *p = &g->players[s];
        if (!check_business(g, s, why, len))
            return false;
        if (p->skips > PD_MAX_SKIPS)
            return invariant_fails(why, len, "7: seat %u sits out %u turns", s, (unsigned)p->skips);
        if (!p->active && (pd_bundle_total(&p->hand) || pd_bundle_total(&p->business) ||
                           p->burden != PD_NONE || p->skips || p->score))
            return invariant_fails(why, len, "7: removed seat %u still holds something", s);
        if (p->active && over && p->score != pd_score(g, s))
            return invariant_fails(why, len, "7: seat %u's score is not the reckoning's", s);
        if (!over && p->score != 0)
            return invariant_fails(why, len, "7: seat %u has a score before the end", s);
        bool may_be_empty = over || (s == g->current && g->phase != PD_PHASE_TURN);
        if (p->active && !may_be_empty && pd_bundle_total(&p->hand) == 0)
            return invariant_fails(why, len, "9: seat %u holds no card in phase %s", s,
                                   pd_phase_id(g->phase));
    }
    /* A pass goes on when the player whose nuisance card began it is removed. */
    if (!over && g->phase != PD_PHASE_PASS && !g->players[g->current].active)
        return invariant_fails(why, len, "8: the current seat %u was removed",
                               (unsigned)g->current);
    if (!over && pd_active_count(g) < PD_MIN_PLAYERS)
        return invariant_fails(why, len, "8: fewer than two players left");
    if ((g->phase == PD_PHASE_TURN || g->phase == PD_PHASE_WINDOW) && g->players[g->current].skips)
        return invariant_fails(why, len, "8: the current seat sits out its own turn");
    return true;
}

/* 10. Offers: only in a turn, from its player, well formed, in id order. */
static bool check_offers(const struct pd_game *g, char *why, size_t len)
{
    if (g->noffers > PD_MAX_OFFERS || (g->noffers && g->phase != PD_PHASE_TURN))
        return invariant_fails(why, len, "10: %u offers in phase %s", (unsigned)g->noffers,
                               pd_phase_id(g->phase));
    uint32_t last = 0;
    for (unsigned i = 0; i < PD_MAX_OFFERS; i++) {
        const struct pd_offer *o = &g->offers[i];
        if (i >= g->noffers) {
            if (!invariant_zero(o, sizeof *o))
                return invariant_fails(why, len, "10: offer slot %u is not empty", i);
            continue;
        }
        if (o->id <= last || o->id >= g->next_offer_id)
            return invariant_fails(why, len, "10: offer ids out of order");
        last = o->id;
        if (o->to == g->current || !pd_is_active(g, o->to))
            return invariant_fails(why, len, "10: offer %u to seat %u", (unsigned)o->id,
                                   (unsigned)o->to);
        if (pd_bundle_total(&o->give) == 0)
            return invariant_fails(why, len, "10: offer %u gives nothing", (unsigned)o->id);
        for (unsigned t = 0; t < PD_CARDS; t++)
            if (o->give.n[t] > pd_card_count(t) || o->ask.n[t] > pd_card_count(t))
                return invariant_fails(why, len, "10: offer %u is beyond the box", (unsigned)o->id);
    }
    return true;
}

/* 11. The pass: choices only while it runs, of cards held, and someone is
 * still choosing (else it would be done). */
static bool check_pass(const struct pd_game *g, char *why, size_t len)
{
    unsigned waiting = 0;
    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct pd_player *p = &g->players[s];
        if (p->pass == PD_NONE) {
            waiting += p->active && pd_bundle_total(&p->hand) > 0;
            continue;
        }
        if (g->phase != PD_PHASE_PASS || !p->active || p->pass >= PD_CARDS || !p->hand.n[p->pass])
            return invariant_fails(why, len, "11: seat %u passes a card it may not", s);
    }
    if (g->phase == PD_PHASE_PASS && waiting == 0)
        return invariant_fails(why, len, "11: a pass that everyone has chosen for is still open");
    return true;
}

/* 12. The window: a takeover held while it is open, of a deal that is there;
 * waivers only in it, and not yet from everyone. */
static bool check_window(const struct pd_game *g, char *why, size_t len)
{
    bool open = g->phase == PD_PHASE_WINDOW;
    unsigned waived = 0, others = 0;
    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct pd_player *p = &g->players[s];
        if (p->waived && (!open || !p->active || s == g->current))
            return invariant_fails(why, len, "12: seat %u waived out of the window", s);
        if (p->active && s != g->current) {
            others++;
            waived += p->waived;
        }
    }
    if (!open) {
        if (g->takeover_card != PD_NONE || g->takeover_deal != PD_NONE ||
            g->takeover_victim != PD_NONE)
            return invariant_fails(why, len, "12: a takeover held outside the window");
        return true;
    }
    unsigned v = g->takeover_victim;
    if (g->takeover_card != PD_TAKEOVER && g->takeover_card != PD_CONNECTIONS)
        return invariant_fails(why, len, "12: the window holds no takeover card");
    if (v == g->current || !pd_is_active(g, (int)v) || !pd_card_is_deal(g->takeover_deal) ||
        !g->players[v].business.n[g->takeover_deal])
        return invariant_fails(why, len, "12: the takeover names no deal of another player");
    if (waived == others)
        return invariant_fails(why, len, "12: everyone waived, yet the window is open");
    return true;
}

/* 13. A loss waits only on a burden that takes a deal, with a choice to make. */
static bool check_loss(const struct pd_game *g, char *why, size_t len)
{
    if (g->phase != PD_PHASE_LOSS)
        return true;
    const struct pd_player *p = &g->players[g->current];
    bool raid = p->burden == PD_RAID;
    if (!raid && p->burden != PD_PROTECTION)
        return invariant_fails(why, len, "13: a loss without raid or protection money");
    unsigned kinds = pd_kinds_where(&p->business, raid ? pd_card_is_illegal : pd_card_is_deal);
    if (kinds < 2)
        return invariant_fails(why, len, "13: a loss with %u kinds of deal to choose from", kinds);
    return true;
}

bool pd_game_check(const struct pd_game *g, char *why, size_t len)
{
    return check_setup(g, why, len) && check_clock(g, why, len) && check_cards(g, why, len) &&
           check_players(g, why, len) && check_offers(g, why, len) && check_pass(g, why, len) &&
           check_window(g, why, len) && check_loss(g, why, len);
}
