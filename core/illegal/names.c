/*
 * names.c - card names as players type them, matched loosely.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../catalog.h"
#include "../text.h"
#include "module.h"

/* The base letter of each code point from U+00C0 to U+017F (Latin-1 and
 * Latin Extended-A: every accented letter of the catalog's languages), so
 * that "pó", "po" and "PÓ" compare equal; '.' for the two signs among them. */
static const char unaccented[] = "aaaaaaaceeeeiiiidnooooo.ouuuuytsaaaaaaaceeeeiiiidnooooo.ouuuuyty"
                                 "aaaaaaccccccccddddeeeeeeeeeegggggggghhhhiiiiiiiiiiiijjkkklllllll"
                                 "lllnnnnnnnnnoooooooorrrrrrssssssssttttttuuuuuuuuuuuuwwyyyzzzzzzs";

/* Lower-cases s keeping letters and digits only, accents taken off, then
 * drops one trailing 's' so that singular and plural compare equal. Other
 * letters outside ASCII are dropped. */
static void fold(const char *s, size_t len, char *out, size_t outlen)
{
    size_t n = 0;
    for (size_t i = 0; i < len && s[i] && n + 1 < outlen; i++) {
        unsigned char c = (unsigned char)s[i];
        if (isalnum(c)) {
            out[n++] = (char)tolower(c);
        } else if (c >= 0xC3 && c <= 0xC5 && i + 1 < len &&
                   ((unsigned char)s[i + 1] & 0xC0) == 0x80) {
            unsigned cp = (unsigned)(c & 0x1F) << 6 | ((unsigned char)s[++i] & 0x3F);
            if (cp >= 0xC0 && unaccented[cp - 0xC0] != '.')
                out[n++] = unaccented[cp - 0xC0];
        }
    }
    if (n > 2 && out[n - 1] == 's')
        n--;
    out[n] = '\0';
}

/* The languages names are read in: the table's, then English, which every
 * player may type whatever the table's language. */
static unsigned languages(const char *lang, const char *out[2])
{
    out[0] = lang && catalog_has_language(lang) ? lang : "en";
    out[1] = "en";
    return strcmp(out[0], "en") == 0 ? 1 : 2;
}

/* Calls fn for every folded name of resource r: its id, then in each
 * language its display name and the catalog's aliases ("alias.<id>",
 * separated by '|'). Stops when fn returns true. */
static bool each_name(unsigned r, const char *lang, bool (*fn)(const char *, void *), void *arg)
{
    char key[64], folded[64];
    const char *id = il_resource_id(r), *langs[2];
    fold(id, strlen(id), folded, sizeof folded);
    if (fn(folded, arg))
        return true;
    for (unsigned i = 0, n = languages(lang, langs); i < n; i++) {
        snprintf(key, sizeof key, IL_KEYS "card.%s", id);
        const char *display = catalog_text(langs[i], key);
        if (display) {
            fold(display, strlen(display), folded, sizeof folded);
            if (fn(folded, arg))
                return true;
        }
        snprintf(key, sizeof key, IL_KEYS "alias.%s", id);
        const char *aliases = catalog_text(langs[i], key);
        while (aliases && *aliases) {
            const char *bar = strchr(aliases, '|');
            size_t len = bar ? (size_t)(bar - aliases) : strlen(aliases);
            fold(aliases, len, folded, sizeof folded);
            if (fn(folded, arg))
                return true;
            aliases = bar ? bar + 1 : NULL;
        }
    }
    return false;
}

/* True when word is the catalog's word `key` in the table's language or in English. */
static bool is_word(const char *word, const char *lang, const char *key)
{
    char a[64], b[64];
    const char *langs[2];
    fold(word, strlen(word), a, sizeof a);
    for (unsigned i = 0, n = languages(lang, langs); i < n; i++) {
        const char *w = catalog_text(langs[i], key);
        if (w) {
            fold(w, strlen(w), b, sizeof b);
            if (b[0] && strcmp(a, b) == 0)
                return true;
        }
    }
    return false;
}

static bool equals(const char *name, void *arg)
{
    return strcmp(name, arg) == 0;
}

static bool has_prefix(const char *name, void *arg)
{
    return strncmp(name, arg, strlen(arg)) == 0;
}

static void list_resources(unsigned in_play, const char *lang, char *out, size_t outlen)
{
    struct text_list l;
    text_list_init(&l, out, outlen, ", ");
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        if (!(in_play & (1u << r)))
            continue;
        char key[64];
        snprintf(key, sizeof key, IL_KEYS "card.%s", il_resource_id(r));
        const char *name = catalog_text(lang, key);
        text_list_add(&l, "%s", name ? name : key);
    }
}

/* True when the folded words name a role or a suspect card, in the table's
 * language or in English, with or without the name's first word (its
 * article: "arms dealer" is "The Arms Dealer"). */
static bool names_role(const char *folded, const char *lang)
{
    static const char *const generic[] = {"dealer", "buyer", "role", "suspect"};
    const char *langs[2];
    for (size_t i = 0; i < sizeof generic / sizeof *generic; i++)
        if (strcmp(folded, generic[i]) == 0)
            return true;
    for (unsigned l = 0, nl = languages(lang, langs); l < nl; l++)
        for (unsigned t = IL_RESOURCES; t < IL_CARD_TYPES; t++) {
            char key[64], name[96];
            snprintf(key, sizeof key, IL_KEYS "card.%s", il_card_id(t));
            const char *text = catalog_text(langs[l], key);
            if (!text)
                continue;
            fold(text, strlen(text), name, sizeof name);
            if (strcmp(name, folded) == 0)
                return true;
            const char *rest = strpbrk(text, " '\xE2"); /* after a space or an apostrophe */
            if (rest && rest[1]) {
                fold(rest + 1, strlen(rest + 1), name, sizeof name);
                if (strcmp(name, folded) == 0)
                    return true;
            }
        }
    return false;
}

/* Resolves folded words to a resource. Exact names first, then unique prefixes. */
static enum resolve_error match_resource(const char *folded, bool allow_prefix, unsigned in_play,
                                         const char *lang, int *out)
{
    int found = -1, count = 0;
    if (!folded[0])
        return RESOLVE_UNKNOWN;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (each_name(r, lang, equals, (void *)folded)) {
            *out = (int)r;
            return (in_play & (1u << r)) ? RESOLVE_OK : RESOLVE_UNKNOWN;
        }
    if (!allow_prefix)
        return RESOLVE_UNKNOWN;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if ((in_play & (1u << r)) && each_name(r, lang, has_prefix, (void *)folded)) {
            found = (int)r;
            count++;
        }
    if (count == 1) {
        *out = found;
        return RESOLVE_OK;
    }
    return count > 1 ? RESOLVE_AMBIGUOUS : RESOLVE_UNKNOWN;
}

/* Enough for any argument that fits: one letter and one separator each. */
#define MAX_TOKENS (COMMAND_ARG_MAX / 2 + 1)

/* Splits text into words at blanks, commas, '+' and "and" (in the table's
 * language too). Returns the
 * count, or MAX_TOKENS + 1 when there are more words than fit. */
static unsigned tokenize(char *text, const char *lang, char **tok)
{
    unsigned n = 0;
    char *save = NULL;
    for (char *p = strtok_r(text, " \t\r\n,+;", &save); p;
         p = strtok_r(NULL, " \t\r\n,+;", &save)) {
        if (strcasecmp(p, "and") == 0 || is_word(p, lang, IL_KEYS "word.and"))
            continue;
        if (n == MAX_TOKENS)
            return MAX_TOKENS + 1;
        tok[n++] = p;
    }
    return n;
}

static void set_word(char *word, size_t wordlen, char **tok, unsigned i, unsigned k)
{
    struct text_list l;
    text_list_init(&l, word, wordlen, " ");
    for (unsigned j = i; j < i + k; j++)
        text_list_add(&l, "%s", tok[j]);
}

enum resolve_error il_parse_cards(const char *text, unsigned in_play, const char *lang,
                                  struct il_bundle *out, char *word, size_t wordlen, char *choices,
                                  size_t choiceslen)
{
    char buf[COMMAND_ARG_MAX];
    char *tok[MAX_TOKENS];
    memset(out, 0, sizeof *out);
    word[0] = choices[0] = '\0';
    if (strlen(text) >= sizeof buf)
        return RESOLVE_BAD_COUNT;
    snprintf(buf, sizeof buf, "%s", text);
    unsigned n = tokenize(buf, lang, tok);
    if (n == 1 && (strcasecmp(tok[0], "none") == 0 || is_word(tok[0], lang, IL_KEYS "msg.nothing")))
        return RESOLVE_OK;
    if (n == 0 || n > MAX_TOKENS)
        return RESOLVE_BAD_COUNT;

    long count = -1;
    for (unsigned i = 0; i < n;) {
        char *end;
        long v = strtol(tok[i], &end, 10);
        if (*end == '\0' || strcasecmp(end, "x") == 0) {
            if (count >= 0 || v <= 0 || v > 99) {
                set_word(word, wordlen, tok, i, 1);
                return RESOLVE_BAD_COUNT;
            }
            count = v;
            i++;
            continue;
        }
        /* Longest phrase first, so "luxury cars" wins over "luxury". */
        enum resolve_error err = RESOLVE_UNKNOWN;
        int res = -1;
        unsigned used = 0;
        for (unsigned k = (n - i < 3 ? n - i : 3); k >= 1 && err != RESOLVE_OK; k--) {
            char joined[COMMAND_ARG_MAX], folded[COMMAND_ARG_MAX];
            set_word(joined, sizeof joined, tok, i, k);
            fold(joined, strlen(joined), folded, sizeof folded);
            if (names_role(folded, lang)) {
                set_word(word, wordlen, tok, i, k);
                return RESOLVE_NOT_TRADABLE;
            }
            enum resolve_error e = match_resource(folded, k == 1, in_play, lang, &res);
            if (e == RESOLVE_OK || k == 1)
                err = e;
            used = k;
        }
        if (err != RESOLVE_OK) {
            set_word(word, wordlen, tok, i, 1);
            list_resources(in_play, lang, choices, choiceslen);
            return err;
        }
        unsigned total = out->n[res] + (unsigned)(count < 0 ? 1 : count);
        if (total > 99) {
            set_word(word, wordlen, tok, i, used);
            return RESOLVE_BAD_COUNT;
        }
        out->n[res] = (uint8_t)total;
        count = -1;
        i += used;
    }
    if (count >= 0) {
        snprintf(word, wordlen, "%ld", count);
        return RESOLVE_BAD_COUNT;
    }
    return RESOLVE_OK;
}

enum resolve_error il_parse_resource(const char *text, unsigned in_play, const char *lang,
                                     int *resource, char *choices, size_t choiceslen)
{
    char folded[COMMAND_ARG_MAX];
    choices[0] = '\0';
    fold(text, strlen(text), folded, sizeof folded);
    enum resolve_error e = match_resource(folded, true, in_play, lang, resource);
    if (e != RESOLVE_OK)
        list_resources(in_play, lang, choices, choiceslen);
    return e;
}

/* Strips mention syntax: "<@123>", "<@!123>", "@alice". */
