/*
 * test_render_matrix.c - what Matrix clients get from the bot's messages:
 * bold only for headings and names, notices except for the messages that ask
 * players to act (m.text, with pills and m.mentions for them), and edits that
 * never notify again.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <json-c/json.h>
#include <cmocka.h>

#include "adapters/matrix/mx.h"

static const char *field(struct json_object *o, const char *k)
{
    struct json_object *v;
    assert_true(json_object_object_get_ex(o, k, &v));
    return json_object_get_string(v);
}

static struct json_object *player(const char *id, const char *name)
{
    struct json_object *p = json_object_new_object();
    json_object_object_add(p, "id", json_object_new_string(id));
    json_object_object_add(p, "name", json_object_new_string(name));
    return p;
}

/* A one-line notice is plain text: no bold at all without names. */
static void test_one_line_is_not_bold(void **state)
{
    (void)state;
    static const enum outbound_kind kinds[] = {OUT_NOTICE, OUT_LOBBY,  OUT_TABLE_VIEW,
                                               OUT_PROMPT, OUT_BALLOT, OUT_PRIVATE_VIEW,
                                               OUT_RESULT};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        struct json_object *c =
            mx_render_message("Drop 1: Guns & Jewelry", kinds[i], NULL, false, NULL);
        assert_string_equal(field(c, "formatted_body"), "Drop 1: Guns &amp; Jewelry");
        /* Always an m.mentions, so no display name in the body notifies by accident. */
        struct json_object *m;
        assert_true(json_object_object_get_ex(c, "m.mentions", &m));
        assert_int_equal(json_object_object_length(m), 0);
        json_object_put(c);
    }
}

/* A structured message of several lines has its first line as a heading;
 * players' names are bold wherever they stand as words. */
static void test_headings_and_names(void **state)
{
    (void)state;
    struct json_object *data = json_object_new_object();
    struct json_object *reveal = json_object_new_array();
    struct json_object *r = json_object_new_object();
    json_object_object_add(r, "player", player("@al:hs", "Al"));
    json_object_array_add(reveal, r);
    r = json_object_new_object();
    json_object_object_add(r, "player", player("@bo:hs", "Bo <b>"));
    json_object_array_add(reveal, r);
    json_object_object_add(data, "reveal", reveal);
    struct json_object *c =
        mx_render_message("Game over! Winner: Al.\n1. Al (7): holding Alcohol\n2. Bo <b> (3)",
                          OUT_RESULT, data, false, NULL);
    assert_string_equal(field(c, "formatted_body"),
                        "<b>Game over! Winner: Al.</b><br>1. <b>Al</b> (7): holding Alcohol<br>"
                        "2. <b>Bo &lt;b&gt;</b> (3)");
    json_object_put(c);
    /* A notice of several lines has no heading: each line is a sentence. */
    c = mx_render_message("Session 1 is over.\nAl opens drop 1.", OUT_NOTICE, data, false, NULL);
    assert_string_equal(field(c, "formatted_body"),
                        "Session 1 is over.<br><b>Al</b> opens drop 1.");
    json_object_put(c);
    json_object_put(data);
}

/* The player an offer waits for is a pill and is in m.mentions of an m.text; the
 * other name is bold; ids that are not Matrix ids are never listed. */
static void test_mentions(void **state)
{
    (void)state;
    struct json_object *data = json_object_new_object();
    json_object_object_add(data, "from", player("@alice:hs.example", "Alice"));
    json_object_object_add(data, "to", player("@bob:hs.example", "Bob"));
    struct json_object *mentions = json_object_new_array();
    json_object_array_add(mentions, json_object_new_string("@bob:hs.example"));
    json_object_array_add(mentions, json_object_new_string("console-user"));
    json_object_object_add(data, "mentions", mentions);
    struct json_object *c = mx_render_message("Offer #3 from Alice to Bob: reply \"accept 3\".",
                                              OUT_PROMPT, data, true, NULL);
    assert_string_equal(field(c, "msgtype"), "m.text");
    assert_string_equal(field(c, "body"), "Offer #3 from Alice to Bob: reply \"accept 3\".");
    assert_string_equal(field(c, "formatted_body"),
                        "Offer #3 from <b>Alice</b> to <a "
                        "href=\"https://matrix.to/#/@bob:hs.example\">Bob</a>: reply "
                        "&quot;accept 3&quot;.");
    struct json_object *m, *ids;
    assert_true(json_object_object_get_ex(c, "m.mentions", &m));
    assert_true(json_object_object_get_ex(m, "user_ids", &ids));
    assert_int_equal(json_object_array_length(ids), 1);
    assert_string_equal(json_object_get_string(json_object_array_get_idx(ids, 0)),
                        "@bob:hs.example");

    /* An edit carries the mentions in its new content, and notifies nobody itself: a notice
     * with no mentions, whatever the new content is. */
    struct json_object *e = mx_render_edit(c, "$ev");
    assert_true(json_object_object_get_ex(e, "m.mentions", &m));
    assert_int_equal(json_object_object_length(m), 0);
    assert_string_equal(field(e, "msgtype"), "m.notice");
    struct json_object *nc;
    assert_true(json_object_object_get_ex(e, "m.new_content", &nc));
    assert_true(json_object_object_get_ex(nc, "m.mentions", &m));
    assert_true(json_object_object_get_ex(m, "user_ids", &ids));
    json_object_put(e);

    /* A name inside a word is not a name: "Al" in "Alcohol". */
    struct json_object *d2 = json_object_new_object();
    json_object_object_add(d2, "to", player("@al:hs", "Al"));
    c = mx_render_message("Alcohol for Al.", OUT_NOTICE, d2, false, NULL);
    assert_string_equal(field(c, "formatted_body"), "Alcohol for <b>Al</b>.");
    json_object_put(c);
    json_object_put(d2);
    json_object_put(data);
}

/* A ping whose text does not name whom it asks (a reminder, a ballot) begins with their pill:
 * the name from the data, else the one the rooms know, else the localpart; its body stays the
 * text. The same data without ping is a notice that mentions nobody. */
static void test_ping_prefix(void **state)
{
    (void)state;
    struct json_object *data = json_tokener_parse(
        "{\"mentions\":[\"@carol:hs\",\"@dan:hs\"],\"candidates\":[{\"id\":\"@eve:hs\","
        "\"name\":\"Eve\"}]}");
    struct json_object *known = json_tokener_parse("{\"@carol:hs\":\"Carol <3\"}");
    struct json_object *c =
        mx_render_message("One minute left to vote.", OUT_NOTICE, data, true, known);
    assert_string_equal(field(c, "msgtype"), "m.text");
    assert_string_equal(field(c, "body"), "One minute left to vote.");
    assert_string_equal(
        field(c, "formatted_body"),
        "<a href=\"https://matrix.to/#/@carol:hs\">Carol &lt;3</a>, "
        "<a href=\"https://matrix.to/#/@dan:hs\">dan</a>: One minute left to vote.");
    struct json_object *m, *ids;
    assert_true(json_object_object_get_ex(c, "m.mentions", &m));
    assert_true(json_object_object_get_ex(m, "user_ids", &ids));
    assert_int_equal(json_object_array_length(ids), 2);
    json_object_put(c);
    c = mx_render_message("Vote on case 1: Eve?", OUT_BALLOT, data, false, known);
    assert_string_equal(field(c, "msgtype"), "m.notice");
    assert_string_equal(field(c, "formatted_body"), "Vote on case 1: <b>Eve</b>?");
    assert_true(json_object_object_get_ex(c, "m.mentions", &m));
    assert_int_equal(json_object_object_length(m), 0);
    json_object_put(c);
    json_object_put(known);
    json_object_put(data);
}

/* A poll in the table notifies the voters the bot names. */
static void test_poll_mentions(void **state)
{
    (void)state;
    struct json_object *data = json_object_new_object();
    struct json_object *choices =
        json_tokener_parse("[{\"command\":\"vote @al:hs\",\"label\":\"Al\",\"player\":\"@al:hs\"},"
                           "{\"command\":\"abstain\",\"label_key\":\"ui.abstain\"}]");
    struct json_object *mentions = json_object_new_array();
    json_object_array_add(mentions, json_object_new_string("@al:hs"));
    json_object_array_add(mentions, json_object_new_string("@bo:hs"));
    json_object_object_add(data, "choices", choices);
    json_object_object_add(data, "mentions", mentions);
    struct json_object *answers, *m, *ids;
    struct json_object *c = mx_render_poll("Vote on case 1", data, &answers);
    assert_non_null(c);
    assert_true(json_object_object_get_ex(c, "m.mentions", &m));
    assert_true(json_object_object_get_ex(m, "user_ids", &ids));
    assert_int_equal(json_object_array_length(ids), 2);
    json_object_put(c);
    json_object_put(answers);
    json_object_put(data);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_one_line_is_not_bold),
        cmocka_unit_test(test_headings_and_names),
        cmocka_unit_test(test_mentions),
        cmocka_unit_test(test_ping_prefix),
        cmocka_unit_test(test_poll_mentions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
