/*
 * internal.h - the Discord adapter's shared state and what its files offer
 * each other.
 *
 * A message from the bot goes through dc_send() (discord.c) by concern:
 * reply.c decides whether it answers an interaction, and otherwise delivery.c makes it the REST
 * operations that carry it (its post or edit, the controls it closes, its
 * reactions), rendered by render.c, and reports it delivered once all are
 * answered. messages.c keeps which messages have live controls; stored.c
 * what of that outlives a restart; outbox.c queues the operations and reads
 * their answers.
 */
#ifndef DISCORD_INTERNAL_H
#define DISCORD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <json-c/json.h>
#include <uv.h>

#include "adapters/common/activity.h"
#include "adapters/common/jsonw.h"
#include "bot/config.h"
#include "bot/platform.h"
#include "core/attributes.h"
#include "core/compose.h"
#include "discord.h"
#include "fit.h"
#include "gateway.h"
#include "ixbody.h"
#include "rest.h"
#include "skim.h"
#include "skim_ix.h"
#include "util.h"

#define DC_MOD        "discord"
#define DC_USER_AGENT "DiscordBot (https://github.com/illegald/illegald, 0.1.0)"

#define PERM_ADMINISTRATOR (1ull << 3)
#define PERM_MANAGE_GUILD  (1ull << 5)

/* A compose's menus read no quantity above this. */
#define DC_BUILDER_MAX_QTY 25u

/* A component's custom_id is "<message key>#<action>": the key names the game
 * and the message, so that a press on an older game's or an older message's
 * control is refused (interactions.c). */
#define DC_CUSTOM_ID_SEP '#'

/* A message the bot sent under a logical key. */
struct dc_msg {
    char *channel;      /* Discord channel id */
    char *id;           /* Discord message id; NULL until the POST is answered */
    int64_t outbox_id;  /* the outbox message that posted it, 0 when none or unknown */
    char *replaced;     /* while a fresh post under the key is on its way: the message it
                           replaces, whose controls are closing */
    struct map reacted; /* emoji -> (void *)1: reactions already queued */
};

/* A command in the making, from the menus of one message's compose
 * (bot/platform.h): what the player picked a part, by the part's name. */
struct dc_builder {
    struct {
        char *name;
        char *value; /* "<@123>", "cpu:2", "1 guns 1 alcohol", or "" when chosen empty */
    } pick[COMPOSE_PARTS_MAX];
};

struct dc_pending {
    STAILQ_ENTRY(dc_pending) link;
    struct dc_op *op;
};

/* One user we talk to in DMs. */
struct dc_user {
    char *dm_channel;
    bool creating;                     /* POST /users/@me/channels in flight */
    bool reachable;                    /* a DM went through, or the user wrote to the bot */
    bool unreachable;                  /* Discord said 50007 ... */
    uint64_t unreachable_at;           /* ... at this time (clock_mono_ms) */
    bool probing;                      /* a probe_dm() waits for the DM channel */
    STAILQ_HEAD(, dc_pending) pending; /* waiting for the DM channel */
};

/* An interaction we got and may still answer (tokens last 15 minutes, but
 * only if the first answer came within 3 seconds). */
struct dc_ixn {
    char *id, *token, *app_id;
    char *user; /* who acted: an answer that cannot go through the interaction goes to
                   their DMs */
    bool component;
    bool answered; /* the initial callback was queued */
    bool dead;     /* ... and failed for good: later answers go to the user's DMs */
    bool deferred; /* ... as type 5 or 6 */
    bool original; /* a deferred type 5 still waits for its content */
    uint64_t created;
    char **captured; /* replies made during deliver(): their ephemeral bodies (ixbody.h) */
    size_t ncaptured;
};

struct dc_guild {
    char *owner;
    struct map roles; /* role id -> struct dc_role * */
};

struct dc_role {
    uint64_t perms;
    char *name;
};

enum dc_op_type {
    DC_OP_POST,
    DC_OP_EDIT,
    DC_OP_REACT,
    DC_OP_DM_CREATE,
    DC_OP_IX,
    DC_OP_COMMANDS,
    DC_OP_GATEWAY,
    DC_OP_CLOSE, /* a message's buttons and menus go: their moment has passed */
};

/* What an interaction request is, for what follows its answer. */
enum dc_ix_step {
    DC_IX_CALLBACK, /* the first answer, due within 3 s */
    DC_IX_FOLLOWUP, /* a later one, or the deferred answer's content */
};

/*
 * One message of the bot's outbox as the operations that carry it: its post
 * or edit, the controls it closes, its reactions. It is reported delivered
 * (dc_sent) once every one of them got a final answer from Discord, for good
 * or ill; one cut short by a stop keeps it in the outbox, to go again after
 * the restart. Every operation of it may go twice: a post carries a nonce,
 * the rest are edits to the same content.
 */
struct dc_delivery {
    int64_t outbox_id;
    unsigned pending; /* operations not yet answered, and the builder's own hold */
    bool cut;         /* one was cut short (stop, no memory): not delivered */
    char *game;       /* its game, which is forgotten only once its deliveries are done */
};

/* A message's nonce is this store's random prefix and its outbox id: an id
 * alone repeats in a new store, and Discord would answer with an old message. */
#define DC_NONCE_PREFIX 8

/* Records of freed ops kept for the next ones: as many as a burst of replies
 * puts in flight at once, about 110 bytes each. */
#define DC_OPS_KEPT 8u

/* The context of one REST request. */
struct dc_op {
    struct dc *dc;
    enum dc_op_type type;
    char *key;         /* logical key (POST, EDIT, REACT, CLOSE); COMMANDS: its record's */
    char *channel;     /* channel id */
    char *user;        /* DM recipient */
    char *body;        /* JSON */
    char *emoji;       /* REACT */
    char *msg_id;      /* CLOSE: the message, when known as the op was queued */
    bool replaced;     /* CLOSE: msg_id is no longer the key's message (a new one took the key) */
    int64_t outbox_id; /* POST, EDIT: the outbox message it posts (kept with its id) */
    char *post_body;   /* EDIT of a message from the outbox: the body to POST (with its nonce)
                          when the message has no id yet */
    struct dc_delivery *dl; /* the outbox message it is part of, or NULL */
    char *ix;               /* IX: its interaction's key ("ix:<id>") */
    enum dc_ix_step step;   /* IX */
};

/* Whether the bot asks for the Message Content intent ([discord] message_content). */
enum dc_content {
    DC_CONTENT_AUTO, /* ask; go on without it when refused */
    DC_CONTENT_ON,   /* ask; a refusal stops the gateway */
    DC_CONTENT_OFF,  /* never ask */
};

struct dc {
    struct platform base;
    uv_loop_t *loop;
    char *token, *app_id, *api_url, *gateway_url, *mod_role;
    const char *language;   /* the catalog language of labels and titles (the config's) */
    const char *words_lang; /* while dc_render_into() runs: the message's language ("lang" in its
                               data), which dc_word() then uses */
    char *guild_ids[CONFIG_MAX_GUILDS];
    unsigned nguilds;
    int shards;
    unsigned global_rate; /* REST requests per second ([discord] global_rate_limit) */
    bool compress;        /* the gateway's transport compression ([discord] compression) */
    enum dc_content content;
    bool reads_content; /* typed table lines reach the bot: the intent is asked and not refused */
    struct rest *rest;
    char nonce_prefix[DC_NONCE_PREFIX + 1]; /* this store's, before outbox ids (stored.c) */
    struct gw *gw;
    struct map msgs;     /* key -> struct dc_msg * */
    struct map msg_ids;  /* Discord message id -> key (char *) */
    struct map users;    /* user id -> struct dc_user * */
    struct map ixns;     /* "ix:<id>" -> struct dc_ixn * */
    struct map guilds;   /* guild id -> struct dc_guild * */
    struct map dm_users; /* DM channel id -> user id (char *) */
    struct map builders; /* hand key -> struct dc_builder * */
    struct map controls; /* game id -> array of keys of messages with live controls (json) */
    struct map closed;   /* game id -> array of keys whose controls closed for good (json) */
    struct map open;     /* game id -> how many of its deliveries are not done ((void *)n) */
    struct map ending;   /* game id -> (void *)1: over, forgotten once its deliveries are done */
    struct buf body;     /* the body being written (a message's, an answer's): kept, up to
                            DC_BODY_KEEP bytes, and never past DC_BODY_MAX */
    char *self_id;
    bool commands_registered;  /* this run decided whether they go (registration.c) */
    unsigned commands_pending; /* registrations sent and not yet answered */
    bool register_forced;      /* --register-commands: they go, whatever the store says */
    bool started, stopping;
    struct dc_ixn *capture;          /* the interaction being delivered: its replies so far */
    bool activity_on;                /* [discord] activity */
    char *client_id, *client_secret; /* the OAuth2 client, with activity_on */
    struct activity_link *activity;  /* set once main.c links the web adapter */
    uv_timer_t sweep;
    bool sweep_open;
    uint64_t drain_until;                /* stopping: REST requests may finish until then */
    struct dc_op *ops_kept[DC_OPS_KEPT]; /* freed ops' records, for the next (records.c) */
    unsigned nops_kept;
    struct discord_stats st;
};

/* ---- records.c: the adapter's records and their lifetimes ---- */

/* A new op of dc, zeroed, or NULL on no memory: a record kept from a freed
 * one when there is. */
struct dc_op *dc_op_new(struct dc *dc, enum dc_op_type type);
/* Frees op's strings and lets the record go: kept for the next op until the
 * adapter stops (then freed). An op of a delivery that was never answered
 * cuts the delivery short. */
void dc_op_free(struct dc_op *op);
/* Frees the kept records of ops (the adapter's end). */
void dc_ops_kept_free(struct dc *dc);
struct dc_user *dc_user_get(struct dc *dc, const char *id);
void dc_builder_free(void *builder);
void dc_guild_free(void *p);
void dc_msg_free(void *p);
struct dc_msg *dc_msg_get(struct dc *dc, const char *key, const char *channel);
void dc_role_free(void *p);
void dc_user_free(void *p);
char *dc_xstrdup(const char *s);

/* ---- outbox.c: REST operations, their queues and answers ---- */

/* Queues op's request (op is taken). Returns 0, or -1 on no memory: op is then freed and
 * the failure logged here. */
int dc_rest(struct dc *dc, struct dc_op *op, const char *queue, const char *method,
            const char *path, unsigned flags);
/* dc_rest() of a request worth nothing after deadline (rest_enqueue_until). */
int dc_rest_until(struct dc *dc, struct dc_op *op, const char *queue, const char *method,
                  const char *path, unsigned flags, uint64_t deadline);
void dc_create_dm(struct dc *dc, const char *user_id, struct dc_user *u);
/* Discord refused a DM to user (50007, or no DM channel): remember it and
 * tell the bot. */
void dc_dm_refused(struct dc *dc, const char *user, long status, int code);
/* Queues op (POST, EDIT, REACT or CLOSE) on its channel (op is taken). Returns 0, or -1 on no
 * memory: op is then freed and the loss logged here, so a caller with nothing more to do
 * may leave the result. */
int dc_queue_on_channel(struct dc *dc, struct dc_op *op);
/* Sends op to a user's DM channel, creating it first when needed (op is taken). Returns 0,
 * or -1 on no memory (op freed, as dc_queue_on_channel). */
int dc_queue_on_dm(struct dc *dc, const char *user_id, struct dc_op *op);
void dc_report_probe(struct dc *dc, const char *user, bool reachable);

/* Discord's JSON error codes the adapter acts on. */
#define ERR_CANNOT_DM   50007
#define UNKNOWN_MESSAGE 10008
#define ERR_ANSWERED    40060 /* an interaction's first answer, given already */
#define ERR_TOKEN_GONE  50027 /* an interaction's token, past its life */
/* After a 50007, DMs to that user are not attempted for this long: each
 * refusal is a 403, and 403s count towards Discord's invalid-request limit. */
#define DM_REFUSED_HOLD_MS 60000u
/* Discord's JSON error code from a response body, or 0. */
int dc_api_code(const char *body);
/* Logs a refused request once, with all Discord said. */
void dc_log_http_error(const char *what, const char *target, long status, const char *body);

/* ---- delivery.c: one outbox message as its operations ---- */

/* Sends m, a message that answers no interaction: its post or edit, the
 * controls its "closes" names and the one it replaces, its reactions, one
 * delivery (none when it has no outbox id and no game: nothing waits for its
 * answers). Returns 0 once queued, -1 when it can never be sent. */
int dc_deliver_message(struct dc *dc, const struct outbound *m);
/* Adds op to dl (NULL: none): dl waits for op's answer. */
void dc_delivery_hold(struct dc_delivery *dl, struct dc_op *op);
/* op got its final answer (cut: it was cut short, not answered): its delivery
 * may be done. */
void dc_delivery_answered(struct dc *dc, struct dc_op *op, bool cut);
/* A game is over: its message ids are forgotten once its deliveries are done. */
void dc_delivery_game_over(struct dc *dc, const char *game);

/* ---- reply.c: which message answers which input ---- */

/* Gives m to the interaction it answers, when it answers one that is still
 * known; returns 1 then (m is reported sent), 0 when m is to be delivered. */
int dc_reply(struct dc *dc, const struct outbound *m);
/* The input m answers (its reply_to: "ix:<id>" or a page's "act:<n>"), or NULL. */
const char *dc_answered_input(const struct outbound *m);
/* Writes, into the body object w is in, the reference that makes it a reply
 * to the text command m answers, if any. */
void dc_reply_reference(const struct outbound *m, struct jw *w);

/* ---- render.c: message bodies ---- */

/* The longest body the adapter writes: a message within Discord's limits,
 * every character escaped, is far shorter. */
#define DC_BODY_MAX (256u << 10)
/* What dc->body keeps between messages; a longer body's memory is freed. */
#define DC_BODY_KEEP (16u << 10)

/* Starts w on dc->body, the buffer a body is written into (capped at
 * DC_BODY_MAX, kept between bodies), emptied. Returns that buffer, which
 * holds the body until the next dc_body_start(). */
struct buf *dc_body_start(struct dc *dc, struct jw *w);
/* Done with dc->body: a long body's memory goes back, the usual one's is kept. */
void dc_body_done(struct dc *dc);
/* Writes m's fields (allowed_mentions, content, embeds, components) into the
 * body object w is in; bare leaves its controls out. Returns whether the body
 * has controls. What w could not write makes jw_finish() fail. */
bool dc_render_into(struct dc *dc, const struct outbound *m, bool bare, struct jw *w);
/* Writes the fields of a plain body with text (content, embeds,
 * allowed_mentions) into the body object w is in. */
void dc_render_text(struct jw *w, const char *text);
/* The catalog text of key in dc's language (the key itself if missing). */
const char *dc_word(const struct dc *dc, const char *key);
/* The catalog text of key in the language of a Discord locale ("pt-BR"), else dc's. */
const char *dc_word_for(const struct dc *dc, const char *locale, const char *key);
/* Writes key and action as a custom_id into out (DC_CUSTOM_ID_MAX + 1 bytes).
 * Returns 0, or -1 when it does not fit. */
int dc_custom_id(char *out, const char *key, const char *action);

/* ---- interactions.c: slash commands, buttons and menus ---- */

/* What the adapter reads of an INTERACTION_CREATE, as C strings borrowed
 * from either reader (ixread.c): json-c's tree of it, or the skimmer's spans
 * (skim_ix.h) decoded. Each string is NULL when absent or of another type. */
struct dc_ix_option {
    const char *name;
    const char *value; /* a string's, or an integer's digits */
    bool string;       /* value is a string's */
    bool focused;
};
struct dc_ix_in {
    int64_t type, data_type; /* 0 when absent or no integer */
    const char *id, *token, *app_id, *guild, *channel, *locale;
    const char *uid;       /* the member's user's id, else the user's */
    const char *user_name; /* the member's nick, else the user's global name, else username */
    bool moderator;        /* in a guild, the member moderates it (dc_is_moderator) */
    const char *leaf;      /* the command word: its (sub)command's name (GW_IX_SUB_DEPTH) */
    struct dc_ix_option options[GW_IX_LIST_MAX]; /* the leaf's options given, in order */
    unsigned noptions;
    const char *custom_id, *message_id; /* a component's, the message it is on */
    const char *values[GW_IX_LIST_MAX]; /* a menu's chosen values: a non-string's NULL */
    size_t nvalues;                     /* how many were chosen */
};
/* An interaction read: in, and the room its decoded strings take. */
struct dc_ix_read {
    struct dc_ix_in in;
    char *decoded; /* the skimmed strings decoded: buf, or malloc'd when they outgrow it */
    char buf[1024];
};
/*
 * Reads the INTERACTION_CREATE "d" into r->in: from json-c's parse of it
 * (dc_ix_read_json; Discord sends at most GW_IX_LIST_MAX options a level:
 * the rest are not read), or from the skimmer's spans of it
 * (dc_ix_read_skimmed), which give the same. False only skimmed, on no
 * memory (logged). dc_ix_read_done() frees what r holds, whatever the answer.
 */
void dc_ix_read_json(struct dc *dc, struct json_object *d, struct dc_ix_read *r);
bool dc_ix_read_skimmed(struct dc *dc, const struct gw_interaction *ix, struct dc_ix_read *r);
void dc_ix_read_done(struct dc_ix_read *r);

/* An interaction read (dc_ix_read_*): answered, or delivered as a command. */
void dc_interaction(struct dc *dc, const struct dc_ix_in *in);
/* Answers an outbound whose interaction is ix ("ix:<id>"). Returns 1 when handled,
 * 0 when the interaction is not known (any more). */
int dc_ix_reply(struct dc *dc, const char *ix, const struct outbound *m) MUST_USE;
/* Before an interaction request goes (outbox.c, as a rest_prepare_fn answers):
 * an answer to an interaction whose first answer failed goes to the user's
 * DMs instead, and this one is dropped (1). */
int dc_ix_prepare(struct dc *dc, struct dc_op *op);
/* An interaction request got its final answer (outbox.c). */
void dc_ix_answered(struct dc *dc, struct dc_op *op, long status, const char *body);
/* An ephemeral answer of one text to interaction x, now. */
void dc_ix_say(struct dc *dc, struct dc_ixn *x, const char *text);
/* The first answer to x, of callback type type, with data (a JSON object's
 * text) or, when NULL, none. */
void dc_ix_callback(struct dc *dc, struct dc_ixn *x, int type, const char *data);
/* A press taken without a word (a deferred update), now. */
void dc_ix_ack(struct dc *dc, struct dc_ixn *x);
void dc_ix_sweep(struct dc *dc);
void dc_ix_free(void *ixn);

/* ---- slash.c: the slash commands ---- */

/* The bot's slash commands, from the command tables, as one bulk overwrite
 * (an array; the caller puts it). global: for the application's global
 * commands, which say where they may be used (in guilds, in the bot's DM);
 * else for a guild's, which may not. */
struct json_object *dc_commands_json(bool global);
/* The canonical command text of a command interaction in (malloc'd):
 * "!illegal <word>" for a table command, the word alone for a private one,
 * then its options in its entry's order. NULL for an unknown command, or
 * when memory ran out. */
char *dc_slash_text(const struct dc_ix_in *in);

/* ---- registration.c: the slash commands registered only when they changed ---- */

#define DC_COMMANDS_KEY_MAX 48 /* "commands/guild/" and a snowflake */

/* The store's key of a registration's record, into out: the global commands'
 * (guild NULL) or guild's. Returns out. */
const char *dc_commands_key(char *out, size_t len, const char *guild);
/* Which registrations this start sends: *global for the global commands,
 * guild[i] for dc->guild_ids[i] (nguilds of them): those whose record in the
 * store is not what they would now be made of, or every one when forced.
 * Says in the log which it is. Returns how many are due. */
unsigned dc_commands_due(struct dc *dc, bool *global, bool guild[]);
/* Discord answered the registration at key: when it took it (2xx), its
 * record goes to the store, so that a start with the same commands sends
 * none; else the answer is logged. */
void dc_commands_answered(struct dc *dc, const char *key, long status, const char *body);

/* ---- components.c: a press on a button or a menu ---- */

/* Reads the press in of interaction x: the command it gives into *text
 * (malloc'd), or answers it here (a press on a control whose moment has
 * passed, a menu of a compose) and returns -1. Returns 0 otherwise
 * (*text NULL: nothing known, the bot's help answers). */
int dc_press(struct dc *dc, struct dc_ixn *x, const struct dc_ix_in *in, char **text);
/* The builder of the compose under key (created when create), or NULL. */
struct dc_builder *dc_builder_of(struct dc *dc, const char *key, bool create);
/* What tb (may be NULL) holds picked for the part called name, or NULL. */
const char *dc_builder_pick(const struct dc_builder *tb, const char *name);

/* ---- messages.c: live controls ---- */

/* Notes whether the message under key has live controls now. */
void dc_note_controls(struct dc *dc, const char *key, bool live);
/* Whether the message under key was noted with live controls. */
bool dc_controls_live(struct dc *dc, const char *key);
/* A new message takes key (outbox_id: the outbox message posting it): the
 * old one's controls go first, so that no stale builder or button is left.
 * Nothing when the key's message is the one this outbox message posted
 * already (sent again after a crash). */
void dc_close_replaced(struct dc *dc, struct dc_delivery *dl, const char *key, int64_t outbox_id);
/* The message under key loses its controls (the moment has passed), for
 * good: noted, so that an older edit of it sent again after a crash does not
 * bring them back. */
void dc_close_key(struct dc *dc, struct dc_delivery *dl, const char *key);
/* Whether key's controls closed for good. */
bool dc_closed_for_good(struct dc *dc, const char *key);

/* ---- stored.c: what outlives a restart ---- */

#define LIST_CONTROLS "ctl"
#define LIST_CLOSED   "cls"
#define DC_LIST_MAX   (64u << 10) /* a stored list: a game's controls, ids of 20 bytes */

/* The list, loaded from the store when this run has not seen it; NULL when it
 * is empty and create is false. Borrowed from map. */
struct json_object *dc_list_get(struct dc *dc, struct map *map, const char *what, const char *game,
                                bool create);
/* Stores l; when it cannot be written whole (no memory), the stored copy stays as it was. */
void dc_list_save(struct dc *dc, const char *what, const char *game, struct json_object *l);
/* Where word is in l, or -1. */
ssize_t dc_list_find(struct json_object *l, const char *word);
/*
 * A game is over and its deliveries are done: its logical keys are never
 * used again, so their message ids leave memory and the store. (Ids stored
 * by an earlier run and not used since stay stored.)
 */
void dc_forget_game(struct dc *dc, const char *game);
char *dc_gw_state_get(void *ud, const char *key);
void dc_gw_state_set(void *ud, const char *key, const char *value);
void dc_gw_state_defer(void *ud, const char *key, const char *value);
/* gw_ops.state_follow through the host's state_follow; -1 when it has none. */
int dc_gw_state_follow(void *ud, const char *key, const uint64_t *version,
                       bool (*text)(void *arg, char *out, size_t cap), void *arg);
/* Reads this store's nonce prefix, making and storing one the first time. */
void dc_nonce_prefix_load(struct dc *dc);
/*
 * Which Discord message carries a logical key is kept in the store too, so
 * that after a restart the lobby, hands and drop are still edited in place,
 * reactions on the drop still count and presses are checked: "msg/<key>"
 * holds "<channel> <id> <outbox id>", "mid/<id>" holds the key.
 */
void dc_msg_persist(struct dc *dc, const char *key, const char *channel, const char *id,
                    int64_t outbox_id);
/* The message under key from the store, when this run has not seen it. */
struct dc_msg *dc_msg_restore(struct dc *dc, const char *key);
/* The key of the message with this Discord id (memory, else the store), as a
 * malloc'd string, or NULL. */
char *dc_msg_key_of(struct dc *dc, const char *id);

/* ---- deliver.c: inputs to the bot ---- */

/* Hands in to the bot (unless the adapter is stopping). Returns the bot's
 * answer: 0, or -1 when it refused the input (and told the user). */
int dc_deliver(struct dc *dc, const struct inbound *in);
/* Tells the bot that the message with this outbox id (0: none) is done:
 * delivered, or refused for good. */
void dc_sent(struct dc *dc, int64_t outbox_id);
/* dc_deliver() of a native command already in canonical text form; locale is
 * the interaction's (the user's client language) and community its guild,
 * each NULL when absent. */
int dc_send_command(struct dc *dc, const char *text, const char *channel, const char *user,
                    const char *user_name, bool moderator, const char *reply_to, const char *locale,
                    const char *community, uint64_t order);

/* ---- guilds.c: moderators ---- */

void dc_on_guild(struct dc *dc, const char *type, struct json_object *d);
uint64_t dc_parse_u64(const char *s);
/* Whether user_id, a member of guild_id (member: their member object, which
 * in MESSAGE_CREATE carries no user), moderates there: the owner, a holder
 * of Administrator or Manage Server, or of [discord] moderator_role. Reads
 * member's permissions and roles only: skim.c keeps those of a message. */
bool dc_is_moderator(struct dc *dc, const char *guild_id, const char *user_id,
                     struct json_object *member);
/* A guild member's role ids, one at a time: next() gives the next as a C
 * string (valid until the next call), or NULL after the last; what is no
 * string is passed over. */
struct dc_roles {
    const char *(*next)(struct dc_roles *roles);
};
/* dc_is_moderator() of a member object read elsewhere (the skimmer's
 * spans): permissions its "permissions" or NULL, roles its "roles". */
bool dc_moderates(struct dc *dc, const char *guild_id, const char *user_id, const char *permissions,
                  struct dc_roles *roles);
/* The role ids of a skimmed member's "roles" (a gw_span of the array's text),
 * each decoded in turn into out (room for the array's length + 1 bytes):
 * dc_span_role_next() as roles.next. */
struct dc_span_roles {
    struct dc_roles roles; /* first: what next() is handed */
    struct gw_span rest;
    char *out;
};
const char *dc_span_role_next(struct dc_roles *roles);

/* ---- activity.c: the Activity (adapters/common/activity.h) ---- */

struct activity_link;
/* The custom_id of "Play in Discord": it names no game, for the Activity
 * shows whatever game its channel has. */
#define DC_LAUNCH_ID "activity#launch"
/* Before m is delivered: an answer to a page's input goes to that page alone
 * (returns 1: m is done); any other message that answers no Discord input is
 * shown to the pages too (returns 0: deliver m as usual). */
int dc_activity_send(struct dc *dc, const struct outbound *m);
/* A game's news, for the pages. */
void dc_activity_news(struct dc *dc, const struct game_news *n);
/* ---- activity_read.c: Discord's answers to an authorization, read ---- */

#define ACT_ID_MAX    20  /* digits in a snowflake */
#define ACT_NAME_MAX  64  /* bytes of a user's name kept */
#define ACT_TOKEN_MAX 512 /* bytes in an access token passed on */
/* The access token of a token endpoint's answer (status, body) into token, or
 * why there is none: a 400/401/403 is Discord refusing the code, anything
 * else Discord failing. */
enum activity_refusal dc_activity_read_token(long status, const char *body,
                                             char token[ACT_TOKEN_MAX + 1]);
/* The user of GET /users/@me's answer: their id and name (the global name,
 * else the username). */
enum activity_refusal dc_activity_read_user(long status, const char *body, char id[ACT_ID_MAX + 1],
                                            char name[ACT_NAME_MAX + 1]);
/* The instance's channel and guild, when it is app's (when it says), user is
 * among its users, and it runs in a channel of a server. */
enum activity_refusal dc_activity_read_instance(long status, const char *body, const char *app,
                                                const char *user, char channel[ACT_ID_MAX + 1],
                                                char guild[ACT_ID_MAX + 1]);

/* Answers an Entry Point command or a press on "Play in Discord" by launching
 * the Activity; false for any other interaction (or with the Activity off). */
bool dc_activity_launch(struct dc *dc, struct dc_ixn *x, const struct dc_ix_in *in);
/* The "Play in Discord" button, worded in lang (a catalog language or a locale). */
struct json_object *dc_activity_button(const struct dc *dc, const char *lang);
/* The Entry Point command (global only, as Discord allows). */
struct json_object *dc_activity_entry_point(const struct dc *dc);

/* ---- inbound.c: gateway dispatches to inputs ---- */

void dc_on_dispatch(void *ud, int shard, const char *type, struct json_object *d, int64_t seq);
/* gw_ops.message: a MESSAGE_CREATE the skimmer read, as dc_on_dispatch(). */
void dc_on_message(void *ud, int shard, const struct gw_message *m, int64_t seq);
/* gw_ops.interaction: an INTERACTION_CREATE the skimmer read, as dc_on_dispatch(). */
void dc_on_interaction(void *ud, int shard, const struct gw_interaction *ix, int64_t seq);
void dc_register_commands(struct dc *dc);

/* The bot's input from a MESSAGE_CREATE, read by either reader. */
struct dc_read {
    struct inbound in;
    char *command; /* malloc'd: a table's line made a command (a mention's, a reply's), where
                      in.text points; NULL when the line was typed as one (in.text is it) */
    char *decoded; /* the skimmed strings decoded: buf, or malloc'd when they outgrow it */
    char buf[512];
};
/*
 * Reads a MESSAGE_CREATE into r->in: from json-c's parse of its "d"
 * (dc_read_message), or from the skimmer's spans of it (dc_read_skimmed),
 * which give the same input. False when the adapter ignores the message (not
 * addressed to the bot, missing members, a bot's) or, skimmed, on no memory
 * (logged). r->in's strings are borrowed from d or the message's text and
 * from r; dc_read_done() frees what r holds, whatever the answer. A DM notes
 * its channel as its author's.
 */
bool dc_read_message(struct dc *dc, struct json_object *d, struct dc_read *r);
bool dc_read_skimmed(struct dc *dc, const struct gw_message *m, struct dc_read *r);
void dc_read_done(struct dc_read *r);

#endif
