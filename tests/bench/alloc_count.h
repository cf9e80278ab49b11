/*
 * alloc_count.h - how many heap allocations a stretch of code makes.
 */
#ifndef TESTS_BENCH_ALLOC_COUNT_H
#define TESTS_BENCH_ALLOC_COUNT_H

/* Call once before anything else. */
void alloc_count_init(void);

/* Starts counting from zero. */
void alloc_count_start(void);

/* Stops counting and returns the allocations since alloc_count_start(). */
unsigned long long alloc_count_stop(void);

#endif
