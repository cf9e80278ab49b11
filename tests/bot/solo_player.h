/*
 * solo_player.h - one person at a console table of computer players.
 *
 * The person ("p1", the host) opens a lobby, adds computer players, starts,
 * and plays from what reaches them alone: the hand and offers in their DMs,
 * the drops and votes at the table. They answer every offer, offer a trade
 * now and then, grab by text, vote, and open a held tribunal; between their
 * moves the virtual clock moves a few seconds, so the computers move in
 * between at their human pace.
 */
#ifndef TESTS_SOLO_PLAYER_H
#define TESTS_SOLO_PLAYER_H

#include <stdbool.h>
#include <stddef.h>

#include "console_harness.h"
#include "table_player.h"

struct solo_game {
    const char *variant;  /* "standard", "advanced", "casual", "casual-advanced" */
    const char *tribunal; /* the "set tribunal" value: "live", "hold, parallel", ... */
    unsigned computers;   /* 3 to 7 */
    const char *stand_in; /* a "set stand-in" value, or NULL */
};

struct solo_player {
    struct harness *h;
    size_t scanned;
    char seats[8][32]; /* the user ids of the seats, from the lobby: "p1", "cpu:1", ... */
    unsigned nseats;
    int buyer;         /* p1's buyer resource, -1 before the deal */
    int hand[8];       /* p1's resource cards */
    int answered[512]; /* offer ids p1 answered */
    unsigned nanswered;
    unsigned session, offered; /* the session p1 last offered in */
    unsigned drop, grabbed;    /* the drop p1 last grabbed in (1..4) */
    bool drop_open;
    char drop_cards[8][32]; /* the cards of the open drop, in reveal order */
    bool drop_taken[8];
    unsigned ndrop;
    char votes[16][64]; /* vote actions of open cases not voted on */
    unsigned nvotes;
    bool held, over;
    long game_over_line;
    unsigned moves, steps;
};

/* Opens a lobby at "t1" with p1 and the computers, sets its timers short and
 * its tribunal, and starts it. */
void solo_open(struct solo_player *sp, struct harness *h, const struct solo_game *game);

/* Plays until the game is over (fails after too many steps). */
void solo_play_to_end(struct solo_player *sp);

/* Checks what nobody may see: no line to a computer's DMs, and (with the
 * roles the result reveals) no secret at the table before the result. */
void solo_check_secrets(const struct solo_player *sp);

#endif
