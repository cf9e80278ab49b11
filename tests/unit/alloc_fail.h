/*
 * alloc_fail.h - makes the allocator of the code under test fail on demand.
 *
 * A test linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,
 * --wrap=strdup (see CMakeLists.txt) includes this once: every allocation of
 * the objects linked into it goes through these wrappers, which pass it on to
 * the real allocator until alloc_fail_after(n) has let n more through, then
 * fail every one until alloc_fail_off(). So the tests reach the real
 * out-of-memory paths of the library without a stub of the library itself.
 */
#ifndef TESTS_UNIT_ALLOC_FAIL_H
#define TESTS_UNIT_ALLOC_FAIL_H

#include <stddef.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);
char *__real_strdup(const char *s);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t k, size_t n);
void *__wrap_realloc(void *p, size_t n);
char *__wrap_strdup(const char *s);

static long alloc_budget = -1; /* allocations still allowed; -1: no limit */

static void alloc_fail_after(long n)
{
    alloc_budget = n;
}

static void alloc_fail_off(void)
{
    alloc_budget = -1;
}

static int alloc_refused(void)
{
    if (alloc_budget < 0)
        return 0;
    if (alloc_budget == 0)
        return 1;
    alloc_budget--;
    return 0;
}

void *__wrap_malloc(size_t n)
{
    return alloc_refused() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    return alloc_refused() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return alloc_refused() ? NULL : __real_realloc(p, n);
}

char *__wrap_strdup(const char *s)
{
    return alloc_refused() ? NULL : __real_strdup(s);
}

#endif
