/*
 * test_console_games.c - whole games through the console platform.
 *
 * Each test runs the real daemon, plays a complete game with scripted players
 * and checks what every user saw, and that no secret reached the table.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "console_harness.h"
#include "core/catalog.h"
#include "core/catalog_data.h"
#include "table_player.h"

static void play_game(unsigned players, const char *variant, uint64_t seed)
{
    struct harness h;
    struct table_player tp;
    harness_init(&h, seed);
    tp_open(&tp, &h, "t1", players, variant);
    tp_play_to_end(&tp);
    assert_true(tp.trades >= 5 * (players / 2));
    if (strcmp(variant, "casual") == 0) {
        assert_int_equal(tp.grabs_by_reaction + tp.grabs_by_text, 0);
        /* Each player drew one card in private at each of the 4 drops. */
        for (unsigned i = 0; i < players; i++) {
            char channel[32];
            unsigned draws = 0;
            snprintf(channel, sizeof channel, "dm:%s", tp.users[i]);
            for (size_t l = 0; l < h.nlines; l++) {
                const char *text = line_str(h.lines[l], "text");
                if (line_in(h.lines[l], channel) && text && strstr(text, "You drew"))
                    draws++;
            }
            assert_int_equal(draws, 4);
        }
    } else {
        assert_int_equal(tp.grabs_by_reaction + tp.grabs_by_text, 4 * players);
        assert_true(tp.grabs_by_reaction > 0);
    }
    unsigned cases = strcmp(variant, "advanced") == 0 ? 2 * players : players;
    assert_int_equal(tp.cases_seen, cases);
    /* The result names every player, and the winners have the top score. */
    struct json_object *winners;
    assert_true(json_object_object_get_ex(h.lines[tp.game_over_line], "winners", &winners));
    assert_true(json_object_array_length(winners) >= 1);
    int top = tp_score(&tp, json_object_get_string(json_object_array_get_idx(winners, 0)));
    for (unsigned i = 0; i < players; i++)
        assert_true(tp_score(&tp, tp.users[i]) <= top);
    assert_true(harness_find(&h, 0, "t1", "Game over!") >= 0);
    tp_check_secrets(&tp);
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

static void test_standard_4(void **state)
{
    (void)state;
    play_game(4, "standard", 11);
}

static void test_standard_8(void **state)
{
    (void)state;
    play_game(8, "standard", 12);
}

static void test_advanced_4(void **state)
{
    (void)state;
    play_game(4, "advanced", 13);
}

static void test_advanced_8(void **state)
{
    (void)state;
    play_game(8, "advanced", 14);
}

static void test_casual_4(void **state)
{
    (void)state;
    play_game(4, "casual", 15);
}

static void test_casual_8(void **state)
{
    (void)state;
    play_game(8, "casual", 16);
}

/*
 * A 4-player game with 30 s sessions, as a table sees it: one message per
 * step of the game (grabs and leftovers edit the drop, joins the lobby), the
 * drop keeping every card and who took it to the end, and the ranking in
 * rank order.
 */
static void test_table_reads_well(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp;
    setenv("ILLEGALD_GAME_SESSION_SECONDS", "30", 1);
    harness_init(&h, 17);
    unsetenv("ILLEGALD_GAME_SESSION_SECONDS");
    tp_open(&tp, &h, "t1", 4, "standard");
    tp.session_seconds = 30;
    tp_play_to_end(&tp);
    unsigned messages = harness_new_messages(&h, "t1");
    printf("table messages in a 4-player game with 30 s sessions: %u\n", messages);
    assert_true(messages <= 33); /* 30 for the game, three for the recap after it */

    /* The last word of each drop lists its 4 cards and who took each; every
     * word before it lists at least one. */
    for (unsigned drop = 1; drop <= 4; drop++) {
        char key[32];
        long last = -1;
        snprintf(key, sizeof key, "g1/drop/%u", drop);
        for (size_t i = 0; i < h.nlines; i++) {
            const char *kind = line_str(h.lines[i], "kind");
            struct json_object *n = line_data(h.lines[i], "drop");
            if (kind && strcmp(kind, "drop") == 0 && n && json_object_get_int(n) == (int)drop) {
                /* no edit of the drop ever loses its cards ("Drop 3: ") */
                assert_true(json_object_array_length(line_data(h.lines[i], "shown")) >= 1);
                last = (long)i;
            }
        }
        assert_true(last >= 0);
        const char *text = line_str(h.lines[last], "text");
        char head[32];
        snprintf(head, sizeof head, "Drop %u is over: ", drop);
        assert_true(strncmp(text, head, strlen(head)) == 0);
        unsigned takers = 0;
        for (const char *p = strstr(text, "\xE2\x86\x92 t1-p"); p;
             p = strstr(p + 1, "\xE2\x86\x92 t1-p"))
            takers++;
        assert_int_equal(takers, 4);
        assert_int_equal(json_object_array_length(line_data(h.lines[last], "takers")), 4);
    }

    /* The ranking: rank order, each line numbered by its rank. */
    long result = harness_find(&h, 0, "t1", "Game over!");
    assert_true(result >= 0);
    const char *line = strchr(line_str(h.lines[result], "text"), '\n');
    int last_rank = 0, last_score = 1000;
    for (unsigned i = 0; i < 4; i++) {
        char user[16];
        int rank, score;
        assert_non_null(line);
        assert_int_equal(sscanf(line + 1, "%d. %15[^:]: %d", &rank, user, &score), 3);
        assert_true(rank >= last_rank && score <= last_score);
        assert_int_equal(score, tp_score(&tp, user));
        last_rank = rank;
        last_score = score;
        line = strchr(line + 1, '\n');
    }
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

/* Waits for the daemon and checks that where got a message containing want. */
static void expect_answer(struct harness *h, const char *channel, const char *user,
                          const char *text, const char *where, const char *want)
{
    harness_message(h, channel, user, text, false);
    size_t from = harness_sync(h);
    if (harness_find(h, from, where, want) < 0)
        fail_msg("after \"%s\" by %s, %s did not get \"%s\"", text, user, where, want);
}

/* Whoever writes to the bot gets an answer that helps, and every answer says
 * what it means where it is read. */
static void test_answers_help(void **state)
{
    (void)state;
    struct harness h;
    harness_init(&h, 18);
    /* A stranger in a DM, whatever they write. */
    static const char *const anything[] = {"help", "hand", "hello", "!illegal new", "vote bob"};
    for (size_t i = 0; i < sizeof anything / sizeof *anything; i++)
        expect_answer(&h, "dm", "stranger", anything[i], "dm:stranger", "\"!illegal new\" opens");
    /* What the table help promises, a DM "help" keeps, for a player too. */
    expect_answer(&h, "t1", "host", "!illegal help", "t1", "send it \"help\" there");
    expect_answer(&h, "t1", "host", "!illegal new", "t1", "hosted by host");
    expect_answer(&h, "dm", "host", "help", "dm:host", "This bot hosts games of Illegal");
    expect_answer(&h, "t1", "host", "!illegal join", "t1", "Players 1/8: host");
    expect_answer(&h, "dm", "host", "help", "dm:host", "Trading room commands");
    /* Settings answer with their unit; stray arguments with the usage. */
    expect_answer(&h, "t1", "host", "!illegal set session 8", "t1", "session is now 8 s.");
    expect_answer(&h, "t1", "host", "!illegal set debate 3m", "t1", "debate is now 3 min.");
    expect_answer(&h, "t1", "host", "!illegal status 0", "t1", "Usage: !illegal status");
    expect_answer(&h, "dm", "host", "hand 2", "dm:host", "Usage: hand");
    /* Joins and leaves edit the lobby: no message of their own. */
    unsigned before = harness_new_messages(&h, "t1");
    expect_answer(&h, "t1", "bob", "!illegal join", "t1", "Players 2/8: host, bob");
    expect_answer(&h, "t1", "bob", "!illegal leave", "t1", "Players 1/8: host.");
    assert_int_equal(harness_new_messages(&h, "t1"), before);
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

/* Same seed, same inputs: the same game, down to every score. */
static void test_reproducible(void **state)
{
    (void)state;
    int scores[2][4];
    for (int run = 0; run < 2; run++) {
        struct harness h;
        struct table_player tp;
        harness_init(&h, 99);
        tp_open(&tp, &h, "t1", 4, "standard");
        tp_play_to_end(&tp);
        for (unsigned i = 0; i < 4; i++)
            scores[run][i] = tp_score(&tp, tp.users[i]);
        assert_int_equal(harness_finish(&h), 0);
        harness_free(&h);
    }
    assert_memory_equal(scores[0], scores[1], sizeof scores[0]);
}

/* Catalog families whose English may rightly show in another language's
 * game: what players type (commands, settings, examples), the page's words,
 * and language names. */
static bool typed_or_page(const char *key)
{
    static const char *const families[] = {"page.", "syntax.", "usage.",    "example.", "alias.",
                                           "word.", "format.", "language.", "slash.",   "summary."};
    for (size_t i = 0; i < sizeof families / sizeof *families; i++)
        if (strncmp(key, families[i], strlen(families[i])) == 0)
            return true;
    return false;
}

/* Does text (a message in lang) hold English words of the catalog that lang
 * says otherwise: a run of 12 or more bytes between placeholders of an
 * English text, which that key's text in lang does not have? */
static const char *english_in(const char *text, const char *lang)
{
    static char found[256];
    const struct catalog_language *en = &catalog_languages[0];
    for (size_t k = 0; k < en->n; k++) {
        const struct catalog_entry *e = &en->entries[k];
        if (typed_or_page(catalog_entry_key(e)))
            continue;
        const char *form = catalog_entry_forms(en, e);
        for (unsigned f = 0; f < e->nforms; f++, form += strlen(form) + 1) {
            for (const char *p = form; *p;) {
                size_t n = strcspn(p, "{");
                if (n >= 12) {
                    snprintf(found, sizeof found, "%.*s", (int)n, p);
                    const char *mine = catalog_plural(lang, catalog_entry_key(e), 1),
                               *mine2 = catalog_plural(lang, catalog_entry_key(e), 2);
                    if (strstr(text, found) && !strstr(mine, found) && !strstr(mine2, found))
                        return found;
                }
                p += n;
                if (*p)
                    p += strcspn(p, "}") + (p[strcspn(p, "}")] ? 1 : 0);
            }
        }
    }
    return NULL;
}

/*
 * A whole game in each of the catalog's languages, the host setting it with
 * "!illegal set language": every message from the start on, at the table and
 * in private, has no English the language says otherwise, and nothing secret
 * reaches the table, checked with the language's own words.
 */
static void test_every_language(void **state)
{
    (void)state;
    const char *lang;
    for (size_t i = 1; (lang = catalog_language_at(i)); i++) {
        struct harness h;
        struct table_player tp;
        harness_init(&h, 40 + i);
        tp_open_in(&tp, &h, "t1", 5, i % 2 ? "standard" : "casual", lang);
        size_t start = h.nlines; /* from the first message in lang on */
        for (size_t l = h.nlines; l-- > 0;) {
            const char *in = line_data_str(h.lines[l], "lang");
            if (in && strcmp(in, lang) == 0)
                start = l;
        }
        assert_true(start < h.nlines);
        tp_play_to_end(&tp);
        tp_check_secrets(&tp);
        unsigned checked = 0;
        for (size_t l = start; l < h.nlines; l++) {
            const char *text = line_str(h.lines[l], "text"),
                       *channel = line_str(h.lines[l], "channel");
            if (!text || !channel)
                continue;
            const char *english = english_in(text, lang);
            if (english)
                fail_msg("%s: English \"%s\" in %s: %s", lang, english, channel, text);
            checked++;
        }
        printf("%s: %u messages of a whole game, no English left\n", lang, checked);
        assert_true(checked > 50);
        /* the check itself finds English where there is some */
        assert_non_null(english_in(catalog_text("en", "illegal.msg.session-opened"), lang));
        assert_int_equal(harness_finish(&h), 0);
        harness_free(&h);
    }
}

/*
 * A Game Master who does not play hosts a whole game and asks for their view
 * after every step: it reaches them alone, names every player, and the
 * secrecy scan (whose private words include the view's) finds nothing at the
 * table nor in any player's DMs; in English and in French.
 */
static void test_gm_view(void **state)
{
    (void)state;
    static const char *const variants[][2] = {{"standard", "en"}, {"casual", "fr"}};
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++) {
        struct harness h;
        struct table_player tp;
        harness_init(&h, 70 + i);
        tp_open_gm(&tp, &h, "t1", 5, variants[i][0], variants[i][1]);
        tp_play_to_end(&tp);
        tp_check_secrets(&tp);
        printf("%s game, %s: the Game Master's view asked for %u times\n", variants[i][0],
               variants[i][1], tp.gm_views);
        assert_true(tp.gm_views >= 10);
        assert_int_equal(harness_finish(&h), 0);
        harness_free(&h);
    }
}

/*
 * A Game Master who follows the view ("gm follow") never asks again: one
 * private message of theirs is edited after every change, names every
 * player, and stops at the end; the table hears nothing of it and the
 * secrecy scan finds nothing. "gm stop" ends it; a player cannot follow.
 */
static void test_gm_follow(void **state)
{
    (void)state;
    struct harness h;
    struct table_player tp;
    harness_init(&h, 72);
    tp_open_gm(&tp, &h, "t1", 5, "standard", "en");
    tp.gm_follows = true;
    size_t table_before = harness_new_messages(&h, "t1");
    harness_message(&h, "t1", tp.gm, "!illegal gm follow", false);
    harness_message(&h, "t1", tp.users[0], "!illegal gm follow", true);
    size_t from = harness_sync(&h);
    assert_true(harness_find(&h, from, "dm:t1-p1", "You play in this game") >= 0);
    assert_int_equal(harness_new_messages(&h, "t1"), table_before);
    tp_play_to_end(&tp);
    tp_check_secrets(&tp);
    unsigned sends = 0, edits = 0;
    long last = -1;
    for (size_t i = from; i < h.nlines; i++) {
        const char *event = line_data_str(h.lines[i], "event");
        if (!event || strcmp(event, "gm-view") != 0)
            continue;
        assert_true(line_in(h.lines[i], "dm:t1-gm"));
        if (strcmp(line_str(h.lines[i], "type"), "send") == 0)
            sends++;
        else
            edits++;
        last = (long)i;
    }
    printf("the followed view: %u message, %u edits\n", sends, edits);
    assert_int_equal(sends, 1);
    assert_true(edits >= 20);
    assert_true(last < tp.game_over_line);
    for (unsigned s = 0; s < tp.n; s++)
        assert_non_null(strstr(line_str(h.lines[last], "text"), tp.users[s]));
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

/* The line of the hall's answer to the last input, from `from` on. */
static const char *hall_answer(const struct harness *h, size_t from)
{
    const char *text = NULL;
    for (size_t i = from; i < h->nlines; i++)
        if (line_in(h->lines[i], "hall"))
            text = line_str(h->lines[i], "text");
    assert_non_null(text);
    return text;
}

/*
 * A moderator's event: twelve players sign up, two channels become tables,
 * everyone is seated (balanced: 6 and 6) and both tables start at once. The
 * players play both whole games side by side, the secrecy scan runs over
 * each table, and the event's leaderboard then lists all twelve with one
 * game each and exactly the winners of the two results.
 */
static void test_event(void **state)
{
    (void)state;
    static const char *const users[] = {"ann", "bob", "cat", "dan", "eve", "fay",
                                        "gus", "hal", "ivy", "jon", "kim", "leo"};
    const unsigned n = sizeof users / sizeof *users;
    struct harness h;
    struct table_player t1, t2;
    harness_init(&h, 90);
    harness_message(&h, "hall", "org", "!illegal event open Spring cup", true);
    for (unsigned i = 0; i < n; i++)
        harness_message(&h, "hall", users[i], "!illegal event join", false);
    harness_message(&h, "t1", "org", "!illegal event table", false);
    harness_message(&h, "t2", "org", "!illegal event table", false);
    harness_message(&h, "hall", "org", "!illegal event seat", false);
    size_t from = harness_sync(&h);
    const char *seating = hall_answer(&h, from);
    assert_non_null(strstr(seating, "Table 1 (t1)"));
    assert_non_null(strstr(seating, "Table 2 (t2)"));
    harness_message(&h, "hall", "org", "!illegal event start", false);
    from = harness_sync(&h);
    assert_non_null(strstr(hall_answer(&h, from), "begins at 2 tables"));
    tp_attach(&t1, &h, "t1", users, n, "standard", from);
    tp_attach(&t2, &h, "t2", users, n, "standard", from);
    assert_int_equal(t1.n, 6);
    assert_int_equal(t2.n, 6);
    for (unsigned steps = 0; t1.phase != TP_OVER || t2.phase != TP_OVER; steps++) {
        assert_true(steps < 800);
        if (t1.phase != TP_OVER)
            tp_step(&t1);
        tp_scan(&t2);
        if (t2.phase != TP_OVER)
            tp_step(&t2);
        tp_scan(&t1);
    }
    tp_check_secrets(&t1);
    tp_check_secrets(&t2);
    assert_true(t1.trades + t2.trades > 0);
    /* the hall heard each table finish, then the round end, once each */
    assert_true(harness_find(&h, from, "hall", "Table 1 (t1) has finished round 1") >= 0);
    assert_true(harness_find(&h, from, "hall", "Table 2 (t2) has finished round 1") >= 0);
    long over = harness_find(&h, from, "hall", "Round 1 of \"Spring cup\" is over");
    assert_true(over >= 0);
    assert_true(harness_find(&h, (size_t)over + 1, "hall", "is over at every table") < 0);

    harness_message(&h, "hall", "kim", "!illegal event leaderboard", false);
    const char *board = hall_answer(&h, harness_sync(&h));
    printf("%s\n", board);
    for (unsigned i = 0; i < n; i++) {
        const struct table_player *tp = tp_seat_of(&t1, users[i]) >= 0 ? &t1 : &t2;
        char who[32];
        unsigned wins = 9, games = 9;
        snprintf(who, sizeof who, ". %s: ", users[i]);
        const char *row = strstr(board, who);
        assert_non_null(row);
        assert_int_equal(sscanf(row + strlen(who), "%u won of %u game", &wins, &games), 2);
        assert_int_equal(games, 1);
        assert_int_equal(wins, tp_won(tp, users[i]) ? 1 : 0);
    }
    assert_int_equal(harness_finish(&h), 0);
    harness_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_standard_4),   cmocka_unit_test(test_standard_8),
        cmocka_unit_test(test_advanced_4),   cmocka_unit_test(test_advanced_8),
        cmocka_unit_test(test_casual_4),     cmocka_unit_test(test_casual_8),
        cmocka_unit_test(test_reproducible), cmocka_unit_test(test_table_reads_well),
        cmocka_unit_test(test_answers_help), cmocka_unit_test(test_every_language),
        cmocka_unit_test(test_gm_view),      cmocka_unit_test(test_gm_follow),
        cmocka_unit_test(test_event),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
