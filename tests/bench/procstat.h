/*
 * procstat.h - what the benchmarks read of a process from /proc, and the
 * CPUs they run it on.
 */
#ifndef BENCH_PROCSTAT_H
#define BENCH_PROCSTAT_H

#include <sys/types.h>

/*
 * The CPU time of pid in seconds, or -1: the time on a CPU in ns (the first
 * field of /proc/<pid>/task/<tid>/schedstat) summed over its threads, exact
 * where utime + stime come in clock ticks (10 ms), too coarse for a few µs per
 * message. A thread that ends takes its time out of the sum; the bots' threads
 * live as long as the bots. Without schedstat (a kernel without
 * CONFIG_SCHED_INFO), utime + stime from /proc/<pid>/stat.
 */
double proc_cpu_seconds(pid_t pid);

/* The CPU time of pid in seconds, its threads that ended included, or -1:
 * utime + stime from /proc/<pid>/stat, in clock ticks (10 ms). */
double proc_cpu_total_seconds(pid_t pid);

/* The same, split into user and system time (*user, *sys, in seconds).
 * Returns 0, or -1 when /proc cannot be read. */
int proc_cpu_split(pid_t pid, double *user, double *sys);

/* VmRSS of pid in kB, or -1. */
long proc_rss_kb(pid_t pid);

/* Pins the calling thread (and what it starts after) to CPU cpu. */
void proc_pin(int cpu);

/* Takes CPU cpu from the calling thread's set, and from every thread and
 * child it starts after (a child may pin itself back to it); unchanged when
 * cpu is its only one. */
void proc_pin_away(int cpu);

#endif
