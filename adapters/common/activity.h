/*
 * activity.h - the Discord Activity: the local table's page inside Discord,
 * for the game of the channel it was launched in.
 *
 * Two adapters share it, and main.c links them: the web adapter serves the
 * page and its websockets (adapters/web/activity.c); the Discord adapter says
 * who an OAuth2 code belongs to, takes the page's inputs as its own, and
 * hands the web adapter every message of its games (adapters/discord/
 * activity.c). Neither includes the other.
 *
 * A page's answers: the inputs of an Activity socket carry reply_to
 * "act:<n>" (ACTIVITY_REPLY_PREFIX), so that what answers them goes back to
 * the page alone (answer()), never to Discord as well.
 */
#ifndef ADAPTERS_COMMON_ACTIVITY_H
#define ADAPTERS_COMMON_ACTIVITY_H

#include <stdbool.h>
#include <stdint.h>

#include "bot/platform.h"

#define ACTIVITY_REPLY_PREFIX "act:"

/* Why a code was refused; each has its catalog key on the page. */
enum activity_refusal {
    ACTIVITY_OK,
    ACTIVITY_BAD_CODE,        /* forged, replayed or expired code; a token Discord refused */
    ACTIVITY_NOT_IN_INSTANCE, /* no such instance, or the user is not in it */
    ACTIVITY_NO_CHANNEL,      /* the instance is in no channel of a server */
    ACTIVITY_UNAVAILABLE,     /* Discord failed or did not answer in time */
};

/* Who a code belongs to, as Discord said; borrowed for the call. */
struct activity_user {
    const char *user;         /* Discord user id */
    const char *name;         /* their global name, else their username */
    const char *channel;      /* the instance's channel */
    const char *guild;        /* its server, or NULL */
    const char *access_token; /* for the SDK's authenticate: given to the page, never kept */
};

/* Called once per authorize() that returned 0: later, from the loop, or
 * before authorize() returns when the code or instance is refused unread. u is
 * NULL unless r is ACTIVITY_OK. */
typedef void (*activity_done_fn)(void *arg, uint64_t id, enum activity_refusal r,
                                 const struct activity_user *u);

struct activity_link {
    const char *client_id; /* the application's OAuth2 client id, for the page's SDK */
    /* --- set by the Discord adapter (discord_activity_link) --- */
    struct platform *discord;
    /* Exchanges code at the OAuth2 token endpoint, learns the user from
     * /users/@me and checks with the bot token that they are in instance.
     * Returns 0 (done comes later, with id), or -1 on no memory. */
    int (*authorize)(struct platform *discord, const char *code, const char *instance,
                     activity_done_fn done, void *arg, uint64_t id);
    /* Hands one input of a page to the bot as the Discord platform's. */
    int (*deliver)(struct platform *discord, const struct inbound *in);
    /* --- set by the web adapter (web_activity_link) --- */
    struct platform *web;
    /* A message of the Discord platform's, for the pages of its table or user. */
    void (*mirror)(struct platform *web, const struct outbound *m);
    /* A message that answers a page's input (reply_to "act:<n>"): to that user's
     * pages alone. */
    void (*answer)(struct platform *web, const char *user, const struct outbound *m);
    /* A game's news at a Discord table: whether the channel has a game. */
    void (*news)(struct platform *web, const struct game_news *n);
};

#endif
