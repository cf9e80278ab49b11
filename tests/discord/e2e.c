/*
 * e2e.c - the real daemon (build/bin/illegald, a child process) against the
 * Discord test server in the test's process: what the players do, what the
 * tests wait for and read (e2e.h).
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
#include "e2e.h"

const char *illegald_path;
const char *e2e_table = TABLE;
unsigned long e2e_fd_seed;

/* ---- small helpers ---- */

void msleep(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

struct json_object *jget(struct json_object *o, const char *k)
{
    struct json_object *v = NULL;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

const char *jstr(struct json_object *o, const char *k)
{
    struct json_object *v = jget(o, k);
    return v ? json_object_get_string(v) : NULL;
}

unsigned rnd(struct e2e *e)
{
    e->rnd = e->rnd * 1103515245u + 12345u;
    return (e->rnd >> 16) & 0x7fff;
}

const char *new_id(struct e2e *e, char *buf, size_t len)
{
    snprintf(buf, len, "%lu", e->next_id++);
    return buf;
}

static void maybe_drop(struct e2e *e);

/* Before and after each input, what a test hooked there (kill tests). */
static void input_starts(struct e2e *e, const char *what)
{
    if (e->before)
        e->before(e, what);
}

static void input_done(struct e2e *e, const char *what)
{
    maybe_drop(e);
    if (e->after)
        e->after(e, what);
}

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

struct json_object *snap(struct e2e *e)
{
    return fd_snapshot(e->srv);
}

int gw(struct e2e *e, const char *field)
{
    struct json_object *g = fd_gateway(e->srv);
    int v = json_object_get_int(jget(g, field));
    json_object_put(g);
    return v;
}

bool connected(struct e2e *e)
{
    struct json_object *g = fd_gateway(e->srv);
    bool up =
        json_object_get_boolean(jget(g, "connected")) && json_object_get_boolean(jget(g, "ready"));
    json_object_put(g);
    return up;
}

/* The daemon of the running test, so that a failed test does not leave it
 * running (cmocka leaves the test function at the failed assertion). */
struct daemon *live;

int kill_live(void **state)
{
    (void)state;
    if (live)
        daemon_cleanup(live);
    live = NULL;
    return 0;
}

/* What a wait that timed out leaves to explain it, beside the daemon's log: the fake's seed,
 * the gateway session (a click sent while the daemon was away is delivered only by a resume),
 * and the last answers to interactions (a press refused is answered, not ignored). */
static void explain_timeout(struct e2e *e, struct json_object *s, const char *what)
{
    struct json_object *cbs = jget(s, "callbacks");
    size_t n = json_object_array_length(cbs);
    fprintf(stderr, "timed out waiting for %s (FD_SEED=%lu replays the fake's variation)\n", what,
            fd_seed(e->srv));
    fprintf(stderr, "gateway: %s\n", json_object_to_json_string(jget(s, "gateway")));
    for (size_t i = n > 3 ? n - 3 : 0; i < n; i++)
        fprintf(stderr, "answer to an interaction: %.300s\n",
                json_object_to_json_string(json_object_array_get_idx(cbs, i)));
    daemon_dump_log(&e->d);
}

/* Polls the server's record until pred says yes; fails the test on timeout. The record is
 * copied again only when the server saw something (fd_changes), or RECHECK_MS after the last
 * look for a pred that reads more than the record. */
#define POLL_MS    20
#define RECHECK_MS 200
void wait_until(struct e2e *e, bool (*pred)(struct e2e *, struct json_object *, void *), void *arg,
                const char *what)
{
    unsigned long seen = 0;
    for (int waited = 0, looked = -RECHECK_MS;; waited += POLL_MS) {
        unsigned long changes = fd_changes(e->srv);
        if (changes != seen || waited - looked >= RECHECK_MS || waited > e->wait_ms) {
            seen = changes;
            looked = waited;
            struct json_object *s = snap(e);
            bool ok = pred(e, s, arg);
            if (!ok && waited > e->wait_ms) {
                explain_timeout(e, s, what);
                json_object_put(s);
                fail();
            }
            json_object_put(s);
            if (ok)
                return;
        }
        msleep(POLL_MS);
    }
}

bool is_ready(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    int want = *(int *)arg;
    struct json_object *g = jget(s, "gateway");
    return json_object_get_boolean(jget(g, "ready")) &&
           json_object_get_int(jget(g, "connects")) >= want &&
           json_object_array_length(jget(s, "commands")) > 0;
}

void setup_e2e_with(struct e2e *e, unsigned nplayers, const char *timers, int64_t privileged,
                    const char *discord)
{
    memset(e, 0, sizeof(*e));
    e->srv = fd_start_seeded("test-token", 1000, e2e_fd_seed);
    assert_non_null(e->srv);
    fd_set_privileged(e->srv, privileged);
    daemon_setup_with(&e->d, illegald_path, e->srv, timers, discord);
    e->next_id = 810000000000000001ul;
    e->n = nplayers;
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

void setup_e2e_timers(struct e2e *e, unsigned nplayers, bool drops, const char *timers)
{
    /* an application that may read message content; the games without it say so */
    setup_e2e_with(e, nplayers, timers, FD_INTENT_MESSAGE_CONTENT, NULL);
    e->drops = drops;
}

void setup_e2e(struct e2e *e, unsigned nplayers, bool drops)
{
    /* phases end by /illegal next, except the reveal, which runs on its 1 s timer */
    setup_e2e_timers(e, nplayers, drops, GAME_TIMERS);
}

void teardown_e2e(struct e2e *e)
{
    live = NULL;
    daemon_cleanup(&e->d);
    fd_stop(e->srv);
    json_object_put(e->ixs);
    json_object_put(e->votes);
}

/* ---- what players do ---- */

void slash(struct e2e *e, unsigned who, const char *sub, const char *opts)
{
    char id[32];
    input_starts(e, sub);
    new_id(e, id, sizeof(id));
    json_object_array_add(e->ixs, json_object_new_string(id));
    fdc_slash(e->srv, id, FD_GUILD_ID, e2e_table, e->players[who], sub, opts,
              who == 0 ? FD_PERM_MANAGE_GUILD : FD_PERM_NONE);
    input_done(e, sub);
}

/* The custom_id of message msg's control for action, as the fake has it
 * (into out), or the action itself when it has none (a press that is meant
 * to be refused). */
const char *control_of(struct e2e *e, const char *msg, const char *action, char *out, size_t len)
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
void click(struct e2e *e, unsigned who, const char *channel, bool dm, const char *msg,
           const char *action, const char *values)
{
    char id[32], custom_id[128];
    new_id(e, id, sizeof(id));
    json_object_array_add(e->ixs, json_object_new_string(id));
    control_of(e, msg, action, custom_id, sizeof custom_id);
    input_starts(e, action);
    fdc_component(e->srv, id, dm ? NULL : FD_GUILD_ID, channel, e->players[who], msg, custom_id,
                  values);
    input_done(e, action);
}

void say_table(struct e2e *e, unsigned who, const char *text)
{
    char id[32];
    input_starts(e, text);
    fdc_message(e->srv, new_id(e, id, sizeof(id)), FD_GUILD_ID, e2e_table, e->players[who], text);
    input_done(e, text);
}

void reply_table(struct e2e *e, unsigned who, const char *text, const char *to_message, bool ping)
{
    char id[32];
    input_starts(e, text);
    fdc_reply(e->srv, new_id(e, id, sizeof(id)), FD_GUILD_ID, e2e_table, e->players[who], text,
              to_message, ping);
    input_done(e, text);
}

void table_command(struct e2e *e, unsigned who, const char *sub)
{
    char line[256];
    if (!e->mention) {
        slash(e, who, sub, NULL);
        return;
    }
    snprintf(line, sizeof line, "<@%s> %s", FD_BOT_ID, sub);
    say_table(e, who, line);
}

void say_dm(struct e2e *e, unsigned who, const char *channel, const char *text)
{
    char id[32];
    input_starts(e, text);
    fdc_message(e->srv, new_id(e, id, sizeof(id)), NULL, channel, e->players[who], text);
    input_done(e, text);
}

void react(struct e2e *e, unsigned who, const char *msg, const char *emoji)
{
    input_starts(e, emoji);
    fdc_reaction(e->srv, FD_GUILD_ID, e2e_table, msg, e->players[who], emoji);
    input_done(e, emoji);
}

/* ---- reading what the bot posted ---- */

const char *embed_title(struct json_object *m)
{
    return jstr(json_object_array_get_idx(jget(jget(m, "body"), "embeds"), 0), "title");
}

const char *embed_text(struct json_object *m)
{
    return jstr(json_object_array_get_idx(jget(jget(m, "body"), "embeds"), 0), "description");
}

/* Whether custom_id is the control for action: "<message key>#<action>";
 * "tb:send" is a compose's send button, which carries its template after
 * it ("tb:send offer {to} ..."). */
static bool is_control(const char *custom_id, const char *action)
{
    const char *sep = custom_id ? strchr(custom_id, '#') : NULL;
    if (sep && strcmp(action, "tb:send") == 0)
        return strncmp(sep + 1, "tb:send ", 8) == 0;
    return sep && strcmp(sep + 1, action) == 0;
}

/* Message m's button or select for action ("tb:give", "accept 1"), or NULL. */
struct json_object *component(struct json_object *m, const char *action)
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

bool has_component(struct json_object *m, const char *action)
{
    return component(m, action) != NULL;
}

struct json_object *select_options(struct json_object *m, const char *action)
{
    return jget(component(m, action), "options");
}

/* The n-th (0-based) table message whose embed has this title, or NULL. */
struct json_object *table_message(struct json_object *s, const char *title, int n)
{
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *t = embed_title(m);
        if (strcmp(jstr(m, "channel"), e2e_table) == 0 && t && strcmp(t, title) == 0 && n-- == 0)
            return m;
    }
    return NULL;
}

/* The last DM message to user carrying component custom_id, or NULL. */
struct json_object *dm_with(struct json_object *s, const char *user, const char *custom_id)
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

bool message_ready(struct e2e *e, struct json_object *s, void *arg)
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

bool dm_ready(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct dm_want *w = arg;
    struct json_object *m = dm_with(s, w->user, w->custom_id);
    if (!m)
        return false;
    w->msg = json_tokener_parse(json_object_to_json_string(m));
    return true;
}

struct json_object *wait_dm(struct e2e *e, const char *user, const char *custom_id)
{
    struct dm_want w = {user, custom_id, NULL};
    wait_until(e, dm_ready, &w, custom_id);
    return w.msg;
}

/* ---- one whole game ---- */

void trade(struct e2e *e, unsigned session)
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

void drop(struct e2e *e, int number)
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
struct json_object *table_content(struct json_object *s, const char *text)
{
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *c = jstr(jget(m, "body"), "content");
        if (strcmp(jstr(m, "channel"), e2e_table) == 0 && c && strstr(c, text))
            return m;
    }
    return NULL;
}

bool case_opened(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return table_content(s, "Case 1 of") != NULL;
}

bool results_posted(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    return table_message(s, "Results", 0) != NULL;
}

bool vote_or_over(struct e2e *e, struct json_object *s, void *arg)
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

void tribunal(struct e2e *e)
{
    for (int kase = 0;; kase++) {
        table_command(e, 0, "next"); /* the debate ends */
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
                click(e, i, e2e_table, false, w.id, custom, NULL);
                json_object_array_add(e->votes, json_object_get(json_object_array_get_idx(
                                                    e->ixs, json_object_array_length(e->ixs) - 1)));
            }
        }
        table_command(e, 0, "next"); /* the vote closes */
    }
}

/* Plays a game and returns the result text (malloc'd). */
/* Every player joins the open lobby, then the host starts the game. */
void seat_all_and_start(struct e2e *e, struct msg_want *lobby)
{
    for (unsigned i = 0; i < e->n; i++)
        click(e, i, e2e_table, false, lobby->id, "!illegal join", NULL);
    lobby->text = fdc_name(e->players[e->n - 1]);
    wait_until(e, message_ready, lobby, "every player in the lobby");
    click(e, 0, e2e_table, false, lobby->id, "!illegal start", NULL);
}

char *play_game(struct e2e *e)
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
        if (e->timed && session == 2) /* no trade after this one: shorter sessions */
            slash(e, 0, "set",
                  "[{\"name\":\"key\",\"type\":3,\"value\":\"session\"},"
                  "{\"name\":\"value\",\"type\":3,\"value\":\"3s\"}]");
        if (!e->timed)
            table_command(e, 0, "next"); /* the session closes */
        if (session <= E2E_DROPS)
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
int answers(struct json_object *s, const char *id)
{
    struct json_object *cbs = jget(s, "callbacks");
    int count = 0;
    for (size_t k = 0; k < json_object_array_length(cbs); k++)
        if (strcmp(jstr(json_object_array_get_idx(cbs, k), "id"), id) == 0)
            count++;
    return count;
}

/* Every interaction sent was answered exactly once. */
void assert_each_answered_once(struct e2e *e)
{
    struct json_object *s = snap(e);
    for (size_t i = 0; i < json_object_array_length(e->ixs); i++) {
        const char *id = json_object_get_string(json_object_array_get_idx(e->ixs, i));
        if (answers(s, id) != 1)
            fail_msg("interaction %s answered %d times", id, answers(s, id));
    }
    json_object_put(s);
}

void assert_all_answered(struct e2e *e)
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

/* How many messages to user (a DM) or in the table (user NULL) say text. */
static unsigned saying(struct json_object *s, const char *user, const char *text)
{
    struct json_object *msgs = jget(s, "messages");
    unsigned n = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *u = jstr(m, "dm_user"), *ch = jstr(m, "channel");
        const char *c = jstr(jget(m, "body"), "content");
        bool to = user ? u && strcmp(u, user) == 0 : ch && strcmp(ch, e2e_table) == 0;
        n += to && c && strstr(c, text);
    }
    return n;
}

static bool second_grabs_told(struct e2e *e, struct json_object *s, void *arg)
{
    return saying(s, e->players[0], arg) >= E2E_DROPS;
}

void assert_second_grabs_told(struct e2e *e)
{
    char text[] = "You already took a card from this drop.";
    wait_until(e, second_grabs_told, text, "the second grabs' refusals");
    struct json_object *s = snap(e);
    assert_int_equal(saying(s, NULL, text), 0);
    json_object_put(s);
}

int e2e_run(int argc, char **argv, const struct CMUnitTest *tests, size_t n)
{
    illegald_path = argc > 1 ? argv[1] : "bin/illegald";
    signal(SIGPIPE, SIG_IGN);
    if (getenv("E2E_ONLY"))
        cmocka_set_test_filter(getenv("E2E_ONLY"));
    return _cmocka_run_group_tests(argv[0], tests, n, NULL, NULL);
}
