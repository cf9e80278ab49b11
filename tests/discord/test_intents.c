/*
 * test_intents.c - the real daemon on an application without the Message
 * Content intent, as most large Discord bots are: [discord] message_content
 * is left at auto, Discord refuses the intent (4014) and the daemon goes on
 * without it. A whole 4-player game, then a moderator-run event over two
 * tables, are played with commands addressed by mention ("@illegald join"),
 * a reply that pings the bot, slash commands, buttons, reactions and DMs;
 * "!illegal" typed at a table reaches the bot empty and is chat.
 *
 * Also here, as they show at the table: the trade builder offers every
 * resource in play from the first hand on (B3), a timer the host sets during
 * the game is the one the table is told (B4), and an event's tables say
 * nothing of idle lobbies and its sign-ups are one list, edited (B6).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "e2e.h"

#define MENTION "<@" FD_BOT_ID ">"
#define TABLE_2 "530000000000000002"
#define TABLE_3 "530000000000000003"

static bool refused_and_ready(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    struct json_object *g = jget(s, "gateway");
    return json_object_get_int(jget(g, "refused_intents")) >= 1 &&
           json_object_get_boolean(jget(g, "ready")) &&
           json_object_array_length(jget(s, "commands")) > 0;
}

/* A daemon with message_content = auto on an app that may not read content. */
static void setup_without_content(struct e2e *e, unsigned nplayers)
{
    setup_e2e_with(e, nplayers, GAME_TIMERS, 0, NULL);
    wait_until(e, refused_and_ready, NULL, "the session without Message Content");
    e->mention = true;
}

/* The resource ids a hand's "You ask for" menu offers, as "guns,alcohol,"
 * in the menu's order (into out). */
static const char *ask_resources(struct json_object *hand, char *out, size_t len)
{
    struct json_object *opts = select_options(hand, "tb:ask");
    size_t o = 0;
    out[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(opts); i++) {
        const char *v = jstr(json_object_array_get_idx(opts, i), "value"); /* "1 guns" */
        const char *card = v ? strchr(v, ' ') : NULL;
        char item[40];
        snprintf(item, sizeof item, "%s,", card ? card + 1 : "?");
        if (card && !strstr(out, item) && o + strlen(item) < len) {
            strcpy(out + o, item);
            o += strlen(item);
        }
    }
    return out;
}

struct text_want {
    const char *channel;
    const char *text;
};

/* Some message in channel has text in its content or first embed. */
static bool text_in(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct text_want *w = arg;
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *c = jstr(jget(m, "body"), "content"), *d = embed_text(m);
        if (strcmp(jstr(m, "channel"), w->channel) == 0 &&
            ((c && strstr(c, w->text)) || (d && strstr(d, w->text))))
            return true;
    }
    return false;
}

static int count_in(struct json_object *s, const char *channel, const char *text)
{
    struct json_object *msgs = jget(s, "messages");
    int n = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *c = jstr(jget(m, "body"), "content"), *d = embed_text(m);
        if ((!channel || strcmp(jstr(m, "channel"), channel) == 0) &&
            ((c && strstr(c, text)) || (d && strstr(d, text))))
            n++;
    }
    return n;
}

static struct json_object *message_in(struct json_object *s, const char *channel, const char *text)
{
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *c = jstr(jget(m, "body"), "content"), *d = embed_text(m);
        if (strcmp(jstr(m, "channel"), channel) == 0 &&
            ((c && strstr(c, text)) || (d && strstr(d, text))))
            return m;
    }
    return NULL;
}

/*
 * A whole 4-player game on an app without the intent: opened and steered by
 * mention, joined by mention, by a reply that pings the bot, by the lobby's
 * button and by /illegal; "!illegal join" typed at the table is never read.
 */
static void test_game_without_content(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_without_content(&e, 4);
    assert_int_equal(gw(&e, "identifies"), 2); /* refused once, then without the intent */
    say_table(&e, 0, MENTION " new standard");
    struct msg_want lobby = {.title = "Illegal — lobby", .n = 0};
    wait_until(&e, message_ready, &lobby, "the lobby");
    /* the lobby tells players the way that works here */
    struct text_want how = {TABLE, "Type \"" MENTION " join\" to play"};
    wait_until(&e, text_in, &how, "the lobby's words for this server");
    say_table(&e, 1, "!illegal join"); /* empty for the bot: chat */
    say_table(&e, 1, MENTION " join");
    lobby.text = "bob";
    wait_until(&e, message_ready, &lobby, "bob, joined by mention");
    reply_table(&e, 2, "join", lobby.id, true);
    lobby.text = "carol";
    wait_until(&e, message_ready, &lobby, "carol, joined by a reply");
    click(&e, 3, TABLE, false, lobby.id, "!illegal join", NULL);
    slash(&e, 0, "join", NULL);
    lobby.text = "Players 4/8";
    wait_until(&e, message_ready, &lobby, "four players");
    say_table(&e, 0, MENTION " start");
    /* B3: from the first hand on, "You ask for" offers every resource in play */
    char first[256] = "", now[256];
    for (unsigned i = 0; i < 4; i++) {
        struct json_object *hand = wait_dm(&e, e.players[i], "tb:ask");
        ask_resources(hand, now, sizeof now);
        if (!first[0])
            snprintf(first, sizeof first, "%s", now);
        assert_string_equal(now, first);
        json_object_put(hand);
    }
    unsigned commas = 0;
    for (const char *c = first; *c; c++)
        commas += *c == ',';
    assert_int_equal(commas, 4); /* 4 players, 4 resources in play */
    /* B4: a timer set during the game is the one the table is told */
    say_table(&e, 0, MENTION " set debate 2h");
    struct text_want set = {TABLE, "From now on, debate lasts 2 h"};
    wait_until(&e, text_in, &set, "the new debate timer");
    for (int session = 1; session <= 5; session++) {
        if (session <= 2)
            trade(&e, (unsigned)session);
        table_command(&e, 0, "next"); /* the session closes */
        if (session < 5)
            drop(&e, session);
    }
    wait_until(&e, case_opened, NULL, "the tribunal");
    struct json_object *s = snap(&e);
    const char *opened = jstr(jget(table_content(s, "Case 1 of"), "body"), "content");
    assert_non_null(strstr(opened, "Debate for 2 h"));
    json_object_put(s);
    tribunal(&e);
    wait_until(&e, results_posted, NULL, "the result");
    s = snap(&e);
    assert_non_null(strstr(embed_text(table_message(s, "Results", 0)), "Game over"));
    /* the typed "!illegal join" came without its text and got no answer */
    assert_true(json_object_get_int(jget(s, "stripped")) >= 1);
    assert_int_equal(count_in(s, TABLE, "You have joined"), 0);
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    json_object_put(s);
    assert_all_answered(&e);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

/* The 4 players seated at the table are played through a quick game: no
 * trades, the drops taken by reaction, every vote abstained by /illegal. */
static void play_quickly(struct e2e *e, const unsigned *seats)
{
    for (int session = 1; session <= 5; session++) {
        table_command(e, 0, "next");
        if (session >= 5)
            break;
        struct msg_want w = {.title = "Drop", .n = session - 1, .min_reactions = 4};
        wait_until(e, message_ready, &w, "the drop to open");
        struct json_object *s = snap(e);
        struct json_object *reactions = jget(table_message(s, "Drop", session - 1), "reactions");
        for (unsigned i = 0; i < 4; i++)
            react(e, seats[i], w.id,
                  json_object_get_string(json_object_array_get_idx(reactions, i)));
        json_object_put(s);
    }
    for (int kase = 0;; kase++) {
        table_command(e, 0, "next"); /* the debate ends */
        struct vote_want w = {.n = kase};
        wait_until(e, vote_or_over, &w, "a vote or the result");
        if (w.over)
            return;
        for (unsigned i = 0; i < 4; i++)
            slash(e, seats[i], "abstain", NULL);
        table_command(e, 0, "next"); /* the vote closes */
    }
}

/*
 * A moderator (the server's owner) runs an event of two tables on an app
 * without the intent: opened, joined, tabled, seated and started by mention
 * and by /illegal; both tables play to their results; the event closes.
 */
static void test_event_without_content(void **state)
{
    (void)state;
    static struct e2e e;
    setup_without_content(&e, 8);
    fdc_guild(e.srv, FD_GUILD_ID, e.players[0]); /* alice owns the server: a moderator */
    e2e_table = TABLE;                           /* the hall */
    say_table(&e, 0, MENTION " event open Friday night");
    struct text_want open = {TABLE, "Sign up with \"" MENTION " event join\""};
    wait_until(&e, text_in, &open, "the event, with the way to sign up here");
    for (unsigned i = 0; i < 8; i++) {
        if (i % 2)
            slash(&e, i, "event", "[{\"name\":\"action\",\"type\":3,\"value\":\"join\"}]");
        else
            say_table(&e, i, MENTION " event join");
    }
    struct text_want all = {TABLE, "8 players: alice, bob"};
    wait_until(&e, text_in, &all, "eight sign-ups");
    /* B6: one list, edited at each sign-up */
    struct json_object *s = snap(&e);
    assert_int_equal(count_in(s, TABLE, "Signed up for"), 1);
    assert_int_equal(json_object_get_int(jget(message_in(s, TABLE, "Signed up for"), "edits")), 7);
    json_object_put(s);
    e2e_table = TABLE_2;
    say_table(&e, 0, MENTION " event table");
    e2e_table = TABLE_3;
    say_table(&e, 0, MENTION " event table");
    struct text_want tabled = {TABLE_3, "table 2 of"};
    wait_until(&e, text_in, &tabled, "two tables");
    e2e_table = TABLE;
    say_table(&e, 0, MENTION " event seat");
    struct text_want seated = {TABLE, "Seating for round 1"};
    wait_until(&e, text_in, &seated, "the seating");
    say_table(&e, 0, MENTION " event start");
    /* who sits where, from the lobbies (started at once) */
    const char *tables[2] = {TABLE_2, TABLE_3};
    unsigned seats[2][4], nseats[2] = {0, 0};
    for (unsigned t = 0; t < 2; t++) {
        e2e_table = tables[t];
        struct msg_want lobby = {.title = "Illegal — lobby", .n = 0, .text = "started with"};
        wait_until(&e, message_ready, &lobby, "a table's game");
        s = snap(&e);
        const char *text =
            strstr(embed_text(table_message(s, "Illegal — lobby", 0)), "started with");
        assert_non_null(text);
        for (unsigned i = 0; i < 8; i++)
            if (strstr(text, fdc_name(e.players[i])) && nseats[t] < 4)
                seats[t][nseats[t]++] = i;
        json_object_put(s);
        assert_int_equal(nseats[t], 4);
    }
    for (unsigned t = 0; t < 2; t++) {
        e2e_table = tables[t];
        /* the organiser hosts each table's game, and is no player of it */
        play_quickly(&e, seats[t]);
        wait_until(&e, results_posted, NULL, "a table's result");
    }
    e2e_table = TABLE;
    struct text_want over = {TABLE, "Round 1 of \"Friday night\" is over"};
    wait_until(&e, text_in, &over, "the end of the round");
    say_table(&e, 0, MENTION " event close");
    struct text_want closed = {TABLE, "\"Friday night\" is closed"};
    wait_until(&e, text_in, &closed, "the event's close");
    s = snap(&e);
    /* B6: an event's tables start at once: no word of idle lobbies */
    assert_int_equal(count_in(s, NULL, "closes if its lobby"), 0);
    assert_int_equal(count_in(s, TABLE, "Signed up for"), 1);
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    json_object_put(s);
    assert_each_answered_once(&e);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_game_without_content, kill_live),
        cmocka_unit_test_teardown(test_event_without_content, kill_live),
    };
    return e2e_run(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
