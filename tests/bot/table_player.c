/*
 * table_player.c - scripted players for whole console games.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "core/catalog.h"
#include "core/illegal/illegal.h"
#include "table_player.h"

int tp_seat_of(const struct table_player *tp, const char *user)
{
    for (unsigned i = 0; i < tp->n; i++)
        if (strcmp(tp->users[i], user) == 0)
            return (int)i;
    return -1;
}

static void say(struct table_player *tp, const char *user, const char *text)
{
    harness_sendf(tp->h,
                  "{\"type\":\"message\",\"channel\":\"%s\",\"user\":\"%s\",\"text\":\"%s\"}",
                  tp->table, user, text);
}

static void dm(struct table_player *tp, const char *user, const char *text)
{
    harness_sendf(tp->h,
                  "{\"type\":\"message\",\"channel\":\"dm\",\"user\":\"%s\",\"text\":\"%s\"}", user,
                  text);
}

static void advance(struct table_player *tp, int seconds)
{
    harness_sendf(tp->h, "{\"type\":\"advance\",\"seconds\":%d}", seconds);
}

/* Sends, waits for the daemon, and reads what came back. */
static size_t settle(struct table_player *tp)
{
    size_t from = harness_sync(tp->h);
    tp_scan(tp);
    return from;
}

static void read_hand(struct table_player *tp, int seat, const struct json_object *line)
{
    struct json_object *hand = line_data(line, "hand");
    const char *dealer = line_data_str(line, "dealer");
    const char *buyer = line_data_str(line, "buyer");
    assert_non_null(hand);
    assert_non_null(dealer);
    assert_non_null(buyer);
    memset(tp->hand[seat], 0, sizeof tp->hand[seat]);
    json_object_object_foreach(hand, id, count)
    {
        int r = il_resource_from_id(id);
        assert_true(r >= 0);
        tp->hand[seat][r] = json_object_get_int(count);
    }
    snprintf(tp->dealer[seat], sizeof tp->dealer[seat], "%s", dealer);
    snprintf(tp->buyer[seat], sizeof tp->buyer[seat], "%s", buyer);
}

void tp_scan(struct table_player *tp)
{
    struct harness *h = tp->h;
    for (; tp->scanned < h->nlines; tp->scanned++) {
        const struct json_object *l = h->lines[tp->scanned];
        const char *type = line_str(l, "type");
        const char *kind = line_str(l, "kind");
        const char *channel = line_str(l, "channel");
        const char *game = line_data_str(l, "game");
        if (!type || strcmp(type, "error") == 0 || strcmp(type, "pong") == 0 || !channel)
            continue;
        if (strcmp(type, "game_over") == 0) {
            if (strcmp(channel, tp->table) == 0) {
                tp->game_over_line = (long)tp->scanned;
                tp->phase = TP_OVER;
            }
            continue;
        }
        if (!game || strcmp(line_data_str(l, "table") ? line_data_str(l, "table") : "", tp->table))
            continue;
        if (strncmp(channel, "dm:", 3) == 0) {
            int seat = tp_seat_of(tp, channel + 3);
            if (seat >= 0 && kind && strcmp(kind, "hand") == 0)
                read_hand(tp, seat, l);
            continue;
        }
        if (kind && strcmp(kind, "drop") == 0) {
            struct json_object *open = line_data(l, "open");
            tp->drop_line = (long)tp->scanned;
            if (open && json_object_get_boolean(open) && tp->phase == TP_DROP)
                tp->phase = TP_GRAB;
            continue;
        }
        if (strcmp(type, "poll") == 0) {
            tp->vote_line = (long)tp->scanned;
            tp->phase = TP_VOTE;
            continue;
        }
        /* One notice may tell several events: a step of the game is one message. */
        struct json_object *events = line_data(l, "events");
        size_t nevents = events ? json_object_array_length(events) : 0;
        for (size_t k = 0; k < nevents; k++) {
            const char *event = json_object_get_string(json_object_array_get_idx(events, k));
            if (strncmp(event, "session-opened", 14) == 0) {
                tp->phase = TP_DEALING;
                tp->sessions_seen++;
            } else if (strncmp(event, "drop-started", 12) == 0) {
                tp->phase = TP_DROP;
                tp->drops_seen++;
            } else if (strcmp(event, "case-opened") == 0) {
                tp->phase = TP_DEBATE;
                tp->cases_seen++;
            } else if (strcmp(event, "tribunal-held") == 0) {
                tp->phase = TP_HOLD;
            }
        }
    }
}

/* The line of `channel` from line `from` on that tells event (its data's
 * "event", or one of its "events" when a notice tells several), or -1. */
static long find_event(const struct harness *h, size_t from, const char *channel, const char *event)
{
    for (size_t i = from; i < h->nlines; i++) {
        if (!line_in(h->lines[i], channel))
            continue;
        const char *e = line_data_str(h->lines[i], "event");
        struct json_object *all = line_data(h->lines[i], "events");
        if (e && strcmp(e, event) == 0)
            return (long)i;
        for (size_t k = 0; all && k < json_object_array_length(all); k++)
            if (strcmp(json_object_get_string(json_object_array_get_idx(all, k)), event) == 0)
                return (long)i;
    }
    return -1;
}

/* The line of `channel` from `from` on of this kind, or -1. */
static long find_kind(const struct harness *h, size_t from, const char *channel, const char *kind)
{
    for (size_t i = from; i < h->nlines; i++) {
        const char *k = line_str(h->lines[i], "kind");
        if (line_in(h->lines[i], channel) && k && strcmp(k, kind) == 0)
            return (long)i;
    }
    return -1;
}

void tp_open(struct table_player *tp, struct harness *h, const char *table, unsigned n,
             const char *variant)
{
    tp_open_in(tp, h, table, n, variant, "en");
}

static void check_dealt(struct table_player *tp, size_t from);

/* Opens the table: hosted by the first player, or by a Game Master who does not play. */
static void open_table(struct table_player *tp, struct harness *h, const char *table, unsigned n,
                       const char *variant, const char *lang, bool gm)
{
    char text[64];
    memset(tp, 0, sizeof *tp);
    snprintf(tp->lang, sizeof tp->lang, "%s", lang);
    if (gm)
        snprintf(tp->gm, sizeof tp->gm, "%s-gm", table);
    tp->h = h;
    tp->n = n;
    tp->drop_line = tp->vote_line = tp->game_over_line = -1;
    tp->scanned = h->nlines;
    snprintf(tp->table, sizeof tp->table, "%s", table);
    snprintf(tp->variant, sizeof tp->variant, "%s", variant);
    for (unsigned i = 0; i < n; i++)
        snprintf(tp->users[i], sizeof tp->users[i], "%s-p%u", table, i + 1);
    const char *host = gm ? tp->gm : tp->users[0];
    snprintf(text, sizeof text, "!illegal new %s", variant);
    say(tp, host, text);
    if (strcmp(lang, "en") != 0) {
        snprintf(text, sizeof text, "!illegal set language %s", lang);
        say(tp, host, text);
    }
    for (unsigned i = 0; i < n; i++)
        say(tp, tp->users[i], "!illegal join");
    say(tp, host, "!illegal start");
    check_dealt(tp, settle(tp));
}

/* The game has started at tp's table since line `from`: everyone got their
 * roles and hand in private, and the table heard of the start. */
static void check_dealt(struct table_player *tp, size_t from)
{
    struct harness *h = tp->h;
    assert_int_equal(tp->phase, TP_DEALING);
    for (unsigned i = 0; i < tp->n; i++) {
        char channel[32];
        snprintf(channel, sizeof channel, "dm:%s", tp->users[i]);
        assert_true(find_event(h, from, channel, "dealt") >= 0);
        assert_true(find_kind(h, from, channel, "hand") >= 0);
        assert_true(tp->dealer[i][0] && tp->buyer[i][0]);
        assert_int_equal(tp->hand[i][il_resource_from_id(tp->dealer[i])], 5);
    }
    assert_true(find_event(h, from, tp->table, "game-started") >= 0);
}

void tp_attach(struct table_player *tp, struct harness *h, const char *table,
               const char *const *users, unsigned n, const char *variant, size_t from)
{
    memset(tp, 0, sizeof *tp);
    snprintf(tp->lang, sizeof tp->lang, "en");
    tp->h = h;
    tp->drop_line = tp->vote_line = tp->game_over_line = -1;
    tp->scanned = from;
    snprintf(tp->table, sizeof tp->table, "%s", table);
    snprintf(tp->variant, sizeof tp->variant, "%s", variant);
    /* The players are those dealt their cards for this table. */
    for (unsigned i = 0; i < n; i++) {
        char channel[32];
        snprintf(channel, sizeof channel, "dm:%s", users[i]);
        long dealt = find_event(h, from, channel, "dealt");
        const char *at = dealt >= 0 ? line_data_str(h->lines[dealt], "table") : NULL;
        if (at && strcmp(at, table) == 0) {
            assert_true(tp->n < 8);
            snprintf(tp->users[tp->n++], sizeof tp->users[0], "%s", users[i]);
        }
    }
    tp_scan(tp);
    check_dealt(tp, from);
}

int tp_phase_seconds(const struct table_player *tp)
{
    switch (tp->phase) {
    case TP_DEALING:
        if (tp->session_seconds)
            return tp->session_seconds;
        return strcmp(tp->variant, "casual") == 0 ? 1200 : 180;
    case TP_DROP:
        return 2;
    case TP_GRAB:
        return 30;
    case TP_DEBATE:
        return 60;
    case TP_VOTE:
        return 30;
    default:
        return 1;
    }
}

/* The resource seat holds most of, other than the one it scores. */
static int spare_resource(const struct table_player *tp, unsigned seat)
{
    int best = -1;
    int keep = il_resource_from_id(tp->buyer[seat]);
    for (int r = 0; r < IL_RESOURCES; r++)
        if (r != keep && tp->hand[seat][r] > 0 &&
            (best < 0 || tp->hand[seat][r] > tp->hand[seat][best]))
            best = r;
    return best;
}

static void trade_round(struct table_player *tp)
{
    struct harness *h = tp->h;
    for (unsigned i = 0; i + 1 < tp->n; i += 2) {
        unsigned j = i + 1;
        int give = spare_resource(tp, i), ask = spare_resource(tp, j);
        if (give < 0 || ask < 0)
            continue;
        char text[256], from_dm[32], to_dm[32];
        /* Swapping like for like would change nothing: make it a gift instead. */
        if (ask == give)
            snprintf(text, sizeof text, "offer %s 1 %s for nothing", tp->users[j],
                     il_resource_id((unsigned)give));
        else
            snprintf(text, sizeof text, "offer %s 1 %s for 1 %s", tp->users[j],
                     il_resource_id((unsigned)give), il_resource_id((unsigned)ask));
        dm(tp, tp->users[i], text);
        size_t from = settle(tp);
        snprintf(from_dm, sizeof from_dm, "dm:%s", tp->users[i]);
        snprintf(to_dm, sizeof to_dm, "dm:%s", tp->users[j]);
        long received = find_kind(h, from, to_dm, "offer");
        assert_true(received >= 0);
        assert_true(find_kind(h, from, from_dm, "offer") >= 0);
        struct json_object *id = line_data(h->lines[received], "offer");
        assert_non_null(id);
        int offer = json_object_get_int(id);
        int before_i = tp->hand[i][give], before_j = tp->hand[j][give];
        snprintf(text, sizeof text, "accept %d", offer);
        dm(tp, tp->users[j], text);
        from = settle(tp);
        assert_true(find_event(h, from, to_dm, "offer-accepted-receiver") >= 0);
        assert_true(find_event(h, from, from_dm, "offer-accepted-offerer") >= 0);
        assert_int_equal(tp->hand[i][give], before_i - 1);
        assert_int_equal(tp->hand[j][give], before_j + 1);
        tp->trades++;
    }
    /* An offer declined and one cancelled leave both hands as they were. */
    if (tp->n >= 3) {
        int give = spare_resource(tp, 2);
        char text[256];
        snprintf(text, sizeof text, "offer %s 1 %s for nothing", tp->users[0],
                 il_resource_id((unsigned)give));
        dm(tp, tp->users[2], text);
        size_t from = settle(tp);
        char to_dm[32];
        snprintf(to_dm, sizeof to_dm, "dm:%s", tp->users[0]);
        long line = find_kind(h, from, to_dm, "offer");
        assert_true(line >= 0);
        snprintf(text, sizeof text, "decline %d",
                 json_object_get_int(line_data(h->lines[line], "offer")));
        dm(tp, tp->users[0], text);
        snprintf(text, sizeof text, "offer %s nothing for 1 %s", tp->users[1],
                 il_resource_id((unsigned)give));
        dm(tp, tp->users[2], text);
        from = settle(tp);
        snprintf(to_dm, sizeof to_dm, "dm:%s", tp->users[2]);
        line = find_kind(h, from, to_dm, "offer");
        assert_true(line >= 0);
        snprintf(text, sizeof text, "cancel %d",
                 json_object_get_int(line_data(h->lines[line], "offer")));
        dm(tp, tp->users[2], text);
        from = settle(tp);
        assert_true(find_event(h, from, to_dm, "offer-cancelled") >= 0);
    }
}

static void grab_round(struct table_player *tp)
{
    struct harness *h = tp->h;
    assert_true(tp->drop_line >= 0);
    const struct json_object *drop = h->lines[tp->drop_line];
    const char *drop_id = line_str(drop, "id");
    struct json_object *shown = line_data(drop, "shown");
    struct json_object *choices = line_data(drop, "choices");
    assert_non_null(shown);
    assert_non_null(choices);
    unsigned ncards = (unsigned)json_object_array_length(shown);
    assert_int_equal(ncards, tp->n);
    for (unsigned i = 0; i < tp->n && i < ncards; i++) {
        const char *res = json_object_get_string(json_object_array_get_idx(shown, i));
        if (i % 2 == 0 && !tp->text_only) {
            const char *key = NULL; /* the reaction that takes the card */
            for (size_t c = 0; c < json_object_array_length(choices); c++) {
                struct json_object *choice = json_object_array_get_idx(choices, c);
                if (strcmp(json_object_get_string(json_object_object_get(choice, "card")), res) ==
                    0)
                    key = json_object_get_string(json_object_object_get(choice, "emoji"));
            }
            assert_non_null(key);
            harness_sendf(
                h,
                "{\"type\":\"reaction\",\"channel\":\"%s\",\"user\":\"%s\",\"message\":\"%s\","
                "\"key\":\"%s\"}",
                tp->table, tp->users[i], drop_id, key);
            tp->grabs_by_reaction++;
        } else {
            char text[64];
            snprintf(text, sizeof text, "!illegal grab %s", res);
            say(tp, tp->users[i], text);
            tp->grabs_by_text++;
        }
        /* The first player reaches for a second card at once: refused. */
        if (i == 0 && ncards > 1) {
            char text[64];
            snprintf(text, sizeof text, "!illegal grab %s",
                     json_object_get_string(json_object_array_get_idx(shown, 1)));
            say(tp, tp->users[0], text);
        }
    }
    size_t from = settle(tp);
    char who[64];
    snprintf(who, sizeof who, "\xE2\x86\x92 %s", tp->users[0]); /* the drop shows who took it */
    assert_true(harness_find(h, from, tp->table, who) >= 0);
    char channel[32];
    snprintf(channel, sizeof channel, "dm:%s", tp->users[0]);
    assert_true(harness_find(h, from, channel,
                             catalog_text(tp->lang, "illegal.error.already-grabbed")) >= 0);
    /* Every card went to the one who reached first; the drop closed by itself. */
    assert_true(tp->phase == TP_DEALING || tp->phase == TP_DEBATE || tp->phase == TP_OVER);
}

static void vote_round(struct table_player *tp)
{
    unsigned accused = tp->cases_seen % tp->n;
    for (unsigned i = 0; i < tp->n; i++) {
        char text[64];
        if (i == accused) {
            snprintf(text, sizeof text, "vote %s", tp->users[(i + 1) % tp->n]);
        } else if (i == (accused + 2) % tp->n) {
            /* Changes their mind: abstains after a first vote. */
            snprintf(text, sizeof text, "vote %s", tp->users[accused]);
            dm(tp, tp->users[i], text);
            snprintf(text, sizeof text, "abstain");
        } else {
            snprintf(text, sizeof text, "vote %s", tp->users[accused]);
        }
        dm(tp, tp->users[i], text);
        tp->votes++;
    }
    size_t from = settle(tp);
    char channel[32];
    snprintf(channel, sizeof channel, "dm:%s", tp->users[(accused + 1) % tp->n]);
    long confirmed = find_event(tp->h, from, channel, "vote-recorded");
    assert_true(confirmed >= 0);
    char number[16];
    snprintf(number, sizeof number, "%u", tp->cases_seen);
    assert_non_null(strstr(line_str(tp->h->lines[confirmed], "text"), number));
    /* Before the tally the table's text says how many have voted, and names
     * nobody: never for whom (who has voted is in the data, for panels). (A tribunal that closes a
     * vote once everyone has voted gives its verdict at once.) */
    long verdict = -1;
    static const char *const verdicts[] = {"verdict-convicted", "verdict-discarded",
                                           "verdict-no-votes"};
    for (size_t v = 0; v < sizeof verdicts / sizeof *verdicts; v++) {
        long at = find_event(tp->h, from, tp->table, verdicts[v]);
        if (at >= 0 && (verdict < 0 || at < verdict))
            verdict = at;
    }
    for (size_t i = from; i < (verdict >= 0 ? (size_t)verdict : tp->h->nlines); i++) {
        if (!line_in(tp->h->lines[i], tp->table))
            continue;
        const char *event = line_data_str(tp->h->lines[i], "event");
        assert_non_null(event);
        assert_string_equal(event, "votes-cast");
        for (unsigned u = 0; u < tp->n; u++)
            assert_null(strstr(line_str(tp->h->lines[i], "text"), tp->users[u]));
    }
}

void tp_step(struct table_player *tp)
{
    enum tp_phase phase = tp->phase;
    switch (phase) {
    case TP_DEALING:
        trade_round(tp);
        break;
    case TP_GRAB:
        grab_round(tp);
        if (tp->phase != TP_GRAB)
            return;
        break;
    case TP_VOTE:
        vote_round(tp);
        break;
    case TP_HOLD: /* a casual tribunal waits for the host: the players are here */
        say(tp, tp->gm[0] ? tp->gm : tp->users[0], "!illegal next");
        settle(tp);
        return;
    default:
        break;
    }
    if (tp->phase == phase && phase != TP_OVER) {
        advance(tp, tp_phase_seconds(tp));
        settle(tp);
    }
}

void tp_open_in(struct table_player *tp, struct harness *h, const char *table, unsigned n,
                const char *variant, const char *lang)
{
    open_table(tp, h, table, n, variant, lang, false);
}

void tp_open_gm(struct table_player *tp, struct harness *h, const char *table, unsigned n,
                const char *variant, const char *lang)
{
    open_table(tp, h, table, n, variant, lang, true);
}

/* The Game Master asks for their view: it comes to them in private, naming
 * every player, and the table hears nothing. */
static void watch(struct table_player *tp)
{
    char channel[32];
    size_t table_before = harness_new_messages(tp->h, tp->table);
    say(tp, tp->gm, "!illegal gm");
    size_t from = settle(tp);
    snprintf(channel, sizeof channel, "dm:%s", tp->gm);
    long view = -1;
    for (size_t i = from; i < tp->h->nlines; i++)
        if (line_in(tp->h->lines[i], channel))
            view = (long)i;
    assert_true(view >= 0);
    for (unsigned s = 0; s < tp->n; s++)
        assert_non_null(strstr(line_str(tp->h->lines[view], "text"), tp->users[s]));
    assert_int_equal(harness_new_messages(tp->h, tp->table), table_before);
    tp->gm_views++;
}

void tp_play_to_end(struct table_player *tp)
{
    for (unsigned steps = 0; tp->phase != TP_OVER; steps++) {
        assert_true(steps < 400);
        tp_step(tp);
        if (tp->gm[0] && !tp->gm_follows && tp->phase != TP_OVER)
            watch(tp);
    }
    assert_int_equal(tp->sessions_seen, 5);
    assert_int_equal(tp->drops_seen, 4);
}

int tp_score(const struct table_player *tp, const char *user)
{
    struct json_object *scores, *v;
    assert_true(tp->game_over_line >= 0);
    assert_true(json_object_object_get_ex(tp->h->lines[tp->game_over_line], "scores", &scores));
    assert_true(json_object_object_get_ex(scores, user, &v));
    return json_object_get_int(v);
}

/* text with every suspect card's name (in lang) blotted out, into out: what
 * is left must name no role. */
static void without_suspects(const char *text, const char *lang, char *out, size_t len)
{
    snprintf(out, len, "%s", text);
    for (unsigned t = 0; t < IL_CARD_TYPES; t++) {
        if (IL_CARD_KIND(t) < IL_KIND_DEALER_SUSPECT)
            continue;
        char key[64];
        snprintf(key, sizeof key, "illegal.card.%s", il_card_id(t));
        const char *name = catalog_text(lang, key);
        for (char *p = strstr(out, name); p; p = strstr(p, name))
            memset(p, '#', strlen(name));
    }
}

static const char *role_name(const char *lang, unsigned kind, const char *resource)
{
    char key[64];
    snprintf(key, sizeof key, "illegal.card.%s",
             il_card_id(IL_CARD(kind, il_resource_from_id(resource))));
    return catalog_text(lang, key);
}

/* Private messages: none of their fixed words may reach the table. */
static const char *const private_keys[] = {
    "illegal.msg.gm-view",
    "illegal.msg.gm-seat",
    "illegal.msg.dealt",
    "illegal.msg.hand",
    "illegal.msg.hand-suspects",
    "illegal.msg.offer-sent",
    "illegal.msg.offer-received",
    "illegal.msg.vote-recorded",
    "illegal.msg.abstained",
    "illegal.msg.drew",
    "illegal.msg.offer-accepted-offerer",
    "illegal.msg.offer-accepted-receiver",
};

void tp_check_secrets(const struct table_player *tp)
{
    const struct harness *h = tp->h;
    static const char *const english_words[] = {"Your ", "Offer #", "offer #",
                                                "You ",  "hand:",   "vote on case"};
    char words[sizeof private_keys / sizeof *private_keys][256];
    for (size_t k = 0; k < sizeof private_keys / sizeof *private_keys; k++)
        harness_fixed_words(tp->lang, private_keys[k], words[k], sizeof words[k]);
    bool revealed = false, english = strcmp(tp->lang, "en") == 0;
    for (size_t i = 0; i < h->nlines; i++) {
        const struct json_object *l = h->lines[i];
        const char *text = line_str(l, "text");
        const char *kind = line_str(l, "kind");
        const char *channel = line_str(l, "channel");
        char rest[4096];
        if (!text || !channel)
            continue;
        without_suspects(text, tp->lang, rest, sizeof rest);
        if (kind && strcmp(kind, "result") == 0 && strcmp(channel, tp->table) == 0)
            revealed = true;
        if (strcmp(channel, tp->table) == 0 && !revealed) {
            for (size_t w = 0; english && w < sizeof english_words / sizeof *english_words; w++)
                if (strstr(text, english_words[w])) {
                    fprintf(stderr, "leak in table line %zu: %s\n", i, text);
                    fail();
                }
            for (size_t w = 0; w < sizeof words / sizeof *words; w++)
                if (strlen(words[w]) >= 6 && strstr(text, words[w])) {
                    fprintf(stderr, "private words \"%s\" in table line %zu: %s\n", words[w], i,
                            text);
                    fail();
                }
            assert_null(line_data(l, "hand"));
            assert_null(line_data(l, "dealer"));
            for (unsigned s = 0; s < tp->n; s++) {
                if (strstr(rest, role_name(tp->lang, IL_KIND_DEALER, tp->dealer[s])) ||
                    strstr(rest, role_name(tp->lang, IL_KIND_BUYER, tp->buyer[s]))) {
                    fprintf(stderr, "role leak in table line %zu: %s\n", i, text);
                    fail();
                }
            }
        } else if (strncmp(channel, "dm:", 3) == 0) {
            int me = tp_seat_of(tp, channel + 3);
            if (me < 0)
                continue;
            for (unsigned s = 0; s < tp->n; s++) {
                if ((int)s == me || !strcmp(tp->dealer[s], tp->dealer[me]) ||
                    !strcmp(tp->buyer[s], tp->buyer[me]))
                    continue;
                if (strstr(rest, role_name(tp->lang, IL_KIND_DEALER, tp->dealer[s])) ||
                    strstr(rest, role_name(tp->lang, IL_KIND_BUYER, tp->buyer[s]))) {
                    fprintf(stderr, "role leak in %s line %zu: %s\n", channel, i, text);
                    fail();
                }
            }
        }
    }
}

void tp_record_game(struct harness *h, uint64_t seed, unsigned players, const char *variant,
                    char *scores, size_t len)
{
    struct table_player tp;
    harness_init(h, seed);
    tp_open(&tp, h, "t1", players, variant);
    tp.text_only = true;
    tp_play_to_end(&tp);
    harness_scores(h, "t1", scores, len);
    assert_int_equal(harness_finish(h), 0);
}

void tp_check_same_result(struct harness *h, const char *scores)
{
    char got[1024];
    harness_scores(h, "t1", got, sizeof got);
    assert_string_equal(got, scores);
    assert_int_equal(harness_count(h, "game_over"), 1);
    assert_int_equal(harness_finish(h), 0);
}

bool tp_won(const struct table_player *tp, const char *user)
{
    struct json_object *winners;
    assert_true(tp->game_over_line >= 0);
    assert_true(json_object_object_get_ex(tp->h->lines[tp->game_over_line], "winners", &winners));
    for (size_t i = 0; i < json_object_array_length(winners); i++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(winners, i)), user) == 0)
            return true;
    return false;
}
