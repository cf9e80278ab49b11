/*
 * daemon.c - the real daemon as a child process (see daemon.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "child.h"
#include "daemon.h"

static void msleep(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

void daemon_setup(struct daemon *d, const char *path, struct fd_server *srv, const char *game)
{
    daemon_setup_with(d, path, srv, game, NULL);
}

void daemon_setup_with(struct daemon *d, const char *path, struct fd_server *srv, const char *game,
                       const char *discord)
{
    memset(d, 0, sizeof(*d));
    d->path = path;
    snprintf(d->dir, sizeof(d->dir), "/tmp/illegald-dc-XXXXXX");
    if (!mkdtemp(d->dir)) {
        perror("mkdtemp");
        abort();
    }
    snprintf(d->conf, sizeof(d->conf), "%s/illegald.conf", d->dir);
    snprintf(d->log, sizeof(d->log), "%s/illegald.log", d->dir);
    FILE *f = fopen(d->conf, "w");
    if (!f) {
        perror(d->conf);
        abort();
    }
    fprintf(f,
            "[store]\npath = %s/illegald.db\n"
            "[log]\nlevel = info\n"
            "[game]\n%s"
            "[discord]\ntoken = test-token\napplication_id = %s\n"
            "api_url = http://127.0.0.1:%d/api/v10\ngateway_url = ws://127.0.0.1:%d\n"
            "guilds = %s\ncompression = %s\n%s",
            d->dir, game ? game : "", FD_APP_ID, fd_port(srv), fd_port(srv), FD_GUILD_ID,
            fd_seed(srv) & 1 ? "on" : "off", discord ? discord : "");
    fclose(f);
}

void daemon_start(struct daemon *d, const char *seed)
{
    daemon_start_with(d, seed, NULL);
}

void daemon_start_with(struct daemon *d, const char *seed, const char *option)
{
    pid_t test = getpid();
    d->pid = fork();
    if (d->pid < 0) {
        perror("fork");
        abort();
    }
    if (d->pid == 0) {
        child_dies_with_parent(test); /* no daemon outlives a test killed on its timeout */
        if (!freopen(d->log, "a", stderr))
            _exit(126);
        const char *argv[] = {d->path, "--config", d->conf, NULL, NULL, NULL, NULL};
        size_t n = 3;
        if (seed) {
            argv[n++] = "--seed";
            argv[n++] = seed;
        }
        argv[n] = option;
        execv(d->path, (char *const *)argv);
        _exit(127);
    }
}

int daemon_stop(struct daemon *d, int sig, int timeout_ms)
{
    if (d->pid <= 0)
        return -1;
    kill(d->pid, sig);
    int status = 0;
    for (int waited = 0;; waited += 10) {
        if (waitpid(d->pid, &status, WNOHANG) == d->pid)
            break;
        if (waited > timeout_ms) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &status, 0);
            break;
        }
        msleep(10);
    }
    d->pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

long daemon_peak_rss_kb(const struct daemon *d)
{
    char path[64], line[256];
    long kb = -1;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)d->pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
            break;
    fclose(f);
    return kb;
}

void daemon_dump_log(const struct daemon *d)
{
    FILE *f = fopen(d->log, "r");
    char line[512];
    if (!f)
        return;
    while (fgets(line, sizeof(line), f))
        fputs(line, stderr);
    fclose(f);
}

long daemon_log_size(const struct daemon *d)
{
    struct stat st;
    return stat(d->log, &st) == 0 ? (long)st.st_size : 0;
}

bool daemon_log_has(const struct daemon *d, long from, const char *text)
{
    FILE *f = fopen(d->log, "r");
    char line[512];
    bool found = false;
    if (!f)
        return false;
    if (fseek(f, from, SEEK_SET) == 0)
        while (!found && fgets(line, sizeof(line), f))
            found = strstr(line, text) != NULL;
    fclose(f);
    return found;
}

void daemon_cleanup(struct daemon *d)
{
    if (d->pid > 0)
        daemon_stop(d, SIGTERM, 10000);
    if (!d->dir[0])
        return;
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", d->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", d->dir);
    d->dir[0] = '\0';
}
