/*
 * catalog.h - every word a user reads, looked up by key and language.
 *
 * Keys are dotted identifiers ("card.guns", "error.wrong-phase",
 * "msg.session-opened"). Texts may hold named placeholders such as {player};
 * the caller fills them in (see bot/render.h). English is complete; a
 * language that lacks a key falls back to English.
 */
#ifndef CORE_CATALOG_H
#define CORE_CATALOG_H

/* Returns the text for key in language lang ("en", ...), falling back to
 * English, or NULL when no language has the key. The string is static. */
const char *catalog_text(const char *lang, const char *key);

/* Returns 1 when lang names a language the catalog has, else 0. */
int catalog_has_language(const char *lang);

#endif
