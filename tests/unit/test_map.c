/*
 * test_map.c - the string-keyed map: set, get, replace with the old value
 * handed back, removal, growth far past the first table, string values the
 * map owns, iteration, reuse after a clear, and a failed insert (no memory)
 * that leaves the map as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bot/util/map.h"

#include "alloc_fail.h"

static void test_empty_map(void **state)
{
    (void)state;
    struct map m = {0};
    assert_null(map_get(&m, "anything"));
    assert_null(map_get(&m, ""));
    assert_null(map_del(&m, "anything"));
    assert_int_equal(map_count(&m), 0);
    map_clear(&m, free);
    assert_null(map_get(&m, "anything"));
}

static void test_put_get_replace_del(void **state)
{
    (void)state;
    struct map m;
    map_init(&m);
    int a = 1, b = 2, c = 3;
    void *old = &c;
    assert_int_equal(map_put(&m, "g1/hand/alice", &a, &old), 0);
    assert_null(old);
    assert_int_equal(map_put(&m, "g1/hand/bob", &b, NULL), 0);
    assert_int_equal(map_put(&m, "", &c, NULL), 0);
    assert_ptr_equal(map_get(&m, "g1/hand/alice"), &a);
    assert_ptr_equal(map_get(&m, "g1/hand/bob"), &b);
    assert_ptr_equal(map_get(&m, ""), &c);
    assert_null(map_get(&m, "g1/hand/carol"));
    assert_null(map_get(&m, "g1/hand/alic"));
    assert_int_equal(map_count(&m), 3);

    /* replacing hands the previous value back and keeps the count */
    assert_int_equal(map_put(&m, "g1/hand/alice", &c, &old), 0);
    assert_ptr_equal(old, &a);
    assert_ptr_equal(map_get(&m, "g1/hand/alice"), &c);
    assert_int_equal(map_count(&m), 3);

    assert_ptr_equal(map_del(&m, "g1/hand/bob"), &b);
    assert_null(map_get(&m, "g1/hand/bob"));
    assert_null(map_del(&m, "g1/hand/bob"));
    assert_int_equal(map_count(&m), 2);
    assert_ptr_equal(map_get(&m, ""), &c);

    /* the map owns copies of its keys */
    char key[16];
    strcpy(key, "mutable");
    assert_int_equal(map_put(&m, key, &a, NULL), 0);
    strcpy(key, "changed");
    assert_ptr_equal(map_get(&m, "mutable"), &a);
    assert_null(map_get(&m, "changed"));
    map_clear(&m, NULL);
}

static void test_string_values(void **state)
{
    (void)state;
    struct map m = {0};
    char value[16];
    strcpy(value, "msg-1");
    assert_int_equal(map_set_str(&m, "k", value), 0);
    strcpy(value, "after");
    assert_string_equal(map_get(&m, "k"), "msg-1");
    assert_int_equal(map_set_str(&m, "k", "msg-9"), 0); /* the old copy is freed (ASan) */
    assert_string_equal(map_get(&m, "k"), "msg-9");
    assert_int_equal(map_count(&m), 1);
    map_clear(&m, free);
}

#define MANY 20000

static void test_growth(void **state)
{
    (void)state;
    struct map m = {0};
    char key[32], value[32];
    for (unsigned i = 0; i < MANY; i++) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        snprintf(value, sizeof value, "id-%u", i * 7);
        assert_int_equal(map_set_str(&m, key, value), 0);
    }
    assert_int_equal(map_count(&m), MANY);
    /* the load stays at most one half, and the table size is a power of two */
    assert_true(m.count * 2 <= m.nslots);
    assert_int_equal(m.nslots & (m.nslots - 1), 0);
    for (unsigned i = 0; i < MANY; i++) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        snprintf(value, sizeof value, "id-%u", i * 7);
        const char *got = map_get(&m, key);
        assert_non_null(got);
        assert_string_equal(got, value);
    }
    for (unsigned i = 0; i < 1000; i++) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97 + 1000, i);
        assert_null(map_get(&m, key));
    }
    /* remove every other one; the rest stay reachable through the shortened chains */
    for (unsigned i = 0; i < MANY; i += 2) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        free(map_del(&m, key));
    }
    assert_int_equal(map_count(&m), MANY / 2);
    for (unsigned i = 0; i < MANY; i++) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        snprintf(value, sizeof value, "id-%u", i * 7);
        if (i % 2)
            assert_string_equal(map_get(&m, key), value);
        else
            assert_null(map_get(&m, key));
    }
    /* all but ten go: the table shrinks back, and the ten stay reachable */
    size_t peak = m.nslots;
    for (unsigned i = 21; i < MANY; i += 2) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        free(map_del(&m, key));
    }
    assert_int_equal(map_count(&m), 10);
    assert_true(m.nslots < peak && m.nslots == 64);
    for (unsigned i = 1; i < 21; i += 2) {
        snprintf(key, sizeof key, "g%u/drop/%u", i % 97, i);
        snprintf(value, sizeof value, "id-%u", i * 7);
        assert_string_equal(map_get(&m, key), value);
    }
    map_clear(&m, free);
}

struct tally {
    size_t n;
    long sum;
};

static void add_up(const char *key, void *val, void *arg)
{
    struct tally *t = arg;
    assert_int_equal(strtol(key, NULL, 10), *(int *)val);
    t->n++;
    t->sum += *(int *)val;
}

static void test_each(void **state)
{
    (void)state;
    struct map m = {0};
    int vals[100];
    char key[16];
    for (int i = 0; i < 100; i++) {
        vals[i] = i;
        snprintf(key, sizeof key, "%d", i);
        assert_int_equal(map_put(&m, key, &vals[i], NULL), 0);
    }
    struct tally t = {0};
    map_each(&m, add_up, &t);
    assert_int_equal(t.n, 100);
    assert_int_equal(t.sum, 99 * 100 / 2);
    map_clear(&m, NULL);
    t.n = 0;
    map_each(&m, add_up, &t);
    assert_int_equal(t.n, 0);
}

static void test_clear_and_reuse(void **state)
{
    (void)state;
    struct map m = {0};
    char key[32];
    for (unsigned i = 0; i < 500; i++) {
        snprintf(key, sizeof key, "k%u", i);
        assert_int_equal(map_set_str(&m, key, "old"), 0);
    }
    map_clear(&m, free);
    assert_int_equal(map_count(&m), 0);
    assert_int_equal(m.nslots, 0);
    assert_null(m.slots);
    assert_null(map_get(&m, "k1"));
    assert_int_equal(map_set_str(&m, "k1", "new"), 0);
    assert_string_equal(map_get(&m, "k1"), "new");
    assert_null(map_get(&m, "k2"));
    assert_int_equal(map_count(&m), 1);
    map_clear(&m, free);
    map_clear(&m, free); /* clearing twice is harmless */
    assert_null(map_get(&m, "k1"));
}

static void test_no_memory_leaves_it_intact(void **state)
{
    (void)state;
    struct map m = {0};
    char key[32];
    /* fill the first table to its load limit, so the next new key must grow it */
    for (unsigned i = 0; i < 32; i++) {
        snprintf(key, sizeof key, "k%u", i);
        assert_int_equal(map_set_str(&m, key, "v"), 0);
    }
    size_t slots = m.nslots;
    /* every step of an insert may fail: the value copy, the entry, the key, the table */
    for (long budget = 0; budget < 4; budget++) {
        alloc_fail_after(budget);
        int rc = map_set_str(&m, "new", "value");
        alloc_fail_off();
        assert_int_equal(rc, -1);
        assert_null(map_get(&m, "new"));
        assert_int_equal(map_count(&m), 32);
        assert_int_equal(m.nslots, slots);
    }
    for (unsigned i = 0; i < 32; i++) {
        snprintf(key, sizeof key, "k%u", i);
        assert_string_equal(map_get(&m, key), "v");
    }
    /* a replacement needs no entry and no table: with one allocation (the copy) it works */
    alloc_fail_after(1);
    int rc = map_set_str(&m, "k3", "w");
    alloc_fail_off();
    assert_int_equal(rc, 0);
    assert_string_equal(map_get(&m, "k3"), "w");
    /* and with none it fails, keeping the old value */
    alloc_fail_after(0);
    rc = map_set_str(&m, "k3", "x");
    alloc_fail_off();
    assert_int_equal(rc, -1);
    assert_string_equal(map_get(&m, "k3"), "w");
    assert_int_equal(map_set_str(&m, "new", "value"), 0);
    assert_int_equal(map_count(&m), 33);
    map_clear(&m, free);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_map),
        cmocka_unit_test(test_put_get_replace_del),
        cmocka_unit_test(test_string_values),
        cmocka_unit_test(test_growth),
        cmocka_unit_test(test_each),
        cmocka_unit_test(test_clear_and_reuse),
        cmocka_unit_test(test_no_memory_leaves_it_intact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
