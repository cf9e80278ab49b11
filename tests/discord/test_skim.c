/*
 * test_skim.c - the skimmer's cases, from skim_cases.txt: each gateway
 * message it may call ignorable, each it reads for the adapter, and each it
 * must leave to the full parse. Every case is also parsed properly, to check
 * the two agree (skim_check.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "case_file.h"
#include "skim_check.h"

static const char *cases_path;

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

static void cases(void **state)
{
    static const char *const names[] = {"parsed", "ignored", "read"};
    (void)state;
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
        /* the ignorable answer does not depend on a message being asked for */
        int64_t seq2;
        enum gw_skim alone = gw_skim(frame, strlen(frame), &seq2, NULL);
        assert_int_equal(alone, want == GW_SKIM_MESSAGE ? GW_SKIM_PARSE : want);
        counts[got]++;
    }
    fclose(f);
    assert_true(counts[GW_SKIM_IGNORE] > 5 && counts[GW_SKIM_MESSAGE] > 5 &&
                counts[GW_SKIM_PARSE] > 10);
}

int main(int argc, char **argv)
{
    cases_path = argc > 1 ? argv[1] : "skim_cases.txt";
    const struct CMUnitTest tests[] = {cmocka_unit_test(cases)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
