/*
 * cards.c - card types, bundles and the stable identifiers used in storage.
 */
#include <ctype.h>
#include <string.h>

#include "internal.h"

static const char *const resource_ids[IL_RESOURCES] = {
    "luxury-cars", "guns",         "jewelry",    "alcohol",
    "pornography", "secret-files", "call-girls", "powder",
};

/* Prefix of each kind in a card identifier; resource cards have none. */
static const char *const kind_prefix[IL_KINDS] = {
    "", "dealer:", "buyer:", "suspect-dealer:", "suspect-buyer:",
};

/* Spelled out in full so that il_card_id() can hand out static strings. */
static const char *const card_ids[IL_CARD_TYPES] = {
    "luxury-cars",
    "guns",
    "jewelry",
    "alcohol",
    "pornography",
    "secret-files",
    "call-girls",
    "powder",
    "dealer:luxury-cars",
    "dealer:guns",
    "dealer:jewelry",
    "dealer:alcohol",
    "dealer:pornography",
    "dealer:secret-files",
    "dealer:call-girls",
    "dealer:powder",
    "buyer:luxury-cars",
    "buyer:guns",
    "buyer:jewelry",
    "buyer:alcohol",
    "buyer:pornography",
    "buyer:secret-files",
    "buyer:call-girls",
    "buyer:powder",
    "suspect-dealer:luxury-cars",
    "suspect-dealer:guns",
    "suspect-dealer:jewelry",
    "suspect-dealer:alcohol",
    "suspect-dealer:pornography",
    "suspect-dealer:secret-files",
    "suspect-dealer:call-girls",
    "suspect-dealer:powder",
    "suspect-buyer:luxury-cars",
    "suspect-buyer:guns",
    "suspect-buyer:jewelry",
    "suspect-buyer:alcohol",
    "suspect-buyer:pornography",
    "suspect-buyer:secret-files",
    "suspect-buyer:call-girls",
    "suspect-buyer:powder",
};

unsigned il_bundle_total(const struct il_bundle *b)
{
    unsigned t = 0;
    for (unsigned i = 0; i < IL_CARD_TYPES; i++)
        t += b->n[i];
    return t;
}

bool il_bundle_contains(const struct il_bundle *have, const struct il_bundle *want)
{
    for (unsigned i = 0; i < IL_CARD_TYPES; i++)
        if (have->n[i] < want->n[i])
            return false;
    return true;
}

void il_bundle_add(struct il_bundle *to, const struct il_bundle *b)
{
    for (unsigned i = 0; i < IL_CARD_TYPES; i++)
        to->n[i] = (uint8_t)(to->n[i] + b->n[i]);
}

void il_bundle_sub(struct il_bundle *from, const struct il_bundle *b)
{
    for (unsigned i = 0; i < IL_CARD_TYPES; i++)
        from->n[i] = (uint8_t)(from->n[i] - b->n[i]);
}

void il_bundle_of_mask(struct il_bundle *b, uint8_t mask)
{
    memset(b, 0, sizeof *b);
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (mask & (1u << r))
            b->n[IL_CARD(IL_KIND_RESOURCE, r)] = 1;
}

bool il_bundle_only_resources(const struct il_bundle *b)
{
    for (unsigned i = IL_RESOURCES; i < IL_CARD_TYPES; i++)
        if (b->n[i])
            return false;
    return true;
}

bool il_bundle_within(const struct il_bundle *b, uint8_t mask)
{
    for (unsigned i = 0; i < IL_CARD_TYPES; i++)
        if (b->n[i] && !(mask & (1u << IL_CARD_RES(i))))
            return false;
    return true;
}

unsigned il_popcount8(uint8_t mask)
{
    unsigned n = 0;
    for (; mask; mask &= (uint8_t)(mask - 1))
        n++;
    return n;
}

const char *il_card_id(unsigned type)
{
    return type < IL_CARD_TYPES ? card_ids[type] : NULL;
}

int il_card_from_id(const char *id)
{
    if (!id)
        return -1;
    for (unsigned k = IL_KINDS; k-- > 0;) {
        size_t len = strlen(kind_prefix[k]);
        if (strncmp(id, kind_prefix[k], len) != 0)
            continue;
        int r = il_resource_from_id(id + len);
        return r < 0 ? -1 : (int)IL_CARD(k, (unsigned)r);
    }
    return -1;
}

const char *il_resource_id(unsigned res)
{
    return res < IL_RESOURCES ? resource_ids[res] : NULL;
}

int il_resource_from_id(const char *id)
{
    if (!id)
        return -1;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (strcmp(id, resource_ids[r]) == 0)
            return (int)r;
    return -1;
}

bool il_variant_casual(enum il_variant v)
{
    return v == IL_VARIANT_CASUAL || v == IL_VARIANT_CASUAL_ADVANCED;
}

bool il_variant_singles(enum il_variant v)
{
    return v == IL_VARIANT_ADVANCED || v == IL_VARIANT_CASUAL_ADVANCED;
}

const char *const il_variant_ids[IL_VARIANTS + 1] = {
    [IL_VARIANT_STANDARD] = "standard",
    [IL_VARIANT_ADVANCED] = "advanced",
    [IL_VARIANT_CASUAL] = "casual",
    [IL_VARIANT_CASUAL_ADVANCED] = "casual-advanced",
};

const char *il_variant_id(enum il_variant v)
{
    return (unsigned)v < IL_VARIANTS ? il_variant_ids[v] : NULL;
}

int il_variant_from_id(const char *id)
{
    for (int v = IL_VARIANT_STANDARD; v < IL_VARIANTS; v++)
        if (id && strcmp(id, il_variant_id((enum il_variant)v)) == 0)
            return v;
    return -1;
}

int il_variant_parse(const char *text)
{
    int v = il_variant_from_id(text);
    bool casual = false, advanced = false;
    char word[16];
    if (v >= 0 || !text)
        return v;
    for (const char *p = text + strspn(text, " ,+"); *p; p += strspn(p, " ,+")) {
        size_t n = strcspn(p, " ,+");
        if (n >= sizeof word)
            return -1;
        for (size_t i = 0; i < n; i++)
            word[i] = (char)tolower((unsigned char)p[i]);
        word[n] = '\0';
        bool *seen = strcmp(word, "casual") == 0     ? &casual
                     : strcmp(word, "advanced") == 0 ? &advanced
                                                     : NULL;
        if (!seen || *seen)
            return -1;
        *seen = true;
        p += n;
    }
    if (casual && advanced)
        return IL_VARIANT_CASUAL_ADVANCED;
    return casual ? IL_VARIANT_CASUAL : advanced ? IL_VARIANT_ADVANCED : -1;
}

static const char *const timer_ids[IL_TIMERS] = {"session", "reveal", "grab", "debate", "vote"};

const char *il_timer_id(enum il_timer t)
{
    return (unsigned)t < IL_TIMERS ? timer_ids[t] : NULL;
}

int il_timer_from_id(const char *id)
{
    for (unsigned t = 0; t < IL_TIMERS; t++)
        if (id && strcmp(id, timer_ids[t]) == 0)
            return (int)t;
    return -1;
}

static const char *const phase_ids[] = {"dealing", "drop-reveal", "drop-grab", "tribunal-hold",
                                        "debate",  "vote",        "over"};

const char *il_phase_id(enum il_phase p)
{
    return (unsigned)p <= IL_PHASE_OVER ? phase_ids[p] : NULL;
}

static const char *const tribunal_option_ids[IL_TRIBUNAL_OPTIONS] = {
    "hold", "parallel", "vote-in-debate", "close-early"};

const char *il_tribunal_option_id(unsigned i)
{
    return i < IL_TRIBUNAL_OPTIONS ? tribunal_option_ids[i] : NULL;
}

int il_tribunal_option_from_id(const char *id)
{
    for (unsigned i = 0; i < IL_TRIBUNAL_OPTIONS; i++)
        if (id && strcmp(id, tribunal_option_ids[i]) == 0)
            return 1 << i;
    return -1;
}
