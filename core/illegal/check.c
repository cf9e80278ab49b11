/*
 * check.c - il_game_check(): every invariant a game must keep, so that a
 * stored game can be trusted before it is played on.
 */
#include <string.h>

#include "../invariant.h"
#include "internal.h"

static bool in_play(const struct il_game *g, unsigned res)
{
    return res < IL_RESOURCES && (g->in_play & (1u << res));
}

static bool in_tribunal(enum il_phase p)
{
    return p == IL_PHASE_DEBATE || p == IL_PHASE_VOTE;
}

static bool in_drop(enum il_phase p)
{
    return p == IL_PHASE_DROP_REVEAL || p == IL_PHASE_DROP_GRAB;
}

static bool check_config(const struct il_game *g, char *why, size_t len)
{
    const struct il_config *c = &g->config;
    if ((unsigned)c->variant >= IL_VARIANTS)
        return invariant_fails(why, len, "variant %d out of range", (int)c->variant);
    if (c->tribunal >> IL_TRIBUNAL_OPTIONS)
        return invariant_fails(why, len, "unknown tribunal options %#x", (unsigned)c->tribunal);
    for (unsigned t = 0; t < IL_TIMERS; t++)
        if (!il_timer_ok(c->timer_ms[t]))
            return invariant_fails(why, len, "timer %s out of bounds",
                                   il_timer_id((enum il_timer)t));
    if (g->nplayers < IL_MIN_PLAYERS || g->nplayers > IL_MAX_PLAYERS)
        return invariant_fails(why, len, "%u players", (unsigned)g->nplayers);
    if (il_popcount8(g->in_play) != g->nplayers)
        return invariant_fails(why, len, "%u resources in play for %u players",
                               il_popcount8(g->in_play), (unsigned)g->nplayers);
    if (c->resources && c->resources != g->in_play)
        return invariant_fails(why, len, "resources in play differ from the configured ones");
    return true;
}

static bool check_flow(const struct il_game *g, char *why, size_t len)
{
    if ((unsigned)g->phase > IL_PHASE_OVER)
        return invariant_fails(why, len, "phase %d out of range", (int)g->phase);
    if (g->session < 1 || g->session > IL_SESSIONS || g->drops > IL_DROPS)
        return invariant_fails(why, len, "session %u, drops %u", (unsigned)g->session,
                               (unsigned)g->drops);
    bool ok;
    switch (g->phase) {
    case IL_PHASE_DEALING:
        ok = g->drops == g->session - 1;
        break;
    case IL_PHASE_DROP_REVEAL:
    case IL_PHASE_DROP_GRAB:
        ok = g->drops == g->session && !il_variant_casual(g->config.variant);
        break;
    case IL_PHASE_HOLD:
    case IL_PHASE_DEBATE:
    case IL_PHASE_VOTE:
        ok = g->session == IL_SESSIONS && g->drops == IL_DROPS;
        break;
    default:
        ok = g->drops == g->session - 1 || g->drops == g->session;
        break;
    }
    if (!ok)
        return invariant_fails(why, len, "phase %s with session %u and %u drops",
                               il_phase_id(g->phase), (unsigned)g->session, (unsigned)g->drops);

    int64_t far = IL_NOW_LIMIT + IL_TIMER_MAX_MS;
    if (g->deadline < -far || g->deadline > far)
        return invariant_fails(why, len, "deadline out of range");
    if (g->paused_remaining < 0 || g->paused_remaining > IL_TIMER_MAX_MS)
        return invariant_fails(why, len, "paused time out of range");
    if ((g->phase == IL_PHASE_OVER || g->paused) && g->deadline != 0)
        return invariant_fails(why, len, "a deadline runs while paused or over");
    if (g->phase == IL_PHASE_OVER && g->paused)
        return invariant_fails(why, len, "a finished game is paused");
    if (g->aborted && g->phase != IL_PHASE_OVER)
        return invariant_fails(why, len, "aborted in phase %s", il_phase_id(g->phase));
    if (!g->paused && g->paused_remaining != 0)
        return invariant_fails(why, len, "paused time kept while running");
    if (g->tribunal_at != 0 && (in_tribunal(g->phase) || g->phase == IL_PHASE_OVER ||
                                g->tribunal_at < -far || g->tribunal_at > far))
        return invariant_fails(why, len, "tribunal scheduled at %lld in phase %s",
                               (long long)g->tribunal_at, il_phase_id(g->phase));
    if (g->phase == IL_PHASE_HOLD && (g->paused || g->deadline != g->tribunal_at))
        return invariant_fails(why, len, "the hold runs on another clock than its schedule");
    return true;
}

/* Whether seat s may hold vote v on case k: any vote once judged, none on a
 * case not yet open, and only for a seat still playing while it is open. */
static bool vote_ok(const struct il_game *g, unsigned s, unsigned k, int v)
{
    if (v == IL_NOBODY)
        return true;
    if (v != IL_ABSTAINED && (v < 0 || v >= g->nplayers || v == (int)s))
        return false;
    if (il_case_judged(g, k))
        return true;
    return il_case_open(g, k) && g->players[s].active &&
           (v == IL_ABSTAINED || il_is_active_seat(g, v));
}

static bool check_players(const struct il_game *g, char *why, size_t len)
{
    uint8_t dealers = 0, buyers = 0, extras = 0;
    unsigned active = 0;
    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct il_player *p = &g->players[s];
        if (!in_play(g, p->dealer) || !in_play(g, p->buyer) || !in_play(g, p->extra))
            return invariant_fails(why, len, "seat %u: a deck resource is not in play", s);
        if (p->dealer == p->buyer)
            return invariant_fails(why, len, "seat %u deals what they buy", s);
        if (p->extra == p->dealer || p->extra == p->buyer)
            return invariant_fails(why, len, "seat %u: extra card matches a role", s);
        if ((dealers & (1u << p->dealer)) || (buyers & (1u << p->buyer)) ||
            (extras & (1u << p->extra)))
            return invariant_fails(why, len, "seat %u: a role or extra card is dealt twice", s);
        dealers |= (uint8_t)(1u << p->dealer);
        buyers |= (uint8_t)(1u << p->buyer);
        extras |= (uint8_t)(1u << p->extra);
        for (unsigned o = 0; o < g->nplayers; o++)
            if (g->players[o].dealer == p->buyer && g->players[o].buyer == p->dealer)
                return invariant_fails(why, len, "seats %u and %u hold mirror decks", s, o);
        if (!il_bundle_within(&p->hand, g->in_play))
            return invariant_fails(why, len, "seat %u holds a card not in play", s);

        if (p->active) {
            active++;
            for (unsigned r = 0; r < IL_RESOURCES; r++) {
                unsigned d = p->hand.n[IL_CARD(IL_KIND_DEALER, r)];
                unsigned b = p->hand.n[IL_CARD(IL_KIND_BUYER, r)];
                if (d != (r == p->dealer) || b != (r == p->buyer))
                    return invariant_fails(why, len,
                                           "seat %u does not hold exactly their own roles", s);
            }
        } else if (!invariant_zero(&p->hand, sizeof p->hand) || p->grabbed) {
            return invariant_fails(why, len, "removed seat %u still holds cards or acts", s);
        }
        if (p->grabbed && g->phase != IL_PHASE_DROP_GRAB)
            return invariant_fails(why, len, "seat %u grabbed outside a grab window", s);
        for (unsigned k = 0; k < IL_MAX_CASES; k++)
            if (!vote_ok(g, s, k, p->votes[k]))
                return invariant_fails(why, len, "seat %u: vote %d on case %u not allowed", s,
                                       p->votes[k], k);
        int want = g->phase == IL_PHASE_OVER && p->active ? il_score(g, s) : 0;
        if (p->score != want)
            return invariant_fails(why, len, "seat %u: score %d, expected %d", s, p->score, want);
    }
    for (unsigned s = g->nplayers; s < IL_MAX_PLAYERS; s++)
        if (!invariant_zero(&g->players[s], sizeof g->players[s]))
            return invariant_fails(why, len, "unused seat %u is not empty", s);
    if (active < (g->phase == IL_PHASE_OVER ? 2u : 3u))
        return invariant_fails(why, len, "only %u active players", active);
    return true;
}

static bool check_drop(const struct il_game *g, char *why, size_t len)
{
    if (!in_drop(g->phase)) {
        if (g->drop_count || g->drop_shown ||
            !invariant_zero(g->drop_cards, sizeof g->drop_cards) ||
            !invariant_zero(g->drop_taken, sizeof g->drop_taken))
            return invariant_fails(why, len, "drop cards outside a drop");
        return true;
    }
    if (g->drop_count != g->nplayers)
        return invariant_fails(why, len, "drop of %u cards", (unsigned)g->drop_count);
    uint8_t seen = 0;
    unsigned taken = 0, grabbed = 0;
    for (unsigned i = 0; i < IL_RESOURCES; i++) {
        if (i >= g->drop_count) {
            if (g->drop_cards[i] || g->drop_taken[i])
                return invariant_fails(why, len, "unused drop slot %u is not empty", i);
            continue;
        }
        unsigned r = g->drop_cards[i];
        if (!in_play(g, r) || (seen & (1u << r)))
            return invariant_fails(why, len, "drop card %u is not a fresh card in play", i);
        seen |= (uint8_t)(1u << r);
        taken += g->drop_taken[i];
    }
    for (unsigned s = 0; s < g->nplayers; s++)
        grabbed += g->players[s].active && g->players[s].grabbed;
    if (g->phase == IL_PHASE_DROP_REVEAL) {
        if (g->drop_shown < 1 || g->drop_shown >= g->drop_count || taken)
            return invariant_fails(why, len, "reveal with %u shown, %u taken",
                                   (unsigned)g->drop_shown, taken);
    } else {
        if (g->drop_shown != g->drop_count)
            return invariant_fails(why, len, "grab window before every card is shown");
        /* Cards go only to active players and to players removed since;
         * enough must be left for everyone still waiting. */
        unsigned active = il_active_count(g);
        if (taken < grabbed || taken > grabbed + (g->nplayers - active) || grabbed == active)
            return invariant_fails(why, len, "%u drop cards taken for %u grabs", taken, grabbed);
        if (active - grabbed == 1 && g->drop_count - taken == 1)
            return invariant_fails(why, len,
                                   "a grab window waits for a card that can go to one player only");
    }
    return true;
}

static bool check_offers(const struct il_game *g, char *why, size_t len)
{
    if (g->noffers > IL_MAX_OFFERS || (g->noffers && g->phase != IL_PHASE_DEALING))
        return invariant_fails(why, len, "%u open offers in phase %s", (unsigned)g->noffers,
                               il_phase_id(g->phase));
    if (g->next_offer_id < 1)
        return invariant_fails(why, len, "offer ids start at 1");
    unsigned from[IL_MAX_PLAYERS] = {0};
    uint32_t last = 0;
    for (unsigned i = 0; i < g->noffers; i++) {
        const struct il_offer *o = &g->offers[i];
        if (o->id <= last || o->id >= g->next_offer_id)
            return invariant_fails(why, len, "offer %u has a bad id %u", i, (unsigned)o->id);
        last = o->id;
        if (o->from == o->to || !il_is_active_seat(g, o->from) || !il_is_active_seat(g, o->to))
            return invariant_fails(why, len, "offer %u between bad seats", (unsigned)o->id);
        if (!il_bundle_only_resources(&o->give) || !il_bundle_only_resources(&o->ask) ||
            !il_bundle_within(&o->give, g->in_play) || !il_bundle_within(&o->ask, g->in_play) ||
            il_bundle_total(&o->give) + il_bundle_total(&o->ask) == 0)
            return invariant_fails(why, len, "offer %u holds bad cards", (unsigned)o->id);
        if (++from[o->from] > IL_MAX_OFFERS_FROM)
            return invariant_fails(why, len, "seat %u has too many offers", (unsigned)o->from);
    }
    for (unsigned i = g->noffers; i < IL_MAX_OFFERS; i++)
        if (!invariant_zero(&g->offers[i], sizeof g->offers[i]))
            return invariant_fails(why, len, "unused offer slot %u is not empty", i);
    return true;
}

/* The trade log: between two seats of the game, in a session played, with
 * resources in play, at most one per offer made, empty slots zero. */
static bool check_trades(const struct il_game *g, char *why, size_t len)
{
    unsigned kept = g->ntrades < IL_MAX_TRADES ? g->ntrades : IL_MAX_TRADES;
    if (g->ntrades >= g->next_offer_id)
        return invariant_fails(why, len, "%u trades from %u offers", (unsigned)g->ntrades,
                               (unsigned)g->next_offer_id - 1);
    for (unsigned i = 0; i < kept; i++) {
        const struct il_trade *t = &g->trades[i];
        unsigned cards = 0;
        if (t->from == t->to || t->from >= g->nplayers || t->to >= g->nplayers || t->session < 1 ||
            t->session > g->session || (i > 0 && t->session < g->trades[i - 1].session))
            return invariant_fails(why, len, "trade %u: bad seats or session", i);
        for (unsigned r = 0; r < IL_RESOURCES; r++) {
            if ((t->give[r] || t->ask[r]) && !in_play(g, r))
                return invariant_fails(why, len, "trade %u: a resource not in play", i);
            cards += t->give[r] + t->ask[r];
        }
        if (cards == 0)
            return invariant_fails(why, len, "trade %u is empty", i);
    }
    for (unsigned i = kept; i < IL_MAX_TRADES; i++)
        if (!invariant_zero(&g->trades[i], sizeof g->trades[i]))
            return invariant_fails(why, len, "unused trade slot %u is not empty", i);
    return true;
}

/* The owner of a suspect card: the seat whose role it names. */
static int suspect_owner(const struct il_game *g, unsigned type)
{
    for (unsigned s = 0; s < g->nplayers; s++) {
        const struct il_player *p = &g->players[s];
        if (type == IL_CARD(IL_KIND_DEALER_SUSPECT, p->dealer) ||
            type == IL_CARD(IL_KIND_BUYER_SUSPECT, p->buyer))
            return (int)s;
    }
    return -1;
}

static bool check_cases(const struct il_game *g, char *why, size_t len)
{
    if (g->ncases > IL_MAX_CASES || g->case_index > g->ncases)
        return invariant_fails(why, len, "case %u of %u", (unsigned)g->case_index,
                               (unsigned)g->ncases);
    if (in_tribunal(g->phase)       ? g->case_index >= g->ncases
        : g->phase == IL_PHASE_OVER ? g->case_index != g->ncases
                                    : g->case_index != 0)
        return invariant_fails(why, len, "case index %u in phase %s", (unsigned)g->case_index,
                               il_phase_id(g->phase));
    /* Early verdicts: only in a parallel tribunal that closes early, only on
     * cases open now, and never all of them (the tribunal would have moved on). */
    unsigned open = g->ncases > g->case_index ? g->ncases - g->case_index : 0;
    uint32_t range = open ? ((1u << open) - 1u) << g->case_index : 0;
    if (g->judged && (!(g->config.tribunal & IL_TRIBUNAL_PARALLEL) ||
                      !(g->config.tribunal & IL_TRIBUNAL_CLOSE_EARLY) ||
                      (g->phase != IL_PHASE_VOTE && g->phase != IL_PHASE_DEBATE) ||
                      (g->judged & ~range) || g->judged == range))
        return invariant_fails(why, len, "cases judged early 0x%x with cases %u..%u open",
                               g->judged, (unsigned)g->case_index, (unsigned)g->ncases);
    bool pairs = !il_variant_singles(g->config.variant);
    uint8_t seen[IL_CARD_TYPES] = {0};
    for (unsigned i = 0; i < g->ncases; i++) {
        const struct il_case *k = &g->cases[i];
        if (k->ncards != (pairs ? 2 : 1))
            return invariant_fails(why, len, "case %u has %u cards", i, (unsigned)k->ncards);
        for (unsigned n = 0; n < 2; n++) {
            unsigned t = k->cards[n];
            if (n >= k->ncards) {
                if (t)
                    return invariant_fails(why, len, "case %u has a stray card", i);
                continue;
            }
            enum il_card_kind kind = t < IL_CARD_TYPES ? IL_CARD_KIND(t) : IL_KINDS;
            if ((kind != IL_KIND_DEALER_SUSPECT && kind != IL_KIND_BUYER_SUSPECT) ||
                (pairs && kind != (n == 0 ? IL_KIND_DEALER_SUSPECT : IL_KIND_BUYER_SUSPECT)) ||
                suspect_owner(g, t) < 0 || seen[t]++)
                return invariant_fails(why, len, "case %u holds a bad card", i);
        }
        if (pairs && suspect_owner(g, k->cards[0]) != suspect_owner(g, k->cards[1]))
            return invariant_fails(why, len, "case %u pairs two decks", i);
    }
    for (unsigned i = g->ncases; i < IL_MAX_CASES; i++)
        if (!invariant_zero(&g->cases[i], sizeof g->cases[i]))
            return invariant_fails(why, len, "unused case slot %u is not empty", i);
    return true;
}

static bool check_cards(const struct il_game *g, char *why, size_t len)
{
    if (!il_bundle_within(&g->discard, g->in_play))
        return invariant_fails(why, len, "discard holds a card not in play");
    unsigned count[IL_CARD_TYPES] = {0};
    for (unsigned s = 0; s < g->nplayers; s++)
        for (unsigned t = 0; t < IL_CARD_TYPES; t++)
            count[t] += g->players[s].hand.n[t];
    for (unsigned t = 0; t < IL_CARD_TYPES; t++)
        count[t] += g->discard.n[t];
    for (unsigned i = 0; i < g->drop_count; i++)
        if (!g->drop_taken[i])
            count[IL_CARD(IL_KIND_RESOURCE, g->drop_cards[i])]++;
    for (unsigned i = g->case_index; i < g->ncases; i++)
        for (unsigned n = 0; !il_case_judged(g, i) && n < g->cases[i].ncards; n++)
            count[g->cases[i].cards[n]]++;

    bool before = !in_tribunal(g->phase) && g->phase != IL_PHASE_OVER;
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        if (!in_play(g, r))
            continue;
        unsigned res = count[IL_CARD(IL_KIND_RESOURCE, r)] + IL_DROPS - g->drops;
        if (res != IL_CARDS_PER_TYPE)
            return invariant_fails(why, len, "%u %s cards", res, il_resource_id(r));
        for (unsigned k = IL_KIND_DEALER; k < IL_KINDS; k++) {
            unsigned t = IL_CARD(k, r);
            if (count[t] != 1)
                return invariant_fails(why, len, "%u copies of %s", count[t], il_card_id(t));
        }
        for (unsigned k = IL_KIND_DEALER; k <= IL_KIND_BUYER; k++) {
            unsigned t = IL_CARD(k, r);
            int owner = suspect_owner(g, IL_CARD(k + 2, r));
            if (owner < 0 || g->discard.n[t] != !g->players[owner].active)
                return invariant_fails(why, len, "%s is misplaced", il_card_id(t));
        }
        for (unsigned k = IL_KIND_DEALER_SUSPECT; k < IL_KINDS && before; k++) {
            unsigned t = IL_CARD(k, r);
            int owner = suspect_owner(g, t);
            if (g->discard.n[t] && g->players[owner].active)
                return invariant_fails(why, len, "%s set aside before the tribunal", il_card_id(t));
            for (unsigned s = 0; s < g->nplayers; s++)
                if (g->players[s].hand.n[t])
                    return invariant_fails(why, len, "%s held before the tribunal", il_card_id(t));
        }
    }
    return true;
}

bool il_game_check(const struct il_game *g, char *why, size_t whylen)
{
    return check_config(g, why, whylen) && check_flow(g, why, whylen) &&
           check_players(g, why, whylen) && check_drop(g, why, whylen) &&
           check_offers(g, why, whylen) && check_trades(g, why, whylen) &&
           check_cases(g, why, whylen) && check_cards(g, why, whylen);
}
