/*
 * test_command.c - canonical command parsing, and the loose matching of card
 * and player names that the dispatcher does with a game's context.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bot/command.h"
#include "core/illegal/module.h"
#include "core/catalog.h"
#include "core/catalog_data.h"

#define ALL_IN_PLAY 0xFFu
#define BIT(r)      (1u << (r))

/* Parses line and checks the error and the command type. */
/* The word of the command c was read as, or NULL. */
static const char *word_of(const struct command *c)
{
    return c->def ? c->def->word : NULL;
}

static bool same_word(const char *a, const char *b)
{
    return a == b || (a && b && strcmp(a, b) == 0);
}

/* Parses line and checks the error and the command (NULL: none). */
static struct command parse(const char *line, bool in_table, enum command_error want_err,
                            const char *want)
{
    struct command c;
    enum command_error err = command_parse(line, in_table, &c);
    if (err != want_err || !same_word(word_of(&c), want))
        fail_msg("\"%s\" (%s): got %s/%s, want %s/%s", line, in_table ? "table" : "dm",
                 command_error_id(err), word_of(&c) ? word_of(&c) : "none",
                 command_error_id(want_err), want ? want : "none");
    return c;
}

/* ---- command_parse: table commands ---------------------------------------- */

static void test_table_commands_without_arguments(void **state)
{
    (void)state;
    static const struct {
        const char *word;
        const char *type;
    } words[] = {
        {"join", "join"},     {"leave", "leave"}, {"start", "start"},
        {"status", "status"}, {"rules", "rules"}, {"pause", "pause"},
        {"resume", "resume"}, {"next", "next"},   {"end", "end"},
    };
    char line[64];
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        snprintf(line, sizeof line, "!illegal %s", words[i].word);
        struct command c = parse(line, true, CMD_OK, words[i].type);
        assert_true(c.table);
        assert_string_equal(c.game, "");
        assert_string_equal(c.arg, "");
        /* Blanks around and any case are fine. */
        snprintf(line, sizeof line, "  \t!ILLEGAL   %s  \r\n", words[i].word);
        for (char *p = line + 12; *p; p++)
            if (*p >= 'a' && *p <= 'z')
                *p = (char)(*p - 'a' + 'A');
        parse(line, true, CMD_OK, words[i].type);
        /* An argument they do not take is a usage error, naming the command. */
        snprintf(line, sizeof line, "!illegal %s now", words[i].word);
        parse(line, true, CMD_ERR_USAGE, words[i].type);
    }
    /* "!illegal" alone asks for help. */
    parse("!illegal", true, CMD_OK, "help");
    parse("!illegal   ", true, CMD_OK, "help");
}

static void test_table_commands_with_arguments(void **state)
{
    (void)state;
    struct command c = parse("!illegal new", true, CMD_OK, "new");
    assert_string_equal(c.arg, "");
    c = parse("!illegal new casual", true, CMD_OK, "new");
    assert_string_equal(c.arg, "casual");
    c = parse("!illegal new   Advanced  ", true, CMD_OK, "new");
    assert_string_equal(c.arg, "Advanced");

    c = parse("!illegal grab guns", true, CMD_OK, "grab");
    assert_string_equal(c.arg, "guns");
    c = parse("!illegal grab Luxury Cars", true, CMD_OK, "grab");
    assert_string_equal(c.arg, "Luxury Cars");

    c = parse("!illegal extend 5", true, CMD_OK, "extend"); /* bare: minutes */
    assert_int_equal(c.ms, 300000);
    c = parse("!illegal extend 90s", true, CMD_OK, "extend");
    assert_int_equal(c.ms, 90000);
    c = parse("!illegal extend 5 minutes", true, CMD_OK, "extend");
    assert_int_equal(c.ms, 300000);
    c = parse("!illegal extend 1d", true, CMD_OK, "extend");
    assert_int_equal(c.ms, 86400000);

    c = parse("!illegal kick bob", true, CMD_OK, "kick");
    assert_string_equal(c.arg, "bob");
    c = parse("!illegal kick <@!123>", true, CMD_OK, "kick");
    assert_string_equal(c.arg, "<@!123>");
    c = parse("!illegal kick Alice Smith", true, CMD_OK, "kick");
    assert_string_equal(c.arg, "Alice Smith");

    c = parse("!illegal set session 5", true, CMD_OK, "set");
    assert_string_equal(c.arg, "session");
    assert_string_equal(c.arg2, "5");
    c = parse("!illegal set Resources guns, alcohol, jewelry, powder", true, CMD_OK, "set");
    assert_string_equal(c.arg, "resources");
    assert_string_equal(c.arg2, "guns, alcohol, jewelry, powder");
}

static void test_table_usage_errors(void **state)
{
    (void)state;
    parse("!illegal grab", true, CMD_ERR_USAGE, "grab");
    parse("!illegal grab   ", true, CMD_ERR_USAGE, "grab");
    parse("!illegal kick", true, CMD_ERR_USAGE, "kick");
    parse("!illegal extend", true, CMD_ERR_USAGE, "extend");
    parse("!illegal extend 0", true, CMD_ERR_USAGE, "extend");
    parse("!illegal extend -3", true, CMD_ERR_USAGE, "extend");
    parse("!illegal extend five", true, CMD_ERR_USAGE, "extend");
    parse("!illegal extend 5 fortnights", true, CMD_ERR_USAGE, "extend");
    parse("!illegal extend 31d", true, CMD_ERR_USAGE, "extend");
    parse("!illegal extend 99999999999999999999999", true, CMD_ERR_USAGE, "extend");
    parse("!illegal set", true, CMD_ERR_USAGE, "set");
    parse("!illegal set session", true, CMD_ERR_USAGE, "set");
    parse("!illegal set session   ", true, CMD_ERR_USAGE, "set");
}

static void test_not_a_command_in_table(void **state)
{
    (void)state;
    static const char *const chat[] = {
        "",
        "   ",
        "hello everyone",
        "join",
        "hand",
        "illegal join",
        "!illegaljoin",
        "! illegal join",
        "!illegal-join",
        "g7 hand",
        "I said !illegal join",
    };
    for (size_t i = 0; i < sizeof chat / sizeof *chat; i++) {
        struct command c = parse(chat[i], true, CMD_OK, NULL);
        assert_false(c.table);
    }
}

static void test_unknown_commands(void **state)
{
    (void)state;
    parse("!illegal dance", true, CMD_ERR_UNKNOWN, NULL);
    parse("!illegal joinn", true, CMD_ERR_UNKNOWN, NULL);
    parse("!illegal jo", true, CMD_ERR_UNKNOWN, NULL);
    parse("dance", false, CMD_ERR_UNKNOWN, NULL);
    parse("hands", false, CMD_ERR_UNKNOWN, NULL);
    /* Table-only words are not DM commands without "!illegal". */
    parse("join", false, CMD_ERR_UNKNOWN, NULL);
    parse("grab guns", false, CMD_ERR_UNKNOWN, NULL);
    /* A word far longer than any command is simply unknown. */
    parse("!illegal joinjoinjoinjoinjoinjoinjoinjoinjoinjoinjoin", true, CMD_ERR_UNKNOWN, NULL);
    parse("handhandhandhandhandhandhandhandhandhandhandhandhand", false, CMD_ERR_UNKNOWN, NULL);
    assert_string_equal(command_error_id(CMD_OK), "ok");
    assert_string_equal(command_error_id(CMD_ERR_UNKNOWN), "unknown");
    assert_string_equal(command_error_id(CMD_ERR_USAGE), "usage");
    assert_string_equal(command_error_id(CMD_ERR_TOO_LONG), "too-long");
}

/* ---- command_parse: DM commands ------------------------------------------- */

static void test_dm_commands(void **state)
{
    (void)state;
    struct command c = parse("hand", false, CMD_OK, "hand");
    assert_false(c.table);
    assert_string_equal(c.game, "");
    parse("HAND", false, CMD_OK, "hand");
    parse("offers", false, CMD_OK, "offers");
    parse("abstain", false, CMD_OK, "abstain");
    parse("help", false, CMD_OK, "help");
    parse("", false, CMD_OK, "help");
    parse("   ", false, CMD_OK, "help");

    c = parse("accept 3", false, CMD_OK, "accept");
    assert_int_equal(c.number, 3);
    c = parse("accept #12", false, CMD_OK, "accept");
    assert_int_equal(c.number, 12);
    c = parse("decline 2", false, CMD_OK, "decline");
    assert_int_equal(c.number, 2);
    c = parse("cancel #1 ", false, CMD_OK, "cancel");
    assert_int_equal(c.number, 1);

    c = parse("vote alice", false, CMD_OK, "vote");
    assert_string_equal(c.arg, "alice");
    c = parse("vote @alice:example.org", false, CMD_OK, "vote");
    assert_string_equal(c.arg, "@alice:example.org");

    c = parse("offer bob 2 guns for 1 alcohol", false, CMD_OK, "offer");
    assert_string_equal(c.arg, "bob");
    assert_string_equal(c.arg2, "2 guns");
    assert_string_equal(c.arg3, "1 alcohol");

    /* The private commands also work after "!illegal", in a DM or a table. */
    c = parse("!illegal hand", false, CMD_OK, "hand");
    assert_true(c.table);
    c = parse("!illegal accept 4", true, CMD_OK, "accept");
    assert_int_equal(c.number, 4);
    c = parse("!illegal vote bob", true, CMD_OK, "vote");
    assert_string_equal(c.arg, "bob");
    /* Help answers with the help of the place it was asked in. */
    parse("!illegal help", false, CMD_OK, "help");
    parse("!illegal help", true, CMD_OK, "help");
}

static void test_dm_game_prefix(void **state)
{
    (void)state;
    struct command c = parse("g7 hand", false, CMD_OK, "hand");
    assert_string_equal(c.game, "g7");
    c = parse("G12 accept 3", false, CMD_OK, "accept");
    assert_string_equal(c.game, "g12");
    assert_int_equal(c.number, 3);
    c = parse("  g7   offer bob 1 guns for nothing", false, CMD_OK, "offer");
    assert_string_equal(c.game, "g7");
    assert_string_equal(c.arg, "bob");
    assert_string_equal(c.arg2, "1 guns");
    assert_string_equal(c.arg3, "nothing");
    c = parse("g7", false, CMD_OK, "help");
    assert_string_equal(c.game, "g7");
    c = parse("g7 vote bob", false, CMD_OK, "vote");
    assert_string_equal(c.game, "g7");
    /* Not game ids: "g" alone, letters after the g. */
    parse("g hand", false, CMD_ERR_UNKNOWN, NULL);
    parse("gx7 hand", false, CMD_ERR_UNKNOWN, NULL);
    parse("g7x hand", false, CMD_ERR_UNKNOWN, NULL);
    /* The prefix still needs a known command after it. */
    c = parse("g7 dance", false, CMD_ERR_UNKNOWN, NULL);
    assert_string_equal(c.game, "g7");
    /* An id too long to be one of ours is not taken as a game id. */
    c = parse("g1234567890123456789 hand", false, CMD_ERR_UNKNOWN, NULL);
    assert_string_equal(c.game, "");
}

static void test_dm_usage_errors(void **state)
{
    (void)state;
    parse("accept", false, CMD_ERR_USAGE, "accept");
    parse("accept 0", false, CMD_ERR_USAGE, "accept");
    parse("accept three", false, CMD_ERR_USAGE, "accept");
    parse("accept #", false, CMD_ERR_USAGE, "accept");
    parse("accept 3 4", false, CMD_ERR_USAGE, "accept");
    parse("decline", false, CMD_ERR_USAGE, "decline");
    parse("decline x", false, CMD_ERR_USAGE, "decline");
    parse("cancel", false, CMD_ERR_USAGE, "cancel");
    parse("cancel -1", false, CMD_ERR_USAGE, "cancel");
    parse("vote", false, CMD_ERR_USAGE, "vote");
    parse("hand now", false, CMD_ERR_USAGE, "hand");
    parse("offers please", false, CMD_ERR_USAGE, "offers");
    parse("abstain 2", false, CMD_OK, "abstain"); /* the case, in a parallel tribunal */
    /* help takes a topic ("help set"); its handler answers another with the usage */
    assert_string_equal(parse("help set", false, CMD_OK, "help").arg, "set");
    assert_string_equal(parse("help me", false, CMD_OK, "help").arg, "me");
    parse("offer", false, CMD_ERR_USAGE, "offer");
    parse("offer bob", false, CMD_ERR_USAGE, "offer");
    parse("offer bob 2 guns", false, CMD_ERR_USAGE, "offer");
    parse("offer bob for 1 alcohol", false, CMD_ERR_USAGE, "offer");
    parse("offer bob 2 guns for", false, CMD_ERR_USAGE, "offer");
    parse("offer bob 2 guns for   ", false, CMD_ERR_USAGE, "offer");
}

static void test_usage_keys(void **state)
{
    (void)state;
    char usage[512];
    /* Every command of the table has its words in the catalog. */
    const struct command_def *def;
    for (size_t i = 0; (def = command_at(i)); i++) {
        assert_non_null(catalog_text("en", def->syntax));
        assert_non_null(catalog_text("en", def->summary));
        assert_true(!def->example || catalog_text("en", def->example));
        /* the slash commands' registration reads these in every language at
         * start: the catalog lays them out together (bot/catalog/gen.c) */
        if (!catalog_key_read_at_start(def->summary))
            fail_msg("%s: its summary key %s is not one read at start", def->word, def->summary);
        for (unsigned o = 0; o < COMMAND_MAX_OPTIONS && def->options[o].name; o++) {
            assert_non_null(catalog_text("en", def->options[o].summary));
            if (!catalog_key_read_at_start(def->options[o].summary))
                fail_msg("%s %s: its summary key %s is not one read at start", def->word,
                         def->options[o].name, def->options[o].summary);
        }
    }
    command_usage(usage, sizeof usage, "en", command_find("offer", CMD_IN_PRIVATE), NULL);
    assert_string_equal(usage,
                        "offer <player> <cards> for <cards>, e.g. offer bob 2 guns for 1 alcohol");
    command_usage(usage, sizeof usage, "en", command_find("grab", CMD_IN_TABLE), NULL);
    assert_string_equal(usage, "!illegal grab <card>");
    command_usage(usage, sizeof usage, "en", command_find("vote", CMD_IN_PRIVATE), NULL);
    assert_string_equal(usage, "vote [case] <player>");
    /* Every command a line can get wrong has a usage text to answer with:
     * "!illegal status 0" must not answer "Usage: " and nothing. */
    static const char *const words[] = {
        "new",   "join",   "leave",  "start",   "status", "rules", "help",    "grab",
        "pause", "resume", "extend", "next",    "kick",   "end",   "set",     "hand",
        "offer", "offers", "accept", "decline", "cancel", "vote",  "abstain",
    };
    static const char *const forms[] = {"!illegal %s 0 x", "!illegal %s", "%s 0 x", "%s"};
    unsigned usage_errors = 0;
    for (size_t w = 0; w < sizeof words / sizeof *words; w++)
        for (size_t f = 0; f < sizeof forms / sizeof *forms; f++)
            for (int in_table = 0; in_table < 2; in_table++) {
                char line[64];
                struct command c;
                snprintf(line, sizeof line, forms[f], words[w]);
                if (command_parse(line, in_table, &c) != CMD_ERR_USAGE)
                    continue;
                usage_errors++;
                command_usage(usage, sizeof usage, "en", c.def, NULL);
                if (!usage[0] || strchr(usage, '{'))
                    fail_msg("\"%s\" is a usage error with no usage text", line);
            }
    assert_true(usage_errors >= sizeof words / sizeof *words);
    /* Every parse error has its catalog text. */
    char key[32];
    for (int e = CMD_ERR_UNKNOWN; e <= CMD_ERR_TOO_LONG; e++) {
        snprintf(key, sizeof key, "parse.%s", command_error_id((enum command_error)e));
        assert_non_null(catalog_text("en", key));
    }
}

/* ---- offers --------------------------------------------------------------- */

static void test_offer_forms(void **state)
{
    (void)state;
    struct command c = parse("offer bob 2 guns 1 alcohol for nothing", false, CMD_OK, "offer");
    assert_string_equal(c.arg, "bob");
    assert_string_equal(c.arg2, "2 guns 1 alcohol");
    assert_string_equal(c.arg3, "nothing");

    c = parse("offer Bob nothing FOR 2 luxury cars", false, CMD_OK, "offer");
    assert_string_equal(c.arg, "Bob");
    assert_string_equal(c.arg2, "nothing");
    assert_string_equal(c.arg3, "2 luxury cars");

    c = parse("offer <@!123>   1 powder\tfor\t1 jewelry  ", false, CMD_OK, "offer");
    assert_string_equal(c.arg, "<@!123>");
    assert_string_equal(c.arg2, "1 powder");
    assert_string_equal(c.arg3, "1 jewelry");

    /* "for" inside a name is no separator; only the whole word is. */
    c = parse("offer forrest 1 guns for 1 alcohol", false, CMD_OK, "offer");
    assert_string_equal(c.arg, "forrest");
    assert_string_equal(c.arg2, "1 guns");
    assert_string_equal(c.arg3, "1 alcohol");
    c = parse("offer bob 1 format for 2 forks", false, CMD_OK, "offer");
    assert_string_equal(c.arg, "bob");
    assert_string_equal(c.arg2, "1 format");
    assert_string_equal(c.arg3, "2 forks");
    c = parse("offer bob 1 guns for 1 platform", false, CMD_OK, "offer");
    assert_string_equal(c.arg3, "1 platform");
    /* A player whose name is "for": the first word is always the player. */
    c = parse("offer for 1 guns for 1 alcohol", false, CMD_OK, "offer");
    assert_string_equal(c.arg, "for");
    assert_string_equal(c.arg2, "1 guns");
    assert_string_equal(c.arg3, "1 alcohol");
    c = parse("offer @alice:example.org 1 guns for nothing", false, CMD_OK, "offer");
    assert_string_equal(c.arg, "@alice:example.org");
}

/* ---- overlong arguments --------------------------------------------------- */

static void make_line(char *out, size_t outlen, const char *prefix, size_t n, const char *suffix)
{
    size_t p = strlen(prefix);
    assert_true(p + n + strlen(suffix) < outlen);
    memcpy(out, prefix, p);
    memset(out + p, 'x', n);
    strcpy(out + p + n, suffix);
}

static void test_overlong_arguments(void **state)
{
    (void)state;
    static char line[4096];
    struct command c;

    /* 255 characters fit; 256 do not. */
    make_line(line, sizeof line, "!illegal grab ", COMMAND_ARG_MAX - 1, "");
    c = parse(line, true, CMD_OK, "grab");
    assert_int_equal(strlen(c.arg), COMMAND_ARG_MAX - 1);
    make_line(line, sizeof line, "!illegal grab ", COMMAND_ARG_MAX, "");
    parse(line, true, CMD_ERR_TOO_LONG, "grab");

    make_line(line, sizeof line, "!illegal new ", 300, "");
    parse(line, true, CMD_ERR_TOO_LONG, "new");
    make_line(line, sizeof line, "!illegal kick ", 300, "");
    parse(line, true, CMD_ERR_TOO_LONG, "kick");
    make_line(line, sizeof line, "!illegal set session ", 300, "");
    parse(line, true, CMD_ERR_TOO_LONG, "set");
    make_line(line, sizeof line, "vote ", 1000, "");
    parse(line, false, CMD_ERR_TOO_LONG, "vote");
    make_line(line, sizeof line, "g7 vote ", 3000, "");
    parse(line, false, CMD_ERR_TOO_LONG, "vote");

    /* Each part of an offer. */
    make_line(line, sizeof line, "offer ", 300, " 1 guns for 1 alcohol");
    parse(line, false, CMD_ERR_TOO_LONG, "offer");
    make_line(line, sizeof line, "offer bob 1 ", 300, " for 1 alcohol");
    parse(line, false, CMD_ERR_TOO_LONG, "offer");
    make_line(line, sizeof line, "offer bob 1 guns for 1 ", 300, "");
    parse(line, false, CMD_ERR_TOO_LONG, "offer");
    make_line(line, sizeof line, "offer ", COMMAND_ARG_MAX - 1, " 1 guns for 1 alcohol");
    c = parse(line, false, CMD_OK, "offer");
    assert_int_equal(strlen(c.arg), COMMAND_ARG_MAX - 1);

    /* Long numbers and long command words are usage and unknown errors. */
    make_line(line, sizeof line, "accept 1", 500, "");
    parse(line, false, CMD_ERR_USAGE, "accept");
    memset(line, '9', 600);
    strcpy(line + 600, "");
    memcpy(line, "!illegal extend ", 16);
    parse(line, true, CMD_ERR_USAGE, "extend");
    make_line(line, sizeof line, "!illegal ", 3000, "");
    parse(line, true, CMD_ERR_UNKNOWN, NULL);
    make_line(line, sizeof line, "g", 3000, " hand");
    parse(line, false, CMD_ERR_UNKNOWN, NULL);
}

static void test_huge_line(void **state)
{
    (void)state;
    enum { HUGE = 1 << 20 };
    static char line[HUGE + 64];
    struct command c;
    make_line(line, sizeof line, "offer bob ", HUGE, " for nothing");
    assert_int_equal(command_parse(line, false, &c), CMD_ERR_TOO_LONG);
    make_line(line, sizeof line, "!illegal kick ", HUGE, "");
    assert_int_equal(command_parse(line, true, &c), CMD_ERR_TOO_LONG);
    /* Blanks only, a lot of them. */
    memset(line, ' ', HUGE);
    line[HUGE] = '\0';
    assert_int_equal(command_parse(line, false, &c), CMD_OK);
    assert_string_equal(word_of(&c), "help");
    assert_int_equal(command_parse(line, true, &c), CMD_OK);
    assert_null(c.def);
}

/* ---- card lists ----------------------------------------------------------- */

struct cards {
    enum resolve_error err;
    struct il_bundle b;
    char word[64];
    char choices[512];
};

static struct cards cards(const char *text, unsigned in_play)
{
    struct cards r;
    memset(&r, 0x5a, sizeof r);
    r.err = il_parse_cards(text, in_play, "en", &r.b, r.word, sizeof r.word, r.choices,
                           sizeof r.choices);
    return r;
}

/* Asserts text parses into exactly `count` cards of one resource. */
static void assert_single(const char *text, unsigned in_play, unsigned res, unsigned count)
{
    struct cards r = cards(text, in_play);
    if (r.err != RESOLVE_OK)
        fail_msg("\"%s\": error %d at \"%s\"", text, (int)r.err, r.word);
    for (unsigned t = 0; t < IL_CARD_TYPES; t++)
        if (r.b.n[t] != (t == res ? count : 0))
            fail_msg("\"%s\": card %s x%u", text, il_card_id(t), r.b.n[t]);
}

static void test_cards_counts_and_names(void **state)
{
    (void)state;
    struct cards r = cards("2 guns 1 alcohol", ALL_IN_PLAY);
    assert_int_equal(r.err, RESOLVE_OK);
    assert_int_equal(r.b.n[IL_GUNS], 2);
    assert_int_equal(r.b.n[IL_ALCOHOL], 1);
    assert_int_equal(il_bundle_total(&r.b), 3);

    assert_single("guns", ALL_IN_PLAY, IL_GUNS, 1);
    assert_single("gun", ALL_IN_PLAY, IL_GUNS, 1);
    assert_single("1 gun", ALL_IN_PLAY, IL_GUNS, 1);
    assert_single("GUNS", ALL_IN_PLAY, IL_GUNS, 1);
    assert_single("3 Guns", ALL_IN_PLAY, IL_GUNS, 3);
    assert_single("99 guns", ALL_IN_PLAY, IL_GUNS, 99);
    assert_single("3x guns", ALL_IN_PLAY, IL_GUNS, 3);
    assert_single("  4   guns  ", ALL_IN_PLAY, IL_GUNS, 4);
    /* The same card twice adds up. */
    assert_single("2 guns, 3 guns", ALL_IN_PLAY, IL_GUNS, 5);
    assert_single("guns guns", ALL_IN_PLAY, IL_GUNS, 2);

    /* Multi-word names, singular and plural, any case, ids with dashes. */
    assert_single("2 luxury cars", ALL_IN_PLAY, IL_LUXURY_CARS, 2);
    assert_single("1 Luxury Car", ALL_IN_PLAY, IL_LUXURY_CARS, 1);
    assert_single("luxury-cars", ALL_IN_PLAY, IL_LUXURY_CARS, 1);
    assert_single("3 SECRET FILES", ALL_IN_PLAY, IL_SECRET_FILES, 3);
    assert_single("secret file", ALL_IN_PLAY, IL_SECRET_FILES, 1);
    assert_single("2 call girls", ALL_IN_PLAY, IL_CALL_GIRLS, 2);
    assert_single("call-girl", ALL_IN_PLAY, IL_CALL_GIRLS, 1);
    assert_single("pornography", ALL_IN_PLAY, IL_PORNOGRAPHY, 1);
    assert_single("jewelry", ALL_IN_PLAY, IL_JEWELRY, 1);
    assert_single("powder", ALL_IN_PLAY, IL_POWDER, 1);

    /* Prefixes that name one resource. */
    assert_single("lux", ALL_IN_PLAY, IL_LUXURY_CARS, 1);
    assert_single("2 lux", ALL_IN_PLAY, IL_LUXURY_CARS, 2);
    assert_single("sec", ALL_IN_PLAY, IL_SECRET_FILES, 1);
    assert_single("al", ALL_IN_PLAY, IL_ALCOHOL, 1);
    assert_single("jew", ALL_IN_PLAY, IL_JEWELRY, 1);
    assert_single("pow", ALL_IN_PLAY, IL_POWDER, 1);
    assert_single("porno", ALL_IN_PLAY, IL_PORNOGRAPHY, 1);

    /* Aliases from the catalog. */
    assert_single("booze", ALL_IN_PLAY, IL_ALCOHOL, 1);
    assert_single("2 porn", ALL_IN_PLAY, IL_PORNOGRAPHY, 2);
    assert_single("girls", ALL_IN_PLAY, IL_CALL_GIRLS, 1);
    assert_single("jewels", ALL_IN_PLAY, IL_JEWELRY, 1);
    assert_single("jewellery", ALL_IN_PLAY, IL_JEWELRY, 1);
    assert_single("2 cars", ALL_IN_PLAY, IL_LUXURY_CARS, 2);
    assert_single("files", ALL_IN_PLAY, IL_SECRET_FILES, 1);
    assert_single("secrets", ALL_IN_PLAY, IL_SECRET_FILES, 1);

    /* Separators: commas, '+', ';' and "and". */
    r = cards("2 luxury cars, 1 secret files and 3 booze + jewels; powder", ALL_IN_PLAY);
    assert_int_equal(r.err, RESOLVE_OK);
    assert_int_equal(r.b.n[IL_LUXURY_CARS], 2);
    assert_int_equal(r.b.n[IL_SECRET_FILES], 1);
    assert_int_equal(r.b.n[IL_ALCOHOL], 3);
    assert_int_equal(r.b.n[IL_JEWELRY], 1);
    assert_int_equal(r.b.n[IL_POWDER], 1);
    assert_int_equal(il_bundle_total(&r.b), 8);

    /* Only resource cards ever come out of a card list. */
    for (unsigned t = IL_RESOURCES; t < IL_CARD_TYPES; t++)
        assert_int_equal(r.b.n[t], 0);
}

static void test_cards_nothing(void **state)
{
    (void)state;
    static const char *const gifts[] = {"nothing", "Nothing", "NONE", "  nothing  "};
    for (size_t i = 0; i < sizeof gifts / sizeof *gifts; i++) {
        struct cards r = cards(gifts[i], ALL_IN_PLAY);
        assert_int_equal(r.err, RESOLVE_OK);
        assert_int_equal(il_bundle_total(&r.b), 0);
    }
}

static void test_cards_ambiguous(void **state)
{
    (void)state;
    unsigned in_play = BIT(IL_GUNS) | BIT(IL_ALCOHOL) | BIT(IL_PORNOGRAPHY) | BIT(IL_POWDER);
    struct cards r = cards("2 p", in_play);
    assert_int_equal(r.err, RESOLVE_AMBIGUOUS);
    assert_string_equal(r.word, "p");
    assert_non_null(strstr(r.choices, "Pornography"));
    assert_non_null(strstr(r.choices, "Powder"));
    assert_int_equal(il_bundle_total(&r.b), 0);
    r = cards("1 guns 1 po", in_play);
    assert_int_equal(r.err, RESOLVE_AMBIGUOUS);
    assert_string_equal(r.word, "po");

    /* With only one of them in play, the same prefix is clear. */
    assert_single("p", BIT(IL_GUNS) | BIT(IL_ALCOHOL) | BIT(IL_POWDER) | BIT(IL_JEWELRY), IL_POWDER,
                  1);
    assert_single("p", BIT(IL_GUNS) | BIT(IL_ALCOHOL) | BIT(IL_PORNOGRAPHY) | BIT(IL_JEWELRY),
                  IL_PORNOGRAPHY, 1);
    /* "c" starts both Call Girls and the "cars" alias of Luxury Cars. */
    r = cards("c", BIT(IL_CALL_GIRLS) | BIT(IL_LUXURY_CARS) | BIT(IL_GUNS) | BIT(IL_POWDER));
    assert_int_equal(r.err, RESOLVE_AMBIGUOUS);
    assert_string_equal(r.word, "c");
    /* An exact name beats a prefix of another. */
    assert_single("porn", in_play, IL_PORNOGRAPHY, 1);
}

static void test_cards_unknown_and_not_in_play(void **state)
{
    (void)state;
    unsigned in_play = BIT(IL_GUNS) | BIT(IL_ALCOHOL) | BIT(IL_PORNOGRAPHY) | BIT(IL_POWDER);
    struct cards r = cards("2 bananas", in_play);
    assert_int_equal(r.err, RESOLVE_UNKNOWN);
    assert_string_equal(r.word, "bananas");
    assert_string_equal(r.choices, "Guns, Alcohol, Pornography, Powder");

    r = cards("1 guns 2 Tulips", in_play);
    assert_int_equal(r.err, RESOLVE_UNKNOWN);
    assert_string_equal(r.word, "Tulips");
    assert_string_equal(r.choices, "Guns, Alcohol, Pornography, Powder");

    /* A real resource that is not in this game, by name, alias or prefix. */
    r = cards("2 jewelry", in_play);
    assert_int_equal(r.err, RESOLVE_UNKNOWN);
    assert_string_equal(r.word, "jewelry");
    assert_null(strstr(r.choices, "Jewelry"));
    r = cards("2 luxury cars", in_play);
    assert_int_equal(r.err, RESOLVE_UNKNOWN);
    assert_null(strstr(r.choices, "Luxury"));
    r = cards("booze", BIT(IL_GUNS) | BIT(IL_JEWELRY) | BIT(IL_POWDER) | BIT(IL_PORNOGRAPHY));
    assert_int_equal(r.err, RESOLVE_UNKNOWN);
    r = cards("sec", in_play);
    assert_int_equal(r.err, RESOLVE_UNKNOWN);
    assert_string_equal(r.word, "sec");

    /* The choices always name every resource in play. */
    r = cards("zzz", ALL_IN_PLAY);
    assert_int_equal(r.err, RESOLVE_UNKNOWN);
    assert_string_equal(r.choices, "Luxury Cars, Guns, Jewelry, Alcohol, Pornography, Secret "
                                   "Files, Call Girls, Powder");
}

static void test_cards_roles_not_tradable(void **state)
{
    (void)state;
    /* Names with the catalog's leading "The" typed out are in
     * test_command_bugs.c: they do not resolve yet. */
    static const char *const roles[] = {
        "arms dealer",
        "Arms Dealer",
        "pimp",
        "Pimp",
        "dealer",
        "buyer",
        "suspect",
        "2 dealers",
        "1 guns, arms dealer",
        "hacker",
        "rock star",
        "general guerillero",
        "cia director",
        "C.I.A. Director",
        "powder dealer",
        "car thief",
        "swiss banker",
        "roles",
        "suspect: the pimp",
    };
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++) {
        struct cards r = cards(roles[i], ALL_IN_PLAY);
        if (r.err != RESOLVE_NOT_TRADABLE)
            fail_msg("\"%s\": got %d, want not-tradable", roles[i], (int)r.err);
        assert_true(r.word[0] != '\0');
    }
    struct cards r = cards("2 guns 1 arms dealer", ALL_IN_PLAY);
    assert_int_equal(r.err, RESOLVE_NOT_TRADABLE);
    assert_string_equal(r.word, "arms dealer");
}

static void test_cards_bad_counts(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        const char *word;
    } bad[] = {
        {"0 guns", "0"},
        {"100 guns", "100"},
        {"-1 guns", "-1"},
        {"2 guns 3", "3"},
        {"3", "3"},
        {"2 3 guns", "3"},
        {"1000000000000 guns", "1000000000000"},
        {"0x guns", "0x"},
        {"50 guns 50 guns", "guns"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        struct cards r = cards(bad[i].text, ALL_IN_PLAY);
        if (r.err != RESOLVE_BAD_COUNT)
            fail_msg("\"%s\": got %d, want bad-count", bad[i].text, (int)r.err);
        assert_string_equal(r.word, bad[i].word);
    }
    /* Nothing at all is no card list either. */
    struct cards r = cards("", ALL_IN_PLAY);
    assert_int_equal(r.err, RESOLVE_BAD_COUNT);
    r = cards(" , and + ", ALL_IN_PLAY);
    assert_int_equal(r.err, RESOLVE_BAD_COUNT);
}

static void test_cards_long_input(void **state)
{
    (void)state;
    char text[2048];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    /* Longer than any command argument: refused whole, never cut short. */
    struct cards r = cards(text, ALL_IN_PLAY);
    assert_int_equal(r.err, RESOLVE_BAD_COUNT);
}

static void test_parse_resource(void **state)
{
    (void)state;
    unsigned in_play = BIT(IL_GUNS) | BIT(IL_ALCOHOL) | BIT(IL_PORNOGRAPHY) | BIT(IL_POWDER);
    int res = -1;
    char choices[256];
    assert_int_equal(il_parse_resource("guns", in_play, "en", &res, choices, sizeof choices),
                     RESOLVE_OK);
    assert_int_equal(res, IL_GUNS);
    assert_int_equal(il_parse_resource("Gun", in_play, "en", &res, choices, sizeof choices),
                     RESOLVE_OK);
    assert_int_equal(res, IL_GUNS);
    assert_int_equal(il_parse_resource("BOOZE", in_play, "en", &res, choices, sizeof choices),
                     RESOLVE_OK);
    assert_int_equal(res, IL_ALCOHOL);
    assert_int_equal(il_parse_resource("pow", in_play, "en", &res, choices, sizeof choices),
                     RESOLVE_OK);
    assert_int_equal(res, IL_POWDER);
    assert_int_equal(il_parse_resource("lux", ALL_IN_PLAY, "en", &res, choices, sizeof choices),
                     RESOLVE_OK);
    assert_int_equal(res, IL_LUXURY_CARS);
    assert_int_equal(
        il_parse_resource("Luxury Cars", ALL_IN_PLAY, "en", &res, choices, sizeof choices),
        RESOLVE_OK);
    assert_int_equal(res, IL_LUXURY_CARS);
    assert_int_equal(il_parse_resource("p", in_play, "en", &res, choices, sizeof choices),
                     RESOLVE_AMBIGUOUS);
    assert_string_equal(choices, "Guns, Alcohol, Pornography, Powder");
    assert_int_equal(il_parse_resource("jewelry", in_play, "en", &res, choices, sizeof choices),
                     RESOLVE_UNKNOWN);
    assert_string_equal(choices, "Guns, Alcohol, Pornography, Powder");
    assert_int_equal(il_parse_resource("", in_play, "en", &res, choices, sizeof choices),
                     RESOLVE_UNKNOWN);
}

/* ---- players -------------------------------------------------------------- */

static const char *const ids[] = {"alice", "bob", "123456", "@carol:example.org", "u5", "alan"};
static const char *const names[] = {"Alice Smith", "Bob", "Zed", "carol", NULL, "Alan"};
#define NPLAYERS           6
#define GAME_NAME_TEST_MAX 256 /* a seat's name buffer, as in bot/game.h */

static int match(const char *text, enum resolve_error want)
{
    int index = -1;
    char choices[512];
    enum resolve_error e =
        command_match_player(text, ids, names, NPLAYERS, &index, choices, sizeof choices);
    if (e != want)
        fail_msg("\"%s\": got %d, want %d", text, (int)e, (int)want);
    if (e != RESOLVE_OK)
        assert_string_equal(choices, "Alice Smith, Bob, Zed, carol, u5, Alan");
    return index;
}

static void test_players(void **state)
{
    (void)state;
    /* Ids and display names, any case. */
    assert_int_equal(match("alice", RESOLVE_OK), 0);
    assert_int_equal(match("bob", RESOLVE_OK), 1);
    assert_int_equal(match("BOB", RESOLVE_OK), 1);
    assert_int_equal(match("Alice Smith", RESOLVE_OK), 0);
    assert_int_equal(match("alice smith", RESOLVE_OK), 0);
    assert_int_equal(match("zed", RESOLVE_OK), 2);
    assert_int_equal(match("u5", RESOLVE_OK), 4);
    assert_int_equal(match("  Bob \t", RESOLVE_OK), 1);
    /* Mentions. */
    assert_int_equal(match("@alice", RESOLVE_OK), 0);
    assert_int_equal(match("@Bob", RESOLVE_OK), 1);
    assert_int_equal(match("<@123456>", RESOLVE_OK), 2);
    assert_int_equal(match("<@!123456>", RESOLVE_OK), 2);
    assert_int_equal(match("@carol:example.org", RESOLVE_OK), 3);
    assert_int_equal(match("carol", RESOLVE_OK), 3);
    assert_int_equal(match("@carol", RESOLVE_OK), 3);
    /* Unique prefixes, of ids or names. */
    assert_int_equal(match("ali", RESOLVE_OK), 0);
    assert_int_equal(match("b", RESOLVE_OK), 1);
    assert_int_equal(match("z", RESOLVE_OK), 2);
    assert_int_equal(match("1234", RESOLVE_OK), 2);
    assert_int_equal(match("@car", RESOLVE_OK), 3);
    /* An exact name wins over being a prefix of another. */
    assert_int_equal(match("alan", RESOLVE_OK), 5);
    /* Ambiguous prefixes and unknown names list the players. */
    match("al", RESOLVE_AMBIGUOUS);
    match("a", RESOLVE_AMBIGUOUS);
    match("@al", RESOLVE_AMBIGUOUS);
    match("dave", RESOLVE_UNKNOWN);
    match("<@999>", RESOLVE_UNKNOWN);
    match("<@!999>", RESOLVE_UNKNOWN);
    match("@dave:example.org", RESOLVE_UNKNOWN);
    match("alice smithers", RESOLVE_UNKNOWN);
    match("", RESOLVE_UNKNOWN);
    match("   ", RESOLVE_UNKNOWN);
    match("@", RESOLVE_UNKNOWN);
    match("<@>", RESOLVE_UNKNOWN);
}

static void test_players_matrix(void **state)
{
    (void)state;
    static const char *const mids[] = {"@alice:example.org", "@bob:matrix.org", "@alice:other.net"};
    static const char *const mnames[] = {"Alice", "bob", "Alicia"};
    int index = -1;
    char choices[256];
    assert_int_equal(command_match_player("@alice:example.org", mids, mnames, 3, &index, choices,
                                          sizeof choices),
                     RESOLVE_OK);
    assert_int_equal(index, 0);
    assert_int_equal(
        command_match_player("@alice:other.net", mids, mnames, 3, &index, choices, sizeof choices),
        RESOLVE_OK);
    assert_int_equal(index, 2);
    assert_int_equal(command_match_player("@bob", mids, mnames, 3, &index, choices, sizeof choices),
                     RESOLVE_OK);
    assert_int_equal(index, 1);
    assert_int_equal(
        command_match_player("alice", mids, mnames, 3, &index, choices, sizeof choices),
        RESOLVE_OK);
    assert_int_equal(index, 0);
    assert_int_equal(
        command_match_player("@alic", mids, mnames, 3, &index, choices, sizeof choices),
        RESOLVE_AMBIGUOUS);
    assert_string_equal(choices, "Alice, bob, Alicia");
    assert_int_equal(command_match_player("@carol:example.org", mids, mnames, 3, &index, choices,
                                          sizeof choices),
                     RESOLVE_UNKNOWN);
}

/* A seat whose display name is another seat's id must not capture that id,
 * whichever of the two seats comes first. */
static void test_players_name_never_captures_id(void **state)
{
    (void)state;
    static const char *const sids[] = {"mallory", "alice", "123"};
    static const char *const snames[] = {"alice", "Alice A.", "<@!999>"};
    static const char *const rids[] = {"alice", "mallory"};
    static const char *const rnames[] = {"Alice A.", "alice"};
    int index = -1;
    char choices[256];
    assert_int_equal(
        command_match_player("alice", sids, snames, 3, &index, choices, sizeof choices),
        RESOLVE_OK);
    assert_int_equal(index, 1);
    assert_int_equal(
        command_match_player("@alice", sids, snames, 3, &index, choices, sizeof choices),
        RESOLVE_OK);
    assert_int_equal(index, 1);
    assert_int_equal(
        command_match_player("alice", rids, rnames, 2, &index, choices, sizeof choices),
        RESOLVE_OK);
    assert_int_equal(index, 0);
    assert_int_equal(
        command_match_player("<@123>", sids, snames, 3, &index, choices, sizeof choices),
        RESOLVE_OK);
    assert_int_equal(index, 2);
    /* Names still work where they name nobody's id. */
    assert_int_equal(
        command_match_player("alice a.", sids, snames, 3, &index, choices, sizeof choices),
        RESOLVE_OK);
    assert_int_equal(index, 1);
    /* And a name that would pass for an id, or a mention of one, is spotted. */
    assert_int_equal(command_name_claims_id("alice", sids, 3), 1);
    assert_int_equal(command_name_claims_id("ALICE", sids, 3), 1);
    assert_int_equal(command_name_claims_id("@alice", sids, 3), 1);
    assert_int_equal(command_name_claims_id("<@123>", sids, 3), 2);
    assert_int_equal(command_name_claims_id("<@!123>", sids, 3), 2);
    assert_int_equal(command_name_claims_id("Alice A.", sids, 3), -1);
    assert_int_equal(command_name_claims_id("alice", sids, 0), -1);
}

static void clean(const char *in, const char *want)
{
    char out[GAME_NAME_TEST_MAX];
    bool any = command_clean_name(in, out, sizeof out);
    if (strcmp(out, want) != 0 || any != (want[0] != '\0'))
        fail_msg("clean \"%s\": got \"%s\", want \"%s\"", in ? in : "(null)", out, want);
}

static void test_clean_names(void **state)
{
    (void)state;
    clean("Alice", "Alice");
    clean("  Alice   Smith \t", "Alice Smith");
    /* A name cannot start a new line of table text. */
    clean("eve\n[illegald] alice is the Pimp", "eve [illegald] alice is the Pimp");
    clean("eve\r\n\x1b[2Jbob", "eve [2Jbob");
    clean("a\xe2\x80\xa8"
          "b\xe2\x80\xa9"
          "c",
          "a b c"); /* U+2028, U+2029 */
    clean("a\xc2\x85"
          "b",
          "a b"); /* NEL, a C1 control */
    clean("\xe2\x80\xae"
          "evil",
          "evil"); /* right-to-left override */
    clean("x\x7fy", "x y");
    clean("Zo\xc3\xab \xf0\x9f\x8e\xb2", "Zo\xc3\xab \xf0\x9f\x8e\xb2"); /* UTF-8 stays */
    clean("bad\xff\xfe"
          "bytes\xc0\xaf",
          "badbytes"); /* not UTF-8, overlong */
    clean("\xed\xa0\x80"
          "x",
          "x"); /* a surrogate */
    clean("\n\t ", "");
    clean("", "");
    clean(NULL, "");
    /* Bounded: at most COMMAND_NAME_CHARS characters, cut at a character. */
    char longname[600], out[GAME_NAME_TEST_MAX];
    for (size_t i = 0; i + 2 < sizeof longname; i += 2)
        memcpy(longname + i, "\xc3\xa9", 2);
    longname[sizeof longname - 2] = '\0';
    assert_true(command_clean_name(longname, out, sizeof out));
    assert_int_equal(strlen(out), 2 * COMMAND_NAME_CHARS);
    char small[6];
    assert_true(command_clean_name(longname, small, sizeof small));
    assert_string_equal(small, "\xc3\xa9\xc3\xa9");
}

static void test_players_long_and_empty(void **state)
{
    (void)state;
    char text[1024];
    int index = -1;
    char choices[8];
    memset(text, 'a', sizeof text - 1);
    text[sizeof text - 1] = '\0';
    assert_int_equal(
        command_match_player(text, ids, names, NPLAYERS, &index, choices, sizeof choices),
        RESOLVE_UNKNOWN);
    /* The list of choices is cut short rather than overflowing. */
    assert_true(strlen(choices) < sizeof choices);
    assert_int_equal(command_match_player("bob", ids, names, 0, &index, choices, sizeof choices),
                     RESOLVE_UNKNOWN);
    assert_string_equal(choices, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_commands_without_arguments),
        cmocka_unit_test(test_table_commands_with_arguments),
        cmocka_unit_test(test_table_usage_errors),
        cmocka_unit_test(test_not_a_command_in_table),
        cmocka_unit_test(test_unknown_commands),
        cmocka_unit_test(test_dm_commands),
        cmocka_unit_test(test_dm_game_prefix),
        cmocka_unit_test(test_dm_usage_errors),
        cmocka_unit_test(test_usage_keys),
        cmocka_unit_test(test_offer_forms),
        cmocka_unit_test(test_overlong_arguments),
        cmocka_unit_test(test_huge_line),
        cmocka_unit_test(test_cards_counts_and_names),
        cmocka_unit_test(test_cards_nothing),
        cmocka_unit_test(test_cards_ambiguous),
        cmocka_unit_test(test_cards_unknown_and_not_in_play),
        cmocka_unit_test(test_cards_roles_not_tradable),
        cmocka_unit_test(test_cards_bad_counts),
        cmocka_unit_test(test_cards_long_input),
        cmocka_unit_test(test_parse_resource),
        cmocka_unit_test(test_players),
        cmocka_unit_test(test_players_matrix),
        cmocka_unit_test(test_players_long_and_empty),
        cmocka_unit_test(test_players_name_never_captures_id),
        cmocka_unit_test(test_clean_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
