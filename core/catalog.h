/*
 * catalog.h - every word a user reads, looked up by key and language.
 *
 * Keys are dotted identifiers ("msg.lobby", "illegal.card.guns": a game's
 * keys are under its id). Texts may hold named placeholders such as {player};
 * the caller fills them in (see core/text.h). The words live in gettext files,
 * the bot's in core/catalog/ and each game's in core/<game>/catalog/: a .pot
 * has every key with its English text, and each <code>.po one language
 * (core/catalog/README.md); the build compiles them into tables, so a
 * lookup reads constant data. English is complete; a language that lacks a
 * key (or has an unusable translation) falls back to English.
 */
#ifndef CORE_CATALOG_H
#define CORE_CATALOG_H

#include <stddef.h>

/* Returns the text for key in language lang ("en", ...; NULL or unknown is
 * English), or NULL when the catalog has no such key. The string is static.
 * For a key with plural forms, this is the first form. */
const char *catalog_text(const char *lang, const char *key);

/* Returns the form of a plural key that fits the number n in lang (by the
 * language's Plural-Forms rule); for a key without plurals, its text. NULL
 * when the catalog has no such key. The string is static. */
const char *catalog_plural(const char *lang, const char *key, unsigned long n);

/* Returns 1 when lang is the code of a language the catalog has, else 0. */
int catalog_has_language(const char *lang);

/* The code of the i-th language (English first), or NULL past the last. */
const char *catalog_language_at(size_t i);

/*
 * The catalog's code for a language tag as platforms and browsers write it
 * ("fr", "pt-BR", "es-419", "en_US", "DE"), matched on its first part, or
 * NULL when the catalog lacks that language. The string is static.
 */
const char *catalog_match(const char *tag);

#endif
