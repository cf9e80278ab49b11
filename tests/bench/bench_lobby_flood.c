/*
 * bench_lobby_flood.c - many users each opening a lobby, then the lobbies'
 * expiry, in one daemon.
 *
 *     bench_lobby_flood ILLEGALD [USERS [SERVERS]]
 *
 * USERS users (default 20,000), spread over SERVERS servers (default 100),
 * each type "!illegal new" at a table of their own, on the console platform
 * in virtual time. The daemon's resident memory (VmRSS, and VmHWM, its peak)
 * is read after the lobbies open and again after the clock has run past their
 * expiry; the store's rows and size are read once the daemon has stopped.
 * Give it a Release build: a sanitized daemon's memory says little.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

struct daemon {
    pid_t pid;
    FILE *in, *out;
    unsigned pings;
    unsigned long lobbies, refusals; /* lines seen: lobby messages, notices */
};

static void start(struct daemon *d, const char *bin, const char *store)
{
    int to[2], from[2];
    if (pipe(to) < 0 || pipe(from) < 0)
        exit(2);
    d->pid = fork();
    if (d->pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[1]);
        close(from[0]);
        unsetenv("ILLEGALD_STORE_PATH");
        if (!freopen("/dev/null", "w", stderr))
            _exit(126);
        execl(bin, "illegald", "--console", "--virtual-time", "--seed", "33", "--store", store,
              (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    d->in = fdopen(to[1], "w");
    d->out = fdopen(from[0], "r");
}

/* Waits until every line sent so far is handled, counting what came back. */
static void sync_daemon(struct daemon *d)
{
    char want[64], line[8192];
    snprintf(want, sizeof want, "\"id\":\"p%u\"", ++d->pings);
    fprintf(d->in, "{\"type\":\"ping\",\"id\":\"p%u\"}\n", d->pings);
    fflush(d->in);
    while (fgets(line, sizeof line, d->out)) {
        if (strstr(line, "\"pong\"") && strstr(line, want))
            return;
        d->lobbies += strstr(line, "\"kind\":\"lobby\"") && strstr(line, "\"send\"") != NULL;
        d->refusals += strstr(line, "\"kind\":\"notice\"") && strstr(line, "\"send\"") &&
                       !strstr(line, "closes if its lobby");
    }
    fprintf(stderr, "bench_lobby_flood: the daemon stopped answering\n");
    exit(1);
}

/* VmRSS and VmHWM of pid, in kB. */
static void memory_of(pid_t pid, long *rss, long *hwm)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    *rss = *hwm = -1;
    while (f && fgets(line, sizeof line, f)) {
        sscanf(line, "VmRSS: %ld", rss);
        sscanf(line, "VmHWM: %ld", hwm);
    }
    if (f)
        fclose(f);
}

static long long count(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

static long file_kb(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (long)(sb.st_size / 1024) : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_lobby_flood ILLEGALD [USERS [SERVERS]]\n");
        return 2;
    }
    unsigned users = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 20000;
    unsigned servers = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 100;
    char dir[] = "/tmp/illegald-flood-XXXXXX", store[64], wal[80], lock[80], shm[80];
    struct daemon d = {0};
    long rss, hwm;
    int status;
    if (!users || !servers || !mkdtemp(dir))
        return 2;
    snprintf(store, sizeof store, "%s/store.db", dir);
    start(&d, argv[1], store);
    sync_daemon(&d);
    memory_of(d.pid, &rss, &hwm);
    printf("idle: VmRSS %ld kB\n", rss);
    for (unsigned i = 0; i < users; i++) {
        fprintf(d.in,
                "{\"type\":\"message\",\"channel\":\"t%u\",\"user\":\"u%u\",\"server\":\"s%u\","
                "\"text\":\"!illegal new\"}\n",
                i, i, i % servers);
        if (i % 500 == 499)
            sync_daemon(&d);
    }
    sync_daemon(&d);
    memory_of(d.pid, &rss, &hwm);
    printf("%u users on %u servers: %lu lobbies open, %lu refused; VmRSS %ld kB, peak %ld kB\n",
           users, servers, d.lobbies, d.refusals, rss, hwm);
    /* Past every lobby's idle time ([game] lobby_idle_seconds, 1 h by default). */
    fprintf(d.in, "{\"type\":\"advance\",\"seconds\":7200}\n");
    sync_daemon(&d);
    memory_of(d.pid, &rss, &hwm);
    printf("after their expiry: VmRSS %ld kB, peak %ld kB\n", rss, hwm);
    fclose(d.in);
    while (fgetc(d.out) != EOF)
        ;
    fclose(d.out);
    waitpid(d.pid, &status, 0);
    sqlite3 *db = NULL;
    snprintf(wal, sizeof wal, "%s-wal", store);
    if (sqlite3_open_v2(store, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
        printf("store: %lld game rows (%lld finished), %ld kB (+ %ld kB of WAL)\n",
               count(db, "SELECT COUNT(*) FROM games"),
               count(db, "SELECT COUNT(*) FROM games WHERE finished = 1"), file_kb(store),
               file_kb(wal));
    sqlite3_close(db);
    snprintf(lock, sizeof lock, "%s-lock", store);
    snprintf(shm, sizeof shm, "%s-shm", store);
    unlink(store);
    unlink(wal);
    unlink(shm);
    unlink(lock);
    rmdir(dir);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
