/*
 * test_skim.c - the skimmer's cases, from skim_cases.txt: each gateway
 * message it may call ignorable, and each it must leave to the full parse.
 * Every "ignore" case is also parsed properly, to check the two agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "adapters/discord/gateway.h"
#include "adapters/discord/skim.h"
#include "core/json.h"

static const char *cases_path;

static void cases(void **state)
{
    (void)state;
    FILE *f = fopen(cases_path, "r");
    assert_non_null(f);
    char line[4096];
    unsigned n = 0, ignorable = 0;
    while (fgets(line, sizeof line, f)) {
        size_t len = strcspn(line, "\n");
        line[len] = '\0';
        if (!line[0] || line[0] == '#')
            continue;
        n++;
        int64_t seq = -1, want_seq = 0;
        const char *frame = NULL;
        bool want = false;
        if (strncmp(line, "ignore ", 7) == 0) {
            char *end;
            want = true;
            want_seq = strtoll(line + 7, &end, 10);
            frame = end + 1;
        } else if (strncmp(line, "parse", 5) == 0) {
            want = false;
            frame = line[5] ? line + 6 : line + 5;
        } else {
            fail_msg("line %u: neither ignore nor parse: %s", n, line);
            break;
        }
        bool got = gw_skim_ignorable(frame, strlen(frame), &seq);
        if (got != want)
            fail_msg("case %u: %s, not %s: %s", n, got ? "ignorable" : "parsed",
                     want ? "ignorable" : "parsed", frame);
        if (!want)
            continue;
        ignorable++;
        assert_int_equal(seq, want_seq);
        struct gw_payload p;
        struct json_object *o = gw_decode(frame, strlen(frame), &p);
        assert_non_null(o);
        assert_int_equal(p.seq, want_seq);
        assert_string_equal(p.type, "MESSAGE_CREATE");
        assert_non_null(jget_str(p.d, "guild_id"));
        json_object_put(o);
    }
    fclose(f);
    assert_true(n > 20 && ignorable > 5);
}

int main(int argc, char **argv)
{
    cases_path = argc > 1 ? argv[1] : "skim_cases.txt";
    const struct CMUnitTest tests[] = {cmocka_unit_test(cases)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
