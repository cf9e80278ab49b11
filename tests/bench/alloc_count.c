/*
 * alloc_count.c - counts heap allocations made by the whole process, shared
 * libraries (json-c) included, while counting is switched on.
 *
 * Under AddressSanitizer its allocator hooks do the counting; otherwise the
 * program provides malloc, calloc and realloc itself and hands them on to
 * glibc's own entry points.
 */
#include <stddef.h>

#include "alloc_count.h"

static volatile int counting;
static volatile unsigned long long counted;

static void note(void)
{
    if (counting)
        counted++;
}

#ifdef __SANITIZE_ADDRESS__
/* From the sanitizer runtime (sanitizer/allocator_interface.h, which not
 * every compiler installs). */
int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void *, size_t),
                                              void (*free_hook)(const volatile void *));

static void on_malloc(const volatile void *p, size_t size)
{
    (void)p;
    (void)size;
    note();
}

static void on_free(const volatile void *p)
{
    (void)p;
}

void alloc_count_init(void)
{
    __sanitizer_install_malloc_and_free_hooks(on_malloc, on_free);
}
#else
#include <stdlib.h>

void *__libc_malloc(size_t size);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t size);

void *malloc(size_t size)
{
    note();
    return __libc_malloc(size);
}

void *calloc(size_t n, size_t size)
{
    note();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t size)
{
    note();
    return __libc_realloc(p, size);
}

void alloc_count_init(void)
{
}
#endif

void alloc_count_start(void)
{
    counted = 0;
    counting = 1;
}

unsigned long long alloc_count_stop(void)
{
    counting = 0;
    return counted;
}
