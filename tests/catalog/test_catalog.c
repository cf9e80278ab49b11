/*
 * test_catalog.c - the compiled catalog: every language has every key with
 * the English text's placeholders, plural forms follow each language's rule,
 * platform language tags map to catalog codes, and numbers are written the
 * language's way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/catalog.h"
#include "core/catalog_data.h"
#include "core/text.h"

static int by_name(const void *a, const void *b)
{
    return strcmp(a, b);
}

/* The sorted {placeholder} names of s, as "a,b,". */
static void placeholders(const char *s, char *out, size_t len)
{
    char names[16][32];
    size_t n = 0, w = 0;
    for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
        size_t k = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789_-");
        if (k == 0 || k >= sizeof names[0] || p[1 + k] != '}' || n == 16)
            continue;
        snprintf(names[n], sizeof names[n], "%.*s", (int)k, p + 1);
        bool seen = false;
        for (size_t i = 0; i < n; i++)
            seen |= strcmp(names[i], names[n]) == 0;
        n += !seen;
    }
    qsort(names, n, sizeof names[0], by_name);
    out[0] = '\0';
    for (size_t i = 0; i < n; i++)
        w += (size_t)snprintf(out + w, len - w, "%s,", names[i]);
}

static const struct catalog_entry *find(const struct catalog_language *l, const char *key)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(catalog_entry_key(&l->entries[i]), key) == 0)
            return &l->entries[i];
    return NULL;
}

static void test_every_key_everywhere(void **state)
{
    (void)state;
    const struct catalog_language *en = &catalog_languages[0];
    assert_string_equal(en->code, "en");
    assert_true(catalog_nlanguages >= 7);
    for (size_t i = 1; i < en->n; i++) /* sorted, for bsearch */
        assert_true(
            strcmp(catalog_entry_key(&en->entries[i - 1]), catalog_entry_key(&en->entries[i])) < 0);
    for (size_t li = 1; li < catalog_nlanguages; li++) {
        const struct catalog_language *l = &catalog_languages[li];
        for (size_t k = 0; k < en->n; k++) {
            const struct catalog_entry *e = find(l, catalog_entry_key(&en->entries[k])),
                                       *t = &en->entries[k];
            char want[256], got[256];
            if (!e)
                fail_msg("%s lacks %s", l->code, catalog_entry_key(t));
            placeholders(catalog_entry_forms(en, t), want, sizeof want);
            const char *form = catalog_entry_forms(l, e);
            for (unsigned f = 0; f < e->nforms; f++, form += strlen(form) + 1) {
                placeholders(form, got, sizeof got);
                if (strcmp(want, got) != 0)
                    fail_msg("%s %s form %u: {%s} instead of {%s}", l->code, catalog_entry_key(t),
                             f, got, want);
            }
            assert_int_equal(e->nforms > 1, t->nforms > 1);
        }
        assert_int_equal(l->n, en->n); /* nothing beyond the template either */
    }
}

/* gen.c invariants 3, 5 and 6: each entry's key comes after the one before's
 * in catalog_keys; in a language, the forms of the keys read at start follow
 * one another, and so do the others'; the keys lie after every language's
 * entries and before the texts; every text read at start comes before every
 * other. */
static void test_offsets_tile_the_arrays(void **state)
{
    (void)state;
    const char *last_start = NULL, *first_other = NULL;
    for (size_t li = 0; li < catalog_nlanguages; li++) {
        const struct catalog_language *l = &catalog_languages[li];
        const char *key = catalog_keys, *next[2] = {NULL, NULL};
        for (size_t k = 0; k < l->n; k++) {
            const struct catalog_entry *e = &l->entries[k];
            const char *forms = catalog_entry_forms(l, e), *end = forms;
            bool start = catalog_key_read_at_start(catalog_entry_key(e));
            assert_true(catalog_entry_key(e) >= key);
            if (next[start])
                assert_ptr_equal(forms, next[start]);
            key = catalog_entry_key(e) + strlen(catalog_entry_key(e)) + 1;
            for (unsigned f = 0; f < e->nforms; f++)
                end += strlen(end) + 1;
            next[start] = end;
            if (start && (!last_start || forms > last_start))
                last_start = forms;
            if (!start && (!first_other || forms < first_other))
                first_other = forms;
        }
        assert_true((const char *)(l->entries + l->n) <= catalog_keys);
        assert_true(key <= l->texts);
    }
    assert_non_null(last_start);
    assert_non_null(first_other);
    assert_true(last_start < first_other);
}

static void test_plurals(void **state)
{
    (void)state;
    char out[256], n[8];
    const char *vars[] = {"number", "2", "count", n, "voters", "4", NULL};
    snprintf(n, sizeof n, "1");
    text_fill(out, sizeof out, "en", "illegal.msg.votes-cast", vars);
    assert_string_equal(out, "Case 2: 1 of 4 has voted.");
    snprintf(n, sizeof n, "3");
    text_fill(out, sizeof out, "en", "illegal.msg.votes-cast", vars);
    assert_string_equal(out, "Case 2: 3 of 4 have voted.");
    /* French counts 0 and 1 as singular; English says "0 ... have". */
    const char *fr0 = catalog_plural("fr", "illegal.msg.votes-cast", 0);
    assert_ptr_equal(fr0, catalog_plural("fr", "illegal.msg.votes-cast", 1));
    assert_ptr_not_equal(fr0, catalog_plural("fr", "illegal.msg.votes-cast", 2));
    assert_ptr_equal(catalog_plural("en", "illegal.msg.votes-cast", 0),
                     catalog_plural("en", "illegal.msg.votes-cast", 2));
    /* Without a count, or a count that is not a number: the first form. */
    const char *none[] = {"number", "2", "count", "many", NULL};
    text_fill(out, sizeof out, "en", "illegal.msg.votes-cast", none);
    assert_string_equal(out, "Case 2: many of {voters} has voted.");
    /* A key without plurals is the same whatever the count. */
    assert_ptr_equal(catalog_plural("de", "illegal.card.guns", 5),
                     catalog_text("de", "illegal.card.guns"));
}

/* Placeholders filled, unknown ones and a brace without its end left as they
 * are, and an answer cut at every size to the same text's start (a key with
 * no text is filled as its own text). */
static void test_fill_and_cut(void **state)
{
    (void)state;
    const char *key = "no.such.key {a}: {b}, {c} {unknown} {a}{";
    const char *whole = "no.such.key 1: two words,  {unknown} 1{";
    const char *vars[] = {"a", "1", "b", "two words", "c", NULL, NULL};
    char out[64];
    text_fill(out, sizeof out, "en", key, vars);
    assert_string_equal(out, whole);
    for (size_t len = 1; len <= strlen(whole) + 1; len++) {
        char cut[64];
        memset(cut, 'x', sizeof cut);
        text_fill(cut, len, "en", key, vars);
        assert_int_equal(strlen(cut), len - 1);
        assert_memory_equal(cut, whole, len - 1);
        assert_int_equal(cut[len], 'x'); /* nothing written past len */
    }
}

static void test_fallback(void **state)
{
    (void)state;
    assert_string_equal(catalog_text(NULL, "illegal.card.guns"), "Guns");
    assert_string_equal(catalog_text("xx", "illegal.card.guns"), "Guns");
    assert_string_not_equal(catalog_text("fr", "illegal.card.guns"), "Guns");
    assert_null(catalog_text("fr", "no.such-key"));
    assert_null(catalog_text("en", NULL));
    assert_true(catalog_has_language("hu"));
    assert_false(catalog_has_language("xx"));
    assert_false(catalog_has_language(NULL));
    assert_string_equal(catalog_language_at(0), "en");
    assert_null(catalog_language_at(catalog_nlanguages));
}

static void test_match(void **state)
{
    (void)state;
    static const struct {
        const char *tag, *code;
    } cases[] = {
        {"fr", "fr"},    {"pt-BR", "pt"},  {"es-419", "es"}, {"es-ES", "es"}, {"en-US", "en"},
        {"EN_gb", "en"}, {"de", "de"},     {"hu", "hu"},     {"nl", "nl"},    {"zh-CN", NULL},
        {"", NULL},      {"french", NULL}, {"f", NULL},      {"fr-", "fr"},   {"toolongtag", NULL},
        {"sv-SE", NULL}, {"-fr", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *got = catalog_match(cases[i].tag);
        if (cases[i].code ? !got || strcmp(got, cases[i].code) != 0 : got != NULL)
            fail_msg("%s: %s instead of %s", cases[i].tag, got ? got : "NULL",
                     cases[i].code ? cases[i].code : "NULL");
    }
    assert_null(catalog_match(NULL));
}

static void test_numbers(void **state)
{
    (void)state;
    char out[32];
    text_number(out, sizeof out, "en", 12345);
    assert_string_equal(out, "12,345");
    text_number(out, sizeof out, "de", 1234567);
    assert_string_equal(out, "1.234.567");
    text_number(out, sizeof out, "en", -1234);
    assert_string_equal(out, "-1,234");
    text_number(out, sizeof out, "fr", 999);
    assert_string_equal(out, "999");
    text_number(out, sizeof out, "hu", 0);
    assert_string_equal(out, "0");
    text_languages(out, sizeof out);
    assert_memory_equal(out, "en (English), ", 14);
}

/* A duration at the end of a sentence never doubles its period ("30 Sek.." once did in
 * German): no language's durations end with a period. */
static void test_durations_end_sentences(void **state)
{
    (void)state;
    static const int64_t ms[] = {30000, 60000, 90000, 3600000, 5400000, 86400000, 90000000};
    const char *lang;
    for (size_t l = 0; (lang = catalog_language_at(l)); l++) {
        for (size_t i = 0; i < sizeof ms / sizeof *ms; i++) {
            char d[64], text[512];
            text_duration(d, sizeof d, lang, ms[i]);
            const char *vars[] = {"number", "1", "count", "2", "cards", "x", "duration", d, NULL};
            assert_non_null(catalog_text(lang, "illegal.msg.case-opened"));
            text_fill(text, sizeof text, lang, "illegal.msg.case-opened", vars);
            if (strstr(text, ".."))
                fail_msg("%s: %s", lang, text);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key_everywhere),
        cmocka_unit_test(test_offsets_tile_the_arrays),
        cmocka_unit_test(test_plurals),
        cmocka_unit_test(test_fill_and_cut),
        cmocka_unit_test(test_fallback),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_durations_end_sentences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
