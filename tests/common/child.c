/*
 * child.c - processes a test starts end with the test (see child.h).
 */
#include <signal.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "child.h"

void child_dies_with_parent(pid_t parent)
{
#ifdef __linux__
    /* the test may have died between fork() and prctl(): then nobody would signal us */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(126);
#else
    (void)parent;
#endif
}
