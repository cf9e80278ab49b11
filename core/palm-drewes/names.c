/*
 * names.c - cards as players type them: an id ("small-fry"), the name in the
 * table's language or in English, any case, or an unambiguous beginning of
 * one of those.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../catalog.h"
#include "module.h"
#include "words.h"

/* Whether `name` begins with the n bytes of text (ASCII letters in any case). */
static bool begins(const char *name, const char *text, size_t n)
{
    return name && strlen(name) >= n && strncasecmp(name, text, n) == 0;
}

static bool names_card(unsigned card, const char *text, size_t n, const char *lang, bool whole)
{
    const char *names[] = {pd_card_id(card), pd_card_name(lang, card), pd_card_name("en", card)};
    for (unsigned i = 0; i < 3; i++)
        if (begins(names[i], text, n) && (!whole || strlen(names[i]) == n))
            return true;
    return false;
}

static int parse_n(const char *text, size_t n, const char *lang)
{
    int found = -1;
    if (n == 0)
        return -1;
    for (unsigned c = 0; c < PD_CARDS; c++)
        if (names_card(c, text, n, lang, true))
            return (int)c;
    for (unsigned c = 0; c < PD_CARDS; c++)
        if (names_card(c, text, n, lang, false)) {
            if (found >= 0)
                return -2;
            found = (int)c;
        }
    return found;
}

int pd_card_parse(const char *text, const char *lang)
{
    while (*text == ' ')
        text++;
    size_t n = strlen(text);
    while (n && text[n - 1] == ' ')
        n--;
    return parse_n(text, n, lang);
}

/* One item: "dope", "dope x2", "2 dope", "2x dope". */
static enum resolve_error item(const char *text, size_t n, const char *lang, struct pd_bundle *b)
{
    char buf[COMMAND_ARG_MAX];
    long count = 1;
    if (n >= sizeof buf)
        return RESOLVE_UNKNOWN;
    memcpy(buf, text, n);
    buf[n] = '\0';
    char *name = buf, *end;
    if (isdigit((unsigned char)*name)) {
        count = strtol(name, &end, 10);
        name = end + (*end == 'x' || *end == 'X');
    } else {
        char *x = strrchr(name, ' ');
        if (x && (x[1] == 'x' || x[1] == 'X') && isdigit((unsigned char)x[2])) {
            count = strtol(x + 2, &end, 10);
            if (*end)
                return RESOLVE_BAD_COUNT;
            *x = '\0';
        }
    }
    if (count < 1 || count > 99)
        return RESOLVE_BAD_COUNT;
    int card = pd_card_parse(name, lang);
    if (card < 0)
        return card == -2 ? RESOLVE_AMBIGUOUS : RESOLVE_UNKNOWN;
    if (b->n[card] + count > pd_card_count((unsigned)card))
        return RESOLVE_BAD_COUNT;
    b->n[card] = (uint8_t)(b->n[card] + count);
    return RESOLVE_OK;
}

enum resolve_error pd_cards_parse(const char *text, const char *lang, struct pd_bundle *b,
                                  char *word, size_t wordlen)
{
    memset(b, 0, sizeof *b);
    const char *nothing = catalog_text(lang, PD_KEYS "msg.nothing");
    if (pd_card_parse(text, lang) < 0 && nothing && strcasecmp(text, nothing) == 0)
        return RESOLVE_OK;
    for (const char *p = text; *p;) {
        p += strspn(p, ", ");
        size_t n = strcspn(p, ",");
        while (n && p[n - 1] == ' ')
            n--;
        if (!n)
            break;
        enum resolve_error e = item(p, n, lang, b);
        if (e != RESOLVE_OK) {
            snprintf(word, wordlen, "%.*s", (int)n, p);
            return e;
        }
        p += n;
    }
    return RESOLVE_OK;
}
