/*
 * test_skim.c - the skimmer's cases, from skim_cases.txt: each gateway
 * message it may call ignorable, each it reads for the adapter, and each it
 * must leave to the full parse. Every case is also parsed properly, to check
 * the two agree (skim_check.h), and each message read is read by the Discord
 * adapter both from the skimmer's spans and from the full parse, to check
 * the bot gets the same input (read_check.h). The interaction skimmer's
 * cases, from ix_cases.txt, likewise: read or left, and read alike both ways.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/discord/discord.h"
#include "adapters/discord/skim_ix.h"
#include "bot/dispatcher.h"
#include "case_file.h"
#include "read_check.h"
#include "skim_check.h"
#include "tests/fuzz/fuzz_host.h"

static const char *cases_path, *ix_cases_path;

/* A case's line: "ignore SEQ FRAME", "message SEQ FRAME" or "parse FRAME";
 * false when it is none of them. */
static bool read_case(const char *line, enum gw_skim *want, int64_t *want_seq, const char **frame)
{
    static const struct {
        const char *word;
        enum gw_skim kind;
    } kinds[] = {
        {"ignore", GW_SKIM_IGNORE}, {"message", GW_SKIM_MESSAGE}, {"parse", GW_SKIM_PARSE}};
    for (size_t i = 0; i < sizeof(kinds) / sizeof(*kinds); i++) {
        size_t n = strlen(kinds[i].word);
        if (strncmp(line, kinds[i].word, n) != 0 || (line[n] != ' ' && line[n] != '\0'))
            continue;
        *want = kinds[i].kind;
        *want_seq = 0;
        *frame = line[n] ? line + n + 1 : line + n; /* "parse" alone: an empty message */
        if (*want != GW_SKIM_PARSE) {
            char *end;
            *want_seq = strtoll(*frame, &end, 10);
            *frame = *end ? end + 1 : end;
        }
        return true;
    }
    return false;
}

/* The Discord adapter the readers are checked with (read_check.h). */
static struct platform *adapter(struct fuzz_host *h)
{
    struct platform *p = read_check_adapter(h);
    assert_non_null(p);
    return p;
}

static void cases(void **state)
{
    static const char *const names[] = {"parsed", "ignored", "read"};
    (void)state;
    struct fuzz_host h;
    struct platform *p = adapter(&h);
    unsigned inputs = 0;
    FILE *f = fopen(cases_path, "r");
    assert_non_null(f);
    char line[4096];
    unsigned n = 0, counts[3] = {0};
    while (case_next(f, line, sizeof line)) {
        n++;
        enum gw_skim want = GW_SKIM_PARSE, got;
        int64_t want_seq = 0, seq = -1;
        const char *frame = "";
        if (!read_case(line, &want, &want_seq, &frame))
            fail_msg("line %u: neither ignore, message nor parse: %s", n, line);
        const char *why = skim_check(frame, strlen(frame), &got, &seq);
        if (why)
            fail_msg("case %u: %s: %s", n, why, frame);
        if (got != want)
            fail_msg("case %u: %s, not %s: %s", n, names[got], names[want], frame);
        if (want != GW_SKIM_PARSE)
            assert_int_equal(seq, want_seq);
        bool read;
        if ((why = read_check(p, frame, strlen(frame), &read)))
            fail_msg("case %u: the adapter's readers disagree: %s: %s", n, why, frame);
        inputs += read;
        /* the ignorable answer does not depend on a message being asked for */
        int64_t seq2;
        enum gw_skim alone = gw_skim(frame, strlen(frame), &seq2, NULL);
        assert_int_equal(alone, want == GW_SKIM_MESSAGE ? GW_SKIM_PARSE : want);
        counts[got]++;
    }
    fclose(f);
    fuzz_host_close(&h);
    assert_true(counts[GW_SKIM_IGNORE] > 5 && counts[GW_SKIM_MESSAGE] > 5 &&
                counts[GW_SKIM_PARSE] > 10);
    print_message("%u messages read, %u inputs\n", counts[GW_SKIM_MESSAGE], inputs);
    /* both readers both give inputs and refuse messages */
    assert_true(inputs > 5 && inputs + 5 < counts[GW_SKIM_MESSAGE]);
}

/* An interaction case's line: "read SEQ FRAME" (*read true) or "parse FRAME";
 * false when it is neither. */
static bool read_ix_case(const char *line, bool *read, int64_t *want_seq, const char **frame)
{
    char *end;
    *read = strncmp(line, "read ", 5) == 0;
    if (!*read)
        return strncmp(line, "parse ", 6) == 0 && (*frame = line + 6, true);
    *want_seq = strtoll(line + 5, &end, 10);
    *frame = *end ? end + 1 : end;
    return true;
}

/* The interaction skimmer's cases: each read must be read alike from its
 * spans and from the full parse, then goes through the adapter whole (the
 * shard's way: discord_gateway_input), as does each left to the parse. */
static void interactions(void **state)
{
    (void)state;
    struct fuzz_host h;
    struct platform *p = adapter(&h);
    FILE *f = fopen(ix_cases_path, "r");
    assert_non_null(f);
    char line[8192];
    unsigned n = 0, counts[2] = {0};
    while (case_next(f, line, sizeof line)) {
        n++;
        bool want, read;
        int64_t want_seq = 0, seq;
        const char *frame, *why;
        struct gw_interaction ix;
        if (!read_ix_case(line, &want, &want_seq, &frame))
            fail_msg("line %u: neither read nor parse: %s", n, line);
        if ((why = ix_read_check(p, frame, strlen(frame), &read)))
            fail_msg("case %u: the adapter's readers disagree: %s: %s", n, why, frame);
        if (read != want)
            fail_msg("case %u: %s, not %s: %s", n, read ? "read" : "parsed",
                     want ? "read" : "parsed", frame);
        if (read && (gw_skim_ix(frame, strlen(frame), &seq, &ix), seq != want_seq))
            fail_msg("case %u: sequence %lld, not %lld", n, (long long)seq, (long long)want_seq);
        discord_gateway_input(p, frame, strlen(frame));
        counts[read]++;
    }
    fclose(f);
    fuzz_host_close(&h);
    print_message("%u interactions read, %u parsed\n", counts[1], counts[0]);
    assert_true(counts[1] > 40 && counts[0] > 20);
}

int main(int argc, char **argv)
{
    cases_path = argc > 1 ? argv[1] : "skim_cases.txt";
    ix_cases_path = argc > 2 ? argv[2] : "ix_cases.txt";
    fuzz_host_setup("discord_skim");
    const struct CMUnitTest tests[] = {cmocka_unit_test(cases), cmocka_unit_test(interactions)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
