/*
 * test_ratelimit_alloc.c - the REST rate limiter's global window when its
 * ring cannot grow: the allocator fails on demand (tests/unit/alloc_fail.h),
 * and an answer still in the window must hold back what is bound to the
 * global limit until it would have left it, never be forgotten.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>

#include "adapters/discord/ratelimit.h"
#include "tests/unit/alloc_fail.h"

#define ROUTE "GET /x"
#define T0    1000000u /* ms */

/* One request bound to the global limit, let go and answered at now. */
static void answered(struct rl *rl, uint64_t now)
{
    struct rl_headers h;
    rl_headers_init(&h);
    assert_int_equal(rl_acquire(rl, ROUTE, "", false, now), 0);
    rl_release(rl, ROUTE, "", false, 200, &h, -1, false, now);
}

/* No ring at all: the first answer holds the global limit for a window. */
static void test_no_ring(void **state)
{
    (void)state;
    struct rl rl;
    struct rl_headers h;
    rl_headers_init(&h);
    assert_int_equal(rl_init(&rl, 50, 1000), 0);
    assert_int_equal(rl_acquire(&rl, ROUTE, "", false, T0), 0); /* its bucket made */
    alloc_fail_after(0);
    rl_release(&rl, ROUTE, "", false, 200, &h, -1, false, T0);
    alloc_fail_off();
    assert_int_equal(rl_acquire(&rl, ROUTE, "", false, T0 + 10), 1000);
    /* requests not bound to the global limit go */
    assert_int_equal(
        rl_acquire(&rl, "POST /interactions/:id/:token/callback", "interactions/1", true, T0 + 10),
        0);
    assert_int_equal(rl_acquire(&rl, ROUTE, "", false, T0 + 1010), 0);
    rl_free(&rl);
}

/* A full ring that cannot double: the answer it overwrites, still in the
 * window, holds the global limit until it leaves it. */
static void test_ring_cannot_grow(void **state)
{
    (void)state;
    struct rl rl;
    assert_int_equal(rl_init(&rl, 50, 1000), 0);
    for (unsigned i = 0; i < 16; i++) /* the ring's first size */
        answered(&rl, T0 + i);
    alloc_fail_after(0);
    answered(&rl, T0 + 100); /* overwrites the answer of T0 */
    alloc_fail_off();
    assert_int_equal(rl_acquire(&rl, ROUTE, "", false, T0 + 200), 810);
    /* once it has left, the ring grows again and nothing more is held */
    for (unsigned i = 0; i < 30; i++)
        answered(&rl, T0 + 1010 + i);
    rl_free(&rl);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_ring),
        cmocka_unit_test(test_ring_cannot_grow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
