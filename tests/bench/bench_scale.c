/*
 * bench_scale.c - what the number of live games costs: illegald through the
 * console platform (--virtual-time, a store on disk), once for each number of
 * games given, the same work measured at each size.
 *
 * For N games: N tables each get a lobby, four players and a start, one
 * virtual second apart, so that their deadlines fall one second apart; then
 * 50 more lobbies (setup). Every size is set up first and stays live; then the
 * measured parts run in ROUNDS rounds, each size in turn within a round, so
 * that the machine's load of the moment weighs on every size alike, and each
 * figure is the median of its rounds:
 *   - lobby actions: 2,000 joins and leaves in the 50 lobbies;
 *   - game actions: 2,000 offers and cancels by players of 50 of the games,
 *     in private (each a change of the game, stored and answered);
 *   - deadlines (after every round of actions): the clock moved over 125 s in
 *     which 125 games reach the end of their first dealing session (500 over
 *     the rounds); each such second also fires two table reminders, the end
 *     of a drop and another game's private reminder, at every size. The
 *     figure is the CPU of that advance divided by 125;
 *   - the setup's CPU, the RSS after it, and the store's size;
 *   - restart: the daemon stopped at the end of its input and started again
 *     on the same store RESTARTS times, the wall-clock time from spawn to its
 *     first answer and the CPU it took, not pinned (a start reads the stored
 *     games on every CPU it may use), and its RSS then (every game restored,
 *     none touched since); then RESTARTS times more with the games' images
 *     cleared (bot/image.h) before each, as an upgraded store's first start
 *     reads them: from their JSON records;
 *   - the refill (bot/refill.c): a start from the records once more, left
 *     running after its first answer until it logs that it wrote the images
 *     back, with the wall-clock time and CPU it says that took; then a
 *     restart, which must read every game from its image again.
 * CPU is the daemon's own (proc_cpu_seconds), read when the `pong` after each
 * part arrives. The daemons are pinned to the last CPU, this program to the
 * others. Sessions last 2N s: nothing falls due during the setup (the first
 * private reminder, at three quarters of game 0's session, comes at 1.5N s),
 * and in the measured seconds the private reminders due are those of games
 * N/2 to N/2 + 499, which exist at every size from 1,000 on. Absence warnings
 * are off and lobbies do not expire.
 *
 * usage: bench_scale ILLEGALD WORKDIR [GAMES ...]   (default: 1000 10000 100000)
 * Goals (issue "flat cost"): each CPU figure at the largest size within 1.2
 * times the figure at the smallest; setup of 100,000 games under 60 s of CPU;
 * restart with 100,000 games under 3 s. Printed, not asserted.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <sqlite3.h>
#include <unistd.h>

#include "procstat.h"

#define LOBBIES   50   /* tables whose lobbies take the lobby actions */
#define PLAYED    50   /* games whose players take the game actions */
#define ACTIONS   2000 /* lobby actions, and game actions */
#define DEADLINES 500  /* games whose session ends in the measured advances (ROUNDS divides it) */
#define STEP_S    100  /* the clock moves at most this far per line: one turn each */
#define MAX_SIZES 8
#define ROUNDS    4                      /* the measured parts, each size in turn */
#define RESTARTS  3                      /* starts on each size's store */
#define OFFERS    (ACTIONS / PLAYED / 2) /* offers each played game gets in a round */

struct size_figs {
    unsigned games;
    double setup_s, lobby_us, game_us, deadline_us, restart_s, restart_cpu_s;
    double records_s, records_cpu_s;   /* the restart from the records, the images cleared */
    double refill_s, refill_cpu_s;     /* the images written back after it (bot/refill.c) */
    double refilled_s, refilled_cpu_s; /* the restart after the refill */
    unsigned refill_batches;
    bool refilled_from_records; /* that restart read games from their records: a failure */
    double rss_mb, rss_restart_mb, store_kb;
    unsigned errors; /* error lines in the measured parts: the figures measured refusals */
};

/* One daemon on the console platform: its input and output. */
struct daemon {
    pid_t pid;
    int in;
    FILE *out;
};

/* What a part writes to the daemon, from a thread of its own while the main
 * thread reads the answers (either alone could fill a pipe and stall). */
struct part {
    unsigned games;
    void (*write)(FILE *f, const struct part *p);
    char dealer[PLAYED][32];   /* the resource each played game's first player deals */
    unsigned long long span_s; /* advance: how far the clock moves */
    unsigned round;            /* game actions: the measured round (offer ids go on) */
    int fd;
    const char *pong;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static unsigned session_s(unsigned games)
{
    return 2 * games;
}

/* Starts a daemon on store; its log goes to log_path at level info (NULL:
 * nowhere, warnings only). */
static int spawn(struct daemon *dm, const char *illegald, const char *store, unsigned games,
                 int cpu /* -1: not pinned */, const char *log_path)
{
    int in[2], out[2];
    /* close-on-exec: another size's daemon must not hold this one's input open */
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
        return -1;
    char session[32];
    snprintf(session, sizeof(session), "%u", session_s(games));
    dm->pid = fork();
    if (dm->pid == 0) {
        if (cpu >= 0)
            proc_pin(cpu);
        dup2(in[0], 0);
        dup2(out[1], 1);
        close(in[1]);
        close(out[0]);
        int err = log_path ? open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600)
                           : open("/dev/null", O_WRONLY);
        if (err >= 0)
            dup2(err, 2);
        setenv("ILLEGALD_GAME_SESSION_SECONDS", session, 1);
        setenv("ILLEGALD_GAME_ABSENT_SECONDS", "0", 1);
        setenv("ILLEGALD_GAME_LOBBY_IDLE_SECONDS", "604800", 1);
        setenv("ILLEGALD_LOG_LEVEL", log_path ? "info" : "warn", 1);
        execl(illegald, illegald, "--console", "--virtual-time", "--seed", "1", "--store", store,
              (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    if (dm->pid < 0)
        return -1;
    dm->in = in[1];
    dm->out = fdopen(out[0], "r");
    return dm->out ? 0 : -1;
}

/* Ends the daemon's input and waits for it to finish; 0 when it exits 0. */
static int finish(struct daemon *dm)
{
    int st = 0;
    close(dm->in);
    char buf[65536];
    while (fread(buf, 1, sizeof(buf), dm->out) > 0)
        ;
    fclose(dm->out);
    waitpid(dm->pid, &st, 0);
    dm->pid = 0;
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

static void *writer(void *arg)
{
    struct part *p = arg;
    FILE *f = fdopen(dup(p->fd), "w");
    if (!f)
        return NULL;
    p->write(f, p);
    fprintf(f, "{\"type\":\"ping\",\"id\":\"%s\"}\n", p->pong);
    fclose(f);
    return NULL;
}

static void say(FILE *f, const char *channel, const char *user, const char *text)
{
    fprintf(f, "{\"type\":\"message\",\"channel\":\"%s\",\"user\":\"%s\",\"text\":\"%s\"}\n",
            channel, user, text);
}

static void write_setup(FILE *f, const struct part *p)
{
    char table[32], user[32];
    for (unsigned i = 0; i < p->games; i++) {
        snprintf(table, sizeof(table), "t%u", i);
        snprintf(user, sizeof(user), "u%ua", i);
        say(f, table, user, "!illegal new");
        for (char seat = 'a'; seat <= 'd'; seat++) {
            snprintf(user, sizeof(user), "u%u%c", i, seat);
            say(f, table, user, "!illegal join");
        }
        snprintf(user, sizeof(user), "u%ua", i);
        say(f, table, user, "!illegal start");
        fprintf(f, "{\"type\":\"advance\",\"seconds\":1}\n");
    }
    for (unsigned t = 0; t < LOBBIES; t++) {
        snprintf(table, sizeof(table), "lobby%u", t);
        snprintf(user, sizeof(user), "host%u", t);
        say(f, table, user, "!illegal new");
    }
}

static void write_lobby(FILE *f, const struct part *p)
{
    (void)p;
    char table[32], user[32];
    for (unsigned i = 0; i < ACTIONS; i++) {
        snprintf(table, sizeof(table), "lobby%u", i % LOBBIES);
        snprintf(user, sizeof(user), "p%u", (i / 100) % 50);
        say(f, table, user, (i / LOBBIES) % 2 ? "!illegal leave" : "!illegal join");
    }
}

/* The game played: the first of each PLAYED-th. */
static unsigned played(unsigned games, unsigned j)
{
    return j * (games / PLAYED);
}

static void write_game(FILE *f, const struct part *p)
{
    char user[32], text[128];
    for (unsigned i = 0; i < ACTIONS; i++) {
        unsigned j = i % PLAYED, round = i / PLAYED, g = played(p->games, j);
        snprintf(user, sizeof(user), "u%ua", g);
        if (round % 2 == 0)
            snprintf(text, sizeof(text), "offer u%ub 1 %s for nothing", g, p->dealer[j]);
        else
            snprintf(text, sizeof(text), "cancel %u", p->round * OFFERS + round / 2 + 1);
        say(f, "dm", user, text);
    }
}

static void write_advance(FILE *f, const struct part *p)
{
    for (unsigned long long s = 0; s < p->span_s; s += STEP_S) {
        unsigned long long step = p->span_s - s < STEP_S ? p->span_s - s : STEP_S;
        fprintf(f, "{\"type\":\"advance\",\"seconds\":%llu}\n", step);
    }
}

/* Notes the dealer's resource of each played game's first player from the
 * hand the start sends them ("dealer":"secret-files" -> "secret"). */
static void note_hand(struct part *p, const char *line)
{
    const char *at = strstr(line, "\"channel\":\"dm:u"), *d;
    if (!at || !strstr(line, "\"kind\":\"hand\"") || !(d = strstr(line, "\"dealer\":\"")))
        return;
    char *end;
    unsigned long g = strtoul(at + 15, &end, 10);
    unsigned every = p->games / PLAYED;
    if (*end != 'a' || end[1] != '"' || g % every || g / every >= PLAYED)
        return;
    d += 10;
    size_t n = strcspn(d, "-\"");
    snprintf(p->dealer[g / every], sizeof(p->dealer[0]), "%.*s", (int)n, d);
}

/* Runs part p on the daemon: writes it, reads every answer until its pong.
 * Returns the error lines seen, or -1 when the daemon ended first. */
static int run_part(struct daemon *dm, struct part *p, const char *pong)
{
    char want[64];
    snprintf(want, sizeof(want), "\"type\":\"pong\",\"id\":\"%s\"", pong);
    p->fd = dm->in;
    p->pong = pong;
    pthread_t t;
    if (pthread_create(&t, NULL, writer, p) != 0)
        return -1;
    char *line = NULL;
    size_t cap = 0;
    int errors = 0;
    bool done = false;
    while (!done && getline(&line, &cap, dm->out) > 0) {
        if (strstr(line, want))
            done = true;
        else if (strstr(line, "\"kind\":\"error\"") || strstr(line, "{\"type\":\"error\""))
            errors++;
        else if (p->write == write_setup)
            note_hand(p, line);
    }
    free(line);
    pthread_join(t, NULL);
    return done ? errors : -1;
}

static double file_kb(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (double)st.st_size / 1024.0 : 0;
}

/* One size's daemon and what it was measured at. */
struct run {
    struct daemon dm;
    struct part p;
    char store[600];
    double lobby[ROUNDS], game[ROUNDS], deadline[ROUNDS], restart[RESTARTS], restart_cpu[RESTARTS];
    double records[RESTARTS], records_cpu[RESTARTS], rss_restart[RESTARTS];
};

/* CPU of the daemon in part p, per `per` (µs), or -1 when it failed. */
static double part_us(struct run *r, void (*write)(FILE *, const struct part *), const char *pong,
                      double per, unsigned *errors)
{
    double c0 = proc_cpu_seconds(r->dm.pid);
    r->p.write = write;
    int e = run_part(&r->dm, &r->p, pong);
    if (e < 0)
        return -1;
    *errors += (unsigned)e;
    return (proc_cpu_seconds(r->dm.pid) - c0) / per * 1e6;
}

static int setup(const char *illegald, const char *workdir, unsigned games, int cpu, struct run *r,
                 struct size_figs *out)
{
    snprintf(r->store, sizeof(r->store), "%s/scale-%u.db", workdir, games);
    const char *suffix[] = {"", "-wal", "-shm", "-lock"};
    for (size_t i = 0; i < sizeof(suffix) / sizeof(*suffix); i++) {
        char path[640];
        snprintf(path, sizeof(path), "%s%s", r->store, suffix[i]);
        unlink(path);
    }
    r->p.games = games;
    out->games = games;
    if (spawn(&r->dm, illegald, r->store, games, cpu, NULL) != 0)
        return -1;
    r->p.write = write_setup;
    if (run_part(&r->dm, &r->p, "setup") < 0)
        return -1;
    out->setup_s = proc_cpu_seconds(r->dm.pid);
    out->rss_mb = (double)proc_rss_kb(r->dm.pid) / 1024.0;
    for (unsigned j = 0; j < PLAYED; j++)
        if (!r->p.dealer[j][0]) {
            fprintf(stderr, "no hand seen for game %u\n", played(games, j));
            return -1;
        }
    /* Up to half a second before the first game's session ends (it started
     * at 0): the rounds' advances then see games 0 .. DEADLINES-1 reach it. */
    r->p.write = write_advance;
    r->p.span_s = session_s(games) - games - 1;
    return run_part(&r->dm, &r->p, "before") < 0 ? -1 : 0;
}

/* Round k of the lobby and game actions on one size. */
static int actions_round(struct run *r, unsigned k, struct size_figs *out)
{
    r->p.round = k;
    if ((r->lobby[k] = part_us(r, write_lobby, "lobby", ACTIONS, &out->errors)) < 0 ||
        (r->game[k] = part_us(r, write_game, "game", ACTIONS, &out->errors)) < 0)
        return -1;
    return 0;
}

/* Round k of the deadlines on one size: the clock moved over its share of
 * DEADLINES seconds (after every game action, so that the played games are
 * all still in their first session when they act). */
static int deadlines_round(struct run *r, unsigned k, struct size_figs *out)
{
    r->p.span_s = DEADLINES / ROUNDS;
    r->deadline[k] = part_us(r, write_advance, "deadlines", DEADLINES / ROUNDS, &out->errors);
    return r->deadline[k] < 0 ? -1 : 0;
}

/* Clears every game's image in the store at path. */
static int clear_images(const char *path)
{
    sqlite3 *db;
    int rc =
        sqlite3_open(path, &db) == SQLITE_OK &&
                sqlite3_exec(db, "UPDATE games SET image = NULL", NULL, NULL, NULL) == SQLITE_OK
            ? 0
            : -1;
    sqlite3_close(db);
    return rc;
}

/* Starts the daemon of r on its store (its log to log_path, NULL: none) and
 * waits for its first answer: the wall-clock time that took, its CPU and its
 * RSS then. The daemon is left running. */
static int start_answered(const char *illegald, struct run *r, const char *log_path, double *s,
                          double *cpu, double *rss_mb)
{
    double t0 = now_s();
    if (spawn(&r->dm, illegald, r->store, r->p.games, -1, log_path) != 0)
        return -1;
    struct part none = {.write = write_advance}; /* nothing but the ping */
    if (run_part(&r->dm, &none, "restart") < 0) {
        kill(r->dm.pid, SIGKILL);
        finish(&r->dm);
        return -1;
    }
    *s = now_s() - t0;
    *cpu = proc_cpu_total_seconds(r->dm.pid); /* its parsing threads have ended */
    *rss_mb = (double)proc_rss_kb(r->dm.pid) / 1024.0;
    return 0;
}

/* start_answered(), then the daemon stopped. */
static int start_once(const char *illegald, struct run *r, double *s, double *cpu, double *rss_mb)
{
    return start_answered(illegald, r, NULL, s, cpu, rss_mb) == 0 ? finish(&r->dm) : -1;
}

/* The first line of the log at path that has needle, into line (len
 * bytes); false when none has it. */
static bool log_line(const char *path, const char *needle, char *line, size_t len)
{
    FILE *f = fopen(path, "r");
    bool found = false;
    while (f && !found && fgets(line, (int)len, f))
        found = strstr(line, needle) != NULL;
    if (f)
        fclose(f);
    return found;
}

#define REFILL_DONE "images written for"

/* A start from the records, left running until its refill logs its end
 * (the daemon's own wall-clock time and CPU for it, and its batches); then
 * a start after it, whose log must not say that it read games from their
 * records. */
static int refill(const char *illegald, struct run *r, const char *workdir, struct size_figs *out)
{
    char path[640], line[512];
    snprintf(path, sizeof(path), "%s/refill-%u.log", workdir, out->games);
    double s, cpu, rss;
    if (clear_images(r->store) != 0 || start_answered(illegald, r, path, &s, &cpu, &rss) != 0)
        return -1;
    const struct timespec pause = {0, 10 * 1000 * 1000};
    while (!log_line(path, REFILL_DONE, line, sizeof(line)) && kill(r->dm.pid, 0) == 0)
        nanosleep(&pause, NULL);
    const char *at = strstr(line, ", in ");
    if (finish(&r->dm) != 0 || !at ||
        sscanf(at, ", in %lf s (%lf s of CPU, %u batches)", &out->refill_s, &out->refill_cpu_s,
               &out->refill_batches) != 3) {
        fprintf(stderr, "no end of the refill in %s\n", path);
        return -1;
    }
    if (start_answered(illegald, r, path, &out->refilled_s, &out->refilled_cpu_s, &rss) != 0 ||
        finish(&r->dm) != 0)
        return -1;
    out->refilled_from_records = log_line(path, "read from their records", line, sizeof(line));
    return 0;
}

/* Stops the daemon of r, then starts it again on its store RESTARTS times,
 * unpinned (a start reads the stored games on every CPU it may use), and
 * RESTARTS times more with the images cleared. */
static int restart(const char *illegald, struct run *r, struct size_figs *out)
{
    if (finish(&r->dm) != 0)
        return -1;
    char wal[640];
    snprintf(wal, sizeof(wal), "%s-wal", r->store);
    out->store_kb = (file_kb(r->store) + file_kb(wal)) / out->games;
    double rss;
    for (unsigned i = 0; i < RESTARTS; i++)
        if (start_once(illegald, r, &r->restart[i], &r->restart_cpu[i], &r->rss_restart[i]) != 0)
            return -1;
    /* cleared before each: the start before may have refilled some */
    for (unsigned i = 0; i < RESTARTS; i++)
        if (clear_images(r->store) != 0 ||
            start_once(illegald, r, &r->records[i], &r->records_cpu[i], &rss) != 0)
            return -1;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
    qsort(v, n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void ratio(char *out, size_t len, double small, double large)
{
    if (small > 0)
        snprintf(out, len, "%.2f", large / small);
    else
        snprintf(out, len, "–");
}

static void print_row(const char *name, const struct size_figs *f, unsigned n, size_t off,
                      const char *fmt, const char *goal, bool with_ratio)
{
    printf("| %-38s |", name);
    for (unsigned i = 0; i < n; i++) {
        char v[32];
        snprintf(v, sizeof(v), fmt, *(const double *)((const char *)&f[i] + off));
        printf(" %12s |", v);
    }
    char r[16] = "–";
    if (with_ratio && n > 1)
        ratio(r, sizeof(r), *(const double *)((const char *)&f[0] + off),
              *(const double *)((const char *)&f[n - 1] + off));
    printf(" %8s | %-22s |\n", r, goal);
}

/* The sizes to run, from the command line or the defaults: their count, or
 * 0 when one is out of range. */
static unsigned read_sizes(int argc, char **argv, unsigned sizes[MAX_SIZES])
{
    static const unsigned defaults[] = {1000, 10000, 100000};
    unsigned n = 0;
    if (argc > 3)
        for (int i = 3; i < argc && n < MAX_SIZES; i++)
            sizes[n++] = (unsigned)strtoul(argv[i], NULL, 10);
    else
        for (; n < sizeof defaults / sizeof *defaults; n++)
            sizes[n] = defaults[n];
    for (unsigned i = 0; i < n; i++)
        if (sizes[i] < 2 * DEADLINES || session_s(sizes[i]) > 604800) {
            fprintf(stderr, "each size must be from %u to 302,400 games\n", 2 * DEADLINES);
            return 0;
        }
    return n;
}

/* Restarts each size's daemon, then takes and prints its medians. Returns
 * 0, or -1 when a restart failed. */
static int restart_and_summarize(const char *illegald, const char *workdir, struct run *runs,
                                 struct size_figs *figs, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        struct size_figs *f = &figs[i];
        struct run *r = &runs[i];
        if (restart(illegald, r, f) != 0 || refill(illegald, r, workdir, f) != 0) {
            fprintf(stderr, "restarting with %u games failed\n", f->games);
            return -1;
        }
        f->lobby_us = median(r->lobby, ROUNDS);
        f->game_us = median(r->game, ROUNDS);
        f->deadline_us = median(r->deadline, ROUNDS);
        f->restart_s = median(r->restart, RESTARTS);
        f->restart_cpu_s = median(r->restart_cpu, RESTARTS);
        f->records_s = median(r->records, RESTARTS);
        f->records_cpu_s = median(r->records_cpu, RESTARTS);
        f->rss_restart_mb = median(r->rss_restart, RESTARTS);
        printf("%u games: setup %.1f s CPU, lobby action %.1f us, game action %.1f us, deadline "
               "%.1f us, RSS %.1f MB (%.1f MB restarted), store %.1f KB/game, restart %.2f s "
               "(%.2f s CPU), from the records %.2f s (%.2f s CPU)%s\n",
               f->games, f->setup_s, f->lobby_us, f->game_us, f->deadline_us, f->rss_mb,
               f->rss_restart_mb, f->store_kb, f->restart_s, f->restart_cpu_s, f->records_s,
               f->records_cpu_s,
               f->errors ? " (ERRORS in the measured parts: see the daemon's answers)" : "");
        printf("%u games: the images written back in %.2f s (%.2f s CPU, %u batches), then a "
               "restart %.2f s (%.2f s CPU)%s\n",
               f->games, f->refill_s, f->refill_cpu_s, f->refill_batches, f->refilled_s,
               f->refilled_cpu_s,
               f->refilled_from_records ? " (READ GAMES FROM THEIR RECORDS: see refill-N.log)"
                                        : ", every game from its image");
        fflush(stdout);
    }
    return 0;
}

/* The table of every size's figures, the ratios and the goals. */
static void print_table(const struct size_figs *figs, const unsigned *sizes, unsigned n)
{
    printf("\n| %-38s |", "figure");
    for (unsigned i = 0; i < n; i++) {
        char h[32];
        snprintf(h, sizeof(h), "%u games", sizes[i]);
        printf(" %12s |", h);
    }
    printf(" %8s | %-22s |\n|---|", "ratio", "goal");
    for (unsigned i = 0; i < n; i++)
        printf("---:|");
    printf("---:|---|\n");
    print_row("CPU per lobby action (µs)", figs, n, offsetof(struct size_figs, lobby_us), "%.1f",
              "ratio ≤ 1.2", true);
    print_row("CPU per game action (µs)", figs, n, offsetof(struct size_figs, game_us), "%.1f",
              "ratio ≤ 1.2", true);
    print_row("CPU per deadline (µs)", figs, n, offsetof(struct size_figs, deadline_us), "%.1f",
              "ratio ≤ 1.2", true);
    print_row("setup, CPU (s)", figs, n, offsetof(struct size_figs, setup_s), "%.1f",
              "< 60 at 100,000", false);
    print_row("restart to first answer (s)", figs, n, offsetof(struct size_figs, restart_s), "%.2f",
              "< 3 at 100,000", false);
    print_row("restart, CPU (s)", figs, n, offsetof(struct size_figs, restart_cpu_s), "%.2f", "–",
              false);
    print_row("restart from the records (s)", figs, n, offsetof(struct size_figs, records_s),
              "%.2f", "–", false);
    print_row("restart from the records, CPU (s)", figs, n,
              offsetof(struct size_figs, records_cpu_s), "%.2f", "–", false);
    print_row("images written back (s)", figs, n, offsetof(struct size_figs, refill_s), "%.2f", "–",
              false);
    print_row("images written back, CPU (s)", figs, n, offsetof(struct size_figs, refill_cpu_s),
              "%.2f", "–", false);
    print_row("restart after that (s)", figs, n, offsetof(struct size_figs, refilled_s), "%.2f",
              "< 3 at 100,000", false);
    print_row("restart after that, CPU (s)", figs, n, offsetof(struct size_figs, refilled_cpu_s),
              "%.2f", "–", false);
    print_row("RSS after setup (MB)", figs, n, offsetof(struct size_figs, rss_mb), "%.1f", "–",
              false);
    print_row("RSS after restart (MB)", figs, n, offsetof(struct size_figs, rss_restart_mb), "%.1f",
              "–", false);
    print_row("store per game (KB)", figs, n, offsetof(struct size_figs, store_kb), "%.1f", "–",
              false);
    if (n > 1 && figs[n - 1].games > figs[0].games) {
        double more = figs[n - 1].games - figs[0].games;
        printf("\nmemory per game (RSS, %u games less %u, per game): %.1f KB after setup, %.1f KB "
               "after a restart\n",
               figs[n - 1].games, figs[0].games,
               (figs[n - 1].rss_mb - figs[0].rss_mb) * 1024.0 / more,
               (figs[n - 1].rss_restart_mb - figs[0].rss_restart_mb) * 1024.0 / more);
    }
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s ILLEGALD WORKDIR [GAMES ...]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    unsigned sizes[MAX_SIZES];
    unsigned n = read_sizes(argc, argv, sizes);
    if (n == 0)
        return 2;
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int cpu = ncpu > 1 ? (int)ncpu - 1 : 0;
    if (ncpu > 1)
        proc_pin_away(cpu);
    mkdir(argv[2], 0700);
    static struct size_figs figs[MAX_SIZES];
    static struct run runs[MAX_SIZES];
    for (unsigned i = 0; i < n; i++)
        if (setup(argv[1], argv[2], sizes[i], cpu, &runs[i], &figs[i]) != 0) {
            fprintf(stderr, "setting up %u games failed\n", sizes[i]);
            goto fail;
        }
    /* every size in each round, one after the other, so that the machine's
     * load of the moment weighs on all of them alike */
    for (unsigned k = 0; k < 2 * ROUNDS; k++)
        for (unsigned i = 0; i < n; i++)
            if ((k < ROUNDS ? actions_round(&runs[i], k, &figs[i])
                            : deadlines_round(&runs[i], k - ROUNDS, &figs[i])) != 0) {
                fprintf(stderr, "round %u with %u games failed\n", k % ROUNDS + 1, sizes[i]);
                goto fail;
            }
    if (restart_and_summarize(argv[1], argv[2], runs, figs, n) != 0)
        goto fail;
    print_table(figs, sizes, n);
    return 0;
fail:
    for (unsigned i = 0; i < n; i++)
        if (runs[i].dm.pid > 0) {
            kill(runs[i].dm.pid, SIGKILL);
            waitpid(runs[i].dm.pid, NULL, 0);
        }
    return 1;
}
