/*
 * test_command_regressions.c - card lists that once resolved wrongly.
 *
 * Role names typed with their leading "The" ("the pimp") must be refused as
 * untradable, not reported as the unknown card "the"; and a card list is read
 * to its last word, never cut short, so an unknown name at the end of a long
 * list is still reported.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bot/command.h"
#include "core/illegal/module.h"

static enum resolve_error parse_cards(const char *text, struct il_bundle *b, char *word,
                                      size_t wordlen)
{
    char choices[512];
    return il_parse_cards(text, 0xFF, "en", b, word, wordlen, choices, sizeof choices);
}

static void test_role_names_with_the(void **state)
{
    (void)state;
    static const char *const roles[] = {"the pimp",      "The Pimp",        "The Hacker",
                                        "the rock star", "the arms dealer", "2 guns, the pimp"};
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++) {
        struct il_bundle b;
        char word[64];
        enum resolve_error e = parse_cards(roles[i], &b, word, sizeof word);
        if (e != RESOLVE_NOT_TRADABLE)
            fail_msg("\"%s\": got %d (word \"%s\"), want RESOLVE_NOT_TRADABLE", roles[i], (int)e,
                     word);
    }
}

static void test_words_past_48_are_not_dropped(void **state)
{
    (void)state;
    char text[COMMAND_ARG_MAX];
    struct il_bundle b;
    char word[64];
    size_t n = 0;
    /* 24 x "1 gun, " is 48 words in 168 characters, then an unknown card. */
    for (int i = 0; i < 24; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "1 gun, ");
    snprintf(text + n, sizeof text - n, "2 tulips");
    assert_true(strlen(text) < COMMAND_ARG_MAX);
    enum resolve_error e = parse_cards(text, &b, word, sizeof word);
    if (e != RESOLVE_UNKNOWN)
        fail_msg("got %d with %u guns: \"2 tulips\" was dropped silently", (int)e, b.n[IL_GUNS]);
    assert_string_equal(word, "tulips");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_role_names_with_the),
        cmocka_unit_test(test_words_past_48_are_not_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
