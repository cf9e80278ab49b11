/*
 * test_pings.c - the messages that ask a player to act name that player in
 * their data's "mentions", so platforms that can notify people do (Matrix
 * pills); the messages that only inform mention nobody. Through the real
 * daemon on the console platform.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "console_harness.h"
#include "core/json.h"

/* The mentions of the first new message to channel from line from whose text starts with
 * prefix, as a compact JSON text ("" when it has none; NULL when there is no such message). */
static const char *mentions_of(struct harness *h, size_t from, const char *channel,
                               const char *prefix, char *out, size_t len)
{
    for (size_t i = from; i < h->nlines; i++) {
        struct json_object *l = h->lines[i];
        const char *type = jget_str(l, "type"), *ch = jget_str(l, "channel");
        const char *text = jget_str(l, "text");
        if (!type || strcmp(type, "send") != 0 || !ch || strcmp(ch, channel) != 0 || !text ||
            strncmp(text, prefix, strlen(prefix)) != 0)
            continue;
        struct json_object *m = jget(jget_obj(l, "data"), "mentions");
        snprintf(out, len, "%s",
                 m ? json_object_to_json_string_ext(m, JSON_C_TO_STRING_PLAIN) : "");
        return out;
    }
    return NULL;
}

static void test_reminders_mention_their_player(void **state)
{
    (void)state;
    struct harness h;
    char m[256];
    harness_init(&h, 11);
    harness_message(&h, "t1", "h", "!illegal new", false);
    const char *players[] = {"a", "b", "c", "d"};
    for (size_t i = 0; i < 4; i++)
        harness_message(&h, "t1", players[i], "!illegal join", false);
    harness_message(&h, "t1", "h", "!illegal start", false);
    harness_sync(&h);
    harness_message(&h, "dm", "a", "offer b 1 guns for nothing", false);
    size_t from = harness_sync(&h);
    /* the offer b must answer mentions b; what a is told mentions nobody */
    assert_non_null(mentions_of(&h, from, "dm:b", "", m, sizeof m));
    assert_string_equal(m, "[\"b\"]");
    assert_non_null(mentions_of(&h, from, "dm:a", "", m, sizeof m));
    assert_string_equal(m, "");
    /* a quarter of the 3-minute session left: b is reminded, and mentioned */
    from = harness_sync(&h);
    harness_send(&h, "{\"type\":\"advance\",\"seconds\":140}");
    harness_sync(&h);
    assert_non_null(mentions_of(&h, from, "dm:b", "Game g1: an offer", m, sizeof m));
    assert_string_equal(m, "[\"b\"]");
    /* a table notice of the session's end names nobody */
    harness_send(&h, "{\"type\":\"advance\",\"seconds\":60}");
    harness_sync(&h);
    assert_non_null(mentions_of(&h, from, "t1", "Dealing session 1 is over", m, sizeof m));
    assert_string_equal(m, "");
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reminders_mention_their_player),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
