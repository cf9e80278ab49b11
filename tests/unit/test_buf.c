/*
 * test_buf.c - the capped buffer: appends up to the cap and not one byte
 * past it, a failed append (cap or no memory) leaves the buffer as it was,
 * printf, reset, take and reuse.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "bot/util/buf.h"

#include "alloc_fail.h"

static void test_empty(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 16);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.max, 16);
    /* appending nothing gives an empty string, not NULL */
    assert_int_equal(buf_append(&b, "", 0), 0);
    assert_non_null(b.data);
    assert_string_equal(b.data, "");
    buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.max, 16);
}

static void test_append_to_the_cap(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 10);
    assert_int_equal(buf_puts(&b, "hello"), 0);
    assert_int_equal(buf_append(&b, " wo", 3), 0);
    assert_string_equal(b.data, "hello wo");
    /* "rld" would make 11 bytes: refused whole, the buffer unchanged */
    assert_int_equal(buf_puts(&b, "rld"), -1);
    assert_int_equal(b.len, 8);
    assert_string_equal(b.data, "hello wo");
    /* exactly up to the cap is allowed */
    assert_int_equal(buf_puts(&b, "rl"), 0);
    assert_int_equal(b.len, 10);
    assert_string_equal(b.data, "hello worl");
    assert_true(b.cap <= b.max + 1);
    assert_int_equal(buf_append(&b, "d", 1), -1);
    assert_int_equal(buf_append(&b, "", 0), 0);
    assert_string_equal(b.data, "hello worl");
    buf_free(&b);
}

static void test_huge_sizes_refused(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, SIZE_MAX - 1);
    assert_int_equal(buf_puts(&b, "abc"), 0);
    /* len + n would wrap around: refused, not an overflowed allocation */
    assert_int_equal(buf_append(&b, "x", SIZE_MAX - 2), -1);
    assert_int_equal(buf_append(&b, "x", SIZE_MAX), -1);
    assert_string_equal(b.data, "abc");
    buf_free(&b);

    buf_init(&b, 0);
    assert_int_equal(buf_append(&b, "", 0), 0);
    assert_int_equal(buf_puts(&b, "a"), -1);
    assert_string_equal(b.data, "");
    buf_free(&b);
}

static void test_binary_and_growth(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 1 << 20);
    char chunk[300];
    for (size_t i = 0; i < sizeof chunk; i++)
        chunk[i] = (char)(i % 7 == 0 ? '\0' : 'a' + i % 26);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(buf_append(&b, chunk, sizeof chunk), 0);
    assert_int_equal(b.len, 300000);
    assert_int_equal(b.data[b.len], '\0');
    for (int i = 0; i < 1000; i++)
        assert_memory_equal(b.data + (size_t)i * sizeof chunk, chunk, sizeof chunk);
    /* the next 300 KB pass the 1 MiB cap in the middle: all or nothing */
    for (int i = 0; i < 2500; i++)
        if (buf_append(&b, chunk, sizeof chunk) < 0)
            break;
    assert_true(b.len <= b.max);
    assert_int_equal(b.len % sizeof chunk, 0);
    assert_true(b.len + sizeof chunk > b.max);
    buf_free(&b);
}

static void test_printf(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 20);
    assert_int_equal(buf_printf(&b, "%s=%d", "seats", 4), 0);
    assert_int_equal(buf_printf(&b, "; %s", "ok"), 0);
    assert_string_equal(b.data, "seats=4; ok");
    /* 12 more bytes would pass 20: refused, even though part of it would fit */
    assert_int_equal(buf_printf(&b, " %010d", 7), -1);
    assert_string_equal(b.data, "seats=4; ok");
    assert_int_equal(b.len, 11);
    assert_int_equal(buf_printf(&b, "%s", ""), 0);
    assert_int_equal(buf_printf(&b, "%09d", 12), 0);
    assert_string_equal(b.data, "seats=4; ok000000012");
    assert_int_equal(b.len, 20);
    buf_free(&b);
}

static void test_reset_and_take(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 64);
    assert_null(buf_take(&b));
    assert_int_equal(buf_puts(&b, "first"), 0);
    size_t cap = b.cap;
    buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    assert_int_equal(b.cap, cap);
    assert_int_equal(buf_puts(&b, "second"), 0);
    char *s = buf_take(&b);
    assert_string_equal(s, "second");
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    assert_int_equal(b.max, 64);
    free(s);
    /* reusable after take */
    assert_int_equal(buf_puts(&b, "third"), 0);
    assert_string_equal(b.data, "third");
    buf_free(&b);
    buf_reset(&b); /* harmless on a freed buffer */
    assert_null(b.data);
}

static void test_no_memory_leaves_it_intact(void **state)
{
    (void)state;
    struct buf b;
    buf_init(&b, 1 << 16);
    alloc_fail_after(0);
    assert_int_equal(buf_puts(&b, "x"), -1);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
    alloc_fail_off();

    assert_int_equal(buf_puts(&b, "kept"), 0);
    char big[200];
    memset(big, 'z', sizeof big);
    alloc_fail_after(0);
    assert_int_equal(buf_append(&b, big, sizeof big), -1);
    assert_int_equal(buf_printf(&b, "%200s", "y"), -1);
    alloc_fail_off();
    assert_int_equal(b.len, 4);
    assert_string_equal(b.data, "kept");
    /* a small append that needs no new memory still works while none is to be had */
    alloc_fail_after(0);
    assert_int_equal(buf_puts(&b, "!"), 0);
    alloc_fail_off();
    assert_string_equal(b.data, "kept!");
    buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_append_to_the_cap),
        cmocka_unit_test(test_huge_sizes_refused),
        cmocka_unit_test(test_binary_and_growth),
        cmocka_unit_test(test_printf),
        cmocka_unit_test(test_reset_and_take),
        cmocka_unit_test(test_no_memory_leaves_it_intact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
