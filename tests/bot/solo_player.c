/*
 * solo_player.c - one person at a console table of computer players.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "core/illegal/illegal.h"
#include "solo_player.h"

#define ME        "p1"
#define TABLE     "t1"
#define STEP_SECS 3    /* the clock between two looks of the person */
#define MAX_STEPS 4000 /* a game that runs longer is stuck */

static void say(struct solo_player *sp, const char *text)
{
    harness_message(sp->h, TABLE, ME, text, false);
}

static void dm(struct solo_player *sp, const char *text)
{
    harness_message(sp->h, "dm", ME, text, false);
}

/* The seats as the lobby lists them. */
static void read_lobby(struct solo_player *sp, const struct json_object *line)
{
    struct json_object *players = line_data(line, "players");
    sp->nseats = 0;
    for (size_t i = 0; players && i < json_object_array_length(players) && i < 8; i++) {
        struct json_object *p = json_object_array_get_idx(players, i), *id;
        if (json_object_object_get_ex(p, "id", &id))
            snprintf(sp->seats[sp->nseats++], sizeof sp->seats[0], "%s",
                     json_object_get_string(id));
    }
}

static void read_hand(struct solo_player *sp, const struct json_object *line)
{
    struct json_object *hand = line_data(line, "hand");
    const char *buyer = line_data_str(line, "buyer");
    assert_non_null(hand);
    assert_non_null(buyer);
    sp->buyer = il_resource_from_id(buyer);
    memset(sp->hand, 0, sizeof sp->hand);
    json_object_object_foreach(hand, id, count)
    {
        int r = il_resource_from_id(id);
        if (r >= 0)
            sp->hand[r] = json_object_get_int(count);
    }
}

static bool answered(const struct solo_player *sp, int id)
{
    for (unsigned i = 0; i < sp->nanswered; i++)
        if (sp->answered[i] == id)
            return true;
    return false;
}

/* The count of the buyer's goods in a bundle {"guns":1}. */
static int goods_in(const struct solo_player *sp, const char *key, const struct json_object *line)
{
    struct json_object *b = line_data(line, key), *n;
    return b && sp->buyer >= 0 &&
                   json_object_object_get_ex(b, il_resource_id((unsigned)sp->buyer), &n)
               ? json_object_get_int(n)
               : 0;
}

/* The command of the i-th choice of a message, or NULL. */
static const char *choice_command(struct json_object *choices, size_t i)
{
    return json_object_get_string(
        json_object_object_get(json_object_array_get_idx(choices, i), "command"));
}

/* An offer made to p1: accepted when it brings p1's goods and asks none of
 * them, declined otherwise; each once. */
static void answer_offer(struct solo_player *sp, const struct json_object *line)
{
    struct json_object *actions = line_data(line, "choices"), *id = line_data(line, "offer");
    if (!actions || !id || json_object_array_length(actions) != 2)
        return; /* one of p1's own: nothing to answer */
    int offer = json_object_get_int(id);
    if (answered(sp, offer) || sp->nanswered == sizeof sp->answered / sizeof *sp->answered)
        return;
    sp->answered[sp->nanswered++] = offer;
    bool take = goods_in(sp, "give", line) > 0 && goods_in(sp, "ask", line) == 0;
    dm(sp, choice_command(actions, take ? 0 : 1));
    sp->moves++;
}

static void read_drop(struct solo_player *sp, const struct json_object *line)
{
    struct json_object *shown = line_data(line, "shown"), *taken = line_data(line, "taken");
    struct json_object *open = line_data(line, "open"), *drop = line_data(line, "drop");
    sp->drop = drop ? (unsigned)json_object_get_int(drop) : sp->drop;
    sp->drop_open = open && json_object_get_boolean(open);
    sp->ndrop = 0;
    for (size_t i = 0; shown && i < json_object_array_length(shown) && i < 8; i++) {
        snprintf(sp->drop_cards[i], sizeof sp->drop_cards[0], "%s",
                 json_object_get_string(json_object_array_get_idx(shown, i)));
        sp->drop_taken[i] = taken && json_object_get_boolean(json_object_array_get_idx(taken, i));
        sp->ndrop++;
    }
}

/* A vote message: p1 votes on its case with its first action naming
 * someone else, or abstains on every third case. */
static void read_vote(struct solo_player *sp, const struct json_object *line)
{
    struct json_object *actions = line_data(line, "choices"), *number = line_data(line, "case");
    unsigned n = actions ? (unsigned)json_object_array_length(actions) : 0;
    unsigned k = number ? (unsigned)json_object_get_int(number) : 0;
    if (!n || sp->nvotes == sizeof sp->votes / sizeof *sp->votes)
        return;
    const char *pick = choice_command(actions, n - 1);
    for (unsigned i = 0; k % 3 != 2 && i < n; i++) {
        const char *a = choice_command(actions, (i + k) % n);
        if (strncmp(a, "vote", 4) == 0 && !strstr(a, " " ME)) {
            pick = a;
            break;
        }
    }
    snprintf(sp->votes[sp->nvotes++], sizeof sp->votes[0], "%s", pick);
}

static bool tells(const struct json_object *line, const char *event)
{
    const char *e = line_data_str(line, "event");
    struct json_object *all = line_data(line, "events");
    if (e && strcmp(e, event) == 0)
        return true;
    for (size_t k = 0; all && k < json_object_array_length(all); k++)
        if (strcmp(json_object_get_string(json_object_array_get_idx(all, k)), event) == 0)
            return true;
    return false;
}

/* Reads what reached p1 and the table since the last look. */
static void scan(struct solo_player *sp)
{
    struct harness *h = sp->h;
    for (; sp->scanned < h->nlines; sp->scanned++) {
        const struct json_object *l = h->lines[sp->scanned];
        const char *type = line_str(l, "type"), *kind = line_str(l, "kind");
        if (!type || !line_str(l, "channel"))
            continue;
        if (strcmp(type, "game_over") == 0 && line_in(l, TABLE)) {
            sp->over = true;
            sp->game_over_line = (long)sp->scanned;
        } else if (line_in(l, "dm:" ME) && kind && strcmp(kind, "hand") == 0) {
            read_hand(sp, l);
        } else if (line_in(l, "dm:" ME) && kind && strcmp(kind, "offer") == 0) {
            answer_offer(sp, l);
        } else if (!line_in(l, TABLE)) {
            continue;
        } else if (kind && strcmp(kind, "lobby") == 0) {
            read_lobby(sp, l);
        } else if (kind && strcmp(kind, "drop") == 0) {
            read_drop(sp, l);
        } else if (strcmp(type, "poll") == 0) {
            read_vote(sp, l);
        } else {
            if (tells(l, "tribunal-held"))
                sp->held = true;
            if (tells(l, "session-opened"))
                sp->session++;
        }
    }
}

/* p1's moves of the moment: a trade offer once a session, a grab, the votes
 * owed, and the held tribunal opened. */
static void move(struct solo_player *sp)
{
    char text[256];
    if (sp->offered != sp->session && sp->buyer >= 0 && sp->nseats > 1) {
        int spare = -1;
        for (int r = 0; r < IL_RESOURCES; r++)
            if (r != sp->buyer && sp->hand[r] > 0 && (spare < 0 || sp->hand[r] > sp->hand[spare]))
                spare = r;
        sp->offered = sp->session;
        if (spare >= 0) {
            snprintf(text, sizeof text, "offer %s 1 %s for 1 %s",
                     sp->seats[1 + sp->session % (sp->nseats - 1)], il_resource_id((unsigned)spare),
                     il_resource_id((unsigned)sp->buyer));
            dm(sp, text);
            sp->moves++;
        }
    }
    if (sp->drop_open && sp->grabbed != sp->drop) {
        int pick = -1;
        for (unsigned i = 0; i < sp->ndrop; i++)
            if (!sp->drop_taken[i] &&
                (pick < 0 || il_resource_from_id(sp->drop_cards[i]) == sp->buyer))
                pick = (int)i;
        if (pick >= 0) {
            snprintf(text, sizeof text, "!illegal grab %s", sp->drop_cards[pick]);
            say(sp, text);
            sp->grabbed = sp->drop;
            sp->moves++;
        }
    }
    for (unsigned i = 0; i < sp->nvotes; i++) {
        dm(sp, sp->votes[i]);
        sp->moves++;
    }
    sp->nvotes = 0;
    if (sp->held) {
        say(sp, "!illegal next");
        sp->held = false;
    }
}

void solo_open(struct solo_player *sp, struct harness *h, const struct solo_game *game)
{
    char text[128];
    memset(sp, 0, sizeof *sp);
    sp->h = h;
    sp->buyer = -1;
    sp->game_over_line = -1;
    sp->scanned = h->nlines;
    snprintf(text, sizeof text, "!illegal new %s", game->variant);
    say(sp, text);
    say(sp, "!illegal join");
    for (unsigned i = 0; i < game->computers; i++)
        say(sp, i % 3 == 2 ? "!illegal add computer easy" : "!illegal add computer");
    /* Short steps, whatever the variant: the computers' pace is a person's. */
    say(sp, "!illegal set session 60");
    say(sp, "!illegal set grab 15");
    say(sp, "!illegal set debate 20");
    say(sp, "!illegal set vote 15");
    snprintf(text, sizeof text, "!illegal set tribunal %s", game->tribunal);
    say(sp, text);
    if (game->stand_in) {
        snprintf(text, sizeof text, "!illegal set stand-in %s", game->stand_in);
        say(sp, text);
    }
    say(sp, "!illegal start");
    harness_sync(h);
    scan(sp);
    assert_int_equal(sp->nseats, game->computers + 1);
    assert_true(sp->buyer >= 0); /* p1 was dealt a hand */
}

void solo_play_to_end(struct solo_player *sp)
{
    while (!sp->over) {
        assert_true(++sp->steps < MAX_STEPS);
        move(sp);
        harness_sendf(sp->h, "{\"type\":\"advance\",\"seconds\":%d}", STEP_SECS);
        harness_sync(sp->h);
        scan(sp);
    }
}

void solo_check_secrets(const struct solo_player *sp)
{
    const struct harness *h = sp->h;
    struct table_player tp;
    memset(&tp, 0, sizeof tp);
    tp.h = (struct harness *)h;
    snprintf(tp.table, sizeof tp.table, TABLE);
    snprintf(tp.lang, sizeof tp.lang, "en");
    /* Nothing of a computer's own is sent anywhere (K4). */
    for (size_t i = 0; i < h->nlines; i++) {
        const char *channel = line_str(h->lines[i], "channel");
        assert_false(channel && strncmp(channel, "dm:cpu:", 7) == 0);
    }
    /* Every seat's roles, as the result reveals them, stay off the table
     * until then (tp_check_secrets). */
    long result = -1;
    for (size_t i = 0; i < h->nlines; i++) {
        const char *kind = line_str(h->lines[i], "kind");
        if (kind && strcmp(kind, "result") == 0 && line_in(h->lines[i], TABLE))
            result = (long)i;
    }
    assert_true(result >= 0);
    struct json_object *reveal = line_data(h->lines[result], "reveal");
    assert_non_null(reveal);
    for (size_t i = 0; i < json_object_array_length(reveal) && tp.n < 8; i++) {
        struct json_object *r = json_object_array_get_idx(reveal, i), *player, *id, *v;
        assert_true(json_object_object_get_ex(r, "player", &player));
        assert_true(json_object_object_get_ex(player, "id", &id));
        snprintf(tp.users[tp.n], sizeof tp.users[0], "%s", json_object_get_string(id));
        assert_true(json_object_object_get_ex(r, "dealer", &v));
        snprintf(tp.dealer[tp.n], sizeof tp.dealer[0], "%s", json_object_get_string(v));
        assert_true(json_object_object_get_ex(r, "buyer", &v));
        snprintf(tp.buyer[tp.n], sizeof tp.buyer[0], "%s", json_object_get_string(v));
        tp.n++;
    }
    assert_int_equal(tp.n, sp->nseats);
    tp_check_secrets(&tp);
}
