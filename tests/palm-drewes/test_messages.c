/*
 * test_messages.c - the messages adapters draw Palm & Drewes' Illegal from,
 * rendered from real games: the table view after moves, each prompt (the
 * pass, the Magnum's window, the loss, offers) at the right seats only with
 * the right choices, closed when done; and no message to the table carries a
 * card of a hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "core/palm-drewes/module.h"
#include "helpers.h"

#define N      PD_NOBODY
#define MSGS   64
#define SEATS3 3

static const char *const names[] = {"ann", "bob", "cy", "dee"};
static const char *const users[] = {"u-ann", "u-bob", "u-cy", "u-dee"};
static const struct rules_table table3 = {"g1", "c1", "en", SEATS3, users, names, NULL};
static const struct rules_table table4 = {"g1", "c1", "en", 4, users, names, NULL};

/* What one render sent: each message's kind, audience, key, text and data. */
struct sent {
    unsigned n;
    struct {
        enum outbound_kind kind;
        int audience;
        bool replace;
        char key[MSG_KEY_MAX];
        char text[2048];
        struct json_object *data;
    } m[MSGS];
};

static void keep(void *arg, const struct rules_msg *msg)
{
    struct sent *s = arg;
    assert_true(s->n < MSGS);
    s->m[s->n].kind = msg->kind;
    s->m[s->n].audience = msg->audience;
    s->m[s->n].replace = msg->replace;
    s->m[s->n].key[0] = '\0';
    if (msg->key)
        assert_int_equal(msg_key_format(msg->key, s->m[s->n].key, MSG_KEY_MAX), 0);
    snprintf(s->m[s->n].text, sizeof s->m[s->n].text, "%s", msg->text);
    s->m[s->n].data =
        json_tokener_parse(json_object_to_json_string((struct json_object *)(uintptr_t)msg->data));
    s->n++;
}

static void forget(struct sent *s)
{
    for (unsigned i = 0; i < s->n; i++)
        json_object_put(s->m[i].data);
    s->n = 0;
}

static struct t T;
static struct pd_state S;
static struct sent out;

/* Renders the last action's events (T.ev) for the table. */
static void render(const struct rules_table *t)
{
    forget(&out);
    S.game = T.g;
    pd_render(&S, t, &T.ev, T.now, keep, &out);
}

/* The message sent under key, or NULL. */
static unsigned find(const char *key)
{
    for (unsigned i = 0; i < out.n; i++)
        if (strcmp(out.m[i].key, key) == 0)
            return i;
    return MSGS;
}

static unsigned count_topic(const char *topic)
{
    unsigned n = 0;
    char part[32];
    snprintf(part, sizeof part, "/%s/", topic);
    for (unsigned i = 0; i < out.n; i++)
        n += strstr(out.m[i].key, part) != NULL;
    return n;
}

static struct json_object *get(unsigned i, const char *name)
{
    assert_true(i < out.n);
    return json_object_object_get(out.m[i].data, name);
}

/* The commands of message i's choices, joined by ", ". */
static const char *commands(unsigned i)
{
    static char buf[512];
    struct json_object *choices = get(i, "choices");
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; choices && k < json_object_array_length(choices); k++) {
        const char *c = json_object_get_string(
            json_object_object_get(json_object_array_get_idx(choices, k), "command"));
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", k ? ", " : "", c);
    }
    return buf;
}

/* A prompt that is open (choices) or closed (an edit with none). */
static void assert_prompt(unsigned i, bool open)
{
    assert_true(i < out.n);
    assert_int_equal(out.m[i].kind, OUT_PROMPT);
    assert_int_equal(out.m[i].replace, !open);
    assert_int_equal(json_object_get_boolean(get(i, "open")), open);
    assert_true(open == (get(i, "choices") != NULL));
}

/* No message to the table carries a card of a hand that lies hidden. */
static void assert_table_keeps_hands(void)
{
    for (unsigned i = 0; i < out.n; i++) {
        if (out.m[i].audience != MSG_TABLE)
            continue;
        assert_null(get(i, "choices"));
        struct json_object *players = get(i, "players");
        for (size_t k = 0; players && k < json_object_array_length(players); k++) {
            struct json_object *hand =
                json_object_object_get(json_object_array_get_idx(players, k), "hand");
            assert_true(json_object_is_type(hand, json_type_int)); /* a count, no cards */
        }
        if (out.m[i].kind != OUT_RESULT && S.game.phase != PD_PHASE_OVER)
            assert_null(get(i, "hand"));
    }
}

static void test_table_view(void **unused)
{
    (void)unused;
    t_start(&T, 3, 4);
    render(&table3);
    unsigned v = find("g1/table");
    assert_true(v < out.n);
    assert_int_equal(out.m[v].kind, OUT_TABLE_VIEW);
    assert_false(out.m[v].replace); /* a new game: a new view */
    assert_string_equal(json_object_get_string(get(v, "title")), "palm-drewes.ui.title-table");
    struct json_object *players = get(v, "players");
    assert_int_equal(json_object_array_length(players), 3);
    struct json_object *p0 = json_object_array_get_idx(players, 0);
    assert_string_equal(json_object_get_string(json_object_object_get(p0, "player")), "u-ann");
    assert_int_equal(json_object_get_int(json_object_object_get(p0, "hand")), 7);
    assert_true(json_object_get_boolean(json_object_object_get(p0, "active")));
    assert_null(json_object_object_get(p0, "burden"));
    unsigned pile = (unsigned)json_object_get_int(get(v, "pile"));
    assert_int_equal(pile, 108 - 21);
    assert_null(get(v, "series"));
    assert_table_keeps_hands();

    /* ann opens a business and draws: the view is edited with it */
    t_hand(&T, 0, "opening dope small-fry");
    assert_int_equal(t_play(&T, 0, "opening", N, NULL, NULL), PD_OK);
    render(&table3);
    v = find("g1/table");
    assert_true(v < out.n);
    assert_true(out.m[v].replace);
    p0 = json_object_array_get_idx(get(v, "players"), 0);
    assert_int_equal(json_object_get_int(
                         json_object_object_get(json_object_object_get(p0, "business"), "opening")),
                     1);
    assert_int_equal(json_object_get_int(json_object_object_get(p0, "hand")), 3);
    assert_string_equal(json_object_get_string(get(v, "turn")), "u-bob");
    assert_int_equal(json_object_get_int(get(v, "pile")), (int)T.g.npile);
    assert_non_null(strstr(out.m[v].text, "ann — business Business Opening ·"));
    assert_null(strstr(out.m[v].text, "Dope")); /* the hand's cards stay hidden */
    assert_table_keeps_hands();

    /* a pause changes nothing the view shows: it is left as it is */
    assert_int_equal(t_do(&T, PD_ACT_PAUSE, PD_HOST, N, NULL), PD_OK);
    render(&table3);
    assert_int_equal(find("g1/table"), MSGS);
    forget(&out);
}

/* A business's deal n times in the layout's side (illegal or legal) of message i's
 * player k (k < 0: the private view's own). */
static int laid(unsigned i, int k, const char *side, const char *card)
{
    struct json_object *l =
        k < 0 ? get(i, "layout")
              : json_object_object_get(json_object_array_get_idx(get(i, "players"), (size_t)k),
                                       "layout");
    assert_non_null(l);
    return json_object_get_int(json_object_object_get(json_object_object_get(l, side), card));
}

/* The business as the rulebook lays it out: illegal deals left of the opening, legal ones
 * right, the burden on it; in the table view and in the player's own view alike. */
static void test_layout(void **unused)
{
    (void)unused;
    t_start(&T, 3, 10);
    t_business(&T, 0, "opening dope guns small-fry");
    t_hand(&T, 0, "brokerage alibi");
    t_hand(&T, 1, "raid alibi");
    assert_int_equal(t_play(&T, 0, "brokerage", N, NULL, NULL), PD_OK);
    render(&table3);
    unsigned v = find("g1/table"), h = find("g1/hand/u-ann");
    assert_true(v < out.n);
    assert_true(h < out.n);
    for (int k = -1; k <= 0; k++) {
        unsigned i = k < 0 ? h : v;
        assert_int_equal(laid(i, k, "illegal", "dope"), 1);
        assert_int_equal(laid(i, k, "illegal", "guns"), 1);
        assert_int_equal(laid(i, k, "legal", "small-fry"), 1);
        assert_int_equal(laid(i, k, "legal", "brokerage"), 1);
        assert_int_equal(laid(i, k, "illegal", "brokerage"), 0); /* each deal on one side */
        assert_int_equal(laid(i, k, "legal", "dope"), 0);
    }
    struct json_object *mine = get(h, "layout");
    assert_true(json_object_get_boolean(json_object_object_get(mine, "opening")));
    assert_null(json_object_object_get(mine, "burden"));
    assert_int_equal(json_object_object_length(json_object_object_get(mine, "illegal")), 2);
    /* bob has no business: no opening, nothing on either side */
    struct json_object *bob =
        json_object_object_get(json_object_array_get_idx(get(v, "players"), 1), "layout");
    assert_false(json_object_get_boolean(json_object_object_get(bob, "opening")));
    assert_int_equal(json_object_object_length(json_object_object_get(bob, "legal")), 0);

    /* bob lays a raid on her opening: the table's layout carries it */
    assert_int_equal(t_play(&T, 1, "raid", 0, NULL, NULL), PD_OK);
    render(&table3);
    v = find("g1/table");
    struct json_object *ann =
        json_object_object_get(json_object_array_get_idx(get(v, "players"), 0), "layout");
    assert_string_equal(json_object_get_string(json_object_object_get(ann, "burden")), "raid");
    assert_int_equal(laid(v, 0, "legal", "brokerage"), 1);
    assert_table_keeps_hands();
    forget(&out);
}

static void test_pass(void **unused)
{
    (void)unused;
    t_start(&T, 3, 5);
    t_hand(&T, 0, "family-party");
    t_hand(&T, 1, "dope dope alibi");
    t_business(&T, 0, "opening guns");
    assert_int_equal(t_play(&T, 0, "family-party", N, "guns", NULL), PD_OK);
    assert_int_equal(T.g.phase, PD_PHASE_PASS);
    render(&table3);
    /* ann played her last card: she is not asked; bob and cy are */
    assert_int_equal(find("g1/pass/u-ann"), MSGS);
    unsigned b = find("g1/pass/u-bob"), c = find("g1/pass/u-cy");
    assert_prompt(b, true);
    assert_prompt(c, true);
    assert_int_equal(out.m[b].audience, 1);
    assert_string_equal(commands(b), "pass dope, pass alibi"); /* each kind of card once */
    assert_string_equal(json_object_get_string(get(b, "to")), "u-cy");
    assert_table_keeps_hands();

    /* bob chooses: his prompt is closed and shows the card; cy's is left open */
    assert_int_equal(t_do(&T, PD_ACT_PASS, 1, N, "alibi"), PD_OK);
    render(&table3);
    b = find("g1/pass/u-bob");
    assert_prompt(b, false);
    assert_string_equal(json_object_get_string(get(b, "chosen")), "alibi");
    assert_int_equal(find("g1/pass/u-cy"), MSGS);
    assert_table_keeps_hands();
    /* he changes his mind: the closed prompt shows the new card */
    assert_int_equal(t_do(&T, PD_ACT_PASS, 1, N, "dope"), PD_OK);
    render(&table3);
    assert_string_equal(json_object_get_string(get(find("g1/pass/u-bob"), "chosen")), "dope");
    /* time runs out: cy's card is drawn for her, and her prompt closes */
    assert_int_equal(t_tick(&T, T.g.deadline), PD_OK);
    render(&table3);
    assert_prompt(find("g1/pass/u-cy"), false);
    assert_int_equal(count_topic("pass"), 1);
    assert_table_keeps_hands();
    forget(&out);
}

static void test_window(void **unused)
{
    (void)unused;
    t_start(&T, 4, 6);
    t_business(&T, 0, "opening");
    t_business(&T, 1, "opening guns");
    t_hand(&T, 0, "takeover dope");
    t_hand(&T, 2, "magnum alibi");
    t_hand(&T, 3, "alibi");
    assert_int_equal(t_play(&T, 0, "takeover", 1, "guns", NULL), PD_OK);
    render(&table4);
    assert_int_equal(find("g1/window/u-ann"), MSGS); /* not the taker */
    unsigned b = find("g1/window/u-bob"), c = find("g1/window/u-cy"), d = find("g1/window/u-dee");
    assert_prompt(b, true);
    assert_prompt(c, true);
    assert_prompt(d, true);
    /* the same words for all, so being asked tells nothing; the Magnum to its holder only */
    assert_string_equal(out.m[b].text, out.m[c].text);
    assert_string_equal(out.m[c].text, out.m[d].text);
    assert_string_equal(commands(b), "waive");
    assert_string_equal(commands(c), "waive, magnum");
    assert_string_equal(commands(d), "waive");
    assert_string_equal(json_object_get_string(get(b, "deal")), "guns");
    assert_string_equal(json_object_get_string(get(b, "taker")), "u-ann");
    assert_table_keeps_hands();

    /* bob lets it go: his prompt alone closes */
    assert_int_equal(t_do(&T, PD_ACT_WAIVE, 1, N, NULL), PD_OK);
    render(&table4);
    assert_prompt(find("g1/window/u-bob"), false);
    assert_int_equal(count_topic("window"), 1);
    /* cy fires the Magnum: the window ends, and the prompts still open close */
    struct pd_action a;
    pd_action_init(&a, PD_ACT_MAGNUM, 2);
    assert_int_equal(t_act(&T, &a), PD_OK);
    render(&table4);
    assert_prompt(find("g1/window/u-cy"), false);
    d = find("g1/window/u-dee");
    assert_prompt(d, false);
    assert_non_null(strstr(out.m[d].text, "Magnum"));
    assert_int_equal(count_topic("window"), 2);
    assert_table_keeps_hands();
    forget(&out);
}

static void test_loss(void **unused)
{
    (void)unused;
    t_start(&T, 3, 7);
    t_business(&T, 0, "opening dope guns small-fry");
    t_burden(&T, 0, "raid");
    t_hand(&T, 0, "alibi informant");
    assert_int_equal(t_do(&T, PD_ACT_DISCARD, 0, N, "alibi"), PD_OK);
    assert_int_equal(T.g.phase, PD_PHASE_LOSS);
    render(&table3);
    unsigned a = find("g1/loss/u-ann");
    assert_prompt(a, true);
    assert_string_equal(commands(a), "lose dope, lose guns"); /* a raid takes illegal deals */
    assert_string_equal(json_object_get_string(get(a, "burden")), "raid");
    assert_int_equal(count_topic("loss"), 1);
    assert_int_equal(t_do(&T, PD_ACT_LOSE, 0, N, "dope"), PD_OK);
    render(&table3);
    a = find("g1/loss/u-ann");
    assert_prompt(a, false);
    assert_non_null(strstr(out.m[a].text, "Dope"));
    forget(&out);
}

static void test_offers(void **unused)
{
    (void)unused;
    t_start(&T, 3, 8);
    t_hand(&T, 0, "dope alibi");
    struct pd_action a;
    pd_action_init(&a, PD_ACT_OFFER, 0);
    a.target = 2;
    a.give.n[PD_DOPE] = 1;
    assert_int_equal(t_act(&T, &a), PD_OK);
    render(&table3);
    unsigned to = find("g1/offer/1/u-cy"), from = find("g1/offer/1/u-ann");
    assert_prompt(to, true);
    assert_prompt(from, true);
    assert_string_equal(commands(to), "accept 1, decline 1");
    assert_string_equal(commands(from), "cancel 1");
    assert_int_equal(find("g1/offer/1/u-bob"), MSGS);
    assert_int_equal(json_object_get_int(get(to, "given")), 1);
    assert_table_keeps_hands();
    pd_action_init(&a, PD_ACT_DECLINE, 2);
    a.offer_id = 1;
    assert_int_equal(t_act(&T, &a), PD_OK);
    render(&table3);
    assert_prompt(find("g1/offer/1/u-cy"), false);
    assert_prompt(find("g1/offer/1/u-ann"), false);

    /* a blind offer: the receiver's prompt names no card given */
    pd_action_init(&a, PD_ACT_OFFER, 0);
    a.target = 1;
    a.blind = true;
    a.give.n[PD_ALIBI] = 1;
    assert_int_equal(t_act(&T, &a), PD_OK);
    render(&table3);
    to = find("g1/offer/2/u-bob");
    assert_prompt(to, true);
    assert_int_equal(json_object_object_length(get(to, "give")), 0);
    assert_null(strstr(out.m[to].text, "Alibi"));
    forget(&out);
}

/* What the rules interface sends one who has just taken seat over, at T.now. */
static void render_taken(const struct rules_table *t, unsigned seat)
{
    forget(&out);
    S.game = T.g;
    pd_module.render_taken(&S, t, seat, T.now, keep, &out);
}

/* A seat taken over mid-pass gets its pass prompt with its choices (one who
 * has chosen is asked no more); mid-turn, its offers, each side its own. */
static void test_taken(void **unused)
{
    (void)unused;
    t_start(&T, 3, 11);
    t_hand(&T, 0, "family-party");
    t_hand(&T, 1, "dope dope alibi");
    t_hand(&T, 2, "guns");
    t_business(&T, 0, "opening guns");
    assert_int_equal(t_play(&T, 0, "family-party", N, "guns", NULL), PD_OK);
    assert_int_equal(T.g.phase, PD_PHASE_PASS);
    render(&table3);
    char asked[2048];
    snprintf(asked, sizeof asked, "%s", out.m[find("g1/pass/u-bob")].text);
    assert_int_equal(t_do(&T, PD_ACT_PASS, 2, N, "guns"), PD_OK);
    render_taken(&table3, 1);
    assert_int_equal(out.n, 1);
    unsigned b = find("g1/pass/u-bob");
    assert_prompt(b, true);
    assert_int_equal(out.m[b].audience, 1);
    assert_string_equal(commands(b), "pass dope, pass alibi");
    assert_string_equal(json_object_get_string(get(b, "to")), "u-cy");
    assert_string_equal(out.m[b].text, asked); /* the time left too, counted from now */
    render_taken(&table3, 2);                  /* cy has chosen */
    assert_int_equal(out.n, 0);
    render_taken(&table3, 0); /* ann played her last card: not asked */
    assert_int_equal(out.n, 0);

    t_start(&T, 3, 12);
    t_hand(&T, 0, "dope alibi");
    struct pd_action a;
    pd_action_init(&a, PD_ACT_OFFER, 0);
    a.target = 2;
    a.blind = true;
    a.give.n[PD_DOPE] = 1;
    assert_int_equal(t_act(&T, &a), PD_OK);
    render_taken(&table3, 2);
    assert_int_equal(out.n, 1);
    unsigned to = find("g1/offer/1/u-cy");
    assert_prompt(to, true);
    assert_string_equal(commands(to), "accept 1, decline 1");
    assert_int_equal(json_object_object_length(get(to, "give")), 0); /* blind: still hidden */
    render_taken(&table3, 0);
    assert_string_equal(commands(find("g1/offer/1/u-ann")), "cancel 1");
    render_taken(&table3, 1);
    assert_int_equal(out.n, 0);
    forget(&out);
}

/* The host ends the game in a window: every prompt still open is closed. */
static void test_end_closes(void **unused)
{
    (void)unused;
    t_start(&T, 3, 9);
    t_business(&T, 0, "opening");
    t_business(&T, 1, "opening guns");
    t_hand(&T, 0, "takeover dope");
    assert_int_equal(t_play(&T, 0, "takeover", 1, "guns", NULL), PD_OK);
    assert_int_equal(t_do(&T, PD_ACT_END, PD_HOST, N, NULL), PD_OK);
    render(&table3);
    assert_prompt(find("g1/window/u-bob"), false);
    assert_prompt(find("g1/window/u-cy"), false);
    assert_int_equal(count_topic("window"), 2);
    forget(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_view), cmocka_unit_test(test_layout),
        cmocka_unit_test(test_pass),       cmocka_unit_test(test_window),
        cmocka_unit_test(test_loss),       cmocka_unit_test(test_offers),
        cmocka_unit_test(test_taken),      cmocka_unit_test(test_end_closes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
