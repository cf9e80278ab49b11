/*
 * dispatch.h - what the dispatcher's files share; not an API for anyone else.
 *
 * dispatcher.c takes inputs in; commands.c runs commands (table_commands.c
 * holds the bot's handlers, command_table.c their entries); pipeline.c is the
 * one path of every change; send.c sends; games.c keeps the games and the
 * clock; timers.c fires deadlines and reminders.
 */
#ifndef BOT_DISPATCH_H
#define BOT_DISPATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <uv.h>

#include "command.h"
#include "core/attributes.h"
#include "dispatcher.h"
#include "event.h"
#include "game.h"
#include "lobby.h"
#include "platform.h"
#include "util/map.h"

#define DISPATCH_MAX_PLATFORMS 8
#define DISPATCH_FLUSH_MS      1000 /* the longest deferred platform state waits for the disk */
#define DISPATCH_TEXT_MAX      2048

/* Held records kept between turns (turn.c): a turn's usual few messages. */
#define TURN_HELD_KEPT 4u

/* The loop turn in progress (turn.c): its changed games and held messages. */
struct turn {
    struct turn_game *games; /* first touch of each game this turn, with its snapshot */
    unsigned ngames, cap;
    struct turn_event *events; /* first touch of each event this turn, with its snapshot */
    unsigned nevents, capevents;
    uint64_t next_game, next_event; /* the id counters when the turn began */
    STAILQ_HEAD(, held) held;
    struct held *held_kept[TURN_HELD_KEPT]; /* let go, for the next held (turn.c) */
    unsigned nheld_kept;
    bool rendering;      /* messages held now tell of a change */
    bool if_failed;      /* messages held now go only if the commit fails */
    bool flushing;       /* turn_flush() is sending */
    int64_t retry_after; /* after a failed commit, the clock waits until then */
    uv_check_t check;
    uv_prepare_t prepare;
    bool started;
};

/* The games and events of one platform, indexed by what inputs name
 * (games.c): no input or turn looks at every game. */
struct hosted_platform {
    struct map tables;      /* table -> its struct game */
    struct map users;       /* user id -> struct user_games: their seats and lobbies */
    struct map communities; /* community -> unsigned: its lobbies (malloc'd counter) */
    struct map events;      /* community -> its open struct event */
    unsigned lobbies;       /* games not started */
    unsigned *phases;       /* running games by phase slot (games.c); NULL until its first game */
};

/* The clock's due games (timers.c): a binary heap ordered by links.due. */
struct due_heap {
    struct game **v;
    size_t n, cap;
    uint64_t hosted;         /* games hosted so far: the next one's links.order */
    LIST_HEAD(, game) stale; /* changed games whose due time is to be found again */
    struct game **firing;    /* the games timers_fire_due() is firing; NULL: dropped meanwhile */
    size_t nfiring, capfiring;
};

struct dispatcher {
    const struct config *config;
    struct store *store;
    struct metrics *metrics;
    uv_loop_t *loop;
    struct platform_host host;
    struct platform *platforms[DISPATCH_MAX_PLATFORMS];
    struct hosted_platform hosted[DISPATCH_MAX_PLATFORMS]; /* platforms[i]'s games */
    unsigned nplatforms;

    struct map games;    /* id in lower case -> struct game: lobbies and running games; finished
                            ones are dropped */
    unsigned lobbies;    /* of them, not started */
    uint64_t next_game;  /* number of the next game id */
    struct map events;   /* id -> struct event: the open events (event.h) */
    uint64_t next_event; /* number of the next event id */

    bool virtual_time;
    int64_t vnow;
    bool seeded;
    uint64_t seed;

    uv_timer_t timer;
    uv_prepare_t prepare; /* rearms the timer once per loop turn, when a due time moved */
    bool timer_ready;
    struct due_heap due;
    uv_timer_t flush; /* writes deferred platform state about once a second */
    bool stopped;
    struct turn turn;
    struct refill *refill; /* the images a start writes back (refill.c); NULL: none */
    void *view; /* a seat's view, for the computers (computers.c): the largest module's size */
};

/*
 * One command being handled: what the dispatcher found and checked before
 * the handler ran. Handlers are given `base` (core/command.h); the bot's own
 * handlers find the rest with bot_cmd().
 */
struct bot_cmd {
    struct command_ctx base; /* first: bot_cmd() depends on it */
    struct dispatcher *d;
    struct platform *p;
    const struct inbound *in; /* NULL when nobody typed it (a start after DM probes) */
    struct game *g;           /* the game the command is for; NULL for CMD_NO_GAME */
    bool private_answer;      /* answers go to the user alone */
    struct game_view view;    /* base.table: g's seats */
};

/* The bot's command a handler was given. */
static inline struct bot_cmd *bot_cmd(struct command_ctx *x)
{
    return (struct bot_cmd *)x;
}

/* Answers the user of x with a catalog text. */
void cmd_reply(struct bot_cmd *x, const char *key, const char *const *vars);

/* Answers x with its command's usage line. */
void cmd_reply_usage(struct bot_cmd *x);

/* What x hears instead of the answers to its change if the loop turn's
 * commit fails (T2): that it did not happen. Sent only then. */
void cmd_reply_if_unsaved(struct bot_cmd *x);

/* The handlers of the bot's command table (bot/command_table.c). */
void cmd_new(struct command_ctx *x);
void cmd_rematch(struct command_ctx *x);
void cmd_join(struct command_ctx *x);
void cmd_add(struct command_ctx *x);
void cmd_remove(struct command_ctx *x);

/* "replace <player> computer [level]" (computer_commands.c): when x's text
 * ends so, handles it (a computer stands in, S14, or an answer why not) and
 * returns true; else false, for cmd_replace's own. */
bool cmd_replace_computer(struct bot_cmd *x);
void cmd_leave(struct command_ctx *x);
void cmd_start(struct command_ctx *x);
void cmd_status(struct command_ctx *x);
void cmd_rules(struct command_ctx *x);
void cmd_help(struct command_ctx *x);
void cmd_pause(struct command_ctx *x);
void cmd_resume(struct command_ctx *x);
void cmd_extend(struct command_ctx *x);
void cmd_next(struct command_ctx *x);
void cmd_kick(struct command_ctx *x);
void cmd_end(struct command_ctx *x);
void cmd_set(struct command_ctx *x);
void cmd_reminders(struct command_ctx *x);
void cmd_language(struct command_ctx *x);
void cmd_gm(struct command_ctx *x);
void cmd_stats(struct command_ctx *x);
void cmd_leaderboard(struct command_ctx *x);
void cmd_default(struct command_ctx *x);
void cmd_replace(struct command_ctx *x);
void cmd_event(struct command_ctx *x);

/* What changes a game. */
enum change_type {
    CHANGE_LOBBY,     /* a lobby action (lobby.h) */
    CHANGE_RULES,     /* a rules action of the game's module */
    CHANGE_STEER,     /* the host (or the clock) steers the rules */
    CHANGE_REMINDER,  /* a deadline is near: mark the reminder sent and tell the table, or
                         remind in private the players the step waits for */
    CHANGE_SEAT,      /* a player's own setting: their private reminders on or off */
    CHANGE_LANGUAGE,  /* a player's own setting: the language of their private messages */
    CHANGE_OPEN,      /* a running game's seat is offered to someone else (leave, replace) */
    CHANGE_TAKEOVER,  /* someone not playing takes over an open seat */
    CHANGE_ABSENT,    /* a player has made no move for [game] absent_seconds: warn once */
    CHANGE_WATCH,     /* someone not playing reads the GM's view, or starts or stops following it */
    CHANGE_CHAT,      /* a line of the table's chat (chat.h) */
    CHANGE_STAND_IN,  /* a computer of level `level` plays `seat` for its person (S14) */
    CHANGE_HAND_BACK, /* the person of `seat` acts again: the computer standing in stops */
};

/* CHANGE_WATCH: how the Game Master's view is asked for. */
enum watch_mode {
    WATCH_ONCE,   /* "gm": the view, once */
    WATCH_FOLLOW, /* "gm follow": kept up to date after every change */
    WATCH_STOP,   /* "gm stop" */
};

struct change {
    enum change_type type;
    struct lobby_action lobby;
    const void *action;     /* RULES: the module's action */
    enum rules_steer steer; /* STEER: how, on which seat, by how long */
    bool kick;              /* STEER: a RULES_REMOVE by the host (S7): the seat is kicked */
    unsigned seat;
    int64_t ms;
    uint8_t reminder;         /* REMINDER: its bit in reminders_sent */
    const char *reminder_key; /* REMINDER: what the table is told, or NULL */
    bool nudge;               /* REMINDER: remind the players the step waits for */
    bool reminders_off;       /* SEAT: the value for `seat` */
    const char *language;     /* LANGUAGE: a catalog code for `seat`, NULL: the table's */
    const char *user, *name;  /* TAKEOVER: who takes `seat` over; WATCH: who follows;
                                 CHAT: who said it */
    const char *text;         /* CHAT: the line, cleaned */
    enum watch_mode watch;    /* WATCH: once, follow or stop */
    uint8_t level;            /* STAND_IN: the computer's (1 + its index in the strategies) */
};

/*
 * The one path of every change to a game: snapshot, apply, render. What the
 * change renders is held until the loop turn is committed (turn.c). A
 * refused change is answered to `cause` (the command that asked for it; NULL
 * when the clock did) and nothing else happens. If the turn's commit fails,
 * the change is undone and the cause is told. A game that is over or closed
 * leaves the hosted games (do not use g after a 0 return unless it can still
 * be running). Returns 0 when the change was applied (or there was nothing
 * to change), -1 when it was refused. Every failure is answered and logged,
 * so a caller that does nothing after the change may leave the result unread.
 */
int pipeline_run(struct dispatcher *d, struct game *g, const struct change *c,
                 struct bot_cmd *cause);

/* The rules action of game g, through pipeline_run(), once what fell due in
 * g before it has fired (P5). */
int pipeline_play(struct dispatcher *d, struct game *g, const void *action, struct bot_cmd *cause);

/* A steering action of game g (see enum rules_steer), through pipeline_run(). */
int pipeline_steer(struct dispatcher *d, struct game *g, enum rules_steer how, unsigned seat,
                   int64_t ms, struct bot_cmd *cause);

/* What render_event() needs to send a game's messages. */
/* What render_event() needs to send a game's messages. */
struct emit_ctx {
    struct dispatcher *d;
    struct game *g;
    const struct inbound *cause; /* the input the messages answer, or NULL */
};

/* A render_emit_fn: queues m on the game's platform. arg is a struct emit_ctx. */
void dispatch_emit(void *arg, const struct outbound *m);

/* A rules_emit_fn: turns a module's message into an outbound one for the
 * game's table or one of its seats, and queues it. arg is a struct emit_ctx. */
void dispatch_emit_rules(void *arg, const struct rules_msg *m);

/* Answers the sender of `in` with text. Private answers go by DM, or
 * ephemerally when the platform gave a reply token; others go to the table. */
void dispatch_reply(struct platform *p, const struct inbound *in, bool private_answer,
                    enum outbound_kind kind, const char *text);

/* Sends a catalog text to a channel of p that is no game's table (an
 * event's hall). */
void dispatch_notice(struct platform *p, const char *channel, const char *lang, const char *key,
                     const char *const *vars);

/* dispatch_reply() with a catalog key and its placeholders. */
void dispatch_reply_key(struct platform *p, const struct inbound *in, bool private_answer,
                        const char *lang, const char *key, const char *const *vars);

/* Sends a catalog text to the game's table; its data names the game, the
 * table, the language and the event (the key without "msg."). */
void dispatch_announce(struct game *g, const char *key, const char *const *vars);

/* dispatch_announce() with more data: the fields of `extra` (an object the
 * call takes and frees; NULL for none). */
void dispatch_announce_data(struct game *g, const char *key, const char *const *vars,
                            struct json_object *extra);

/* Sends a catalog text about game g to user in private; data names the game,
 * its table and `event`. */
void dispatch_tell(const struct game *g, const char *user, const char *key, const char *const *vars,
                   const char *event);
/* dispatch_tell for a message that asks user to act (a reminder): it names them in "mentions",
 * so platforms that can notify them do. */
void dispatch_ask(const struct game *g, const char *user, const char *key, const char *const *vars,
                  const char *event);

/* A seed for the game or event numbered `number`: drawn from the daemon's
 * seed when it was given one (tests replay), else from the system. */
uint64_t dispatcher_seed(const struct dispatcher *d, uint64_t number);

/* The languages of readers (readers.c), as catalog codes that live as long as
 * the program. readers_table(): a table's, for answers to anyone there: its
 * game's, else its last game's, else [game] language. readers_user(): a
 * player's, for answers in private: their seat's in a game hosted now, else
 * the one they chose in their last game, else their platform's `locale` (may
 * be NULL), else their last game's, else [game] language. */
const char *readers_table(struct dispatcher *d, struct platform *p, const char *table);
const char *readers_user(struct dispatcher *d, struct platform *p, const char *user,
                         const char *locale);

/* Keeps the languages finished game g leaves (its table's, each player's),
 * in the open transaction. Returns 0 or -1 (logged). */
int readers_keep(struct dispatcher *d, const struct game *g) MUST_USE;

/* The action words of "event", NULL-terminated (event_commands.c). */
extern const char *const event_actions[];

/* Game g, which has just left the hosted games, was played in an event: its
 * hall hears who won at that table, and when the round is over. Called while
 * the change is rendered, so the notice goes only if it is committed. */
void events_game_over(struct dispatcher *d, const struct game *g);

/* Text typed at a table of a platform with no chat of its own, that is no
 * "!illegal" command (chat.h): a line of the chat, or a private command
 * answered with where it belongs. Returns 0, or -1 when refused (answered). */
int chat_typed(struct bot_cmd *x);

/* Sends the table's chat message: every line g keeps (chat.h). */
void chat_render(struct game *g, struct emit_ctx *ctx);

/* The game at a table, or with an id ("g7", in any case), on platform p;
 * NULL if none. */
struct game *dispatch_game_at(struct dispatcher *d, struct platform *p, const char *table);
struct game *dispatch_game_by_id(struct dispatcher *d, struct platform *p, const char *id);

/* Adds g (owned by d from now on; its platform, table and id set) to the
 * hosted games and their indexes. Returns 0, or -1 on no memory or when its
 * table or id has a game already: then nothing changed. */
int dispatch_game_add(struct dispatcher *d, struct game *g) MUST_USE;

/* Removes g from the hosted games without freeing it. */
void dispatch_game_remove(struct dispatcher *d, struct game *g);

/* Brings the indexes up to date with hosted game g after it changed (its
 * players, its start, its phase; its due time, which timers.c finds again).
 * Returns 0, or -1 on no memory with the indexes as they were. */
int dispatch_game_changed(struct dispatcher *d, struct game *g) MUST_USE;

/* The first of user's seats in the games of p, or NULL; TAILQ_NEXT(link,
 * next) is the next, in the order they were taken. link->g is the game. */
struct seat_link *dispatch_seats_of(struct dispatcher *d, struct platform *p, const char *user);

/* Lobbies (games not started) on p hosted by user, and in a community. The
 * lobbies of every platform are d->lobbies. */
unsigned dispatch_lobbies_hosted(struct dispatcher *d, struct platform *p, const char *user);
unsigned dispatch_lobbies_in(struct dispatcher *d, struct platform *p, const char *community);

/* The number of games hosted now. */
unsigned dispatch_game_count(const struct dispatcher *d);

/* Running games on p of module rules in phase number i (rules->phase_at(i)). */
unsigned dispatch_games_in_phase(const struct dispatcher *d, unsigned platform,
                                 const struct rules_module *rules, unsigned i);

/* The open event of a community ("" for a platform without them) on p, or
 * with an id, or NULL. */
struct event *dispatch_event_of(struct dispatcher *d, struct platform *p, const char *community);
struct event *dispatch_event_by_id(struct dispatcher *d, struct platform *p, const char *id);

/* Adds e (owned by d from now on; its platform, community and id set).
 * Returns 0, or -1 on no memory or when its community or id has an open
 * event already (nothing changed). */
int dispatch_event_add(struct dispatcher *d, struct event *e) MUST_USE;

/* Removes e from the open events without freeing it. */
void dispatch_event_remove(struct dispatcher *d, struct event *e);

/* For dispatcher_check(): C1 (timers.c) over every hosted game; the first
 * broken goes into why, unless why holds one already. */
void timers_check(struct dispatcher *d, char *why, size_t len);

/* Hosts the unfinished games and open events of the store (restore.c): a
 * record that cannot be read stays in the store (logged). Returns 0, or -1
 * when the store cannot be read. */
int dispatch_restore(struct dispatcher *d) MUST_USE;

/*
 * The images of the games a start read from their records, written back in
 * the background once the daemon answers (refill.c, invariants R1-R3).
 */

/* Notes hosted game g, just read from its record by the start. Returns 0, or
 * -1 on no memory (g then keeps its record only: nothing else). */
int refill_note(struct dispatcher *d, struct game *g) MUST_USE;

/* Starts the refill of the games noted, if any, once the daemon answers. */
void refill_start(struct dispatcher *d);

/* Stops it where it is and closes its loop handles (at a stop). */
void refill_stop(struct dispatcher *d);

/* Frees what it holds (after the loop closed its handles). */
void refill_free(struct dispatcher *d);

/* Frees every hosted game and open event and the indexes (at exit). */
void dispatch_games_free(struct dispatcher *d);

/* Empties the indexes of platform number i (dispatcher_add_platform): no
 * game yet, and no phase counts, which its first game makes. */
void dispatch_platform_clear(struct dispatcher *d, unsigned i);

/*
 * The loop turn (turn.c). Changes are applied in memory and their messages
 * held; turn_flush() commits every changed game in one transaction and then
 * sends what was held (invariants T1-T4 in turn.c).
 */

/* Starts the loop handles that end each turn. */
void turn_start(struct dispatcher *d);

/* Ends the turn now: commit, then send (or undo and answer). Safe to call at
 * any time; nothing happens when the turn is empty. */
void turn_flush(struct dispatcher *d);

/* Flushes and closes the loop handles. */
void turn_stop(struct dispatcher *d);

/* Frees what a turn holds without sending it (at exit). */
void turn_free(struct dispatcher *d);

/* Notes g before its first change in the turn, with a snapshot to undo it.
 * turn_created() is for a game opened now: undoing it removes it. Return 0,
 * or -1 on no memory (the change must not happen). */
int turn_snapshot(struct dispatcher *d, struct game *g) MUST_USE;
int turn_created(struct dispatcher *d, struct game *g) MUST_USE;

/* Notes event e before it changes in the turn (created: opened now, so an
 * undo removes and frees it); the turn's commit writes it (T7). Returns 0,
 * or -1 on no memory (the change must not happen). */
int turn_event_touch(struct dispatcher *d, struct event *e, bool created) MUST_USE;

/* g's chat block `old` was replaced: freed now, unless it is the one the
 * turn's snapshot of g holds (freed once the turn is committed, or put back
 * if it is undone). */
void turn_chat_replaced(struct dispatcher *d, struct game *g, struct game_chat *old);

/* Marks g (noted before) as changed: the turn's commit writes it. */
void turn_changed(struct dispatcher *d, struct game *g);

/* Removes g from the hosted games and frees it: at the end of the turn when
 * the turn touched it (so an undo can put it back), at once otherwise. */
void turn_drop_game(struct dispatcher *d, struct game *g);

/* Holds a message (deep-copied; data referenced) or a game_changed() until
 * the turn ends. Return 0, or -1 on no memory. */
int turn_hold_message(struct dispatcher *d, struct platform *p, const struct outbound *m) MUST_USE;
int turn_hold_news(struct dispatcher *d, struct platform *p, const struct game_news *n) MUST_USE;

/* Whether a failed commit asks the clock to wait before trying again. */
bool turn_retry_wait(const struct dispatcher *d, int64_t now);

/* The store's outbox (outbox.c). outbox_encode() returns m as the store
 * keeps it (malloc'd; NULL on no memory); outbox_replay() sends p what a
 * crash left in its outbox. Returns 0, or -1 when the store cannot be read. */
char *outbox_encode(const struct outbound *m);
int outbox_replay(struct dispatcher *d, struct platform *p) MUST_USE;

/* Resolves a player name among x's game's active seats; answers when it fails. */
bool cmd_resolve_player(struct bot_cmd *x, const char *text, int *seat);

/* Answers x with why a card list did not resolve. */
void cmd_resolve_error(struct bot_cmd *x, enum resolve_error e, const char *word,
                       const char *choices);

/*
 * Handles a text input: parses it, finds the game and checks what the
 * command needs (its table entry: where, which game, who), then runs its
 * handler; answers the user when a check or the parse fails. Chat that is
 * no command is ignored. Returns 0, or -1 when the line was refused.
 */
int commands_handle(struct dispatcher *d, struct platform *p, const struct inbound *in) MUST_USE;

/* S14: seat's person acts in g (a command, a reaction) while a computer
 * stands in for them: the seat is theirs again, before what they do. */
void commands_back(struct dispatcher *d, struct game *g, int seat, struct bot_cmd *cause);

/* Answers a DM from a user in no game on p (lobbies included) with what the
 * bot is and how to play. Returns true when it did. */
bool commands_stranger(struct dispatcher *d, struct platform *p, const struct inbound *in);

/* platform_host.dm_result: a DM probe's answer, for a lobby that is starting. */
void commands_dm_result(void *ctx, struct platform *p, const char *user, bool reachable);

/* The start the host scheduled ("set start-at") is due: it is cleared, and
 * the game starts as with "start", or the table is told it has too few. */
void commands_scheduled_start(struct dispatcher *d, struct game *g);

/* Where and for whom a lobby opens. */
struct lobby_place {
    const char *table; /* its channel */
    const char *host, *host_name;
    const char *community;    /* see inbound.community; NULL: none */
    const char *event;        /* the event it is a round of, or NULL */
    const struct seat *seats; /* players seated at once, or NULL */
    unsigned nseats;
};

/*
 * Opens a lobby of `rules` in `mode` at `at` (or, finished set, a rematch of
 * that game) through pipeline_run(), its answers and failures going to x's
 * user. Returns 0 (*opened: the lobby, when opened is not NULL), 1 when the
 * mode does not exist (nothing answered, nothing changed), -1 when it failed
 * (answered).
 */
int commands_open_lobby(struct bot_cmd *x, const struct lobby_place *at,
                        const struct rules_module *rules, const char *mode,
                        const struct game *finished, struct game **opened);

/*
 * Reads "[game] [mode]", what `new` and an event's `start` take: the module
 * the first word names, else the table's game: the one its moderators set
 * (`default <game>`), else that of its last finished game, else the
 * community's (commands_community_game); *mode is the rest of text, or NULL
 * for the module's default. Never NULL.
 */
const struct rules_module *commands_game_of(struct bot_cmd *x, const char *table, const char *text,
                                            const char **mode);

/* The game a community of x's platform opens where nothing closer names
 * one: the one its moderators set (`default <game> server`), else [game]
 * default_game. Never NULL. */
const struct rules_module *commands_community_game(struct bot_cmd *x, const char *community);

/* The game of x's table: its lobby's or running game's module, else the one
 * `new` would open there (commands_game_of). Never NULL. */
const struct rules_module *commands_table_game(struct bot_cmd *x);

/* The game whose commands a line may name: the table's game; in private,
 * the game its id names, else the one kind of game the user plays. NULL:
 * none (the default game's commands). */
const struct rules_module *commands_addressed_rules(struct dispatcher *d, struct platform *p,
                                                    const struct inbound *in,
                                                    const struct command *c);

/* platform_host.complete (complete.c). */
void dispatch_complete(void *ctx, struct platform *p, const char *channel, const char *user,
                       const char *word, const char *option, const char *typed, rules_choice_fn add,
                       void *arg);

/* Starts lobby g once every player is known to get DMs: probes each of
 * them; the answers come later, through commands_dm_result(). */
void commands_begin_start(struct game *g, struct platform *p);
/* Goes on with the starts that waited for DM checks when the daemon stopped
 * (once the platforms are up); forgets those whose lobby is gone or changed. */
void commands_resume_starts(struct dispatcher *d);

/* Answers x with the statistics of player ("": x's user) in a community
 * (event NULL) or in an event's games, in x's language: in one game's words
 * and of its results (rules), or of every game's in the words of the table's
 * game (rules NULL). */
void stats_reply(struct bot_cmd *x, const char *community, const char *event,
                 const struct rules_module *rules, const char *player);

/* The leaderboard of a community (event NULL) or of an event, in one game
 * (rules; NULL: every game), its best
 * `rows` players as lang writes them, into out; with `computers`, each level
 * of computer player is ranked too. Returns how many players it lists, or
 * -1 when the store could not be read (logged). */
int stats_leaderboard_text(struct dispatcher *d, struct platform *p, const char *community,
                           const char *event, const struct rules_module *rules, bool computers,
                           unsigned rows, const char *lang, char *out, size_t len);

/* Fires every reminder and deadline due at `now`. */
void timers_fire_due(struct dispatcher *d, int64_t now);

/* Fires what is due at `now` in game g alone. g may have finished after it
 * (then it is no longer hosted, and is freed when the turn ends). */
void timers_fire_game(struct dispatcher *d, struct game *g, int64_t now);

/* Hosted game g changed, or was added: its due time is found again before
 * the clock next needs it. */
void timers_changed(struct dispatcher *d, struct game *g);

/* g leaves the clock (it is no longer hosted). */
void timers_forget(struct dispatcher *d, struct game *g);

/* Starts the real-time clock: fires what fell due while the daemon was down,
 * then keeps one loop timer armed for the next reminder or deadline. */
void timers_start(struct dispatcher *d);

/* Stops it; the handles close with the loop. */
void timers_stop(struct dispatcher *d);

/* Frees the heap (at exit, the games freed or about to be). */
void timers_free(struct dispatcher *d);

#endif
