/*
 * dispatch.h - what the dispatcher's files share; not an API for anyone else.
 *
 * dispatcher.c holds the games and the one path every change takes (apply,
 * commit, render, send); table_commands.c and player_commands.c turn commands
 * into that path; timers.c fires deadlines and reminders.
 */
#ifndef BOT_DISPATCH_H
#define BOT_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <uv.h>

#include "command.h"
#include "dispatcher.h"
#include "game.h"
#include "platform.h"

#define DISPATCH_MAX_PLATFORMS 8
#define DISPATCH_TEXT_MAX      2048

struct dispatcher {
    const struct config *config;
    struct store *store;
    struct metrics *metrics;
    uv_loop_t *loop;
    struct platform_host host;
    struct platform *platforms[DISPATCH_MAX_PLATFORMS];
    unsigned nplatforms;

    struct game **games; /* lobbies and running games; finished ones are dropped */
    unsigned ngames, cap;
    uint64_t next_game; /* number of the next game id */

    bool virtual_time;
    int64_t vnow;
    bool seeded;
    uint64_t seed;

    uv_timer_t timer;
    bool timer_ready;
    bool stopped;
};

/* What render_event() needs to send a game's messages. */
struct emit_ctx {
    struct dispatcher *d;
    struct game *g;
};

/* A render_emit_fn: queues m on the game's platform. arg is a struct emit_ctx. */
void dispatch_emit(void *arg, const struct outbound *m);

/* Answers the sender of `in` with text. Private answers go by DM, or
 * ephemerally when the platform gave a reply token; others go to the table. */
void dispatch_reply(struct platform *p, const struct inbound *in, bool private_answer,
                    enum outbound_kind kind, const char *text);

/* dispatch_reply() with a catalog key and its placeholders. */
void dispatch_reply_key(struct platform *p, const struct inbound *in, bool private_answer,
                        const char *lang, const char *key, const char *const *vars);

/* Sends a catalog text to the game's table. */
void dispatch_announce(struct game *g, const char *key, const char *const *vars);

/* The game at a table, or with an id ("g7"), on platform p; NULL if none. */
struct game *dispatch_game_at(struct dispatcher *d, struct platform *p, const char *table);
struct game *dispatch_game_by_id(struct dispatcher *d, struct platform *p, const char *id);

/* Adds g (owned by d from now on). Returns 0, or -1 on no memory. */
int dispatch_game_add(struct dispatcher *d, struct game *g);

/* Removes g and frees it. */
void dispatch_game_drop(struct dispatcher *d, struct game *g);

/* Commits g (and the clock, in virtual time) in one transaction. Returns 0 or -1. */
int dispatch_save(struct dispatcher *d, struct game *g, bool finished);

/* After a successful apply: saves g, or restores `before` and returns -1; then
 * renders ev, drops a finished game (freeing g) and rearms the timer. */
int dispatch_commit(struct dispatcher *d, struct game *g, const struct game *before,
                    const struct il_events *ev);

/*
 * Applies a rules action to g at the current time. A rules error is answered
 * to `in` (when not NULL) and returned; a store failure restores g, is
 * answered, and returns IL_ERR_COUNT. g is freed if the game ends.
 */
enum il_error dispatch_play(struct dispatcher *d, struct game *g, const struct il_action *a,
                            struct platform *p, const struct inbound *in);

/* Resolves a player name among g's active seats; answers `in` when it fails. */
bool dispatch_resolve_player(struct platform *p, const struct inbound *in, const struct game *g,
                             const char *text, bool private_answer, int *seat);

/* Answers `in` with why a card list did not resolve. */
void dispatch_resolve_error(struct platform *p, const struct inbound *in, const struct game *g,
                            enum resolve_error e, const char *word, const char *choices,
                            bool private_answer);

/* Handles a table command ("!illegal ..."), from in->channel. */
void commands_table(struct dispatcher *d, struct platform *p, const struct inbound *in,
                    const struct command *c);

/* Handles a player's private command (trading, voting, hand). */
void commands_private(struct dispatcher *d, struct platform *p, const struct inbound *in,
                      const struct command *c);

/* Answers a DM from a user in no game on p (lobbies included) with what the
 * bot is and how to play. Returns true when it did. */
bool commands_stranger(struct dispatcher *d, struct platform *p, const struct inbound *in);

/* platform_host.dm_result: a DM probe's answer, for a lobby that is starting. */
void commands_dm_result(void *ctx, struct platform *p, const char *user, bool reachable);

/* Fires every reminder and deadline due at `now`. */
void timers_fire_due(struct dispatcher *d, int64_t now);

/* Arms the loop timer for the next reminder or deadline (real time only). */
void timers_rearm(struct dispatcher *d);

#endif
