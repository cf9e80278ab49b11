/*
 * catalog.c - looking words up in the tables generated from core/catalog/.
 *
 * A lookup finds the language by code (a handful of them), then the key by
 * binary search; whatever the language lacks, English has (catalog_data.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "catalog_data.h"

static const struct catalog_language *language(const char *code)
{
    for (size_t i = 0; code && i < catalog_nlanguages; i++)
        if (strcmp(catalog_languages[i].code, code) == 0)
            return &catalog_languages[i];
    return NULL;
}

static int by_key(const void *key, const void *entry)
{
    return strcmp(key, catalog_entry_key(entry));
}

static const struct catalog_entry *entry(const struct catalog_language *l, const char *key)
{
    return l ? bsearch(key, l->entries, l->n, sizeof *l->entries, by_key) : NULL;
}

/* The entry for key in lang, or in English; *from says whose it is. */
static const struct catalog_entry *find(const char *lang, const char *key,
                                        const struct catalog_language **from)
{
    const struct catalog_entry *e = NULL;
    if (!key)
        return NULL;
    *from = language(lang);
    if (*from && (e = entry(*from, key)))
        return e;
    *from = &catalog_languages[0];
    return entry(*from, key);
}

const char *catalog_text(const char *lang, const char *key)
{
    const struct catalog_language *from;
    const struct catalog_entry *e = find(lang, key, &from);
    return e ? catalog_entry_forms(from, e) : NULL;
}

const char *catalog_plural(const char *lang, const char *key, unsigned long n)
{
    const struct catalog_language *from;
    const struct catalog_entry *e = find(lang, key, &from);
    if (!e)
        return NULL;
    unsigned long form = e->nforms > 1 ? from->plural(n) : 0;
    const char *s = catalog_entry_forms(from, e);
    for (unsigned long i = 0; i < form && i + 1 < e->nforms; i++)
        s += strlen(s) + 1;
    return s;
}

int catalog_has_language(const char *lang)
{
    return language(lang) != NULL;
}

const char *catalog_language_at(size_t i)
{
    return i < catalog_nlanguages ? catalog_languages[i].code : NULL;
}

const char *catalog_match(const char *tag)
{
    char code[8];
    size_t n = 0;
    if (!tag)
        return NULL;
    while (tag[n] && tag[n] != '-' && tag[n] != '_' && n + 1 < sizeof code) {
        code[n] = (char)tolower((unsigned char)tag[n]);
        n++;
    }
    if (tag[n] && tag[n] != '-' && tag[n] != '_')
        return NULL;
    code[n] = '\0';
    const struct catalog_language *l = language(code);
    return l ? l->code : NULL;
}
