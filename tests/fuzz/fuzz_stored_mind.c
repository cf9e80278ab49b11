/*
 * fuzz_stored_mind.c - a computer player's memory as read back from the
 * store, where a damaged disk, an older daemon or a hand edit may have left
 * anything.
 *
 * Input: the memory's text. Every level's load() reads it as a restore
 * would; a memory that is accepted must write out again to the same bytes,
 * and then play: it takes in and acts on the views of one seat through a
 * whole game of computers, which must never trip a sanitizer.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/illegal/view.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MEMORY_MAX 4096
#define STEPS_MAX  400 /* enough for a game's sessions, drops and tribunal */

/* Plays seat 0 with memory m through a game whose other seats only tick. */
static void play(const struct rules_strategy *l, void *m)
{
    static struct il_game g;
    static struct il_events ev;
    static struct il_view v;
    struct il_config c;
    struct rng rng;
    struct il_action a;
    int64_t now = 1000000;
    il_config_default(&c, IL_VARIANT_STANDARD);
    c.tribunal = IL_TRIBUNAL_VOTE_IN_DEBATE;
    rng_seed(&rng, 5);
    if (il_game_setup(&g, &c, 5, now, &rng, &ev) != IL_OK)
        abort();
    for (unsigned step = 0; step < STEPS_MAX && g.phase != IL_PHASE_OVER; step++) {
        il_view_build(&g, 0, &ev, &v);
        l->observe(m, &v, now);
        int64_t wake = l->wake(m), next = g.deadline;
        if (wake && wake < next)
            next = wake;
        if (next > now)
            now = next;
        il_view_build(&g, 0, NULL, &v);
        bool moved = wake && wake <= now && l->act(m, &v, now, &a);
        ev.n = 0;
        if (!moved || il_game_apply(&g, &a, now, &rng, &ev) != IL_OK) {
            a = (struct il_action){.type = IL_ACT_TICK, .player = IL_GM};
            ev.n = 0;
            if (il_game_apply(&g, &a, now, &rng, &ev) != IL_OK)
                abort();
        }
    }
}

static void check(const struct rules_strategy *l, const struct json_object *j)
{
    static uint64_t m[MEMORY_MAX / 8], again[MEMORY_MAX / 8];
    char why[128];
    if (l->memory_size > sizeof m)
        abort();
    if (l->load(m, j, why, sizeof why) < 0)
        return;
    struct json_object *out = json_object_new_object();
    if (!out || l->save(m, out) < 0 || l->load(again, out, why, sizeof why) < 0 ||
        memcmp(m, again, l->memory_size) != 0) {
        fprintf(stderr, "a memory read back is not the one saved (%s)\n", why);
        abort();
    }
    json_object_put(out);
    play(l, m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct json_tokener *tok = json_tokener_new();
    struct json_object *j = NULL;
    if (tok && size <= INT32_MAX)
        j = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    for (const struct rules_strategy *l = il_strategies; j && l->id; l++)
        check(l, j);
    json_object_put(j);
    json_tokener_free(tok);
    return 0;
}
