/*
 * cards.c - the box: every card's identifier, kind, count and worth; bundles.
 */
#include <string.h>

#include "internal.h"

struct card_info {
    const char *id;
    enum pd_kind kind;
    uint8_t count;
    int32_t value; /* a deal's euros; a nuisance card's cost in the hand */
    uint8_t lifts; /* a relief's burden */
};

static const struct card_info cards[PD_CARDS] = {
    [PD_OPENING] = {"opening", PD_KIND_OPENING, 10, 0, PD_NONE},
    [PD_RECKONING] = {"reckoning", PD_KIND_RECKONING, 4, 0, PD_NONE},
    [PD_FUNNY_MONEY] = {"funny-money", PD_KIND_ILLEGAL, 7, 5000, PD_NONE},
    [PD_DAMES] = {"dames", PD_KIND_ILLEGAL, 7, 5000, PD_NONE},
    [PD_DOPE] = {"dope", PD_KIND_ILLEGAL, 10, 25000, PD_NONE},
    [PD_GUNS] = {"guns", PD_KIND_ILLEGAL, 6, 50000, PD_NONE},
    [PD_COUP] = {"coup", PD_KIND_ILLEGAL, 1, 100000, PD_NONE},
    [PD_SMALL_FRY] = {"small-fry", PD_KIND_LEGAL, 8, 1000, PD_NONE},
    [PD_BROKERAGE] = {"brokerage", PD_KIND_LEGAL, 4, 3000, PD_NONE},
    [PD_POLITICAL] = {"political", PD_KIND_LEGAL, 2, 10000, PD_NONE},
    [PD_RAID] = {"raid", PD_KIND_BURDEN, 2, 0, PD_NONE},
    [PD_PROTECTION] = {"protection", PD_KIND_BURDEN, 2, 0, PD_NONE},
    [PD_TAX_AUDIT] = {"tax-audit", PD_KIND_BURDEN, 3, 0, PD_NONE},
    [PD_SWEDEN] = {"sweden", PD_KIND_BURDEN, 3, 0, PD_NONE},
    [PD_INFORMANT] = {"informant", PD_KIND_RELIEF, 4, 0, PD_RAID},
    [PD_MISTER_ZERO] = {"mister-zero", PD_KIND_RELIEF, 4, 0, PD_PROTECTION},
    [PD_CLEAN_RECORD] = {"clean-record", PD_KIND_RELIEF, 5, 0, PD_TAX_AUDIT},
    [PD_ALIBI] = {"alibi", PD_KIND_RELIEF, 5, 0, PD_SWEDEN},
    [PD_BRIBE] = {"bribe", PD_KIND_RELIEF, 4, 0, PD_NONE},
    [PD_FAMILY_PARTY] = {"family-party", PD_KIND_NUISANCE, 4, 25000, PD_NONE},
    [PD_LOAN_SHARK] = {"loan-shark", PD_KIND_NUISANCE, 3, 50000, PD_NONE},
    [PD_RUIN] = {"ruin", PD_KIND_NUISANCE, 1, 100000, PD_NONE},
    [PD_TAKEOVER] = {"takeover", PD_KIND_TAKEOVER, 4, 0, PD_NONE},
    [PD_CONNECTIONS] = {"connections", PD_KIND_TAKEOVER, 4, 0, PD_NONE},
    [PD_MAGNUM] = {"magnum", PD_KIND_MAGNUM, 1, 0, PD_NONE},
};

const char *pd_card_id(unsigned card)
{
    return card < PD_CARDS ? cards[card].id : NULL;
}

int pd_card_from_id(const char *id)
{
    for (unsigned t = 0; id && t < PD_CARDS; t++)
        if (strcmp(cards[t].id, id) == 0)
            return (int)t;
    return -1;
}

enum pd_kind pd_card_kind(unsigned card)
{
    return cards[card].kind;
}

unsigned pd_card_count(unsigned card)
{
    return card < PD_CARDS ? cards[card].count : 0;
}

int32_t pd_card_value(unsigned card)
{
    return card < PD_CARDS ? cards[card].value : 0;
}

bool pd_card_is_illegal(unsigned card)
{
    return card < PD_CARDS && cards[card].kind == PD_KIND_ILLEGAL;
}

bool pd_card_is_legal(unsigned card)
{
    return card < PD_CARDS && cards[card].kind == PD_KIND_LEGAL;
}

bool pd_card_is_deal(unsigned card)
{
    return pd_card_is_illegal(card) || pd_card_is_legal(card);
}

unsigned pd_relief_lifts(unsigned card)
{
    return card < PD_CARDS ? cards[card].lifts : PD_NONE;
}

unsigned pd_bundle_total(const struct pd_bundle *b)
{
    unsigned n = 0;
    for (unsigned t = 0; t < PD_CARDS; t++)
        n += b->n[t];
    return n;
}

bool pd_bundle_contains(const struct pd_bundle *have, const struct pd_bundle *want)
{
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (want->n[t] > have->n[t])
            return false;
    return true;
}

void pd_bundle_add(struct pd_bundle *to, const struct pd_bundle *b)
{
    for (unsigned t = 0; t < PD_CARDS; t++)
        to->n[t] = (uint8_t)(to->n[t] + b->n[t]);
}

void pd_bundle_sub(struct pd_bundle *from, const struct pd_bundle *b)
{
    for (unsigned t = 0; t < PD_CARDS; t++)
        from->n[t] = (uint8_t)(from->n[t] - b->n[t]);
}

unsigned pd_top_deal(const struct pd_bundle *b)
{
    unsigned top = PD_NONE;
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (b->n[t] && pd_card_is_deal(t) && (top == PD_NONE || cards[t].value > cards[top].value))
            top = t;
    return top;
}

unsigned pd_kinds_where(const struct pd_bundle *b, bool (*want)(unsigned card))
{
    unsigned n = 0;
    for (unsigned t = 0; t < PD_CARDS; t++)
        n += b->n[t] && want(t);
    return n;
}

int32_t pd_business_value(const struct pd_bundle *business)
{
    int32_t v = 0;
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (pd_card_is_deal(t))
            v += business->n[t] * cards[t].value;
    return v;
}

int32_t pd_hand_cost(const struct pd_bundle *hand)
{
    int32_t v = 0;
    for (unsigned t = 0; t < PD_CARDS; t++)
        if (cards[t].kind == PD_KIND_NUISANCE)
            v += hand->n[t] * cards[t].value;
    unsigned top = pd_top_deal(hand);
    return top == PD_NONE ? v : v + cards[top].value;
}

void pd_action_init(struct pd_action *a, enum pd_action_type type, int player)
{
    memset(a, 0, sizeof *a);
    a->type = type;
    a->player = (int8_t)player;
    a->target = PD_NOBODY;
    a->card = a->extra = a->deal = PD_NONE;
}
