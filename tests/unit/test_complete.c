/*
 * test_complete.c - what the bot completes for a platform that offers
 * choices as one types (bot/complete.c): a game's own commands through its
 * module, from the asker's seat; the host's commands that name a player from
 * the seats; the table's game, or in a DM the game the user plays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/config.h"
#include "bot/dispatch.h"
#include "core/illegal/module.h"

static void add(void *arg, const char *name, const char *value)
{
    size_t used = strlen(arg);
    snprintf((char *)arg + used, 1024 - used, "%s=%s;", name, value);
}

/* A running game of four at table t1 on platform p. */
static struct game *running(struct platform *p, const struct config *cfg)
{
    static const char *const names[] = {"Alice", "Bob", "Barbara", "Dan"};
    struct game *g = calloc(1, sizeof *g);
    assert_non_null(g);
    assert_int_equal(game_init(g, &il_module, "standard", config_game(cfg, &il_module)), 0);
    snprintf(g->id, sizeof g->id, "g1");
    snprintf(g->table, sizeof g->table, "t1");
    snprintf(g->language, sizeof g->language, "en");
    g->platform = p;
    g->nseats = 4;
    for (unsigned i = 0; i < 4; i++) {
        snprintf(g->seats[i].user, sizeof g->seats[i].user, "u%u", i);
        snprintf(g->seats[i].name, sizeof g->seats[i].name, "%s", names[i]);
    }
    void *events = malloc(il_module.events_size);
    struct rng rng;
    rng_seed(&rng, 3);
    assert_non_null(events);
    assert_int_equal(il_module.setup(g->state, 4, 1000000, &rng, events), 0);
    free(events);
    g->started = true;
    return g;
}

static void completes(void **state)
{
    (void)state;
    struct config cfg;
    struct platform p = {0}, other = {0};
    struct dispatcher d;
    char got[1024];
    assert_int_equal(config_init(&cfg), 0);
    memset(&d, 0, sizeof d);
    d.platforms[0] = &p;
    d.nplatforms = 1;
    dispatch_platform_clear(&d, 0);
    struct game *g = running(&p, &cfg);
    assert_int_equal(dispatch_game_add(&d, g), 0);

    /* a player's move, at the table and in a DM: the module, from their seat */
    got[0] = '\0';
    dispatch_complete(&d, &p, "t1", "u0", "offer", "player", "b", add, got);
    assert_string_equal(got, "Bob=u1;Barbara=u2;");
    got[0] = '\0';
    dispatch_complete(&d, &p, NULL, "u1", "vote", "player", "", add, got);
    assert_string_equal(got, "Alice=u0;Barbara=u2;Dan=u3;");
    /* the host's kick: every seat */
    got[0] = '\0';
    dispatch_complete(&d, &p, "t1", "host", "kick", "player", "", add, got);
    assert_string_equal(got, "Alice=u0;Bob=u1;Barbara=u2;Dan=u3;");
    /* nothing for someone without a seat, or on another platform */
    got[0] = '\0';
    dispatch_complete(&d, &p, "t1", "stranger", "offer", "player", "", add, got);
    dispatch_complete(&d, &p, NULL, "stranger", "offer", "player", "", add, got);
    dispatch_complete(&d, &other, "t1", "u0", "offer", "player", "", add, got);
    assert_string_equal(got, "");
    /* elsewhere than a table with a game, the game the user plays, as their
     * private commands reach it */
    dispatch_complete(&d, &p, "t2", "u0", "offer", "player", "", add, got);
    assert_string_equal(got, "Bob=u1;Barbara=u2;Dan=u3;");
    dispatch_games_free(&d); /* g with it */
    timers_free(&d);
    config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(completes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
