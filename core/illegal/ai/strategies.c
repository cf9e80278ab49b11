/*
 * strategies.c - Illegal's levels of computer player: how fast each plays
 * and how it chooses, and the list the module hands the host.
 */
#include <stdio.h>
#include <string.h>

#include "ai.h"

const struct ai_level ai_easy = {
    .offer_every = {6000, 15000},
    .reply_in = {3000, 10000},
    .grab_in = {1500, 5000},
    .vote_in = {3000, 12000},
    .offers = 6,
    .open = 2,
    .offer = ai_easy_offer,
    .reply = ai_easy_reply,
    .grab = ai_easy_grab,
    .vote = ai_easy_vote,
};

const struct ai_level ai_normal = {
    .offer_every = {4000, 10000},
    .reply_in = {2000, 6000},
    .grab_in = {800, 2500},
    .vote_in = {2000, 8000},
    .offers = 10,
    .open = 4,
    .offer = ai_normal_offer,
    .reply = ai_normal_reply,
    .grab = ai_normal_grab,
    .vote = ai_normal_vote,
};

static void easy_start(void *memory, uint64_t seed, unsigned pace)
{
    ai_start(memory, AI_EASY, seed, pace);
}

static void normal_start(void *memory, uint64_t seed, unsigned pace)
{
    ai_start(memory, AI_NORMAL, seed, pace);
}

/* A stored memory of another level is damaged, not a reason to switch. */
static int load_level(void *memory, const struct json_object *in, char *why, size_t whylen,
                      enum ai_level_id level)
{
    struct il_mind m;
    if (ai_load(&m, in, why, whylen) < 0)
        return -1;
    if (m.level != level) {
        snprintf(why, whylen, "memory of another level");
        return -1;
    }
    memcpy(memory, &m, sizeof m);
    return 0;
}

static int easy_load(void *memory, const struct json_object *in, char *why, size_t whylen)
{
    return load_level(memory, in, why, whylen, AI_EASY);
}

static int normal_load(void *memory, const struct json_object *in, char *why, size_t whylen)
{
    return load_level(memory, in, why, whylen, AI_NORMAL);
}

#define LEVEL(name)                                                                                \
    {                                                                                              \
        .id = #name, .memory_size = sizeof(struct il_mind), .start = name##_start,                 \
        .observe = ai_observe, .act = ai_act, .wake = ai_wake, .save = ai_save,                    \
        .load = name##_load                                                                        \
    }

/* The default first: what a host adds when the level is not named. */
const struct rules_strategy il_strategies[] = {
    LEVEL(normal),
    LEVEL(easy),
    {0},
};
