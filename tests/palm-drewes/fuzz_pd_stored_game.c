/*
 * fuzz_pd_stored_game.c - a game of Palm & Drewes' Illegal as read back from
 * the store, where a damaged disk or a hand edit may have left anything.
 *
 * Input: the game's JSON text. A game that pd_game_from_json() accepts must
 * keep every invariant, write out to the same bytes it was read into, and
 * then play on: every kind of action from every seat, with time running
 * out, must keep the invariants and never trip a sanitizer.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/palm-drewes/palm_drewes.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STEPS_MAX 300

static void play_on(struct pd_game *g)
{
    static struct pd_events ev;
    static struct pd_game before;
    struct rng rng;
    rng_seed(&rng, (uint64_t)g->turns * 7919 + g->npile);
    int64_t now = g->deadline ? g->deadline : 1;
    for (unsigned step = 0; step < STEPS_MAX && g->phase != PD_PHASE_OVER; step++) {
        struct pd_action a;
        pd_action_init(&a, (enum pd_action_type)(rng_below(&rng, PD_ACT_TYPES)),
                       (int)rng_below(&rng, PD_MAX_PLAYERS + 1) - 1);
        a.card = (uint8_t)rng_below(&rng, PD_CARDS);
        a.target = (int8_t)((int)rng_below(&rng, PD_MAX_PLAYERS + 1) - 1);
        a.give.n[a.card] = 1;
        a.offer_id = rng_below(&rng, 4);
        a.ms = 1000 + rng_below(&rng, 100000);
        if (a.type == PD_ACT_END || a.type == PD_ACT_KICK)
            a.type = PD_ACT_TICK;
        if (step % 7 == 0) {
            int64_t due = pd_game_deadline(g);
            now = due > now ? due : now + 1000;
            pd_action_init(&a, PD_ACT_TICK, 0);
        }
        ev.n = 0;
        memcpy(&before, g, sizeof before);
        if (pd_game_apply(g, &a, now, &rng, &ev) != PD_OK && memcmp(&before, g, sizeof before))
            abort(); /* a refusal changed the game */
        if (!pd_game_check(g, NULL, 0))
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct pd_game g, again;
    struct json_tokener *tok = json_tokener_new();
    if (!tok)
        return 0;
    struct json_object *j = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    json_tokener_free(tok);
    memset(&g, 0, sizeof g);
    if (j && pd_game_from_json(&g, j) == PD_OK) {
        if (!pd_game_check(&g, NULL, 0))
            abort();
        struct json_object *out = pd_game_to_json(&g);
        if (!out || pd_game_from_json(&again, out) != PD_OK || memcmp(&g, &again, sizeof g) != 0)
            abort();
        json_object_put(out);
        play_on(&g);
    }
    json_object_put(j);
    return 0;
}
