/*
 * test_message.c - message keys: one written form, read back the same, and
 * the patterns adapters match keys with.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/message.h"

static const struct {
    const char *text;
    struct msg_key key;
} written[] = {
    {"g7/lobby", {"g7", "lobby", 0, ""}},
    {"g7/chat", {"g7", "chat", 0, ""}},
    {"g7/hand/alice", {"g7", "hand", 0, "alice"}},
    {"g7/offer/3/12345", {"g7", "offer", 3, "12345"}},
    {"g12/drop/2", {"g12", "drop", 2, ""}},
    {"g12/vote/0", {"g12", "vote", 0, ""}},
    {"g1/result", {"g1", "result", 0, ""}},
    /* a user id may hold the separator: it is the last part */
    {"g7/hand/@bob:example.org/x", {"g7", "hand", 0, "@bob:example.org/x"}},
};

static void round_trip(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof written / sizeof *written; i++) {
        char text[MSG_KEY_MAX];
        struct msg_key k;
        assert_int_equal(msg_key_format(&written[i].key, text, sizeof text), 0);
        assert_string_equal(text, written[i].text);
        assert_int_equal(msg_key_parse(written[i].text, &k), 0);
        assert_string_equal(k.game, written[i].key.game);
        assert_string_equal(k.topic, written[i].key.topic);
        assert_int_equal(k.number, written[i].key.number);
        assert_string_equal(k.user, written[i].key.user);
    }
}

static void refused(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "",
        "g7",
        "g7/",
        "/lobby",
        "g7/lobby/1",
        "g7/talk",
        "g7/hand",
        "g7/hand/",
        "g7/offer/x/a",
        "g7/offer/3",
        "g7/drop/",
        "g7/drop/-1",
        "g7/drop/1/a",
        "g7/vote/99999999999999999999",
        "g7//lobby",
        "g1/result/x",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct msg_key k;
        if (msg_key_parse(bad[i], &k) == 0)
            fail_msg("\"%s\" was read as a key", bad[i]);
    }
    struct msg_key unknown = {"g7", "talk", 0, ""}, no_game = {"", "lobby", 0, ""};
    char text[MSG_KEY_MAX], tiny[6];
    assert_int_equal(msg_key_format(&unknown, text, sizeof text), -1);
    assert_int_equal(msg_key_format(&no_game, text, sizeof text), -1);
    assert_int_equal(msg_key_format(&written[1].key, tiny, sizeof tiny), -1);
}

static void patterns(void **state)
{
    (void)state;
    struct msg_key game = {"g7", "", MSG_ANY_NUMBER, ""};
    struct msg_key votes = {"g7", "vote", MSG_ANY_NUMBER, ""};
    struct msg_key offer = {"g7", "offer", 3, "alice"};
    static const struct {
        const char *key;
        bool game, votes, offer;
    } cases[] = {
        {"g7/lobby", true, false, false},          {"g7/vote/0", true, true, false},
        {"g7/vote/4", true, true, false},          {"g7/offer/3/alice", true, false, true},
        {"g7/offer/3/alice2", true, false, false}, {"g7/offer/30/alice", true, false, false},
        {"g70/vote/0", false, false, false}, /* not a prefix match */
        {"g7/nonsense", false, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(msg_key_matches(cases[i].key, &game), cases[i].game);
        assert_int_equal(msg_key_matches(cases[i].key, &votes), cases[i].votes);
        assert_int_equal(msg_key_matches(cases[i].key, &offer), cases[i].offer);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip),
        cmocka_unit_test(refused),
        cmocka_unit_test(patterns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
