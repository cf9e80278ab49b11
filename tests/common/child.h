/*
 * child.h - processes a test starts (the daemon) end with the test, however
 * the test ends.
 */
#ifndef TESTS_CHILD_H
#define TESTS_CHILD_H

#include <sys/types.h>

/* Called in a child between fork() and exec(), with the test's pid from
 * before the fork: the child gets SIGKILL when the test's thread that forked
 * it ends, also when the test is killed where no teardown runs (ctest's
 * timeout sends SIGKILL to the test alone). Exits the child at once (126)
 * when the test is already gone. Linux only (prctl); elsewhere it does
 * nothing. */
void child_dies_with_parent(pid_t parent);

#endif
