/*
 * gen.c - the catalog generator, run at build time: turns the templates and
 * the translations of the bot (core/catalog/) and of each rules module
 * (core/<module>/catalog/) into the C tables core/catalog.c looks words up
 * in, and into one JSON file per language for the local table's page.
 *
 *   catalog_gen c OUT.c FOLDER [ID=FOLDER ...]
 *   catalog_gen json OUT_DIR FOLDER [ID=FOLDER ...]
 *   catalog_gen check FOLDER [ID=FOLDER ...]
 *
 * A folder holds one template (*.pot) and a <code>.po per language. The
 * first is the bot's, whose keys are compiled as written; each ID=FOLDER is a
 * module's, whose keys are compiled under its id ("card.guns" in
 * illegal=core/illegal/catalog is "illegal.card.guns"), so two games may
 * both name a card "Guns". A module may only have languages the bot has, with
 * the same plural forms. A language's code is its file's name ("fr.po" is
 * "fr") and must match the file's Language header. A translation that is missing, empty, fuzzy,
 * made from another English text, or that does not keep the English text's {placeholders} and
 * plural shape is left out, so the English text shows instead; the build says so on stderr, and
 * --check fails on it (the test suite runs check over every file).
 *
 * Invariants of the output:
 *   1. English comes first; the other languages follow in code order.
 *   2. Each language's entries are sorted by key (strcmp), for bsearch.
 *   3. An entry's forms are stored one after another, each ending in NUL,
 *      and number exactly the language's nplurals (1 for a non-plural key).
 *   4. Every language's JSON has every key of the template.
 *   5. The C tables hold offsets into one array of keys and one of texts,
 *      not pointers, so that loading the program relocates nothing in them
 *      and they stay in read-only pages.
 *   6. Every language's entries come first, then the keys (which every
 *      lookup's bsearch reads), then the texts: those of the keys every start
 *      reads (catalog_key_read_at_start) in every language, then each
 *      language's others, each part in key order. A start so maps the
 *      entries, the keys, the words it registers and its own language's
 *      texts in one run, not every language's whole table (the kernel maps a
 *      touched page's neighbours with it).
 *   7. The tables are in a section of their own (CATALOG_SECTION), which the
 *      linker puts after every file's literals: the part a start reads
 *      begins where the literals end, and the languages it does not read
 *      end the read-only data, not sit between the literals of the files
 *      linked before the catalog and after it.
 */
#include <dirent.h>
#include <errno.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/catalog_data.h"
#include "po.h"

#define CATALOG_SECTION  "illegald_catalog" /* invariant 7 */
#define LANGUAGES_MAX    32
#define FORMULA_MAX      1024
#define PLACEHOLDERS_MAX 16
#define SOURCES_MAX      16

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
        fprintf(stderr, "%s:%u: %s: %s\n", e->file ? e->file : path, e->line, key, what);
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
            fprintf(stderr, "%s:%u: key %s is defined twice\n",
                    keys[i]->file ? keys[i]->file : path, keys[i]->line, keys[i]->ctxt);
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

/* Every key once, in the template's (sorted) order (invariant 2), as the
 * member of the tables' initializer (invariant 6). */
static void c_keys(FILE *out, const struct po_entry **keys, size_t nkeys)
{
    for (size_t k = 0; k < nkeys; k++)
        c_pool_line(out, keys[k]->ctxt);
    fputs("    \"\",\n", out);
}

/* The bytes of every key with its NUL. */
static size_t keys_size(const struct po_entry **keys, size_t nkeys)
{
    size_t size = 0;
    for (size_t k = 0; k < nkeys; k++)
        size += strlen(keys[k]->ctxt) + 1;
    return size;
}

static void c_plural(FILE *out, const struct language *l)
{
    fprintf(out,
            "static unsigned long plural_%s(unsigned long n)\n{\n    (void)n;\n"
            "    return (unsigned long)%s;\n}\n\n",
            l->code, l->formula);
}

/* Lays out (and writes, when out is not NULL) the texts of l's keys that are
 * read at start, or of the others, in key order (invariant 6): each entry's
 * offset goes in at[k], the bytes so far in *size. */
static void c_texts(FILE *out, const struct language *l, const struct po_entry **keys, size_t nkeys,
                    bool read_at_start, size_t *at, size_t *size)
{
    for (size_t k = 0; k < nkeys; k++) {
        const struct po_entry *e = l->found ? l->found[k] : keys[k];
        const char *forms[PO_FORMS_MAX];
        if (!e || catalog_key_read_at_start(keys[k]->ctxt) != read_at_start)
            continue;
        at[k] = *size;
        for (unsigned f = 0, n = entry_forms(l, e, forms); f < n; f++) {
            if (out)
                c_pool_line(out, forms[f]);
            *size += strlen(forms[f]) + 1;
        }
    }
}

/* Every language's texts in one array: first the keys a start reads, of
 * every language, then each language's others (invariant 6). Writes it when
 * out is not NULL; at[l * nkeys + k] is the offset of key k in language l. */
static size_t c_all_texts(FILE *out, const struct language *langs, size_t nlangs,
                          const struct po_entry **keys, size_t nkeys, size_t *at)
{
    size_t size = 0;
    for (int read_at_start = 1; read_at_start >= 0; read_at_start--)
        for (size_t i = 0; i < nlangs; i++)
            c_texts(out, &langs[i], keys, nkeys, read_at_start, at + i * nkeys, &size);
    return size;
}

/* l's entries, as the member of the tables' initializer; returns their count. */
static size_t c_entries(FILE *out, const struct language *l, const struct po_entry **keys,
                        size_t nkeys, const size_t *at)
{
    size_t key_at = 0, n = 0;
    fputs("    {\n", out);
    for (size_t k = 0; k < nkeys; k++) {
        const struct po_entry *e = l->found ? l->found[k] : keys[k];
        const char *forms[PO_FORMS_MAX];
        if (e) { /* invariant 3 */
            fprintf(out, "        {%zu, %zu, %u},\n", key_at, at[k], entry_forms(l, e, forms));
            n++;
        }
        key_at += strlen(keys[k]->ctxt) + 1;
    }
    if (!n) /* a member of one entry that no language's count includes */
        fputs("        {0, 0, 1},\n", out);
    fputs("    },\n", out);
    return n;
}

/* The number of entries of l. */
static size_t entry_count(const struct language *l, const struct po_entry **keys, size_t nkeys)
{
    size_t n = 0;
    for (size_t k = 0; k < nkeys; k++)
        n += (l->found ? l->found[k] : keys[k]) != NULL;
    return n;
}

/* One object holds every language's entries, then the keys, then the texts,
 * so that the order in memory is the generator's, not the compiler's
 * (invariant 6). */
static int c_tables(FILE *out, const struct language *langs, size_t nlangs,
                    const struct po_entry **keys, size_t nkeys)
{
    size_t *at = calloc(nlangs * nkeys + 1, sizeof *at);
    if (!at) {
        fprintf(stderr, "out of memory\n");
        return -1;
    }
    size_t size = c_all_texts(NULL, langs, nlangs, keys, nkeys, at);
    if (size >= CATALOG_TEXTS_MAX) {
        fprintf(stderr, "over %u bytes of texts\n", CATALOG_TEXTS_MAX);
        free(at);
        return -1;
    }
    fputs("static const struct {\n", out);
    for (size_t i = 0; i < nlangs; i++) {
        size_t n = entry_count(&langs[i], keys, nkeys);
        fprintf(out, "    struct catalog_entry %s[%zu];\n", langs[i].code, n ? n : 1);
    }
    fprintf(out, "    char keys[%zu];\n", keys_size(keys, nkeys) + 1);
    fprintf(out, "    char texts[%zu];\n} tables __attribute__((section(\"%s\"))) = {\n", size + 1,
            CATALOG_SECTION);
    for (size_t i = 0; i < nlangs; i++)
        c_entries(out, &langs[i], keys, nkeys, at + i * nkeys);
    c_keys(out, keys, nkeys);
    c_all_texts(out, langs, nlangs, keys, nkeys, at);
    fputs("    \"\"};\n\n", out);
    free(at);
    return 0;
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
    fputs("/* Generated by bot/catalog/gen.c from the catalog's folders; do not edit. */\n"
          "#include \"core/catalog_data.h\"\n\n",
          out);
    for (size_t i = 0; i < nlangs; i++)
        c_plural(out, &langs[i]);
    if (c_tables(out, langs, nlangs, keys, nkeys) < 0) {
        fclose(out);
        remove(tmp);
        return -1;
    }
    fputs("const char *const catalog_keys = tables.keys;\n", out);
    fputs("const struct catalog_language catalog_languages[] = {\n", out);
    for (size_t i = 0; i < nlangs; i++)
        fprintf(out, "    {\"%s\", tables.texts, tables.%s, %zu, plural_%s},\n", langs[i].code,
                langs[i].code, entry_count(&langs[i], keys, nkeys), langs[i].code);
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

/* A folder of the catalog: the bot's (id "") or a module's, and the paths of
 * its template and translations (owned, freed by source_free). */
struct source {
    char id[32];
    char *pot;
    char *po[LANGUAGES_MAX - 1];
    size_t npo;
};

static int by_path(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Finds the template and the translations in arg's folder: "FOLDER" for the
 * bot's, "ID=FOLDER" for a module's. */
static int source_open(struct source *s, const char *arg, bool module)
{
    const char *dir = arg, *eq = strchr(arg, '=');
    if (module) {
        if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof s->id) {
            fprintf(stderr, "%s: a module's catalog is given as ID=FOLDER\n", arg);
            return -1;
        }
        snprintf(s->id, sizeof s->id, "%.*s", (int)(eq - arg), arg);
        dir = eq + 1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "%s: %s\n", dir, strerror(errno));
        return -1;
    }
    int rc = 0;
    for (struct dirent *ent; rc == 0 && (ent = readdir(d));) {
        size_t n = strlen(ent->d_name);
        bool pot = n > 4 && strcmp(ent->d_name + n - 4, ".pot") == 0;
        bool po = n > 3 && strcmp(ent->d_name + n - 3, ".po") == 0;
        char *path = pot || po ? malloc(strlen(dir) + n + 2) : NULL;
        if (!pot && !po)
            continue;
        if (!path || (pot && s->pot) || (po && s->npo == sizeof s->po / sizeof *s->po)) {
            fprintf(stderr, "%s: %s\n", dir,
                    !path ? "out of memory"
                    : pot ? "two templates"
                          : "too many languages");
            free(path);
            rc = -1;
            break;
        }
        snprintf(path, strlen(dir) + n + 2, "%s/%s", dir, ent->d_name);
        if (pot)
            s->pot = path;
        else
            s->po[s->npo++] = path;
    }
    closedir(d);
    if (rc == 0 && !s->pot) {
        fprintf(stderr, "%s: no template (*.pot)\n", dir);
        rc = -1;
    }
    qsort(s->po, s->npo, sizeof *s->po, by_path);
    return rc;
}

static void source_free(struct source *s)
{
    free(s->pot);
    for (size_t i = 0; i < s->npo; i++)
        free(s->po[i]);
}

/* Moves the keyed entries of `from` (read from path) to the end of `to`,
 * each key under the prefix id ("illegal" and "card.guns": "illegal.card.guns"). */
static int merge(struct po_file *to, struct po_file *from, const char *id, const char *path)
{
    struct po_entry *grown = realloc(to->entries, (to->n + from->n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    to->entries = grown;
    for (size_t i = 0; i < from->n; i++) {
        struct po_entry *e = &from->entries[i];
        if (!e->ctxt)
            continue;
        size_t n = strlen(id) + strlen(e->ctxt) + 2;
        char *key = malloc(n);
        if (!key)
            return -1;
        snprintf(key, n, "%s.%s", id, e->ctxt);
        free(e->ctxt);
        e->ctxt = key;
        e->file = path;
        to->entries[to->n++] = *e;
        memset(e, 0, sizeof *e);
    }
    return 0;
}

/* Reads the bot's template into langs[0] and its translations after it. */
static int read_bot(struct language *langs, size_t *nlangs, const struct source *s)
{
    struct language *en = &langs[0];
    snprintf(en->code, sizeof en->code, "en");
    en->path = s->pot;
    if (read_file(s->pot, &en->po) < 0 ||
        po_plural_c("nplurals=2; plural=(n != 1);", &en->nplurals, en->formula, sizeof en->formula,
                    (char[64]){0}, 64) < 0)
        return -1;
    for (size_t i = 0; i < s->npo; i++) {
        struct language *l = &langs[(*nlangs)++];
        l->path = s->po[i];
        if (read_file(l->path, &l->po) < 0 || language_header(l, l->path) < 0)
            return -1;
        for (size_t j = 0; j + 1 < *nlangs; j++)
            if (strcmp(langs[j].code, l->code) == 0) {
                fprintf(stderr, "%s: language %s given twice\n", l->path, l->code);
                return -1;
            }
    }
    return 0;
}

/* Adds one translation of a module (path) to the bot's language of its code. */
static int read_module_language(struct language *langs, size_t nlangs, const char *path,
                                const char *id)
{
    struct language m = {.path = path};
    struct language *l = NULL;
    int rc = -1;
    if (read_file(path, &m.po) < 0 || language_header(&m, path) < 0)
        goto fail;
    for (size_t i = 1; i < nlangs; i++)
        if (strcmp(langs[i].code, m.code) == 0)
            l = &langs[i];
    if (!l)
        fprintf(stderr, "%s: the bot's catalog has no language %s\n", path, m.code);
    else if (l->nplurals != m.nplurals || strcmp(l->formula, m.formula) != 0)
        fprintf(stderr, "%s: its Plural-Forms differ from %s's\n", path, l->path);
    else
        rc = merge(&l->po, &m.po, id, path);
fail:
    po_free(&m.po);
    return rc;
}

/* Adds a module's template and translations to the bot's, under its id. */
static int read_module(struct language *langs, size_t nlangs, const struct source *s)
{
    struct po_file t = {0};
    int rc = read_file(s->pot, &t) < 0 ? -1 : merge(&langs[0].po, &t, s->id, s->pot);
    po_free(&t);
    for (size_t i = 0; rc == 0 && i < s->npo; i++)
        rc = read_module_language(langs, nlangs, s->po[i], s->id);
    return rc;
}

int main(int argc, char **argv)
{
    static struct language langs[LANGUAGES_MAX];
    static struct source sources[SOURCES_MAX];
    size_t nlangs = 1, nkeys = 0, nsources = 0;
    const struct po_entry **keys = NULL;
    int rc = 1;
    const char *mode = argc > 1 ? argv[1] : "";
    bool check = strcmp(mode, "check") == 0;
    int first = check ? 2 : 3; /* the bot's folder's argument */
    verbose = check;
    if ((!check && strcmp(mode, "c") != 0 && strcmp(mode, "json") != 0) || argc <= first ||
        argc - first > SOURCES_MAX) {
        fprintf(stderr, "usage: catalog_gen c OUT.c FOLDER [ID=FOLDER ...]\n"
                        "       catalog_gen json OUT_DIR FOLDER [ID=FOLDER ...]\n"
                        "       catalog_gen check FOLDER [ID=FOLDER ...]\n");
        return 2;
    }
    for (int i = first; i < argc; i++)
        if (source_open(&sources[nsources++], argv[i], i > first) < 0)
            goto fail;
    if (read_bot(langs, &nlangs, &sources[0]) < 0)
        goto fail;
    for (size_t i = 1; i < nsources; i++)
        if (read_module(langs, nlangs, &sources[i]) < 0)
            goto fail;
    if (!(keys = template_keys(&langs[0].po, langs[0].path, &nkeys)))
        goto fail;
    for (size_t i = 1; i < nlangs; i++)
        if (match(&langs[i], keys, nkeys) < 0)
            goto fail;
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
    for (size_t i = 0; i < nsources; i++)
        source_free(&sources[i]);
    free(keys);
    return rc;
}
