/*
 * test_pd.c - a whole game of Palm & Drewes' Illegal on the Discord test
 * server: one person and two computer players, the app without the Message
 * Content intent, the daemon a child process.
 *
 * The person opens the game with /illegal new palm-drewes, joins, seats the
 * computers with the lobby's Add computer button and starts. In their turn
 * they discard the first card their latest hand DM names, by /illegal
 * discard (a refusal is fine: the turn's timer then makes the move); when
 * everyone passes a card to the left they press the first button of the
 * pass's prompt in their DM (typing "pass <card>" if it has none), and they
 * let a takeover go with the window prompt's button when they see one.
 * After the person's third move is answered the daemon is killed (SIGKILL)
 * and started again on its store; the game runs on to the result. Then:
 * the result came once, every interaction was answered, the computers have
 * no DM channel, and no channel message before the result carries a hand or
 * words that only a private message has.
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
#include "hand_text.h"

#define ADD        "!illegal add computer"
#define COMPUTERS  2
#define PERSON     "alice" /* e->players[0]'s name */
#define GAME_MS    480000
#define KILL_AFTER 3 /* the person's moves before the kill -9 */

/* The person's turn is long enough to act by slash command on a loaded
 * machine; the computers' pace a tenth of a person's. */
#define PD_TIMERS                                                                                  \
    GAME_TIMERS "computer_pace = 10\n"                                                             \
                "[game.palm-drewes]\nturn_seconds = 20\nwindow_seconds = 2\n"                      \
                "pass_seconds = 20\nchoice_seconds = 5\nreminder_seconds = 0\n"

/* Words of messages only a player's DMs may carry (English catalog). */
static const char *const private_words[] = {"Your hand",  "You will pass", "You passed",
                                            "offers you", "You offer",     NULL};

static const char *text_of(struct json_object *m)
{
    const char *t = embed_text(m);
    return t ? t : jstr(jget(m, "body"), "content");
}

static bool is_dm(struct json_object *m)
{
    return jstr(m, "dm_user") != NULL;
}

/* The lobby: the table's message with the Add computer button. */
static bool lobby_with_add(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct msg_want *w = arg;
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *t = text_of(m);
        if (is_dm(m) || !has_component(m, ADD) || (w->text && (!t || !strstr(t, w->text))))
            continue;
        snprintf(w->id, sizeof w->id, "%s", jstr(m, "id"));
        snprintf(w->channel, sizeof w->channel, "%s", jstr(m, "channel"));
        return true;
    }
    return false;
}

/* What the person last read: their latest hand and DM channel, whether the
 * latest table line gives them the turn or opens a pass, and the result. */
struct seen {
    char hand[512];
    char dm[32];
    char pass_msg[32], pass_action[64]; /* the pass's prompt while it has buttons */
    char waive_msg[32], waived[32];     /* a window's prompt with its waive button */
    bool pressed_pass;                  /* this pass's card was chosen by its button */
    bool my_turn, pass_open, over;
    size_t table_lines;
};

/* The action of m's first button whose action begins with verb ("pass "), into out. */
static bool button_for(struct json_object *m, const char *verb, char *out, size_t len)
{
    struct json_object *rows = jget(jget(m, "body"), "components");
    for (size_t i = 0; rows && i < json_object_array_length(rows); i++) {
        struct json_object *items = jget(json_object_array_get_idx(rows, i), "components");
        for (size_t k = 0; items && k < json_object_array_length(items); k++) {
            const char *cid = jstr(json_object_array_get_idx(items, k), "custom_id");
            const char *action = cid ? strchr(cid, '#') : NULL;
            if (action && strncmp(action + 1, verb, strlen(verb)) == 0) {
                snprintf(out, len, "%s", action + 1);
                return true;
            }
        }
    }
    return false;
}

/* The person's DM m: their hand, and the prompts they may press. */
static void read_dm(struct json_object *m, const char *t, struct seen *v)
{
    const char *h = strstr(t, "Your hand");
    snprintf(v->dm, sizeof v->dm, "%s", jstr(m, "channel"));
    if (h && strchr(h, ':'))
        snprintf(v->hand, sizeof v->hand, "%s", strchr(h, ':') + 2);
    char action[64];
    if (button_for(m, "pass ", action, sizeof action)) {
        snprintf(v->pass_msg, sizeof v->pass_msg, "%s", jstr(m, "id"));
        snprintf(v->pass_action, sizeof v->pass_action, "%s", action);
    }
    if (button_for(m, "waive", action, sizeof action))
        snprintf(v->waive_msg, sizeof v->waive_msg, "%s", jstr(m, "id"));
}

static void read_state(struct e2e *e, struct json_object *s, struct seen *v)
{
    struct json_object *msgs = jget(s, "messages");
    char turn[64];
    snprintf(turn, sizeof turn, "%s's turn:", PERSON);
    v->my_turn = v->pass_open = false;
    v->table_lines = 0;
    v->pass_msg[0] = v->waive_msg[0] = '\0';
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *t = text_of(m), *user = jstr(m, "dm_user");
        if (!t)
            continue;
        if (user && strcmp(user, e->players[0]) == 0) {
            read_dm(m, t, v);
            continue;
        }
        if (user)
            continue;
        v->table_lines++;
        if (strstr(t, "'s turn:"))
            v->my_turn = strstr(t, turn) != NULL;
        if (strstr(t, "passes a card to the left"))
            v->pass_open = true;
        if (strstr(t, "'s time is up") || strstr(t, "changed hands"))
            v->pass_open = false;
        v->over = v->over || (embed_title(m) && strstr(embed_title(m), "Result"));
    }
}

/* Presses the buttons of prompts: "waive" once a window, the pass's first
 * card. Counts the presses. */
static bool press(struct e2e *e, struct seen *v, unsigned *pressed)
{
    if (v->waive_msg[0] && strcmp(v->waive_msg, v->waived) != 0) {
        click(e, 0, v->dm, true, v->waive_msg, "waive", NULL);
        snprintf(v->waived, sizeof v->waived, "%s", v->waive_msg);
        (*pressed)++;
    }
    if (!v->pass_open || !v->pass_msg[0])
        return false;
    click(e, 0, v->dm, true, v->pass_msg, v->pass_action, NULL);
    v->pressed_pass = true;
    (*pressed)++;
    return true;
}

static void act(struct e2e *e, const struct seen *v, unsigned *moves, unsigned *passes)
{
    char card[128], opts[256], line[160];
    if (!v->hand[0])
        return;
    hand_first_card(v->hand, card, sizeof card);
    if (v->pass_open && v->pressed_pass)
        return; /* chosen with the prompt's button */
    if (v->pass_open && v->dm[0]) {
        snprintf(line, sizeof line, "pass %s", card);
        say_dm(e, 0, v->dm, line);
        (*passes)++;
    } else if (v->my_turn) {
        snprintf(opts, sizeof opts, "[{\"name\":\"card\",\"type\":3,\"value\":\"%s\"}]", card);
        slash(e, 0, "discard", opts);
        (*moves)++;
    }
}

/* No channel message before the result has a private message's words or
 * the person's hand as their DM listed it. */
static void check_secrets(struct json_object *s, const char *hands[], unsigned nhands)
{
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *t = text_of(m);
        if (is_dm(m) || !t)
            continue;
        if (embed_title(m) && strstr(embed_title(m), "Result"))
            break;
        for (unsigned k = 0; private_words[k]; k++)
            if (strstr(t, private_words[k]))
                fail_msg("a private message's words at the table: %s", t);
        for (unsigned k = 0; k < nhands; k++)
            if (strchr(hands[k], ',') && strstr(t, hands[k]))
                fail_msg("a hand at the table: %s", t);
    }
}

static void seat_and_start(struct e2e *e)
{
    struct msg_want lobby = {0};
    slash(e, 0, "new", "[{\"name\":\"game\",\"type\":3,\"value\":\"palm-drewes\"}]");
    wait_until(e, lobby_with_add, &lobby, "the Palm & Drewes lobby");
    click(e, 0, e2e_table, false, lobby.id, "!illegal join", NULL);
    lobby.text = PERSON;
    wait_until(e, lobby_with_add, &lobby, "the person in the lobby");
    for (unsigned i = 0; i < COMPUTERS; i++)
        click(e, 0, e2e_table, false, lobby.id, ADD, NULL);
    lobby.text = "Bruno-bot";
    wait_until(e, lobby_with_add, &lobby, "two computers in the lobby");
    click(e, 0, e2e_table, false, lobby.id, "!illegal start", NULL);
}

static bool last_answered(struct e2e *e, struct json_object *s, void *arg)
{
    (void)arg;
    size_t n = json_object_array_length(e->ixs);
    return answers(s, json_object_get_string(json_object_array_get_idx(e->ixs, n - 1))) > 0;
}

/* kill -9 once the last move was answered (so stored), the daemon started again on its store:
 * the game goes on. */
static void kill_and_restart(struct e2e *e)
{
    wait_until(e, last_answered, NULL, "the move before the kill answered");
    int connects = gw(e, "connects") + 1;
    assert_int_equal(daemon_stop(&e->d, SIGKILL, 10000), 128 + SIGKILL);
    daemon_start(&e->d, SEED);
    wait_until(e, is_ready, &connects, "the daemon back after kill -9");
}

static void test_one_person_two_computers(void **state)
{
    (void)state;
    struct e2e e;
    setup_e2e_with(&e, 1, PD_TIMERS, 0, NULL);
    seat_and_start(&e);
    struct seen v = {0};
    unsigned moves = 0, passes = 0, pressed = 0, nhands = 0, killed = 0;
    char *hands[256];
    size_t acted_at = (size_t)-1;
    for (int waited = 0; !v.over; waited += 100) {
        if (waited > GAME_MS)
            fail_msg("the game did not end");
        struct json_object *s = snap(&e);
        read_state(&e, s, &v);
        json_object_put(s);
        if (v.hand[0] && nhands < 256 && (!nhands || strcmp(hands[nhands - 1], v.hand) != 0))
            hands[nhands++] = strdup(v.hand);
        v.pressed_pass = v.pressed_pass && v.pass_open;
        if (!v.over && press(&e, &v, &pressed))
            acted_at = v.table_lines;
        if ((v.my_turn || v.pass_open) && v.table_lines != acted_at && !v.over) {
            act(&e, &v, &moves, &passes);
            acted_at = v.table_lines;
            if (moves == KILL_AFTER && !killed++)
                kill_and_restart(&e);
        }
        msleep(100);
    }
    print_message("%u moves, %u passes typed, %u buttons pressed, %u hands seen\n", moves, passes,
                  pressed, nhands);
    assert_true(moves > KILL_AFTER);
    assert_true(pressed > 0); /* the game's seed reaches a pass: a prompt's button was pressed */
    assert_int_equal(killed, 1);
    struct json_object *s = snap(&e);
    check_secrets(s, (const char **)hands, nhands);
    struct json_object *msgs = jget(s, "messages");
    int results = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        const char *user = jstr(m, "dm_user");
        assert_true(!user || strcmp(user, e.players[0]) == 0); /* computers get no DM */
        results += !user && embed_title(m) && strstr(embed_title(m), "Result");
    }
    assert_int_equal(results, 1); /* the kill posted nothing twice */
    json_object_put(s);
    assert_each_answered_once(&e);
    for (unsigned k = 0; k < nhands; k++)
        free(hands[k]);
    teardown_e2e(&e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_one_person_two_computers, kill_live),
    };
    return e2e_run(argc, argv, tests, sizeof tests / sizeof tests[0]);
}
