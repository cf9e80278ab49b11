/*
 * pd_player.c - people playing whole console games of Palm & Drewes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "core/catalog.h"
#include "core/palm-drewes/palm_drewes.h"
#include "pd_player.h"

/* A step's clock: shorter than a turn and a pass (live: 2 min, 1 min), as
 * long as the Magnum's window (15 s) and more. */
#define STEP_SECONDS 30
#define MAX_STEPS    600

static void say(struct pd_people *pp, const char *user, const char *text)
{
    harness_sendf(pp->h,
                  "{\"type\":\"message\",\"channel\":\"%s\",\"user\":\"%s\",\"text\":\"%s\"}",
                  pp->table, user, text);
}

static void dm(struct pd_people *pp, unsigned seat, const char *text)
{
    harness_sendf(pp->h,
                  "{\"type\":\"message\",\"channel\":\"dm\",\"user\":\"%s\",\"text\":\"%s\"}",
                  pp->users[seat], text);
}

static int seat_of(const struct pd_people *pp, const char *user)
{
    for (unsigned i = 0; i < pp->n; i++)
        if (strcmp(pp->users[i], user) == 0)
            return (int)i;
    return -1;
}

/* Whether the line's data names event among its events. */
static bool has_event(const struct json_object *line, const char *event)
{
    struct json_object *events = line_data(line, "events");
    for (size_t i = 0; events && i < json_object_array_length(events); i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(events, i)), event) == 0)
            return true;
    return false;
}

void pdp_scan(struct pd_people *pp)
{
    const struct harness *h = pp->h;
    for (; pp->scanned < h->nlines; pp->scanned++) {
        const struct json_object *l = h->lines[pp->scanned];
        const char *type = line_str(l, "type"), *channel = line_str(l, "channel");
        const char *phase = line_data_str(l, "phase"), *kind = line_str(l, "kind");
        if (type && strcmp(type, "game_over") == 0 && channel && !strcmp(channel, pp->table))
            pp->over_line = (long)pp->scanned;
        if (!channel || !phase)
            continue;
        snprintf(pp->phase, sizeof pp->phase, "%s", phase);
        int seat = strncmp(channel, "dm:", 3) == 0 ? seat_of(pp, channel + 3) : -1;
        if (seat >= 0 && kind && strcmp(kind, "hand") == 0) {
            pp->hand[seat] = line_data(l, "hand");
            pp->business[seat] = line_data(l, "business");
        }
        if (strcmp(channel, pp->table) == 0) {
            pp->passes += has_event(l, "pass-opened");
            pp->windows += has_event(l, "takeover");
            pp->losses += has_event(l, "loss-due");
        }
    }
}

/* How many of card a bundle of the data holds. */
static int count(const struct json_object *bundle, unsigned card)
{
    struct json_object *v;
    if (!bundle || !json_object_object_get_ex(bundle, pd_card_id(card), &v))
        return 0;
    return json_object_get_int(v);
}

/* The first card of bundle that `wanted` accepts, or -1. */
static int first(const struct json_object *bundle, bool (*wanted)(unsigned card))
{
    for (unsigned c = 0; c < PD_CARDS; c++)
        if (count(bundle, c) > 0 && wanted(c))
            return (int)c;
    return -1;
}

static bool any(unsigned c)
{
    (void)c;
    return true;
}

static bool illegal_deal(unsigned c)
{
    return pd_card_kind(c) == PD_KIND_ILLEGAL;
}

static bool legal_deal(unsigned c)
{
    return pd_card_kind(c) == PD_KIND_LEGAL;
}

static bool discardable(unsigned c)
{
    return pd_card_kind(c) != PD_KIND_NUISANCE;
}

static bool nuisance(unsigned c)
{
    return pd_card_kind(c) == PD_KIND_NUISANCE;
}

/* A person's move in their turn: open, lay a deal, else get rid of a
 * nuisance card by playing it (everyone then passes a card), else throw away
 * what helps least. */
static void turn_move(struct pd_people *pp, unsigned s, char *move, size_t len)
{
    const struct json_object *hand = pp->hand[s];
    bool open = count(pp->business[s], PD_OPENING) > 0;
    int c;
    if (!open && count(hand, PD_OPENING))
        snprintf(move, len, "play %s", pd_card_id(PD_OPENING));
    else if (open && ((c = first(hand, illegal_deal)) >= 0 || (c = first(hand, legal_deal)) >= 0))
        snprintf(move, len, "play %s", pd_card_id((unsigned)c));
    else if ((c = first(hand, nuisance)) >= 0)
        snprintf(move, len, "play %s", pd_card_id((unsigned)c));
    else if ((c = first(hand, discardable)) >= 0)
        snprintf(move, len, "discard %s", pd_card_id((unsigned)c));
}

/* What seat s types now, or nothing. */
static void move_of(struct pd_people *pp, unsigned s, char *move, size_t len)
{
    int c;
    move[0] = '\0';
    if (strcmp(pp->phase, "turn") == 0)
        turn_move(pp, s, move, len);
    else if (strcmp(pp->phase, "pass") == 0 && (c = first(pp->hand[s], discardable)) >= 0)
        snprintf(move, len, "pass %s", pd_card_id((unsigned)c));
    else if (strcmp(pp->phase, "window") == 0)
        snprintf(move, len, "waive");
    else if (strcmp(pp->phase, "loss") == 0 && (c = first(pp->business[s], illegal_deal)) >= 0)
        snprintf(move, len, "lose %s", pd_card_id((unsigned)c));
    else if (strcmp(pp->phase, "loss") == 0 && (c = first(pp->business[s], any)) >= 0 &&
             pd_card_kind((unsigned)c) != PD_KIND_OPENING)
        snprintf(move, len, "lose %s", pd_card_id((unsigned)c));
}

void pdp_open(struct pd_people *pp, struct harness *h, const char *table, unsigned n,
              const char *mode, const char *lang)
{
    char text[64];
    assert_true(n >= 2 && n <= PDP_MAX);
    memset(pp, 0, sizeof *pp);
    pp->h = h;
    pp->n = n;
    pp->over_line = -1;
    pp->scanned = h->nlines;
    snprintf(pp->table, sizeof pp->table, "%s", table);
    snprintf(pp->lang, sizeof pp->lang, "%s", lang);
    for (unsigned i = 0; i < n; i++)
        snprintf(pp->users[i], sizeof pp->users[i], "%s-p%u", table, i + 1);
    snprintf(text, sizeof text, "!illegal new palm-drewes %s", mode);
    say(pp, pp->users[0], text);
    snprintf(text, sizeof text, "!illegal set language %s", lang);
    say(pp, pp->users[0], text);
    for (unsigned i = 0; i < n; i++)
        say(pp, pp->users[i], "!illegal join");
    say(pp, pp->users[0], "!illegal start");
    harness_sync(h);
    pdp_scan(pp);
    for (unsigned i = 0; i < n; i++)
        assert_non_null(pp->hand[i]); /* each dealt a hand, in private */
}

void pdp_play_to_end(struct pd_people *pp)
{
    char move[64];
    for (; pp->over_line < 0 && pp->steps < MAX_STEPS; pp->steps++) {
        for (unsigned s = 0; s < pp->n; s++) {
            move_of(pp, s, move, sizeof move);
            if (move[0])
                dm(pp, s, move);
        }
        harness_sendf(pp->h, "{\"type\":\"advance\",\"seconds\":%d}", STEP_SECONDS);
        harness_sync(pp->h);
        pdp_scan(pp);
    }
    assert_true(pp->over_line >= 0);
}

/* The messages that show cards to one player alone. */
static const char *const private_keys[] = {
    "palm-drewes.msg.dealt",
    "palm-drewes.msg.hand",
    "palm-drewes.msg.drew",
    "palm-drewes.msg.pass-chosen",
    "palm-drewes.msg.passed",
    "palm-drewes.msg.passed-nothing-given",
    "palm-drewes.msg.passed-nothing-got",
    "palm-drewes.msg.offer-to-you",
    "palm-drewes.msg.offer-blind-to-you",
    "palm-drewes.msg.offer-from-you",
    "palm-drewes.msg.offer-accepted-you",
    "palm-drewes.msg.offer-accepted-them",
    "palm-drewes.msg.gm-seat",
};

#define NKEYS (sizeof private_keys / sizeof *private_keys)

/* A table line before the reckoning: no hand in its data, no private words. */
static void check_table_line(const struct json_object *l, size_t i, char words[][256])
{
    const char *text = line_str(l, "text");
    if (line_data(l, "hand") || line_data(l, "business")) {
        fprintf(stderr, "a hand in table line %zu: %s\n", i, text);
        fail();
    }
    for (size_t w = 0; text && w < NKEYS; w++)
        if (strlen(words[w]) >= 6 && strstr(text, words[w])) {
            fprintf(stderr, "private words \"%s\" in table line %zu: %s\n", words[w], i, text);
            fail();
        }
}

void pdp_check_secrets(const struct pd_people *pp)
{
    const struct harness *h = pp->h;
    char words[NKEYS][256];
    bool revealed = false;
    unsigned in_private = 0; /* DMs with those words: the check looks for words that exist */
    for (size_t k = 0; k < NKEYS; k++)
        harness_fixed_words(pp->lang, private_keys[k], words[k], sizeof words[k]);
    for (size_t i = 0; i < h->nlines; i++) {
        const struct json_object *l = h->lines[i];
        const char *channel = line_str(l, "channel");
        if (!channel || !line_str(l, "text"))
            continue;
        if (strcmp(channel, pp->table) == 0) {
            revealed |= has_event(l, "reckoning") || has_event(l, "reveal");
            if (!revealed)
                check_table_line(l, i, words);
        } else {
            for (size_t w = 0; w < NKEYS; w++)
                in_private += strlen(words[w]) >= 6 && strstr(line_str(l, "text"), words[w]);
        }
    }
    assert_true(revealed);
    assert_true(in_private > 0);
}

void pdp_record_game(struct harness *h, uint64_t seed, unsigned n, char *scores, size_t len)
{
    struct pd_people pp;
    harness_init(h, seed);
    pdp_open(&pp, h, "t1", n, "live", "en");
    pdp_play_to_end(&pp);
    harness_scores(h, "t1", scores, len);
    assert_int_equal(harness_finish(h), 0);
}
