/*
 * test_complete.c - what Illegal completes as a seat types (core/rules.h:
 * complete): the other active players, the cards it holds to give, the
 * resources in play to ask for, the drop's cards still on the table; nothing
 * for a seat no longer in the game.
 */
#include <stdio.h>
#include <string.h>

#include "core/illegal/module.h"
#include "helpers.h"

struct offered {
    char text[2048]; /* "name=value;" each */
    unsigned n;
};

static void add(void *arg, const char *name, const char *value)
{
    struct offered *o = arg;
    size_t used = strlen(o->text);
    snprintf(o->text + used, sizeof o->text - used, "%s=%s;", name, value);
    o->n++;
}

static const char *const users[] = {"u0", "u1", "u2", "u3"};
static const char *const names[] = {"Alice", "Bob", "Barbara", "Dan"};
static const char *const langs[] = {"en", "en", "en", "en"};
static const struct rules_table table = {"g1", "t1", "en", 4, users, names, langs};

static struct offered complete(const struct il_state *s, unsigned seat, const char *word,
                               const char *option, const char *typed)
{
    struct offered o = {.n = 0};
    il_module.complete(s, &table, seat, word, option, typed, add, &o);
    return o;
}

static void players_and_cards(void **state)
{
    (void)state;
    static struct fx f;
    static struct il_state s;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 11);
    memset(&s, 0, sizeof s);
    s.game = f.g;
    /* the others, by name, typed as their ids */
    assert_string_equal(complete(&s, 0, "offer", "player", "b").text, "Bob=u1;Barbara=u2;");
    assert_string_equal(complete(&s, 1, "vote", "player", "").text, "Alice=u0;Barbara=u2;Dan=u3;");
    /* what seat 0 holds to give: its dealer's resource and its extra card */
    struct offered give = complete(&s, 0, "offer", "give", "");
    unsigned held = 0;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        held += s.game.players[0].hand.n[r] > 0;
    assert_int_equal(give.n, held + 1); /* and "nothing" */
    assert_non_null(strstr(give.text, "nothing=nothing;"));
    /* what it asks for: any resource in play; the last word completed */
    assert_int_equal(complete(&s, 0, "offer", "ask", "").n, 4 + 1);
    struct offered two = complete(&s, 0, "offer", "ask", "2 ");
    assert_int_equal(two.n, 4);
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        char want[64];
        snprintf(want, sizeof want, "2 %s=2 %s;", il_resource_id(r), il_resource_id(r));
        assert_true(!(s.game.in_play & (1u << r)) == !strstr(two.text, want));
    }
    /* no drop on the table yet */
    assert_int_equal(complete(&s, 0, "grab", "resource", "").n, 0);
    /* a seat taken out of the game is offered nothing */
    s.game.players[3].active = false;
    assert_int_equal(complete(&s, 3, "offer", "player", "").n, 0);
    assert_string_equal(complete(&s, 0, "offer", "player", "").text, "Bob=u1;Barbara=u2;");
}

static void drop_cards(void **state)
{
    (void)state;
    static struct fx f;
    static struct il_state s;
    fx_setup(&f, 4, IL_VARIANT_STANDARD, 12);
    fx_until(&f, IL_PHASE_DROP_GRAB, 0);
    memset(&s, 0, sizeof s);
    s.game = f.g;
    /* every card of the drop, by its name, typed as its id */
    struct offered all = complete(&s, 2, "grab", "resource", "");
    assert_int_equal(all.n, s.game.drop_shown);
    unsigned first = s.game.drop_cards[0];
    s.game.drop_taken[0] = true;
    struct offered left = complete(&s, 2, "grab", "resource", "");
    assert_int_equal(left.n, s.game.drop_shown - 1);
    char gone[64];
    snprintf(gone, sizeof gone, "=%s;", il_resource_id(first));
    assert_null(strstr(left.text, gone));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(players_and_cards),
        cmocka_unit_test(drop_cards),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
