/*
 * test_json_get.c - the typed JSON getters: each type read back, and every
 * way a value can be absent (NULL container, a container of another type, a
 * missing member, a member of another type, JSON null, an index past the end)
 * gives "absent", never a crash or a json-c assertion.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "core/json.h"

static const char doc[] = "{\"s\": \"text\", \"i\": -9007199254740993, \"d\": 2.5, \"t\": true,"
                          " \"f\": false, \"n\": null, \"o\": {\"k\": \"v\"},"
                          " \"a\": [\"x\", 1, null, {\"k\": 2}], \"e\": \"\"}";

static struct json_object *load(void)
{
    struct json_object *o = json_tokener_parse(doc);
    assert_non_null(o);
    return o;
}

static void test_each_type(void **state)
{
    (void)state;
    struct json_object *o = load();
    assert_string_equal(jget_str(o, "s"), "text");
    assert_string_equal(jget_str(o, "e"), "");
    int64_t i = 0;
    assert_int_equal(jget_int64(o, "i", &i), 0);
    assert_true(i == -9007199254740993LL);
    assert_true(jget_int64_or(o, "i", 5) == -9007199254740993LL);
    double d = 0;
    assert_int_equal(jget_double(o, "d", &d), 0);
    assert_true(d == 2.5);
    assert_int_equal(jget_double(o, "i", &d), 0); /* an integer is a number too */
    bool b = false;
    assert_int_equal(jget_bool(o, "t", &b), 0);
    assert_true(b);
    assert_int_equal(jget_bool(o, "f", &b), 0);
    assert_false(b);
    assert_true(jget_true(o, "t"));
    assert_false(jget_true(o, "f"));
    struct json_object *inner = jget_obj(o, "o");
    assert_non_null(inner);
    assert_string_equal(jget_str(inner, "k"), "v");
    assert_ptr_equal(jobj(inner), inner);
    struct json_object *a = jget_arr(o, "a");
    assert_int_equal(jarr_len(a), 4);
    assert_string_equal(jarr_str(a, 0), "x");
    assert_non_null(jarr_at(a, 1));
    assert_null(jarr_at(a, 2)); /* JSON null */
    assert_int_equal(jget_int64_or(jarr_at(a, 3), "k", 0), 2);
    assert_ptr_equal(jget(o, "o"), inner);
    assert_ptr_equal(jget_type(o, "a", json_type_array), a);
    json_object_put(o);
}

static void test_wrong_types_are_absent(void **state)
{
    (void)state;
    struct json_object *o = load();
    const char *members[] = {"s", "i", "d", "t", "n", "o", "a", "missing"};
    for (size_t k = 0; k < sizeof members / sizeof *members; k++) {
        const char *key = members[k];
        int64_t i = 42;
        double d = 4.2;
        bool b = true;
        if (strcmp(key, "s") != 0)
            assert_null(jget_str(o, key));
        if (strcmp(key, "o") != 0)
            assert_null(jget_obj(o, key));
        if (strcmp(key, "a") != 0)
            assert_null(jget_arr(o, key));
        if (strcmp(key, "i") != 0) {
            assert_int_equal(jget_int64(o, key, &i), -1);
            assert_int_equal(i, 42); /* untouched */
            assert_int_equal(jget_int64_or(o, key, 7), 7);
        }
        if (strcmp(key, "i") != 0 && strcmp(key, "d") != 0) {
            assert_int_equal(jget_double(o, key, &d), -1);
            assert_true(d == 4.2);
        }
        if (strcmp(key, "t") != 0) {
            assert_int_equal(jget_bool(o, key, &b), -1);
            assert_true(b);
            assert_false(jget_true(o, key));
        }
    }
    /* null and missing members are absent even for jget */
    assert_null(jget(o, "n"));
    assert_null(jget(o, "missing"));
    /* a string "true" or a number 1 is not a boolean; a double is not an integer */
    struct json_object *odd = json_tokener_parse("{\"t\": \"true\", \"one\": 1, \"d\": 3.0}");
    assert_false(jget_true(odd, "t"));
    assert_false(jget_true(odd, "one"));
    int64_t i = 0;
    assert_int_equal(jget_int64(odd, "d", &i), -1);
    json_object_put(odd);
    json_object_put(o);
}

static void test_containers_of_another_type(void **state)
{
    (void)state;
    struct json_object *o = load();
    struct json_object *not_objects[] = {NULL, jget(o, "s"), jget(o, "i"), jget(o, "t"),
                                         jget(o, "a")};
    for (size_t k = 0; k < sizeof not_objects / sizeof *not_objects; k++) {
        struct json_object *c = not_objects[k];
        int64_t i;
        double d;
        bool b;
        assert_null(jget(c, "k"));
        assert_null(jget_str(c, "k"));
        assert_null(jget_obj(c, "k"));
        assert_null(jget_arr(c, "k"));
        assert_null(jget_type(c, "k", json_type_string));
        assert_int_equal(jget_int64(c, "k", &i), -1);
        assert_int_equal(jget_int64_or(c, "k", -3), -3);
        assert_int_equal(jget_double(c, "k", &d), -1);
        assert_int_equal(jget_bool(c, "k", &b), -1);
        assert_false(jget_true(c, "k"));
        assert_null(jobj(c));
    }
    struct json_object *not_arrays[] = {NULL, o, jget(o, "s"), jget(o, "i"), jget(o, "o")};
    for (size_t k = 0; k < sizeof not_arrays / sizeof *not_arrays; k++) {
        assert_int_equal(jarr_len(not_arrays[k]), 0);
        assert_null(jarr_at(not_arrays[k], 0));
        assert_null(jarr_str(not_arrays[k], 0));
    }
    struct json_object *a = jget_arr(o, "a");
    assert_null(jarr_at(a, 4));
    assert_null(jarr_at(a, SIZE_MAX));
    assert_null(jarr_str(a, 1)); /* an integer element */
    assert_null(jarr_str(a, 3)); /* an object element */
    json_object_put(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_type),
        cmocka_unit_test(test_wrong_types_are_absent),
        cmocka_unit_test(test_containers_of_another_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
