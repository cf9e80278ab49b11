/*
 * palm_drewes.h - the rules of Michael Palm and Martin Drewes' card game
 * Illegal (Ars Ludii) as a pure state machine: module id "palm-drewes".
 *
 * A turn-based card game for 2 to 6: each player opens a business, plays
 * illegal and legal deals into it, lays burdens on the others' openings,
 * lifts them with reliefs, takes deals over, and scores the euros of their
 * business when the game ends. core/palm-drewes/README.md tells how the
 * rulebook became this code, and every choice made where it says nothing.
 *
 * Like core/illegal/, the module does no I/O, reads no clock, keeps no global
 * mutable state and never allocates (but in pd_game_to_json). A game is one
 * plain struct with no pointers; every change goes through pd_game_apply():
 *
 *     (game, action, now, rng) -> (game', events)
 *
 * `now` is the caller's clock in milliseconds; deadlines are absolute in the
 * same unit, and the caller sends PD_ACT_TICK once pd_game_deadline() is due.
 * Events name their audience: PD_TABLE (everyone), or the one seat that may
 * see it. Words are not in here: events carry identifiers, and the catalog
 * keys "palm-drewes.*" turn them into text (pd_event_text()).
 *
 * Seats are 0 .. nplayers-1, in the order of play: a seat's left neighbour is
 * the next seat. The host (who may pause, extend, end and remove) is PD_HOST;
 * the caller decides who may act as the host.
 */
#ifndef CORE_PALM_DREWES_H
#define CORE_PALM_DREWES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../attributes.h"
#include "../rng.h"

struct json_object;

#define PD_MIN_PLAYERS 2
#define PD_MAX_PLAYERS 6
#define PD_DECK_SIZE   108 /* cards in the box */
#define PD_HAND_SIZE   7   /* cards dealt to each player */
#define PD_MAX_SKIPS   2   /* turns a nuisance card makes one sit out, at most */
#define PD_MAX_OFFERS  8   /* open trade offers at once (all the current player's) */
/* Events one action can produce, at most: see the bound in README.md. */
#define PD_MAX_EVENTS 128

#define PD_TABLE  (-1)  /* event audience: everyone at the table */
#define PD_HOST   (-2)  /* actor of the host's actions */
#define PD_NOBODY (-1)  /* no seat */
#define PD_NONE   0xffu /* no card */

/* The goals of a series of games (euros); PD_SERIES_OFF plays single games. */
#define PD_SERIES_OFF   0
#define PD_SERIES_SHORT 500000
#define PD_SERIES_LONG  1000000

/* The 25 cards of the box, in the rulebook's order. Values are stable:
 * storage uses their ids (pd_card_id). */
enum pd_card {
    PD_OPENING,      /* Geschäftseröffnung: opens one's business */
    PD_RECKONING,    /* Tag der Abrechnung: ends the game */
    PD_FUNNY_MONEY,  /* illegal deal, 5,000 (Blüten; the card list's "Wetten") */
    PD_DAMES,        /* illegal deal, 5,000 (Miezen) */
    PD_DOPE,         /* illegal deal, 25,000 (Stoff) */
    PD_GUNS,         /* illegal deal, 50,000 (Knarren; the card list's "Waffen") */
    PD_COUP,         /* illegal deal, 100,000 (Der Coup) */
    PD_SMALL_FRY,    /* legal deal, 1,000 (Kleine Fische) */
    PD_BROKERAGE,    /* legal deal, 3,000 (Maklergeschäfte) */
    PD_POLITICAL,    /* legal deal, 10,000 (Parteigeschäfte) */
    PD_RAID,         /* burden: no illegal deals; lose an illegal deal every turn */
    PD_PROTECTION,   /* burden: no illegal deals; lose any deal every turn */
    PD_TAX_AUDIT,    /* burden: no illegal deals; the hand lies open */
    PD_SWEDEN,       /* burden: no deals at all (Urlaub in Schweden) */
    PD_INFORMANT,    /* relief: lifts a raid */
    PD_MISTER_ZERO,  /* relief: lifts protection money */
    PD_CLEAN_RECORD, /* relief: lifts a tax audit (Weiße Weste) */
    PD_ALIBI,        /* relief: lifts a holiday in Sweden */
    PD_BRIBE,        /* relief: lifts any burden, costs a deal from the hand (Schmiergeld) */
    PD_FAMILY_PARTY, /* nuisance: lose a deal, sit out a turn; -25,000 in hand */
    PD_LOAN_SHARK,   /* nuisance: lose the top deal, sit out two turns; -50,000 in hand */
    PD_RUIN,         /* nuisance: lose every deal, sit out two turns; -100,000 in hand */
    PD_TAKEOVER,     /* take a deal from another business */
    PD_CONNECTIONS,  /* lift one's own burden, then take a deal (Beziehungen) */
    PD_MAGNUM,       /* in or out of turn: lift a burden, or stop a takeover */
    PD_CARDS
};

enum pd_kind {
    PD_KIND_OPENING,
    PD_KIND_RECKONING,
    PD_KIND_ILLEGAL,  /* laid left of the opening */
    PD_KIND_LEGAL,    /* laid right of the opening */
    PD_KIND_BURDEN,   /* laid on an opponent's opening */
    PD_KIND_RELIEF,   /* lifts a burden */
    PD_KIND_NUISANCE, /* hurts whoever plays it, or whoever holds it at the end */
    PD_KIND_TAKEOVER, /* takeover and connections */
    PD_KIND_MAGNUM,
};

/* A multiset of cards: how many of each. Hands, businesses, piles, offers. */
struct pd_bundle {
    uint8_t n[PD_CARDS];
};

/* Returns the number of cards in b. */
unsigned pd_bundle_total(const struct pd_bundle *b);

/* Whether `have` holds at least every card of `want`. */
bool pd_bundle_contains(const struct pd_bundle *have, const struct pd_bundle *want);

/* Stable identifier of a card ("opening", "dope", "magnum"), or NULL out of range. */
const char *pd_card_id(unsigned card);

/* Parses an identifier of pd_card_id(). Returns the card, or -1. */
int pd_card_from_id(const char *id);

/* The kind of a card (card < PD_CARDS). */
enum pd_kind pd_card_kind(unsigned card);

/* How many of a card the box holds (0 out of range). */
unsigned pd_card_count(unsigned card);

/* Euros: a deal's worth in a business, a nuisance card's cost in the hand
 * at the end; 0 for every other card. */
int32_t pd_card_value(unsigned card);

/* Whether card is a deal (legal or illegal). */
bool pd_card_is_deal(unsigned card);

/* The burden a relief lifts (PD_INFORMANT: PD_RAID ...); PD_NONE for the
 * bribe (it lifts any) and for a card that is no relief. */
unsigned pd_relief_lifts(unsigned card);

/* The timers a game runs on, in milliseconds. */
enum pd_timer {
    PD_TIMER_TURN,   /* a player's turn: trades, then play or discard */
    PD_TIMER_WINDOW, /* after a takeover: who holds the Magnum may stop it */
    PD_TIMER_PASS,   /* everyone chooses the card they pass to the left */
    PD_TIMER_CHOICE, /* a burdened player chooses the deal they lose */
    PD_TIMERS
};

/* Stable identifier of a timer ("turn", "window", "pass", "choice"), or NULL. */
const char *pd_timer_id(enum pd_timer t);

/* Parses a timer identifier. Returns the timer, or -1. */
int pd_timer_from_id(const char *id);

#define PD_TIMER_MIN_MS    1000
#define PD_TIMER_MAX_MS    (7LL * 24 * 3600 * 1000)
#define PD_REMINDER_MAX_MS (24LL * 3600 * 1000)

/* How a game is set up. */
struct pd_config {
    int64_t timer_ms[PD_TIMERS];
    /* How long before a turn's, a pass's or a choice's deadline the players
     * it waits on are reminded; 0: never. A step no longer than this gets
     * no reminder. */
    int64_t reminder_ms;
    /* The series' goal in euros: PD_SERIES_OFF, _SHORT or _LONG. */
    int32_t series_target;
};

/* The settings a host reads and changes, in the order of the module's
 * table (module.h: pd_settings[], where each default is written). */
enum pd_setting {
    PD_SET_PRESET, /* a ready-made set of the timers below */
    PD_SET_TURN,   /* the timers, in the order of enum pd_timer */
    PD_SET_WINDOW,
    PD_SET_PASS,
    PD_SET_CHOICE,
    PD_SET_REMINDER, /* c->reminder_ms */
    PD_SET_SERIES,   /* c->series_target, by its index in pd_series_goals */
    PD_SETTINGS
};

/* The goals a series may have (euros), by the index of the `series`
 * setting's values ("off", "500000", "1000000"). */
extern const int32_t pd_series_goals[3];

/* Fills c from one value per setting (seconds, a choice's index; the
 * daemon's defaults, as struct rules_defaults holds them), or from the
 * table's own defaults when values is NULL: turns of 2 minutes, a 15 s Magnum
 * window, 1 minute to pass and to choose, a reminder 30 s before, no series. */
void pd_config_from(struct pd_config *c, const int64_t *values);

/* pd_config_from(c, NULL). */
void pd_config_default(struct pd_config *c);

/* Reads setting s of c (ms for a duration, the goal in euros for the series). */
int64_t pd_config_get(const struct pd_config *c, enum pd_setting s);

/* Sets setting s of c to v (as pd_config_get() reads it). Returns 0, or -1
 * (c unchanged) when v is not a value of s. */
int pd_config_set(struct pd_config *c, enum pd_setting s, int64_t v) MUST_USE;

/* The ready-made sets of timers, the modes a game is opened in. */
enum pd_preset_id { PD_PRESET_LIVE, PD_PRESET_QUICK, PD_PRESET_CASUAL, PD_PRESETS };

/* Their ids ("live", "quick", "casual"), NULL-terminated. */
extern const char *const pd_preset_ids[PD_PRESETS + 1];

/* A preset: the value of each duration setting in seconds, 0 taking the
 * daemon's default. */
struct pd_preset {
    int64_t value[PD_SETTINGS];
};

extern const struct pd_preset pd_presets[PD_PRESETS];

/* Applies preset p's timers to c (the series goal stays), with the daemon's
 * defaults as pd_config_from() takes them (NULL: the table's). */
void pd_preset_apply(struct pd_config *c, enum pd_preset_id p, const int64_t *values);

/* The preset c's timers equal with those defaults, or -1. */
int pd_preset_of(const struct pd_config *c, const int64_t *values);

/*
 * A series of games at one table: the running totals, carried from each
 * game to the next by whoever hosts them (pd_series_after() at the end of
 * one game, the `series` argument of the next pd_game_setup()). By seat:
 * the host keeps a series' seats in the same order.
 */
struct pd_series {
    uint16_t games; /* games counted so far; 0: a new series */
    uint8_t nplayers;
    int8_t dealer; /* who dealt the last game counted, or PD_NOBODY */
    int64_t totals[PD_MAX_PLAYERS];
};

enum pd_phase {
    PD_PHASE_TURN,   /* the current player trades, then plays or discards */
    PD_PHASE_WINDOW, /* a takeover waits: anyone else may stop it with the Magnum */
    PD_PHASE_PASS,   /* after a nuisance card: everyone chooses a card for the left */
    PD_PHASE_LOSS,   /* the current player's burden takes a deal of their choice */
    PD_PHASE_OVER,   /* scored; nothing more happens */
    PD_PHASES
};

/* Stable identifier of a phase ("turn", "window", "pass", "loss", "over"), or NULL. */
const char *pd_phase_id(enum pd_phase p);

/* Why a game ended. */
enum pd_end {
    PD_END_NONE,      /* not over */
    PD_END_RECKONING, /* the day of reckoning was called */
    PD_END_PILE,      /* a player had to draw from an empty pile */
    PD_END_HAND,      /* a player's hand was emptied */
    PD_END_HOST,      /* the host ended it (aborted) */
    PD_END_PLAYERS,   /* fewer than two players were left (aborted) */
};

/* Stable identifier of an end ("reckoning", "pile", ...), or NULL. */
const char *pd_end_id(enum pd_end e);

/* An open trade offer, always from the current player. */
struct pd_offer {
    uint32_t id; /* per game, from 1 */
    uint8_t to;
    bool blind;            /* the receiver sees how many cards, not which */
    struct pd_bundle give; /* what the current player hands over (at least one card) */
    struct pd_bundle ask;  /* what they want back (may be nothing) */
};

/* A computer player's sources are compiled with PD_SEAT_ONLY: they see the
 * game's vocabulary but not its state, only a seat's view (view.h). */
#ifndef PD_SEAT_ONLY
struct pd_player {
    bool active;               /* false once removed by the host */
    struct pd_bundle hand;     /* secret, but while a tax audit lies on the opening */
    struct pd_bundle business; /* in front of them: the opening (0 or 1) and its deals */
    uint8_t burden;            /* the burden on the opening, or PD_NONE */
    uint8_t skips;             /* turns still to sit out, 0..PD_MAX_SKIPS */
    uint8_t pass;              /* PD_PHASE_PASS: the card chosen for the left, or PD_NONE */
    bool waived;               /* PD_PHASE_WINDOW: lets the takeover go */
    int32_t score;             /* euros, once over */
};

struct pd_game {
    struct pd_config config;
    struct pd_series series; /* the series as it stood before this game */
    uint8_t nplayers;
    uint8_t dealer;  /* dealt this game */
    uint8_t current; /* whose turn it is (or was, once over) */
    enum pd_phase phase;
    enum pd_end end;
    uint16_t turns;    /* turns begun, skipped ones not counted */
    int64_t deadline;  /* the running step's end, absolute ms; 0 while paused or over */
    int64_t remind_at; /* when the step's reminder is due, or 0 */
    bool paused;
    int64_t paused_remaining; /* ms left on the deadline when paused */

    uint8_t npile;
    uint8_t pile[PD_DECK_SIZE]; /* the draw pile; pile[npile - 1] is on top */
    struct pd_bundle discard;   /* face up beside it */
    struct pd_player players[PD_MAX_PLAYERS];

    uint32_t next_offer_id;
    uint8_t noffers;
    struct pd_offer offers[PD_MAX_OFFERS]; /* in id order */

    /* PD_PHASE_WINDOW: the takeover (or connections) card played and held
     * here until it resolves, the business it takes from, and the deal. */
    uint8_t takeover_card;
    uint8_t takeover_victim;
    uint8_t takeover_deal;
};
#endif

enum pd_action_type {
    PD_ACT_TICK,      /* time has passed: fire the reminder or the deadline if due */
    PD_ACT_PLAY,      /* play `card` (with target, deal, extra as the card needs) */
    PD_ACT_DISCARD,   /* discard `card` (or PD_NONE) and a set of three `extra` (or PD_NONE) */
    PD_ACT_MAGNUM,    /* fire the Magnum: lift target's burden, or (target PD_NOBODY)
                         stop the takeover in the window */
    PD_ACT_WAIVE,     /* let the takeover in the window go */
    PD_ACT_PASS,      /* choose `card` to pass to the left (may be changed until all chose) */
    PD_ACT_LOSE,      /* choose the deal `card` one's burden takes */
    PD_ACT_OFFER,     /* the current player offers `give` to target for `ask` (`blind`) */
    PD_ACT_ACCEPT,    /* the receiver accepts offer_id */
    PD_ACT_DECLINE,   /* the receiver declines offer_id */
    PD_ACT_CANCEL,    /* the current player withdraws offer_id */
    PD_ACT_PAUSE,     /* host: freeze the clock */
    PD_ACT_RESUME,    /* host: restart it */
    PD_ACT_EXTEND,    /* host: add `ms` to the running step */
    PD_ACT_NEXT,      /* host: end the running step now, as its deadline would */
    PD_ACT_END,       /* host: score now; the game is aborted */
    PD_ACT_KICK,      /* host: remove target */
    PD_ACT_SET_TIMER, /* host: `timer` is `ms` from the next step on */
    PD_ACT_TYPES
};

/*
 * One move. What each card's PLAY needs:
 *   opening, reckoning, a legal deal: nothing more;
 *   an illegal deal: `extra` a legal deal played along with it, or PD_NONE;
 *   a burden: `target`, the opponent whose opening it goes on;
 *   a relief, the bribe: `target`, whose burden it lifts (PD_NOBODY: one's own);
 *     the bribe also `deal`, the deal card it costs from the hand (PD_NONE:
 *     the one there is, when the hand holds one kind);
 *   family party, loan shark: `deal`, the deal of one's business it costs
 *     (PD_NONE when there is no choice);
 *   takeover: `target` and the `deal` taken from their business;
 *   connections: the same, or PD_NOBODY and PD_NONE when no business has a deal.
 * Fields a move does not use are ignored; pd_action_init() sets them empty.
 */
struct pd_action {
    enum pd_action_type type;
    int8_t player; /* a seat, or PD_HOST */
    int8_t target; /* a seat, or PD_NOBODY */
    uint8_t card, extra, deal;
    bool blind;
    uint32_t offer_id;
    struct pd_bundle give, ask;
    enum pd_timer timer;
    int64_t ms;
};

/* Zeroes a and sets its type and actor, no target and no cards. */
void pd_action_init(struct pd_action *a, enum pd_action_type type, int player);

enum pd_event_type {
    PD_EV_GAME_STARTED,     /* table: player = dealer, target = first, number = players,
                               count = cards in the pile, game = game of the series (1..),
                               amount = the series' goal (PD_SERIES_OFF: single games) */
    PD_EV_DEALT,            /* private: the hand dealt, in cards */
    PD_EV_HAND,             /* private: the whole hand, after a change */
    PD_EV_HAND_SHOWN,       /* table: a tax-audited player's whole hand, when it lies open
                               and after each change */
    PD_EV_TURN_STARTED,     /* table: player, deadline */
    PD_EV_TURN_SKIPPED,     /* table: player sits this turn out; number = turns still to */
    PD_EV_REMINDER,         /* private: player is waited on in phase `number`; deadline */
    PD_EV_TIMED_OUT,        /* table: time ran out in phase `number`; player (or PD_NOBODY for
                               a pass) is moved for by the rules' default */
    PD_EV_OFFER_MADE,       /* private to each side: offer_id, player = from, target = to,
                               cards = give (empty for a blind offer's receiver), cards2 = ask,
                               number = how many cards are given, blind */
    PD_EV_OFFER_ACCEPTED,   /* private to each side: the same fields */
    PD_EV_OFFER_DECLINED,   /* private to each side: the same fields */
    PD_EV_OFFER_CANCELLED,  /* private to each side: the same fields */
    PD_EV_OFFER_EXPIRED,    /* private to each side: the same fields (the move was made) */
    PD_EV_TRADED,           /* table: player gave `number` cards to target for `count` */
    PD_EV_OPENED,           /* table: player opened a business */
    PD_EV_DEAL_PLAYED,      /* table: player laid deal `card`, worth amount */
    PD_EV_BURDEN_LAID,      /* table: player laid burden `card` on target's opening */
    PD_EV_BURDEN_LIFTED,    /* table: player lifted burden `card` from target's opening with
                               card2 (a relief, the bribe, connections, the Magnum); card2
                               PD_NONE and player PD_NOBODY: it left, having nothing more to
                               take; deal: the deal the bribe cost from the hand */
    PD_EV_DEAL_LOST,        /* table: player lost deal `card` from their business to card2
                               (a burden or a nuisance card) */
    PD_EV_NUISANCE,         /* table: player played nuisance `card`; number = turns to sit out */
    PD_EV_PASS_OPENED,      /* table: everyone chooses a card for the left; deadline */
    PD_EV_PASS_CHOSEN,      /* private: player chose `card` for target */
    PD_EV_PASS_READY,       /* table: player has chosen; number = how many still choose */
    PD_EV_PASSED,           /* private: player gave `card` to target (PD_NONE: had none) and
                               got card2 from `source` (PD_NONE: nothing) */
    PD_EV_PASS_DONE,        /* table: every chosen card changed hands */
    PD_EV_TAKEOVER,         /* table: player plays `card` to take `deal` from target;
                               the Magnum may stop it until deadline */
    PD_EV_WAIVED,           /* table: player lets the takeover go */
    PD_EV_TAKEOVER_STOPPED, /* table: player fired the Magnum: target's takeover of `deal`
                               fails */
    PD_EV_TAKEN,            /* table: player took deal `card` from target's business */
    PD_EV_DISCARDED,        /* table: player discarded `cards` */
    PD_EV_DREW,             /* private: player drew `card` */
    PD_EV_DRAWN,            /* table: player drew a card; count = cards left in the pile */
    PD_EV_LOSS_DUE,         /* table: player's burden `card` takes a deal of their choice;
                               deadline */
    PD_EV_RECKONING,        /* table: player called the day of reckoning */
    PD_EV_PAUSED,           /* table: ms = time left */
    PD_EV_RESUMED,          /* table: deadline */
    PD_EV_EXTENDED,         /* table: deadline (0 while paused), ms = time left */
    PD_EV_TIMER_SET,        /* table: timer, ms */
    PD_EV_PLAYER_REMOVED,   /* table: player; their cards went to the discard */
    PD_EV_REVEAL,           /* table: player's hand (cards) and business (cards2) at the end;
                               gain = the business's euros, loss = the hand's cost, score */
    PD_EV_GAME_OVER,        /* table: number = enum pd_end, scores, rank, winners (none when
                               aborted) */
    PD_EV_SERIES,           /* table: the series after this game: game = games counted,
                               totals, winners (who reached the goal first), amount = goal */
    PD_EV_ASK_CLOSED,       /* private: the pass, the window or the loss (number = the phase)
                               no longer waits on player: they answered, the step ended, or
                               the game did */
    PD_EV_TYPES
};

struct pd_event {
    enum pd_event_type type;
    int8_t audience; /* PD_TABLE, or the only seat that may see it */
    int8_t player, target, source;
    uint8_t card, card2, deal;
    uint8_t number;
    uint8_t count;
    uint16_t game;
    bool blind;
    uint32_t offer_id;
    enum pd_timer timer;
    int64_t deadline, ms;
    struct pd_bundle cards, cards2;
    int32_t amount, gain, loss, score;
    int32_t scores[PD_MAX_PLAYERS]; /* GAME_OVER */
    uint8_t rank[PD_MAX_PLAYERS];   /* GAME_OVER: 1 = first; ties share a rank */
    uint8_t winners;                /* GAME_OVER, SERIES: a bit per seat */
    int64_t totals[PD_MAX_PLAYERS]; /* SERIES */
};

/* Events of one call, in order. The caller owns it; reset n before each call. */
struct pd_events {
    unsigned n;
    struct pd_event v[PD_MAX_EVENTS];
};

/* Stable identifier of an event type ("turn-started"), or NULL. */
const char *pd_event_id(enum pd_event_type t);

/* Error codes. Every refused action leaves the game, the rng and the events
 * as they were. The catalog key of each is "palm-drewes.error.<id>". */
enum pd_error {
    PD_OK = 0,
    PD_ERR_BAD_ACTION,           /* unknown action, or a field out of range */
    PD_ERR_BAD_PLAYER_COUNT,     /* setup: not 2..6 players */
    PD_ERR_BAD_TIMER,            /* a timer or reminder out of bounds */
    PD_ERR_BAD_SETTING,          /* setup: a series goal that is none of the three */
    PD_ERR_GAME_OVER,            /* the game has ended */
    PD_ERR_PAUSED,               /* the host paused the game */
    PD_ERR_NOT_PAUSED,           /* resume while running */
    PD_ERR_NOT_HOST,             /* a host's action from a player */
    PD_ERR_NOT_A_PLAYER,         /* the actor or target is no active seat */
    PD_ERR_WRONG_PHASE,          /* not now */
    PD_ERR_NOT_YOUR_TURN,        /* a move out of turn (only the Magnum may be) */
    PD_ERR_NOT_HELD,             /* a card the hand does not hold */
    PD_ERR_NO_OPENING,           /* the card needs one's own opening */
    PD_ERR_ALREADY_OPEN,         /* a second opening */
    PD_ERR_BURDENED,             /* a burden on one's opening forbids it */
    PD_ERR_IN_SWEDEN,            /* a holiday in Sweden forbids every deal */
    PD_ERR_NO_EXTRA,             /* a second card with a play that takes none */
    PD_ERR_EXTRA_NOT_LEGAL,      /* the card played along with an illegal deal is no legal deal */
    PD_ERR_SELF_TARGET,          /* oneself, where it must be another */
    PD_ERR_TARGET_NOT_OPEN,      /* a burden on a player with no opening */
    PD_ERR_TARGET_BURDENED,      /* a burden on an opening that has one */
    PD_ERR_NO_BURDEN,            /* nothing to lift there */
    PD_ERR_WRONG_RELIEF,         /* the relief does not lift that burden */
    PD_ERR_NO_DEAL_IN_HAND,      /* a bribe with no deal card in the hand to pay */
    PD_ERR_NOT_A_DEAL,           /* a card that is no deal, where a deal is wanted */
    PD_ERR_NO_SUCH_DEAL,         /* that business has no such deal */
    PD_ERR_NAME_A_DEAL,          /* a choice of deal is to be made: name one */
    PD_ERR_NOT_HIGHEST,          /* the loan shark takes the highest deal, not that one */
    PD_ERR_NOTHING_TO_DO,        /* connections with no burden to lift and no deal to take */
    PD_ERR_NUISANCE_SINGLE,      /* a nuisance card discarded alone (only three of a kind) */
    PD_ERR_NO_SET,               /* fewer than three of that card */
    PD_ERR_EMPTY_DISCARD,        /* a discard of nothing */
    PD_ERR_NO_TAKEOVER,          /* no takeover to stop */
    PD_ERR_ALREADY_WAIVED,       /* a second waiver */
    PD_ERR_WRONG_DEAL,           /* the burden does not take that kind of deal */
    PD_ERR_GIVE_NOTHING,         /* an offer that gives no card */
    PD_ERR_EMPTIES_HAND,         /* a trade that would leave the offerer no card */
    PD_ERR_NO_SUCH_OFFER,        /* no open offer with that id */
    PD_ERR_NOT_RECEIVER,         /* accept or decline of an offer made to someone else */
    PD_ERR_NOT_OFFERER,          /* cancel of someone else's offer */
    PD_ERR_TOO_MANY_OFFERS,      /* PD_MAX_OFFERS open */
    PD_ERR_OFFERER_LACKS_CARDS,  /* accept: the offerer no longer holds what they give */
    PD_ERR_RECEIVER_LACKS_CARDS, /* accept: the receiver does not hold what is asked */
    PD_ERR_CORRUPT,              /* from_json: the stored game breaks a rule */
    PD_ERR_COUNT
};

/* Stable identifier of an error ("not-your-turn"); "unknown" for a bad value. */
const char *pd_error_id(enum pd_error e);

#ifndef PD_SEAT_ONLY
/*
 * Sets up a game for nplayers (2..6) following config: shuffles the 108
 * cards, deals 7 to each and starts the first turn at `now`. `series` is the
 * series this game continues (pd_series_after() of the last game), or NULL
 * for a new one; a new one also starts when its player count differs or
 * someone already won it. A new series draws its first dealer; a continued
 * one passes the deal to the left. Emits GAME_STARTED, a DEALT per seat,
 * then TURN_STARTED. Errors: PD_ERR_BAD_PLAYER_COUNT, PD_ERR_BAD_TIMER,
 * PD_ERR_BAD_SETTING; g is then unchanged.
 */
enum pd_error pd_game_setup(struct pd_game *g, const struct pd_config *config, unsigned nplayers,
                            const struct pd_series *series, int64_t now, struct rng *rng,
                            struct pd_events *ev) MUST_USE;

/*
 * pd_game_setup() with the deck in a given order instead of a shuffle, and
 * `dealer` dealing (a seat, or PD_NOBODY for the one the series gives or
 * draws): deck[0..107] is dealt from deck[0] (the dealer's left neighbour
 * first, a card each in turn), the rest is the pile with deck[107] on top.
 * For tests that need a known deal; PD_ERR_BAD_ACTION when deck is not the
 * box or dealer no seat.
 */
enum pd_error pd_game_setup_deck(struct pd_game *g, const struct pd_config *config,
                                 unsigned nplayers, const struct pd_series *series, int dealer,
                                 const uint8_t deck[PD_DECK_SIZE], int64_t now, struct rng *rng,
                                 struct pd_events *ev) MUST_USE;

/*
 * Applies one action at `now`, appending what happened to ev. On error nothing
 * changes: not the game, not the rng, not ev. A TICK before the reminder and
 * the deadline (or while paused) does nothing and is no error. If ev has no
 * room left for the action's events it is refused with PD_ERR_BAD_ACTION.
 */
enum pd_error pd_game_apply(struct pd_game *g, const struct pd_action *a, int64_t now,
                            struct rng *rng, struct pd_events *ev) MUST_USE;

/* When the game next needs a TICK: the reminder or the deadline, whichever
 * comes first; 0 when neither runs (paused, over). */
int64_t pd_game_deadline(const struct pd_game *g);

/* Whether seat's hand lies open on the table (a tax audit on its opening). */
bool pd_hand_open(const struct pd_game *g, unsigned seat);

/* Whether seat must still act in the current step: the current player in
 * their turn or loss, a player who has not chosen a card to pass. */
bool pd_waits_on(const struct pd_game *g, unsigned seat);

/* Whether the pass, the Magnum's window or the loss under way still waits on
 * seat's answer: a card to pass not yet chosen, a takeover not yet let go by
 * a player other than the taker, the deal the current player is to lose. A
 * pause does not change it. */
bool pd_step_asks(const struct pd_game *g, unsigned seat);

/* The euros of a business: the sum of its deals. */
int32_t pd_business_value(const struct pd_bundle *business);

/* What a hand costs at the end: its nuisance cards, and its highest deal. */
int32_t pd_hand_cost(const struct pd_bundle *hand);

/* Seat's score for what they have now: business value minus hand cost. */
int32_t pd_score(const struct pd_game *g, unsigned seat);

/* The series after g (over): its totals with g's scores, the deal passed
 * on. An aborted game counts for nothing: out is g's series unchanged. */
void pd_series_after(const struct pd_game *g, struct pd_series *out);

/* The seats that won series s with goal `target`: the highest total when at
 * least one reached it (ties share); 0 when none has, or target is off. */
uint8_t pd_series_winners(const struct pd_series *s, int32_t target);

/*
 * Checks every invariant (README.md, "Invariants"). Returns true when all
 * hold; otherwise writes the first broken one into why (if not NULL).
 */
bool pd_game_check(const struct pd_game *g, char *why, size_t whylen);

/* Serialises g into a new json-c object the caller owns; NULL on no memory. */
struct json_object *pd_game_to_json(const struct pd_game *g);

/* Restores g from pd_game_to_json()'s form. PD_ERR_CORRUPT when a field is
 * missing, of another type or out of range, or the result fails
 * pd_game_check(); g is then unchanged. */
enum pd_error pd_game_from_json(struct pd_game *g, const struct json_object *json);

/* A lobby's settings and the series it continues, as a new json-c object
 * the caller owns (NULL on no memory), and back: PD_ERR_CORRUPT when
 * anything is missing or out of range, c and series then unchanged. */
struct json_object *pd_settings_to_json(const struct pd_config *c, const struct pd_series *series);
enum pd_error pd_settings_from_json(struct pd_config *c, struct pd_series *series,
                                    const struct json_object *json);

#endif /* PD_SEAT_ONLY */

#endif
