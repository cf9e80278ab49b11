/*
 * e2e.h - what the end-to-end tests of the Discord adapter share: the real
 * daemon as a child process on the Discord test server (tests/discord/), the
 * players' actions (slash commands, presses, DM text, reactions), waits on
 * what the server recorded, and whole games.
 */
#ifndef DISCORD_E2E_H
#define DISCORD_E2E_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon.h"
#include "fdclient.h"

struct json_object;

#define TABLE      "530000000000000001"
#define MAXP       8
#define WAIT_MS    20000
#define SEED       "4242"
#define CLOSE_4000 4000

#define GAME_TIMERS                                                                                \
    "session_seconds = 600\nreveal_seconds = 1\ngrab_seconds = 600\n"                              \
    "debate_seconds = 600\nvote_seconds = 600\n"

/* The drops of play_game()'s game: one after each session but the last. */
#define E2E_DROPS 4

struct e2e {
    struct fd_server *srv;
    struct daemon d;
    unsigned long next_id; /* interaction and message ids */
    char players[MAXP][32];
    unsigned n;
    bool drops;                /* drop the gateway connection at random points */
    unsigned ndrops;           /* how many times it was dropped */
    unsigned rnd;              /* the test's own random numbers */
    bool timed;                /* sessions end on their timer, not by /illegal next */
    int wait_ms;               /* how long wait_until() waits */
    struct json_object *ixs;   /* interaction ids sent, for the "every one answered" check */
    struct json_object *votes; /* ids of the vote button clicks */
    bool mention;              /* table commands by mention ("@bot next"), not /illegal */
    /* called before and after each input, given what names it (the action,
     * the command, the text typed, the emoji): kill tests hook there */
    void (*before)(struct e2e *e, const char *what);
    void (*after)(struct e2e *e, const char *what);
    void *hook;
};

/* The daemon under test (argv[1] of the test program). */
extern const char *illegald_path;
/* The table channel the helpers act at (TABLE unless a test moves them). */
extern const char *e2e_table;
/* The variation seed of the fake each setup starts (0: FD_SEED, else the
 * fake's own): a test that replays from a seed of its own sets it. */
extern unsigned long e2e_fd_seed;
/* The daemon of the running test, so that a failed test does not leave it
 * running (cmocka leaves the test function at the failed assertion). */
extern struct daemon *live;
int kill_live(void **state);

void msleep(int ms);
struct json_object *jget(struct json_object *o, const char *k);
const char *jstr(struct json_object *o, const char *k);
unsigned rnd(struct e2e *e);
const char *new_id(struct e2e *e, char *buf, size_t len);

/* The server's record (the caller puts it), a gateway figure, whether the
 * daemon's session is up. */
struct json_object *snap(struct e2e *e);
int gw(struct e2e *e, const char *field);
bool connected(struct e2e *e);
/* Polls the server's record until pred says yes; fails the test on timeout. */
void wait_until(struct e2e *e, bool (*pred)(struct e2e *, struct json_object *, void *), void *arg,
                const char *what);
bool is_ready(struct e2e *e, struct json_object *s, void *arg);

/* A server and a daemon with [game] timers; nplayers players named alice,
 * bob, ... (MAXP at most); the app may read message content. */
void setup_e2e_timers(struct e2e *e, unsigned nplayers, bool drops, const char *timers);
/* The same with the privileged intents the app may use (fd_set_privileged)
 * and more [discord] lines for the daemon (NULL: none). */
void setup_e2e_with(struct e2e *e, unsigned nplayers, const char *timers, int64_t privileged,
                    const char *discord);
void setup_e2e(struct e2e *e, unsigned nplayers, bool drops);
void teardown_e2e(struct e2e *e);

/* What players do. who is an index into e->players. */
void slash(struct e2e *e, unsigned who, const char *sub, const char *opts);
/* The custom_id of message msg's control for action, as the server has it,
 * into out (the action itself when none: a press meant to be refused). */
const char *control_of(struct e2e *e, const char *msg, const char *action, char *out, size_t len);
/* A press on message msg's control for action ("!illegal join", "tb:give"). */
void click(struct e2e *e, unsigned who, const char *channel, bool dm, const char *msg,
           const char *action, const char *values);
void say_dm(struct e2e *e, unsigned who, const char *channel, const char *text);
/* A line typed at e2e_table; a reply there to the bot's message to_message. */
void say_table(struct e2e *e, unsigned who, const char *text);
void reply_table(struct e2e *e, unsigned who, const char *text, const char *to_message, bool ping);
/* A table command ("next"): /illegal, or addressed by mention when e->mention. */
void table_command(struct e2e *e, unsigned who, const char *sub);
void react(struct e2e *e, unsigned who, const char *msg, const char *emoji);

/* Reading what the bot posted. */
const char *embed_title(struct json_object *m);
const char *embed_text(struct json_object *m);
/* Message m's button or select for action, or NULL. */
struct json_object *component(struct json_object *m, const char *action);
bool has_component(struct json_object *m, const char *action);
struct json_object *select_options(struct json_object *m, const char *action);
/* The n-th (0-based) message at e2e_table whose embed has this title, or NULL. */
struct json_object *table_message(struct json_object *s, const char *title, int n);
/* The first message at e2e_table whose content has text, or NULL. */
struct json_object *table_content(struct json_object *s, const char *text);
/* The last DM message to user carrying the control for action, or NULL. */
struct json_object *dm_with(struct json_object *s, const char *user, const char *action);

struct msg_want {
    const char *title;
    int n;
    const char *text;  /* the embed text contains it, when set */
    int min_edits;     /* at least this many edits */
    int min_reactions; /* at least this many reactions */
    char id[32];       /* out: the message id */
    char channel[32];  /* out */
};

bool message_ready(struct e2e *e, struct json_object *s, void *arg);

struct dm_want {
    const char *user;
    const char *custom_id;
    struct json_object *msg; /* out: a copy */
};

bool dm_ready(struct e2e *e, struct json_object *s, void *arg);
/* Waits for user's DM with the control for action; a copy the caller puts. */
struct json_object *wait_dm(struct e2e *e, const char *user, const char *action);

/* The first player's second grab of each drop of play_game() (drop())
 * was refused to them alone, in a DM: never silent, never in the table. */
void assert_second_grabs_told(struct e2e *e);

struct vote_want {
    int n;
    bool over;
    char id[32];
};

bool vote_or_over(struct e2e *e, struct json_object *s, void *arg);
bool case_opened(struct e2e *e, struct json_object *s, void *arg);
bool results_posted(struct e2e *e, struct json_object *s, void *arg);

/* Parts of a game: a trade in session (by the builder or DM text), a drop
 * taken by reactions, the tribunal by buttons, DM text and /illegal
 * abstain; every player joins the lobby and the host starts. */
void trade(struct e2e *e, unsigned session);
void drop(struct e2e *e, int number);
void tribunal(struct e2e *e);
void seat_all_and_start(struct e2e *e, struct msg_want *lobby);
/* Plays a whole game; returns the result text (malloc'd). */
char *play_game(struct e2e *e);

/* How many times interaction id was answered; every interaction sent was
 * answered exactly once; and each vote was confirmed to the voter alone. */
int answers(struct json_object *s, const char *id);
void assert_each_answered_once(struct e2e *e);
void assert_all_answered(struct e2e *e);

/* The test program's main: argv[1] is the daemon to test (default
 * bin/illegald); E2E_ONLY=<pattern> runs the tests it matches. */
struct CMUnitTest;
int e2e_run(int argc, char **argv, const struct CMUnitTest *tests, size_t n);

#endif
