/*
 * platform.h - the one interface every chat platform adapter implements.
 *
 * An adapter turns its platform's native inputs (a console line, a gateway
 * frame, a sync batch, a websocket message) into `struct inbound` and hands
 * them to the dispatcher through platform_host.deliver(). The dispatcher
 * answers with `struct outbound` messages through the adapter's send().
 * Nothing in an adapter knows the rules; nothing in the bot knows a platform.
 *
 * Messages carry a logical key chosen by the bot ("g7/hand/alice",
 * "g7/drop/2"). Adapters map keys to their own message ids, so the bot can
 * ask for an edit or learn that a reaction landed on a given message without
 * ever handling a platform id.
 */
#ifndef BOT_PLATFORM_H
#define BOT_PLATFORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/message.h"

struct json_object;
struct uv_loop_s;
struct platform;
struct metrics;

/* What a platform can do; the bot picks the best form and falls back to text. */
enum platform_cap {
    PLATFORM_CAP_DM = 1 << 0,        /* private messages to one user */
    PLATFORM_CAP_REACTIONS = 1 << 1, /* users react to messages with emoji keys */
    PLATFORM_CAP_BUTTONS = 1 << 2,   /* clickable components that send a command */
    PLATFORM_CAP_POLLS = 1 << 3,     /* native polls */
    PLATFORM_CAP_EDITS = 1 << 4,     /* a sent message can be replaced */
    PLATFORM_CAP_EPHEMERAL = 1 << 5, /* a reply only the actor sees, in the table */
    PLATFORM_CAP_EMBEDS = 1 << 6,    /* rich announcements */
};

enum inbound_type {
    INBOUND_MESSAGE,  /* text typed by a user, in a table or in a DM */
    INBOUND_COMMAND,  /* a native command (slash, button, menu) already in canonical text form */
    INBOUND_REACTION, /* a user reacted to one of the bot's messages */
};

/*
 * One input from a user. All strings are borrowed for the duration of the
 * deliver() call only. `text` is canonical command text for INBOUND_COMMAND
 * (for example "!illegal join" in a table, or "accept 3" in a DM).
 */
struct inbound {
    enum inbound_type type;
    const char *channel;   /* table id; NULL when the input came in a DM */
    const char *user;      /* stable platform user id */
    const char *user_name; /* display name, may be NULL */
    bool moderator;        /* the platform says this user moderates the channel */
    const char *text;      /* MESSAGE and COMMAND */
    const char *msg_key;   /* REACTION: logical key of the message reacted to */
    const char *reaction;  /* REACTION: the emoji key */
    const char *reply_to;  /* opaque token for an ephemeral answer (an interaction), or NULL */
    const char *locale;    /* the user's language as the platform tells it ("pt-BR"), or NULL */
    const char *community; /* the server the table belongs to (a Discord guild), or NULL: the
                              platform's one community; statistics are kept per community */
    uint64_t order; /* platform order of the input (sequence, timeline position); 0 if none */
};

/* The kinds of message (enum outbound_kind) are in core/message.h. They
 * are the same for every game; what a message is for one game (a hand, a
 * drop) is its module's business, told in data, and its key's topic is the
 * module's name for it (msg_label(), which the console and the page write
 * as "kind"). */

/*
 * The `data` of a message (JSON; times are Unix milliseconds; cards are the
 * rules module's card ids; players are {"id","name"}):
 *   every kind:  "game" (game id), "table" (table channel id), "lang" (the
 *                catalog language of the text: adapters word their buttons and
 *                titles in it; absent only in a reply to a command); "mentions"
 *                [user ids] when the message asks those players to act (an
 *                offer to answer, a vote to cast): adapters may notify them;
 *                "closes" [keys] when the message ends what earlier messages
 *                offered to press (an offer answered, a case judged, the
 *                result): adapters take those messages' controls away. It is
 *                part of the message, so it is in the outbox with it
 *   a module's view, prompt or ballot: "title" (a catalog key: what an adapter
 *                that titles messages calls it), and while something may be
 *                chosen on it, "choices" [choice...] and "pick": "first" (the
 *                first to take a choice has it, one choice a player: a drop's
 *                cards) or "each" (the default: every player chooses for
 *                themselves). A choice is {"command" (what choosing it sends,
 *                as the player would type it; absent when a reaction chooses
 *                it), "label" (text) or "label_key" (a catalog key), "tag"
 *                (written after the label: "#3"), "tone" ("yes", "no", "main";
 *                none: plain), "emoji" (the reaction that chooses it), "card"
 *                (the module's card it stands for, for a page that draws
 *                cards), "player" (the user it names), "by" [user ids] (who may
 *                choose it; absent: whoever the message reaches)}.
 *                msg_choice_label() writes a choice's label. What adapters make
 *                of them, none knowing what a card, an offer or a drop is:
 *                  choices with a command: buttons (Discord), a native poll or
 *                  numbered reactions (a Matrix ballot), links or buttons (the
 *                  page), a poll's options (the console);
 *                  choices with an emoji, on a keyed message: the bot's own
 *                  reactions on it, which players repeat to choose (Discord,
 *                  Matrix, the console's "react" lines); the reaction comes
 *                  back as an input, which the module reads (rules.h reaction)
 *   a private view or a prompt to one seat may carry "compose": a command a
 *                player puts together from parts, for adapters that draw it
 *                as a form (Discord's menus and a send button under the
 *                message; elsewhere the command is typed). {"command" (the
 *                template: the command as typed, each part in braces,
 *                "{name}" to be chosen, "{name|text}" written as text when
 *                not chosen; core/compose.h), "label" or "label_key" (the
 *                send control's), "parts" [1 to COMPOSE_PARTS_MAX of {"name",
 *                "label" or "label_key", and "players" [{"id", "name"}]: one
 *                to pick, written as the platform names a user; or "items"
 *                [{"id", "label" or "label_key", "max"}]: counts to pick,
 *                written "2 guns 1 alcohol"}]}. compose_check() says whether
 *                one fits and compose_fill() fills the template; the adapter
 *                keeps only what the player picked, and the template travels
 *                with the send control
 *   OUT_TABLE_VIEW: what the table sees, edited in place under its key
 *   OUT_PRIVATE_VIEW: what one seat sees, edited in place under its key; in a
 *                DM, adapters name the table it belongs to
 *   OUT_PROMPT:  a question with choices, to one seat or to the table
 *   OUT_BALLOT:  a vote: "choices" (the candidates, then abstaining),
 *                "deadline", "mentions" (every voter), "poll" (bool: the table
 *                chose a native poll), "ballot" (the text of a private ballot,
 *                for adapters that send each voter one), "ballot_for" {user:
 *                text} (the ballot of a voter who reads another language),
 *                "poll_question" (with "poll": the question of a native poll,
 *                which says that every member of the table sees each answer)
 *   OUT_NOTICE:  "event" (what happened, e.g. "session-opened"), "phase",
 *                "deadline" (when set), "paused" (bool); a table notice may
 *                tell several events of one change, one per line: "events"
 *                lists them in order and "event" is the last
 *   OUT_LOBBY:   "module" (the id of the game it sets up: its name is <id>.game),
 *                "variant", "host", "players" [...], "actions" ["join","leave","start"]
 *   OUT_RESULT:  "scores" {"<user>":n}, "winners", and the bot's "actions"
 *                [OUT_ACTION_REMATCH]: a "Play again" control
 *   OUT_GAME_OVER: "scores" {"<user>":n}, "winners" ["<user>"]
 *   OUT_ERROR:   "error" (catalog key)
 *   "actions" [commands] are the bot's own controls (the lobby's, the
 *                result's "Play again"); a module's are its "choices"
 *   every kind written from the catalog: "say" [{"key", "vars"}], one a line of
 *                the text (core/message.h); answers to commands only on
 *                platforms that ask (platform_ops.rewords)
 *   a table's chat (platform_ops.table_chat): OUT_NOTICE keyed "<game>/chat",
 *                "event" "chat", "lines" [{"from" (player), "text", "at"}],
 *                oldest first
 * Each module's own data beside these (Illegal's hand, drop, offer, case and
 * reveal) is written in its README (core/README.md for Illegal); a page that
 * draws a game reads it by the game's module.
 */

/* The action of a result's "Play again" control: the table's next game with
 * the same players and settings. */
#define OUT_ACTION_REMATCH "!illegal rematch"

/* What players type before a table command where the bot reads every line
 * of a table (platform_ops.command_prefix). */
#define PLATFORM_COMMAND_PREFIX "!illegal"
#define PLATFORM_PREFIX_MAX     64 /* room for any platform's prefix: a mention */

/* The ids of computer players ("cpu:1"), which no platform gives a person.
 * An adapter meets them where a game lists its players (a menu of trade
 * partners) and hands them back to the bot as they are, never as one of its
 * own users (bot/seats.h, S12). */
#define PLATFORM_COMPUTER_PREFIX "cpu:"

/*
 * One message from the bot. Exactly one of channel (a table) or user (a DM)
 * is set. `text` is always complete plain text; `data` (may be NULL, borrowed)
 * carries structured content for native rendering: choices, players,
 * deadlines, and the module's own data. With `replace` set the adapter
 * edits the message it last sent under `key` if it can, and sends a new one
 * otherwise.
 */
struct outbound {
    enum outbound_kind kind;
    const char *channel;
    const char *user;
    const char *key; /* logical key, or NULL for a message never referred to again */
    const struct msg_key *key_parts; /* the same key read into its parts (NULL with key) */
    bool replace;
    const char *text;
    const char *reply_to; /* answer this input ephemerally when the platform can */
    /* The input this message follows from (a command, a reaction), or NULL
     * when the clock or another player's action caused it. */
    const struct inbound *cause;
    const struct json_object *data;
    /* Nonzero when the message is kept in the store's outbox until the
     * adapter reports it delivered through host->sent(); also a key that is
     * never given to another message, for platforms that deduplicate sends. */
    int64_t outbox_id;
};

/* What happened to a game: its life cycle, as facts, so that an adapter
 * never reads them out of message data. */
enum game_stage {
    GAME_OPENED,  /* a lobby opened at a table */
    GAME_SEATED,  /* the lobby's seats changed */
    GAME_STARTED, /* the rules began */
    GAME_PHASE,   /* the rules moved to another phase */
    GAME_ENDED,   /* the game is over (or the lobby closed): its messages are final */
};

struct game_news {
    enum game_stage stage;
    const char *game;  /* "g7" */
    const char *table; /* the table's channel id */
    const char *phase; /* "lobby", a phase id of the game's rules, or "over" */
    unsigned seats;    /* how many are seated */
};

/* What the bot offers an adapter: its loop, and where to deliver inputs. */
struct platform_host {
    struct uv_loop_s *loop;
    void *ctx;
    /* Where adapters count rate-limit waits, 429s, reconnects, REST latency
     * (bot/metrics.h). May be NULL; the metrics functions accept NULL. */
    struct metrics *metrics;
    /* Hands one input to the dispatcher. Returns 0, or -1 when it was refused
     * (the dispatcher already answered the user with a reason). */
    int (*deliver)(void *ctx, struct platform *p, const struct inbound *in);
    /* Ends the dispatcher's loop turn now: the changes of every input
     * delivered so far are committed and their messages handed to send()
     * before it returns. The dispatcher does this itself at the end of each
     * loop turn; an adapter calls it when it must answer inside the input's
     * own callback, or keep its own output in order with the bot's. NULL
     * when the host sends at once (a test's host). */
    void (*flush)(void *ctx);
    /* Reports that the message with this outbox_id was delivered, or never
     * can be (refused for good): it leaves the store's outbox. A message not
     * reported is sent again after a restart. */
    void (*sent)(void *ctx, struct platform *p, int64_t outbox_id);
    /* Reports whether `user` can receive DMs, answering a probe_dm() call. */
    void (*dm_result)(void *ctx, struct platform *p, const char *user, bool reachable);
    /* Reads and writes small adapter state (gateway session, sync token) in the
     * store. get returns a malloc'd string the caller frees, or NULL. */
    char *(*state_get)(void *ctx, struct platform *p, const char *key);
    int (*state_set)(void *ctx, struct platform *p, const char *key, const char *value);
    /* state_set for data a replay makes good (a resume position): on disk with
     * the next game commit, or within about a second, without a disk flush of
     * its own, and never before what was set, or reported sent(), earlier. An
     * empty value forgets the key so. Returns 0, or -1 on no memory. */
    int (*state_defer)(void *ctx, struct platform *p, const char *key, const char *value);
    /* state_defer for state that moves with every event (a resume position),
     * where handing each new value over would cost more than the event: the
     * host follows key instead. It reads *version at each game commit and
     * about once a second, and when *version moved since it last wrote key,
     * asks text(arg, out, cap) for the value (false: none to write) and writes
     * it with state_defer's promise. *version only grows. A NULL text stops
     * following key; the adapter does so before version or arg go away.
     * Returns 0, or -1 (no memory). May be NULL: the adapter defers instead. */
    int (*state_follow)(void *ctx, struct platform *p, const char *key, const uint64_t *version,
                        bool (*text)(void *arg, char *out, size_t cap), void *arg);
    /* Forgets a key set with state_set; a key never set is fine. Returns 0 or -1. */
    int (*state_del)(void *ctx, struct platform *p, const char *key);
    /* Calls fn with each of the platform's keys that start with prefix and
     * its value, in no particular order (an adapter reading back what it
     * keeps a row each of). Returns 0 or -1. May be NULL. */
    int (*state_each)(void *ctx, struct platform *p, const char *prefix,
                      void (*fn)(void *arg, const char *key, const char *value), void *arg);
    /* Completes what user is typing as `option` of the command `word` at
     * channel (a table; NULL or a DM: the game they play): the players, cards
     * or values they may name now that start as typed, each given to add
     * (name shown, value typed). Nothing when there is no such game. Never
     * an input: nothing is stored or answered. */
    void (*complete)(void *ctx, struct platform *p, const char *channel, const char *user,
                     const char *word, const char *option, const char *typed,
                     void (*add)(void *arg, const char *name, const char *value), void *arg);
};

struct platform_ops {
    const char *name; /* "console", "discord", "matrix", "web": also the store's platform id */
    unsigned caps;    /* enum platform_cap bits */
    /* The adapter reports each message with an outbox_id through
     * host->sent(): the dispatcher keeps those messages in the store from the
     * commit of their change until then, and sends what is left at start.
     * Adapters that deliver within send() (the console), or keep an outbox
     * of their own, leave it false. */
    bool confirms_sends;
    /* The adapter words some lines its own way, from the "say" of each
     * message's data (core/message.h: msg_say): answers to commands carry
     * data too ("lang" and "say"), which they otherwise never do. */
    bool rewords;
    /* The platform has no chat of its own (the local table): text typed at a
     * table that is no command is the table's chat, kept with the table's
     * game (its last GAME_CHAT_LINES lines) and sent to the table as one
     * message, "<game>/chat", replaced at each line; a private command typed
     * there is answered with where it belongs. Elsewhere such text is left
     * to the platform's own chat. */
    bool table_chat;
    /* The least time between two moves of computer players at one table
     * (ms; 0: none), so that what their moves send stays within the
     * platform's rate limits (bot/computers.h, K3). */
    unsigned computer_gap_ms;
    /* Connects or starts listening. Returns 0, or -1 with a logged reason. */
    int (*start)(struct platform *p);
    /* Queues one message. Returns 0 once queued (delivery is the adapter's
     * job: retries, rate limits, order per channel), -1 if it can never be sent.
     * Called after the change it tells of is committed, at the end of the
     * loop turn in which the input was delivered (or at a flush()). */
    int (*send)(struct platform *p, const struct outbound *m);
    /* Asks whether `user` can receive DMs; answers through host->dm_result. */
    void (*probe_dm)(struct platform *p, const char *user);
    /* Told of a game's life cycle at one of the platform's tables, after the
     * messages of the change were queued. May be NULL. */
    void (*game_changed)(struct platform *p, const struct game_news *n);
    /* Writes how text names a channel of the platform (`out`, len bytes): a
     * link to it where the platform has them. May be NULL: the id itself. */
    void (*channel_name)(struct platform *p, const char *channel, char *out, size_t len);
    /* Writes what players type before a table command's word for the bot to
     * read it now (`out`, len bytes): PLATFORM_COMMAND_PREFIX where every
     * line of a table reaches the bot, the bot's mention where only lines
     * addressed to it do. May be NULL: PLATFORM_COMMAND_PREFIX. */
    void (*command_prefix)(struct platform *p, char *out, size_t len);
    /* Whether the platform is connected and serving, for /readyz. May be NULL
     * for platforms that are ready as soon as they started. */
    bool (*connected)(struct platform *p);
    /* Whether work the start began is still waiting for an answer (Discord:
     * the slash commands' registration): once no platform's is, the daemon
     * gives back to the system what the start freed. May be NULL: none. */
    bool (*starting)(struct platform *p);
    /* Closes connections; no deliver() happens after it returns. */
    void (*stop)(struct platform *p);
    /* Frees the adapter. */
    void (*destroy)(struct platform *p);
};

/* Every adapter's struct starts with this. */
struct platform {
    const struct platform_ops *ops;
    const struct platform_host *host;
};

/* How text names channel on p, into out: platform_ops.channel_name, or the
 * id itself. Returns out. */
static inline const char *platform_channel_name(struct platform *p, const char *channel, char *out,
                                                size_t len)
{
    if (p && p->ops->channel_name)
        p->ops->channel_name(p, channel, out, len);
    else
        snprintf(out, len, "%s", channel);
    return out;
}

/* What players type before a table command on p, into out (see
 * platform_ops.command_prefix). Returns out. */
static inline const char *platform_command_prefix(struct platform *p, char *out, size_t len)
{
    if (p && p->ops->command_prefix)
        p->ops->command_prefix(p, out, len);
    else
        snprintf(out, len, "%s", PLATFORM_COMMAND_PREFIX);
    return out;
}

#endif
