/*
 * pd_player.h - people playing whole games of Palm & Drewes' Illegal at one
 * console table.
 *
 * Each reads what a person reads: their hand and business in the hand
 * message of their DMs, the step under way in the data of every message.
 * At each step every player types the move they would make now (the one
 * whose turn it is gets through; the others are told it is not theirs),
 * then the clock moves on, so a move nobody makes is made by the rules'
 * timeout. Nothing here reads the game's state.
 */
#ifndef TESTS_PD_PLAYER_H
#define TESTS_PD_PLAYER_H

#include <stddef.h>
#include <stdint.h>

#include "console_harness.h"

#define PDP_MAX 6

struct pd_people {
    struct harness *h;
    char table[32];
    char lang[8];
    unsigned n;
    char users[PDP_MAX][16];
    struct json_object *hand[PDP_MAX];     /* the latest hand message's data.hand (borrowed) */
    struct json_object *business[PDP_MAX]; /* and its data.business */
    char phase[16];                        /* the step under way ("turn", "pass", ...) */
    size_t scanned;
    long over_line; /* the game_over line, or -1 */
    unsigned steps, passes, windows, losses;
};

/* Opens a game of Palm & Drewes at table with n players ("<table>-p1".."pn";
 * p1 hosts) in `mode`, set in language lang, and starts it. */
void pdp_open(struct pd_people *pp, struct harness *h, const char *table, unsigned n,
              const char *mode, const char *lang);

/* Reads every new line of the transcript. */
void pdp_scan(struct pd_people *pp);

/* Plays until the game is over. */
void pdp_play_to_end(struct pd_people *pp);

/*
 * Checks the whole transcript for leaks: before the reckoning, no table
 * message carries a hand or has the words of a message that shows cards in
 * private (a hand, a card drawn, passed or received, an offer's cards).
 */
void pdp_check_secrets(const struct pd_people *pp);

/* Plays a whole game of n players at "t1" on a new daemon in h and writes
 * the result's scores into scores; the daemon has finished when it returns,
 * and h keeps the inputs for a replay. */
void pdp_record_game(struct harness *h, uint64_t seed, unsigned n, char *scores, size_t len);

#endif
