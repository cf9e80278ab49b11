/*
 * test_text.c - lists written into fixed arrays: separators, and what is
 * left out when the array is full.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/text.h"

/* Adds every item of a NULL-terminated list to a list of len bytes. */
static void write_list(char *out, size_t len, const char *sep, const char *const *items,
                       struct text_list *l)
{
    text_list_init(l, out, len, sep);
    for (const char *const *i = items; *i; i++)
        text_list_add(l, "%s", *i);
}

static void lists(void **state)
{
    (void)state;
    static const char *const abc[] = {"Alice", "Bob", "Carol", NULL};
    static const struct {
        size_t len;
        const char *sep;
        const char *want;
        bool full;
    } cases[] = {
        {64, ", ", "Alice, Bob, Carol", false},
        {64, " + ", "Alice + Bob + Carol", false},
        {18, ", ", "Alice, Bob, Carol", false}, /* exactly fits: 17 bytes and the NUL */
        {17, ", ", "Alice, Bob", true},         /* one short: Carol is left out whole */
        {12, ", ", "Alice, Bob", true},
        {11, ", ", "Alice, Bob", true},
        {10, ", ", "Alice", true},
        {6, ", ", "Alice", true},
        {5, ", ", "", true},
        {1, ", ", "", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[64];
        struct text_list l;
        memset(out, 'x', sizeof out);
        write_list(out, cases[i].len, cases[i].sep, abc, &l);
        if (strcmp(out, cases[i].want) != 0)
            fail_msg("case %zu: \"%s\", not \"%s\"", i, out, cases[i].want);
        assert_int_equal(l.n, strlen(cases[i].want));
        assert_int_equal(l.full, cases[i].full);
    }
}

static void nothing_after_full(void **state)
{
    (void)state;
    char out[12];
    struct text_list l;
    text_list_init(&l, out, sizeof out, ", ");
    text_list_add(&l, "%s", "Alice");
    text_list_add(&l, "%s", "Bartholomew"); /* does not fit */
    text_list_add(&l, "%s", "Al");          /* would fit, but would skip Bartholomew */
    assert_string_equal(out, "Alice");
    text_list_add(&l, "%d cards", 3);
    assert_string_equal(out, "Alice");
}

static void formats(void **state)
{
    (void)state;
    char out[32];
    struct text_list l;
    text_list_init(&l, out, sizeof out, "; ");
    assert_string_equal(out, "");
    text_list_add(&l, "%u %s", 2u, "guns");
    text_list_add(&l, "%s", "");
    text_list_add(&l, "%s", "x");
    assert_string_equal(out, "2 guns; ; x");
}

/* text_copy(), the project's strcpy: always terminated, cut to fit, and says so. */
static void copies(void **state)
{
    (void)state;
    char out[6] = "xxxxx";
    assert_true(text_copy(out, sizeof out, "abcde"));
    assert_string_equal(out, "abcde");
    assert_false(text_copy(out, sizeof out, "abcdefgh"));
    assert_string_equal(out, "abcde");
    assert_true(text_copy(out, sizeof out, ""));
    assert_string_equal(out, "");
    assert_false(text_copy(out, 0, "a"));
    assert_true(text_copy(out, 1, ""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lists),
        cmocka_unit_test(copies),
        cmocka_unit_test(nothing_after_full),
        cmocka_unit_test(formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
