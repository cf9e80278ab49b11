/*
 * test_computers.c - two people and two computer players play a whole game
 * on the Discord test server, the daemon a child process.
 *
 * The host seats the computers with the lobby's Add computer button (three,
 * then one out again with Remove computer; a press by someone else is
 * refused). The people trade with the computers as with anyone: each
 * session one of them picks a computer in the trade builder under their hand
 * and sends an offer, which the computer answers, and every offer a computer
 * makes them arrives with the Accept and Decline buttons a person's has and
 * is answered with them. They grab by reaction and vote with the tribunal's
 * buttons; the host closes a vote once the table counts every seat's vote.
 * Then: the computers have no DM channel and nothing was sent to them, and
 * nothing private reached the table before the result.
 *
 * The computers' pace is a tenth of a person's so the game fits the test's
 * time; their moves still come a second apart at a table (the platform's
 * gap, bot/computers.h K3).
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

#define PEOPLE    2
#define COMPUTERS 2
#define SEATS     (PEOPLE + COMPUTERS)
#define LOBBY     "Illegal — lobby"
#define ADD       "!illegal add computer"
#define REMOVE    "!illegal remove computer"

/* The steps end by the host's /illegal next, but for the reveal and the
 * grab: a normal computer whose goods lie in a drop lets the others grab
 * first while three quarters of the grab is left, and the test waits for
 * it. */
#define TIMERS                                                                                     \
    "session_seconds = 600\nreveal_seconds = 1\ngrab_seconds = 8\n"                                \
    "debate_seconds = 600\nvote_seconds = 600\ncomputer_pace = 10\n"

/* What the people saw the computers do for them. */
struct tally {
    char pressed[64][16]; /* the offer answers pressed ("accept 3") */
    unsigned npressed;
    int offers_from_computers; /* computers' offers a person answered */
    int computers_answers;     /* a computer's answers to a person's offer */
};

static bool is_person(const struct e2e *e, const char *user)
{
    for (unsigned i = 0; i < e->n; i++)
        if (strcmp(e->players[i], user) == 0)
            return true;
    return false;
}

/* The lobby shows the two computers that stay and not the third. */
static bool two_computers_seated(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    struct json_object *m = table_message(s, LOBBY, 0);
    const char *text = embed_text(m);
    return text && strstr(text, "Players 4/8") && strstr(text, "Ada-bot") &&
           strstr(text, "Bruno-bot") && !strstr(text, "Clara-bot");
}

static bool three_computers_seated(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    const char *text = embed_text(table_message(s, LOBBY, 0));
    return text && strstr(text, "Clara-bot") && has_component(table_message(s, LOBBY, 0), REMOVE);
}

static void seat_people_and_computers(struct e2e *e)
{
    struct msg_want lobby = {.title = LOBBY, .n = 0};
    slash(e, 0, "new", "[{\"name\":\"variant\",\"type\":3,\"value\":\"standard\"}]");
    wait_until(e, message_ready, &lobby, "the lobby");
    for (unsigned i = 0; i < PEOPLE; i++)
        click(e, i, e2e_table, false, lobby.id, "!illegal join", NULL);
    lobby.text = "bob";
    wait_until(e, message_ready, &lobby, "the people in the lobby");
    struct json_object *s = snap(e);
    struct json_object *m = table_message(s, LOBBY, 0);
    assert_true(has_component(m, ADD));
    assert_false(has_component(m, REMOVE)); /* no computer to remove yet */
    json_object_put(s);
    click(e, 1, e2e_table, false, lobby.id, ADD, NULL); /* not the host: refused */
    for (unsigned i = 0; i <= COMPUTERS; i++)
        click(e, 0, e2e_table, false, lobby.id, ADD, NULL);
    wait_until(e, three_computers_seated, NULL, "three computers in the lobby");
    click(e, 0, e2e_table, false, lobby.id, REMOVE, NULL);
    wait_until(e, two_computers_seated, NULL, "two computers left in the lobby");
    click(e, 0, e2e_table, false, lobby.id, "!illegal start", NULL);
}

/* Presses Accept (even offers) or Decline (odd ones) on every offer a
 * computer made to a person that is not answered yet. */
static void answer_offers(struct e2e *e, struct tally *t)
{
    struct json_object *s = snap(e), *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *user = jstr(m, "dm_user"), *content = jstr(jget(m, "body"), "content");
        const char *offer = content ? strstr(content, "Offer #") : NULL;
        int id = 0;
        char from[64] = "", accept[16], decline[16], *pressed;
        if (!user || !offer || sscanf(offer, "Offer #%d from %63[^:]:", &id, from) != 2)
            continue;
        snprintf(accept, sizeof accept, "accept %d", id);
        snprintf(decline, sizeof decline, "decline %d", id);
        if (!has_component(m, accept) || !has_component(m, decline))
            continue;
        bool done = false;
        for (unsigned k = 0; k < t->npressed; k++)
            done = done || strcmp(t->pressed[k], accept) == 0;
        if (done || t->npressed == sizeof t->pressed / sizeof *t->pressed)
            continue;
        pressed = t->pressed[t->npressed++];
        snprintf(pressed, sizeof t->pressed[0], "%s", accept);
        unsigned who = strcmp(user, e->players[0]) == 0 ? 0 : 1;
        click(e, who, jstr(m, "channel"), true, jstr(m, "id"), id % 2 ? decline : accept, NULL);
        t->offers_from_computers += strstr(from, "-bot") != NULL;
    }
    json_object_put(s);
}

struct answer_want {
    const char *user;
    const char *computer;
    int seen; /* the computer's answers to user already counted */
};

/* How many answers of computer to user's offers user's DMs hold. */
static int computer_answers(struct json_object *s, const char *user, const char *computer)
{
    struct json_object *msgs = jget(s, "messages");
    char accepted[64], declined[64];
    snprintf(accepted, sizeof accepted, "%s accepted offer #", computer);
    snprintf(declined, sizeof declined, "-> %s) was declined", computer);
    int n = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *u = jstr(m, "dm_user"), *content = jstr(jget(m, "body"), "content");
        n += u && content && strcmp(u, user) == 0 &&
             (strstr(content, accepted) || strstr(content, declined));
    }
    return n;
}

static bool computer_answered(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct answer_want *w = arg;
    return computer_answers(s, w->user, w->computer) > w->seen;
}

/* Session d: a person picks a computer in the trade builder and offers it
 * a card, and waits for its answer. */
static void offer_to_computer(struct e2e *e, struct tally *t, int d)
{
    unsigned who = (unsigned)(d - 1) % PEOPLE;
    struct json_object *hand = wait_dm(e, e->players[who], "tb:give");
    struct json_object *to = select_options(hand, "tb:to");
    const char *computer = d % 2 ? "Ada-bot" : "Bruno-bot", *id = NULL;
    for (size_t i = 0; i < json_object_array_length(to); i++) {
        struct json_object *o = json_object_array_get_idx(to, i);
        if (strcmp(jstr(o, "label"), computer) == 0)
            id = jstr(o, "value");
    }
    assert_non_null(id); /* a computer is offered to like anyone */
    const char *give = jstr(json_object_array_get_idx(select_options(hand, "tb:give"), 0), "value");
    const char *ask = jstr(json_object_array_get_idx(select_options(hand, "tb:ask"), 1), "value");
    char v_to[64], v_give[64], v_ask[64];
    snprintf(v_to, sizeof v_to, "[\"%s\"]", id);
    snprintf(v_give, sizeof v_give, "[\"%s\"]", give);
    snprintf(v_ask, sizeof v_ask, "[\"%s\"]", ask);
    const char *channel = jstr(hand, "channel"), *mid = jstr(hand, "id");
    struct json_object *s = snap(e);
    struct answer_want w = {e->players[who], computer, computer_answers(s, w.user, computer)};
    json_object_put(s);
    click(e, who, channel, true, mid, "tb:to", v_to);
    click(e, who, channel, true, mid, "tb:give", v_give);
    click(e, who, channel, true, mid, "tb:ask", v_ask);
    click(e, who, channel, true, mid, "tb:send", NULL);
    json_object_put(hand);
    wait_until(e, computer_answered, &w, "a computer's answer to an offer");
    t->computers_answers++;
    /* the computers' own offers, a second apart: two seconds for them, up to
     * ten while none has come to a person yet */
    for (int i = 0; i < 10 || (!t->offers_from_computers && i < 50); i++) {
        answer_offers(e, t);
        msleep(200);
    }
}

/* How many cards of the drop message m are taken ("→ name"). */
static int taken(struct json_object *m)
{
    const char *text = embed_text(m);
    int n = 0;
    for (const char *at = text ? strstr(text, "\xE2\x86\x92") : NULL; at;
         at = strstr(at + 1, "\xE2\x86\x92"))
        n++;
    return n;
}

static bool drop_over(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    return taken(table_message(s, "Drop", *(int *)arg - 1)) == SEATS;
}

/* Drop n: each person reacts with every card's emoji, from a card of their
 * own, so the first one still there is theirs; the computers grab theirs. */
static void grab(struct e2e *e, int number)
{
    struct msg_want w = {.title = "Drop", .n = number - 1, .min_reactions = SEATS};
    wait_until(e, message_ready, &w, "the drop to open");
    struct json_object *s = snap(e);
    struct json_object *reactions = jget(table_message(s, "Drop", number - 1), "reactions");
    for (unsigned i = 0; i < PEOPLE; i++)
        for (unsigned k = 0; k < SEATS; k++) {
            unsigned pick = (i + k + (unsigned)number) % SEATS;
            react(e, i, w.id, json_object_get_string(json_object_array_get_idx(reactions, pick)));
        }
    json_object_put(s);
    wait_until(e, drop_over, &number, "every card of the drop taken");
}

struct cast_want {
    int number;
};

/* The table counts every seat's vote on the case. */
static bool all_voted(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    char want[64];
    snprintf(want, sizeof want, "Case %d: %d of %d have voted", *(int *)arg, SEATS, SEATS);
    return table_content(s, want) != NULL;
}

/* Each case: the host ends the debate, the people vote with the buttons
 * (never for themselves), and once the table counts four votes the host
 * closes the vote. */
static void judge(struct e2e *e)
{
    for (int kase = 0;; kase++) {
        table_command(e, 0, "next");
        struct vote_want w = {.n = kase};
        wait_until(e, vote_or_over, &w, "a vote or the result");
        if (w.over)
            return;
        struct json_object *s = snap(e);
        struct json_object *m = table_message(s, "Tribunal", kase);
        for (unsigned i = 0; i < PEOPLE; i++) {
            char other[64];
            snprintf(other, sizeof other, "vote %s", e->players[1 - i]);
            assert_true(has_component(m, other));
            click(e, i, e2e_table, false, w.id, other, NULL);
            json_object_array_add(e->votes, json_object_get(json_object_array_get_idx(
                                                e->ixs, json_object_array_length(e->ixs) - 1)));
        }
        json_object_put(s);
        int number = kase + 1;
        wait_until(e, all_voted, &number, "every seat's vote");
        table_command(e, 0, "next");
    }
}

/* Nothing was sent to a computer, and nothing private reached the table
 * before the result. */
static void check_secrets(struct e2e *e)
{
    static const char *const private_words[] = {"Your ", "Offer #", "offer #",
                                                "You ",  "hand:",   "accepted offer"};
    struct json_object *s = snap(e), *msgs = jget(s, "messages");
    json_object_object_foreach(jget(s, "dms"), recipient, channel)
    {
        (void)channel;
        assert_true(is_person(e, recipient));
    }
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *user = jstr(m, "dm_user");
        assert_true(!user || is_person(e, user));
        if (strcmp(jstr(m, "channel"), e2e_table) != 0)
            continue;
        const char *title = embed_title(m);
        if (title && strcmp(title, "Results") == 0)
            break;
        const char *content = jstr(jget(m, "body"), "content"), *text = embed_text(m);
        for (size_t w = 0; w < sizeof private_words / sizeof *private_words; w++)
            if ((content && strstr(content, private_words[w])) ||
                (text && strstr(text, private_words[w])))
                fail_msg("private words \"%s\" at the table: %.200s", private_words[w],
                         content ? content : text);
    }
    json_object_put(s);
}

static void test_two_people_two_computers(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    struct tally t = {0};
    setup_e2e_timers(&e, PEOPLE, false, TIMERS);
    seat_people_and_computers(&e);
    for (unsigned i = 0; i < PEOPLE; i++)
        json_object_put(wait_dm(&e, e.players[i], "tb:give"));
    for (int session = 1; session <= 5; session++) {
        offer_to_computer(&e, &t, session);
        table_command(&e, 0, "next"); /* the session closes */
        if (session < 5)
            grab(&e, session);
    }
    judge(&e);
    wait_until(&e, results_posted, NULL, "the result");
    struct json_object *s = snap(&e);
    const char *result = embed_text(table_message(s, "Results", 0));
    assert_non_null(result);
    assert_non_null(strstr(result, "Ada-bot"));
    assert_non_null(strstr(result, "Bruno-bot"));
    assert_null(strstr(result, "Clara-bot"));
    json_object_put(s);
    fprintf(stderr, "offers of computers answered: %d; answers of computers: %d\n",
            t.offers_from_computers, t.computers_answers);
    assert_true(t.offers_from_computers > 0);
    assert_int_equal(t.computers_answers, 5);
    check_secrets(&e);
    assert_all_answered(&e);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_two_people_two_computers, kill_live),
    };
    return e2e_run(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
