/*
 * complete.c - what a seat may name next, for a platform that completes
 * commands as they are typed (core/rules.h: complete): the players, its
 * hand's cards, the resources in play, the drop's cards on the table.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "../catalog.h"
#include "internal.h"
#include "module.h"

/* Whether candidate starts as typed, in any case. */
static bool starts(const char *candidate, const char *typed)
{
    return strncasecmp(candidate, typed, strlen(typed)) == 0;
}

/* The card's name in lang. */
static const char *card_name(const char *lang, unsigned r)
{
    char key[64];
    snprintf(key, sizeof key, IL_KEYS "card.%s", il_resource_id(r));
    return catalog_text(lang, key);
}

/* The other active players whose name starts as typed: shown by name, typed
 * as their user id. */
static void players(const struct il_game *g, const struct rules_table *t, unsigned seat,
                    const char *typed, rules_choice_fn add, void *arg)
{
    for (unsigned s = 0; s < g->nplayers && s < t->nseats; s++)
        if (s != seat && g->players[s].active && starts(t->names[s], typed))
            add(arg, t->names[s], t->users[s]);
}

/* A card list such as "2 guns 1 al": the last word completed with each
 * resource of `mask`, or a count and a card after a number or a blank. */
static void card_list(uint8_t mask, const char *typed, rules_choice_fn add, void *arg)
{
    const char *sp = strrchr(typed, ' ');
    const char *last = sp ? sp + 1 : typed;
    bool number = *last && isdigit((unsigned char)*last);
    /* "2 ": a count was typed, its card comes next */
    const char *word = sp ? sp : typed;
    while (word > typed && word[-1] != ' ')
        word--;
    bool counted = sp && !*last && word < sp && isdigit((unsigned char)*word);
    if (!*typed)
        add(arg, "nothing", "nothing");
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        char v[256];
        const char *id = il_resource_id(r);
        int n;
        if (!(mask & (1u << r)))
            continue;
        if (!*typed)
            n = snprintf(v, sizeof v, "1 %s", id);
        else if (!*last)
            n = snprintf(v, sizeof v, counted ? "%s%s" : "%s1 %s", typed, id);
        else if (number)
            n = snprintf(v, sizeof v, "%s %s", typed, id);
        else if (starts(id, last))
            n = snprintf(v, sizeof v, "%.*s%s", (int)(last - typed), typed, id);
        else
            continue;
        if (n > 0 && (size_t)n < sizeof v) /* cut short, it would be another list */
            add(arg, v, v);
    }
}

void il_complete(const void *state, const struct rules_table *t, unsigned seat, const char *word,
                 const char *option, const char *typed, rules_choice_fn add, void *arg)
{
    const struct il_game *g = &((const struct il_state *)state)->game;
    const char *lang = seat < t->nseats ? t->langs[seat] : t->lang;
    (void)word;
    if (seat >= g->nplayers || !g->players[seat].active)
        return;
    if (strcmp(option, "player") == 0) {
        players(g, t, seat, typed, add, arg);
    } else if (strcmp(option, "resource") == 0) {
        for (unsigned i = 0; i < g->drop_shown && i < IL_RESOURCES; i++) {
            unsigned r = g->drop_cards[i];
            const char *name = card_name(lang, r);
            if (!g->drop_taken[i] && (starts(il_resource_id(r), typed) || starts(name, typed)))
                add(arg, name, il_resource_id(r));
        }
    } else if (strcmp(option, "give") == 0 || strcmp(option, "ask") == 0) {
        uint8_t held = 0;
        for (unsigned r = 0; r < IL_RESOURCES; r++)
            if (g->players[seat].hand.n[r])
                held |= (uint8_t)(1u << r);
        /* what one gives one holds; what one asks for is anything in play */
        card_list(strcmp(option, "give") == 0 ? held : g->in_play, typed, add, arg);
    }
}
