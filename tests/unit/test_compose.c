/*
 * test_compose.c - a compose's template filled with what a player picked
 * (core/compose.h), as Discord's trade builder sends it: every part chosen,
 * a part left out (its text, or the command's words alone), and templates,
 * values and composes that do not fit, each a clear reason, never a crash.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include <json-c/json.h>

#include "core/compose.h"

/* Illegal's offer (core/illegal/render.c): only to whom must be chosen. */
#define OFFER "offer {to} {give|nothing} for {ask|nothing}"

/* Picks as name, value pairs, ended by a NULL name. */
static const char *pick(void *arg, const char *name)
{
    for (const char *const *p = arg; p[0]; p += 2)
        if (strcmp(p[0], name) == 0)
            return p[1];
    return NULL;
}

static enum compose_fill fill(const char *tmpl, const char *const *picks, char *out, size_t len)
{
    return compose_fill(tmpl, pick, (void *)picks, out, len);
}

static void test_filled(void **state)
{
    (void)state;
    char out[256];
    const char *all[] = {"to", "<@42>", "give", "2 guns", "ask", "1 alcohol", NULL};
    assert_int_equal(fill(OFFER, all, out, sizeof out), COMPOSE_OK);
    assert_string_equal(out, "offer <@42> 2 guns for 1 alcohol");
    /* a part with a text of its own, not chosen or chosen empty */
    const char *none[] = {"to", "cpu:2", "ask", "1 alcohol", NULL};
    assert_int_equal(fill(OFFER, none, out, sizeof out), COMPOSE_OK);
    assert_string_equal(out, "offer cpu:2 nothing for 1 alcohol");
    const char *empty[] = {"to", "cpu:2", "give", "", "ask", "1 alcohol", NULL};
    assert_int_equal(fill(OFFER, empty, out, sizeof out), COMPOSE_OK);
    assert_string_equal(out, "offer cpu:2 nothing for 1 alcohol");
    /* a gift: ask left out, or chosen empty */
    const char *gift[] = {"to", "<@42>", "give", "2 guns", NULL};
    assert_int_equal(fill(OFFER, gift, out, sizeof out), COMPOSE_OK);
    assert_string_equal(out, "offer <@42> 2 guns for nothing");
    const char *gift_empty[] = {"to", "<@42>", "give", "2 guns", "ask", "", NULL};
    assert_int_equal(fill(OFFER, gift_empty, out, sizeof out), COMPOSE_OK);
    assert_string_equal(out, "offer <@42> 2 guns for nothing");
    /* neither given nor asked: the command is sent, for the rules to refuse
     * the empty offer in their own words (core/README.md) */
    const char *neither[] = {"to", "<@42>", NULL};
    assert_int_equal(fill(OFFER, neither, out, sizeof out), COMPOSE_OK);
    assert_string_equal(out, "offer <@42> nothing for nothing");
    /* a value is written as it is: braces in it are no parts */
    const char *braces[] = {"to", "{ask}", "ask", "x", NULL};
    assert_int_equal(fill(OFFER, braces, out, sizeof out), COMPOSE_OK);
    assert_string_equal(out, "offer {ask} nothing for x");
}

static void test_incomplete(void **state)
{
    (void)state;
    char out[256];
    /* a part that must be chosen is not, or is chosen empty: the command's
     * words, for the bot to answer with its usage */
    const char *no_to[] = {"give", "2 guns", "ask", "1 alcohol", NULL};
    assert_int_equal(fill(OFFER, no_to, out, sizeof out), COMPOSE_INCOMPLETE);
    assert_string_equal(out, "offer");
    const char *empty_to[] = {"to", "", "give", "2 guns", NULL};
    assert_int_equal(fill(OFFER, empty_to, out, sizeof out), COMPOSE_INCOMPLETE);
    assert_string_equal(out, "offer");
    const char *no_ask[] = {"to", "<@42>", "give", "2 guns", NULL};
    assert_int_equal(fill("offer {to} {give|nothing} for {ask}", no_ask, out, sizeof out),
                     COMPOSE_INCOMPLETE);
    assert_string_equal(out, "offer");
    const char *nothing[] = {NULL};
    assert_int_equal(fill("two words {x}", nothing, out, sizeof out), COMPOSE_INCOMPLETE);
    assert_string_equal(out, "two words");
    assert_int_equal(compose_fill(OFFER, NULL, NULL, out, sizeof out), COMPOSE_INCOMPLETE);
}

static void test_bad(void **state)
{
    (void)state;
    char out[64];
    const char *all[] = {"to", "<@42>", "give", "2 guns", "ask", "1 alcohol", NULL};
    static const char *const templates[] = {
        "offer {to",                 /* no closing brace */
        "offer to}",                 /* no opening brace */
        "offer {to {ask}}",          /* a brace in a part */
        "offer {}",                  /* no name */
        "offer {|nothing}",          /* no name, a text */
        "offer {To}",                /* not a-z, 0-9 and - */
        "offer {a b}",               /* a space in a name */
        "offer {abcdefghijklmnopq}", /* 17 characters */
        "{to} offer",                /* no command before the first part */
        " offer {to}",               /* nor a space */
        "",
    };
    for (size_t i = 0; i < sizeof templates / sizeof *templates; i++) {
        out[0] = 'x';
        assert_int_equal(fill(templates[i], all, out, sizeof out), COMPOSE_BAD);
        assert_true(strlen(out) > 5); /* a reason */
    }
    assert_int_equal(compose_fill(NULL, pick, (void *)all, out, sizeof out), COMPOSE_BAD);
    /* a value with a line break would be a second command */
    const char *broken[] = {"to", "<@42>\noffer", "ask", "x", NULL};
    assert_int_equal(fill(OFFER, broken, out, sizeof out), COMPOSE_BAD);
    /* longer than out: a reason, never a command cut short */
    char small[16];
    assert_int_equal(fill(OFFER, all, small, sizeof small), COMPOSE_BAD);
    assert_int_equal(compose_fill(OFFER, pick, (void *)all, NULL, 0), COMPOSE_BAD);
    assert_int_equal(compose_fill(OFFER, pick, (void *)all, small, 0), COMPOSE_BAD);
    /* the longest name fits */
    const char *longest[] = {"abcdefghijklmnop", "v", NULL};
    assert_int_equal(fill("c {abcdefghijklmnop}", longest, out, sizeof out), COMPOSE_OK);
    assert_string_equal(out, "c v");
}

static const char compose_ok[] =
    "{\"command\": \"" OFFER "\", \"label_key\": \"ui.send-offer\", \"parts\": ["
    "{\"name\": \"to\", \"players\": [{\"id\": \"42\", \"name\": \"bob\"}]},"
    "{\"name\": \"give\", \"items\": [{\"id\": \"guns\", \"max\": 2}]},"
    "{\"name\": \"ask\", \"items\": [{\"id\": \"guns\", \"max\": 3}]}]}";

static int check(const char *json, char *why, size_t len)
{
    struct json_object *c = json_tokener_parse(json);
    why[0] = '\0';
    int rc = compose_check(c, why, len);
    json_object_put(c);
    return rc;
}

static void test_check(void **state)
{
    (void)state;
    char why[128];
    assert_int_equal(check(compose_ok, why, sizeof why), 0);
    static const char *const bad[] = {
        "null",
        "[]",
        "{\"parts\": [{\"name\": \"to\", \"players\": []}]}", /* no command */
        "{\"command\": \"offer\", \"parts\": []}",            /* no parts */
        "{\"command\": \"o {a}{b}{c}{d}{e}\", \"parts\": [{\"name\": \"a\", \"items\": []},"
        "{\"name\": \"b\", \"items\": []}, {\"name\": \"c\", \"items\": []},"
        "{\"name\": \"d\", \"items\": []}, {\"name\": \"e\", \"items\": []}]}", /* five */
        "{\"command\": \"offer {to}\", \"parts\": [{\"players\": []}]}",        /* no name */
        "{\"command\": \"offer {to}\", \"parts\": [{\"name\": \"to\"}]}",       /* no kind */
        "{\"command\": \"offer {to}\", \"parts\": [{\"name\": \"to\", \"players\": [],"
        " \"items\": []}]}", /* both */
        "{\"command\": \"offer {to} {gift}\", \"parts\": [{\"name\": \"to\", \"players\": []}]}",
        "{\"command\": \"offer\", \"parts\": [{\"name\": \"to\", \"players\": []}]}",
        "{\"command\": \"offer {to} {to}\", \"parts\": [{\"name\": \"to\", \"players\": []}]}",
        "{\"command\": \"offer {to}\", \"parts\": [{\"name\": \"to\", \"players\": []},"
        " {\"name\": \"to\", \"items\": []}]}", /* one name twice */
        "{\"command\": \"offer {to\", \"parts\": [{\"name\": \"to\", \"players\": []}]}",
        "{\"command\": 7, \"parts\": [{\"name\": \"to\", \"players\": []}]}",
        "{\"command\": \"offer {to}\", \"parts\": {\"name\": \"to\"}}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        assert_int_equal(check(bad[i], why, sizeof why), -1);
        assert_true(strlen(why) > 5);
    }
    /* a reason cut to a small buffer, still ended */
    char tiny[4];
    assert_int_equal(check(bad[2], tiny, sizeof tiny), -1);
    assert_int_equal(strlen(tiny), 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_filled),
        cmocka_unit_test(test_incomplete),
        cmocka_unit_test(test_bad),
        cmocka_unit_test(test_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
