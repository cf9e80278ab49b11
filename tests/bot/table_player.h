/*
 * table_player.h - plays whole games at one console table, like real players.
 *
 * It reads the transcript the way a person reads their screen: the hand in
 * their DMs, the drop message and the vote in the table. From that it trades,
 * grabs (by reaction and by text), debates and votes, and checks at each step
 * that every user saw what they should. Phases are followed through the
 * `data.event` of public notices.
 */
#ifndef TESTS_TABLE_PLAYER_H
#define TESTS_TABLE_PLAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "console_harness.h"

enum tp_phase { TP_LOBBY, TP_DEALING, TP_DROP, TP_GRAB, TP_HOLD, TP_DEBATE, TP_VOTE, TP_OVER };

struct table_player {
    struct harness *h;
    char table[32];
    char variant[16];
    char lang[8];    /* the table's language (tp_open_in); "en" by default */
    char gm[16];     /* a host who does not play (tp_open_gm), or "" */
    bool gm_follows; /* the Game Master follows the view ("gm follow") instead of asking */
    unsigned gm_views;
    unsigned n;
    char users[8][16];
    size_t scanned;
    enum tp_phase phase;
    long drop_line; /* last drop message line */
    long vote_line; /* last vote (poll) line */
    long game_over_line;
    int hand[8][8];                   /* resource counts per seat, from the latest hand message */
    char dealer[8][32], buyer[8][32]; /* resource ids of each seat's roles */
    bool text_only;      /* grab by typing only (message ids do not survive a restart) */
    int session_seconds; /* how long a dealing session lasts: the variant's default unless set */
    unsigned trades, grabs_by_reaction, grabs_by_text, votes;
    unsigned sessions_seen, drops_seen, cases_seen;
};

/* Opens a table with n players ("p1".."pn"; p1 hosts) and starts the game. */
void tp_open(struct table_player *tp, struct harness *h, const char *table, unsigned n,
             const char *variant);

/* tp_open() at a table whose host first sets its language to lang. The
 * players read the game by its messages' data, so they play it the same in
 * every language. */
void tp_open_in(struct table_player *tp, struct harness *h, const char *table, unsigned n,
                const char *variant, const char *lang);

/* tp_open_in() with a Game Master ("<table>-gm") who opens and starts the
 * game without playing; tp_play_to_end() then has them ask for their view
 * after every step, and checks it reaches them alone. */
void tp_open_gm(struct table_player *tp, struct harness *h, const char *table, unsigned n,
                const char *variant, const char *lang);

/* Takes over a game someone else started at `table` since transcript line
 * `from` (an event's round): its players are those of `users` (n of them)
 * dealt their cards there. */
void tp_attach(struct table_player *tp, struct harness *h, const char *table,
               const char *const *users, unsigned n, const char *variant, size_t from);

/* Reads every new line of the transcript into tp's knowledge. */
void tp_scan(struct table_player *tp);

/* Plays one step of the current phase (trades, grabs, votes, or waiting). */
void tp_step(struct table_player *tp);

/* Plays until the game is over. */
void tp_play_to_end(struct table_player *tp);

/* Seconds of the current phase's timer under the default settings. */
int tp_phase_seconds(const struct table_player *tp);

/*
 * Checks the whole transcript for leaks, in the table's language: no table
 * message before the final reveal names a role except on a suspect card, or
 * shows a hand, an offer or a vote (the fixed words of the private messages
 * that do); no DM names another player's roles except on suspect cards.
 */
void tp_check_secrets(const struct table_player *tp);

/*
 * Plays a whole game of `players` at table "t1" on a new daemon in h, grabbing
 * by text only so that the recorded inputs can be replayed after restarts,
 * and writes the result's scores (harness_scores) into scores. The daemon has
 * finished when it returns; h keeps the transcript and the inputs.
 */
void tp_record_game(struct harness *h, uint64_t seed, unsigned players, const char *variant,
                    char *scores, size_t len);

/* Checks that h, a replay, ended the game at "t1" once, with these scores, and
 * lets its daemon finish. */
void tp_check_same_result(struct harness *h, const char *scores);

/* The seat of user at tp's table, or -1. */
int tp_seat_of(const struct table_player *tp, const char *user);

/* Whether user is among the game_over line's winners. */
bool tp_won(const struct table_player *tp, const char *user);

/* Score of user in the game_over line. */
int tp_score(const struct table_player *tp, const char *user);

#endif
