/*
 * test_store.c - a game's JSON: the same bytes back at every step of whole
 * games, and damaged records refused with the game left as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "driver.h"
#include "tests.h"

static void test_roundtrip_every_step(void **state)
{
    (void)state;
    struct pd_sim_stats st;
    memset(&st, 0, sizeof st);
    for (unsigned players = PD_MIN_PLAYERS; players <= PD_MAX_PLAYERS; players++) {
        struct pd_sim_opts o = {.players = players, .verify = true, .roundtrip = true};
        for (uint64_t seed = 0; seed < 10; seed++)
            assert_int_equal(pd_sim_play(&o, 500 + seed, NULL, &st, NULL), 0);
    }
    assert_int_equal(st.violations, 0);
    assert_true(st.actions > 1000);
}

/* A game in the middle of things, as a json-c object the caller owns. */
static struct json_object *midgame(struct t *t)
{
    t_start(t, 4, 40);
    t_business(t, 1, "opening dope");
    t_burden(t, 1, "tax-audit");
    t_hand(t, 0, "takeover opening guns");
    t_business(t, 0, "opening");
    assert_int_equal(t_play(t, 0, "takeover", 1, "dope", NULL), PD_OK);
    struct json_object *j = pd_game_to_json(&t->g);
    assert_non_null(j);
    return j;
}

/* Parses text; expects it refused, and g untouched. */
static void refused(const struct t *t, const char *text)
{
    struct json_object *j = json_tokener_parse(text);
    struct pd_game g = t->g;
    enum pd_error e = pd_game_from_json(&g, j);
    t_saw(e);
    if (e != PD_ERR_CORRUPT)
        fail_msg("accepted: %.300s", text);
    assert_memory_equal(&g, &t->g, sizeof g);
    json_object_put(j);
}

static void damage(const struct t *t, struct json_object *whole, const char *key,
                   struct json_object *value)
{
    struct json_object *copy = NULL;
    assert_int_equal(json_object_deep_copy(whole, &copy, NULL), 0);
    if (value)
        json_object_object_add(copy, key, value);
    else
        json_object_object_del(copy, key);
    refused(t, json_object_to_json_string(copy));
    json_object_put(copy);
}

static void test_damaged(void **state)
{
    (void)state;
    struct t t;
    struct json_object *j = midgame(&t);
    struct pd_game back;
    assert_int_equal(pd_game_from_json(&back, j), PD_OK);
    assert_memory_equal(&back, &t.g, sizeof back);
    assert_int_equal(t.g.phase, PD_PHASE_WINDOW);
    static const char *const keys[] = {
        "format",
        "config",
        "series",
        "nplayers",
        "dealer",
        "current",
        "phase",
        "end",
        "turns",
        "deadline",
        "remind_at",
        "paused",
        "paused_remaining",
        "discard",
        "next_offer_id",
        "pile",
        "players",
        "offers",
        "takeover",
    };
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        damage(&t, j, keys[i], NULL);                            /* missing */
        damage(&t, j, keys[i], json_object_new_string("what?")); /* of another type */
    }
    damage(&t, j, "format", json_object_new_int(2));
    damage(&t, j, "phase", json_object_new_string("over"));
    damage(&t, j, "nplayers", json_object_new_int(3));
    damage(&t, j, "dealer", json_object_new_int(4));
    damage(&t, j, "takeover", NULL);
    damage(&t, j, "discard", json_tokener_parse("{\"dope\": 0}"));
    damage(&t, j, "discard", json_tokener_parse("{\"diamonds\": 1}"));
    damage(&t, j, "discard", json_tokener_parse("{\"magnum\": 1}")); /* one Magnum too many */
    damage(&t, j, "pile", json_tokener_parse("[\"magnum\", 3]"));
    damage(&t, j, "offers", json_tokener_parse("[{\"id\": 1}]"));
    struct json_object *null_takeover = NULL;
    assert_int_equal(json_object_deep_copy(j, &null_takeover, NULL), 0);
    json_object_object_add(null_takeover, "takeover", NULL); /* the window holds nothing */
    refused(&t, json_object_to_json_string(null_takeover));
    json_object_put(null_takeover);
    refused(&t, "[]");
    refused(&t, "{}");
    json_object_put(j);
}

/* Every one-character change of a stored game is refused or gives a game
 * that keeps every invariant: never a crash, never a broken game. */
static void test_mutations(void **state)
{
    (void)state;
    struct t t;
    struct json_object *j = midgame(&t);
    char text[16384];
    snprintf(text, sizeof text, "%s", json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
    size_t n = strlen(text);
    static const char subst[] = "0123456789-\"{}[],:tfn";
    unsigned accepted = 0;
    for (size_t i = 0; i < n; i++) {
        char save = text[i];
        text[i] = subst[i % (sizeof subst - 1)];
        struct json_object *m = json_tokener_parse(text);
        struct pd_game g;
        if (m && pd_game_from_json(&g, m) == PD_OK) {
            accepted++;
            assert_true(pd_game_check(&g, NULL, 0));
        }
        json_object_put(m);
        text[i] = save;
    }
    assert_true(accepted < n);
    json_object_put(j);
}

const struct CMUnitTest pd_store_tests[] = {
    cmocka_unit_test(test_roundtrip_every_step),
    cmocka_unit_test(test_damaged),
    cmocka_unit_test(test_mutations),
};
const size_t pd_store_tests_n = sizeof pd_store_tests / sizeof pd_store_tests[0];
