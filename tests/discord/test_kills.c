/*
 * test_kills.c - kill -9 at every point of the outbox's way, over whole games:
 * nothing lost, nothing doubled; and a kill while a start waits for the DM
 * checks (test_kill_during_dm_checks).
 *
 * A 4-player game is played once without a kill, for reference; then the
 * same game, from the same seed and the same inputs, again and again, with
 * the daemon killed (SIGKILL) and restarted around most inputs, at one of
 * nine points: a new message (POST), an edit (PATCH) or an edit that only
 * takes a message's controls away, each either queued (the fake answers 429,
 * retry in 30 s), sent but not acknowledged (the fake holds its answer, having
 * applied the request or not) or acknowledged (killed just after the fake's
 * answer). The point is chosen among those met least so far, so every one is
 * met; at least KILLS_MIN kills in all, each point at least POINT_MIN times.
 *
 * Each killed game must end as the reference did: the table's messages, in
 * order, with the same final text and the same controls; each player's DMs
 * the same, but that an answer the reference gave through an interaction may
 * come as a DM instead (its interaction died with the daemon); no first
 * answer given twice. What tells of no change is not in the outbox and may
 * be lost (see about_no_change). KILL_SEED=<n> replays the choice of points
 * and, unless FD_SEED=<n> names one for every game, each game's variation of
 * the fake; a failure prints both.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e.h"

#define KILLS_MIN   100
#define POINT_MIN   5
#define GAMES_MAX   8
#define MET_WAIT_MS 300 /* how long a point may take to be met after an input */

enum point { QUEUED, SENT, ACKED, NPOINTS };
static const char *const point_names[NPOINTS] = {"queued", "sent", "acknowledged"};
static const char *const kind_names[3] = {"messages", "edits", "control removals"};

struct killer {
    unsigned rng;
    bool armed;
    enum fd_kind kind;
    enum point point;
    unsigned long answered; /* ACKED: the fake's count of answers of kind before the input */
    unsigned kills[3][NPOINTS];
    unsigned total, unmet;
    int connects; /* the connections the daemon made so far */
};

static unsigned next_rnd(struct killer *k)
{
    k->rng = k->rng * 1103515245u + 12345u;
    return (k->rng >> 16) & 0x7fff;
}

/* A builder's menu changes nothing but the adapter's memory: no kill there,
 * or the game would go another way than the reference. */
static bool builder_menu(const char *what)
{
    return strcmp(what, "tb:to") == 0 || strcmp(what, "tb:give") == 0 ||
           strcmp(what, "tb:ask") == 0;
}

/* The kinds of request an input makes the daemon send, as bits of fd_kind:
 * a control removal comes of an answered offer and of a vote's close. */
static unsigned kinds_of(const char *what)
{
    const unsigned post = 1u << FD_KIND_POST, edit = 1u << FD_KIND_EDIT,
                   close = 1u << FD_KIND_CLOSE;
    if (strncmp(what, "accept ", 7) == 0 || strncmp(what, "decline ", 8) == 0)
        return post | edit | close;
    if (strcmp(what, "next") == 0)
        return post | edit | close;
    if (strcmp(what, "new") == 0 || strcmp(what, "tb:send") == 0 || strncmp(what, "offer ", 6) == 0)
        return post;
    if (strcmp(what, "!illegal start") == 0)
        return post | edit;
    return edit; /* a join, a reaction, a vote: an edited lobby, drop or count */
}

static void before(struct e2e *e, const char *what)
{
    struct killer *k = e->hook;
    k->armed = false;
    if (builder_menu(what))
        return;
    /* of the points this input can meet, the one met least so far; among
     * equals, one at random */
    unsigned best = UINT32_MAX, pick = 0, ties = 0, kinds = kinds_of(what);
    for (unsigned c = 0; c < 3 * NPOINTS; c++) {
        if (!(kinds & (1u << (c / NPOINTS))))
            continue;
        unsigned n = k->kills[c / NPOINTS][c % NPOINTS];
        if (n < best) {
            best = n;
            pick = c;
            ties = 1;
        } else if (n == best && next_rnd(k) % ++ties == 0) {
            pick = c;
        }
    }
    k->kind = (enum fd_kind)(pick / NPOINTS);
    k->point = (enum point)(pick % NPOINTS);
    k->armed = true;
    switch (k->point) {
    case QUEUED:
        fd_delay_next(e->srv, k->kind, NULL, 30.0);
        break;
    case SENT:
        fd_hold_next(e->srv, k->kind, NULL, next_rnd(k) % 2);
        break;
    default:
        k->answered = fd_answered(e->srv, k->kind);
        break;
    }
}

static bool met(struct e2e *e, struct killer *k)
{
    return k->point == ACKED ? fd_answered(e->srv, k->kind) > k->answered : fd_trap_sprung(e->srv);
}

static void after(struct e2e *e, const char *what)
{
    struct killer *k = e->hook;
    (void)what;
    if (!k->armed)
        return;
    k->armed = false;
    int waited = 0;
    while (!met(e, k) && waited < MET_WAIT_MS) {
        msleep(10);
        waited += 10;
    }
    if (!met(e, k)) {
        /* this input sent nothing of that kind: no kill */
        fd_disarm(e->srv);
        k->unmet++;
        return;
    }
    if (k->point == ACKED)
        msleep((int)(next_rnd(k) % 150)); /* its answer read, or not yet */
    assert_int_equal(daemon_stop(&e->d, SIGKILL, 10000), 128 + SIGKILL);
    fd_disarm(e->srv);
    k->kills[k->kind][k->point]++;
    k->total++;
    daemon_start(&e->d, SEED);
    k->connects++;
    wait_until(e, is_ready, &k->connects, "the daemon back after a kill");
}

/* ---- what a game left ---- */

/* text without countdowns ("<t:1764…:R>"), which follow the wall clock. */
static void normalize(const char *text, char *out, size_t len)
{
    size_t o = 0;
    for (const char *p = text; *p && o + 1 < len; p++) {
        if (strncmp(p, "<t:", 3) == 0) {
            const char *q = p + 3;
            while (*q >= '0' && *q <= '9')
                q++;
            if (*q == ':' && q[1] && q[2] == '>') {
                p = q + 2;
                continue;
            }
        }
        out[o++] = *p;
    }
    out[o] = '\0';
}

/* A message as it ends: its text (content, then its embed's), and its rows
 * of controls. */
static void ending(struct json_object *m, char *out, size_t len)
{
    struct json_object *body = jget(m, "body");
    const char *c = jstr(body, "content"), *d = embed_text(m);
    char raw[8192], text[8192];
    snprintf(raw, sizeof raw, "%s|%s", c ? c : "", d ? d : "");
    normalize(raw, text, sizeof text);
    snprintf(out, len, "%s|rows=%zu", text, json_object_array_length(jget(body, "components")));
}

/* The one message of the game that tells of no change, and so is not kept in
 * the outbox (bot/turn.c, T5): the notice that a start waits for the DM
 * checks. A kill may take it; it is left out of the comparison. */
static bool about_no_change(struct json_object *m)
{
    const char *c = jstr(jget(m, "body"), "content");
    return c && strncmp(c, "Checking that every player", 26) == 0;
}

/* Every message of channel (or of user's DMs), as it ends, in the order posted. */
static struct json_object *endings(struct json_object *s, const char *channel, const char *user)
{
    struct json_object *msgs = jget(s, "messages"), *out = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *u = jstr(m, "dm_user");
        if (about_no_change(m))
            continue;
        if (channel ? strcmp(jstr(m, "channel"), channel) == 0 : (u && strcmp(u, user) == 0)) {
            char e[9000];
            ending(m, e, sizeof e);
            json_object_array_add(out, json_object_new_string(e));
        }
    }
    return out;
}

/* The first answers (their text) the reference gave user through interactions. */
static struct json_object *answered_to(struct json_object *s, const char *user)
{
    struct json_object *cbs = jget(s, "callbacks"), *out = json_object_new_array();
    for (size_t i = 0; i < json_object_array_length(cbs); i++) {
        struct json_object *c = json_object_array_get_idx(cbs, i);
        const char *u = jstr(c, "user"), *t = jstr(jget(c, "data"), "content");
        char text[4096];
        if (u && t && strcmp(u, user) == 0) {
            normalize(t, text, sizeof text);
            char e[4200];
            snprintf(e, sizeof e, "%s||rows=0", text);
            json_object_array_add(out, json_object_new_string(e));
        }
    }
    return out;
}

/* Takes one string equal to want out of list; false when there is none. */
static bool take(struct json_object *list, const char *want)
{
    for (size_t i = 0; i < json_object_array_length(list); i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(list, i)), want) == 0) {
            json_object_array_del_idx(list, i, 1);
            return true;
        }
    return false;
}

/* The killed game ended as the reference: the table in order; each player's
 * DMs as a whole, but for answers that came by DM instead of through their
 * interaction. */
static void assert_same_ending(struct e2e *e, struct json_object *ref, struct json_object *got)
{
    struct json_object *want = endings(ref, TABLE, NULL), *have = endings(got, TABLE, NULL);
    if (!json_object_equal(want, have)) {
        fprintf(stderr, "table, reference:\n%s\ntable, with kills:\n%s\n",
                json_object_to_json_string_ext(want, JSON_C_TO_STRING_PRETTY),
                json_object_to_json_string_ext(have, JSON_C_TO_STRING_PRETTY));
        daemon_dump_log(&e->d);
        fail_msg("the table differs from the reference");
    }
    json_object_put(want);
    json_object_put(have);
    for (unsigned i = 0; i < e->n; i++) {
        const char *user = e->players[i];
        want = endings(ref, NULL, user);
        have = endings(got, NULL, user);
        struct json_object *spare = answered_to(ref, user);
        for (size_t k = 0; k < json_object_array_length(want); k++) {
            const char *w = json_object_get_string(json_object_array_get_idx(want, k));
            if (!take(have, w)) {
                daemon_dump_log(&e->d);
                fprintf(stderr, "%s's other DMs: %s\n", fdc_name(user),
                        json_object_to_json_string_ext(have, JSON_C_TO_STRING_PRETTY));
                fail_msg("%s's DMs lost: %s", fdc_name(user), w);
            }
        }
        for (size_t k = 0; k < json_object_array_length(have); k++) {
            const char *h = json_object_get_string(json_object_array_get_idx(have, k));
            if (!take(spare, h)) {
                daemon_dump_log(&e->d);
                fail_msg("%s's DMs have one more: %s", fdc_name(user), h);
            }
        }
        json_object_put(want);
        json_object_put(have);
        json_object_put(spare);
    }
    assert_int_equal(json_object_get_int(jget(got, "invalid")), 0);
}

/* What the daemon logs when its stop ended the 5 s it gives what is queued
 * with requests still to go (adapters/discord/discord.c); they stay in the
 * outbox for the next start. */
#define NOT_SENT  "requests not sent"
#define STOPS_MAX 10

/* Plays the game and stops the daemon, which sends what it has queued first
 * (the recap follows the result). What did not go in the 5 s a stop gives
 * (a loaded machine; a daemon back from a kill, with every DM channel to open
 * again) goes at the next start: it is started and stopped again until a
 * stop leaves nothing, and what the server then has is all. */
static struct json_object *play(struct e2e *e)
{
    char *result = play_game(e);
    assert_non_null(strstr(result, "Game over"));
    free(result);
    e->before = e->after = NULL;
    for (unsigned stops = 1;; stops++) {
        long from = daemon_log_size(&e->d);
        assert_int_equal(daemon_stop(&e->d, SIGTERM, 10000), 0);
        if (!daemon_log_has(&e->d, from, NOT_SENT))
            break;
        assert_true(stops < STOPS_MAX);
        fprintf(stderr, "kills: stop %u left requests unsent; the daemon starts again\n", stops);
        int connects = gw(e, "connects") + 1;
        daemon_start(&e->d, SEED);
        wait_until(e, is_ready, &connects, "the daemon back to send what is left");
    }
    return snap(e);
}

/* The seeds a run depends on, printed when it fails (kills_teardown). */
static struct {
    unsigned kill_seed;
    unsigned game;           /* 0: the reference */
    unsigned long fake_seed; /* the fake's of that game */
    bool done;
} run;

/* Game game's fake's variation seed: from the kill seed, so that KILL_SEED
 * alone replays it, unless FD_SEED names one (0: the fake reads it). */
static unsigned long fake_seed_of(unsigned game)
{
    if (getenv("FD_SEED"))
        return 0;
    unsigned long v = (unsigned long)run.kill_seed * 2654435761ul + game * 40503ul + 1;
    return v ? v : 1;
}

static void setup_game(struct e2e *e, unsigned game)
{
    run.game = game;
    e2e_fd_seed = fake_seed_of(game);
    setup_e2e(e, 4, false);
    run.fake_seed = fd_seed(e->srv);
}

static int kills_teardown(void **state)
{
    if (!run.done)
        fprintf(stderr,
                "kills: failed in game %u (0: the reference); KILL_SEED=%u replays the run, "
                "and that game's fake varied from FD_SEED=%lu\n",
                run.game, run.kill_seed, run.fake_seed);
    return kill_live(state);
}

static void test_kills(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    const char *seed = getenv("KILL_SEED");
    run.kill_seed = seed ? (unsigned)strtoul(seed, NULL, 10) : (unsigned)time(NULL);
    fprintf(stderr, "kills: seed %u (KILL_SEED=%u replays it)\n", run.kill_seed, run.kill_seed);
    setup_game(&e, 0);
    struct json_object *ref = play(&e);
    teardown_e2e(&e);
    struct killer k = {.rng = run.kill_seed};
    for (unsigned game = 0; game < GAMES_MAX; game++) {
        bool done = k.total >= KILLS_MIN;
        for (unsigned c = 0; c < 3 * NPOINTS; c++)
            done = done && k.kills[c / NPOINTS][c % NPOINTS] >= POINT_MIN;
        if (done)
            break;
        setup_game(&e, game + 1);
        k.connects = 1;
        e.before = before;
        e.after = after;
        e.hook = &k;
        struct json_object *got = play(&e);
        fprintf(stderr, "game %u: %u kills so far, %u inputs without their point\n", game + 1,
                k.total, k.unmet);
        assert_same_ending(&e, ref, got);
        json_object_put(got);
        teardown_e2e(&e);
    }
    json_object_put(ref);
    for (unsigned kind = 0; kind < 3; kind++)
        for (unsigned p = 0; p < NPOINTS; p++) {
            fprintf(stderr, "kills of %s %s: %u\n", kind_names[kind], point_names[p],
                    k.kills[kind][p]);
            assert_true(k.kills[kind][p] >= POINT_MIN);
        }
    assert_true(k.total >= KILLS_MIN);
    run.done = true;
}

static bool checking_dms(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return table_content(s, "Checking that every player") != NULL;
}

static bool lobby_open(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return table_message(s, "Illegal — lobby", 0) != NULL;
}

/* A kill -9 while a start waits for the DM checks: the host's Start was
 * answered ("Checking that every player can get DMs"), so after the restart
 * the start goes on and every player gets a hand. The DM channels open only
 * after 30 s meanwhile, and a lobby opened at another table commits the
 * gateway's position past the Start, which is then not delivered again. */
static void test_kill_during_dm_checks(void **state)
{
    (void)state;
    static struct e2e e;
    setup_e2e(&e, 4, false);
    slash(&e, 0, "new", "[{\"name\":\"variant\",\"type\":3,\"value\":\"standard\"}]");
    struct msg_want lobby = {.title = "Illegal — lobby", .n = 0};
    wait_until(&e, message_ready, &lobby, "the lobby");
    fd_force_429(e.srv, "/users/@me/channels", 4, false, 30.0);
    seat_all_and_start(&e, &lobby);
    wait_until(&e, checking_dms, NULL, "the DM checks");
    e2e_table = "530000000000000002";
    slash(&e, 1, "new", "[{\"name\":\"variant\",\"type\":3,\"value\":\"standard\"}]");
    wait_until(&e, lobby_open, NULL, "a lobby at another table");
    e2e_table = TABLE;
    assert_int_equal(daemon_stop(&e.d, SIGKILL, 10000), 128 + SIGKILL);
    fd_clear_forces(e.srv);
    daemon_start(&e.d, SEED);
    int two = 2;
    wait_until(&e, is_ready, &two, "the daemon back after the kill");
    for (unsigned i = 0; i < e.n; i++)
        json_object_put(wait_dm(&e, e.players[i], "tb:give"));
    teardown_e2e(&e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_kill_during_dm_checks, kill_live),
        cmocka_unit_test_teardown(test_kills, kills_teardown),
    };
    return e2e_run(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
