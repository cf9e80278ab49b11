/*
 * internal.h - the Discord adapter's shared state, for discord.c, render.c
 * and interactions.c.
 */
#ifndef DISCORD_INTERNAL_H
#define DISCORD_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/types.h>

#include <json-c/json.h>
#include <uv.h>

#include "bot/config.h"
#include "bot/platform.h"
#include "core/attributes.h"
#include "discord.h"
#include "gateway.h"
#include "rest.h"
#include "util.h"

#define DC_MOD        "discord"
#define DC_USER_AGENT "DiscordBot (https://github.com/illegald/illegald, 0.1.0)"

#define PERM_ADMINISTRATOR (1ull << 3)
#define PERM_MANAGE_GUILD  (1ull << 5)

#define EPHEMERAL_FLAG 64 /* message flag 1 << 6 */

/* The trade builder asks for at most this many of one card, and reads no
 * quantity above DC_BUILDER_MAX_QTY from a menu. */
#define DC_BUILDER_ASK_QTY 3u
#define DC_BUILDER_MAX_QTY 25u

/* A message the bot sent under a logical key. */
struct dc_msg {
    char *channel;      /* Discord channel id */
    char *id;           /* Discord message id; NULL until the POST is answered */
    struct map reacted; /* emoji -> (void *)1: reactions already queued */
};

/* A trade in the making, from the hand message's select menus. */
struct dc_builder {
    char *to;
    char *give; /* "1 guns 1 alcohol" */
    char *ask;
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
    struct json_object *hand;          /* the last OUT_HAND data */
    struct dc_builder tb;
};

/* An interaction we got and may still answer (tokens last 15 minutes). */
struct dc_ixn {
    char *id, *token;
    bool component;
    bool answered; /* the initial callback went out */
    bool deferred; /* ... as type 5 or 6 */
    bool original; /* a deferred type 5 still waits for its content */
    uint64_t created;
    struct json_object *captured; /* replies made during deliver(): array of bodies */
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
    DC_OP_FORGET, /* no request: once the table's queue reaches it, a game's ids are dropped */
    DC_OP_CLOSE,  /* a message's buttons and menus go: their moment has passed */
};

/* The context of one REST request. */
/* A message's nonce is this store's random prefix and its outbox id: an id
 * alone repeats in a new store, and Discord would answer with an old message. */
#define DC_NONCE_PREFIX 8

struct dc_op {
    struct dc *dc;
    enum dc_op_type type;
    char *key;         /* logical key (POST, EDIT, REACT, CLOSE); the game id (FORGET) */
    char *channel;     /* channel id */
    char *user;        /* DM recipient */
    char *body;        /* JSON */
    char *emoji;       /* REACT */
    char *msg_id;      /* CLOSE: the message, when known as the op was queued */
    bool replaced;     /* CLOSE: msg_id is no longer the key's message (a new one took the key) */
    int64_t outbox_id; /* POST, EDIT: the bot's outbox id, reported through dc_sent() */
    char *post_body;   /* EDIT of a message from the outbox: the body to POST (with its nonce)
                          when the message has no id yet */
};

struct dc {
    struct platform base;
    uv_loop_t *loop;
    char *token, *app_id, *api_url, *gateway_url, *mod_role;
    const char *language;   /* the catalog language of labels and titles (the config's) */
    const char *words_lang; /* while dc_render() runs: the message's language ("lang" in its
                               data), which dc_word() and dc_card_name() then use */
    char *guild_ids[CONFIG_MAX_GUILDS];
    unsigned nguilds;
    int shards;
    unsigned global_rate; /* REST requests per second ([discord] global_rate_limit) */
    struct rest *rest;
    char nonce_prefix[DC_NONCE_PREFIX + 1]; /* this store's, before outbox ids (stored.c) */
    struct gw *gw;
    struct map msgs;     /* key -> struct dc_msg * */
    struct map msg_ids;  /* Discord message id -> key (char *) */
    struct map users;    /* user id -> struct dc_user * */
    struct map ixns;     /* "ix:<id>" -> struct dc_ixn * */
    struct map guilds;   /* guild id -> struct dc_guild * */
    struct map dm_users; /* DM channel id -> user id (char *) */
    struct map tables;   /* "<kind>:<channel>" -> the last lobby/drop/vote data */
    struct map in_play;  /* game id -> array of the resources in play (json) */
    struct map controls; /* game id -> array of keys of messages with live controls (json) */
    char *self_id;
    bool commands_registered;
    bool started, stopping;
    struct dc_ixn *capture; /* the interaction being delivered: its replies so far */
    uv_timer_t sweep;
    bool sweep_open;
    uint64_t drain_until; /* stopping: REST requests may finish until then */
    struct discord_stats st;
};

/* discord.c */
struct dc_op *dc_op_new(struct dc *dc, enum dc_op_type type);
void dc_op_free(struct dc_op *op);
/* Queues op's request (op is taken). Returns 0, or -1 on no memory: op is then freed and
 * the failure logged here. */
int dc_rest(struct dc *dc, struct dc_op *op, const char *queue, const char *method,
            const char *path, unsigned flags);
struct dc_user *dc_user_get(struct dc *dc, const char *id);
/* Whether user_id, a member of guild_id (member: their member object, which
 * in MESSAGE_CREATE carries no user), moderates there: the owner, a holder
 * of Administrator or Manage Server, or of [discord] moderator_role. Reads
 * member's permissions and roles only: skim.c keeps those of a message. */
bool dc_is_moderator(struct dc *dc, const char *guild_id, const char *user_id,
                     struct json_object *member);

/* deliver.c: hands in to the bot (unless the adapter is stopping). Returns
 * the bot's answer: 0, or -1 when it refused the input (and told the user). */
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

/* render.c: the message body (content, embeds, components) for one outbound. */
struct json_object *dc_render(struct dc *dc, const struct outbound *m);
/* A plain body with text (ephemeral when flags say so). */
struct json_object *dc_render_text(const char *text, int flags);
/* The hand message's trade builder rows, from the user's state. */
/* The catalog text of key in dc's language (the key itself if missing). */
const char *dc_word(const struct dc *dc, const char *key);
/* The catalog name of a card id ("call-girls" -> "Call Girls"), or the id. */
const char *dc_card_name(const struct dc *dc, const char *card);

void dc_render_builder(struct dc *dc, struct json_object *components, const char *user,
                       struct json_object *data);

/*
 * The resources in play in game (ids, a new reference the caller puts): as
 * the game's start announced them, else what hand_data (an OUT_HAND's data)
 * shows of them. Never NULL.
 */
struct json_object *dc_in_play(struct dc *dc, const char *game, struct json_object *hand_data);

/* interactions.c */
void dc_interaction(struct dc *dc, struct json_object *d, int64_t seq);
/* Answers an outbound whose reply_to names an interaction. Returns 1 when handled. */
int dc_ix_reply(struct dc *dc, const struct outbound *m) MUST_USE;
void dc_ix_sweep(struct dc *dc);
void dc_ix_free(void *ixn);
struct json_object *dc_commands_json(void);

/* --- discord.c, split: what its files share --- */

/* Discord's JSON error codes the adapter acts on. */
#define ERR_CANNOT_DM   50007
#define UNKNOWN_MESSAGE 10008
/* After a 50007, DMs to that user are not attempted for this long: each
 * refusal is a 403, and 403s count towards Discord's invalid-request limit. */
#define DM_REFUSED_HOLD_MS 60000u

/* records.c */
void dc_builder_reset(struct dc_builder *tb);

void dc_guild_free(void *p);

void dc_msg_free(void *p);

struct dc_msg *dc_msg_get(struct dc *dc, const char *key, const char *channel);

void dc_role_free(void *p);

void dc_user_free(void *p);

char *dc_xstrdup(const char *s);

/* outbox.c */
void dc_create_dm(struct dc *dc, const char *user_id, struct dc_user *u);

/* Discord refused a DM to user (50007, or no DM channel): remember it and
 * tell the bot. */
void dc_dm_refused(struct dc *dc, const char *user, long status, int code);

/* Queues op (POST, EDIT or REACT) on its channel (op is taken). Returns 0, or -1 on no
 * memory: op is then freed and the loss logged here, so a caller with nothing more to do
 * may leave the result. */
int dc_queue_on_channel(struct dc *dc, struct dc_op *op);

/* Sends op to a user's DM channel, creating it first when needed (op is taken). Returns 0,
 * or -1 on no memory (op freed, as dc_queue_on_channel). */
int dc_queue_on_dm(struct dc *dc, const char *user_id, struct dc_op *op);

void dc_report_probe(struct dc *dc, const char *user, bool reachable);

/* stored.c: lists of words a game needs, kept in memory and in the store under
 * "<what>/<game>" as one line, so that a restart still knows them. */
#define LIST_IN_PLAY  "play"
#define LIST_CONTROLS "ctl"
#define DC_LIST_MAX   (64u << 10) /* a stored list: a game's cards or controls, ids of 20 bytes */

/* The list, loaded from the store when this run has not seen it; NULL when it
 * is empty and create is false. Borrowed from map. */
struct json_object *dc_list_get(struct dc *dc, struct map *map, const char *what, const char *game,
                                bool create);
/* Stores l; when it cannot be written whole (no memory), the stored copy stays as it was. */
void dc_list_save(struct dc *dc, const char *what, const char *game, struct json_object *l);
/* Where word is in l, or -1. */
ssize_t dc_list_find(struct json_object *l, const char *word);

/* stored.c, messages.c */
/*
 * A game is over and its last message went out: its logical keys are never
 * used again, so their message ids leave memory and the store. (Ids stored
 * by an earlier run and not used since stay stored.)
 */
void dc_forget_game(struct dc *dc, const char *game);

char *dc_gw_state_get(void *ud, const char *key);

/* Reads this store's nonce prefix, making and storing one the first time. */
void dc_nonce_prefix_load(struct dc *dc);

void dc_gw_state_set(void *ud, const char *key, const char *value);

void dc_gw_state_defer(void *ud, const char *key, const char *value);

/*
 * Which Discord message carries a logical key is kept in the store too, so
 * that after a restart the lobby, hands and drop are still edited in place
 * and reactions on the drop still count: "msg/<key>" holds "<channel> <id>",
 * "mid/<id>" holds the key.
 */
void dc_msg_persist(struct dc *dc, const char *key, const char *channel, const char *id);

/* The message under key from the store, when this run has not seen it. */
struct dc_msg *dc_msg_restore(struct dc *dc, const char *key);

/* Notes whether the message under key has live controls now. */
void dc_note_controls(struct dc *dc, const char *game, const char *key, bool live);
/* Whether the message under key was noted with live controls. */
bool dc_controls_live(struct dc *dc, const char *game, const char *key);
/* A new message takes key ("hand" posts the hand anew): the old one's controls
 * go, so that no stale builder or button is left in the DM. */
void dc_close_replaced(struct dc *dc, const char *key);

/*
 * What a message tells the adapter about a game: the resources in play (its
 * start), and the moments when controls stop meaning anything: a verdict
 * closes the vote buttons, the end of an offer (accepted, declined, cancelled,
 * expired) its Accept/Decline/Cancel buttons for that player, the result
 * every control left (the trade builders under the hands).
 */
void dc_note_game(struct dc *dc, const struct outbound *m);

/* guilds.c */
void dc_on_guild(struct dc *dc, const char *type, struct json_object *d);

uint64_t dc_parse_u64(const char *s);

/* inbound.c */
void dc_on_dispatch(void *ud, int shard, const char *type, struct json_object *d, int64_t seq);

void dc_register_commands(struct dc *dc);

#endif
