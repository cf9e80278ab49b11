/*
 * test_po.c - the PO reader on the cases in tests/catalog/cases/ (each file:
 * "expect: <result>", a line "---", then the PO text; the result is "ok N"
 * with N entries and, when one has plural forms, " plural K" with its form
 * count, or the reader's error), and the Plural-Forms formulas.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "bot/catalog/po.h"

static const char *cases_dir;

static void run_case(const char *path)
{
    char text[8192], why[256], got[300];
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    size_t n = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    text[n] = '\0';
    char *sep = strstr(text, "\n---\n");
    assert_non_null(sep);
    assert_memory_equal(text, "expect: ", 8);
    *sep = '\0';
    const char *want = text + 8, *po = sep + 5;
    struct po_file file;
    if (po_parse(po, n - (size_t)(po - text), &file, why, sizeof why) == 0) {
        int w = snprintf(got, sizeof got, "ok %zu", file.n);
        for (size_t i = 0; i < file.n; i++)
            if (file.entries[i].id_plural) {
                snprintf(got + w, sizeof got - (size_t)w, " plural %u", file.entries[i].nstr);
                break;
            }
    } else {
        snprintf(got, sizeof got, "%s", why);
        assert_int_equal(file.n, 0);
    }
    po_free(&file);
    if (strcmp(got, want) != 0)
        fail_msg("%s: got \"%s\", expected \"%s\"", path, got, want);
}

static void test_cases(void **state)
{
    (void)state;
    DIR *d = opendir(cases_dir);
    unsigned count = 0;
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d));) {
        size_t len = strlen(e->d_name);
        if (len < 5 || strcmp(e->d_name + len - 5, ".case") != 0)
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", cases_dir, e->d_name);
        run_case(path);
        count++;
    }
    closedir(d);
    assert_true(count >= 10);
}

static void test_header(void **state)
{
    (void)state;
    static const char text[] = "msgid \"\"\nmsgstr \"\"\n\"Language: fr\\n\"\n"
                               "\"Plural-Forms: nplurals=2; plural=(n > 1);\\n\"\n";
    struct po_file f;
    char why[128], v[64];
    assert_int_equal(po_parse(text, sizeof text - 1, &f, why, sizeof why), 0);
    assert_non_null(po_header(&f));
    assert_int_equal(po_header_field(&f, "Language", v, sizeof v), 0);
    assert_string_equal(v, "fr");
    assert_int_equal(po_header_field(&f, "Plural-Forms", v, sizeof v), 0);
    assert_string_equal(v, "nplurals=2; plural=(n > 1);");
    assert_int_equal(po_header_field(&f, "Lang", v, sizeof v), -1);
    po_free(&f);
}

static void test_plural_formulas(void **state)
{
    (void)state;
    static const struct {
        const char *forms, *c; /* c: the expression, or "!" + the error */
        unsigned n;
    } cases[] = {
        {"nplurals=2; plural=(n != 1);", "(((((((((((((((n))) != (((1UL)))))))))))))))", 2},
        {"nplurals=1; plural=0;", NULL, 1},
        {"nplurals=3; plural=n%10==1 && n%100!=11 ? 0 : n != 0 ? 1 : 2;", NULL, 3},
        {"nplurals=2; plural=n / 0;", "!Plural-Forms: a divisor must be a non-zero number", 0},
        {"nplurals=2; plural=n % m;", "!Plural-Forms: a divisor must be a non-zero number", 0},
        {"nplurals=2; plural=(n > 1;", "!Plural-Forms: a parenthesis is not closed", 0},
        {"nplurals=2; plural=n ? 1;", "!Plural-Forms: a ? without its :", 0},
        {"nplurals=2; plural=system(1);",
         "!Plural-Forms: n, a number or a parenthesis was expected", 0},
        {"nplurals=2; plural=n > 1; x", "!Plural-Forms: unexpected text in the formula", 0},
        {"nplurals=9; plural=n;", "!Plural-Forms needs nplurals=1..6 and plural=", 0},
        {"plural=n;", "!Plural-Forms needs nplurals=1..6 and plural=", 0},
        {"nplurals=2; "
         "plural=((((((((((((((((((((((((((((((((((n))))))))))))))))))))))))))))))))));",
         "!Plural-Forms: the formula nests too deeply", 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char out[1024], why[128];
        unsigned n = 0;
        int rc = po_plural_c(cases[i].forms, &n, out, sizeof out, why, sizeof why);
        if (cases[i].c && cases[i].c[0] == '!') {
            assert_int_equal(rc, -1);
            assert_string_equal(why, cases[i].c + 1);
        } else {
            if (rc != 0)
                fail_msg("%s: %s", cases[i].forms, why);
            assert_int_equal(n, cases[i].n);
            if (cases[i].c)
                assert_string_equal(out, cases[i].c);
        }
    }
}

int main(int argc, char **argv)
{
    cases_dir = argc > 1 ? argv[1] : "cases";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_header),
        cmocka_unit_test(test_plural_formulas),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
