/*
 * test_sizes.c - the real daemon's messages at their largest, on the Discord
 * test server, which refuses what Discord would (discord_limits.c).
 *
 * Eight players with display names of Discord's 32 characters (emoji counted
 * as two, accents, other scripts) each read their DMs in another of the
 * catalog's languages; each offers all they hold for three of every resource
 * in play; 200 gifts go back and forth, the most trades a recap tells; the
 * table asks for its status, the rules, help, statistics and the leaderboard
 * in every language; the tribunal and the results, with the recap, are in
 * French, whose texts are the longest. Nothing may be refused, and the
 * results and the recap reach the table.
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

#include "bot/platform.h"
#include "core/catalog.h"
#include "e2e.h"

#define GIFTS 200 /* IL_MAX_TRADES: the trades a recap tells */

static const char *const languages[] = {"en", "fr", "de", "nl", "es", "pt", "hu"};
#define NLANG (sizeof languages / sizeof *languages)

/* Player i's display name: 32 characters of one kind, told apart by the first. */
static void long_name(unsigned i, char *out, size_t len)
{
    static const char *const units[] = {
        "\xF0\x9F\x94\xAB", /* an emoji, two UTF-16 units */
        "\xC5\x91",         /* ő */
        "\xC3\xA9",         /* é */
        "\xD0\x96",         /* Ж */
        "\xE4\xB8\xAD",     /* 中 */
        "\xC3\x9F",         /* ß */
        "\xF0\x9F\x83\x8F", /* a playing card */
        "w",
    };
    snprintf(out, len, "%u", i);
    for (unsigned k = 1; k < 32; k++)
        strncat(out, units[i % 8], len - strlen(out) - 1);
}

/* The DM channel and the hand of each player, from their first hand message. */
struct seat {
    char dm[32];
    char card[64]; /* a card they hold: "1 guns" */
    char all[512]; /* every card they hold: "2 guns 1 alcohol" */
};

static void read_hand(struct e2e *e, unsigned i, struct seat *seat)
{
    struct json_object *hand = wait_dm(e, e->players[i], "tb:give");
    snprintf(seat->dm, sizeof seat->dm, "%s", jstr(hand, "channel"));
    struct json_object *give = select_options(hand, "tb:give");
    /* the options are "<q> <card>" for q up to what is held: the largest of each */
    seat->all[0] = '\0';
    for (size_t k = 0; k < json_object_array_length(give); k++) {
        const char *v = jstr(json_object_array_get_idx(give, k), "value");
        const char *next = k + 1 < json_object_array_length(give)
                               ? jstr(json_object_array_get_idx(give, k + 1), "value")
                               : NULL;
        if (k == 0)
            snprintf(seat->card, sizeof seat->card, "%s", v);
        if (!next || strcmp(strchr(next, ' '), strchr(v, ' ')) != 0)
            snprintf(seat->all + strlen(seat->all), sizeof seat->all - strlen(seat->all), "%s%s",
                     seat->all[0] ? " " : "", v);
    }
    json_object_put(hand);
}

/* Whether table message m has a control whose action starts with prefix. */
static bool has_control_prefix(struct json_object *m, const char *prefix)
{
    struct json_object *rows = jget(jget(m, "body"), "components");
    for (size_t r = 0; rows && r < json_object_array_length(rows); r++) {
        struct json_object *items = jget(json_object_array_get_idx(rows, r), "components");
        for (size_t k = 0; items && k < json_object_array_length(items); k++) {
            const char *id = jstr(json_object_array_get_idx(items, k), "custom_id");
            const char *sep = id ? strchr(id, '#') : NULL;
            if (sep && strncmp(sep + 1, prefix, strlen(prefix)) == 0)
                return true;
        }
    }
    return false;
}

struct table_want {
    const char *prefix; /* a control's action starts so */
    int n;              /* the n-th such table message (0-based) */
    char id[32];        /* out */
};

static bool table_control(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    struct table_want *w = arg;
    struct json_object *msgs = jget(s, "messages");
    int n = w->n;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i);
        if (strcmp(jstr(m, "channel"), e2e_table) == 0 && has_control_prefix(m, w->prefix) &&
            n-- == 0) {
            snprintf(w->id, sizeof w->id, "%s", jstr(m, "id"));
            return true;
        }
    }
    return false;
}

/* A vote's message other than the last one's, or the results' (Play again),
 * whichever comes. */
struct vote_or_results {
    char last[32]; /* the vote before */
    char vote[32]; /* out */
    bool over;
};

static bool next_vote_or_results(struct e2e *e, struct json_object *s, void *arg)
{
    struct vote_or_results *w = arg;
    struct table_want results = {OUT_ACTION_REMATCH, 0, ""};
    w->over = table_control(e, s, &results);
    for (int n = 0; !w->over && !w->vote[0]; n++) {
        struct table_want vote = {"vote ", n, ""};
        if (!table_control(e, s, &vote))
            break;
        if (strcmp(vote.id, w->last) != 0)
            snprintf(w->vote, sizeof w->vote, "%s", vote.id);
    }
    return w->over || w->vote[0];
}

/* The recap's trades at the table, in French: "Récapitulatif : 200 échanges." */
static bool recap_posted(struct e2e *e, struct json_object *s, void *arg)
{
    (void)e;
    (void)arg;
    char head[128];
    snprintf(head, sizeof head, "%s", catalog_plural("fr", "illegal.msg.recap-trades", 200));
    char *count = strstr(head, "{count}");
    if (count)
        *count = '\0'; /* the words before the number */
    struct json_object *m = table_content(s, head);
    return m && strstr(jstr(jget(m, "body"), "content"), "200");
}

static void set_language(struct e2e *e, const char *code)
{
    char opts[160];
    snprintf(opts, sizeof opts,
             "[{\"name\":\"key\",\"type\":3,\"value\":\"language\"},"
             "{\"name\":\"value\",\"type\":3,\"value\":\"%s\"}]",
             code);
    slash(e, 0, "set", opts);
}

/* Offers with many cards: each player all they hold for three of every
 * resource in play; each is declined. Then GIFTS gifts between pairs, each
 * accepted: a card goes back and forth. Typed in DMs, in order, each offer
 * numbered as the game numbers them. */
static void trade_much(struct e2e *e, struct seat *seats, const char *resources)
{
    char line[1024];
    unsigned offer = 0;
    for (unsigned i = 0; i < e->n; i++) {
        unsigned to = (i + 1) % e->n;
        snprintf(line, sizeof line, "offer <@%s> %s for %s", e->players[to], seats[i].all,
                 resources);
        say_dm(e, i, seats[i].dm, line);
        snprintf(line, sizeof line, "decline %u", ++offer);
        say_dm(e, to, seats[to].dm, line);
    }
    for (unsigned g = 0; g < GIFTS; g++) {
        unsigned pair = g % (e->n / 2), round = g / (e->n / 2);
        unsigned a = 2 * pair, b = a + 1, from = round % 2 ? b : a, to = round % 2 ? a : b;
        snprintf(line, sizeof line, "offer <@%s> %s for nothing", e->players[to], seats[a].card);
        say_dm(e, from, seats[from].dm, line);
        snprintf(line, sizeof line, "accept %u", ++offer);
        say_dm(e, to, seats[to].dm, line);
    }
}

static void test_largest_messages(void **state)
{
    (void)state;
    static struct e2e e; /* static: kill_live() may need it after a failure */
    setup_e2e(&e, MAXP, false);
    e.wait_ms = 120000;
    for (unsigned i = 0; i < e.n; i++) {
        char name[192];
        long_name(i, name, sizeof name);
        fdc_set_name(e.players[i], name);
    }
    slash(&e, 0, "new", "[{\"name\":\"variant\",\"type\":3,\"value\":\"standard\"}]");
    struct msg_want lobby = {.title = "Illegal — lobby", .n = 0};
    wait_until(&e, message_ready, &lobby, "the lobby");
    seat_all_and_start(&e, &lobby);

    /* each reads their DMs in a language of their own, and sees their hand anew */
    struct seat seats[MAXP];
    for (unsigned i = 0; i < e.n; i++) {
        read_hand(&e, i, &seats[i]);
        char line[64];
        snprintf(line, sizeof line, "language %s", languages[i % NLANG]);
        say_dm(&e, i, seats[i].dm, line);
        say_dm(&e, i, seats[i].dm, "hand");
    }
    /* three of every resource in play: the ask menu of a hand lists them */
    struct json_object *hand = wait_dm(&e, e.players[0], "tb:ask");
    struct json_object *ask = select_options(hand, "tb:ask");
    char resources[512] = "";
    for (size_t k = 0; k < json_object_array_length(ask); k++) {
        const char *v = jstr(json_object_array_get_idx(ask, k), "value");
        if (v[0] == '3')
            snprintf(resources + strlen(resources), sizeof resources - strlen(resources), "%s%s",
                     resources[0] ? " " : "", v);
    }
    json_object_put(hand);
    assert_true(strlen(resources) > 0);

    trade_much(&e, seats, resources);
    for (int session = 1; session <= 5; session++) {
        table_command(&e, 0, "next"); /* the session closes */
        if (session < 5)
            drop(&e, session);
    }

    /* the table in every language: what anyone may ask for */
    static const char *const asks[] = {"status", "rules", "help", "stats", "leaderboard"};
    for (size_t l = 0; l < NLANG; l++) {
        set_language(&e, languages[l]);
        for (size_t a = 0; a < sizeof asks / sizeof *asks; a++)
            slash(&e, (unsigned)(1 + a), asks[a], NULL);
    }
    /* the tribunal and the results in French, the longest */
    set_language(&e, "fr");
    char last[32] = "";
    for (;;) {
        table_command(&e, 0, "next"); /* the debate ends */
        struct vote_or_results w = {.vote = ""};
        snprintf(w.last, sizeof w.last, "%s", last);
        wait_until(&e, next_vote_or_results, &w, "a vote or the results");
        if (w.over)
            break;
        snprintf(last, sizeof last, "%s", w.vote);
        for (unsigned i = 0; i < e.n; i++) {
            char action[64];
            snprintf(action, sizeof action, "vote %s", e.players[(i + 1) % e.n]);
            click(&e, i, e2e_table, false, w.vote, action, NULL);
        }
        table_command(&e, 0, "next"); /* the vote closes */
    }
    wait_until(&e, recap_posted, NULL, "the recap");
    assert_each_answered_once(&e);
    struct json_object *s = snap(&e);
    if (json_object_get_int(jget(s, "invalid")) != 0)
        fail_msg("refused: %s", json_object_to_json_string(jget(s, "refused")));
    /* the results in French, and the recap counted the 200 trades (above) */
    struct table_want results = {OUT_ACTION_REMATCH, 0, ""};
    assert_true(table_control(&e, s, &results));
    struct json_object *msgs = jget(s, "messages");
    unsigned largest = 0;
    for (size_t i = 0; i < json_object_array_length(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i), *b = jget(m, "body");
        if (strcmp(jstr(m, "id"), results.id) == 0)
            assert_string_equal(embed_title(m), catalog_text("fr", "ui.title-results"));
        const char *c = jstr(b, "content"), *d = embed_text(m);
        const char *t = c && *c ? c : d ? d : "";
        unsigned n = (unsigned)strlen(t);
        largest = n > largest ? n : largest;
    }
    printf("%zu messages, none refused; the longest text %u bytes\n",
           json_object_array_length(msgs), largest);
    json_object_put(s);
    assert_int_equal(daemon_stop(&e.d, SIGTERM, 10000), 0);
    teardown_e2e(&e);
}

int main(int argc, char **argv)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_largest_messages, kill_live),
    };
    return e2e_run(argc, argv, tests, sizeof tests / sizeof *tests);
}
