/*
 * bench_discord.c - load benchmark: the real daemon hosts N concurrent
 * 4-player games on the Discord test server; players fire slash commands
 * that the bot answers at once (status in the table, offers in private), and
 * the benchmark reports events/s, the p50/p99 latency from the gateway
 * dispatch to the interaction answer reaching the server, the daemon's peak
 * RSS and how many 429s the server gave.
 *
 * usage: bench_discord ILLEGALD [GAMES [ROUNDS]]   (defaults 20 games, 5 rounds)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "daemon.h"
#include "fdclient.h"

#define PLAYERS 4
/* Setting games up is bound by Discord's global 50 requests/s (about 25
 * requests a game): the wait grows with the number of games. */
#define WAIT_MS(b) (60000 + (int)(b)->games * 1000)
#define MAX_EVENTS 200000

struct bench {
    struct fd_server *srv;
    struct daemon d;
    unsigned games, rounds;
    unsigned long next_id;
    /* the measured events: interaction id -> when it was dispatched */
    unsigned long first_id;
    size_t callbacks_before;
    double *sent_at;
    unsigned nsent;
};

static void msleep(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static struct json_object *jget(struct json_object *o, const char *k)
{
    struct json_object *v = NULL;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static const char *jstr(struct json_object *o, const char *k)
{
    struct json_object *v = jget(o, k);
    return v ? json_object_get_string(v) : NULL;
}

static void table_id(unsigned g, char *out, size_t len)
{
    snprintf(out, len, "54000000000000%04u", g);
}

static void player_id(unsigned g, unsigned p, char *out, size_t len)
{
    snprintf(out, len, "6300000000%04u%02u", g, p);
}

static void slash(struct bench *b, unsigned g, unsigned p, const char *sub, bool measured)
{
    char id[32], table[32], user[32];
    if (measured && b->nsent < MAX_EVENTS)
        b->sent_at[b->nsent++] = fd_now();
    snprintf(id, sizeof(id), "%lu", b->next_id++);
    table_id(g, table, sizeof(table));
    player_id(g, p, user, sizeof(user));
    fdc_slash(b->srv, id, FD_GUILD_ID, table, user, sub, NULL,
              p == 0 ? FD_PERM_MANAGE_GUILD : FD_PERM_NONE);
}

/* A press on game g's lobby, on its control for action ("!illegal join"),
 * as the server has it. */
static void click(struct bench *b, struct json_object *s, unsigned g, unsigned p,
                  const char *action)
{
    char id[32], table[32], user[32], cid[128] = "";
    const char *msg = "";
    snprintf(id, sizeof(id), "%lu", b->next_id++);
    table_id(g, table, sizeof(table));
    player_id(g, p, user, sizeof(user));
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        struct json_object *rows = jget(jget(m, "body"), "components");
        if (strcmp(json_object_get_string(jget(m, "channel")), table) != 0)
            continue;
        for (size_t r = 0; r < json_object_array_length(rows); r++) {
            struct json_object *items = jget(json_object_array_get_idx(rows, r), "components");
            for (size_t k = 0; k < json_object_array_length(items); k++) {
                const char *c =
                    json_object_get_string(jget(json_object_array_get_idx(items, k), "custom_id"));
                const char *sep = c ? strchr(c, '#') : NULL;
                if (sep && strcmp(sep + 1, action) == 0) {
                    snprintf(cid, sizeof cid, "%s", c);
                    msg = json_object_get_string(jget(m, "id"));
                }
            }
        }
    }
    fdc_component(b->srv, id, FD_GUILD_ID, table, user, msg, cid, NULL);
}

/* Waits until pred holds on the server's record; false on timeout. */
static bool wait_for(struct bench *b, bool (*pred)(struct bench *, struct json_object *))
{
    for (int waited = 0; waited < WAIT_MS(b); waited += 250) {
        struct json_object *s = fd_snapshot(b->srv);
        bool ok = pred(b, s);
        json_object_put(s);
        if (ok)
            return true;
        msleep(250); /* a snapshot copies the whole record: not too often */
    }
    return false;
}

static bool ready(struct bench *b, struct json_object *s)
{
    (void)b;
    return json_object_get_boolean(jget(jget(s, "gateway"), "ready")) &&
           json_object_array_length(jget(s, "commands")) > 0;
}

static unsigned count_titled(struct json_object *s, const char *title)
{
    struct json_object *msgs = jget(s, "messages");
    unsigned n = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *t =
            jstr(json_object_array_get_idx(jget(jget(m, "body"), "embeds"), 0), "title");
        if (t && strcmp(t, title) == 0)
            n++;
    }
    return n;
}

static bool lobbies_open(struct bench *b, struct json_object *s)
{
    return count_titled(s, "Illegal — lobby") >= b->games;
}

static bool games_started(struct bench *b, struct json_object *s)
{
    return count_titled(s, "Your hand") >= b->games * PLAYERS;
}

/* Every measured event answered: counted without copying the record, which
 * would hold the server up while the load runs. */
static bool all_answered(struct bench *b)
{
    for (int waited = 0; waited < WAIT_MS(b); waited += 20) {
        if (fd_callback_count(b->srv) >= b->callbacks_before + b->nsent)
            return true;
        msleep(20);
    }
    return false;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s ILLEGALD [GAMES [ROUNDS]]\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    struct bench b = {0};
    b.games = argc > 2 ? (unsigned)atoi(argv[2]) : 20;
    b.rounds = argc > 3 ? (unsigned)atoi(argv[3]) : 5;
    if (b.games < 1 || b.games > 9999 || b.rounds < 1)
        return 2;
    b.next_id = 820000000000000001ul;
    b.sent_at = calloc(MAX_EVENTS, sizeof(*b.sent_at));
    b.srv = fd_start("test-token", 5000);
    if (!b.sent_at || !b.srv)
        return 1;
    daemon_setup(&b.d, argv[1], b.srv,
                 "session_seconds = 3600\nreveal_seconds = 1\ngrab_seconds = 600\n"
                 "debate_seconds = 600\nvote_seconds = 600\n");
    daemon_start(&b.d, "7");
    int rc = 1;
    if (!wait_for(&b, ready))
        goto out;
    /* set up every game: open, four joins by button, start by button */
    double setup0 = fd_now();
    for (unsigned g = 0; g < b.games; g++)
        slash(&b, g, 0, "new", false);
    if (!wait_for(&b, lobbies_open))
        goto out;
    struct json_object *lobbies = fd_snapshot(b.srv);
    for (unsigned g = 0; g < b.games; g++) {
        for (unsigned p = 0; p < PLAYERS; p++)
            click(&b, lobbies, g, p, "!illegal join");
        click(&b, lobbies, g, 0, "!illegal start");
    }
    json_object_put(lobbies);
    if (!wait_for(&b, games_started))
        goto out;
    /* the measured load: every player asks, every game at once */
    double setup = fd_now() - setup0;
    b.first_id = b.next_id;
    b.callbacks_before = fd_callback_count(b.srv);
    double t0 = fd_now();
    for (unsigned r = 0; r < b.rounds; r++)
        for (unsigned g = 0; g < b.games; g++)
            for (unsigned p = 0; p < PLAYERS; p++)
                slash(&b, g, p, (p + r) % 2 ? "status" : "offers", true);
    if (!all_answered(&b))
        goto out;
    struct json_object *s = fd_snapshot(b.srv);
    struct json_object *cbs = jget(s, "callbacks");
    double *lat = calloc(b.nsent, sizeof(*lat)), last = t0;
    unsigned n = 0;
    for (size_t i = 0; lat && i < json_object_array_length(cbs); i++) {
        struct json_object *c = json_object_array_get_idx(cbs, i);
        unsigned long id = strtoul(jstr(c, "id"), NULL, 10);
        if (id < b.first_id || id - b.first_id >= b.nsent)
            continue;
        double t = json_object_get_double(jget(c, "t"));
        lat[n++] = (t - b.sent_at[id - b.first_id]) * 1000.0;
        if (t > last)
            last = t;
    }
    if (n) {
        qsort(lat, n, sizeof(*lat), cmp_double);
        double secs = last - t0;
        printf("discord bench: %u games x %u players set up in %.1f s; %u events in %.2f s: "
               "%.0f events/s, latency p50 %.1f ms p99 %.1f ms, daemon peak RSS %ld kB, "
               "429s %d (global %d)\n",
               b.games, PLAYERS, setup, n, secs, secs > 0 ? n / secs : 0.0, lat[n / 2],
               lat[(size_t)((n - 1) * 0.99)], daemon_peak_rss_kb(&b.d),
               json_object_get_int(jget(s, "r429")), json_object_get_int(jget(s, "r429_global")));
        rc = n == b.nsent ? 0 : 1;
    }
    free(lat);
    json_object_put(s);
out:
    if (rc)
        daemon_dump_log(&b.d);
    if (daemon_stop(&b.d, SIGTERM, 20000) != 0) {
        fprintf(stderr, "the daemon did not exit cleanly\n");
        rc = 1;
    }
    daemon_cleanup(&b.d);
    fd_stop(b.srv);
    free(b.sent_at);
    return rc;
}
