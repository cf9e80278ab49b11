/*
 * bench_vs_discordjs.c - illegald next to a discord.js 14 bot doing the same
 * job on the same fake Discord: one guild of 50 channels, "!illegal status"
 * commands as MESSAGE_CREATE answered by one REST message, the bot's own
 * message echoed back on the gateway, plain chat ignored, the bots' global
 * REST limit raised. The gateway is the project's test server
 * (tests/discord/fakediscord.c); REST is benchrest.c, which has no rate limit.
 * A third bot, bench_floor_bot (floor_bot.c, next to this program), does the
 * same job on bare sockets and epoll with libc alone: what the machine itself
 * costs per message (loopback TCP, epoll, waking the bot), shown as its own
 * column; the goals are illegald's figures divided by the floor's of the
 * same round (the median of those ratios), so the machine's load of the
 * moment weighs on both. A fourth, bench_floor_curl, is the floor bot with
 * its REST requests carried by libcurl: next to the floor, what libcurl
 * alone costs, in the goals' own ratios.
 * The bots run pinned to the last CPU, one after the other in each round
 * (illegald, discord.js, floor, illegald, ...); this program and its servers'
 * threads run on every other CPU, so they never take the bot's CPU from it.
 * The figures are medians over the rounds; CPU time is read in nanoseconds
 * from /proc/<pid>/task/<tid>/schedstat. The as-fast-as-possible run is also
 * given per second of the bot's CPU time: on 2 cores the servers can be
 * what holds its wall-clock rate down. Then illegald alone through the
 * console platform: acknowledged game actions/s on a store on disk, fsyncs
 * per action (counted by strace -f -c), idle RSS and start-up time. Then the
 * idle RSS of bench_rss_floor (next to this program), which only loads and
 * starts the same libraries, and again once it has used each of them as any
 * bot must (rss_floor.c). Last, what the load cannot move: illegald and
 * the floor once under valgrind's callgrind (instructions in user space per
 * command and per ignored message, by library) and once under strace -c
 * (system calls), one message at a time.
 *
 * usage: bench_vs_discordjs ILLEGALD WORKDIR [NODE_BOT_JS [ROUNDS]]
 * ROUNDS 0 measures the instruction counts alone; BENCH_NO_COUNTS=1 leaves
 * them out (two builds timed in turn need only the rounds). BENCH_KEEP=1
 * keeps the work directory, with each bot's /proc/<pid>/smaps when its idle
 * RSS is read. BENCH_SLASH=1 (with ROUNDS 0) sends the counted commands as
 * the slash command /illegal status (INTERACTION_CREATE, a member without
 * the message content intent's help) instead of messages: one command's way
 * from the interaction in to its answer out, the interaction's callback;
 * illegald alone (the floor and discord.js answer no interaction).
 * WORKDIR holds the temporary stores (on disk, not tmpfs). Without
 * NODE_BOT_JS, or when node cannot run it, discord.js is not measured;
 * without bench_floor_bot, the floor is not (nor, without bench_floor_curl,
 * the floor with libcurl).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "benchrest.h"
#include "fakediscord.h"
#include "fdclient.h"
#include "procstat.h"

#define TOKEN           "bench-token"
#define COMMAND         "!illegal status"
#define CHAT            "anyone up for a game later tonight?"
#define LOAD_RATE       1000 /* commands or messages per second */
#define LOAD_SECONDS    2
#define LAT_RATE        200
#define LAT_SECONDS     3
#define BURST           6000 /* commands of the as-fast-as-possible run */
#define BURST_WINDOW    300  /* commands in flight at most */
#define MAX_ROUNDS      15
#define CONSOLE_ACTIONS 4000

enum { BOT_ILLEGALD, BOT_DJS, BOT_FLOOR, BOT_FLOOR_CURL, NBOTS };
enum {
    F_CMD_CPU,
    F_IGN_CPU,
    F_RATE,
    F_CPU_RATE,
    F_P99,
    F_START,
    F_RSS,
    F_CMD_SYS,
    F_IGN_SYS,
    NFIG
};

static const char *const bot_names[NBOTS] = {"illegald", "discord.js 14", "floor (sockets only)",
                                             "floor with libcurl"};
static const char *const log_names[NBOTS] = {"illegald", "node", "floor", "floor_curl"};

struct bench {
    const char *illegald, *workdir, *botjs;
    char floor_bot[600];  /* bench_floor_bot, next to this program */
    char floor_curl[600]; /* bench_floor_curl, the same with libcurl for REST */
    bool floor_curl_on;   /* it is there and has not failed */
    struct br_server *rest;
    struct fd_server *gw;
    pid_t pid;
    unsigned long next_msg, sent;
    unsigned runs;      /* each illegald run starts on a new store: a stored session
                           would resume on the last run's gateway */
    int cpu;            /* the CPU the bots run on */
    int rate_limit_key; /* illegald takes [discord] global_rate_limit */
    bool slash;         /* commands come as slash commands (BENCH_SLASH) */
    char dir[512];
    const char *wrap; /* the bot runs under this tool (valgrind), or NULL */
    char wrap_out[600];
    double fig[NBOTS][NFIG][MAX_ROUNDS];
    double con_rate[MAX_ROUNDS], con_fsync[MAX_ROUNDS], con_start[MAX_ROUNDS], con_rss[MAX_ROUNDS];
};

static void sleep_until(double t)
{
    struct timespec ts = {(time_t)t, (long)((t - (double)(time_t)t) * 1e9)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

static void msleep(double ms)
{
    sleep_until(fd_now() + ms / 1000.0);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(const double *v, unsigned n)
{
    double s[MAX_ROUNDS];
    memcpy(s, v, n * sizeof(*s));
    qsort(s, n, sizeof(*s), cmp_double);
    return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/* ---- the Discord bots ---- */

static void write_config(struct bench *b, int with_limit)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/illegald.conf", b->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f,
            "[store]\npath = %s/illegald-%u.db\n[log]\nlevel = warn\n"
            "[discord]\ntoken = %s\napplication_id = %s\n"
            "api_url = http://127.0.0.1:%d/api/v10\ngateway_url = ws://127.0.0.1:%d\n"
            "guilds = %s\n%s",
            b->dir, b->runs++, TOKEN, FD_APP_ID, br_port(b->rest), fd_port(b->gw), FD_GUILD_ID,
            with_limit ? "global_rate_limit = 10000\n" : "");
    fclose(f);
}

static pid_t spawn_bot(struct bench *b, int bot)
{
    char conf[600], log[600], api[64], gw[64];
    snprintf(conf, sizeof(conf), "%s/illegald.conf", b->dir);
    snprintf(log, sizeof(log), "%s/%s.log", b->dir, log_names[bot]);
    snprintf(api, sizeof(api), "http://127.0.0.1:%d/api", br_port(b->rest));
    snprintf(gw, sizeof(gw), "ws://127.0.0.1:%d", fd_port(b->gw));
    char *body = bot != BOT_ILLEGALD ? br_first_body(b->rest) : NULL;
    pid_t pid = fork();
    if (pid == 0) {
        proc_pin(b->cpu);
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        if (b->wrap) {
            const char *program = bot == BOT_ILLEGALD     ? b->illegald
                                  : bot == BOT_FLOOR_CURL ? b->floor_curl
                                                          : b->floor_bot;
            if (bot != BOT_ILLEGALD) {
                setenv("BENCH_API", api, 1);
                setenv("BENCH_TOKEN", TOKEN, 1);
                setenv("BENCH_GATEWAY", gw, 1);
                if (body)
                    setenv("BENCH_REPLY", body, 1);
            }
            execlp(b->wrap, b->wrap, "--tool=callgrind", b->wrap_out, program,
                   bot == BOT_ILLEGALD ? "--config" : (char *)NULL, conf, (char *)NULL);
        } else if (bot == BOT_ILLEGALD) {
            execl(b->illegald, b->illegald, "--config", conf, (char *)NULL);
        } else {
            setenv("BENCH_API", api, 1);
            setenv("BENCH_TOKEN", TOKEN, 1);
            if (body)
                setenv("BENCH_REPLY", body, 1);
            if (bot == BOT_FLOOR || bot == BOT_FLOOR_CURL) {
                const char *program = bot == BOT_FLOOR ? b->floor_bot : b->floor_curl;
                setenv("BENCH_GATEWAY", gw, 1); /* discord.js asks REST for it */
                execl(program, program, (char *)NULL);
            } else {
                execlp("node", "node", b->botjs, (char *)NULL);
            }
        }
        _exit(127);
    }
    free(body);
    return pid;
}

static bool gateway_ready(struct bench *b)
{
    struct json_object *s = fd_snapshot(b->gw), *g, *r;
    bool ok = json_object_object_get_ex(s, "gateway", &g) &&
              json_object_object_get_ex(g, "ready", &r) && json_object_get_boolean(r);
    json_object_put(s);
    return ok;
}

static void guild_create(struct bench *b)
{
    char d[16384], id[32];
    int n = snprintf(d, sizeof(d),
                     "{\"id\":\"%s\",\"name\":\"bench\",\"owner_id\":\"630000000000000000\","
                     "\"unavailable\":false,\"large\":false,\"member_count\":2,"
                     "\"joined_at\":\"2026-01-01T00:00:00.000000+00:00\",\"features\":[],"
                     "\"emojis\":[],\"stickers\":[],\"threads\":[],\"presences\":[],"
                     "\"voice_states\":[],\"members\":[],\"roles\":[{\"id\":\"%s\","
                     "\"name\":\"@everyone\",\"permissions\":\"68608\",\"position\":0,"
                     "\"color\":0,\"hoist\":false,\"managed\":false,\"mentionable\":false}],"
                     "\"channels\":[",
                     FD_GUILD_ID, FD_GUILD_ID);
    for (unsigned i = 0; i < BR_CHANNELS; i++) {
        br_channel_id(i, id, sizeof(id));
        n += snprintf(d + n, sizeof(d) - (size_t)n,
                      "%s{\"id\":\"%s\",\"type\":0,\"name\":\"table-%u\",\"position\":%u,"
                      "\"permission_overwrites\":[]}",
                      i ? "," : "", id, i, i);
    }
    snprintf(d + n, sizeof(d) - (size_t)n, "]}");
    fd_dispatch(b->gw, "GUILD_CREATE", d);
}

/* The slash command /illegal status from user in channel ch, as Discord's
 * client sends it (receiving-and-responding: the interaction object). */
static void slash(struct bench *b, const char *id, const char *ch, const char *user)
{
    char d[1024];
    snprintf(d, sizeof(d),
             "{\"id\":\"%s\",\"application_id\":\"%s\",\"type\":2,\"token\":\"tok-%s\","
             "\"version\":1,\"locale\":\"en-US\",\"guild_id\":\"%s\",\"channel_id\":\"%s\","
             "\"member\":{\"user\":{\"id\":\"%s\",\"username\":\"player\","
             "\"global_name\":\"player\"},\"roles\":[],\"permissions\":\"0\"},"
             "\"data\":{\"id\":\"800000000000000001\",\"name\":\"illegal\",\"type\":1,"
             "\"options\":[{\"name\":\"status\",\"type\":1}]}}",
             id, FD_APP_ID, id, FD_GUILD_ID, ch, user);
    fd_dispatch(b->gw, "INTERACTION_CREATE", d);
}

/* One MESSAGE_CREATE from a player in channel i (a command as a slash
 * command with b->slash); a command is expected answered. */
static void say(struct bench *b, unsigned i, bool command, bool measure)
{
    char id[32], ch[32], user[32];
    snprintf(id, sizeof(id), "%lu", b->next_msg++);
    br_channel_id(i % BR_CHANNELS, ch, sizeof(ch));
    snprintf(user, sizeof(user), "6300000000000%05u", i % 20);
    if (command) {
        br_expect(b->rest, i % BR_CHANNELS, fd_now(), measure);
        b->sent++;
    }
    if (command && b->slash)
        slash(b, id, ch, user);
    else
        fdc_message(b->gw, id, FD_GUILD_ID, ch, user, command ? COMMAND : CHAT);
}

/* Waits until every command sent is answered (by a post, or an
 * interaction's callback); false after timeout_s. */
static bool all_answered(struct bench *b, double timeout_s)
{
    double end = fd_now() + timeout_s;
    while (br_posts(b->rest) + br_callbacks(b->rest) < b->sent) {
        if (fd_now() > end)
            return false;
        msleep(0.5);
    }
    return true;
}

/* rate messages/s for seconds; returns the bot's CPU seconds per message, or
 * -1, and the system's share of them into *sys (from clock ticks: about a
 * tick's worth of error in all). */
static double paced(struct bench *b, unsigned rate, unsigned seconds, bool command, bool measure,
                    double *sys)
{
    unsigned n = rate * seconds;
    double u0 = 0, s0 = 0, u1, s1;
    proc_cpu_split(b->pid, &u0, &s0);
    double c0 = proc_cpu_seconds(b->pid), t0 = fd_now();
    for (unsigned i = 0; i < n; i++) {
        sleep_until(t0 + (double)i / rate);
        say(b, i, command, measure);
    }
    if (!command)
        say(b, 0, true, false); /* answered once every chat line before it was read */
    if (!all_answered(b, 60))
        return -1;
    msleep(50); /* the echo of the last answer */
    double c1 = proc_cpu_seconds(b->pid);
    *sys = proc_cpu_split(b->pid, &u1, &s1) == 0 && u1 + s1 > u0 + s0
               ? (c1 - c0) / n * (s1 - s0) / (u1 + s1 - u0 - s0)
               : -1;
    return (c1 - c0) / n;
}

/* Copies /proc/<pid>/smaps into the work directory as NAME.smaps. */
static void keep_smaps(struct bench *b, pid_t pid, const char *name)
{
    char from[64], to[700], buf[65536];
    snprintf(from, sizeof(from), "/proc/%d/smaps", (int)pid);
    snprintf(to, sizeof(to), "%s/%s.smaps", b->dir, name);
    FILE *in = fopen(from, "r"), *out = fopen(to, "w");
    size_t n;
    while (in && out && (n = fread(buf, 1, sizeof(buf), in)) > 0)
        fwrite(buf, 1, n, out);
    if (in)
        fclose(in);
    if (out)
        fclose(out);
}

/* One bot through every figure; false when it did not answer. */
static bool run_bot(struct bench *b, int bot, unsigned round)
{
    double *fig[NFIG];
    for (int f = 0; f < NFIG; f++)
        fig[f] = &b->fig[bot][f][round];
    b->gw = fd_start(TOKEN, 41250);
    fd_set_privileged(b->gw, FD_INTENT_MESSAGE_CONTENT); /* the bots read "!illegal status" */
    if (!b->gw)
        return false;
    br_attach(b->rest, b->gw);
    if (bot == BOT_ILLEGALD)
        write_config(b, b->rate_limit_key); /* the gateway's port is new */
    b->sent = 0;
    bool ok = false;
    double t0 = fd_now();
    b->pid = spawn_bot(b, bot);
    while (!gateway_ready(b)) {
        int st;
        if (fd_now() - t0 > 30 || waitpid(b->pid, &st, WNOHANG) == b->pid) {
            b->pid = -1;
            goto out;
        }
        msleep(1);
    }
    guild_create(b);
    /* spawn -> first answered command: ask every 20 ms until the first answer */
    while (br_posts(b->rest) == 0 && fd_now() - t0 < 30) {
        say(b, 0, true, false);
        for (int w = 0; w < 40 && br_posts(b->rest) == 0; w++)
            msleep(0.5);
    }
    if (!all_answered(b, 30))
        goto out;
    *fig[F_START] = (br_first_post(b->rest) - t0) * 1000.0;
    msleep(1500);
    *fig[F_RSS] = (double)proc_rss_kb(b->pid) / 1024.0;
    if (getenv("BENCH_KEEP")) /* where the idle RSS is, mapping by mapping */
        keep_smaps(b, b->pid, log_names[bot]);
    *fig[F_IGN_CPU] = paced(b, LOAD_RATE, LOAD_SECONDS, false, false, fig[F_IGN_SYS]) * 1e6;
    *fig[F_IGN_SYS] *= *fig[F_IGN_SYS] > 0 ? 1e6 : 1;
    if (bot == BOT_ILLEGALD && !b->rate_limit_key) {
        /* held at 50 answers/s, the command loads would only measure the limit */
        *fig[F_CMD_CPU] = *fig[F_P99] = *fig[F_RATE] = *fig[F_CPU_RATE] = -1;
        ok = *fig[F_IGN_CPU] > 0;
        goto out;
    }
    *fig[F_CMD_CPU] = paced(b, LOAD_RATE, LOAD_SECONDS, true, false, fig[F_CMD_SYS]) * 1e6;
    *fig[F_CMD_SYS] *= *fig[F_CMD_SYS] > 0 ? 1e6 : 1;
    static double lat[LAT_RATE * LAT_SECONDS];
    br_take_latencies(b->rest, lat, 0);
    double lat_sys;
    if (paced(b, LAT_RATE, LAT_SECONDS, true, true, &lat_sys) < 0)
        goto out;
    size_t nl = br_take_latencies(b->rest, lat, LAT_RATE * LAT_SECONDS);
    qsort(lat, nl, sizeof(*lat), cmp_double);
    *fig[F_P99] = nl ? lat[(size_t)((double)(nl - 1) * 0.99)] : -1;
    /* as fast as possible, at most BURST_WINDOW in flight */
    unsigned long base = b->sent;
    double s0 = fd_now(), c0 = proc_cpu_seconds(b->pid);
    for (unsigned i = 0; i < BURST; i++) {
        while (b->sent - br_posts(b->rest) >= BURST_WINDOW)
            msleep(0.1);
        say(b, i, true, false);
    }
    if (!all_answered(b, 120))
        goto out;
    *fig[F_RATE] = (double)(b->sent - base) / (fd_now() - s0);
    /* On 2 cores the servers on the other CPU can be what holds the rate
     * down while the bot idles in part: what the bot could do with its CPU
     * busy all the time is the commands per second of its CPU time. */
    double c1 = proc_cpu_seconds(b->pid);
    *fig[F_CPU_RATE] = c0 >= 0 && c1 > c0 ? (double)(b->sent - base) / (c1 - c0) : -1;
    ok = *fig[F_CMD_CPU] > 0 && *fig[F_IGN_CPU] > 0 && *fig[F_RATE] > 0;
out:
    if (b->pid > 0) {
        int st;
        kill(b->pid, SIGTERM);
        for (int w = 0; w < 1000 && waitpid(b->pid, &st, WNOHANG) == 0; w++)
            msleep(10);
        if (kill(b->pid, 0) == 0) {
            kill(b->pid, SIGKILL);
            waitpid(b->pid, &st, 0);
        }
    }
    b->pid = -1;
    br_attach(b->rest, NULL);
    fd_stop(b->gw);
    b->gw = NULL;
    if (!ok)
        fprintf(stderr, "%s did not complete round %u (its log: %s/%s.log)\n", bot_names[bot],
                round + 1, b->dir, log_names[bot]);
    return ok;
}

/* Whether illegald takes [discord] global_rate_limit: with it, it checks its
 * config and runs; without, it refuses the unknown key at once. */
static int probe_rate_limit_key(struct bench *b)
{
    b->gw = fd_start(TOKEN, 41250);
    fd_set_privileged(b->gw, FD_INTENT_MESSAGE_CONTENT); /* the bots read "!illegal status" */
    if (!b->gw)
        return 0;
    br_attach(b->rest, b->gw);
    write_config(b, 1);
    pid_t pid = spawn_bot(b, BOT_ILLEGALD);
    int st, alive = 1;
    for (int w = 0; w < 100 && alive; w++) {
        if (waitpid(pid, &st, WNOHANG) == pid)
            alive = 0;
        else if (gateway_ready(b))
            break;
        msleep(10);
    }
    if (alive) {
        kill(pid, SIGTERM);
        waitpid(pid, &st, 0);
    }
    br_attach(b->rest, NULL);
    fd_stop(b->gw);
    b->gw = NULL;
    return alive;
}

/* ---- instruction counts ---- */

#define INSTR_MESSAGES 400 /* commands, then chat lines, each sent once the last is handled */
#define INSTR_GAP_MS   15  /* between chat lines: one at a time, even under valgrind */
#define INSTR_OBJECTS  64

/* Runs callgrind_control with op ("-z" zeroes, "-d" dumps) on pid. */
static bool callgrind_ctl(pid_t pid, const char *op)
{
    char spid[16];
    snprintf(spid, sizeof(spid), "%d", (int)pid);
    pid_t c = fork();
    if (c == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execlp("callgrind_control", "callgrind_control", op, spid, (char *)NULL);
        _exit(127);
    }
    int st;
    return c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

/* What one callgrind dump counted: instructions in all, and by object. */
struct ir_dump {
    double total;
    char name[INSTR_OBJECTS][48];
    double ir[INSTR_OBJECTS];
};

/* Reads the self cost of each object ("ob=") from a callgrind dump taken
 * with --dump-instr=no: every cost line counts for the current object except
 * the one after "calls=", which is the inclusive cost of a call. */
static int read_dump(const char *path, struct ir_dump *d)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    memset(d, 0, sizeof(*d));
    char line[4096];
    int cur = -1;
    bool skip = false;
    while (fgets(line, sizeof(line), f)) {
        bool ob = strncmp(line, "ob=(", 4) == 0, cob = strncmp(line, "cob=(", 5) == 0;
        if (ob || cob) { /* "ob=(3) /usr/lib/libc.so.6" names it, "ob=(3)" refers to it */
            int id = atoi(line + (ob ? 4 : 5));
            const char *name = strchr(line, ')');
            if (id >= 0 && id < INSTR_OBJECTS && name && name[1] == ' ') {
                const char *base = strrchr(name, '/');
                snprintf(d->name[id], sizeof(d->name[id]), "%.*s",
                         (int)strcspn(base ? base + 1 : name + 2, "\n"),
                         base ? base + 1 : name + 2);
            }
            if (ob)
                cur = id >= 0 && id < INSTR_OBJECTS ? id : -1;
        } else if (strncmp(line, "calls=", 6) == 0) {
            skip = true;
        } else if (strncmp(line, "totals:", 7) == 0 || strncmp(line, "summary:", 8) == 0) {
            d->total = strtod(strchr(line, ':') + 1, NULL);
        } else if ((line[0] >= '0' && line[0] <= '9') || line[0] == '+' || line[0] == '-' ||
                   line[0] == '*') {
            char *end;
            strtol(line[0] == '*' ? line + 1 : line, &end, 10);
            double ir = strtod(end, NULL);
            if (!skip && cur >= 0)
                d->ir[cur] += ir;
            skip = false;
        }
    }
    fclose(f);
    return d->total > 0 ? 0 : -1;
}

/* The dump number n of bot's run, or -1. */
static int dump_n(struct bench *b, int bot, unsigned n, struct ir_dump *d)
{
    char path[700];
    snprintf(path, sizeof(path), "%s/callgrind.%s.out.%u", b->dir, log_names[bot], n);
    return read_dump(path, d);
}

/* What a bot costs in user space (callgrind) or in system calls (strace),
 * measured over phases of one run. */
enum probe { PROBE_CALLGRIND, PROBE_STRACE };
enum { PH_CMD, PH_IGN, PH_IDLE, NPHASES };

struct instr {
    double cmd, ign; /* instructions, or system calls, per command and per ignored message */
    struct ir_dump cmds;
    char calls[512]; /* strace: the system calls of a command, by name */
};

static void strace_path(struct bench *b, int bot, int phase, char *path, size_t len)
{
    snprintf(path, len, "%s/strace.%s.%d", b->dir, log_names[bot], phase);
}

/* strace attaches to the bot for one phase; its summary is written when it
 * is interrupted (phase_end). */
static pid_t strace_attach(struct bench *b, int bot, int phase)
{
    char path[700], spid[16];
    strace_path(b, bot, phase, path, sizeof(path));
    snprintf(spid, sizeof(spid), "%d", (int)b->pid);
    pid_t t = fork();
    if (t == 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        execlp("strace", "strace", "-c", "-f", "-o", path, "-p", spid, (char *)NULL);
        _exit(127);
    }
    /* attached once the bot names its tracer */
    char status[64], line[256];
    snprintf(status, sizeof(status), "/proc/%d/status", (int)b->pid);
    for (int w = 0; w < 500; w++) {
        FILE *f = fopen(status, "r");
        int tracer = 0;
        while (f && fgets(line, sizeof(line), f))
            if (sscanf(line, "TracerPid: %d", &tracer) == 1)
                break;
        if (f)
            fclose(f);
        if (tracer)
            break;
        msleep(10);
    }
    return t;
}

static bool phase_begin(struct bench *b, enum probe probe, int bot, int phase, pid_t *tracer)
{
    if (probe == PROBE_STRACE)
        return (*tracer = strace_attach(b, bot, phase)) > 0;
    return phase != PH_CMD || callgrind_ctl(b->pid, "-z");
}

static bool phase_end(struct bench *b, enum probe probe, pid_t tracer)
{
    if (probe == PROBE_CALLGRIND)
        return callgrind_ctl(b->pid, "-d");
    int st;
    kill(tracer, SIGINT);
    return waitpid(tracer, &st, 0) == tracer;
}

/* The system calls in an strace -c summary: in all, and by name (those of at
 * least one in 20 messages, per n messages) into names. -1 when it cannot be
 * read. */
static double strace_calls(const char *path, double n, char *names, size_t len)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[256];
    double total = 0; /* a bot that made no call has no summary */
    size_t at = 0;
    if (names)
        names[0] = '\0';
    while (fgets(line, sizeof(line), f)) {
        /* "% time  seconds  usecs/call  calls  [errors]  syscall": the name last */
        char *tok[8], *save = NULL;
        int ntok = 0;
        for (char *t = strtok_r(line, " \t\n", &save); t && ntok < 8;
             t = strtok_r(NULL, " \t\n", &save))
            tok[ntok++] = t;
        if (ntok < 5 || (tok[0][0] < '0' || tok[0][0] > '9'))
            continue;
        double calls = strtod(tok[3], NULL);
        const char *name = tok[ntok - 1];
        if (strcmp(name, "total") == 0)
            total = calls;
        else if (names && at < len && calls / n >= 0.05)
            at += (size_t)snprintf(names + at, len - at, "%s%s %.2f", at ? ", " : "", name,
                                   calls / n);
    }
    fclose(f);
    return total;
}

/* One bot under callgrind or strace: once it answers, INSTR_MESSAGES
 * commands one after the other; as many chat lines; as long idle, whose rate
 * is taken out of the other two. */
static bool probe_bot(struct bench *b, enum probe probe, int bot, struct instr *out)
{
    if (probe == PROBE_CALLGRIND) {
        b->wrap = "valgrind";
        snprintf(b->wrap_out, sizeof(b->wrap_out), "--callgrind-out-file=%s/callgrind.%s.out",
                 b->dir, log_names[bot]);
    }
    b->gw = fd_start(TOKEN, 41250);
    bool ok = false;
    pid_t tracer = -1;
    if (b->gw)
        fd_set_privileged(b->gw, FD_INTENT_MESSAGE_CONTENT); /* the bots read "!illegal status" */
    double secs[NPHASES] = {0};
    if (!b->gw)
        goto out;
    br_attach(b->rest, b->gw);
    if (bot == BOT_ILLEGALD)
        write_config(b, 1);
    b->sent = 0;
    double t0 = fd_now();
    b->pid = spawn_bot(b, bot);
    while (!gateway_ready(b))
        if (fd_now() - t0 > 120)
            goto out;
        else
            msleep(10);
    guild_create(b);
    for (unsigned i = 0; i < 20; i++) { /* connections made, caches warm */
        say(b, i, true, false);
        say(b, i, false, false);
        if (!all_answered(b, 60))
            goto out;
    }
    msleep(200);
    for (int phase = 0; phase < NPHASES; phase++) {
        if (!phase_begin(b, probe, bot, phase, &tracer))
            goto out;
        double p0 = fd_now();
        for (unsigned i = 0; i < INSTR_MESSAGES && phase != PH_IDLE; i++) {
            say(b, i, phase == PH_CMD, false);
            if (phase == PH_CMD && !all_answered(b, 60))
                goto out;
            msleep(phase == PH_CMD ? 2 : INSTR_GAP_MS); /* the echo of an answer; one at a time */
        }
        if (phase == PH_IDLE)
            msleep(secs[PH_IGN] * 1000);
        secs[phase] = fd_now() - p0;
        if (!phase_end(b, probe, tracer))
            goto out;
        tracer = -1;
    }
    double total[NPHASES];
    if (probe == PROBE_CALLGRIND) {
        struct ir_dump ign, idle;
        if (dump_n(b, bot, 1, &out->cmds) < 0 || dump_n(b, bot, 2, &ign) < 0 ||
            dump_n(b, bot, 3, &idle) < 0)
            goto out;
        total[PH_CMD] = out->cmds.total;
        total[PH_IGN] = ign.total;
        total[PH_IDLE] = idle.total;
    } else {
        for (int phase = 0; phase < NPHASES; phase++) {
            char path[700];
            strace_path(b, bot, phase, path, sizeof(path));
            total[phase] = strace_calls(path, INSTR_MESSAGES, phase == PH_CMD ? out->calls : NULL,
                                        sizeof(out->calls));
            if (total[phase] < 0)
                goto out;
        }
    }
    double idle_rate = total[PH_IDLE] / secs[PH_IDLE];
    out->cmd = (total[PH_CMD] - idle_rate * secs[PH_CMD]) / INSTR_MESSAGES;
    out->ign = (total[PH_IGN] - idle_rate * secs[PH_IGN]) / INSTR_MESSAGES;
    ok = true;
out:
    if (tracer > 0)
        phase_end(b, PROBE_STRACE, tracer);
    if (b->pid > 0) {
        int st;
        kill(b->pid, SIGTERM);
        for (int w = 0; w < 3000 && waitpid(b->pid, &st, WNOHANG) == 0; w++)
            msleep(10);
        if (kill(b->pid, 0) == 0) {
            kill(b->pid, SIGKILL);
            waitpid(b->pid, &st, 0);
        }
    }
    b->pid = -1;
    b->wrap = NULL;
    br_attach(b->rest, NULL);
    if (b->gw)
        fd_stop(b->gw);
    b->gw = NULL;
    if (!ok)
        fprintf(stderr, "%s did not complete under %s (its log: %s/%s.log)\n", bot_names[bot],
                probe == PROBE_CALLGRIND ? "callgrind" : "strace", b->dir, log_names[bot]);
    return ok;
}

/* The objects that take most of a command's instructions, per command. */
static void print_objects(const char *bot, const struct ir_dump *d, unsigned n)
{
    printf("%s, instructions per command by object:", bot);
    bool used[INSTR_OBJECTS] = {false};
    for (unsigned k = 0; k < 8; k++) {
        int best = -1;
        for (int i = 0; i < INSTR_OBJECTS; i++)
            if (!used[i] && d->ir[i] > 0 && (best < 0 || d->ir[i] > d->ir[best]))
                best = i;
        if (best < 0)
            break;
        used[best] = true;
        printf("%s %s %.0f", k ? "," : "", d->name[best], d->ir[best] / n);
    }
    printf("\n");
}

/* Instructions and system calls per command and per ignored message,
 * illegald next to the floor: what user space costs whatever the machine's
 * load (valgrind counts instructions, not time), and how often each bot asks
 * the kernel for something (strace counts calls). */
static void instructions(struct bench *b, bool floor)
{
    struct instr ill, flo, flc;
    if (system("valgrind --version > /dev/null 2>&1") != 0) {
        printf("NOTE: valgrind is missing: no instruction counts\n");
    } else if (probe_bot(b, PROBE_CALLGRIND, BOT_ILLEGALD, &ill) &&
               (!floor || probe_bot(b, PROBE_CALLGRIND, BOT_FLOOR, &flo))) {
        printf("\ninstructions in user space (callgrind, %u messages each): illegald %.0f per "
               "%s, %.0f per ignored message",
               INSTR_MESSAGES, ill.cmd, b->slash ? "slash command" : "command", ill.ign);
        if (floor)
            printf("; floor %.0f and %.0f", flo.cmd, flo.ign);
        printf("\n");
        print_objects("illegald", &ill.cmds, INSTR_MESSAGES);
        if (floor)
            print_objects("floor", &flo.cmds, INSTR_MESSAGES);
        if (floor && b->floor_curl_on && probe_bot(b, PROBE_CALLGRIND, BOT_FLOOR_CURL, &flc)) {
            printf("floor with libcurl: %.0f per command, %.0f per ignored message\n", flc.cmd,
                   flc.ign);
            print_objects("floor with libcurl", &flc.cmds, INSTR_MESSAGES);
        }
    }
    if (system("strace -V > /dev/null 2>&1") != 0) {
        printf("NOTE: strace is missing: no system call counts\n");
    } else if (probe_bot(b, PROBE_STRACE, BOT_ILLEGALD, &ill) &&
               (!floor || probe_bot(b, PROBE_STRACE, BOT_FLOOR, &flo))) {
        printf("\nsystem calls (strace -c): illegald %.2f per %s, %.2f per ignored message "
               "(a command's: %s)\n",
               ill.cmd, b->slash ? "slash command" : "command", ill.ign, ill.calls);
        if (floor)
            printf("floor %.2f per command, %.2f per ignored message (a command's: %s)\n", flo.cmd,
                   flo.ign, flo.calls);
        if (floor && b->floor_curl_on && probe_bot(b, PROBE_STRACE, BOT_FLOOR_CURL, &flc))
            printf("floor with libcurl %.2f per command, %.2f per ignored message (a command's: "
                   "%s)\n",
                   flc.cmd, flc.ign, flc.calls);
    }
}

/* ---- the console platform ---- */

/* Writes the console input: ping "a", the actions, ping "b". Each action is a
 * join or a leave in a lobby of one of 50 tables: accepted, stored, answered. */
static int console_input(const char *path, unsigned actions)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    for (unsigned t = 0; t < 50 && actions; t++)
        fprintf(f,
                "{\"type\":\"message\",\"channel\":\"t%u\",\"user\":\"host%u\","
                "\"text\":\"!illegal new\"}\n",
                t, t);
    fprintf(f, "{\"type\":\"ping\",\"id\":\"a\"}\n");
    for (unsigned i = 0; i < actions; i++)
        fprintf(f, "{\"type\":\"message\",\"channel\":\"t%u\",\"user\":\"p%u\",\"text\":\"%s\"}\n",
                i % 50, (i / 100) % 50, (i / 50) % 2 ? "!illegal leave" : "!illegal join");
    fprintf(f, "{\"type\":\"ping\",\"id\":\"b\"}\n");
    return fclose(f);
}

/*
 * Runs illegald --console on input (a file) with a new store; sets the time
 * from spawn to pong "a" and from pong "a" to pong "b". Input NULL: ping "a",
 * one idle second (RSS read into rss), ping "b". With strace_out, runs it
 * under strace -f -c counting fsync and fdatasync into that file.
 */
static int console_run(struct bench *b, const char *input, const char *strace_out, double *start_ms,
                       double *work_s, long *rss)
{
    char store[600];
    static unsigned runs;
    snprintf(store, sizeof(store), "%s/console-%u.db", b->dir, runs++);
    int out[2];
    if (pipe(out) != 0)
        return -1;
    int in[2] = {-1, -1};
    if (!input && pipe(in) != 0)
        return -1;
    double t0 = fd_now();
    pid_t pid = fork();
    if (pid == 0) {
        proc_pin(b->cpu);
        int fd = input ? open(input, O_RDONLY) : in[0];
        if (fd < 0)
            _exit(126);
        dup2(fd, 0);
        if (!input)
            close(in[1]);
        dup2(out[1], 1);
        close(out[0]);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0)
            dup2(null, 2);
        if (strace_out)
            execlp("strace", "strace", "-f", "-c", "-e", "trace=fsync,fdatasync", "-o", strace_out,
                   b->illegald, "--console", "--virtual-time", "--seed", "1", "--store", store,
                   (char *)NULL);
        else
            execl(b->illegald, b->illegald, "--console", "--virtual-time", "--seed", "1", "--store",
                  store, (char *)NULL);
        _exit(127);
    }
    close(out[1]);
    if (!input) {
        close(in[0]);
        dprintf(in[1], "{\"type\":\"ping\",\"id\":\"a\"}\n");
    }
    FILE *f = fdopen(out[0], "r");
    char *line = NULL;
    size_t cap = 0;
    double ta = 0, tb = 0;
    while (f && getline(&line, &cap, f) > 0) {
        if (strstr(line, "\"pong\"") && strstr(line, "\"a\"")) {
            ta = fd_now();
            if (!input) { /* idle, connected to its input: then ends it */
                msleep(1000);
                if (rss)
                    *rss = proc_rss_kb(pid);
                dprintf(in[1], "{\"type\":\"ping\",\"id\":\"b\"}\n");
                close(in[1]);
            }
        } else if (strstr(line, "\"pong\"") && strstr(line, "\"b\"")) {
            tb = fd_now();
        }
    }
    free(line);
    if (f)
        fclose(f);
    int st;
    waitpid(pid, &st, 0);
    *start_ms = (ta - t0) * 1000.0;
    *work_s = tb - ta;
    return ta > 0 && tb > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}

/* fsync + fdatasync calls in an strace -c summary, or -1. */
static long syncs_in(const char *path)
{
    FILE *f = fopen(path, "r");
    char line[256], name[64];
    long total = -1, calls;
    double pct, secs;
    unsigned long usecs;
    if (!f)
        return -1;
    while (fgets(line, sizeof(line), f)) {
        /* % time  seconds  usecs/call  calls  [errors]  syscall */
        if (sscanf(line, "%lf %lf %lu %ld %63s", &pct, &secs, &usecs, &calls, name) == 5 &&
            (strstr(line, " fsync") || strstr(line, " fdatasync")))
            total = (total < 0 ? 0 : total) + calls;
    }
    fclose(f);
    return total < 0 ? 0 : total;
}

static int run_console(struct bench *b, unsigned round)
{
    char in[600], none[600], tr[600];
    snprintf(in, sizeof(in), "%s/actions.jsonl", b->dir);
    snprintf(none, sizeof(none), "%s/none.jsonl", b->dir);
    snprintf(tr, sizeof(tr), "%s/strace.txt", b->dir);
    double start, work, s2, w2;
    long rss = -1;
    if (console_input(in, CONSOLE_ACTIONS) || console_input(none, 0) ||
        console_run(b, NULL, NULL, &start, &work, &rss) ||
        console_run(b, in, NULL, &s2, &work, NULL))
        return -1;
    b->con_start[round] = start;
    b->con_rss[round] = (double)rss / 1024.0;
    b->con_rate[round] = work > 0 ? CONSOLE_ACTIONS / work : 0;
    b->con_fsync[round] = -1;
    long base, with;
    if (console_run(b, none, tr, &s2, &w2, NULL) == 0 && (base = syncs_in(tr)) >= 0 &&
        console_run(b, in, tr, &s2, &w2, NULL) == 0 && (with = syncs_in(tr)) >= 0)
        b->con_fsync[round] = (double)(with - base) / CONSOLE_ACTIONS;
    return 0;
}

/* The path of program name next to this program (self: argv[0]). */
static void beside(const char *self, const char *name, char *path, size_t len)
{
    const char *slash = strrchr(self, '/');
    snprintf(path, len, "%.*s%s", slash ? (int)(slash - self + 1) : 0, self, name);
}

/* Whether the child said "ready" on fd within 15 s; closes fd. */
static bool child_ready(int fd)
{
    char line[8];
    struct pollfd p = {.fd = fd, .events = POLLIN};
    bool ready = poll(&p, 1, 15000) == 1 && read(fd, line, sizeof(line)) == 6 &&
                 memcmp(line, "ready\n", 6) == 0;
    close(fd);
    return ready;
}

/* Idle RSS in MB of bench_rss_floor, found next to this program; -1 when it
 * did not run. With use set, the program first uses each library once
 * (rss_floor.c) against a gateway of its own and the benchmark's REST
 * server, and its smaps are kept as rss_libuse.smaps. */
static double rss_floor(struct bench *b, const char *self, bool use)
{
    char path[600], store[700], rest[16], gw[16];
    int ready[2] = {-1, -1};
    beside(self, "bench_rss_floor", path, sizeof(path));
    struct fd_server *fd = use ? fd_start(TOKEN, 41250) : NULL;
    if (use && (!fd || pipe(ready) != 0)) {
        fd_stop(fd);
        return -1;
    }
    snprintf(store, sizeof(store), "%s/rss_floor.db", b->dir);
    snprintf(rest, sizeof(rest), "%d", br_port(b->rest));
    snprintf(gw, sizeof(gw), "%d", use ? fd_port(fd) : 0);
    pid_t pid = fork();
    if (pid == 0) {
        if (use) {
            dup2(ready[1], STDOUT_FILENO);
            execl(path, path, store, rest, gw, (char *)NULL);
        } else {
            execl(path, path, (char *)NULL);
        }
        _exit(127);
    }
    bool ok = pid > 0;
    if (use) {
        close(ready[1]);
        ok = ok && child_ready(ready[0]);
    }
    long kb = -1;
    if (ok) {
        msleep(1000);
        kb = proc_rss_kb(pid);
        if (getenv("BENCH_KEEP"))
            keep_smaps(b, pid, use ? "rss_libuse" : "rss_floor");
    }
    if (pid > 0) {
        kill(pid, SIGKILL);
        int st;
        waitpid(pid, &st, 0);
    }
    fd_stop(fd);
    return kb > 0 ? (double)kb / 1024.0 : -1;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* ---- the report ---- */

/* The median over the rounds of illegald's figure divided by the floor's,
 * each round's pair taken in the same minute; -1 without the floor. */
static double floor_ratio(const double *ill, const double *flo, unsigned n)
{
    double r[MAX_ROUNDS];
    unsigned k = 0;
    for (unsigned i = 0; flo && i < n; i++)
        if (ill[i] > 0 && flo[i] > 0)
            r[k++] = ill[i] / flo[i];
    return k ? median(r, k) : -1;
}

/* One row: a figure's medians for each bot, illegald's ratio to the floor
 * when ratio is set (else "–"), and the goal. */
static void row(const char *name, const double *djs, const double *ill, const double *flo,
                unsigned n, const char *fmt, bool ratio, const char *goal)
{
    char a[32] = "–", c[32] = "n/a", f[32] = "–", r[32] = "–";
    double mi = median(ill, n), fr = ratio ? floor_ratio(ill, flo, n) : -1;
    if (djs)
        snprintf(a, sizeof(a), fmt, median(djs, n));
    if (mi >= 0)
        snprintf(c, sizeof(c), fmt, mi);
    if (flo)
        snprintf(f, sizeof(f), fmt, median(flo, n));
    if (fr >= 0)
        snprintf(r, sizeof(r), "%.2f", fr);
    printf("| %-48s | %13s | %8s | %20s | %14s | %-28s |\n", name, a, c, f, r, goal);
}

/* illegald's CPU above the floor's, "illegald − floor (illegald, floor)" in µs. */
static void above(char *out, size_t len, const double *ill, const double *flo, unsigned n)
{
    double mi = median(ill, n), mf = median(flo, n);
    if (mi < 0)
        snprintf(out, len, "n/a");
    else
        snprintf(out, len, "%.1f µs (%.1f − %.1f)", mi - mf, mi, mf);
}

/* Sets the bench up: the bots' CPU, the floor bot's path, the work
 * directory and the REST server. Returns 0, or 1 with a message. */
static int bench_setup(struct bench *b, const char *self)
{
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    b->cpu = ncpu > 1 ? (int)ncpu - 1 : 0;
    if (ncpu > 1)
        proc_pin_away(b->cpu); /* before the servers start their threads */
    beside(self, "bench_floor_bot", b->floor_bot, sizeof(b->floor_bot));
    beside(self, "bench_floor_curl", b->floor_curl, sizeof(b->floor_curl));
    b->next_msg = 830000000000000001ul;
    mkdir(b->workdir, 0700);
    snprintf(b->dir, sizeof(b->dir), "%s/benchXXXXXX", b->workdir);
    if (!mkdtemp(b->dir) || !(b->rest = br_start())) {
        perror("bench setup");
        return 1;
    }
    b->rate_limit_key = probe_rate_limit_key(b);
    if (!b->rate_limit_key)
        printf("NOTE: this illegald refuses [discord] global_rate_limit: it keeps Discord's "
               "default global limit (50 requests/s): its command figures are not measured\n");
    printf("bots pinned to CPU %d of %ld; stores in %s\n", b->cpu, ncpu, b->dir);
    return 0;
}

/* Each round: every bot that can run, then the console. A bot other than
 * illegald that fails is left out of the figures (its flag cleared).
 * Returns 0, or 1 when illegald or the console failed. */
static int run_rounds(struct bench *b, unsigned rounds, bool *djs, bool *flo)
{
    for (unsigned r = 0; r < rounds; r++) {
        for (int bot = 0; bot < NBOTS; bot++) {
            if ((bot == BOT_DJS && !*djs) || (bot == BOT_FLOOR && !*flo) ||
                (bot == BOT_FLOOR_CURL && !b->floor_curl_on))
                continue;
            if (!run_bot(b, bot, r)) {
                if (bot == BOT_ILLEGALD)
                    return 1;
                if (bot == BOT_DJS)
                    printf("NOTE: the discord.js bot did not run: figures for illegald only\n");
                else
                    printf("NOTE: the %s bot did not complete: its figures are left out\n",
                           bot_names[bot]);
                *(bot == BOT_DJS ? djs : bot == BOT_FLOOR ? flo : &b->floor_curl_on) = false;
                continue;
            }
            double *f = &b->fig[bot][0][r];
            printf("round %u %-20s cmd %.0f us, ignored %.0f us, %.0f cmd/s (%.0f per CPU "
                   "second), p99 %.1f ms, start %.0f ms, RSS %.1f MB\n",
                   r + 1, bot_names[bot], f[F_CMD_CPU * MAX_ROUNDS], f[F_IGN_CPU * MAX_ROUNDS],
                   f[F_RATE * MAX_ROUNDS], f[F_CPU_RATE * MAX_ROUNDS], f[F_P99 * MAX_ROUNDS],
                   f[F_START * MAX_ROUNDS], f[F_RSS * MAX_ROUNDS]);
            fflush(stdout);
        }
        if (run_console(b, r) != 0) {
            fprintf(stderr, "the console run failed\n");
            return 1;
        }
        printf("round %u console       %.0f actions/s, %.2f fsyncs/action, start %.0f ms, "
               "RSS %.1f MB\n",
               r + 1, b->con_rate[r], b->con_fsync[r], b->con_start[r], b->con_rss[r]);
        fflush(stdout);
    }
    return 0;
}

/* The floor bot with libcurl for its REST, next to the floor: what libcurl
 * alone costs, in the ratios of the goals. */
static void libcurl_share(const double (*c)[MAX_ROUNDS], const double (*f)[MAX_ROUNDS],
                          unsigned rounds)
{
    printf("floor with libcurl / floor (the same bot, its REST requests through libcurl): CPU "
           "per command %.2f (%.0f vs %.0f µs), per ignored message %.2f, commands per CPU "
           "second %.2f (%.0f vs %.0f)\n",
           floor_ratio(c[F_CMD_CPU], f[F_CMD_CPU], rounds), median(c[F_CMD_CPU], rounds),
           median(f[F_CMD_CPU], rounds), floor_ratio(c[F_IGN_CPU], f[F_IGN_CPU], rounds),
           floor_ratio(c[F_CPU_RATE], f[F_CPU_RATE], rounds), median(c[F_CPU_RATE], rounds),
           median(f[F_CPU_RATE], rounds));
}

/* The table of README "Performance": each figure's medians, illegald's ratio
 * to the floor, the goal; then illegald's CPU above the floor's. */
static void report(struct bench *b, unsigned rounds, bool djs, bool flo, const char *self)
{
    printf("\n| %-48s | %13s | %8s | %20s | %14s | %-28s |\n", "figure (median of the rounds)",
           bot_names[BOT_DJS], bot_names[BOT_ILLEGALD], bot_names[BOT_FLOOR], "illegald / floor",
           "goal");
    printf("| --- | ---: | ---: | ---: | ---: | --- |\n");
    const double(*d)[MAX_ROUNDS] = djs ? b->fig[BOT_DJS] : NULL;
    const double(*i)[MAX_ROUNDS] = b->fig[BOT_ILLEGALD];
    const double(*f)[MAX_ROUNDS] = flo ? b->fig[BOT_FLOOR] : NULL;
    double floor_mb = rss_floor(b, self, false), use_mb = rss_floor(b, self, true);
    char rss_goal[64] = "≤ the libraries' + 1 MB";
    if (floor_mb > 0)
        snprintf(rss_goal, sizeof(rss_goal), "≤ %.1f (the libraries' + 1 MB)", floor_mb + 1);
    row("CPU per command at 1,000/s (µs)", d ? d[F_CMD_CPU] : NULL, i[F_CMD_CPU],
        f ? f[F_CMD_CPU] : NULL, rounds, "%.0f", true, "illegald / floor ≤ 1.15");
    row("CPU per ignored message at 1,000/s (µs)", d ? d[F_IGN_CPU] : NULL, i[F_IGN_CPU],
        f ? f[F_IGN_CPU] : NULL, rounds, "%.0f", true, "illegald / floor ≤ 1.10");
    row("commands per second of the bot's CPU, at full load", d ? d[F_CPU_RATE] : NULL,
        i[F_CPU_RATE], f ? f[F_CPU_RATE] : NULL, rounds, "%.0f", true, "illegald / floor ≥ 0.90");
    row("commands/s on one core, at full load (wall clock)", d ? d[F_RATE] : NULL, i[F_RATE],
        f ? f[F_RATE] : NULL, rounds, "%.0f", true, "–");
    row("p99 event → reply at 200/s (ms)", d ? d[F_P99] : NULL, i[F_P99], f ? f[F_P99] : NULL,
        rounds, "%.1f", false, "≤ 2");
    row("spawn → first answered command (ms)", d ? d[F_START] : NULL, i[F_START],
        f ? f[F_START] : NULL, rounds, "%.0f", false, "≤ 50");
    row("RSS idle, connected (MB)", d ? d[F_RSS] : NULL, i[F_RSS], f ? f[F_RSS] : NULL, rounds,
        "%.1f", false, rss_goal);
    row("console: acknowledged game actions/s (disk)", NULL, b->con_rate, NULL, rounds, "%.0f",
        false, "≥ 20,000");
    row("console: fsync+fdatasync per action", NULL, b->con_fsync, NULL, rounds, "%.2f", false,
        "< 1");
    row("console: start-up to first pong (ms)", NULL, b->con_start, NULL, rounds, "%.0f", false,
        "≤ 50");
    row("console: RSS idle (MB)", NULL, b->con_rss, NULL, rounds, "%.1f", false, rss_goal);
    row("the libraries alone, started: RSS idle (MB)", NULL, &floor_mb, NULL, 1, "%.1f", false,
        "–");
    row("the libraries used once as a bot must: RSS idle (MB)", NULL, &use_mb, NULL, 1, "%.1f",
        false, "–");
    if (!f)
        return;
    /* what of illegald's CPU the machine sets, and what is its own */
    char cmd[64], ign[64];
    above(cmd, sizeof(cmd), i[F_CMD_CPU], f[F_CMD_CPU], rounds);
    above(ign, sizeof(ign), i[F_IGN_CPU], f[F_IGN_CPU], rounds);
    printf("\nillegald − floor (sockets only), CPU per command at 1,000/s: %s; "
           "per ignored message: %s\n",
           cmd, ign);
    printf("of which in the kernel (clock ticks): per command illegald %.0f µs, floor %.0f "
           "µs; per ignored message illegald %.0f µs, floor %.0f µs\n",
           median(i[F_CMD_SYS], rounds), median(f[F_CMD_SYS], rounds), median(i[F_IGN_SYS], rounds),
           median(f[F_IGN_SYS], rounds));
    if (b->floor_curl_on)
        libcurl_share(b->fig[BOT_FLOOR_CURL], f, rounds);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s ILLEGALD WORKDIR [NODE_BOT_JS [ROUNDS]]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    static struct bench b;
    b.illegald = argv[1];
    b.workdir = argv[2];
    b.botjs = argc > 3 && argv[3][0] ? argv[3] : NULL;
    unsigned rounds = argc > 4 ? (unsigned)atoi(argv[4]) : 3;
    b.slash = getenv("BENCH_SLASH") != NULL;
    if (rounds > MAX_ROUNDS || (b.slash && rounds)) {
        fprintf(stderr, "%s\n", b.slash ? "BENCH_SLASH counts alone: ROUNDS must be 0" : "ROUNDS");
        return 2;
    }
    if (bench_setup(&b, argv[0]) != 0)
        return 1;
    printf("%u rounds\n", rounds);
    bool djs = b.botjs != NULL, flo = access(b.floor_bot, X_OK) == 0;
    b.floor_curl_on = flo && access(b.floor_curl, X_OK) == 0;
    if (!flo)
        printf("NOTE: %s is missing: the floor (sockets only) is not measured\n", b.floor_bot);
    int rc = run_rounds(&b, rounds, &djs, &flo);
    if (rc == 0 && rounds)
        report(&b, rounds, djs, flo, argv[0]);
    if (rc == 0 && !getenv("BENCH_NO_COUNTS"))
        instructions(&b, flo && !b.slash);
    br_stop(b.rest);
    /* the stores, logs and callgrind dumps are kept when something failed,
     * or when BENCH_KEEP is set (to read the dumps with callgrind_annotate) */
    if (rc == 0 && !getenv("BENCH_KEEP"))
        nftw(b.dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
    else
        printf("kept: %s\n", b.dir);
    return rc;
}
