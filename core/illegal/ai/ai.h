/*
 * ai.h - what Illegal's computer players share; not an API.
 *
 * These files are built seat-only (core/CMakeLists.txt): the game's state
 * is not declared to them, only a seat's view (view.h); tests/ai checks it.
 *
 * A computer seat is a mind: its own rng, its plans (when it will make its
 * next offer, answer each offer made to it, grab, vote) and its record of
 * what it saw the others do. mind.c keeps the plans and the record, move.c
 * makes the move that is due; each level only chooses (struct ai_level).
 */
#ifndef CORE_ILLEGAL_AI_H
#define CORE_ILLEGAL_AI_H

#include "../view.h"

#define AI_SEATS IL_MAX_PLAYERS
#define AI_RES   IL_RESOURCES

enum ai_level_id { AI_EASY, AI_NORMAL, AI_LEVELS };

/* A computer seat's memory: plain data, stored with the game (store.c). */
struct il_mind {
    struct rng rng;
    uint8_t level; /* enum ai_level_id */
    uint16_t pace; /* percent of a person's delays */
    int64_t wake;  /* the earliest plan below that waits, or 0 */

    /* Plans: when each move is due (ms; 0: none planned). */
    uint8_t session;  /* the dealing session `made` and offer_at belong to */
    uint8_t made;     /* offers made in it */
    int64_t offer_at; /* the next offer of the session */
    uint8_t drop;     /* the drop grab_at belongs to */
    int64_t grab_at;
    int64_t vote_at[IL_MAX_CASES];
    uint32_t reply_id[IL_MAX_OFFERS]; /* offers made to this seat, and when */
    int64_t reply_at[IL_MAX_OFFERS];  /* to answer each (0: free slot) */
    uint32_t accepted;                /* the offer it accepted last */

    /* What it saw each seat do, in cards of each resource. */
    uint8_t grabs[AI_SEATS][AI_RES]; /* grabbed in a drop, at the table */
    uint8_t asked[AI_SEATS][AI_RES]; /* asked of this seat in an offer */
    uint8_t gave[AI_SEATS][AI_RES];  /* offered or handed to this seat */
    uint8_t kept[AI_SEATS][AI_RES];  /* refused to this seat (a declined ask) */
    uint8_t decoy; /* the goods it pretends to buy (normal), AI_RES before it chooses */
};

/* How a level plays: its pace and its choices. Every delay is a person's,
 * in ms, [least, most]; the mind scales it by its pace. */
struct ai_level {
    int64_t offer_every[2]; /* between two offers of a session */
    int64_t reply_in[2];    /* before answering an offer */
    int64_t grab_in[2];     /* after the grab opens */
    int64_t vote_in[2];     /* after a case takes votes */
    uint8_t offers;         /* offers a session, at most */
    uint8_t open;           /* its offers open at once, at most */
    /* Each writes its move into a (zeroed, player set) and returns true,
     * or returns false to make none now (grab may then set m->grab_at to
     * when it will look again). */
    bool (*offer)(struct il_mind *m, const struct il_view *v, struct il_action *a);
    bool (*reply)(struct il_mind *m, const struct il_view *v, const struct il_offer *o,
                  struct il_action *a);
    bool (*grab)(struct il_mind *m, const struct il_view *v, int64_t now, struct il_action *a);
    bool (*vote)(struct il_mind *m, const struct il_view *v, unsigned k, struct il_action *a);
};

/* The levels (strategies.c), and their choices (easy.c, normal_*.c). */
extern const struct ai_level ai_easy, ai_normal;
bool ai_easy_offer(struct il_mind *m, const struct il_view *v, struct il_action *a);
bool ai_easy_reply(struct il_mind *m, const struct il_view *v, const struct il_offer *o,
                   struct il_action *a);
bool ai_easy_grab(struct il_mind *m, const struct il_view *v, int64_t now, struct il_action *a);
bool ai_easy_vote(struct il_mind *m, const struct il_view *v, unsigned k, struct il_action *a);
bool ai_normal_offer(struct il_mind *m, const struct il_view *v, struct il_action *a);
bool ai_normal_reply(struct il_mind *m, const struct il_view *v, const struct il_offer *o,
                     struct il_action *a);
bool ai_normal_grab(struct il_mind *m, const struct il_view *v, int64_t now, struct il_action *a);
bool ai_normal_vote(struct il_mind *m, const struct il_view *v, unsigned k, struct il_action *a);
/* What a card of resource r is worth to the normal level, in tenths of a
 * point (normal_trade.c). */
int ai_worth(const struct il_mind *m, const struct il_view *v, unsigned r);

/* mind.c and move.c: the strategy interface (core/strategy.h), the same
 * for every level. */
void ai_start(struct il_mind *m, enum ai_level_id level, uint64_t seed, unsigned pace);
void ai_observe(void *memory, const void *view, int64_t now);
bool ai_act(void *memory, const void *view, int64_t now, void *action);
int64_t ai_wake(const void *memory);

/* mind.c: plans. */
const struct ai_level *ai_level_of(const struct il_mind *m);
/* Plans every move now due, and the wake time; `changed`: after a change
 * it was shown, rather than after a move of its own. */
void ai_plan(struct il_mind *m, const struct il_view *v, int64_t now, bool changed);
/* A person's delay in range, at the mind's pace. */
int64_t ai_delay(struct il_mind *m, const int64_t range[2]);
/* When a move `range` after now is due: within the running step, so that a
 * move is never late for it, and always after now, so that a move that
 * waits never keeps the host asking at once (0 stands for "none"). */
int64_t ai_due(struct il_mind *m, const struct il_view *v, int64_t now, const int64_t range[2]);
/* How long between two offers: a person's pace, or in a long session
 * (casual) the session spread over its offers. */
void ai_offer_gap(const struct ai_level *l, const struct il_view *v, int64_t gap[2]);
/* Whether its seat still plays; has a drop card to grab; owes case k a vote. */
bool ai_playing(const struct il_view *v);
bool ai_grabbing(const struct il_view *v);
bool ai_to_vote(const struct il_view *v, unsigned k);

/* store.c */
int ai_save(const void *memory, struct json_object *out);
int ai_load(void *memory, const struct json_object *in, char *why, size_t whylen);

/* cards.c: the seat's hand and offers. */
bool ai_holds(const struct il_bundle *hand, const struct il_bundle *b);
/* The resource cards its open offers promise, together. */
void ai_promised(const struct il_view *v, struct il_bundle *out);
/* Resource cards of r it holds and has not promised. */
unsigned ai_spare(const struct il_view *v, unsigned r);
/* Its open offer to seat, or NULL. */
const struct il_offer *ai_offer_to(const struct il_view *v, unsigned seat);
unsigned ai_open_offers(const struct il_view *v);
/* Writes its answer to offer o: a decline, unless it would `take` it and
 * holds what o asks; then an accept, or first the cancellation of its own
 * offer that would no longer be payable (the accept follows). */
void ai_answer(const struct il_view *v, const struct il_offer *o, bool take, struct il_action *a);
/* An active seat other than its own, uniformly, or -1. */
int ai_random_other(struct il_mind *m, const struct il_view *v);
/* The active seat other than its own with the highest score, ties drawn
 * by the rng; -1 when none scores above floor. */
int ai_best_seat(struct il_mind *m, const struct il_view *v, const int score[AI_SEATS], int floor);
/* A resource in play uniformly among those with spare cards that are not
 * `except`, or -1. */
int ai_random_spare(struct il_mind *m, const struct il_view *v, int except);
bool ai_is_active(const struct il_view *v, unsigned seat);
/* Card kind and resource of case k's cards: its buyer suspect's resource,
 * or -1 when it has none; likewise its dealer suspect's. */
int ai_case_buyer(const struct il_view *v, unsigned k);
int ai_case_dealer(const struct il_view *v, unsigned k);
/* Whether case k names one of the seat's own roles. */
bool ai_case_mine(const struct il_view *v, unsigned k);

/* evidence.c: what the record suggests of a seat (higher: more likely). */
int ai_buys(const struct il_mind *m, unsigned seat, unsigned r);
int ai_deals(const struct il_mind *m, unsigned seat, unsigned r);
int ai_has(const struct il_mind *m, unsigned seat, unsigned r);
/* How the table, which sees only the drops, would suspect seat on case k. */
int ai_public_suspicion(const struct il_mind *m, const struct il_view *v, unsigned seat,
                        unsigned k);
/* How the seat's whole record suspects seat on case k. */
int ai_suspicion(const struct il_mind *m, const struct il_view *v, unsigned seat, unsigned k);

/* A uniform draw in [lo, hi]. */
int64_t ai_between(struct il_mind *m, int64_t lo, int64_t hi);
bool ai_chance(struct il_mind *m, unsigned percent);

#endif
