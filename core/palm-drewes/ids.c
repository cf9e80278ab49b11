/*
 * ids.c - the stable identifiers of timers, phases, ends, events and errors:
 * what storage writes and what catalog keys are made of.
 */
#include <string.h>

#include "internal.h"

static const char *const timer_ids[PD_TIMERS] = {"turn", "window", "pass", "choice"};

static const char *const phase_ids[PD_PHASES] = {"turn", "window", "pass", "loss", "over"};

static const char *const end_ids[] = {
    [PD_END_NONE] = "none", [PD_END_RECKONING] = "reckoning", [PD_END_PILE] = "pile",
    [PD_END_HAND] = "hand", [PD_END_HOST] = "host",           [PD_END_PLAYERS] = "players",
};

static const char *const event_ids[PD_EV_TYPES] = {
    [PD_EV_GAME_STARTED] = "game-started",
    [PD_EV_DEALT] = "dealt",
    [PD_EV_HAND] = "hand",
    [PD_EV_HAND_SHOWN] = "hand-shown",
    [PD_EV_TURN_STARTED] = "turn-started",
    [PD_EV_TURN_SKIPPED] = "turn-skipped",
    [PD_EV_REMINDER] = "reminder",
    [PD_EV_TIMED_OUT] = "timed-out",
    [PD_EV_OFFER_MADE] = "offer-made",
    [PD_EV_OFFER_ACCEPTED] = "offer-accepted",
    [PD_EV_OFFER_DECLINED] = "offer-declined",
    [PD_EV_OFFER_CANCELLED] = "offer-cancelled",
    [PD_EV_OFFER_EXPIRED] = "offer-expired",
    [PD_EV_TRADED] = "traded",
    [PD_EV_OPENED] = "opened",
    [PD_EV_DEAL_PLAYED] = "deal-played",
    [PD_EV_BURDEN_LAID] = "burden-laid",
    [PD_EV_BURDEN_LIFTED] = "burden-lifted",
    [PD_EV_DEAL_LOST] = "deal-lost",
    [PD_EV_NUISANCE] = "nuisance",
    [PD_EV_PASS_OPENED] = "pass-opened",
    [PD_EV_PASS_CHOSEN] = "pass-chosen",
    [PD_EV_PASS_READY] = "pass-ready",
    [PD_EV_PASSED] = "passed",
    [PD_EV_PASS_DONE] = "pass-done",
    [PD_EV_TAKEOVER] = "takeover",
    [PD_EV_WAIVED] = "waived",
    [PD_EV_TAKEOVER_STOPPED] = "takeover-stopped",
    [PD_EV_TAKEN] = "taken",
    [PD_EV_DISCARDED] = "discarded",
    [PD_EV_DREW] = "drew",
    [PD_EV_DRAWN] = "drawn",
    [PD_EV_LOSS_DUE] = "loss-due",
    [PD_EV_RECKONING] = "reckoning",
    [PD_EV_PAUSED] = "paused",
    [PD_EV_RESUMED] = "resumed",
    [PD_EV_EXTENDED] = "extended",
    [PD_EV_TIMER_SET] = "timer-set",
    [PD_EV_PLAYER_REMOVED] = "player-removed",
    [PD_EV_REVEAL] = "reveal",
    [PD_EV_GAME_OVER] = "game-over",
    [PD_EV_SERIES] = "series",
    [PD_EV_ASK_CLOSED] = "ask-closed",
};

static const char *const error_ids[PD_ERR_COUNT] = {
    [PD_OK] = "ok",
    [PD_ERR_BAD_ACTION] = "bad-action",
    [PD_ERR_BAD_PLAYER_COUNT] = "bad-player-count",
    [PD_ERR_BAD_TIMER] = "bad-timer",
    [PD_ERR_BAD_SETTING] = "bad-setting",
    [PD_ERR_GAME_OVER] = "game-over",
    [PD_ERR_PAUSED] = "paused",
    [PD_ERR_NOT_PAUSED] = "not-paused",
    [PD_ERR_NOT_HOST] = "not-host",
    [PD_ERR_NOT_A_PLAYER] = "not-a-player",
    [PD_ERR_WRONG_PHASE] = "wrong-phase",
    [PD_ERR_NOT_YOUR_TURN] = "not-your-turn",
    [PD_ERR_NOT_HELD] = "not-held",
    [PD_ERR_NO_OPENING] = "no-opening",
    [PD_ERR_ALREADY_OPEN] = "already-open",
    [PD_ERR_BURDENED] = "burdened",
    [PD_ERR_IN_SWEDEN] = "in-sweden",
    [PD_ERR_NO_EXTRA] = "no-extra",
    [PD_ERR_EXTRA_NOT_LEGAL] = "extra-not-legal",
    [PD_ERR_SELF_TARGET] = "self-target",
    [PD_ERR_TARGET_NOT_OPEN] = "target-not-open",
    [PD_ERR_TARGET_BURDENED] = "target-burdened",
    [PD_ERR_NO_BURDEN] = "no-burden",
    [PD_ERR_WRONG_RELIEF] = "wrong-relief",
    [PD_ERR_NO_DEAL_IN_HAND] = "no-deal-in-hand",
    [PD_ERR_NOT_A_DEAL] = "not-a-deal",
    [PD_ERR_NO_SUCH_DEAL] = "no-such-deal",
    [PD_ERR_NAME_A_DEAL] = "name-a-deal",
    [PD_ERR_NOT_HIGHEST] = "not-highest",
    [PD_ERR_NOTHING_TO_DO] = "nothing-to-do",
    [PD_ERR_NUISANCE_SINGLE] = "nuisance-single",
    [PD_ERR_NO_SET] = "no-set",
    [PD_ERR_EMPTY_DISCARD] = "empty-discard",
    [PD_ERR_NO_TAKEOVER] = "no-takeover",
    [PD_ERR_ALREADY_WAIVED] = "already-waived",
    [PD_ERR_WRONG_DEAL] = "wrong-deal",
    [PD_ERR_GIVE_NOTHING] = "give-nothing",
    [PD_ERR_EMPTIES_HAND] = "empties-hand",
    [PD_ERR_NO_SUCH_OFFER] = "no-such-offer",
    [PD_ERR_NOT_RECEIVER] = "not-receiver",
    [PD_ERR_NOT_OFFERER] = "not-offerer",
    [PD_ERR_TOO_MANY_OFFERS] = "too-many-offers",
    [PD_ERR_OFFERER_LACKS_CARDS] = "offerer-lacks-cards",
    [PD_ERR_RECEIVER_LACKS_CARDS] = "receiver-lacks-cards",
    [PD_ERR_CORRUPT] = "corrupt",
};

static int find(const char *const *ids, unsigned n, const char *id)
{
    for (unsigned i = 0; id && i < n; i++)
        if (ids[i] && strcmp(ids[i], id) == 0)
            return (int)i;
    return -1;
}

const char *pd_timer_id(enum pd_timer t)
{
    return (unsigned)t < PD_TIMERS ? timer_ids[t] : NULL;
}

int pd_timer_from_id(const char *id)
{
    return find(timer_ids, PD_TIMERS, id);
}

const char *pd_phase_id(enum pd_phase p)
{
    return (unsigned)p < PD_PHASES ? phase_ids[p] : NULL;
}

const char *pd_end_id(enum pd_end e)
{
    return (unsigned)e < sizeof end_ids / sizeof *end_ids ? end_ids[e] : NULL;
}

const char *pd_event_id(enum pd_event_type t)
{
    return (unsigned)t < PD_EV_TYPES ? event_ids[t] : NULL;
}

const char *pd_error_id(enum pd_error e)
{
    if ((unsigned)e >= PD_ERR_COUNT || !error_ids[e])
        return "unknown";
    return error_ids[e];
}
