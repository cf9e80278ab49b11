/*
 * complete.c - what a seat may name as it types an option of its commands,
 * for a platform that completes them (core/rules.h: complete): the other
 * players, the cards in its hand, and for what a trade asks, every card.
 */
#include <string.h>
#include <strings.h>

#include "module.h"
#include "words.h"

/* Whether candidate starts as typed, in any case. */
static bool starts(const char *candidate, const char *typed)
{
    return strncasecmp(candidate, typed, strlen(typed)) == 0;
}

/* The other players still in the game: shown by name, typed as user id. */
static void players(const struct pd_game *g, const struct rules_table *t, unsigned seat,
                    const char *typed, rules_choice_fn add, void *arg)
{
    for (unsigned s = 0; s < g->nplayers && s < t->nseats; s++)
        if (s != seat && g->players[s].active && starts(t->names[s], typed))
            add(arg, t->names[s], t->users[s]);
}

/* The cards of `hand` (every card when NULL) named as typed, in lang. */
static void cards(const struct pd_bundle *hand, const char *lang, const char *typed,
                  rules_choice_fn add, void *arg)
{
    for (unsigned c = 0; c < PD_CARDS; c++) {
        const char *name = pd_card_name(lang, c);
        if ((!hand || hand->n[c]) && starts(name, typed))
            add(arg, name, name);
    }
}

void pd_complete(const void *state, const struct rules_table *t, unsigned seat, const char *word,
                 const char *option, const char *typed, rules_choice_fn add, void *arg)
{
    const struct pd_game *g = &((const struct pd_state *)state)->game;
    const char *lang = seat < t->nseats ? t->langs[seat] : t->lang;
    (void)word;
    if (seat >= g->nplayers || !g->players[seat].active)
        return;
    if (strcmp(option, "player") == 0)
        players(g, t, seat, typed, add, arg);
    else if (strcmp(option, "ask") == 0)
        cards(NULL, lang, typed, add, arg);
    else if (strcmp(option, "card") == 0 || strcmp(option, "give") == 0)
        cards(&g->players[seat].hand, lang, typed, add, arg);
}
