/*
 * test_e2e.c - the real daemon (build/bin/illegald, a separate process)
 * plays whole games on the Discord test server, which runs in this process:
 * the host opens the game with /illegal new, players join with the lobby's
 * Join button, trade by DM text, with the trade builder's selects and the
 * offers' Accept/Decline buttons, grab drop cards with reactions, and vote
 * with the tribunal's buttons, by DM text and with /illegal abstain. One run
 * drops the gateway connection at 20 or more random points and must end
 * with the same result as the uninterrupted one. The last test stops the
 * daemon with SIGTERM mid-lobby and checks that a restart resumes the
 * gateway session without losing what happened meanwhile. The last one plays
 * with 30 s sessions that end on their timer and counts the messages posted
 * at the table: at most 30, none refused, no control left live.
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

#include "bot/platform.h"
#include "daemon.h"
#include "fdclient.h"

#define TABLE      "530000000000000001"
#define MAXP       8
#define WAIT_MS    20000
#define SEED       "4242"
#define CLOSE_4000 4000

static const char *illegald_path;

struct e2e {
    struct fd_server *srv;
    struct daemon d;
    unsigned long next_id; /* interaction and message ids */
    char players[MAXP][32];
    unsigned n;
    bool drops;                /* drop the gateway connection at random points */
    unsigned ndrops;           /* how many times it was dropped */
    unsigned rnd;              /* the test's own random numbers */
    bool timed;                /* sessions end on their timer, not by /illegal next */
    int wait_ms;               /* how long wait_until() waits */
    struct json_object *ixs;   /* interaction ids sent, for the "every one answered" check */
    struct json_object *votes; /* ids of the vote button clicks */
};

/* ---- small helpers ---- */

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

static unsigned rnd(struct e2e *e)
{
    e->rnd = e->rnd * 1103515245u + 12345u;
    return (e->rnd >> 16) & 0x7fff;
}

static const char *new_id(struct e2e *e, char *buf, size_t len)
{
    snprintf(buf, len, "%lu", e->next_id++);
    return buf;
}

static bool connected(struct e2e *e);

/* After an input, sometimes cut the gateway connection (once the daemon is
 * back on it): the daemon must resume and get the input (replayed) exactly
 * once. */
static void maybe_drop(struct e2e *e)
{
    if (e->drops && rnd(e) % 3 == 0) {
        for (int waited = 0; !connected(e) && waited < WAIT_MS; waited += 10)
            msleep(10);
        fd_drop(e->srv);
        e->ndrops++;
        for (int waited = 0; connected(e) && waited < WAIT_MS; waited += 5)
            msleep(5);
    }
}

/* ---- the daemon ---- */

#define GAME_TIMERS                                                                                \
    "session_seconds = 600\nreveal_seconds = 1\ngrab_seconds = 600\n"                              \
    "debate_seconds = 600\nvote_seconds = 600\n"

static struct json_object *snap(struct e2e *e)
{
    return fd_snapshot(e->srv);
}

static int gw(struct e2e *e, const char *field)
{
    struct json_object *s = snap(e);
    int v = json_object_get_int(jget(jget(s, "gateway"), field));
    json_object_put(s);
    return v;
}

static bool connected(struct e2e *e)
{
    struct json_object *s = snap(e);
    struct json_object *g = jget(s, "gateway");
    bool up =
        json_object_get_boolean(jget(g, "connected")) && json_object_get_boolean(jget(g, "ready"));
    json_object_put(s);
    return up;
}

/* The daemon of the running test, so that a failed test does not leave it
 * running (cmocka leaves the test function at the failed assertion). */
static struct daemon *live;

static int kill_live(void **state)
{
    (void)state;
    if (live)
        daemon_cleanup(live);
    live = NULL;
    return 0;
}

/* Polls the server's record until pred says yes; fails the test on timeout. */
static void wait_until(struct e2e *e, bool (*pred)(struct e2e *, struct json_object *, void *),
                       void *arg, const char *what)
{
    for (int waited = 0;; waited += 20) {
        struct json_object *s = snap(e);
        bool ok = pred(e, s, arg);
        json_object_put(s);
        if (ok)
            return;
        if (waited > e->wait_ms) {
            fprintf(stderr, "timed out waiting for %s\n", what);
            daemon_dump_log(&e->d);
            fail();
        }
        msleep(20);
    }
}

static bool is_ready(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    int want = *(int *)arg;
    struct json_object *g = jget(s, "gateway");
    return json_object_get_boolean(jget(g, "ready")) &&
           json_object_get_int(jget(g, "connects")) >= want &&
           json_object_array_length(jget(s, "commands")) > 0;
}

static void setup_e2e_timers(struct e2e *e, unsigned nplayers, bool drops, const char *timers)
{
    memset(e, 0, sizeof(*e));
    e->srv = fd_start("test-token", 1000);
    assert_non_null(e->srv);
    /* an application that may read message content; the games without it say so */
    fd_set_privileged(e->srv, FD_INTENT_MESSAGE_CONTENT);
    daemon_setup(&e->d, illegald_path, e->srv, timers);
    e->next_id = 810000000000000001ul;
    e->n = nplayers;
    e->drops = drops;
    e->rnd = 99;
    e->wait_ms = WAIT_MS;
    e->ixs = json_object_new_array();
    e->votes = json_object_new_array();
    static const char *const names[MAXP] = {"alice", "bob",   "carol", "dave",
                                            "erin",  "frank", "grace", "heidi"};
    for (unsigned i = 0; i < nplayers; i++) {
        snprintf(e->players[i], sizeof(e->players[i]), "6100000000000000%02u", i);
        fdc_set_name(e->players[i], names[i]);
    }
    daemon_start(&e->d, SEED);
    live = &e->d;
    int one = 1;
    wait_until(e, is_ready, &one, "the daemon's gateway session");
}

static void setup_e2e(struct e2e *e, unsigned nplayers, bool drops)
{
    /* phases end by /illegal next, except the reveal, which runs on its 1 s timer */
    setup_e2e_timers(e, nplayers, drops, GAME_TIMERS);
}

static void teardown_e2e(struct e2e *e)
{
    live = NULL;
    daemon_cleanup(&e->d);
    fd_stop(e->srv);
    json_object_put(e->ixs);
    json_object_put(e->votes);
}

/* ---- what players do ---- */

static void slash(struct e2e *e, unsigned who, const char *sub, const char *opts)
{
    char id[32];
    new_id(e, id, sizeof(id));
    json_object_array_add(e->ixs, json_object_new_string(id));
    fdc_slash(e->srv, id, FD_GUILD_ID, TABLE, e->players[who], sub, opts,
              who == 0 ? FD_PERM_MANAGE_GUILD : FD_PERM_NONE);
    maybe_drop(e);
}

static struct json_object *snap(struct e2e *e);
static struct json_object *component(struct json_object *m, const char *action);

/* The custom_id of message msg's control for action, as the fake has it
 * (into out), or the action itself when it has none (a press that is meant
 * to be refused). */
static const char *control_of(struct e2e *e, const char *msg, const char *action, char *out,
                              size_t len)
{
    struct json_object *s = snap(e), *msgs = jget(s, "messages");
    snprintf(out, len, "%s", action);
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *cid = jstr(component(m, action), "custom_id");
        if (strcmp(jstr(m, "id"), msg) == 0 && cid)
            snprintf(out, len, "%s", cid);
    }
    json_object_put(s);
    return out;
}

/* A press on message msg's control for action. */
static void click(struct e2e *e, unsigned who, const char *channel, bool dm, const char *msg,
                  const char *action, const char *values)
{
    char id[32], custom_id[128];
    new_id(e, id, sizeof(id));
    json_object_array_add(e->ixs, json_object_new_string(id));
    fdc_component(e->srv, id, dm ? NULL : FD_GUILD_ID, channel, e->players[who], msg,
                  control_of(e, msg, action, custom_id, sizeof custom_id), values);
    maybe_drop(e);
}

static void say_dm(struct e2e *e, unsigned who, const char *channel, const char *text)
{
    char id[32];
    fdc_message(e->srv, new_id(e, id, sizeof(id)), NULL, channel, e->players[who], text);
    maybe_drop(e);
}

static void react(struct e2e *e, unsigned who, const char *msg, const char *emoji)
{
    fdc_reaction(e->srv, FD_GUILD_ID, TABLE, msg, e->players[who], emoji);
    maybe_drop(e);
}

/* ---- reading what the bot posted ---- */

static const char *embed_title(struct json_object *m)
{
    return jstr(json_object_array_get_idx(jget(jget(m, "body"), "embeds"), 0), "title");
}

static const char *embed_text(struct json_object *m)
{
    return jstr(json_object_array_get_idx(jget(jget(m, "body"), "embeds"), 0), "description");
}

/* Whether custom_id is the control for action: "<message key>#<action>". */
static bool is_control(const char *custom_id, const char *action)
{
    const char *sep = custom_id ? strchr(custom_id, '#') : NULL;
    return sep && strcmp(sep + 1, action) == 0;
}

/* Message m's button or select for action ("tb:give", "accept 1"), or NULL. */
static struct json_object *component(struct json_object *m, const char *action)
{
    struct json_object *rows = jget(jget(m, "body"), "components");
    for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
        struct json_object *items = jget(json_object_array_get_idx(rows, i), "components");
        for (size_t k = 0; items && k < json_object_array_length(items); k++) {
            struct json_object *c = json_object_array_get_idx(items, k);
            if (is_control(jstr(c, "custom_id"), action))
                return c;
        }
    }
    return NULL;
}

static bool has_component(struct json_object *m, const char *action)
{
    return component(m, action) != NULL;
}

static struct json_object *select_options(struct json_object *m, const char *action)
{
    return jget(component(m, action), "options");
}

/* The n-th (0-based) table message whose embed has this title, or NULL. */
static struct json_object *table_message(struct json_object *s, const char *title, int n)
{
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *t = embed_title(m);
        if (strcmp(jstr(m, "channel"), TABLE) == 0 && t && strcmp(t, title) == 0 && n-- == 0)
            return m;
    }
    return NULL;
}

/* The last DM message to user carrying component custom_id, or NULL. */
static struct json_object *dm_with(struct json_object *s, const char *user, const char *custom_id)
{
    struct json_object *msgs = jget(s, "messages"), *found = NULL;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *u = jstr(m, "dm_user");
        if (u && strcmp(u, user) == 0 && has_component(m, custom_id))
            found = m;
    }
    return found;
}

struct msg_want {
    const char *title;
    int n;
    const char *text;  /* the embed text contains it, when set */
    int min_edits;     /* at least this many edits */
    int min_reactions; /* at least this many reactions */
    char id[32];       /* out: the message id */
    char channel[32];  /* out */
};

static bool message_ready(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct msg_want *w = arg;
    struct json_object *m = table_message(s, w->title, w->n);
    if (!m || json_object_get_int(jget(m, "edits")) < w->min_edits ||
        (int)json_object_array_length(jget(m, "reactions")) < w->min_reactions)
        return false;
    if (w->text && (!embed_text(m) || !strstr(embed_text(m), w->text)))
        return false;
    snprintf(w->id, sizeof(w->id), "%s", jstr(m, "id"));
    snprintf(w->channel, sizeof(w->channel), "%s", jstr(m, "channel"));
    return true;
}

struct dm_want {
    const char *user;
    const char *custom_id;
    struct json_object *msg; /* out: a copy */
};

static bool dm_ready(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct dm_want *w = arg;
    struct json_object *m = dm_with(s, w->user, w->custom_id);
    if (!m)
        return false;
    w->msg = json_tokener_parse(json_object_to_json_string(m));
    return true;
}

static struct json_object *wait_dm(struct e2e *e, const char *user, const char *custom_id)
{
    struct dm_want w = {user, custom_id, NULL};
    wait_until(e, dm_ready, &w, custom_id);
    return w.msg;
}

/* ---- one whole game ---- */

static void trade(struct e2e *e, unsigned session)
{
    unsigned a = (2 * session) % e->n, b = (2 * session + 1) % e->n;
    struct json_object *hand = wait_dm(e, e->players[a], "tb:give");
    const char *channel = jstr(hand, "channel");
    const char *give = jstr(json_object_array_get_idx(select_options(hand, "tb:give"), 0), "value");
    const char *ask = jstr(json_object_array_get_idx(select_options(hand, "tb:ask"), 1), "value");
    char cmd[160], offer[16], custom[32];
    snprintf(offer, sizeof(offer), "%u", session);
    if (session % 2) {
        /* typed in the DM: a gift ("1 guns", as the builder's first option) */
        snprintf(cmd, sizeof(cmd), "offer %s %s for nothing", fdc_name(e->players[b]), give);
        say_dm(e, a, channel, cmd);
    } else {
        /* the trade builder under the hand: the partner by id */
        char to[64];
        snprintf(to, sizeof(to), "[\"%s\"]", e->players[b]);
        char g[64], k[64];
        snprintf(g, sizeof(g), "[\"%s\"]", give);
        snprintf(k, sizeof(k), "[\"%s\"]", ask);
        const char *mid = jstr(hand, "id");
        click(e, a, channel, true, mid, "tb:to", to);
        click(e, a, channel, true, mid, "tb:give", g);
        click(e, a, channel, true, mid, "tb:ask", k);
        click(e, a, channel, true, mid, "tb:send", NULL);
    }
    /* the receiver gets the offer with its buttons; odd sessions accept */
    snprintf(custom, sizeof(custom), "%s %s", session % 2 ? "accept" : "decline", offer);
    struct json_object *o = wait_dm(e, e->players[b], custom);
    click(e, b, jstr(o, "channel"), true, jstr(o, "id"), custom, NULL);
    json_object_put(o);
    json_object_put(hand);
}

static void drop(struct e2e *e, int number)
{
    /* the reveal runs on its 1 s timer; grab once every card has its reaction */
    struct msg_want w = {.title = "Drop", .n = number - 1, .min_reactions = (int)e->n};
    wait_until(e, message_ready, &w, "the drop to open");
    struct json_object *s = snap(e);
    struct json_object *m = table_message(s, "Drop", number - 1);
    struct json_object *reactions = jget(m, "reactions");
    for (unsigned i = 0; i < e->n; i++) {
        /* each player takes a different card; the first one also tries a second */
        unsigned pick = (i + (unsigned)number) % e->n;
        react(e, i, w.id, json_object_get_string(json_object_array_get_idx(reactions, pick)));
        if (i == 0)
            react(e, i, w.id,
                  json_object_get_string(json_object_array_get_idx(reactions, (pick + 1) % e->n)));
    }
    json_object_put(s);
}

/* The n-th table message whose content has text, or NULL. */
static struct json_object *table_content(struct json_object *s, const char *text)
{
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *c = jstr(jget(m, "body"), "content");
        if (strcmp(jstr(m, "channel"), TABLE) == 0 && c && strstr(c, text))
            return m;
    }
    return NULL;
}

static bool case_opened(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return table_content(s, "Case 1 of") != NULL;
}

static bool results_posted(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return table_message(s, "Results", 0) != NULL;
}

struct vote_want {
    int n;
    bool over;
    char id[32];
};

static bool vote_or_over(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct vote_want *w = arg;
    struct json_object *m = table_message(s, "Tribunal", w->n);
    if (m) {
        snprintf(w->id, sizeof(w->id), "%s", jstr(m, "id"));
        return true;
    }
    w->over = table_message(s, "Results", 0) != NULL;
    return w->over;
}

static void tribunal(struct e2e *e)
{
    for (int kase = 0;; kase++) {
        slash(e, 0, "next", NULL); /* the debate ends */
        struct vote_want w = {.n = kase};
        wait_until(e, vote_or_over, &w, "a vote or the result");
        if (w.over)
            return;
        char custom[64];
        for (unsigned i = 0; i < e->n; i++) {
            unsigned target = i == 0 ? 1 : (kase % 2 ? 0 : (i + 1) % e->n);
            if (i == 2) {
                /* by DM text */
                struct json_object *hand = wait_dm(e, e->players[i], "tb:give");
                char cmd[64];
                snprintf(cmd, sizeof(cmd), "vote %s", fdc_name(e->players[target]));
                say_dm(e, i, jstr(hand, "channel"), cmd);
                json_object_put(hand);
            } else if (i == 3) {
                slash(e, i, "abstain", NULL);
            } else {
                snprintf(custom, sizeof(custom), "vote %s", e->players[target]);
                click(e, i, TABLE, false, w.id, custom, NULL);
                json_object_array_add(e->votes, json_object_get(json_object_array_get_idx(
                                                    e->ixs, json_object_array_length(e->ixs) - 1)));
            }
        }
        slash(e, 0, "next", NULL); /* the vote closes */
    }
}

/* Plays a game and returns the result text (malloc'd). */
/* Every player joins the open lobby, then the host starts the game. */
static void seat_all_and_start(struct e2e *e, struct msg_want *lobby)
{
    for (unsigned i = 0; i < e->n; i++)
        click(e, i, TABLE, false, lobby->id, "!illegal join", NULL);
    lobby->text = fdc_name(e->players[e->n - 1]);
    wait_until(e, message_ready, lobby, "every player in the lobby");
    click(e, 0, TABLE, false, lobby->id, "!illegal start", NULL);
}

static char *play_game(struct e2e *e)
{
    slash(e, 0, "new", "[{\"name\":\"variant\",\"type\":3,\"value\":\"standard\"}]");
    struct msg_want lobby = {.title = "Illegal — lobby", .n = 0};
    wait_until(e, message_ready, &lobby, "the lobby");
    seat_all_and_start(e, &lobby);
    for (unsigned i = 0; i < e->n; i++)
        json_object_put(wait_dm(e, e->players[i], "tb:give"));
    for (int session = 1; session <= 5; session++) {
        if (session <= 2)
            trade(e, (unsigned)session);
        if (!e->timed)
            slash(e, 0, "next", NULL); /* the session closes */
        if (session < 5)
            drop(e, session);
    }
    if (e->timed)
        wait_until(e, case_opened, NULL, "the tribunal");
    tribunal(e);
    wait_until(e, results_posted, NULL, "the result");
    struct json_object *s = snap(e);
    char *text = strdup(embed_text(table_message(s, "Results", 0)));
    json_object_put(s);
    return text;
}

/* Every interaction got its initial response. */
/* How many times interaction id was answered. */
static int answers(struct json_object *s, const char *id)
{
    struct json_object *cbs = jget(s, "callbacks");
    int count = 0;
    for (size_t k = 0; k < json_object_array_length(cbs); k++)
        if (strcmp(jstr(json_object_array_get_idx(cbs, k), "id"), id) == 0)
            count++;
    return count;
}

/* Every interaction sent was answered exactly once. */
static void assert_each_answered_once(struct e2e *e)
{
    struct json_object *s = snap(e);
    for (size_t i = 0; i < json_object_array_length(e->ixs); i++) {
        const char *id = json_object_get_string(json_object_array_get_idx(e->ixs, i));
        if (answers(s, id) != 1)
            fail_msg("interaction %s answered %d times", id, answers(s, id));
    }
    json_object_put(s);
}

static void assert_all_answered(struct e2e *e)
{
    assert_each_answered_once(e);
    struct json_object *s = snap(e);
    struct json_object *cbs = jget(s, "callbacks");
    /* each vote was confirmed to the voter alone, in the answer to the click */
    for (size_t i = 0; i < json_object_array_length(e->votes); i++) {
        const char *id = json_object_get_string(json_object_array_get_idx(e->votes, i));
        for (size_t k = 0; k < json_object_array_length(cbs); k++) {
            struct json_object *c = json_object_array_get_idx(cbs, k);
            if (strcmp(jstr(c, "id"), id) != 0)
                continue;
            assert_int_equal(json_object_get_int(jget(c, "type")), 4);
            assert_int_equal(json_object_get_int(jget(jget(c, "data"), "flags")), 64);
            assert_non_null(strstr(jstr(jget(c, "data"), "content"), "Your vote"));
        }
    }
    assert_true(json_object_array_length(e->votes) > 0);
    json_object_put(s);
}

static char *reference_result;

static void test_game_4(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e(&e, 4, false);
    char *result = play_game(&e);
    assert_non_null(strstr(result, "Game over"));
    assert_all_answered(&e);
    assert_int_equal(gw(&e, "identifies"), 1);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    reference_result = result;
    teardown_e2e(&e);
}

static void test_game_4_with_drops(void **state)
{
    (void)state;
    assert_non_null(reference_result);
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e(&e, 4, true);
    char *result = play_game(&e);
    /* every drop that hit a live connection made the daemon connect again */
    int reconnects = gw(&e, "connects") - 1;
    fprintf(stderr, "gateway dropped %u times, %d reconnections\n", e.ndrops, reconnects);
    assert_true(reconnects >= 20);
    assert_string_equal(result, reference_result);
    assert_all_answered(&e);
    assert_int_equal(gw(&e, "identifies"), 1); /* every drop was resumed */
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    free(result);
    free(reference_result);
    reference_result = NULL;
    teardown_e2e(&e);
}

static void test_game_8(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e(&e, 8, false);
    char *result = play_game(&e);
    assert_non_null(strstr(result, "Game over"));
    assert_non_null(strstr(result, "heidi"));
    assert_all_answered(&e);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    free(result);
    teardown_e2e(&e);
}

/*
 * A 4-player game with 30 s sessions, each ending on its timer: the table
 * channel must read as a game, not a log. At most 30 messages are posted
 * there (edits of the lobby and the drops are not new messages).
 */
static void test_table_messages(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e_timers(&e, 4, false,
                     "session_seconds = 30\nreveal_seconds = 1\ngrab_seconds = 30\n"
                     "debate_seconds = 600\nvote_seconds = 600\n");
    e.timed = true;
    e.wait_ms = 60000;
    char *result = play_game(&e);
    assert_non_null(strstr(result, "Game over"));
    struct json_object *s = snap(&e);
    struct json_object *msgs = jget(s, "messages");
    int table = 0, edits = 0;
    char results[32] = "";
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        if (strcmp(jstr(m, "channel"), TABLE) != 0)
            continue;
        table++;
        edits += json_object_get_int(jget(m, "edits"));
        /* the game is over: no control is left but the result's Play again */
        const char *title = embed_title(m);
        if (title && strcmp(title, "Results") == 0) {
            const char *id = jstr(m, "id");
            snprintf(results, sizeof results, "%s", id ? id : "");
            assert_true(has_component(m, OUT_ACTION_REMATCH));
            assert_int_equal(json_object_array_length(jget(jget(m, "body"), "components")), 1);
            continue;
        }
        assert_int_equal(json_object_array_length(jget(jget(m, "body"), "components")), 0);
    }
    fprintf(stderr, "table channel: %d messages (%d edits)\n", table, edits);
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    assert_true(table <= 33); /* 30 for the game, three for the recap after it */
    json_object_put(s);
    /* Play again: a player presses it, and a lobby opens with all four seated. */
    assert_true(results[0]);
    click(&e, 2, TABLE, false, results, OUT_ACTION_REMATCH, NULL);
    struct msg_want again = {.title = "Illegal — lobby", .n = 1, .text = "Players 4/8"};
    wait_until(&e, message_ready, &again, "the lobby of the game played again");
    assert_all_answered(&e);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    free(result);
    teardown_e2e(&e);
}

static bool client_closed(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return !json_object_get_boolean(jget(jget(s, "gateway"), "connected"));
}

/* Opens a lobby at the table; lobby is set to find its message. */
static void open_lobby(struct e2e *e, struct msg_want *lobby)
{
    *lobby = (struct msg_want){.title = "Illegal — lobby", .n = 0};
    slash(e, 0, "new", NULL);
    wait_until(e, message_ready, lobby, "the lobby");
}

/* Starts the daemon again and waits until it resumed its gateway session
 * (never identifying anew) and the lobby shows `name`, who joined while it
 * was down. */
static void restart_until_joined(struct e2e *e, struct msg_want *lobby, const char *name)
{
    daemon_start(&e->d, SEED);
    int two = 2;
    wait_until(e, is_ready, &two, "the daemon to reconnect");
    lobby->text = name;
    wait_until(e, message_ready, lobby, "a join made while the daemon was down");
    assert_int_equal(gw(e, "identifies"), 1);
    assert_true(gw(e, "resumes") >= 1);
}

static void test_shutdown_and_resume(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    struct msg_want lobby;
    setup_e2e(&e, 4, false);
    open_lobby(&e, &lobby);
    click(&e, 0, TABLE, false, lobby.id, "!illegal join", NULL);
    /* SIGTERM: a clean exit (LeakSanitizer included) that keeps the session */
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    wait_until(&e, client_closed, NULL, "the gateway to close");
    assert_int_equal(gw(&e, "client_close"), CLOSE_4000);
    /* while the daemon is down, bob joins */
    click(&e, 1, TABLE, false, lobby.id, "!illegal join", NULL);
    restart_until_joined(&e, &lobby, "bob");
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

/*
 * kill -9 right after two joins: the gateway's sequence is written with each
 * commit, not on its own disk flush, so the resume after the restart replays
 * only what no commit covered. Neither join is handled twice, and what
 * happened while the daemon was down still arrives.
 */
static void test_crash_resumes_after_the_last_commit(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    struct msg_want lobby;
    setup_e2e(&e, 4, false);
    open_lobby(&e, &lobby);
    click(&e, 0, TABLE, false, lobby.id, "!illegal join", NULL);
    click(&e, 1, TABLE, false, lobby.id, "!illegal join", NULL);
    lobby.text = "bob";
    wait_until(&e, message_ready, &lobby, "bob's join");
    assert_int_equal(daemon_stop(&e.d, SIGKILL, 10000), 128 + SIGKILL);
    wait_until(&e, client_closed, NULL, "the gateway to close");
    click(&e, 2, TABLE, false, lobby.id, "!illegal join", NULL);
    restart_until_joined(&e, &lobby, "carol");
    assert_each_answered_once(&e);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

static bool met_429(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return json_object_get_int(jget(s, "r429")) >= 1;
}

static bool answered_all(struct e2e *e, struct json_object *s, void *arg)
{
    (void)s;
    return fd_callback_count(e->srv) >= *(size_t *)arg;
}

/*
 * kill -9 while a committed lobby edit waits out a long 429: the edit went
 * into the store's outbox in the transaction of the join, so the restarted
 * daemon sends it. Without the outbox the lobby would never show bob.
 */
static void test_crash_keeps_the_outbox(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    struct msg_want lobby;
    setup_e2e(&e, 4, false);
    open_lobby(&e, &lobby);
    fd_force_429(e.srv, "/channels/" TABLE "/messages", 1, false, 600.0);
    size_t answers = fd_callback_count(e.srv) + 1;
    click(&e, 1, TABLE, false, lobby.id, "!illegal join", NULL);
    wait_until(&e, answered_all, &answers, "the join to be answered (so it is committed)");
    wait_until(&e, met_429, NULL, "the lobby's edit to meet the 429");
    assert_int_equal(daemon_stop(&e.d, SIGKILL, 10000), 128 + SIGKILL);
    wait_until(&e, client_closed, NULL, "the gateway to close");
    daemon_start(&e.d, SEED);
    lobby.text = "bob";
    wait_until(&e, message_ready, &lobby, "the lobby's edit, from the outbox");
    struct json_object *s = snap(&e);
    assert_null(table_message(s, "Illegal — lobby", 1)); /* one lobby, edited */
    json_object_put(s);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

struct hand_want {
    const char *user;
    const char *old_id; /* the hand message before "hand" */
};

/* The old hand has lost its controls, and a new hand replies to the command. */
static bool hand_anew(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct hand_want *w = arg;
    struct json_object *msgs = jget(s, "messages"), *old = NULL;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        if (strcmp(jstr(m, "id"), w->old_id) == 0)
            old = m;
    }
    struct json_object *now = dm_with(s, w->user, "tb:give");
    return old && json_object_array_length(jget(jget(old, "body"), "components")) == 0 && now &&
           strcmp(jstr(now, "id"), w->old_id) != 0 && jget(jget(now, "body"), "message_reference");
}

/* "hand" in a DM posts the hand anew, as a reply to the command, and the old
 * hand's trade builder goes: no stale controls stay in the DM. */
static void test_hand_anew(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    struct msg_want lobby;
    setup_e2e(&e, 4, false);
    open_lobby(&e, &lobby);
    seat_all_and_start(&e, &lobby);
    struct json_object *hand = wait_dm(&e, e.players[1], "tb:give");
    char old_id[32], dm[32];
    const char *id = jstr(hand, "id"), *channel = jstr(hand, "channel");
    assert_non_null(id);
    assert_non_null(channel);
    snprintf(old_id, sizeof old_id, "%s", id);
    snprintf(dm, sizeof dm, "%s", channel);
    json_object_put(hand);
    say_dm(&e, 1, dm, "hand");
    struct hand_want w = {e.players[1], old_id};
    wait_until(&e, hand_anew, &w, "the hand posted anew, the old one closed");
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

int main(int argc, char **argv)
{
    illegald_path = argc > 1 ? argv[1] : "bin/illegald";
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_game_4, kill_live),
        cmocka_unit_test_teardown(test_game_4_with_drops, kill_live),
        cmocka_unit_test_teardown(test_game_8, kill_live),
        cmocka_unit_test_teardown(test_shutdown_and_resume, kill_live),
        cmocka_unit_test_teardown(test_crash_resumes_after_the_last_commit, kill_live),
        cmocka_unit_test_teardown(test_crash_keeps_the_outbox, kill_live),
        cmocka_unit_test_teardown(test_hand_anew, kill_live),
        cmocka_unit_test_teardown(test_table_messages, kill_live),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
