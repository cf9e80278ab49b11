/*
 * gen.c - the catalog generator, run at build time: turns the template and
 * the translations in core/catalog/ into the C tables core/catalog.c looks
 * words up in, and into one JSON file per language for the local table's
 * page.
 *
 *   catalog_gen c OUT.c TEMPLATE.pot [LANG.po ...]
 *   catalog_gen json OUT_DIR TEMPLATE.pot [LANG.po ...]
 *   catalog_gen check TEMPLATE.pot [LANG.po ...]
 *
 * A language's code is its file's name ("fr.po" is "fr") and must match the
 * file's Language header. A translation that is missing, empty, fuzzy, made
 * from another English text, or that does not keep the English text's
 * {placeholders} and plural shape is left out, so the English text shows
 * instead; the build says so on stderr, and --check fails on it (the test
 * suite runs check over every file).
 *
 * Invariants of the output:
 *   1. English comes first; the other languages follow in code order.
 *   2. Each language's entries are sorted by key (strcmp), for bsearch.
 *   3. An entry's forms are stored one after another, each ending in NUL,
 *      and number exactly the language's nplurals (1 for a non-plural key).
 *   4. Every language's JSON has every key of the template.
 *   5. The C tables hold offsets into one array of keys and one of texts
 *      per language, not pointers, so that loading the program relocates
 *      nothing in them and they stay in read-only pages.
 */
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "po.h"

#define LANGUAGES_MAX    32
#define FORMULA_MAX      1024
#define PLACEHOLDERS_MAX 16

struct language {
    char code[8];
    const char *path;
    struct po_file po;
    unsigned nplurals;
    char formula[FORMULA_MAX];
    const struct po_entry **found; /* per template key: the usable translation, or NULL */
};

static unsigned problems;
static bool verbose; /* every problem on its own line (check), or a count per file */

static void problem(const char *path, const struct po_entry *e, const char *key, const char *what)
{
    problems++;
    if (!verbose)
        return;
    if (e)
        fprintf(stderr, "%s:%u: %s: %s\n", path, e->line, key, what);
    else
        fprintf(stderr, "%s: %s: %s\n", path, key, what);
}

static int read_file(const char *path, struct po_file *po)
{
    char why[256];
    FILE *f = fopen(path, "rb");
    char *text = malloc(PO_FILE_MAX + 1);
    size_t n = 0;
    int rc = -1;
    if (!f || !text) {
        fprintf(stderr, "%s: %s\n", path, f ? "out of memory" : strerror(errno));
        goto fail;
    }
    n = fread(text, 1, PO_FILE_MAX + 1, f);
    if (ferror(f)) {
        fprintf(stderr, "%s: cannot read\n", path);
        goto fail;
    }
    if (po_parse(text, n, po, why, sizeof why) < 0) {
        fprintf(stderr, "%s: %s\n", path, why);
        goto fail;
    }
    rc = 0;
fail:
    if (f)
        fclose(f);
    free(text);
    return rc;
}

/* The sorted, distinct {placeholder} names of s, written as "a,b,c," into out. */
static void placeholders(const char *s, char *out, size_t len)
{
    const char *names[PLACEHOLDERS_MAX];
    size_t lens[PLACEHOLDERS_MAX], n = 0;
    for (const char *p = strchr(s, '{'); p; p = strchr(p + 1, '{')) {
        size_t k = strspn(p + 1, "abcdefghijklmnopqrstuvwxyz0123456789_-");
        if (k == 0 || p[1 + k] != '}')
            continue;
        bool seen = false;
        for (size_t i = 0; i < n; i++)
            seen |= lens[i] == k && memcmp(names[i], p + 1, k) == 0;
        if (!seen && n < PLACEHOLDERS_MAX) {
            names[n] = p + 1;
            lens[n++] = k;
        }
    }
    for (size_t i = 1; i < n; i++) /* insertion sort: a handful of names */
        for (size_t j = i; j > 0; j--) {
            size_t m = lens[j] < lens[j - 1] ? lens[j] : lens[j - 1];
            int c = memcmp(names[j - 1], names[j], m);
            if (c < 0 || (c == 0 && lens[j - 1] <= lens[j]))
                break;
            const char *t = names[j];
            size_t tl = lens[j];
            names[j] = names[j - 1], lens[j] = lens[j - 1];
            names[j - 1] = t, lens[j - 1] = tl;
        }
    size_t w = 0;
    out[0] = '\0';
    for (size_t i = 0; i < n && w < len; i++)
        w += (size_t)snprintf(out + w, len - w, "%.*s,", (int)lens[i], names[i]);
}

static int by_ctxt(const void *a, const void *b)
{
    const struct po_entry *x = *(const struct po_entry *const *)a;
    const struct po_entry *y = *(const struct po_entry *const *)b;
    return strcmp(x->ctxt, y->ctxt);
}

/* The template's keyed entries, sorted by key; fails on a key given twice. */
static const struct po_entry **template_keys(const struct po_file *t, const char *path, size_t *n)
{
    const struct po_entry **keys = calloc(t->n ? t->n : 1, sizeof *keys);
    *n = 0;
    if (!keys)
        return NULL;
    for (size_t i = 0; i < t->n; i++)
        if (t->entries[i].ctxt)
            keys[(*n)++] = &t->entries[i];
    qsort(keys, *n, sizeof *keys, by_ctxt);
    for (size_t i = 1; i < *n; i++)
        if (strcmp(keys[i - 1]->ctxt, keys[i]->ctxt) == 0) {
            fprintf(stderr, "%s:%u: key %s is defined twice\n", path, keys[i]->line, keys[i]->ctxt);
            free(keys);
            return NULL;
        }
    return keys;
}

static int language_header(struct language *l, const char *path)
{
    char forms[512], why[256], lang[16];
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    size_t n = strcspn(base, ".");
    if (n < 2 || n > 3 || strcmp(base + n, ".po") != 0 ||
        strspn(base, "abcdefghijklmnopqrstuvwxyz") < n) {
        fprintf(stderr, "%s: a translation is named <code>.po, with a 2- or 3-letter code\n", path);
        return -1;
    }
    snprintf(l->code, sizeof l->code, "%.*s", (int)n, base);
    if (po_header_field(&l->po, "Language", lang, sizeof lang) < 0 || strcmp(lang, l->code) != 0) {
        fprintf(stderr, "%s: the header's Language must be \"%s\"\n", path, l->code);
        return -1;
    }
    if (po_header_field(&l->po, "Plural-Forms", forms, sizeof forms) < 0 ||
        po_plural_c(forms, &l->nplurals, l->formula, sizeof l->formula, why, sizeof why) < 0) {
        fprintf(stderr, "%s: %s\n", path,
                po_header_field(&l->po, "Plural-Forms", forms, sizeof forms) < 0
                    ? "the header has no Plural-Forms"
                    : why);
        return -1;
    }
    return 0;
}

/* Fills l->found: for each template key, the translation that may be used. */
static int match(struct language *l, const struct po_entry **keys, size_t nkeys)
{
    size_t nidx = 0;
    const struct po_entry **idx = calloc(l->po.n ? l->po.n : 1, sizeof *idx);
    l->found = calloc(nkeys ? nkeys : 1, sizeof *l->found);
    if (!idx || !l->found) {
        free(idx);
        return -1;
    }
    for (size_t i = 0; i < l->po.n; i++)
        if (l->po.entries[i].ctxt)
            idx[nidx++] = &l->po.entries[i];
    qsort(idx, nidx, sizeof *idx, by_ctxt);
    for (size_t i = 0; i < nidx; i++) {
        const struct po_entry *const *k = bsearch(&idx[i], keys, nkeys, sizeof *keys, by_ctxt);
        if (!k)
            problem(l->path, idx[i], idx[i]->ctxt, "not a key of the template");
        else if (i > 0 && strcmp(idx[i - 1]->ctxt, idx[i]->ctxt) == 0)
            problem(l->path, idx[i], idx[i]->ctxt, "translated twice");
    }
    unsigned before = problems;
    for (size_t k = 0; k < nkeys; k++) {
        const struct po_entry *t = keys[k];
        const struct po_entry *const *hit = bsearch(&t, idx, nidx, sizeof *idx, by_ctxt);
        const struct po_entry *e = hit ? *hit : NULL;
        char want[512], got[512];
        const char *why = NULL;
        placeholders(t->id, want, sizeof want);
        if (!e)
            why = "missing";
        else if (strcmp(e->id, t->id) != 0 ||
                 (t->id_plural ? !e->id_plural || strcmp(e->id_plural, t->id_plural) != 0
                               : e->id_plural != NULL))
            why = "translated from another English text (update it from the template)";
        else if (e->fuzzy)
            why = "marked fuzzy";
        else if (t->id_plural && e->nstr != l->nplurals)
            why = "the number of plural forms differs from the header's nplurals";
        for (unsigned f = 0; !why && f < e->nstr; f++) {
            placeholders(e->str[f], got, sizeof got);
            if (!e->str[f][0])
                why = "not translated";
            else if (strcmp(got, want) != 0)
                why = "its {placeholders} differ from the English text's";
        }
        if (why)
            problem(l->path, e, t->ctxt, why);
        else
            l->found[k] = e;
    }
    if (!verbose && problems > before)
        fprintf(stderr,
                "%s: %u texts missing or unusable, shown in English "
                "(\"catalog_gen check\" lists them)\n",
                l->path, problems - before);
    free(idx);
    return 0;
}

static void c_string(FILE *out, const char *s, size_t n)
{
    fputc('"', out);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7F && c != '"' && c != '\\' && c != '?')
            fputc(c, out);
        else
            fprintf(out, "\\%03o", c);
    }
    fputc('"', out);
}

/* An entry's forms: how many, and each one's text. */
static unsigned entry_forms(const struct language *l, const struct po_entry *e,
                            const char *forms[PO_FORMS_MAX])
{
    if (!l->found) {
        forms[0] = e->id;
        forms[1] = e->id_plural;
        return e->id_plural ? 2 : 1;
    }
    for (unsigned f = 0; f < e->nstr; f++)
        forms[f] = e->str[f];
    return e->nstr;
}

/* One string literal per line, each text ending in NUL: a table of offsets
 * into it needs no relocation when the program is loaded (invariant 5). */
static void c_pool_line(FILE *out, const char *s)
{
    fputs("    ", out);
    c_string(out, s, strlen(s) + 1);
    fputc('\n', out);
}

/* Every key once, in the template's (sorted) order (invariant 2). */
static void c_keys(FILE *out, const struct po_entry **keys, size_t nkeys)
{
    fputs("const char catalog_keys[] =\n", out);
    for (size_t k = 0; k < nkeys; k++)
        c_pool_line(out, keys[k]->ctxt);
    fputs("    \"\";\n\n", out);
}

static void c_language(FILE *out, const struct language *l, const struct po_entry **keys,
                       size_t nkeys)
{
    fprintf(out,
            "static unsigned long plural_%s(unsigned long n)\n{\n    (void)n;\n"
            "    return (unsigned long)%s;\n}\n\n",
            l->code, l->formula);
    fprintf(out, "static const char texts_%s[] =\n", l->code);
    for (size_t k = 0; k < nkeys; k++) {
        const struct po_entry *e = l->found ? l->found[k] : keys[k];
        const char *forms[PO_FORMS_MAX];
        for (unsigned f = 0, n = e ? entry_forms(l, e, forms) : 0; f < n; f++)
            c_pool_line(out, forms[f]);
    }
    fputs("    \"\";\n\n", out);
    fprintf(out, "static const struct catalog_entry entries_%s[] = {\n", l->code);
    size_t key_at = 0, text_at = 0;
    for (size_t k = 0; k < nkeys; k++) {
        const struct po_entry *e = l->found ? l->found[k] : keys[k];
        const char *forms[PO_FORMS_MAX];
        if (e) {
            unsigned n = entry_forms(l, e, forms);
            fprintf(out, "    {%zu, %zu, %u},\n", key_at, text_at, n); /* invariant 3 */
            for (unsigned f = 0; f < n; f++)
                text_at += strlen(forms[f]) + 1;
        }
        key_at += strlen(keys[k]->ctxt) + 1;
    }
    fputs("};\n\n", out);
}

static int write_c(const char *path, struct language *langs, size_t nlangs,
                   const struct po_entry **keys, size_t nkeys)
{
    char tmp[4096];
    int n = snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *out = n < 0 || (size_t)n >= sizeof tmp ? NULL : fopen(tmp, "w");
    if (!out) {
        fprintf(stderr, "%s: %s\n", tmp, strerror(errno));
        return -1;
    }
    fputs("/* Generated by bot/catalog/gen.c from core/catalog/; do not edit. */\n"
          "#include \"core/catalog_data.h\"\n\n",
          out);
    c_keys(out, keys, nkeys);
    for (size_t i = 0; i < nlangs; i++)
        c_language(out, &langs[i], keys, nkeys);
    fputs("const struct catalog_language catalog_languages[] = {\n", out);
    for (size_t i = 0; i < nlangs; i++)
        fprintf(out,
                "    {\"%s\", texts_%s, entries_%s, sizeof entries_%s / sizeof entries_%s[0], "
                "plural_%s},\n",
                langs[i].code, langs[i].code, langs[i].code, langs[i].code, langs[i].code,
                langs[i].code);
    fputs("};\nconst size_t catalog_nlanguages = sizeof catalog_languages / sizeof "
          "catalog_languages[0];\n",
          out);
    if (fclose(out) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "%s: cannot write\n", path);
        return -1;
    }
    return 0;
}

/* Template entry t as the page reads it: its translation e (English when
 * NULL), a string, or an array of the plural forms. */
static struct json_object *json_text(const struct po_entry *t, const struct po_entry *e)
{
    if (!t->id_plural)
        return json_object_new_string(e ? e->str[0] : t->id);
    struct json_object *a = json_object_new_array();
    if (e)
        for (unsigned f = 0; f < e->nstr; f++)
            json_object_array_add(a, json_object_new_string(e->str[f]));
    else {
        json_object_array_add(a, json_object_new_string(t->id));
        json_object_array_add(a, json_object_new_string(t->id_plural));
    }
    return a;
}

static const char *language_name(const struct language *l, const struct po_entry **keys,
                                 size_t nkeys)
{
    for (size_t k = 0; k < nkeys; k++)
        if (strcmp(keys[k]->ctxt, "language.name") == 0)
            return l->found && l->found[k] ? l->found[k]->str[0] : keys[k]->id;
    return l->code;
}

static int write_json(const char *dir, struct language *langs, size_t nlangs,
                      const struct po_entry **keys, size_t nkeys)
{
    int rc = 0;
    for (size_t i = 0; i < nlangs && rc == 0; i++) {
        const struct language *l = &langs[i];
        struct json_object *o = json_object_new_object(), *list = json_object_new_array(),
                           *texts = json_object_new_object();
        json_object_object_add(o, "lang", json_object_new_string(l->code));
        json_object_object_add(o, "name", json_object_new_string(language_name(l, keys, nkeys)));
        for (size_t j = 0; j < nlangs; j++) {
            struct json_object *x = json_object_new_object();
            json_object_object_add(x, "code", json_object_new_string(langs[j].code));
            json_object_object_add(x, "name",
                                   json_object_new_string(language_name(&langs[j], keys, nkeys)));
            json_object_array_add(list, x);
        }
        json_object_object_add(o, "languages", list);
        for (size_t k = 0; k < nkeys; k++) /* invariant 4 */
            json_object_object_add(texts, keys[k]->ctxt,
                                   json_text(keys[k], l->found ? l->found[k] : NULL));
        json_object_object_add(o, "texts", texts);
        char path[4096], tmp[4096];
        int n = snprintf(path, sizeof path, "%s/%s.json", dir, l->code);
        int m = snprintf(tmp, sizeof tmp, "%s/%s.json.tmp", dir, l->code);
        const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                              JSON_C_TO_STRING_NOSLASHESCAPE);
        FILE *out = n < 0 || m < 0 || (size_t)m >= sizeof tmp ? NULL : fopen(tmp, "w");
        if (!out || fputs(s, out) == EOF || fclose(out) != 0 || rename(tmp, path) != 0) {
            fprintf(stderr, "%s: cannot write\n", path);
            rc = -1;
        }
        json_object_put(o);
    }
    return rc;
}

static int by_code(const void *a, const void *b)
{
    return strcmp(((const struct language *)a)->code, ((const struct language *)b)->code);
}

int main(int argc, char **argv)
{
    static struct language langs[LANGUAGES_MAX];
    size_t nlangs = 1, nkeys = 0;
    const struct po_entry **keys = NULL;
    int rc = 1;
    const char *mode = argc > 1 ? argv[1] : "";
    bool check = strcmp(mode, "check") == 0;
    int first = check ? 3 : 4; /* the first translation's argument */
    verbose = check;
    if ((!check && strcmp(mode, "c") != 0 && strcmp(mode, "json") != 0) || argc < first ||
        argc - first + 1 > LANGUAGES_MAX) {
        fprintf(stderr, "usage: catalog_gen c OUT.c TEMPLATE.pot [LANG.po ...]\n"
                        "       catalog_gen json OUT_DIR TEMPLATE.pot [LANG.po ...]\n"
                        "       catalog_gen check TEMPLATE.pot [LANG.po ...]\n");
        return 2;
    }
    const char *template_path = argv[first - 1];
    struct language *en = &langs[0];
    snprintf(en->code, sizeof en->code, "en");
    en->path = template_path;
    if (read_file(template_path, &en->po) < 0 ||
        po_plural_c("nplurals=2; plural=(n != 1);", &en->nplurals, en->formula, sizeof en->formula,
                    (char[64]){0}, 64) < 0 ||
        !(keys = template_keys(&en->po, template_path, &nkeys)))
        goto fail;
    for (int i = first; i < argc; i++) {
        struct language *l = &langs[nlangs++];
        l->path = argv[i];
        if (read_file(argv[i], &l->po) < 0 || language_header(l, argv[i]) < 0 ||
            match(l, keys, nkeys) < 0)
            goto fail;
        for (size_t j = 0; j + 1 < nlangs; j++)
            if (strcmp(langs[j].code, l->code) == 0) {
                fprintf(stderr, "%s: language %s given twice\n", argv[i], l->code);
                goto fail;
            }
    }
    qsort(langs + 1, nlangs - 1, sizeof *langs, by_code); /* invariant 1 */
    if (check) {
        if (problems)
            fprintf(stderr, "catalog: %u problems\n", problems);
        rc = problems ? 1 : 0;
    } else if (mode[0] == 'c') {
        rc = write_c(argv[2], langs, nlangs, keys, nkeys) < 0;
    } else {
        rc = write_json(argv[2], langs, nlangs, keys, nkeys) < 0;
    }
fail:
    for (size_t i = 0; i < nlangs; i++) {
        po_free(&langs[i].po);
        free(langs[i].found);
    }
    free(keys);
    return rc;
}
