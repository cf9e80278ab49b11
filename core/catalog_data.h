/*
 * catalog_data.h - the shape of the catalog's tables, which bot/catalog/gen.c
 * generates at build time from the files in core/catalog/. Only core/catalog.c
 * reads them; everything else asks core/catalog.h.
 */
#ifndef CORE_CATALOG_DATA_H
#define CORE_CATALOG_DATA_H

#include <stddef.h>

struct catalog_entry {
    const char *key;
    const char *forms; /* nforms texts, one after another, each ending in NUL */
    unsigned nforms;   /* 1, or the language's plural forms */
};

struct catalog_language {
    const char *code;                    /* "en", "fr", ... */
    const struct catalog_entry *entries; /* sorted by key (strcmp) */
    size_t n;
    unsigned long (*plural)(unsigned long n); /* the Plural-Forms formula */
};

/* English first, then the translations in code order. */
extern const struct catalog_language catalog_languages[];
extern const size_t catalog_nlanguages;

#endif
