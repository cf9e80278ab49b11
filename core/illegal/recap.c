/*
 * recap.c - the story of a finished game, for players to read at leisure:
 * every trade, every tribunal vote (secret until the end, told now), and a
 * few awards. Its texts come from the catalog; render.c sends them.
 */
#include <stdio.h>
#include <string.h>

#include "../catalog.h"
#include "../text.h"
#include "module.h"

/* Room kept at the end of a text for its "...and N more" line. */
#define MORE_ROOM 160

static void trade_cards(const uint8_t *n, const char *lang, char *out, size_t len)
{
    struct il_bundle b = {{0}};
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        b.n[IL_CARD(IL_KIND_RESOURCE, r)] = n[r];
    il_render_cards(out, len, lang, &b);
}

/* Appends "...and N more." when `shown` of `total` items fit. */
static void more(char *out, size_t len, const char *lang, unsigned shown, unsigned total)
{
    char count[16], line[MORE_ROOM];
    if (shown >= total)
        return;
    snprintf(count, sizeof count, "%u", total - shown);
    const char *vars[] = {"count", count, NULL};
    text_fill(line, sizeof line, lang, IL_KEYS "msg.recap-more", vars);
    size_t n = strlen(out);
    snprintf(out + n, len - n, "\n%s", line);
}

void il_recap_trades(const struct il_game *g, const char *lang, const char *const *names, char *out,
                     size_t len)
{
    char count[16], head[256];
    struct text_list l;
    snprintf(count, sizeof count, "%u", (unsigned)g->ntrades);
    const char *hv[] = {"count", count, NULL};
    text_fill(head, sizeof head, lang,
              g->ntrades ? IL_KEYS "msg.recap-trades" : IL_KEYS "msg.recap-no-trades", hv);
    text_list_init(&l, out, len > MORE_ROOM ? len - MORE_ROOM : len, "\n");
    text_list_add(&l, "%s", head);
    unsigned kept = g->ntrades < IL_MAX_TRADES ? g->ntrades : IL_MAX_TRADES, shown = 0;
    for (unsigned i = 0; i < kept && !l.full; i++) {
        const struct il_trade *t = &g->trades[i];
        char session[8], give[256], ask[256], line[768];
        snprintf(session, sizeof session, "%u", t->session);
        trade_cards(t->give, lang, give, sizeof give);
        trade_cards(t->ask, lang, ask, sizeof ask);
        const char *vars[] = {"session", session,      "from", names[t->from],
                              "to",      names[t->to], "give", give,
                              "ask",     ask,          NULL};
        text_fill(line, sizeof line, lang, IL_KEYS "msg.recap-trade", vars);
        text_list_add(&l, "%s", line);
        shown += !l.full;
    }
    more(out, len, lang, shown, g->ntrades);
}

void il_case_votes(const struct il_game *g, unsigned k, const char *lang, const char *const *names,
                   char *out, size_t len)
{
    char number[8], cards[512], votes[1024];
    struct il_bundle b = {{0}};
    struct text_list v;
    for (unsigned i = 0; i < g->cases[k].ncards; i++)
        b.n[g->cases[k].cards[i]]++;
    il_render_cards(cards, sizeof cards, lang, &b);
    text_list_init(&v, votes, sizeof votes, ", ");
    for (unsigned s = 0; s < g->nplayers; s++) {
        int to = g->players[s].votes[k];
        char one[128];
        const char *vars[] = {"voter", names[s], "player", to >= 0 ? names[to] : "", NULL};
        if (!g->players[s].active)
            continue;
        text_fill(one, sizeof one, lang,
                  to >= 0              ? IL_KEYS "msg.recap-vote"
                  : to == IL_ABSTAINED ? IL_KEYS "msg.recap-abstained"
                                       : IL_KEYS "msg.recap-no-vote",
                  vars);
        text_list_add(&v, "%s", one);
    }
    snprintf(number, sizeof number, "%u", k + 1);
    const char *vars[] = {"number", number, "cards", cards, "votes", votes, NULL};
    text_fill(out, len, lang, IL_KEYS "msg.recap-case", vars);
}

/* Whether anyone still playing voted on case k: a case the game ended
 * before has no votes left (il_finish clears them). */
static bool has_votes(const struct il_game *g, unsigned k)
{
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].active && g->players[s].votes[k] != IL_NOBODY)
            return true;
    return false;
}

void il_recap_votes(const struct il_game *g, const char *lang, const char *const *names, char *out,
                    size_t len)
{
    char head[256];
    struct text_list l;
    unsigned voted = 0, shown = 0;
    for (unsigned k = 0; k < g->ncases; k++)
        voted += has_votes(g, k);
    text_fill(head, sizeof head, lang,
              voted ? IL_KEYS "msg.recap-votes" : IL_KEYS "msg.recap-no-votes", NULL);
    text_list_init(&l, out, len > MORE_ROOM ? len - MORE_ROOM : len, "\n");
    text_list_add(&l, "%s", head);
    for (unsigned k = 0; k < g->ncases && !l.full; k++) {
        if (!has_votes(g, k))
            continue;
        char line[1800];
        il_case_votes(g, k, lang, names, line, sizeof line);
        text_list_add(&l, "%s", line);
        shown += !l.full;
    }
    more(out, len, lang, shown, voted);
}

/* The seat with the highest value, first in seat order on a tie; -1 when
 * every value is 0. */
static int best(const unsigned *value, unsigned n)
{
    int who = -1;
    for (unsigned s = 0; s < n; s++)
        if (value[s] && (who < 0 || value[s] > value[who]))
            who = (int)s;
    return who;
}

static void award(struct text_list *l, const char *lang, const char *key, const char *player,
                  unsigned n)
{
    char count[16], line[256];
    snprintf(count, sizeof count, "%u", n);
    const char *vars[] = {"player", player, "count", count, NULL};
    text_fill(line, sizeof line, lang, key, vars);
    text_list_add(l, "%s", line);
}

void il_recap_awards(const struct il_game *g, const char *lang, const char *const *names, char *out,
                     size_t len)
{
    unsigned trades[IL_MAX_PLAYERS] = {0}, sold[IL_MAX_PLAYERS] = {0}, wrong[IL_MAX_PLAYERS] = {0};
    unsigned kept = g->ntrades < IL_MAX_TRADES ? g->ntrades : IL_MAX_TRADES;
    for (unsigned i = 0; i < kept; i++) {
        const struct il_trade *t = &g->trades[i];
        trades[t->from]++;
        trades[t->to]++;
        sold[t->from] += t->give[g->players[t->from].dealer];
        sold[t->to] += t->ask[g->players[t->to].dealer];
    }
    char hidden[512], head[256];
    struct text_list h, l;
    text_list_init(&h, hidden, sizeof hidden, ", ");
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (!g->players[s].active) {
            trades[s] = sold[s] = 0;
            continue;
        }
        struct il_score_parts p = il_score_parts(g, s);
        wrong[s] = p.wrong;
        if (p.right == 0)
            text_list_add(&h, "%s", names[s]);
    }
    text_fill(head, sizeof head, lang, IL_KEYS "msg.recap-awards", NULL);
    text_list_init(&l, out, len, "\n");
    text_list_add(&l, "%s", head);
    int who;
    if ((who = best(sold, g->nplayers)) >= 0)
        award(&l, lang, IL_KEYS "msg.award-dealer", names[who], sold[who]);
    if ((who = best(trades, g->nplayers)) >= 0)
        award(&l, lang, IL_KEYS "msg.award-trader", names[who], trades[who]);
    if ((who = best(wrong, g->nplayers)) >= 0)
        award(&l, lang, IL_KEYS "msg.award-fooled", names[who], wrong[who]);
    if (h.n) {
        char line[768];
        const char *vars[] = {"players", hidden, NULL};
        text_fill(line, sizeof line, lang, IL_KEYS "msg.award-hidden", vars);
        text_list_add(&l, "%s", line);
    }
}
