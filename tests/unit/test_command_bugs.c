/*
 * test_command_bugs.c - card-list cases that bot/command.c gets wrong today.
 *
 * Deliberately not in CMakeLists.txt, so the suite stays green; add
 * "command_bugs" to its foreach list once bot/command.c is fixed. Build by hand:
 *   cc -std=c11 -D_POSIX_C_SOURCE=200809L -I. tests/unit/test_command_bugs.c \
 *      build/bot/libillegald_bot.a build/core/libillegal_core.a -lcmocka -ljson-c
 *
 * 1. command_parse_cards(): role names typed with their leading "The" ("the
 *    pimp", "The Hacker", "the rock star") give RESOLVE_UNKNOWN with word
 *    "the", not RESOLVE_NOT_TRADABLE. names_role() strips "The " from the
 *    catalog's names but the user's words keep it.
 * 2. command_parse_cards(): tokenize() keeps the first MAX_TOKENS (48) words
 *    and silently drops the rest, so a list that still fits in one argument
 *    resolves to fewer cards than were typed, and an unknown name or a
 *    trailing count after word 48 is never reported.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bot/command.h"

static enum resolve_error parse_cards(const char *text, struct il_bundle *b, char *word,
                                      size_t wordlen)
{
    char choices[512];
    return command_parse_cards(text, 0xFF, "en", b, word, wordlen, choices, sizeof choices);
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
