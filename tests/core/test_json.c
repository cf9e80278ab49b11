/*
 * test_json.c - storing games: lossless round trips, and refusal of anything
 * damaged.
 */
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "driver.h"
#include "helpers.h"

struct trips {
    unsigned n;
};

/* Game -> json object -> text -> json object -> game: the same bytes. */
static void round_trip(const struct il_game *g, void *arg)
{
    struct trips *t = arg;
    struct json_object *j = il_game_to_json(g);
    assert_non_null(j);
    struct json_object *back = json_tokener_parse(json_object_to_json_string(j));
    assert_non_null(back);
    struct il_game copy;
    memset(&copy, 0x77, sizeof copy);
    enum il_error err = il_game_from_json(&copy, back);
    if (err)
        fail_msg("from_json refused its own output: %s", json_object_to_json_string(j));
    assert_memory_equal(&copy, g, sizeof copy);
    json_object_put(j);
    json_object_put(back);
    t->n++;
}

static void round_trips_through_many_games(void **state)
{
    (void)state;
    struct trips t = {0};
    for (unsigned v = 0; v < IL_VARIANTS; v++) {
        for (unsigned n = IL_MIN_PLAYERS; n <= IL_MAX_PLAYERS; n++) {
            struct sim_opts o = {.players = n,
                                 .variant = (enum il_variant)v,
                                 .verify = true,
                                 .on_state = round_trip,
                                 .arg = &t};
            struct sim_stats st = {0};
            for (uint64_t seed = 0; seed < 3; seed++)
                assert_int_equal(sim_play(&o, seed * 977 + n, &st, NULL), 0);
        }
    }
    assert_true(t.n > 5000);
}

static void round_trip_of_a_fresh_and_a_paused_game(void **state)
{
    (void)state;
    struct trips t = {0};
    struct fx f;
    fx_setup(&f, 8, IL_VARIANT_ADVANCED, 71);
    round_trip(&f.g, &t);
    struct il_action pause = act_gm(IL_ACT_PAUSE);
    fx_ok(&f, &pause);
    round_trip(&f.g, &t);
    struct il_action end = act_gm(IL_ACT_END);
    fx_ok(&f, &end);
    round_trip(&f.g, &t);
}

/* A game in the middle of a vote, with a verdict behind it, as json. */
static struct json_object *sample(struct fx *f)
{
    fx_setup(f, 5, IL_VARIANT_STANDARD, 72);
    fx_until(f, IL_PHASE_VOTE, 0);
    struct il_action a = act_vote(f, 0, 1);
    fx_ok(f, &a);
    fx_tick(f);
    fx_until(f, IL_PHASE_VOTE, 0);
    a = act_vote(f, 0, 1);
    fx_ok(f, &a);
    struct json_object *j = il_game_to_json(&f->g);
    assert_non_null(j);
    return j;
}

static void expect_corrupt(struct json_object *j, const char *what)
{
    struct il_game g, g0;
    memset(&g, 0x3c, sizeof g);
    memcpy(&g0, &g, sizeof g);
    if (il_game_from_json(&g, j) != IL_ERR_CORRUPT)
        fail_msg("accepted a game with %s", what);
    assert_memory_equal(&g, &g0, sizeof g);
}

static struct json_object *at(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    assert_true(json_object_object_get_ex(o, key, &v));
    return v;
}

static void missing_fields(void **state)
{
    (void)state;
    static const char *const keys[] = {
        "format",  "config", "nplayers", "in_play",       "players",          "phase",
        "session", "drops",  "deadline", "paused",        "paused_remaining", "drop",
        "discard", "offers", "cases",    "next_offer_id", "case_index",       "tribunal_at"};
    struct fx f;
    for (unsigned i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        struct json_object *j = sample(&f);
        json_object_object_del(j, keys[i]);
        expect_corrupt(j, keys[i]);
        json_object_put(j);
    }
    static const char *const player_keys[] = {"active", "dealer",  "buyer", "extra",
                                              "hand",   "grabbed", "votes", "score"};
    for (unsigned i = 0; i < sizeof player_keys / sizeof player_keys[0]; i++) {
        struct json_object *j = sample(&f);
        json_object_object_del(json_object_array_get_idx(at(j, "players"), 2), player_keys[i]);
        expect_corrupt(j, player_keys[i]);
        json_object_put(j);
    }
    struct json_object *j = sample(&f);
    json_object_object_del(at(at(j, "config"), "timers"), "vote");
    expect_corrupt(j, "no vote timer");
    json_object_put(j);
    j = sample(&f);
    json_object_object_del(at(j, "config"), "tribunal");
    expect_corrupt(j, "no tribunal options");
    json_object_put(j);
    expect_corrupt(NULL, "nothing");
    j = json_object_new_array();
    expect_corrupt(j, "an array");
    json_object_put(j);
}

static void set(struct json_object *o, const char *key, struct json_object *v)
{
    assert_int_equal(json_object_object_add(o, key, v), 0);
}

static void bad_values(void **state)
{
    (void)state;
    struct fx f;
    struct json_object *j, *p;

    j = sample(&f);
    set(j, "nplayers", json_object_new_int(9));
    expect_corrupt(j, "9 players");
    json_object_put(j);

    j = sample(&f);
    set(j, "nplayers", json_object_new_string("5"));
    expect_corrupt(j, "a string for a number");
    json_object_put(j);

    j = sample(&f);
    set(j, "session", json_object_new_int(6));
    expect_corrupt(j, "session 6");
    json_object_put(j);

    j = sample(&f);
    set(j, "phase", json_object_new_string("sleep"));
    expect_corrupt(j, "an unknown phase");
    json_object_put(j);

    j = sample(&f);
    set(j, "phase", json_object_new_string("dealing"));
    expect_corrupt(j, "a phase that does not fit");
    json_object_put(j);

    j = sample(&f);
    set(j, "format", json_object_new_int(3));
    expect_corrupt(j, "a future format");
    json_object_put(j);

    j = sample(&f);
    set(j, "aborted", json_object_new_string("yes"));
    expect_corrupt(j, "aborted not a boolean");
    json_object_put(j);

    j = sample(&f);
    set(j, "aborted", json_object_new_boolean(true));
    expect_corrupt(j, "aborted before the end");
    json_object_put(j);

    j = sample(&f);
    set(at(at(j, "config"), "timers"), "grab", json_object_new_int(10));
    expect_corrupt(j, "a 10 ms timer");
    json_object_put(j);

    j = sample(&f);
    set(at(j, "config"), "variant", json_object_new_string("expert"));
    expect_corrupt(j, "an unknown variant");
    json_object_put(j);

    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 0);
    set(p, "dealer", json_object_new_string("gold"));
    expect_corrupt(j, "an unknown resource");
    json_object_put(j);

    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 0);
    json_object_array_put_idx(at(p, "votes"), 1, json_object_new_int(0));
    expect_corrupt(j, "a vote for oneself");
    json_object_put(j);

    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 0);
    json_object_array_put_idx(at(p, "votes"), 1, json_object_new_int(8));
    expect_corrupt(j, "a vote out of range");
    json_object_put(j);

    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 0);
    json_object_array_put_idx(at(p, "votes"), 2, json_object_new_int(3));
    expect_corrupt(j, "a vote on a case not yet open");
    json_object_put(j);

    j = sample(&f);
    set(at(j, "config"), "tribunal", json_object_new_array());
    json_object_array_add(at(at(j, "config"), "tribunal"), json_object_new_string("hurry"));
    expect_corrupt(j, "an unknown tribunal option");
    json_object_put(j);

    j = sample(&f);
    set(j, "tribunal_at", json_object_new_int64(5000000));
    expect_corrupt(j, "a schedule during the tribunal");
    json_object_put(j);

    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 3);
    set(p, "score", json_object_new_int(3));
    expect_corrupt(j, "a score before the end");
    json_object_put(j);

    j = sample(&f);
    set(j, "deadline", json_object_new_int64(INT64_MAX));
    expect_corrupt(j, "a deadline out of range");
    json_object_put(j);

    j = sample(&f);
    set(j, "paused", json_object_new_boolean(1));
    expect_corrupt(j, "a paused game with a deadline");
    json_object_put(j);

    j = sample(&f);
    set(j, "case_index", json_object_new_int(17));
    expect_corrupt(j, "a case index out of range");
    json_object_put(j);

    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 0);
    set(at(p, "hand"), "dealer:guns", json_object_new_int(0));
    expect_corrupt(j, "a zero count");
    json_object_put(j);

    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 0);
    set(at(p, "hand"), "diamonds", json_object_new_int(1));
    expect_corrupt(j, "an unknown card");
    json_object_put(j);

    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 0);
    set(at(p, "hand"), il_card_id(f.g.players[0].dealer), json_object_new_int(300));
    expect_corrupt(j, "300 cards of a kind");
    json_object_put(j);
}

/* A game stored before format 2 kept one vote, on the case being judged. */
static void reads_format_1(void **state)
{
    (void)state;
    struct fx f;
    struct json_object *j = sample(&f);
    set(j, "format", json_object_new_int(1));
    json_object_object_del(j, "tribunal_at");
    json_object_object_del(at(j, "config"), "tribunal");
    for (unsigned s = 0; s < 5; s++) {
        struct json_object *p = json_object_array_get_idx(at(j, "players"), s);
        int v = f.g.players[s].votes[f.g.case_index];
        json_object_object_del(p, "votes");
        set(p, "vote", json_object_new_int(v));
    }
    struct il_game g;
    assert_int_equal(il_game_from_json(&g, j), IL_OK);
    assert_int_equal(g.config.tribunal, 0);
    assert_int_equal(g.players[0].votes[g.case_index], 1);
    for (unsigned s = 0; s < 5; s++)
        for (unsigned k = 0; k < g.case_index; k++)
            assert_int_equal(g.players[s].votes[k], IL_NOBODY);
    json_object_put(j);
}

static void duplicated_cards(void **state)
{
    (void)state;
    struct fx f;
    struct json_object *j = sample(&f), *p;
    char key[64];

    /* One resource card too many. */
    p = json_object_array_get_idx(at(j, "players"), 1);
    unsigned r = f.g.players[1].dealer;
    set(at(p, "hand"), il_card_id(r), json_object_new_int(f.g.players[1].hand.n[r] + 1));
    expect_corrupt(j, "an extra resource card");
    json_object_put(j);

    /* A role card in two hands. */
    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 1);
    snprintf(key, sizeof key, "%s", il_card_id(IL_CARD(IL_KIND_DEALER, f.g.players[0].dealer)));
    set(at(p, "hand"), key, json_object_new_int(1));
    expect_corrupt(j, "a role card twice");
    json_object_put(j);

    /* A suspect card both in a hand and still in a case. */
    j = sample(&f);
    p = json_object_array_get_idx(at(j, "players"), 3);
    unsigned t = f.g.cases[f.g.ncases - 1].cards[0];
    set(at(p, "hand"), il_card_id(t), json_object_new_int(1));
    expect_corrupt(j, "a suspect card twice");
    json_object_put(j);

    /* The same case twice. */
    j = sample(&f);
    struct json_object *cases = at(j, "cases");
    struct json_object *last =
        json_object_array_get_idx(cases, json_object_array_length(cases) - 1);
    json_object_array_put_idx(cases, 0, json_object_get(last));
    expect_corrupt(j, "a case twice");
    json_object_put(j);

    /* A card set aside twice. */
    j = sample(&f);
    set(at(j, "discard"), il_card_id(f.g.players[2].dealer), json_object_new_int(1));
    expect_corrupt(j, "a discarded card too many");
    json_object_put(j);
}

static void drop_cards_taken_beyond_the_grabs(void **state)
{
    (void)state;
    struct fx f;
    fx_setup(&f, 5, IL_VARIANT_STANDARD, 73);
    fx_until(&f, IL_PHASE_DROP_GRAB, 1);
    struct il_action a = act_grab(0, f.g.drop_cards[0]);
    fx_ok(&f, &a);
    struct json_object *j = il_game_to_json(&f.g);
    struct json_object *taken = at(at(j, "drop"), "taken");
    for (size_t i = 0; i < json_object_array_length(taken); i++)
        json_object_array_put_idx(taken, i, json_object_new_boolean(1));
    expect_corrupt(j, "drop cards taken by nobody");
    json_object_put(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trips_through_many_games),
        cmocka_unit_test(round_trip_of_a_fresh_and_a_paused_game),
        cmocka_unit_test(missing_fields),
        cmocka_unit_test(bad_values),
        cmocka_unit_test(reads_format_1),
        cmocka_unit_test(duplicated_cards),
        cmocka_unit_test(drop_cards_taken_beyond_the_grabs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
