/*
 * catalog_data.h - the shape of the catalog's tables, which bot/catalog/gen.c
 * generates at build time from the catalog's files (core/catalog/README.md). Only core/catalog.c
 * reads them; everything else asks core/catalog.h.
 */
#ifndef CORE_CATALOG_DATA_H
#define CORE_CATALOG_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Offsets, not pointers: the tables need no relocation at load time. Eight
 * bytes an entry: the texts of all languages stay under CATALOG_TEXTS_MAX
 * bytes and an entry's plural forms under 16 (gen.c refuses more). */
#define CATALOG_TEXTS_MAX (1u << 28)
struct catalog_entry {
    unsigned key;        /* in catalog_keys */
    unsigned forms : 28; /* in the language's texts: nforms texts in a row, each ending in NUL */
    unsigned nforms : 4; /* 1, or the language's plural forms */
};

struct catalog_language {
    const char *code;                    /* "en", "fr", ... */
    const char *texts;                   /* every entry's forms (shared by the languages) */
    const struct catalog_entry *entries; /* sorted by key (strcmp) */
    size_t n;
    unsigned long (*plural)(unsigned long n); /* the Plural-Forms formula */
};

/* Whether every start reads key in every language: the words of Discord's
 * slash commands ("slash.*", the commands' "summary.*" and options'
 * "option.*"; a module's keys under its id), registered with each language's
 * names and descriptions (tests/unit/test_command.c holds the tables to it).
 * The generator lays these texts out together, apart from each language's
 * others, so that a start maps them and not every language's whole table. */
static inline bool catalog_key_read_at_start(const char *key)
{
    static const char *const starts[] = {"slash.", "summary.", "option."};
    const char *dot = strchr(key, '.');
    for (const char *k = key; k; k = k == key && dot ? dot + 1 : NULL)
        for (size_t i = 0; i < sizeof starts / sizeof *starts; i++)
            if (strncmp(k, starts[i], strlen(starts[i])) == 0)
                return true;
    return false;
}

/* Every key, each ending in NUL (laid out between the entries and the
 * texts: gen.c, invariant 6). */
extern const char *const catalog_keys;
/* English first, then the translations in code order. */
extern const struct catalog_language catalog_languages[];
extern const size_t catalog_nlanguages;

static inline const char *catalog_entry_key(const struct catalog_entry *e)
{
    return catalog_keys + e->key;
}

/* The first of e's forms in language l. */
static inline const char *catalog_entry_forms(const struct catalog_language *l,
                                              const struct catalog_entry *e)
{
    return l->texts + e->forms;
}

#endif
