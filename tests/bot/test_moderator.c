/*
 * test_moderator.c - the host and moderators steer a game; others cannot.
 *
 * The host here is a Game Master who does not play, as at a moderator-run
 * event. Every moderator command is used, each checked by what the table
 * and the players see.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "console_harness.h"

static struct harness h;

static void say(const char *user, const char *text)
{
    harness_message(&h, "t1", user, text, false);
}

/* Sends text as user, waits, and asserts that channel got a line containing want. */
static void expect(const char *channel, const char *user, const char *text, bool moderator,
                   const char *where, const char *want)
{
    harness_message(&h, channel, user, text, moderator);
    size_t from = harness_sync(&h);
    if (harness_find(&h, from, where, want) < 0) {
        for (size_t i = from; i < h.nlines; i++)
            fprintf(stderr, "  %s\n", json_object_to_json_string(h.lines[i]));
        fail_msg("after \"%s\" by %s, %s did not get \"%s\"", text, user, where, want);
    }
}

static void test_moderated_game(void **state)
{
    (void)state;
    const char *players[] = {"p1", "p2", "p3", "p4", "p5"};
    harness_init(&h, 5);
    expect("t1", "gm", "!illegal new", false, "t1", "hosted by gm");
    for (int i = 0; i < 5; i++)
        say(players[i], "!illegal join");
    harness_sync(&h);
    /* Settings before the start, by the host only. */
    expect("t1", "p1", "!illegal set grab 20", false, "t1", "Only the host or a moderator");
    expect("t1", "gm", "!illegal set variant advanced", false, "t1", "variant is now advanced");
    expect("t1", "gm", "!illegal set resources guns, alcohol, jewelry, powder, pornography", false,
           "t1", "resources is now");
    expect("t1", "gm", "!illegal set grab 20", false, "t1", "grab is now 20");
    expect("t1", "gm", "!illegal set ballots maybe", false, "t1", "not a valid value");
    expect("t1", "gm", "!illegal set ballots poll", false, "t1", "ballots is now poll");
    expect("t1", "gm", "!illegal set ballots private", false, "t1", "ballots is now private");
    expect("t1", "gm", "!illegal set nonsense 3", false, "t1", "Unknown setting");
    expect("t1", "gm", "!illegal set vote -4", false, "t1", "not a valid value");
    /* A player whose DMs are closed blocks the start, without a word about anyone's cards. */
    harness_send(&h, "{\"type\":\"dms\",\"user\":\"p4\",\"open\":false}");
    expect("t1", "p2", "!illegal start", false, "t1", "Only the host or a moderator");
    expect("t1", "gm", "!illegal start", false, "t1", "p4 must allow direct messages");
    harness_send(&h, "{\"type\":\"dms\",\"user\":\"p4\",\"open\":true}");
    expect("t1", "gm", "!illegal start", false, "t1",
           "Resources in play: Guns, Jewelry, Alcohol, Pornography, Powder");
    expect("t1", "gm", "!illegal join", false, "t1", "already started");
    /* DMs closed during the game: the table learns it once, and nothing of the DM. */
    harness_send(&h, "{\"type\":\"dms\",\"user\":\"p2\",\"open\":false}");
    expect("dm", "p2", "hand", false, "t1", "p2 cannot get direct messages");
    harness_message(&h, "dm", "p2", "hand", false);
    size_t again = harness_sync(&h);
    assert_true(harness_find(&h, again, "t1", "p2 cannot get") < 0);
    assert_true(harness_find(&h, again, "dm:p2", "Your hand") < 0);
    harness_send(&h, "{\"type\":\"dms\",\"user\":\"p2\",\"open\":true}");
    expect("dm", "p2", "hand", false, "dm:p2", "Your hand");
    /* Pause: only moderators; players cannot trade while paused. */
    expect("t1", "p3", "!illegal pause", false, "t1", "Only the host or a moderator");
    expect("t1", "mod", "!illegal pause", true, "t1", "The game is paused");
    expect("t1", "mod", "!illegal status", false, "t1", "(paused)");
    expect("dm", "p1", "offer p2 1 guns for nothing", false, "dm:p1", "The game is paused");
    harness_send(&h, "{\"type\":\"advance\",\"seconds\":600}");
    expect("t1", "p1", "!illegal status", false, "t1", "dealing session 1 of 5");
    expect("t1", "gm", "!illegal pause", false, "dm:gm", "The game is paused");
    expect("t1", "gm", "!illegal resume", false, "t1", "The game resumes: 3 min left");
    expect("t1", "gm", "!illegal resume", false, "dm:gm", "not paused");
    expect("t1", "gm", "!illegal extend 2", false, "t1", "Extra time: 5 min left");
    expect("t1", "gm", "!illegal set session 2m", false, "t1", "session lasts 2 min");
    /* Next ends the session at once and the drop begins. */
    expect("t1", "gm", "!illegal next", false, "t1", "arriving at the docks");
    /* Kick and leave: the game goes on with the others. */
    expect("t1", "gm", "!illegal kick p5", false, "t1", "p5 has left the game");
    expect("dm", "p5", "hand", false, "dm:p5", "Only the game's players");
    expect("t1", "p4", "!illegal leave", false, "t1", "p4 has left the game");
    expect("t1", "p4", "!illegal leave", false, "t1", "not in this game");
    expect("t1", "gm", "!illegal kick nobody", false, "t1", "No player called");
    /* End: straight to the reveal and the scores of the three left. */
    expect("t1", "gm", "!illegal end", false, "t1", "Game over!");
    struct json_object *scores = NULL;
    for (size_t i = 0; i < h.nlines; i++) {
        const char *type = line_str(h.lines[i], "type");
        if (type && strcmp(type, "game_over") == 0)
            json_object_object_get_ex(h.lines[i], "scores", &scores);
    }
    assert_non_null(scores);
    assert_int_equal(json_object_object_length(scores), 3);
    expect("t1", "gm", "!illegal status", false, "t1", "No game at this table");
    /* A lobby can be ended too; then the table is free again. */
    expect("t1", "p1", "!illegal new casual", false, "t1", "(casual)");
    expect("t1", "p2", "!illegal end", false, "t1", "Only the host or a moderator");
    expect("t1", "p1", "!illegal end", false, "t1", "was ended by p1");
    expect("t1", "p2", "!illegal new", false, "t1", "hosted by p2");
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

/* A player at two tables names the game in private commands. */
static void test_two_tables(void **state)
{
    (void)state;
    harness_init(&h, 6);
    const char *tables[] = {"t1", "t2"};
    for (int t = 0; t < 2; t++) {
        harness_message(&h, tables[t], "host", "!illegal new", false);
        harness_message(&h, tables[t], "both", "!illegal join", false);
        for (int i = 0; i < 3; i++) {
            char user[16];
            snprintf(user, sizeof user, "%s-%d", tables[t], i);
            harness_message(&h, tables[t], user, "!illegal join", false);
        }
        harness_message(&h, tables[t], "host", "!illegal start", false);
    }
    harness_sync(&h);
    expect("dm", "both", "hand", false, "dm:both", "You are in several games: g1 (t1), g2 (t2)");
    expect("dm", "both", "g2 hand", false, "dm:both", "Your hand");
    expect("dm", "both", "g7 hand", false, "dm:both", "not a player of game g7");
    expect("dm", "t1-0", "hand", false, "dm:t1-0", "Your hand");
    /* Reminders come before each deadline, at the table only. */
    harness_send(&h, "{\"type\":\"advance\",\"seconds\":125}");
    size_t from = harness_sync(&h);
    assert_true(harness_find(&h, from, "t1", "One minute left.") >= 0);
    harness_send(&h, "{\"type\":\"advance\",\"seconds\":46}");
    from = harness_sync(&h);
    assert_true(harness_find(&h, from, "t2", "10 seconds left!") >= 0);
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_moderated_game),
        cmocka_unit_test(test_two_tables),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
