/*
 * message.h - what a message from a game is, before any platform sees it.
 *
 * A rules module renders its events into struct rules_msg: who may read it
 * (the table, or one seat), its kind, its key, its text and its structured
 * data. The bot turns the audience into a channel or a user and hands the
 * message to the game's platform. Keys name a message so that a later one
 * can replace it and a reaction can be traced back to it; struct msg_key is
 * their one form, with one format and one parse.
 */
#ifndef CORE_MESSAGE_H
#define CORE_MESSAGE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "attributes.h"

struct json_object;

/*
 * The form a message takes. The kinds are the same for every game: a module
 * says what a message is, and gives what a player may do with it as generic
 * "choices" in its data (bot/platform.h), so that an adapter draws it
 * without knowing what a card, an offer or a drop is.
 */
enum outbound_kind {
    OUT_NOTICE,       /* an announcement or a reply */
    OUT_LOBBY,        /* the lobby: data has players; buttons join/leave/start */
    OUT_TABLE_VIEW,   /* what the table sees of the game, edited in place (Illegal's drop) */
    OUT_PRIVATE_VIEW, /* what one seat alone sees, edited in place (Illegal's hand) */
    OUT_PROMPT,       /* a question with choices, to one seat or to the table (an offer) */
    OUT_BALLOT,       /* a vote: the choices are the candidates; data has the deadline */
    OUT_RESULT,       /* the final reveal and scores */
    OUT_ERROR,        /* an error answering a user's input */
    OUT_GAME_OVER     /* machine-readable result: data has scores and winners */
};

#define MSG_ID_MAX    24  /* a game id: "g7" */
#define MSG_TOPIC_MAX 16  /* a topic: "offer" */
#define MSG_USER_MAX  256 /* a user id */
#define MSG_KEY_MAX   (MSG_ID_MAX + MSG_TOPIC_MAX + 24 + MSG_USER_MAX)

/*
 * A message's key: game "g7", topic "offer", number 3, user "alice" is
 * written "g7/offer/3/alice". Which parts a topic has is fixed by the topic
 * (the bot's in message.c, a game's in its module: struct msg_topic), so a
 * user id made of digits never reads as a number.
 */
struct msg_key {
    char game[MSG_ID_MAX];
    char topic[MSG_TOPIC_MAX];
    unsigned number;         /* for topics that have one */
    char user[MSG_USER_MAX]; /* for topics kept per user */
};

/* A topic of message keys and the parts its keys have: the bot's own
 * (message.c) and each rules module's (rules_module.topics). */
struct msg_topic {
    const char *topic;
    bool number, user;
};

/* The topic called t: the bot's, else the first module's that has it; NULL
 * when none has. */
const struct msg_topic *msg_topic_find(const char *t);

/* Writes k as text into out. Returns 0, or -1 when k's topic is unknown or
 * the text does not fit. */
int msg_key_format(const struct msg_key *k, char *out, size_t len) MUST_USE;

/* Reads a key written by msg_key_format(). Returns 0, or -1 when s is not
 * one (an unknown topic, a missing or extra part, a part too long). */
int msg_key_parse(const char *s, struct msg_key *k) MUST_USE;

/* In a pattern for msg_key_matches(): any number. */
#define MSG_ANY_NUMBER UINT_MAX

/* Whether the key written s is one of the messages `of` names: the same game,
 * and the same topic, number and user where `of` gives them (an empty topic
 * or user, and number MSG_ANY_NUMBER, match any). False when s is no key. */
bool msg_key_matches(const char *s, const struct msg_key *of);

/* The name of a kind ("notice", "private_view"), as the store writes it;
 * msg_kind_parse() reads one back, and the names the kinds had before they
 * were generic ("hand", "drop", "offer", "vote"), which an outbox stored by
 * an older daemon holds. Returns 0, or -1 if unknown. */
const char *msg_kind_name(enum outbound_kind k);
int msg_kind_parse(const char *name, enum outbound_kind *k) MUST_USE;

/* The name a message goes by where one word tells it (a transcript, the
 * console's and the page's "kind"): for a view, a prompt or a ballot, the
 * topic of its key, which its module names ("hand", "drop"); else, or with
 * no key, its kind's name. key is a written key, or NULL; the topic is
 * written into out (len bytes). Returns out or a static name, never NULL. */
const char *msg_label(enum outbound_kind k, const char *key, char *out, size_t len);

/* Who may read a message: the whole table, or one seat (0..). */
#define MSG_TABLE (-1)

/*
 * One message of a game, as its rules module renders it. Everything it
 * points to is borrowed for the duration of the emit call.
 */
struct rules_msg {
    int audience; /* MSG_TABLE or a seat */
    enum outbound_kind kind;
    const struct msg_key *key; /* NULL for a message never referred to again */
    bool replace;              /* edit the message last sent under key, if any */
    const char *text;          /* complete plain text */
    const struct json_object *data;
};

/*
 * One line of a message's text as the catalog wrote it: {"key": key, "vars":
 * {name: value}} from a NULL-terminated list of name, value pairs (vars may be
 * NULL). A message lists its lines in its data's "say", in the order of its
 * text, so that an adapter may word a line its own way (the local table's
 * page words for buttons what chat words for typing). A new object the caller
 * owns, or NULL on no memory.
 */
struct json_object *msg_say(const char *key, const char *const *vars);

/* The event a message's catalog key tells, for its data's "event": what
 * follows its "msg." ("msg.lobby": "lobby"; a game's "illegal.msg.dealt":
 * "dealt"), or the key itself. Points into key. */
const char *msg_event_name(const char *key);

/*
 * The label of one of a message's "choices" (bot/platform.h) as a player
 * reads it: its "label", else its "label_key" in lang (the catalog's
 * default language when lang has none), then its "tag" after a space
 * ("Accept #3"). Writes it into out (len bytes, cut to fit); "" when the
 * choice has no label (a reaction).
 */
void msg_choice_label(const struct json_object *choice, const char *lang, char *out, size_t len);

/* Receives each message a module renders. */
typedef void (*rules_emit_fn)(void *arg, const struct rules_msg *m);

#endif
