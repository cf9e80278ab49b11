/*
 * test_strmap.c - the string map adapters use for message keys: set, get,
 * replace, growth far past the first table, and reuse after a clear.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bot/strmap.h"

static void test_empty_map(void **state)
{
    (void)state;
    struct strmap m = {0};
    assert_null(strmap_get(&m, "anything"));
    assert_null(strmap_get(&m, ""));
    strmap_clear(&m);
    assert_null(strmap_get(&m, "anything"));
}

static void test_set_get_replace(void **state)
{
    (void)state;
    struct strmap m = {0};
    assert_int_equal(strmap_set(&m, "g1/hand/alice", "msg-1"), 0);
    assert_int_equal(strmap_set(&m, "g1/hand/bob", "msg-2"), 0);
    assert_int_equal(strmap_set(&m, "", "empty key"), 0);
    assert_string_equal(strmap_get(&m, "g1/hand/alice"), "msg-1");
    assert_string_equal(strmap_get(&m, "g1/hand/bob"), "msg-2");
    assert_string_equal(strmap_get(&m, ""), "empty key");
    assert_null(strmap_get(&m, "g1/hand/carol"));
    assert_null(strmap_get(&m, "g1/hand/alic"));
    assert_int_equal(m.len, 3);

    /* Replacing keeps one entry and gives the new value. */
    assert_int_equal(strmap_set(&m, "g1/hand/alice", "msg-9"), 0);
    assert_string_equal(strmap_get(&m, "g1/hand/alice"), "msg-9");
    assert_int_equal(m.len, 3);

    /* The map owns copies: changing the caller's buffers changes nothing. */
    char key[16], value[16];
    strcpy(key, "mutable");
    strcpy(value, "before");
    assert_int_equal(strmap_set(&m, key, value), 0);
    strcpy(value, "after!");
    strcpy(key, "changed");
    assert_string_equal(strmap_get(&m, "mutable"), "before");
    assert_null(strmap_get(&m, "changed"));
    strmap_clear(&m);
}

#define MANY 20000

static void test_growth(void **state)
{
    (void)state;
    struct strmap m = {0};
    char key[32], value[32];
    for (unsigned i = 0; i < MANY; i++) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        snprintf(value, sizeof value, "id-%u", i * 7);
        assert_int_equal(strmap_set(&m, key, value), 0);
    }
    assert_int_equal(m.len, MANY);
    /* The load stays at most one half, and the capacity is a power of two. */
    assert_true(m.len * 2 <= m.cap);
    assert_int_equal(m.cap & (m.cap - 1), 0);
    for (unsigned i = 0; i < MANY; i++) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        snprintf(value, sizeof value, "id-%u", i * 7);
        const char *got = strmap_get(&m, key);
        assert_non_null(got);
        assert_string_equal(got, value);
    }
    /* Keys that were never set are still absent after all that growth. */
    for (unsigned i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97 + 1000, i);
        assert_null(strmap_get(&m, key));
    }
    /* Replace every other one. */
    for (unsigned i = 0; i < MANY; i += 2) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        assert_int_equal(strmap_set(&m, key, "replaced"), 0);
    }
    assert_int_equal(m.len, MANY);
    for (unsigned i = 0; i < MANY; i++) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        snprintf(value, sizeof value, "id-%u", i * 7);
        assert_string_equal(strmap_get(&m, key), i % 2 ? value : "replaced");
    }
    strmap_clear(&m);
}

static void test_clear_and_reuse(void **state)
{
    (void)state;
    struct strmap m = {0};
    char key[32];
    for (unsigned i = 0; i < 500; i++) {
        snprintf(key, sizeof key, "k%u", i);
        assert_int_equal(strmap_set(&m, key, "old"), 0);
    }
    strmap_clear(&m);
    assert_int_equal(m.len, 0);
    assert_int_equal(m.cap, 0);
    assert_null(m.slots);
    assert_null(strmap_get(&m, "k1"));

    assert_int_equal(strmap_set(&m, "k1", "new"), 0);
    assert_string_equal(strmap_get(&m, "k1"), "new");
    assert_null(strmap_get(&m, "k2"));
    assert_int_equal(m.len, 1);
    strmap_clear(&m);
    /* Clearing twice is harmless. */
    strmap_clear(&m);
    assert_null(strmap_get(&m, "k1"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_map),
        cmocka_unit_test(test_set_get_replace),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_clear_and_reuse),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
