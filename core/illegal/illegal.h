/*
 * illegal.h - the rules of Christophe Boelinger's Illegal as a pure state machine.
 *
 * The module does no I/O, reads no clock and keeps no global mutable state.
 * A game is one plain struct (no pointers, no heap), so it can be copied,
 * compared and stored freely. Every change goes through il_game_apply():
 *
 *     (game, action, now, rng) -> (game', events)
 *
 * `now` is a caller-chosen time in milliseconds; deadlines are absolute in the
 * same unit. The caller asks for time to pass with an IL_ACT_TICK action once a
 * deadline is due. Events say what happened and to whom: IL_PUBLIC events may be
 * shown at the table, any other audience is the seat of the one player who may
 * see it. Words are not in here: events carry identifiers, and the catalog
 * (core/catalog.h) turns identifiers into text.
 *
 * Seats are 0 .. nplayers-1. The Game Master is IL_GM; the caller decides who
 * may act as the GM.
 */
#ifndef CORE_ILLEGAL_H
#define CORE_ILLEGAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../rng.h"

#include "../attributes.h"

struct json_object;

/* The catalog key prefix of every word of the module (core/illegal/catalog/):
 * IL_KEYS "card.guns" is "illegal.card.guns". */
#define IL_KEYS "illegal."

#define IL_MIN_PLAYERS     4
#define IL_MAX_PLAYERS     8
#define IL_RESOURCES       8  /* resource types in the box */
#define IL_CARDS_PER_TYPE  10 /* resource cards of each type */
#define IL_DEALER_START    5  /* resource cards a dealer role starts with */
#define IL_DROPS           4  /* resource decks, one per drop */
#define IL_SESSIONS        5  /* dealing sessions */
#define IL_MAX_OFFERS      64 /* open offers in one game */
#define IL_MAX_OFFERS_FROM 8  /* open offers made by one player */
#define IL_MAX_CASES       (2 * IL_MAX_PLAYERS)
#define IL_MAX_TRADES      200 /* trades the game remembers for its recap; later ones are counted */
/* Events one action can produce, at most. The worst case is a casual session
 * closing on a full offer book: two OFFER_EXPIRED per open offer, then
 * SESSION_CLOSED, DROP_STARTED, DREW and HAND per player, DROP_DONE and
 * SESSION_OPENED: 2 * 64 + 2 * 8 + 4 = 148. */
#define IL_MAX_EVENTS (2 * IL_MAX_OFFERS + 4 * IL_MAX_PLAYERS)

#define IL_PUBLIC    (-1) /* event audience: everyone at the table */
#define IL_GM        (-2) /* actor seat of the Game Master */
#define IL_NOBODY    (-1) /* no player: no vote yet, an abstention, a discarded verdict */
#define IL_ABSTAINED (-3) /* a vote that names nobody on purpose; counts as voted */

/* Resources, in the rulebook's order. The value is stable: storage uses it. */
enum il_resource {
    IL_LUXURY_CARS,
    IL_GUNS,
    IL_JEWELRY,
    IL_ALCOHOL,
    IL_PORNOGRAPHY,
    IL_SECRET_FILES,
    IL_CALL_GIRLS,
    IL_POWDER,
};

/* The five kinds of card; each exists once per resource. */
enum il_card_kind {
    IL_KIND_RESOURCE,
    IL_KIND_DEALER,
    IL_KIND_BUYER,
    IL_KIND_DEALER_SUSPECT,
    IL_KIND_BUYER_SUSPECT,
    IL_KINDS
};

/*
 * A card type is kind * IL_RESOURCES + resource: 0..7 are resource cards,
 * 8..15 dealer roles, 16..23 buyer roles, 24..31 dealer suspects, 32..39
 * buyer suspects. Values are stable: storage uses them.
 */
#define IL_CARD_TYPES      (IL_KINDS * IL_RESOURCES)
#define IL_CARD(kind, res) ((uint8_t)((kind)*IL_RESOURCES + (res)))
#define IL_CARD_KIND(type) ((enum il_card_kind)((type) / IL_RESOURCES))
#define IL_CARD_RES(type)  ((enum il_resource)((type) % IL_RESOURCES))

/* A multiset of cards: how many of each card type. Hands, offers, piles. */
struct il_bundle {
    uint8_t n[IL_CARD_TYPES];
};

/* Returns the total number of cards in b. */
unsigned il_bundle_total(const struct il_bundle *b);

/* Returns true when `have` holds at least every card of `want`. */
bool il_bundle_contains(const struct il_bundle *have, const struct il_bundle *want);

/*
 * Stable text identifier of a card type, used in storage and JSON:
 * "guns", "dealer:guns", "buyer:guns", "suspect-dealer:guns",
 * "suspect-buyer:guns". Returns NULL for a value out of range.
 */
const char *il_card_id(unsigned type);

/* Parses an identifier from il_card_id(). Returns the type, or -1. */
int il_card_from_id(const char *id);

/* Stable identifier of a resource ("luxury-cars", "guns", ...), or NULL. */
const char *il_resource_id(unsigned res);

/* Parses a resource identifier. Returns the resource, or -1. */
int il_resource_from_id(const char *id);

/* Which tribunal and drop rules a game follows. The rulebook's two variants
 * change different things (the cases; the sessions and drops), so they
 * combine. The values are stable: storage uses their ids. */
enum il_variant {
    IL_VARIANT_STANDARD,        /* suspect pairs; drops grabbed at the table */
    IL_VARIANT_ADVANCED,        /* suspect cards judged one by one */
    IL_VARIANT_CASUAL,          /* long sessions; each player draws a drop card in private */
    IL_VARIANT_CASUAL_ADVANCED, /* casual sessions and drops, advanced cases */
    IL_VARIANTS
};

/* Whether v deals the casual way (long sessions, private draws). */
bool il_variant_casual(enum il_variant v);

/* Whether v judges suspect cards one by one (the advanced tribunal). */
bool il_variant_singles(enum il_variant v);

/* Stable identifier of a variant ("standard", "advanced", "casual",
 * "casual-advanced"), or NULL. */
const char *il_variant_id(enum il_variant v);

/* Every variant's identifier, in their order, NULL-terminated. */
extern const char *const il_variant_ids[IL_VARIANTS + 1];

/* Parses a variant identifier. Returns the variant, or -1. */
int il_variant_from_id(const char *id);

/* Parses a variant as a host types it: an identifier, or "casual" and
 * "advanced" together in any order and case, separated by blanks, commas or
 * "+" ("advanced casual"). Returns the variant, or -1. */
int il_variant_parse(const char *text);

/* The timers a game runs on, in milliseconds. */
enum il_timer {
    IL_TIMER_SESSION, /* one dealing session */
    IL_TIMER_REVEAL,  /* between two cards of a drop being revealed */
    IL_TIMER_GRAB,    /* the grab window once the last drop card is shown */
    IL_TIMER_DEBATE,  /* debate before each tribunal vote */
    IL_TIMER_VOTE,    /* the vote itself */
    IL_TIMERS
};

/* Stable identifier of a timer ("session", "reveal", ...), or NULL. */
const char *il_timer_id(enum il_timer t);

/* Parses a timer identifier. Returns the timer, or -1. */
int il_timer_from_id(const char *id);

/* Bounds a timer must respect, in milliseconds (1 s .. 7 days). */
#define IL_TIMER_MIN_MS 1000
#define IL_TIMER_MAX_MS (7LL * 24 * 3600 * 1000)

/*
 * How the tribunal runs. The rulebook's tribunal is live: one case after the
 * other, a debate, then a vote. These options let it run over hours or days,
 * when players are rarely online together.
 */
enum il_tribunal_option {
    IL_TRIBUNAL_HOLD = 1 << 0,           /* after the last session, wait for the GM (NEXT) or
                                            the scheduled time before the first case */
    IL_TRIBUNAL_PARALLEL = 1 << 1,       /* every case opens at once; each is voted on apart */
    IL_TRIBUNAL_VOTE_IN_DEBATE = 1 << 2, /* votes count from the start of the debate */
    IL_TRIBUNAL_CLOSE_EARLY = 1 << 3,    /* a vote closes once every active player has voted */
    IL_TRIBUNAL_OPTIONS = 4
};

/* Stable identifier of the option with bit number i ("hold", "parallel",
 * "vote-in-debate", "close-early"), or NULL. */
const char *il_tribunal_option_id(unsigned i);

/* Parses an option identifier. Returns its bit (enum il_tribunal_option), or -1. */
int il_tribunal_option_from_id(const char *id);

/* How a game is set up. */
struct il_config {
    enum il_variant variant;
    /* Bit r set: resource r is in play. 0 draws the resources at random;
     * otherwise exactly nplayers bits must be set (the GM's choice). */
    uint8_t resources;
    uint8_t tribunal; /* enum il_tribunal_option bits */
    int64_t timer_ms[IL_TIMERS];
};

/* Fills c with the defaults of variant v: the timers of the settings table
 * (config.c: sessions of 3 minutes, 20 minutes casual, 2 s reveal steps, 30 s
 * grab window, 1 minute debate, 30 s vote), random resources and the
 * rulebook's live tribunal (no options). */
void il_config_default(struct il_config *c, enum il_variant v);

enum il_phase {
    IL_PHASE_DEALING,     /* a dealing session is open; trades allowed */
    IL_PHASE_DROP_REVEAL, /* drop cards are being revealed one by one */
    IL_PHASE_DROP_GRAB,   /* all drop cards shown; first grab wins */
    IL_PHASE_HOLD,        /* dealing is over; the tribunal waits for the GM or its time */
    IL_PHASE_DEBATE,      /* a suspect case is shown (every case, in parallel); debate runs */
    IL_PHASE_VOTE,        /* the vote on that case (on every case, in parallel) is open */
    IL_PHASE_OVER,        /* scored; nothing more happens */
};

/* Stable identifier of a phase ("dealing", "drop-reveal", ...), or NULL. */
const char *il_phase_id(enum il_phase p);

/* A computer player's sources are compiled with IL_SEAT_ONLY: they see the
 * game's vocabulary (cards, actions, events) but not its state, only a seat's
 * view of it (view.h, core/strategy.h). */
#ifndef IL_SEAT_ONLY
struct il_player {
    bool active;                  /* false once removed by the GM */
    uint8_t dealer, buyer, extra; /* resources of the dealt deck */
    /* Everything the player holds: resources, the two roles, and the
     * suspect cards the tribunal gave them. */
    struct il_bundle hand;
    bool grabbed; /* already has a card from the current drop */
    /* Vote on each case: a seat, IL_ABSTAINED, or IL_NOBODY (none yet).
     * Kept after the verdict, so the game's record tells who voted how. */
    int8_t votes[IL_MAX_CASES];
    int16_t score; /* valid once the phase is IL_PHASE_OVER */
};
#endif

struct il_offer {
    uint32_t id; /* per game, from 1 */
    uint8_t from, to;
    struct il_bundle give; /* what `from` hands over */
    struct il_bundle ask;  /* what `from` wants back */
};

/* An accepted offer, as the recap tells it: `from` gave `give` to `to` and
 * got `ask` back, in dealing session `session` (1..5). Resource counts. */
struct il_trade {
    uint8_t from, to, session;
    uint8_t give[IL_RESOURCES], ask[IL_RESOURCES];
};

/* One tribunal case: a suspect pair, or a single suspect card (advanced). */
struct il_case {
    uint8_t ncards;
    uint8_t cards[2]; /* card types */
};

#ifndef IL_SEAT_ONLY
struct il_game {
    struct il_config config;
    uint8_t nplayers;
    uint8_t in_play; /* bit mask of resources in play */
    struct il_player players[IL_MAX_PLAYERS];

    enum il_phase phase;
    uint8_t session;  /* current or last dealing session, 1..IL_SESSIONS */
    uint8_t drops;    /* drops begun so far, 0..IL_DROPS */
    int64_t deadline; /* absolute ms; 0 while paused or over */
    bool paused;
    int64_t paused_remaining; /* ms left on the deadline when paused */

    /* The drop in progress: cards in reveal order, how many are shown,
     * and which are still on the table. */
    uint8_t drop_cards[IL_RESOURCES];
    uint8_t drop_count, drop_shown;
    bool drop_taken[IL_RESOURCES];

    struct il_bundle discard; /* out of the game: tied suspects, a removed player's cards */

    uint32_t next_offer_id;
    uint8_t noffers;
    struct il_offer offers[IL_MAX_OFFERS];

    /* Every accepted trade is counted; the first IL_MAX_TRADES are kept. */
    uint16_t ntrades;
    struct il_trade trades[IL_MAX_TRADES];

    /* Cases before case_index are judged; the others are not, except those
     * in `judged`. In a parallel tribunal every case not yet judged is open
     * at once, and with IL_TRIBUNAL_CLOSE_EARLY each is judged as soon as
     * every active player has voted on it: bit k of `judged` (0 otherwise). */
    uint8_t ncases, case_index;
    uint16_t judged;
    struct il_case cases[IL_MAX_CASES];
    int64_t tribunal_at; /* absolute ms the GM scheduled the tribunal for, or 0 */
    /* Over before its tribunal was through: the GM ended it, or too few
     * players were left. Nobody wins an aborted game. */
    bool aborted;
};
#endif

enum il_action_type {
    IL_ACT_TICK,      /* time has passed: fire the deadline if it is due */
    IL_ACT_OFFER,     /* player offers `give` to target, asking `ask` */
    IL_ACT_ACCEPT,    /* player accepts offer_id (made to them) */
    IL_ACT_DECLINE,   /* player declines offer_id (made to them) */
    IL_ACT_CANCEL,    /* player cancels offer_id (made by them) */
    IL_ACT_GRAB,      /* player grabs a drop card of `resource` */
    IL_ACT_VOTE,      /* player votes for target on case `number` */
    IL_ACT_ABSTAIN,   /* player votes for nobody on case `number` */
    IL_ACT_PAUSE,     /* GM: freeze the clock */
    IL_ACT_RESUME,    /* GM: restart the clock where it stopped */
    IL_ACT_EXTEND,    /* GM: add `ms` to the current deadline */
    IL_ACT_NEXT,      /* GM: end the current step now */
    IL_ACT_END,       /* GM: go straight to scoring */
    IL_ACT_KICK,      /* GM: remove target from the game */
    IL_ACT_SET_TIMER, /* GM: set `timer` to `ms` for every later step */
    IL_ACT_SCHEDULE,  /* GM: open the tribunal at time `at`, or `ms` from now (both 0: when
                         the GM says NEXT) */
};

struct il_action {
    enum il_action_type type;
    int8_t player; /* the actor's seat, or IL_GM */
    int8_t target; /* a seat, for OFFER, VOTE and KICK */
    uint32_t offer_id;
    struct il_bundle give, ask;
    uint8_t resource;
    uint8_t number; /* VOTE, ABSTAIN: the case (index into cases) */
    enum il_timer timer;
    int64_t ms;
    int64_t at; /* SCHEDULE: absolute time, in the unit of `now` */
};

enum il_event_type {
    IL_EV_GAME_STARTED,    /* public: nplayers, in_play in `cards` (one resource card each) */
    IL_EV_DEALT,           /* private: the player's deck in `cards` */
    IL_EV_SESSION_OPENED,  /* public: number, deadline */
    IL_EV_SESSION_CLOSED,  /* public: number */
    IL_EV_OFFER_MADE,      /* private to each side: offer_id, player=from, target=to, cards=give,
                              cards2=ask */
    IL_EV_OFFER_ACCEPTED,  /* private to each side: same fields */
    IL_EV_OFFER_DECLINED,  /* private to each side: same fields */
    IL_EV_OFFER_CANCELLED, /* private to each side: same fields */
    IL_EV_OFFER_EXPIRED,   /* private to each side: same fields */
    IL_EV_HAND,            /* private: the player's whole hand in `cards`, after a change */
    IL_EV_DROP_STARTED,    /* public: number (1..4), the deck in `cards` (one card per resource in
                              play) */
    IL_EV_DROP_REVEALED,   /* public: number (index of the card, 0-based), resource */
    IL_EV_GRAB_OPENED,     /* public: deadline */
    IL_EV_GRABBED,         /* public: player took `resource` */
    IL_EV_LEFTOVER,        /* public: player, who grabbed nothing, was given `resource` */
    IL_EV_DREW,            /* private (casual): player drew `resource` */
    IL_EV_DROP_DONE,       /* public: number */
    IL_EV_TRIBUNAL_HELD,   /* public: dealing is over; the tribunal opens at `deadline`, or when
                              the GM says so (deadline 0) */
    IL_EV_TRIBUNAL_SCHEDULED, /* public: the GM set the tribunal's time to `deadline` (0: none) */
    IL_EV_TRIBUNAL_OPENED,    /* public: count of cases */
    IL_EV_CASE_OPENED,        /* public: number (case index), cards (the suspect cards), deadline;
                                 one per case in a parallel tribunal */
    IL_EV_VOTE_OPENED,        /* public: number, deadline; one per case in a parallel tribunal */
    IL_EV_VOTE_RECORDED,      /* private: number (case index), player voted for target (IL_NOBODY:
                                 abstained) */
    IL_EV_VOTE_WITHDRAWN,     /* private: number (case index), player's vote for target no longer
                                 counts, because target left the game; they may vote again */
    IL_EV_VERDICT,        /* public: number, tally, target = convicted seat or IL_NOBODY, cards */
    IL_EV_REVEAL,         /* public, at the end: player, cards = everything they hold, score */
    IL_EV_GAME_OVER,      /* public: scores, winners mask, rank */
    IL_EV_PAUSED,         /* public: ms left on the clock */
    IL_EV_RESUMED,        /* public: deadline, ms left */
    IL_EV_EXTENDED,       /* public: deadline (0 while paused), ms left */
    IL_EV_PLAYER_REMOVED, /* public: player */
    IL_EV_TIMER_SET,      /* public: timer, ms */
};

struct il_event {
    enum il_event_type type;
    int8_t audience; /* IL_PUBLIC, or the only seat that may see it */
    int8_t player;
    int8_t target;
    uint8_t number;
    uint8_t resource;
    uint32_t offer_id;
    int64_t deadline;
    enum il_timer timer;
    int64_t ms;
    struct il_bundle cards, cards2;
    uint8_t tally[IL_MAX_PLAYERS];  /* VERDICT: votes each seat received */
    uint8_t abstentions;            /* VERDICT: active players who did not vote */
    int16_t scores[IL_MAX_PLAYERS]; /* GAME_OVER */
    uint8_t rank[IL_MAX_PLAYERS];   /* GAME_OVER: 1 = first; ties share a rank */
    uint8_t winners;                /* GAME_OVER: bit mask of seats */
    int16_t score;                  /* REVEAL */
};

/* Events produced by one call, in order. The caller owns it; reset before reuse. */
struct il_events {
    unsigned n;
    struct il_event v[IL_MAX_EVENTS];
};

/* Error codes. Every rejected action leaves the game and the events unchanged. */
enum il_error {
    IL_OK = 0,
    IL_ERR_BAD_ACTION,           /* unknown action type or field out of range */
    IL_ERR_BAD_PLAYER_COUNT,     /* setup: not 4..8 players */
    IL_ERR_BAD_RESOURCES,        /* setup: the GM's choice does not name nplayers resources */
    IL_ERR_BAD_TIMER,            /* a timer outside IL_TIMER_MIN_MS .. IL_TIMER_MAX_MS */
    IL_ERR_GAME_OVER,            /* the game has ended */
    IL_ERR_WRONG_PHASE,          /* not allowed in the current phase */
    IL_ERR_PAUSED,               /* the GM paused the game */
    IL_ERR_NOT_PAUSED,           /* resume while running */
    IL_ERR_NOT_GM,               /* a GM action from a player */
    IL_ERR_NOT_A_PLAYER,         /* actor or target is no active player */
    IL_ERR_SELF_TARGET,          /* an offer to oneself */
    IL_ERR_SELF_VOTE,            /* a vote for oneself */
    IL_ERR_EMPTY_OFFER,          /* nothing given and nothing asked */
    IL_ERR_NOT_TRADABLE,         /* a role or suspect card in an offer */
    IL_ERR_NOT_IN_PLAY,          /* a resource that is not in this game */
    IL_ERR_CARDS_NOT_HELD,       /* the offerer does not hold what they offer */
    IL_ERR_OFFERER_LACKS_CARDS,  /* accept: the offerer no longer holds the cards */
    IL_ERR_RECEIVER_LACKS_CARDS, /* accept: the receiver does not hold what is asked */
    IL_ERR_NO_SUCH_OFFER,        /* no open offer with that id */
    IL_ERR_NOT_RECEIVER,         /* accept/decline of an offer made to someone else */
    IL_ERR_NOT_OFFERER,          /* cancel of someone else's offer */
    IL_ERR_TOO_MANY_OFFERS,      /* IL_MAX_OFFERS_FROM or IL_MAX_OFFERS reached */
    IL_ERR_GRAB_NOT_OPEN,        /* grab before the last drop card is shown */
    IL_ERR_ALREADY_GRABBED,      /* a second grab in the same drop */
    IL_ERR_CARD_GONE,            /* no such card left on the table */
    IL_ERR_NO_SUCH_CASE,         /* a vote on a case that is not open */
    IL_ERR_CORRUPT,              /* from_json: the stored game breaks a rule */
    IL_ERR_COUNT
};

/* Stable identifier of an error ("wrong-phase", ...); the catalog key of its
 * reason is IL_KEYS "error." followed by it. Returns "unknown" for a bad value. */
const char *il_error_id(enum il_error e);

#ifndef IL_SEAT_ONLY
/*
 * Sets up a new game for nplayers (4..8) following config, deals every deck,
 * pairs the suspect cards and opens the first dealing session at `now`.
 * Emits GAME_STARTED, one DEALT per player, and SESSION_OPENED.
 * Errors: IL_ERR_BAD_PLAYER_COUNT, IL_ERR_BAD_RESOURCES, IL_ERR_BAD_TIMER.
 */
enum il_error il_game_setup(struct il_game *g, const struct il_config *config, unsigned nplayers,
                            int64_t now, struct rng *rng, struct il_events *ev) MUST_USE;

/*
 * Applies one action at time `now`, appending what happened to ev.
 * On error nothing changes: not the game, not the rng, not ev.
 * A TICK before the deadline (or while paused) is not an error and does nothing.
 * One action never produces more than IL_MAX_EVENTS events; if ev has no room
 * left for them, the action is refused with IL_ERR_BAD_ACTION, so reset ev
 * (n = 0) before each call. A step that opens while the game is paused (the GM
 * removed a player) announces deadline 0; RESUMED gives the real one.
 */
enum il_error il_game_apply(struct il_game *g, const struct il_action *a, int64_t now,
                            struct rng *rng, struct il_events *ev) MUST_USE;

/* Whether case k (an index into cases) takes votes now. */
bool il_case_open(const struct il_game *g, unsigned k);

/* Whether case k has had its verdict. */
bool il_case_judged(const struct il_game *g, unsigned k);

/* The next absolute deadline, or 0 when none runs (paused, or over). */
int64_t il_game_deadline(const struct il_game *g);

/* How a score is made: one point a resource of the player's buyer held, one
 * a suspect card that names someone else's role (wrong), minus five a suspect
 * card that names one of the player's own roles (right). */
struct il_score_parts {
    unsigned resources, wrong, right;
};

/* The parts of seat `seat`'s score for what they hold now (all zero for a
 * seat out of range). */
struct il_score_parts il_score_parts(const struct il_game *g, unsigned seat);

/* The score the rulebook's formula gives seat `seat` for what they hold now:
 * resources + wrong - 5 * right of il_score_parts. */
int il_score(const struct il_game *g, unsigned seat);

/*
 * Checks every invariant: cards conserved and in one place each, one dealer
 * and one buyer role per player, the setup rules, scores matching the formula
 * once over. Returns true when all hold; otherwise writes the first broken one
 * into why (if not NULL) and returns false.
 */
bool il_game_check(const struct il_game *g, char *why, size_t whylen);

/* Serialises g into a new json-c object; the caller owns it (json_object_put). NULL on no memory.
 */
struct json_object *il_game_to_json(const struct il_game *g);

/* Restores g from json made by il_game_to_json(). IL_ERR_CORRUPT when a field is
 * missing or out of range, or when the result fails il_game_check(); g is then unchanged. */
enum il_error il_game_from_json(struct il_game *g, const struct json_object *json);

#endif /* IL_SEAT_ONLY */

#endif
