/*
 * errors.c - stable identifiers of the error codes (catalog keys "illegal.error.<id>").
 */
#include "illegal.h"

static const char *const error_ids[IL_ERR_COUNT] = {
    [IL_OK] = "ok",
    [IL_ERR_BAD_ACTION] = "bad-action",
    [IL_ERR_BAD_PLAYER_COUNT] = "bad-player-count",
    [IL_ERR_BAD_RESOURCES] = "bad-resources",
    [IL_ERR_BAD_TIMER] = "bad-timer",
    [IL_ERR_GAME_OVER] = "game-over",
    [IL_ERR_WRONG_PHASE] = "wrong-phase",
    [IL_ERR_PAUSED] = "paused",
    [IL_ERR_NOT_PAUSED] = "not-paused",
    [IL_ERR_NOT_GM] = "not-gm",
    [IL_ERR_NOT_A_PLAYER] = "not-a-player",
    [IL_ERR_SELF_TARGET] = "self-target",
    [IL_ERR_SELF_VOTE] = "self-vote",
    [IL_ERR_EMPTY_OFFER] = "empty-offer",
    [IL_ERR_NOT_TRADABLE] = "not-tradable",
    [IL_ERR_NOT_IN_PLAY] = "not-in-play",
    [IL_ERR_CARDS_NOT_HELD] = "cards-not-held",
    [IL_ERR_OFFERER_LACKS_CARDS] = "offerer-lacks-cards",
    [IL_ERR_RECEIVER_LACKS_CARDS] = "receiver-lacks-cards",
    [IL_ERR_NO_SUCH_OFFER] = "no-such-offer",
    [IL_ERR_NOT_RECEIVER] = "not-receiver",
    [IL_ERR_NOT_OFFERER] = "not-offerer",
    [IL_ERR_TOO_MANY_OFFERS] = "too-many-offers",
    [IL_ERR_GRAB_NOT_OPEN] = "grab-not-open",
    [IL_ERR_ALREADY_GRABBED] = "already-grabbed",
    [IL_ERR_CARD_GONE] = "card-gone",
    [IL_ERR_NO_SUCH_CASE] = "no-such-case",
    [IL_ERR_CORRUPT] = "corrupt",
};

const char *il_error_id(enum il_error e)
{
    if ((unsigned)e >= IL_ERR_COUNT || !error_ids[e])
        return "unknown";
    return error_ids[e];
}
