/*
 * test_answer.c - reading a created message's id from Discord's answer
 * (adapters/discord/answer.h), from answer_cases.txt: "ID BODY", ID the id
 * the reader must find, or "-" where it must give up (json-c reads those).
 * Every case is also held to json-c's parse (answer_check.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "answer_check.h"
#include "case_file.h"

static const char *cases_path;

static void cases(void **state)
{
    (void)state;
    FILE *f = fopen(cases_path, "r");
    assert_non_null(f);
    static char line[1 << 16];
    unsigned n = 0, read = 0;
    while (case_next(f, line, sizeof line)) {
        char *body = strchr(line, ' ');
        assert_non_null(body);
        *body++ = '\0';
        char id[24];
        if (!answer_check(body, id))
            fail_msg("%s: read %s, where json-c reads otherwise", body, id);
        const char *want = strcmp(line, "-") == 0 ? "" : line;
        if (strcmp(id, want) != 0)
            fail_msg("%s:\n  got  \"%s\"\n  want \"%s\"", body, id, want);
        read += id[0] != '\0';
        n++;
    }
    fclose(f);
    printf("%u cases, %u read\n", n, read);
    assert_true(n > 20 && read > 5);
}

int main(int argc, char **argv)
{
    cases_path = argc > 1 ? argv[1] : "answer_cases.txt";
    const struct CMUnitTest tests[] = {cmocka_unit_test(cases)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
