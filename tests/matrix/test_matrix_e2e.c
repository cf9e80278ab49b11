/*
 * test_matrix_e2e.c - the real daemon (bin/illegald) plays whole games on the
 * test homeserver, as a child process with its own configuration and store.
 *
 * The server is configured as real deployments are: new rooms come out
 * encrypted as the seed's encryption_enabled_by_default_for_room_type says.
 * The players are clients with real libolm devices (hs_player_*): they read
 * what the bot sends by decrypting it, their commands go out encrypted, and
 * they decide to notify as a client does, by the default push rules on the
 * decrypted event. They type the canonical commands in the table, trade in
 * private, grab drop cards with reactions, and vote on their private ballots
 * (by reaction or by "vote <player>") or on a native poll. Debates (and
 * sessions without a trade) run on the daemon's timers (1 s); the steps where
 * players act (a trading session, reveal, grab, vote) have long timers and the
 * host ends them with "!illegal next" once the test has seen every action
 * confirmed, so a game's result does not depend on how loaded the machine is,
 * and a run with the same --seed gives the same result.
 *
 * Two programs: test_matrix_e2e (games of 4 and 8, a poll, the first command
 * after a slow first key upload, kill -9 in the middle, two people with two computer players, one
 * person and two computers playing Palm & Drewes' Illegal) and, built with MX_E2EE,
 * test_matrix_e2ee (encryption itself: every
 * room encrypted with a direct chat opened from Element and a kill -9,
 * encryption turned on mid-game, and a game in plain rooms whose
 * notifications the server itself counts).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "child.h"
#include "hand_text.h"
#include "hs.h"

#define SEED         "20240611"
#define GAME_MS      90000
#define STEP_MS      15
#define MAXP         8
#define MAX_DROPS    8 /* a game has 4 */
#define NOW_MS()     mono_ms()
#define SEED_DEFAULT (-1) /* the server encrypts as its seed says */
#define MAX_GAMES    2
#define MAX_HELD     4

static const char *illegald_path;
static struct e2e *current;  /* the run in progress, closed by the teardown if a test fails */
static char *held[MAX_HELD]; /* strings a test keeps across steps that may fail (hold()) */

struct e2e {
    struct hs *hs;
    char dir[64];
    char conf[128];
    pid_t pid;
    struct game *games[MAX_GAMES]; /* open, freed by the teardown if a test fails */
};

/* One table and what its players have done. */
struct game {
    struct e2e *e;
    char *room;
    char players[MAXP][32];
    char *dms[MAXP]; /* each player's direct room, once the bot made it */
    unsigned n;
    bool poll;                 /* the table votes with a native poll */
    bool trade;                /* sessions are long: the host gives the second player a card in
                                  the first, and ends each session */
    size_t seen;               /* position in log already acted on */
    struct json_object *done;  /* triggers already acted on */
    struct json_object *drops; /* drop event id -> drop number */
    int drop_shown[MAX_DROPS]; /* the most cards each drop showed before its grab */
    bool drop_open[MAX_DROPS], drop_over[MAX_DROPS]; /* its grab opened; it is over */
    int confirmed[16];                               /* vote confirmations per case */
    int grabs, votes, nexts;
    char *result;         /* the "Game over!" text */
    int kill_at_case;     /* >0: kill -9 the daemon when this case's debate opens */
    bool kill_after_grab; /* kill -9 right after the first grab reaction is sent */
    int kills;
    /* The bot's events as the players read them, in order (the table's once). */
    struct json_object *log;
    struct json_object *ids;    /* event ids already in log */
    struct hs_player *pl[MAXP]; /* the players' clients */
    size_t cursor[MAXP];
    int ballots[MAXP], ballots_notified[MAXP]; /* as each player's client decided */
    int offers[MAXP], offers_notified[MAXP];   /* offers received, likewise */
    int table_notices;                         /* table notices read (none may notify) */
    struct json_object *secrets;               /* what the bot told players in private */
    /* With computer players (the host seats them in the lobby): */
    unsigned computers;
    char dealer_card[MAXP][32]; /* each person's dealer resource, its first word */
    int cast[16], voters[16];   /* how many have voted on each case, as the table says */
    int offers_from_computers;  /* a computer's offers a person answered */
    int computers_answers;      /* a computer's answers to a person's offers */
};

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Keeps s (malloc'd) to be freed by release(), or by the teardown after a failure. */
static char *hold(char *s)
{
    for (size_t i = 0; i < MAX_HELD; i++)
        if (!held[i]) {
            held[i] = s;
            return s;
        }
    fail_msg("hold: more than %d strings", MAX_HELD);
    return NULL;
}

static void release(char *s)
{
    for (size_t i = 0; i < MAX_HELD; i++)
        if (held[i] == s)
            held[i] = NULL;
    free(s);
}

/* Fails with what and the text of o, which is freed before the failure jumps out. */
static void fail_with(const char *what, struct json_object *o)
{
    char text[2048];
    snprintf(text, sizeof(text), "%s", json_object_to_json_string(o));
    json_object_put(o);
    fail_msg("%s: %s", what, text);
}

static void msleep(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static const char *jstr(struct json_object *o, const char *k)
{
    struct json_object *v;
    return o && json_object_object_get_ex(o, k, &v) && json_object_is_type(v, json_type_string)
               ? json_object_get_string(v)
               : NULL;
}

static struct json_object *jget(struct json_object *o, const char *k)
{
    struct json_object *v;
    return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* ---- the daemon ---- */

static void daemon_start(struct e2e *e)
{
    pid_t test = getpid();
    fflush(NULL);
    e->pid = fork();
    assert_true(e->pid >= 0);
    if (e->pid == 0) {
        child_dies_with_parent(test); /* no daemon outlives a test killed on its timeout */
        execl(illegald_path, illegald_path, "--config", e->conf, "--seed", SEED, (char *)NULL);
        _exit(127);
    }
}

/* Stops the daemon; with SIGTERM it must exit 0 (sanitizers report through the status). */
static void daemon_stop(struct e2e *e, int sig)
{
    if (e->pid <= 0)
        return;
    kill(e->pid, sig);
    int status = 0;
    assert_int_equal(waitpid(e->pid, &status, 0), e->pid);
    e->pid = 0;
    if (sig == SIGTERM) {
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
}

static void dump_log(struct e2e *e)
{
    char cmd[200];
    snprintf(cmd, sizeof(cmd), "tail -n 40 '%s/illegald.log' >&2", e->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "no daemon log\n");
}

/* encryption: HS_ENC_* for the server's default, or SEED_DEFAULT. game: the lines of the
 * configuration's [game] section. pickle_key: [matrix] pickle_key, or NULL for the key file
 * beside the store. */
static struct e2e *e2e_open_game(int encryption, const char *game, const char *pickle_key)
{
    struct e2e *e = calloc(1, sizeof(*e));
    assert_non_null(e);
    e->hs = hs_new();
    if (encryption >= 0)
        hs_set_encryption(e->hs, (enum hs_encryption)encryption);
    assert_true(hs_start(e->hs) > 0);
    snprintf(e->dir, sizeof(e->dir), "/tmp/illegald-mx-XXXXXX");
    assert_non_null(mkdtemp(e->dir));
    snprintf(e->conf, sizeof(e->conf), "%s/illegald.conf", e->dir);
    FILE *f = fopen(e->conf, "w");
    assert_non_null(f);
    fprintf(f,
            "[store]\npath = %s/illegald.db\n"
            "[log]\nlevel = info\nfile = %s/illegald.log\n"
            "[game]\n%s"
            "[matrix]\nhomeserver = %s\nuser_id = %s\naccess_token = %s\n%s%s%s"
            "[web]\nenabled = false\n",
            e->dir, e->dir, game, hs_url(e->hs), HS_BOT, HS_BOT_TOKEN,
            pickle_key ? "pickle_key = " : "", pickle_key ? pickle_key : "",
            pickle_key ? "\n" : "");
    fclose(f);
    current = e;
    return e;
}

/* Sessions of 1 s, or long ones the host ends (trade); debates of 1 s; the steps where players
 * act ended by the host. */
static struct e2e *e2e_open(int encryption, bool trade, const char *pickle_key)
{
    char game[256];
    snprintf(game, sizeof game,
             "session_seconds = %d\ndebate_seconds = 1\n"
             "reveal_seconds = 600\ngrab_seconds = 600\nvote_seconds = 600\n",
             trade ? 600 : 1);
    return e2e_open_game(encryption, game, pickle_key);
}

static void keep_or_remove(struct e2e *e, bool keep)
{
    char cmd[160];
    snprintf(cmd, sizeof(cmd), "%s/hs-log.json", e->dir);
    if (keep) {
        hs_dump(e->hs, cmd);
        snprintf(cmd, sizeof(cmd), "%s/hs-requests.json", e->dir);
        hs_dump_requests(e->hs, cmd);
        fprintf(stderr, "kept %s\n", e->dir);
        return;
    }
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "cannot remove %s\n", e->dir);
}

/* The bot sent nothing in clear into a room it knew was encrypted (hs_bot_clear_sends). */
static void check_no_clear_sends(struct e2e *e)
{
    struct json_object *leaks = hs_bot_clear_sends(e->hs);
    if (json_object_array_length(leaks) > 0)
        fail_with("the bot sent in clear into encrypted rooms", leaks);
    json_object_put(leaks);
}

static void e2e_close(struct e2e *e)
{
    check_no_clear_sends(e);
    daemon_stop(e, SIGTERM);
    keep_or_remove(e, getenv("MX_E2E_KEEP") != NULL);
    hs_free(e->hs);
    free(e);
    current = NULL;
}

static void game_free(struct game *g);

/* After a failed test: the daemon is killed, the files are kept to look at, and what the test
 * held is freed. */
static int teardown(void **state)
{
    (void)state;
    for (size_t i = 0; i < MAX_HELD; i++)
        release(held[i]);
    struct e2e *e = current;
    if (!e)
        return 0;
    current = NULL;
    if (e->pid > 0) {
        kill(e->pid, SIGKILL);
        waitpid(e->pid, NULL, 0);
    }
    keep_or_remove(e, true);
    for (size_t i = 0; i < MAX_GAMES; i++)
        if (e->games[i])
            game_free(e->games[i]);
    hs_free(e->hs);
    free(e);
    return 0;
}

/* ---- tables and players ---- */

/* A table of n players, each with an encrypting client; the first creates the table as a
 * client creates a room with this preset (encrypted or not by the server's default). The run
 * owns it until game_free(). */
static struct game *game_open(struct e2e *e, unsigned n, const char *prefix, const char *preset)
{
    struct game *g = calloc(1, sizeof(*g));
    assert_non_null(g);
    size_t slot = 0;
    while (slot < MAX_GAMES && e->games[slot])
        slot++;
    assert_true(slot < MAX_GAMES);
    e->games[slot] = g;
    g->e = e;
    g->n = n;
    g->done = json_object_new_object();
    g->drops = json_object_new_object();
    g->log = json_object_new_array();
    g->ids = json_object_new_object();
    g->secrets = json_object_new_object();
    for (unsigned i = 0; i < n; i++) {
        snprintf(g->players[i], sizeof(g->players[i]), "@%s%u:test.local", prefix, i + 1);
        g->pl[i] = hs_player_new(e->hs, g->players[i]);
    }
    g->room = hs_create_room_as(e->hs, g->players[0], preset);
    for (unsigned i = 1; i < n; i++)
        hs_join(e->hs, g->room, g->players[i]);
    hs_invite_bot(e->hs, g->room, g->players[0]);
    return g;
}

static void game_free(struct game *g)
{
    for (size_t i = 0; i < MAX_GAMES; i++)
        if (g->e->games[i] == g)
            g->e->games[i] = NULL;
    free(g->room);
    for (unsigned i = 0; i < g->n; i++) {
        free(g->dms[i]);
        hs_player_free(g->pl[i]);
    }
    free(g->result);
    json_object_put(g->done);
    json_object_put(g->drops);
    json_object_put(g->log);
    json_object_put(g->ids);
    json_object_put(g->secrets);
    free(g);
}

/* ---- what players do and read ---- */

static void say(struct game *g, unsigned p, const char *room, const char *text)
{
    free(hs_player_say(g->pl[p], room, text));
}

static void react(struct game *g, unsigned p, const char *room, const char *target, const char *key)
{
    free(hs_player_react(g->pl[p], room, target, key));
}

static void poll_vote(struct game *g, unsigned p, const char *poll, const char *answer, int form)
{
    free(hs_player_poll_vote(g->pl[p], g->room, poll, answer, form));
}

static int player_of_dm(struct game *g, const char *room);

/* What player p's client decides for a bot message it read: a ballot and an offer to answer
 * must notify them (highlighted), a notice at the table must not. */
static void check_notify(struct game *g, unsigned p, struct json_object *ev)
{
    struct json_object *content = jget(ev, "content");
    const char *body = jstr(content, "body");
    const char *msgtype = jstr(content, "msgtype");
    const char *room = jstr(ev, "room_id");
    if (strcmp(jstr(ev, "type"), "m.room.message") != 0 || !body)
        return;
    bool notify, highlight;
    char rule[64];
    hs_player_push(g->pl[p], ev, &notify, &highlight, rule, sizeof(rule));
    if (strcmp(room, g->room) == 0 && msgtype && strcmp(msgtype, "m.notice") == 0) {
        g->table_notices++;
        if (notify)
            fail_msg("a table notice notifies %s (%s): %.80s", g->players[p], rule, body);
    }
    if (player_of_dm(g, room) == (int)p && strncmp(body, "Your ballot for case", 20) == 0) {
        g->ballots[p]++;
        g->ballots_notified[p] += notify && highlight;
    }
    if (player_of_dm(g, room) == (int)p && strstr(body, ": you would get ")) {
        g->offers[p]++;
        g->offers_notified[p] += notify && highlight;
    }
}

/* Brings the bot's new events into g->log, as each player's client reads them (synced and
 * decrypted). */
static void collect(struct game *g)
{
    for (unsigned p = 0; p < g->n; p++) {
        assert_true(hs_player_sync(g->pl[p]) >= 0);
        struct json_object *evs = hs_player_events_after(g->pl[p], &g->cursor[p]);
        for (size_t i = 0; i < json_object_array_length(evs); i++) {
            struct json_object *ev = json_object_array_get_idx(evs, i);
            const char *id = jstr(ev, "event_id");
            if (strcmp(jstr(ev, "sender"), HS_BOT) != 0 || jget(ev, "state_key"))
                continue;
            check_notify(g, p, ev);
            if (jget(g->ids, id))
                continue;
            json_object_object_add(g->ids, id, json_object_new_boolean(1));
            json_object_array_add(g->log, json_object_get(ev));
        }
        json_object_put(evs);
    }
}

/* True the first time a trigger is seen. */
static bool once(struct game *g, const char *fmt, ...)
{
    char k[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k, sizeof(k), fmt, ap);
    va_end(ap);
    if (jget(g->done, k))
        return false;
    json_object_object_add(g->done, k, json_object_new_boolean(1));
    return true;
}

static int player_of_dm(struct game *g, const char *room)
{
    for (unsigned p = 0; p < g->n; p++) {
        if (!g->dms[p])
            g->dms[p] = hs_direct_room(g->e->hs, g->players[p]);
        if (g->dms[p] && strcmp(g->dms[p], room) == 0)
            return (int)p;
    }
    return -1;
}

static void host_next(struct game *g)
{
    say(g, 0, g->room, "!illegal next");
    g->nexts++;
}

/* Once every person's vote on case c is confirmed, and with computers once the table counts
 * every seat's vote, the host closes the vote. */
static void close_vote_when_all_voted(struct game *g, int c)
{
    if (g->confirmed[c] == (int)g->n &&
        (!g->computers || (g->voters[c] > 0 && g->cast[c] == g->voters[c])) &&
        once(g, "close:%d", c))
        host_next(g);
}

/* How many times needle is in text. */
static int count_in(const char *text, const char *needle)
{
    int n = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

static bool is_computer(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && strcmp(name + n - 4, "-bot") == 0;
}

/* Session d opens: one person offers a computer a card of their dealer's resource for nothing,
 * typed in their DM as to anyone. */
static void offer_to_computer(struct game *g, int d)
{
    unsigned p = (unsigned)(d - 1) % g->n;
    char text[128];
    if (!g->dms[p] || !g->dealer_card[p][0])
        return;
    snprintf(text, sizeof text, "offer %s 1 %s for nothing", d % 2 ? "Ada-bot" : "Bruno-bot",
             g->dealer_card[p]);
    say(g, p, g->dms[p], text);
}

/* In person p's DM, with computers: their dealer's card noted, every offer made to them
 * answered (even ones accepted, odd ones declined), a computer's answer to theirs counted. */
static void deal_with_computers(struct game *g, unsigned p, const char *room, const char *body,
                                const char *event_id)
{
    const char *start = strstr(body, "(you start with 5 ");
    char from[64], text[32];
    int id = 0;
    if (!g->computers)
        return;
    if (strncmp(body, "Your secret roles.", 18) == 0 && start)
        sscanf(start + 18, "%31[A-Za-z]", g->dealer_card[p]); /* the first word */
    if (sscanf(body, "Offer #%d from %63[^:]:", &id, from) == 2 && once(g, "offer:%d", id)) {
        snprintf(text, sizeof text, "%s %d", id % 2 ? "decline" : "accept", id);
        say(g, p, room, text);
        g->offers_from_computers += is_computer(from);
    }
    if ((strstr(body, "-bot accepted offer #") || strstr(body, "-bot) was declined")) &&
        once(g, "answer:%s", event_id))
        g->computers_answers++;
}

/* Whom player p accuses on case c: never themselves, and not always the same player. */
static unsigned target_of(struct game *g, unsigned p, int c)
{
    unsigned t = (p + (unsigned)c) % g->n;
    return t == p ? (p + 1) % g->n : t;
}

/* The emoji of the ballot line naming target ("<emoji> <name>"), copied into out. */
static bool ballot_key(const char *body, const char *target, char *out, size_t len)
{
    for (const char *l = body; l; l = strchr(l, '\n')) {
        if (*l == '\n')
            l++;
        size_t n = strcspn(l, "\n");
        const char *sp = memchr(l, ' ', n);
        size_t tl = strlen(target);
        if (sp && (size_t)(l + n - sp - 1) == tl && strncmp(sp + 1, target, tl) == 0 &&
            (size_t)(sp - l) < len) {
            memcpy(out, l, (size_t)(sp - l));
            out[sp - l] = '\0';
            return true;
        }
    }
    return false;
}

static void vote_poll(struct game *g, struct json_object *ev, int c)
{
    const char *poll_id = jstr(ev, "event_id");
    struct json_object *start = jget(jget(ev, "content"), "org.matrix.msc3381.poll.start");
    struct json_object *answers = jget(start, "answers");
    assert_non_null(answers);
    for (unsigned p = 0; p < g->n; p++) {
        const char *want = g->players[target_of(g, p, c)];
        const char *id = NULL;
        for (size_t i = 0; i < json_object_array_length(answers); i++) {
            struct json_object *a = json_object_array_get_idx(answers, i);
            const char *label = jstr(a, "org.matrix.msc1767.text");
            if (label && strcmp(label, want) == 0)
                id = jstr(a, "id");
        }
        assert_non_null(id);
        /* First a wrong answer, then the right one: the last vote counts. */
        if (p == 1)
            poll_vote(g, p, poll_id, "a1", 0);
        poll_vote(g, p, poll_id, id, (int)(p % 2));
        g->votes++;
    }
}

/*
 * The host ends each step of a drop once, when the drop's message (or an edit of it) shows the
 * step is there: the next card is shown when the drop shows more cards than it ever did and its
 * grab has not opened; the grab ends once a card is taken while it is open (with computers, two:
 * a computer may take the person's card first). A state read again or late (a message sent again
 * after a restart, an edit after the grab) ends nothing, so no `next` skips a debate or a vote.
 */
static void drop_step(struct game *g, const char *body)
{
    int k = 0;
    if (sscanf(body, "Drop %d", &k) != 1 || k < 1 || k >= MAX_DROPS || g->drop_over[k])
        return;
    if (strstr(body, " is over")) {
        g->drop_over[k] = true;
    } else if (!strstr(body, "Grab one now")) {
        int shown = count_in(body, ", ") + 1;
        if (!g->drop_open[k] && shown > g->drop_shown[k]) {
            g->drop_shown[k] = shown;
            host_next(g); /* show the next card */
        }
    } else {
        g->drop_open[k] = true;
        if (count_in(body, "\xE2\x86\x92 ") >= (g->computers ? 2 : 1) && once(g, "grabbed:%d", k))
            host_next(g); /* end the grab */
    }
}

static void handle_table(struct game *g, struct json_object *ev, const char *type)
{
    struct json_object *content = jget(ev, "content");
    if (strcmp(type, "org.matrix.msc3381.poll.start") == 0) {
        assert_true(g->poll);
        int c = 0;
        const char *fb = jstr(content, "org.matrix.msc1767.text");
        assert_non_null(fb);
        assert_int_equal(sscanf(fb, "Vote on case %d", &c), 1);
        if (once(g, "poll:%d", c))
            vote_poll(g, ev, c);
        return;
    }
    if (strcmp(type, "m.reaction") == 0) {
        struct json_object *rel = jget(content, "m.relates_to");
        const char *target = jstr(rel, "event_id");
        struct json_object *dn = target ? jget(g->drops, target) : NULL;
        if (dn && once(g, "grab:%d", json_object_get_int(dn))) {
            /* A drop is open: one player grabs the first card the bot offered. */
            unsigned who = (unsigned)json_object_get_int(dn) % g->n;
            react(g, who, g->room, target, jstr(rel, "key"));
            g->grabs++;
            if (g->kill_after_grab && g->kills == 0) {
                daemon_stop(g->e, SIGKILL);
                g->kills++;
                daemon_start(g->e);
            }
        }
        return;
    }
    if (strcmp(type, "m.room.message") != 0)
        return;
    struct json_object *rel = jget(content, "m.relates_to");
    const char *rel_type = jstr(rel, "rel_type");
    bool edit = rel_type && strcmp(rel_type, "m.replace") == 0;
    const char *body = jstr(edit ? jget(content, "m.new_content") : content, "body");
    if (!body)
        return;
    assert_null(strstr(body, "Your roles"));
    assert_null(strstr(body, "Your vote"));
    int k = 0;
    if (g->trade && sscanf(body, "Dealing session %d of 5 is open", &k) == 1 && k > 1 &&
        once(g, "session:%d", k))
        host_next(g); /* no trade after the first session */
    if (!edit && sscanf(body, "Drop %d:", &k) == 1)
        json_object_object_add(g->drops, jstr(ev, "event_id"), json_object_new_int(k));
    const char *drop_of = edit ? jstr(rel, "event_id") : jstr(ev, "event_id");
    if (strncmp(body, "Drop ", 5) == 0 && drop_of && jget(g->drops, drop_of))
        drop_step(g, body);
    const char *kase = strncmp(body, "Case ", 5) == 0 ? body : strstr(body, "\nCase ");
    if (kase && sscanf(kase + (*kase == '\n'), "Case %d of", &k) == 1 && k == g->kill_at_case &&
        g->kills == 0) {
        /* The daemon dies during a debate; its deadline passes while it is down. */
        daemon_stop(g->e, SIGKILL);
        g->kills++;
        msleep(1200);
        daemon_start(g->e);
    }
    if (strstr(body, "Game over!") && !g->result)
        g->result = strdup(body);
    int voted = 0, voters = 0;
    if (g->computers && sscanf(body, "Case %d: %d of %d ha", &k, &voted, &voters) == 3 && k > 0 &&
        k < 16) {
        g->cast[k] = voted;
        g->voters[k] = voters;
        close_vote_when_all_voted(g, k);
    }
    const char *session = strstr(body, "Dealing session ");
    int end = 0;
    if (g->computers && session &&
        sscanf(session, "Dealing session %d of 5 is open%n", &k, &end) == 1 && end &&
        once(g, "session:%d", k))
        offer_to_computer(g, k);
}

/* The first session's trade: the host gives the second player one card of their dealer's
 * resource, the second player accepts, and the host ends the session once it is done. */
static void trade(struct game *g, int p, const char *room, const char *body)
{
    const char *start = strstr(body, "(you start with 5 ");
    int id = 0;
    if (g->trade && p == 0 && strncmp(body, "Your secret roles.", 18) == 0 && start &&
        once(g, "offer")) {
        char card[32] = "";
        sscanf(start + 18, "%31[A-Za-z]", card); /* the first word: "Guns", "Luxury"... */
        char text[128];
        snprintf(text, sizeof(text), "offer %s 1 %s for nothing", g->players[1], card);
        say(g, 0, room, text);
    } else if (g->trade && p == 1 && sscanf(body, "Offer #%d from", &id) == 1 &&
               strstr(body, ": you would get ") && once(g, "accept:%d", id)) {
        char text[32];
        snprintf(text, sizeof(text), "accept %d", id);
        say(g, 1, room, text);
    } else if (g->trade && p == 0 && strstr(body, " accepted offer #") && once(g, "traded")) {
        host_next(g); /* the trade is done: end the first session */
    }
}

static void handle_dm(struct game *g, struct json_object *ev, const char *type, int p)
{
    struct json_object *content = jget(ev, "content");
    const char *room = jstr(ev, "room_id");
    if (strcmp(type, "m.reaction") == 0) {
        /* The bot put its choices on a ballot: vote now (the ballot is known to it). */
        const char *ballot = jstr(jget(content, "m.relates_to"), "event_id");
        struct json_object *b = ballot ? jget(g->done, ballot) : NULL;
        if (!b || !json_object_is_type(b, json_type_string) || !once(g, "voted:%s", ballot))
            return;
        int c = 0;
        assert_int_equal(sscanf(json_object_get_string(b), "Your ballot for case %d", &c), 1);
        const char *target = g->players[target_of(g, (unsigned)p, c)];
        if (p % 2 == 0) {
            char key[32];
            assert_true(ballot_key(json_object_get_string(b), target, key, sizeof(key)));
            react(g, (unsigned)p, room, ballot, key);
        } else {
            char text[64];
            snprintf(text, sizeof(text), "vote %s", target);
            say(g, (unsigned)p, room, text);
        }
        g->votes++;
        return;
    }
    struct json_object *rel = jget(content, "m.relates_to");
    const char *rel_type = jstr(rel, "rel_type");
    bool edit = rel_type && strcmp(rel_type, "m.replace") == 0;
    const char *body = jstr(edit ? jget(content, "m.new_content") : content, "body");
    if (strcmp(type, "m.room.message") != 0 || !body)
        return;
    /* Everything said in private is a secret the table must never read. */
    json_object_object_add(g->secrets, body, json_object_new_int(p));
    if (rel_type)
        return;
    trade(g, p, room, body);
    deal_with_computers(g, (unsigned)p, room, body, jstr(ev, "event_id"));
    int c = 0;
    if (sscanf(body, "Your ballot for case %d", &c) == 1) {
        assert_false(g->poll);
        /* The ballot mentions its voter, and only them. */
        struct json_object *ids = jget(jget(content, "m.mentions"), "user_ids");
        assert_non_null(ids);
        assert_int_equal(json_object_array_length(ids), 1);
        assert_string_equal(json_object_get_string(json_object_array_get_idx(ids, 0)),
                            g->players[p]);
        json_object_object_add(g->done, jstr(ev, "event_id"), json_object_new_string(body));
    } else if (sscanf(body, "Your vote on case %d", &c) == 1) {
        /* The case this confirmation names: what players read of their direct rooms and of the
         * table comes in no common order, so a late one must not count for the next case. */
        if (c > 0 && c < 16 && once(g, "confirm:%d:%d", c, p)) {
            g->confirmed[c]++;
            close_vote_when_all_voted(g, c);
        }
    }
}

/* Reads the bot's new events and acts like the players. Returns true once the game is over. */
static bool play_step(struct game *g)
{
    collect(g);
    for (; g->seen < json_object_array_length(g->log); g->seen++) {
        struct json_object *ev = json_object_array_get_idx(g->log, g->seen);
        const char *type = jstr(ev, "type");
        const char *room = jstr(ev, "room_id");
        if (strcmp(room, g->room) == 0) {
            handle_table(g, ev, type);
        } else {
            int p = player_of_dm(g, room);
            if (p >= 0)
                handle_dm(g, ev, type, p);
        }
    }
    return g->result != NULL;
}

static void play_to_end(struct game **games, size_t ngames, int ms)
{
    uint64_t end = NOW_MS() + (uint64_t)ms;
    while (NOW_MS() < end) {
        bool all = true;
        for (size_t i = 0; i < ngames; i++)
            all = play_step(games[i]) && all;
        if (all)
            return;
        msleep(STEP_MS);
    }
    struct json_object *evs = games[0]->log;
    size_t n = json_object_array_length(evs);
    for (size_t i = n > 15 ? n - 15 : 0; i < n; i++) {
        struct json_object *ev = json_object_array_get_idx(evs, i);
        fprintf(stderr, "bot said in %s: %s %.160s\n", jstr(ev, "room_id"), jstr(ev, "type"),
                json_object_to_json_string(jget(ev, "content")));
    }
    for (size_t i = 0; i < ngames; i++) {
        for (unsigned p = 0; p < games[i]->n; p++) {
            struct json_object *errs = hs_player_errors(games[i]->pl[p]);
            fprintf(stderr, "%s: %d events not decrypted, errors %s\n", games[i]->players[p],
                    hs_player_undecrypted(games[i]->pl[p]), json_object_to_json_string(errs));
            json_object_put(errs);
        }
    }
    dump_log(games[0]->e);
    fail_msg("the games did not finish in %d ms", ms);
}

static bool wait_text(struct game *g, const char *needle, int ms)
{
    uint64_t end = NOW_MS() + (uint64_t)ms;
    do {
        collect(g);
        struct json_object *evs = g->log;
        bool found = false;
        for (size_t i = 0; i < json_object_array_length(evs) && !found; i++) {
            struct json_object *ev = json_object_array_get_idx(evs, i);
            const char *body = jstr(jget(ev, "content"), "body");
            found = strcmp(jstr(ev, "room_id"), g->room) == 0 && body && strstr(body, needle);
        }
        if (found)
            return true;
        msleep(STEP_MS);
    } while (NOW_MS() < end);
    return false;
}

static void wait_joined(struct e2e *e, int rooms)
{
    uint64_t end = NOW_MS() + 20000;
    while (NOW_MS() < end) {
        if (hs_count(e->hs, "/join") >= rooms &&
            hs_count(e->hs, "GET /_matrix/client/v3/sync") >= 2)
            return;
        msleep(STEP_MS);
    }
    dump_log(e);
    fail_msg("the daemon did not join");
}

static int count_bot_text(struct game *g, const char *room, const char *needle);

static void lobby(struct game *g)
{
    say(g, 0, g->room, "!illegal new");
    assert_true(wait_text(g, "Type \"!illegal join\"", 20000));
    if (g->poll) {
        say(g, 0, g->room, "!illegal set ballots poll");
        assert_true(wait_text(g, "ballots is now poll", 20000));
    }
    for (unsigned i = 0; i < g->n; i++)
        say(g, i, g->room, "!illegal join");
    char want[32];
    snprintf(want, sizeof(want), "Players %u/", g->n);
    assert_true(wait_text(g, want, 20000));
    if (g->computers) {
        /* one computer more than wanted, the second easy, then the last one out again */
        for (unsigned i = 0; i <= g->computers; i++)
            say(g, 0, g->room, i == 1 ? "!illegal add computer easy" : "!illegal add computer");
        snprintf(want, sizeof(want), "Players %u/", g->n + g->computers + 1);
        assert_true(wait_text(g, want, 20000));
        say(g, 0, g->room, "!illegal remove computer");
        snprintf(want, sizeof(want), "Players %u/", g->n + g->computers);
        uint64_t end = NOW_MS() + 20000; /* shown once on the way up, and again */
        while (count_bot_text(g, g->room, want) < 2 && NOW_MS() < end)
            msleep(STEP_MS);
        assert_int_equal(count_bot_text(g, g->room, want), 2);
    }
    say(g, 0, g->room, "!illegal start");
}

/* Bot messages the game's players read (in room, or anywhere) that contain needle. */
static int count_bot_text(struct game *g, const char *room, const char *needle)
{
    collect(g);
    int n = 0;
    for (size_t i = 0; i < json_object_array_length(g->log); i++) {
        struct json_object *ev = json_object_array_get_idx(g->log, i);
        const char *body = jstr(jget(ev, "content"), "body");
        if (strcmp(jstr(ev, "type"), "m.room.message") == 0 && body && strstr(body, needle) &&
            (!room || strcmp(jstr(ev, "room_id"), room) == 0))
            n++;
    }
    return n;
}

/* Every player's client decrypted everything it read and found nothing wrong (signatures, the
 * checks of decrypted events, no Megolm index used twice, kill -9 or not); each ballot and offer
 * notified its player while no table notice notified anyone. */
static void check_clients(struct game *g)
{
    uint64_t end = NOW_MS() + 20000;
    bool pending = true;
    while (pending && NOW_MS() < end) {
        collect(g);
        pending = false;
        for (unsigned p = 0; p < g->n; p++)
            pending = pending || hs_player_undecrypted(g->pl[p]) > 0;
        if (pending)
            msleep(STEP_MS);
    }
    for (unsigned p = 0; p < g->n; p++) {
        struct json_object *errs = hs_player_errors(g->pl[p]);
        if (json_object_array_length(errs) > 0)
            fail_with(g->players[p], errs);
        json_object_put(errs);
        if (hs_player_undecrypted(g->pl[p]) > 0)
            fail_msg("%s could not decrypt %d messages", g->players[p],
                     hs_player_undecrypted(g->pl[p]));
        assert_true(g->poll || g->ballots[p] > 0);
        assert_int_equal(g->ballots_notified[p], g->ballots[p]);
        assert_int_equal(g->offers_notified[p], g->offers[p]);
    }
    if (g->trade)
        assert_int_equal(g->offers[1], 1);
    assert_true(g->table_notices > 0);
}

/* Nothing said in private reached the table before the results: no private text, no roles, hand,
 * offer or vote. */
static void check_secrets(struct game *g)
{
    static const char *const never[] = {"Your ", "Offer #", "accepted offer",
                                        "Dealer: ", "Buyer: "};
    for (size_t i = 0; i < json_object_array_length(g->log); i++) {
        struct json_object *ev = json_object_array_get_idx(g->log, i);
        struct json_object *c = jget(ev, "content");
        struct json_object *nc = jget(c, "m.new_content");
        const char *body = jstr(nc ? nc : c, "body");
        if (strcmp(jstr(ev, "room_id"), g->room) != 0 || !body)
            continue;
        if (strstr(body, "Game over!"))
            return; /* the results reveal everything */
        for (size_t k = 0; k < sizeof(never) / sizeof(never[0]); k++)
            if (strstr(body, never[k]))
                fail_msg("the table read \"%s\": %.160s", never[k], body);
        json_object_object_foreach(g->secrets, secret, who)
        {
            if (strstr(body, secret))
                fail_msg("the table read what %s was told in private: %.160s",
                         g->players[json_object_get_int(who)], secret);
        }
    }
    fail_msg("no results at the table");
}

#ifndef MX_E2EE

/* Bot events of a type the game's players read. */
static int count_bot_type(struct game *g, const char *type)
{
    collect(g);
    int n = 0;
    for (size_t i = 0; i < json_object_array_length(g->log); i++)
        n += strcmp(jstr(json_object_array_get_idx(g->log, i), "type"), type) == 0;
    return n;
}

/* Every player got exactly one direct room, created by the bot and recorded in m.direct. */
static void check_direct_rooms(struct e2e *e, struct game *g)
{
    for (unsigned i = 0; i < g->n; i++) {
        char *dm = hs_direct_room(e->hs, g->players[i]);
        assert_non_null(dm);
        free(dm);
    }
    char line[64];
    snprintf(line, sizeof(line), "POST /_matrix/client/v3/createRoom");
    assert_true(hs_count(e->hs, line) >= (int)g->n);
}

/* ---- tests ---- */

static void test_games_4_and_8_players(void **state)
{
    (void)state;
    struct e2e *e = e2e_open(SEED_DEFAULT, false, NULL);
    struct game *g4 = game_open(e, 4, "a", "private_chat");
    struct game *g8 = game_open(e, 8, "b", "private_chat");
    uint64_t t0 = NOW_MS();
    daemon_start(e);
    wait_joined(e, 2);
    lobby(g4);
    lobby(g8);
    struct game *games[] = {g4, g8};
    play_to_end(games, 2, GAME_MS);
    fprintf(stderr, "4- and 8-player games played in %llu ms\n",
            (unsigned long long)(NOW_MS() - t0));
    assert_int_equal(g4->grabs, 4);
    assert_int_equal(g8->grabs, 4);
    assert_int_equal(g4->votes, 4 * 4);
    assert_int_equal(g8->votes, 8 * 8);
    assert_int_equal(count_bot_text(g8, g8->room, " is over: "), 4);
    assert_int_equal(count_bot_text(g8, g8->room, "Verdict on case"), 8);
    assert_int_equal(count_bot_text(g4, g4->room, "Game over!"), 1);
    assert_int_equal(count_bot_text(g8, g8->room, "Game over!"), 1);
    check_clients(g4);
    check_clients(g8);
    check_secrets(g4);
    check_secrets(g8);
    /* The 12 players needed 12 rooms: none was made twice. */
    check_direct_rooms(e, g4);
    check_direct_rooms(e, g8);
    assert_int_equal(hs_count(e->hs, "POST /_matrix/client/v3/createRoom"), 12);
    game_free(g4);
    game_free(g8);
    e2e_close(e);
}

/* A homeserver slow to take the bot's keys (its first upload rate-limited for 3 s) on the bot's
 * very first start: a player's client shares the key of what it writes only with the devices it
 * finds, so the bot must be a member with keys before anyone writes to it. The first command
 * typed once the bot joined is read. */
static void test_first_command_after_slow_key_upload(void **state)
{
    (void)state;
    struct e2e *e = e2e_open(SEED_DEFAULT, false, NULL);
    struct game *g = game_open(e, 1, "k", "private_chat");
    assert_true(hs_room_encrypted(e->hs, g->room));
    hs_fault(e->hs, "keys/upload", 429, "{\"errcode\":\"M_LIMIT_EXCEEDED\",\"error\":\"slow\"}",
             "Retry-After: 3", 1);
    daemon_start(e);
    wait_joined(e, 1);
    say(g, 0, g->room, "!illegal new");
    assert_true(wait_text(g, "Type \"!illegal join\"", 20000));
    game_free(g);
    e2e_close(e);
}

static void test_poll_mode_game(void **state)
{
    (void)state;
    struct e2e *e = e2e_open(SEED_DEFAULT, false, NULL);
    struct game *g = game_open(e, 4, "p", "private_chat");
    g->poll = true;
    daemon_start(e);
    wait_joined(e, 1);
    lobby(g);
    struct game *games[] = {g};
    play_to_end(games, 1, GAME_MS);
    assert_int_equal(g->votes, 4 * 4);
    /* Each vote ran as a poll that the bot ended itself, before the verdict. */
    assert_int_equal(count_bot_type(g, "org.matrix.msc3381.poll.start"), 4);
    assert_int_equal(count_bot_type(g, "org.matrix.msc3381.poll.end"), 4);
    /* No private ballots in poll mode. */
    assert_int_equal(count_bot_text(g, NULL, "Your ballot for case"), 0);
    check_clients(g);
    check_secrets(g);
    game_free(g);
    e2e_close(e);
}

/* Plays one 4-player game, optionally with crashes; returns its "Game over!" text. */
static char *play_seeded(int kill_at_case, bool kill_after_grab, int *kills)
{
    struct e2e *e = e2e_open(SEED_DEFAULT, false, NULL);
    struct game *g = game_open(e, 4, "c", "private_chat");
    g->kill_at_case = kill_at_case;
    g->kill_after_grab = kill_after_grab;
    daemon_start(e);
    wait_joined(e, 1);
    lobby(g);
    struct game *games[] = {g};
    play_to_end(games, 1, GAME_MS);
    *kills = g->kills;
    /* Nothing was replayed: one join each, one grab per drop, one verdict per case. */
    assert_int_equal(count_bot_text(g, g->room, "Players 4/8"), 1);
    assert_int_equal(count_bot_text(g, g->room, " is over: "), 4);
    assert_int_equal(count_bot_text(g, g->room, "Verdict on case"), 4);
    assert_int_equal(count_bot_text(g, g->room, "Game over!"), 1);
    assert_int_equal(hs_count(e->hs, "POST /_matrix/client/v3/createRoom"), 4);
    check_clients(g);
    check_secrets(g);
    char *result = strdup(g->result);
    game_free(g);
    e2e_close(e);
    return result;
}

static void test_restart_mid_game(void **state)
{
    (void)state;
    int kills = 0;
    char *plain = hold(play_seeded(0, false, &kills));
    assert_int_equal(kills, 0);
    char *debate = hold(play_seeded(2, false, &kills));
    assert_int_equal(kills, 1);
    char *grab = hold(play_seeded(0, true, &kills));
    assert_int_equal(kills, 1);
    assert_string_equal(debate, plain);
    assert_string_equal(grab, plain);
    release(plain);
    release(debate);
    release(grab);
}

/* Two people and two computers, seated by the host's commands in the lobby (three added, the
 * last removed). The people trade with the computers by DM text, as with anyone: each session
 * one offers a computer a card, and every offer a computer makes them is answered; they grab
 * by reaction and vote on their private ballots, and the host closes each vote once the table
 * counts every seat's vote. The computers' pace is a tenth of a person's, so the game fits
 * the test's time; their moves still come a second apart at the table (the platform's gap).
 * No room is made for a computer, nothing the bot sent mentions one, and nothing private
 * reaches the table (check_secrets). */
static void test_two_people_two_computers(void **state)
{
    (void)state;
    struct e2e *e = e2e_open_game(SEED_DEFAULT,
                                  "session_seconds = 6\ndebate_seconds = 1\n"
                                  "reveal_seconds = 600\ngrab_seconds = 600\n"
                                  "vote_seconds = 600\ncomputer_pace = 10\n",
                                  NULL);
    struct game *g = game_open(e, 2, "h", "private_chat");
    g->computers = 2;
    daemon_start(e);
    wait_joined(e, 1);
    lobby(g);
    struct game *games[] = {g};
    play_to_end(games, 1, 2 * GAME_MS);
    fprintf(stderr, "offers of computers answered: %d; answers of computers: %d\n",
            g->offers_from_computers, g->computers_answers);
    assert_non_null(strstr(g->result, "Ada-bot"));
    assert_non_null(strstr(g->result, "Bruno-bot"));
    assert_null(strstr(g->result, "Clara-bot"));
    assert_true(g->offers_from_computers > 0);
    assert_true(g->computers_answers > 0);
    for (int c = 1; c <= 4; c++)
        assert_int_equal(g->voters[c], 4);
    assert_int_equal(count_bot_text(g, g->room, "Verdict on case"), 4);
    assert_int_equal(count_bot_text(g, g->room, "Game over!"), 1);
    check_clients(g);
    check_secrets(g);
    for (size_t i = 0; i < json_object_array_length(g->log); i++) {
        struct json_object *ids = jget(
            jget(jget(json_object_array_get_idx(g->log, i), "content"), "m.mentions"), "user_ids");
        for (size_t k = 0; ids && k < json_object_array_length(ids); k++)
            assert_int_equal(json_object_get_string(json_object_array_get_idx(ids, k))[0], '@');
    }
    /* The computers have no account, so no room: the bot made the two people's DMs only. */
    assert_int_equal(hs_count(e->hs, "POST /_matrix/client/v3/createRoom"), 2);
    game_free(g);
    e2e_close(e);
}

/* ---- Palm & Drewes' Illegal ---- */

/* What the person of a Palm & Drewes table last read: their hand (from their DM), whether the
 * table gives them the turn or opens a pass, and the result. */
struct pd_seen {
    char hand[512];
    bool my_turn, pass_open, over;
    int moves, passes;
    int turns, timeouts; /* the person's turns, and those the rules' timer played */
};

/* Words only a player's DMs may carry (English catalog). */
static const char *const pd_private_words[] = {"Your hand", "You will pass", "You passed",
                                               "offers you", "You offer"};

/* Whether the name that ends at t is a computer's ("Ada-bot"): the only other is the person's. */
static bool pd_by_computer(const char *body, const char *t)
{
    return t - body >= 4 && strncmp(t - 4, "-bot", 4) == 0;
}

/* One table line as the person reads it: the last turn named decides whose it is. */
static void pd_read_table(struct pd_seen *v, const char *body)
{
    for (const char *t = strstr(body, "'s turn:"); t; t = strstr(t + 1, "'s turn:")) {
        v->my_turn = !pd_by_computer(body, t);
        v->turns += v->my_turn;
    }
    for (const char *t = strstr(body, "'s time is up: the rules"); t;
         t = strstr(t + 1, "'s time is up: the rules"))
        v->timeouts += !pd_by_computer(body, t);
    if (strstr(body, "passes a card to the left"))
        v->pass_open = true;
    if (strstr(body, "changed hands") || strstr(body, "Time is up"))
        v->pass_open = false;
    v->over = v->over || strstr(body, "The game is over") != NULL;
}

/* Reads the new events; acts once on each one that gives the person something to do. */
static void pd_step(struct game *g, struct pd_seen *v)
{
    collect(g);
    for (; g->seen < json_object_array_length(g->log); g->seen++) {
        struct json_object *ev = json_object_array_get_idx(g->log, g->seen);
        struct json_object *c = jget(ev, "content"), *nc = jget(c, "m.new_content");
        const char *body = jstr(nc ? nc : c, "body"), *room = jstr(ev, "room_id"), *h;
        char card[128], line[192];
        if (!body || strcmp(jstr(ev, "type"), "m.room.message") != 0)
            continue;
        if (strcmp(room, g->room) != 0) {
            if (player_of_dm(g, room) == 0 && (h = strstr(body, "Your hand")) && strchr(h, ':'))
                snprintf(v->hand, sizeof v->hand, "%s", strchr(h, ':') + 2);
            if (player_of_dm(g, room) == 0 && strchr(v->hand, ','))
                json_object_object_add(g->secrets, v->hand, json_object_new_int(0));
            continue;
        }
        pd_read_table(v, body);
        hand_first_card(v->hand, card, sizeof card);
        if (v->over || !card[0])
            continue;
        if (v->pass_open && g->dms[0]) {
            snprintf(line, sizeof line, "pass %s", card);
            say(g, 0, g->dms[0], line);
            v->passes++;
            v->pass_open = false;
        } else if (v->my_turn) {
            snprintf(line, sizeof line, "!illegal discard %s", card);
            say(g, 0, g->room, line);
            v->moves++;
            v->my_turn = false;
        }
    }
}

/* No table message before the result has a private message's words or a hand the person was
 * shown in private. */
static void pd_check_secrets(struct game *g)
{
    for (size_t i = 0; i < json_object_array_length(g->log); i++) {
        struct json_object *ev = json_object_array_get_idx(g->log, i);
        struct json_object *c = jget(ev, "content"), *nc = jget(c, "m.new_content");
        const char *body = jstr(nc ? nc : c, "body");
        if (strcmp(jstr(ev, "room_id"), g->room) != 0 || !body)
            continue;
        if (strstr(body, "The game is over"))
            return;
        for (size_t k = 0; k < sizeof pd_private_words / sizeof *pd_private_words; k++)
            if (strstr(body, pd_private_words[k]))
                fail_msg("the table read \"%s\": %.160s", pd_private_words[k], body);
        json_object_object_foreach(g->secrets, secret, who)
        {
            (void)who;
            if (strstr(body, secret))
                fail_msg("the table read a hand: %.160s", secret);
        }
    }
    fail_msg("no result at the table");
}

/* One person and two computers play Palm & Drewes' Illegal in the encrypted room: the person
 * discards in their turn at the table and passes a card in their DM when a nuisance card asks;
 * a turn they let run out is played by the rules' timer. */
static void test_palm_drewes_game(void **state)
{
    (void)state;
    struct e2e *e = e2e_open_game(SEED_DEFAULT,
                                  "computer_pace = 10\n[game.palm-drewes]\nturn_seconds = 20\n"
                                  "window_seconds = 2\npass_seconds = 20\nchoice_seconds = 5\n",
                                  NULL);
    struct game *g = game_open(e, 1, "pd", "private_chat");
    daemon_start(e);
    wait_joined(e, 1);
    say(g, 0, g->room, "!illegal new palm-drewes");
    assert_true(wait_text(g, "(2 to 6 players)", 20000));
    say(g, 0, g->room, "!illegal join");
    say(g, 0, g->room, "!illegal add computer");
    say(g, 0, g->room, "!illegal add computer");
    assert_true(wait_text(g, "Players 3/", 20000));
    say(g, 0, g->room, "!illegal start");
    struct pd_seen v = {0};
    uint64_t end = NOW_MS() + 4 * GAME_MS;
    while (!v.over && NOW_MS() < end) {
        pd_step(g, &v);
        msleep(STEP_MS);
    }
    fprintf(stderr, "palm-drewes: %d turns, %d moves and %d passes typed, %d turns timed out\n",
            v.turns, v.moves, v.passes, v.timeouts);
    if (!v.over) {
        dump_log(e);
        fail_msg("the game did not end");
    }
    assert_true(v.moves > 0);
    assert_true(v.timeouts < v.turns); /* some of the person's moves were made, not timed out */
    assert_int_equal(count_bot_text(g, g->room, "The game is over"), 1);
    pd_check_secrets(g);
    /* the computers have no account, so no room: the bot made the person's DM only */
    assert_int_equal(hs_count(e->hs, "POST /_matrix/client/v3/createRoom"), 1);
    game_free(g);
    e2e_close(e);
}

#else /* MX_E2EE */

/* Every event the bot sent into room (born encrypted) is m.room.encrypted (state aside). */
static void check_ciphertext_only(struct e2e *e, const char *room)
{
    assert_true(hs_room_encrypted(e->hs, room));
    size_t cursor = 0;
    struct json_object *evs = hs_bot_events_after(e->hs, &cursor);
    int n = 0;
    for (size_t i = 0; i < json_object_array_length(evs); i++) {
        struct json_object *ev = json_object_array_get_idx(evs, i);
        const char *type = jstr(ev, "type");
        assert_non_null(type);
        if (strcmp(jstr(ev, "room_id"), room) != 0)
            continue;
        if (strcmp(type, "m.room.encrypted") != 0) {
            char what[256];
            snprintf(what, sizeof(what), "the bot sent %s in clear into the encrypted room %s",
                     type, room);
            struct json_object *content = json_object_get(jget(ev, "content"));
            json_object_put(evs);
            fail_with(what, content);
        }
        n++;
    }
    json_object_put(evs);
    assert_true(n > 0);
}

static void check_game_ended_once(struct game *g)
{
    assert_int_equal(count_bot_text(g, g->room, "Players 4/8"), 1);
    assert_int_equal(count_bot_text(g, g->room, " is over: "), 4);
    assert_int_equal(count_bot_text(g, g->room, "Verdict on case"), 4);
    assert_int_equal(count_bot_text(g, g->room, "Game over!"), 1);
}

/* Whether the daemon made its key file beside the store. */
static bool key_file(struct e2e *e)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/illegald.db-matrix-key", e->dir);
    return access(path, F_OK) == 0;
}

/* A whole game where every room is encrypted: the table (encrypted by the server's default),
 * the DMs the bot opens (likewise) and one a player opened from Element before the game; a trade
 * in the first session; the daemon is killed with SIGKILL during a debate and restarted. Its
 * keys are stored with the config's pickle_key. */
static void test_encrypted_game(void **state)
{
    (void)state;
    struct e2e *e = e2e_open(SEED_DEFAULT, true, "e2e-pickle-key-from-the-config");
    struct game *g = game_open(e, 4, "x", "private_chat");
    g->trade = true;
    assert_true(hs_room_encrypted(e->hs, g->room));
    char *dm = hold(hs_open_dm(e->hs, g->players[1]));
    g->kill_at_case = 2;
    daemon_start(e);
    wait_joined(e, 2);
    lobby(g);
    struct game *games[] = {g};
    play_to_end(games, 1, 2 * GAME_MS);
    assert_int_equal(g->kills, 1);
    check_clients(g);
    check_secrets(g);
    check_game_ended_once(g);
    assert_false(key_file(e));
    /* The player's own encrypted DM is the one the bot used. */
    char *used = hold(hs_direct_room(e->hs, g->players[1]));
    assert_non_null(used);
    assert_string_equal(used, dm);
    check_ciphertext_only(e, g->room);
    for (unsigned p = 0; p < g->n; p++)
        check_ciphertext_only(e, g->dms[p]);
    release(used);
    release(dm);
    game_free(g);
    e2e_close(e);
}

/* A server that encrypts private rooms (invite); the table is public, so plain, until the host
 * turns encryption on after the first drop. The game goes on to its end, and what the bot says
 * there once it read the change is encrypted (e2e_close checks). */
static void test_encryption_turned_on_mid_game(void **state)
{
    (void)state;
    struct e2e *e = e2e_open(HS_ENC_INVITE, false, NULL);
    struct game *g = game_open(e, 4, "m", "public_chat");
    assert_false(hs_room_encrypted(e->hs, g->room));
    daemon_start(e);
    wait_joined(e, 1);
    lobby(g);
    assert_true(wait_text(g, "Drop 1:", 30000));
    hs_enable_encryption(e->hs, g->room, g->players[0]);
    size_t cursor = 0;
    json_object_put(hs_bot_events_after(e->hs, &cursor));
    struct game *games[] = {g};
    play_to_end(games, 1, 2 * GAME_MS);
    check_clients(g);
    check_secrets(g);
    check_game_ended_once(g);
    assert_true(key_file(e));
    /* The rest of the game went encrypted. */
    struct json_object *after = hs_bot_events_after(e->hs, &cursor);
    int enc = 0;
    for (size_t i = 0; i < json_object_array_length(after); i++) {
        struct json_object *ev = json_object_array_get_idx(after, i);
        enc += strcmp(jstr(ev, "room_id"), g->room) == 0 &&
               strcmp(jstr(ev, "type"), "m.room.encrypted") == 0;
    }
    json_object_put(after);
    assert_true(enc > 10);
    game_free(g);
    e2e_close(e);
}

/* In plain rooms (a server that encrypts nothing, on purpose) the homeserver's own push rules
 * decide: GET /notifications lists each player's ballots and the offer, highlighted, and no
 * notice. */
static void test_plain_game_notifies(void **state)
{
    (void)state;
    struct e2e *e = e2e_open(HS_ENC_OFF, true, NULL);
    struct game *g = game_open(e, 4, "n", "private_chat");
    g->trade = true;
    daemon_start(e);
    wait_joined(e, 1);
    lobby(g);
    struct game *games[] = {g};
    play_to_end(games, 1, GAME_MS);
    check_clients(g);
    check_secrets(g);
    for (unsigned p = 0; p < g->n; p++) {
        struct json_object *ns = NULL;
        char *token = hs_register(e->hs, g->players[p], "NOTIFY");
        int status =
            hs_request(e->hs, token, "GET",
                       "/_matrix/client/v3/notifications?only=highlight&limit=1000", NULL, &ns);
        free(token);
        int ballots = 0, offers = 0, notices = 0;
        struct json_object *list = jget(ns, "notifications");
        for (size_t i = 0; i < json_object_array_length(list); i++) {
            struct json_object *c =
                jget(jget(json_object_array_get_idx(list, i), "event"), "content");
            const char *body = jstr(c, "body");
            const char *msgtype = jstr(c, "msgtype");
            notices += msgtype && strcmp(msgtype, "m.notice") == 0;
            ballots += body && strncmp(body, "Your ballot for case", 20) == 0;
            offers += body && strstr(body, ": you would get ") != NULL;
        }
        json_object_put(ns);
        assert_int_equal(status, 200);
        assert_int_equal(notices, 0);
        assert_int_equal(ballots, g->ballots[p]);
        assert_int_equal(offers, g->offers[p]);
    }
    game_free(g);
    e2e_close(e);
}

#endif /* MX_E2EE */

int main(int argc, char **argv)
{
    illegald_path = argc > 1 ? argv[1] : "bin/illegald";
    if (access(illegald_path, X_OK) != 0) {
        fprintf(stderr, "no daemon at %s\n", illegald_path);
        return 1;
    }
    setenv("no_proxy", "127.0.0.1,localhost", 1);
    setenv("NO_PROXY", "127.0.0.1,localhost", 1);
    signal(SIGPIPE, SIG_IGN);
    if (getenv("MX_E2E_ONLY"))
        cmocka_set_test_filter(getenv("MX_E2E_ONLY"));
#ifdef MX_E2EE
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_encrypted_game, teardown),
        cmocka_unit_test_teardown(test_encryption_turned_on_mid_game, teardown),
        cmocka_unit_test_teardown(test_plain_game_notifies, teardown),
    };
    return cmocka_run_group_tests_name("matrix_e2ee", tests, NULL, NULL);
#else
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_games_4_and_8_players, teardown),
        cmocka_unit_test_teardown(test_poll_mode_game, teardown),
        cmocka_unit_test_teardown(test_first_command_after_slow_key_upload, teardown),
        cmocka_unit_test_teardown(test_restart_mid_game, teardown),
        cmocka_unit_test_teardown(test_two_people_two_computers, teardown),
        cmocka_unit_test_teardown(test_palm_drewes_game, teardown),
    };
    return cmocka_run_group_tests_name("matrix_e2e", tests, NULL, NULL);
#endif
}
