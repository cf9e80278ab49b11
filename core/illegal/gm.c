/*
 * gm.c - the Game Master's view: what the rulebook's GM sees of a running
 * game, written for a host or moderator who follows it without playing.
 * Everything in it is secret; the bot decides who may read it.
 */
#include <stdio.h>

#include "../catalog.h"
#include "../text.h"
#include "module.h"

/* "alice: The Car Thief / The Rich Emir; holds 3 Luxury Cars, 1 Guns." */
static void seat_line(const struct il_game *g, const struct rules_table *t, unsigned s, char *out,
                      size_t len)
{
    const struct il_player *p = &g->players[s];
    char cards[512];
    struct il_bundle held = p->hand;
    held.n[IL_CARD(IL_KIND_DEALER, p->dealer)] = 0;
    held.n[IL_CARD(IL_KIND_BUYER, p->buyer)] = 0;
    il_render_cards(cards, sizeof cards, t->lang, &held);
    const char *dealer = il_card_id(IL_CARD(IL_KIND_DEALER, p->dealer));
    const char *buyer = il_card_id(IL_CARD(IL_KIND_BUYER, p->buyer));
    const char *vars[] = {"player", t->names[s],
                          "dealer", text_name(t->lang, IL_KEYS "card", dealer),
                          "buyer",  text_name(t->lang, IL_KEYS "card", buyer),
                          "cards",  cards,
                          NULL};
    text_fill(out, len, t->lang, IL_KEYS "msg.gm-seat", vars);
}

/* Who has a card from the drop being played, and who still waits for one. */
static void drop_line(const struct il_game *g, const struct rules_table *t, char *out, size_t len)
{
    char taken[512], waiting[512], number[8];
    struct text_list a, b;
    text_list_init(&a, taken, sizeof taken, ", ");
    text_list_init(&b, waiting, sizeof waiting, ", ");
    for (unsigned s = 0; s < g->nplayers; s++)
        if (g->players[s].active)
            text_list_add(g->players[s].grabbed ? &a : &b, "%s", t->names[s]);
    snprintf(number, sizeof number, "%u", g->drops);
    const char *none = catalog_text(t->lang, "msg.nobody");
    const char *vars[] = {
        "number", number, "taken", a.n ? taken : none, "waiting", b.n ? waiting : none, NULL};
    text_fill(out, len, t->lang, IL_KEYS "msg.gm-drop", vars);
}

void il_gm_view(const struct il_game *g, const struct rules_table *t, char *out, size_t len)
{
    char phase[256], line[2048];
    struct text_list l;
    il_phase_line(g, t->lang, phase, sizeof phase);
    const char *vars[] = {"id", t->game, "phase", phase, NULL};
    text_fill(line, sizeof line, t->lang, IL_KEYS "msg.gm-view", vars);
    text_list_init(&l, out, len, "\n");
    text_list_add(&l, "%s", line);
    for (unsigned s = 0; s < g->nplayers; s++) {
        if (!g->players[s].active)
            continue;
        seat_line(g, t, s, line, sizeof line);
        text_list_add(&l, "%s", line);
    }
    if (g->phase == IL_PHASE_DEALING) {
        char list[1536], one[512];
        struct text_list offers;
        text_list_init(&offers, list, sizeof list, "; ");
        for (unsigned i = 0; i < g->noffers; i++) {
            il_offer_line(&g->offers[i], t->lang, t->names, one, sizeof one);
            text_list_add(&offers, "%s", one);
        }
        const char *ov[] = {"list", list, NULL};
        text_fill(line, sizeof line, t->lang,
                  g->noffers ? IL_KEYS "msg.gm-offers" : IL_KEYS "msg.gm-no-offers", ov);
        text_list_add(&l, "%s", line);
    }
    if (g->phase == IL_PHASE_DROP_REVEAL || g->phase == IL_PHASE_DROP_GRAB) {
        drop_line(g, t, line, sizeof line);
        text_list_add(&l, "%s", line);
    }
    for (unsigned k = g->case_index; k < g->ncases; k++)
        if (il_case_open(g, k)) {
            il_case_votes(g, k, t->lang, t->names, line, sizeof line);
            text_list_add(&l, "%s", line);
        }
}
