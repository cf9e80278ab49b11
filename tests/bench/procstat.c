/*
 * procstat.c - the CPU time and RSS of a process, from /proc, and pinning.
 */
#define _GNU_SOURCE /* sched_setaffinity */
#include <dirent.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "procstat.h"

double proc_cpu_seconds(pid_t pid)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
    DIR *tasks = opendir(path);
    if (tasks) {
        unsigned long long ns = 0, t;
        bool any = false;
        struct dirent *e;
        while ((e = readdir(tasks)) != NULL) {
            char stat[320];
            if (e->d_name[0] == '.')
                continue;
            snprintf(stat, sizeof(stat), "/proc/%d/task/%s/schedstat", (int)pid, e->d_name);
            FILE *f = fopen(stat, "r");
            if (f && fscanf(f, "%llu", &t) == 1) {
                ns += t;
                any = true;
            }
            if (f)
                fclose(f);
        }
        closedir(tasks);
        if (any)
            return (double)ns / 1e9;
    }
    return proc_cpu_total_seconds(pid);
}

double proc_cpu_total_seconds(pid_t pid)
{
    double user, sys;
    return proc_cpu_split(pid, &user, &sys) == 0 ? user + sys : -1;
}

int proc_cpu_split(pid_t pid, double *user, double *sys)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    unsigned long ut, st;
    /* after ") ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
     */
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    *user = (double)ut / (double)sysconf(_SC_CLK_TCK);
    *sys = (double)st / (double)sysconf(_SC_CLK_TCK);
    return 0;
}

long proc_rss_kb(pid_t pid)
{
    char path[64], line[256];
    long kb = -1;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

void proc_pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof(set), &set);
}

void proc_pin_away(int cpu)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) != 0)
        return;
    CPU_CLR(cpu, &set);
    if (CPU_COUNT(&set) > 0)
        sched_setaffinity(0, sizeof(set), &set);
}
