/*
 * test_game_record.c - a hosted game's record survives game_to_json, a trip
 * through text, and game_from_json unchanged, and its image reads back as
 * the record does; damaged records and images are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <json-c/json.h>
#include <cmocka.h>

#include "bot/chat.h"
#include "bot/game.h"
#include "bot/image.h"
#include "bot/seats.h"
#include "core/illegal/module.h"

/* The Illegal state of a game. */
#define IL(g) ((struct il_state *)(g)->state)

static struct il_state g_state;

#define T0 1700000000000LL

static struct il_events events;

static const char *const users[] = {
    "alice", "<@123456789012345678>", "@carol:example.org", "dave", "erin", "frank", "grace",
    "heidi"};
static const char *const display[] = {
    "Alice", "Bob \"the Builder\"", "Carol", "", "Érin ✓", "Frank", "Grace", "Heidi"};

/* A started game of n players, set up from seed. */
static void make_game(struct game *g, unsigned n, enum il_variant v, uint64_t seed)
{
    static struct il_state state;
    memset(g, 0, sizeof *g);
    memset(&state, 0, sizeof state);
    g->rules = &il_module;
    g->state = &state;
    snprintf(g->id, sizeof g->id, "g7");
    snprintf(g->table, sizeof g->table, "!room:example.org");
    snprintf(g->host, sizeof g->host, "%s", users[0]);
    snprintf(g->language, sizeof g->language, "en");
    il_config_default(&IL(g)->config, v);
    IL(g)->config.timer_ms[IL_TIMER_DEBATE] = 45000;
    g->nseats = n;
    for (unsigned i = 0; i < n; i++) {
        snprintf(g->seats[i].user, sizeof g->seats[i].user, "%s", users[i]);
        snprintf(g->seats[i].name, sizeof g->seats[i].name, "%s", display[i]);
    }
    g->seed = seed;
    rng_seed(&g->rng, seed);
    events.n = 0;
    assert_int_equal(il_game_setup(&IL(g)->game, &IL(g)->config, n, T0, &g->rng, &events), IL_OK);
    g->started = true;
    g->tracked_deadline = IL(g)->game.deadline;
    g->phase_length = IL(g)->config.timer_ms[IL_TIMER_SESSION];
    g->reminders_sent = 5;
    g->seats[1].reminders_off = true;
    g->seats[2].last_move = T0 + 5000;
    g->seats[2].absent_warned = true;
    assert_int_equal(seats_note_insider(g, "the-host"), 0);
    seats_note_kicked(g, "troll");
    seats_note_kicked(g, "another");
}

/* Serialises g to text and parses it back into a fresh json object. */
static struct json_object *to_json_and_back(const struct game *g)
{
    struct json_object *j = game_to_json(g);
    assert_non_null(j);
    const char *text = json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN);
    assert_non_null(text);
    struct json_object *back = json_tokener_parse(text);
    assert_non_null(back);
    json_object_put(j);
    return back;
}

static void assert_same_game(const struct game *a, const struct game *b)
{
    assert_string_equal(a->id, b->id);
    assert_null(b->platform);
    assert_string_equal(a->table, b->table);
    assert_string_equal(a->host, b->host);
    assert_string_equal(a->language, b->language);
    assert_int_equal(a->started, b->started);
    assert_int_equal(a->nseats, b->nseats);
    for (unsigned i = 0; i < a->nseats; i++) {
        assert_string_equal(a->seats[i].user, b->seats[i].user);
        assert_string_equal(a->seats[i].name, b->seats[i].name);
        assert_false(b->seats[i].dm_unreachable);
        assert_int_equal(a->seats[i].reminders_off, b->seats[i].reminders_off);
        assert_int_equal(a->seats[i].absent_warned, b->seats[i].absent_warned);
        if (a->started) /* kept from the start on */
            assert_int_equal(a->seats[i].last_move, b->seats[i].last_move);
    }
    assert_int_equal(IL(a)->config.tribunal, IL(b)->config.tribunal);
    assert_int_equal(IL(a)->config.variant, IL(b)->config.variant);
    assert_int_equal(IL(a)->config.resources, IL(b)->config.resources);
    for (unsigned t = 0; t < IL_TIMERS; t++)
        assert_int_equal(IL(a)->config.timer_ms[t], IL(b)->config.timer_ms[t]);
    assert_true(a->seed == b->seed);
    assert_memory_equal(&a->rng, &b->rng, sizeof a->rng);
    assert_int_equal(a->tracked_deadline, b->tracked_deadline);
    assert_int_equal(a->phase_length, b->phase_length);
    assert_int_equal(a->reminders_sent, b->reminders_sent);
    assert_int_equal(b->probes_pending, 0);
    assert_int_equal(a->ninsiders, b->ninsiders);
    assert_memory_equal(a->insiders, b->insiders, sizeof a->insiders);
    assert_int_equal(a->nkicked, b->nkicked);
    assert_memory_equal(a->kicked, b->kicked, sizeof a->kicked);
    if (a->started)
        assert_memory_equal(&IL(a)->game, &IL(b)->game, sizeof IL(a)->game);
}

/* record_of(g): g's record as text, which the caller frees. */
static char *record_of(const struct game *g)
{
    struct json_object *j = game_to_json(g);
    assert_non_null(j);
    char *text = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
    assert_non_null(text);
    json_object_put(j);
    return text;
}

/* g's image (bot/image.h) reads back as its record did (from_record): the
 * same record written again, the same rules state byte for byte; and a
 * damaged image (cut anywhere, a byte changed) is refused, one of another
 * build passed over. */
static void image_round_trip(const struct game *g, const struct game *from_record)
{
    struct buf b;
    buf_init(&b, IMAGE_BYTES_MAX);
    int rc = image_write(g, &b);
    assert_int_equal(rc, 0);
    struct game *back = malloc(sizeof *back);
    assert_non_null(back);
    char why[128] = "";
    if (image_read(back, b.data, b.len, why, sizeof why) != 0)
        fail_msg("image refused: %s", why);
    char *want = record_of(from_record), *got = record_of(back);
    assert_string_equal(got, want);
    free(want);
    free(got);
    /* the game its record gives has the very image: no byte of it is left unset */
    struct buf again;
    buf_init(&again, IMAGE_BYTES_MAX);
    assert_int_equal(image_write(from_record, &again), 0);
    assert_int_equal(again.len, b.len);
    assert_memory_equal(again.data, b.data, b.len);
    buf_free(&again);
    if (g->started)
        assert_memory_equal(back->state, from_record->state, g->rules->state_size);
    game_free(back);
    for (size_t n = 0; n < b.len; n += 13) {
        assert_int_equal(image_read(back = malloc(sizeof *back), b.data, n, why, sizeof why), -1);
        free(back);
    }
    size_t at[] = {b.len / 2, b.len - 1, 4 /* the format */, 8 /* the build id */};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++) {
        b.data[at[i]] ^= 0x20;
        rc = image_read(back = malloc(sizeof *back), b.data, b.len, why, sizeof why);
        assert_int_equal(rc, i < 2 ? -1 : 1);
        free(back);
        b.data[at[i]] ^= 0x20;
    }
    buf_free(&b);
}

static void round_trip(const struct game *g)
{
    struct json_object *j = to_json_and_back(g);
    struct game *back = malloc(sizeof *back);
    assert_non_null(back);
    memset(back, 0xa5, sizeof *back);
    char why[128] = "";
    if (game_from_json(back, j, why, sizeof why) != 0)
        fail_msg("round trip refused: %s", why);
    assert_ptr_equal(back->rules, &il_module);
    back->platform = NULL;
    assert_same_game(g, back);

    /* Writing the restored record again gives the same text. */
    struct json_object *again = game_to_json(back);
    assert_string_equal(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
                        json_object_to_json_string_ext(again, JSON_C_TO_STRING_PLAIN));
    json_object_put(again);
    json_object_put(j);
    image_round_trip(g, back);
    free(back->state);
    free(back->chat);
    free(back);
}

static void test_round_trip_fresh_games(void **state)
{
    (void)state;
    static struct game g;
    /* Seeds and rng words use all 64 bits: they must not pass through a double. */
    static const uint64_t seeds[] = {1, 42, 0xFFFFFFFFFFFFFFFFULL, 0x8000000000000001ULL};
    for (unsigned n = IL_MIN_PLAYERS; n <= IL_MAX_PLAYERS; n++)
        for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
            make_game(&g, n, (enum il_variant)((n + s) % 3), seeds[s]);
            round_trip(&g);
        }
}

static void test_round_trip_mid_game(void **state)
{
    (void)state;
    static struct game g;
    make_game(&g, 5, IL_VARIANT_STANDARD, 7);
    /* Open offers, a trade, a pause: all of it is in the record. */
    struct il_action a = {.type = IL_ACT_OFFER, .player = 0, .target = 1};
    a.give.n[IL(&g)->game.players[0].dealer] = 2;
    a.ask.n[IL(&g)->game.players[1].dealer] = 1;
    events.n = 0;
    assert_int_equal(il_game_apply(&IL(&g)->game, &a, T0 + 1000, &g.rng, &events), IL_OK);
    struct il_action b = {.type = IL_ACT_OFFER, .player = 2, .target = 3};
    b.give.n[IL(&g)->game.players[2].dealer] = 1;
    events.n = 0;
    assert_int_equal(il_game_apply(&IL(&g)->game, &b, T0 + 2000, &g.rng, &events), IL_OK);
    struct il_action acc = {.type = IL_ACT_ACCEPT, .player = 3, .offer_id = 2};
    events.n = 0;
    assert_int_equal(il_game_apply(&IL(&g)->game, &acc, T0 + 3000, &g.rng, &events), IL_OK);
    struct il_action pause = {.type = IL_ACT_PAUSE, .player = IL_GM};
    events.n = 0;
    assert_int_equal(il_game_apply(&IL(&g)->game, &pause, T0 + 4000, &g.rng, &events), IL_OK);
    g.reminders_sent = 3;
    assert_int_equal(IL(&g)->game.noffers, 1);
    assert_true(IL(&g)->game.paused);
    round_trip(&g);

    /* And after ticking through to the tribunal and the end. */
    struct il_action resume = {.type = IL_ACT_RESUME, .player = IL_GM};
    events.n = 0;
    assert_int_equal(il_game_apply(&IL(&g)->game, &resume, T0 + 5000, &g.rng, &events), IL_OK);
    int64_t now = T0 + 5000;
    bool saw_vote = false;
    for (int i = 0; i < 500 && IL(&g)->game.phase != IL_PHASE_OVER; i++) {
        now = IL(&g)->game.deadline;
        struct il_action tick = {.type = IL_ACT_TICK};
        events.n = 0;
        assert_int_equal(il_game_apply(&IL(&g)->game, &tick, now, &g.rng, &events), IL_OK);
        if (IL(&g)->game.phase == IL_PHASE_VOTE && !saw_vote) {
            saw_vote = true;
            round_trip(&g);
        }
    }
    assert_true(saw_vote);
    assert_int_equal(IL(&g)->game.phase, IL_PHASE_OVER);
    round_trip(&g);
}

/* A table's chat is kept with its game: its last GAME_CHAT_LINES lines, and a
 * new line never changes the block the game had (turn.c keeps that one). */
static void test_chat(void **state)
{
    (void)state;
    static struct game g;
    make_game(&g, 4, IL_VARIANT_STANDARD, 3);
    struct game_chat *first = NULL;
    for (int i = 0; i < GAME_CHAT_LINES + 5; i++) {
        char text[32];
        snprintf(text, sizeof text, "line %d", i);
        struct game_chat *next = chat_with(g.chat, users[i % 4], display[i % 4], text, T0 + i);
        assert_non_null(next);
        if (i == 0)
            first = next;
        else if (g.chat != first)
            free(g.chat);
        g.chat = next;
    }
    assert_int_equal(first->n, 1); /* never changed since */
    assert_string_equal(first->lines[0].text, "line 0");
    free(first);
    assert_int_equal(g.chat->n, GAME_CHAT_LINES);
    assert_string_equal(g.chat->lines[0].text, "line 5");
    assert_string_equal(g.chat->lines[GAME_CHAT_LINES - 1].text, "line 24");
    round_trip(&g);
    /* a line longer than the chat keeps, or a user id too long, makes no block */
    char big[CHAT_TEXT_MAX + 8];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_null(chat_with(g.chat, users[0], display[0], big, T0));
    free(g.chat);
    g.chat = NULL;
}

static void test_round_trip_lobby(void **state)
{
    (void)state;
    static struct game g;
    memset(&g, 0, sizeof g);
    g.rules = &il_module;
    g.state = &g_state;
    snprintf(g.id, sizeof g.id, "g12345");
    snprintf(g.table, sizeof g.table, "t1");
    snprintf(g.host, sizeof g.host, "alice");
    snprintf(g.language, sizeof g.language, "en");
    il_config_default(&IL(&g)->config, IL_VARIANT_CASUAL);
    IL(&g)->config.resources = 0x0F;
    IL(&g)->config.tribunal = IL_TRIBUNAL_HOLD | IL_TRIBUNAL_CLOSE_EARLY;
    g.seed = 99;
    rng_seed(&g.rng, 99);
    round_trip(&g); /* no seats at all */
    g.nseats = 2;
    snprintf(g.seats[0].user, sizeof g.seats[0].user, "alice");
    snprintf(g.seats[1].user, sizeof g.seats[1].user, "bob");
    snprintf(g.seats[1].name, sizeof g.seats[1].name, "Bob");
    round_trip(&g);

    /* A lobby record carries no rules state. */
    struct json_object *j = game_to_json(&g);
    struct json_object *v;
    assert_false(json_object_object_get_ex(j, "state", &v));
    json_object_put(j);
}

/* ---- damaged records ------------------------------------------------------ */

static struct game base;

static int base_setup(void **state)
{
    (void)state;
    make_game(&base, 5, IL_VARIANT_ADVANCED, 2024);
    return 0;
}

/* Asserts that the record with `edit` applied is refused, and out untouched. */
static void refuse(void (*edit)(struct json_object *), const char *what)
{
    struct json_object *j = to_json_and_back(&base);
    edit(j);
    static struct game out;
    memset(&out, 0x3c, sizeof out);
    char why[128] = "";
    if (game_from_json(&out, j, why, sizeof why) == 0)
        fail_msg("a record with %s was accepted", what);
    assert_true(why[0] != '\0');
    for (size_t i = 0; i < sizeof out; i++)
        if (((unsigned char *)&out)[i] != 0x3c)
            fail_msg("%s: the output changed at byte %zu", what, i);
    json_object_put(j);
}

static struct json_object *seats_of(struct json_object *j)
{
    struct json_object *v;
    assert_true(json_object_object_get_ex(j, "seats", &v));
    return v;
}

static struct json_object *child(struct json_object *j, const char *k)
{
    struct json_object *v;
    assert_true(json_object_object_get_ex(j, k, &v));
    return v;
}

static void del_id(struct json_object *j)
{
    json_object_object_del(j, "id");
}
static void del_table(struct json_object *j)
{
    json_object_object_del(j, "table");
}
static void del_host(struct json_object *j)
{
    json_object_object_del(j, "host");
}
static void del_language(struct json_object *j)
{
    json_object_object_del(j, "language");
}
static void id_not_string(struct json_object *j)
{
    json_object_object_add(j, "id", json_object_new_int(7));
}
static void id_too_long(struct json_object *j)
{
    json_object_object_add(j, "id", json_object_new_string("g123456789012345678901234"));
}
static void table_too_long(struct json_object *j)
{
    char t[GAME_TEXT_MAX + 10];
    memset(t, 't', sizeof t - 1);
    t[sizeof t - 1] = '\0';
    json_object_object_add(j, "table", json_object_new_string(t));
}
static void del_started(struct json_object *j)
{
    json_object_object_del(j, "started");
}
static void started_not_bool(struct json_object *j)
{
    json_object_object_add(j, "started", json_object_new_int(1));
}
static void bad_variant(struct json_object *j)
{
    json_object_object_add(j, "variant", json_object_new_string("speed"));
}
static void del_variant(struct json_object *j)
{
    json_object_object_del(j, "variant");
}
static void bad_resources(struct json_object *j)
{
    json_object_object_add(j, "resources", json_object_new_int(256));
}
static void negative_resources(struct json_object *j)
{
    json_object_object_add(j, "resources", json_object_new_int(-1));
}
static void del_timers(struct json_object *j)
{
    json_object_object_del(j, "timers");
}
static void del_one_timer(struct json_object *j)
{
    json_object_object_del(child(j, "timers"), "vote");
}
static void timer_too_short(struct json_object *j)
{
    json_object_object_add(child(j, "timers"), "session",
                           json_object_new_int64(IL_TIMER_MIN_MS - 1));
}
static void timer_too_long(struct json_object *j)
{
    json_object_object_add(child(j, "timers"), "grab", json_object_new_int64(IL_TIMER_MAX_MS + 1));
}
static void timer_negative(struct json_object *j)
{
    json_object_object_add(child(j, "timers"), "debate", json_object_new_int64(-60000));
}
static void timer_as_string(struct json_object *j)
{
    json_object_object_add(child(j, "timers"), "reveal", json_object_new_string("2000"));
}
static void del_seats(struct json_object *j)
{
    json_object_object_del(j, "seats");
}
static void seats_not_array(struct json_object *j)
{
    json_object_object_add(j, "seats", json_object_new_object());
}
static void seat_dropped(struct json_object *j)
{
    struct json_object *seats = seats_of(j);
    json_object_array_del_idx(seats, json_object_array_length(seats) - 1, 1);
}
static void seat_added(struct json_object *j)
{
    struct json_object *s = json_object_new_object();
    json_object_object_add(s, "user", json_object_new_string("mallory"));
    json_object_object_add(s, "name", json_object_new_string("Mallory"));
    json_object_array_add(seats_of(j), s);
}
static void nine_seats(struct json_object *j)
{
    while (json_object_array_length(seats_of(j)) < IL_MAX_PLAYERS + 1)
        seat_added(j);
}
static void seat_without_user(struct json_object *j)
{
    json_object_object_del(json_object_array_get_idx(seats_of(j), 2), "user");
}
static void seat_not_object(struct json_object *j)
{
    json_object_array_put_idx(seats_of(j), 1, json_object_new_string("bob"));
}
static void del_seed(struct json_object *j)
{
    json_object_object_del(j, "seed");
}
static void seed_not_number(struct json_object *j)
{
    json_object_object_add(j, "seed", json_object_new_string("12abc"));
}
static void seed_empty(struct json_object *j)
{
    json_object_object_add(j, "seed", json_object_new_string(""));
}
static void del_rng(struct json_object *j)
{
    json_object_object_del(j, "rng");
}
static void rng_short(struct json_object *j)
{
    json_object_array_del_idx(child(j, "rng"), 3, 1);
}
static void rng_long(struct json_object *j)
{
    json_object_array_add(child(j, "rng"), json_object_new_string("5"));
}
static void rng_word_not_number(struct json_object *j)
{
    json_object_array_put_idx(child(j, "rng"), 2, json_object_new_string("0x12"));
}
static void rng_word_null(struct json_object *j)
{
    json_object_array_put_idx(child(j, "rng"), 0, NULL);
}
static void rng_not_array(struct json_object *j)
{
    json_object_object_add(j, "rng", json_object_new_string("1 2 3 4"));
}
static void del_tracked_deadline(struct json_object *j)
{
    json_object_object_del(j, "tracked_deadline");
}
static void del_phase_length(struct json_object *j)
{
    json_object_object_del(j, "phase_length");
}
static void bad_reminders(struct json_object *j)
{
    json_object_object_add(j, "reminders_sent", json_object_new_int(8));
}
static void negative_reminders(struct json_object *j)
{
    json_object_object_add(j, "reminders_sent", json_object_new_int(-1));
}
static void del_state(struct json_object *j)
{
    json_object_object_del(j, "state");
}
static void state_wrong_players(struct json_object *j)
{
    json_object_object_add(child(j, "state"), "nplayers", json_object_new_int(6));
}
static void state_not_object(struct json_object *j)
{
    json_object_object_add(j, "state", json_object_new_array());
}
static void state_missing_field(struct json_object *j)
{
    json_object_object_del(child(j, "state"), "phase");
}

static void insider_not_hex(struct json_object *j)
{
    json_object_array_put_idx(child(j, "insiders"), 0, json_object_new_string("0123456789abcdeg"));
}
static void insider_short(struct json_object *j)
{
    json_object_array_put_idx(child(j, "insiders"), 0, json_object_new_string("0123"));
}
static void kicked_not_array(struct json_object *j)
{
    json_object_object_add(j, "kicked", json_object_new_string("troll"));
}
static void kicked_too_many(struct json_object *j)
{
    struct json_object *a = child(j, "kicked");
    while (json_object_array_length(a) <= GAME_MAX_KICKED)
        json_object_array_add(a, json_object_new_string("00000000000000aa"));
}
static void chat_not_array(struct json_object *j)
{
    json_object_object_add(j, "chat", json_object_new_string("hello"));
}
static struct json_object *chat_line(const char *text)
{
    struct json_object *l = json_object_new_object();
    json_object_object_add(l, "user", json_object_new_string("u1"));
    json_object_object_add(l, "name", json_object_new_string("Ann"));
    if (text)
        json_object_object_add(l, "text", json_object_new_string(text));
    json_object_object_add(l, "at", json_object_new_int64(1));
    return l;
}
static void chat_too_long(struct json_object *j)
{
    struct json_object *a = json_object_new_array();
    for (int i = 0; i <= GAME_CHAT_LINES; i++)
        json_object_array_add(a, chat_line("hi"));
    json_object_object_add(j, "chat", a);
}
static void chat_line_without_text(struct json_object *j)
{
    struct json_object *a = json_object_new_array();
    json_object_array_add(a, chat_line(NULL));
    json_object_object_add(j, "chat", a);
}

static void test_damaged_records(void **state)
{
    (void)state;
    static const struct {
        void (*edit)(struct json_object *);
        const char *what;
    } cases[] = {
        {del_id, "no id"},
        {del_table, "no table"},
        {del_host, "no host"},
        {del_language, "no language"},
        {id_not_string, "a numeric id"},
        {id_too_long, "an id too long"},
        {table_too_long, "a table id too long"},
        {del_started, "no started"},
        {started_not_bool, "started not a bool"},
        {bad_variant, "an unknown variant"},
        {del_variant, "no variant"},
        {bad_resources, "resources 256"},
        {negative_resources, "resources -1"},
        {del_timers, "no timers"},
        {del_one_timer, "a timer missing"},
        {timer_too_short, "a timer too short"},
        {timer_too_long, "a timer too long"},
        {timer_negative, "a negative timer"},
        {timer_as_string, "a timer as a string"},
        {del_seats, "no seats"},
        {seats_not_array, "seats not an array"},
        {seat_dropped, "fewer seats than players"},
        {seat_added, "more seats than players"},
        {nine_seats, "nine seats"},
        {seat_without_user, "a seat without user"},
        {seat_not_object, "a seat that is a string"},
        {del_seed, "no seed"},
        {seed_not_number, "a seed that is no number"},
        {seed_empty, "an empty seed"},
        {del_rng, "no rng"},
        {rng_short, "three rng words"},
        {rng_long, "five rng words"},
        {rng_word_not_number, "an rng word in hex"},
        {rng_word_null, "a null rng word"},
        {rng_not_array, "rng not an array"},
        {del_tracked_deadline, "no tracked deadline"},
        {del_phase_length, "no phase length"},
        {bad_reminders, "reminders_sent 8"},
        {negative_reminders, "reminders_sent -1"},
        {del_state, "started with no state"},
        {state_wrong_players, "a state for 6 players at 5 seats"},
        {state_not_object, "a state that is an array"},
        {state_missing_field, "a state without phase"},
        {insider_not_hex, "an insider that is no hash"},
        {insider_short, "a short insider hash"},
        {kicked_not_array, "kicked not an array"},
        {kicked_too_many, "more kicked than kept"},
        {chat_not_array, "a chat that is a string"},
        {chat_too_long, "a chat of too many lines"},
        {chat_line_without_text, "a chat line without text"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
        refuse(cases[i].edit, cases[i].what);
}

static void test_not_an_object(void **state)
{
    (void)state;
    static struct game out;
    char why[64] = "";
    struct json_object *j = json_tokener_parse("[1,2,3]");
    assert_int_equal(game_from_json(&out, j, why, sizeof why), -1);
    assert_true(why[0] != '\0');
    json_object_put(j);
    j = json_object_new_object();
    assert_int_equal(game_from_json(&out, j, why, sizeof why), -1);
    json_object_put(j);
}

static void test_seat_helpers(void **state)
{
    (void)state;
    static struct game g;
    make_game(&g, 5, IL_VARIANT_STANDARD, 3);
    assert_int_equal(game_seat_of(&g, "alice"), 0);
    assert_int_equal(game_seat_of(&g, "@carol:example.org"), 2);
    assert_int_equal(game_seat_of(&g, "Alice"), -1);
    assert_int_equal(game_seat_of(&g, "frank"), -1); /* seat 5 is not taken */
    assert_string_equal(game_seat_name(&g, 0), "Alice");
    /* dave has no display name: his id stands in. */
    assert_string_equal(game_seat_name(&g, 3), "dave");
}

/* The seat rules' answers (docs/seats.md), and what the game remembers. */
static void test_seat_rules(void **state)
{
    (void)state;
    static struct game g;
    make_game(&g, 5, IL_VARIANT_STANDARD, 3);
    assert_int_equal(seats_check(&g, "alice"), SEAT_HELD);       /* S1 */
    assert_int_equal(seats_check(&g, "troll"), SEAT_KICKED);     /* S8 */
    assert_int_equal(seats_check(&g, "the-host"), SEAT_INSIDER); /* S4 */
    assert_int_equal(seats_check(&g, "newcomer"), SEAT_OK);
    g.started = false; /* a lobby has no secrets yet */
    assert_int_equal(seats_check(&g, "the-host"), SEAT_OK);
    assert_int_equal(seats_check(&g, "troll"), SEAT_KICKED);
    g.started = true;
    /* Insiders are never forgotten: once full, nobody new is noted. */
    char user[32];
    for (unsigned i = g.ninsiders; i < GAME_MAX_INSIDERS; i++) {
        snprintf(user, sizeof user, "insider-%u", i);
        assert_int_equal(seats_note_insider(&g, user), 0);
    }
    assert_int_equal(seats_note_insider(&g, "the-host"), 0); /* already known */
    assert_int_equal(seats_note_insider(&g, "one-more"), -1);
    assert_int_equal(seats_check(&g, "one-more"), SEAT_OK);
    /* Kicks: the oldest goes when the list is full. */
    for (unsigned i = 0; i < GAME_MAX_KICKED; i++) {
        snprintf(user, sizeof user, "kicked-%u", i);
        seats_note_kicked(&g, user);
    }
    assert_int_equal(g.nkicked, GAME_MAX_KICKED);
    assert_false(seats_kicked(&g, "troll"));
    assert_true(seats_kicked(&g, "kicked-0"));
    /* S8, S9: a rematch keeps them until its host forgives. */
    static struct game next;
    memset(&next, 0, sizeof next);
    seats_carry_kicks(&next, &g);
    assert_true(seats_kicked(&next, "kicked-15"));
    seats_forgive(&next);
    assert_false(seats_kicked(&next, "kicked-15"));
    assert_int_equal(next.nkicked, 0);
    /* The hash is FNV-1a: stored records depend on it never changing. */
    assert_true(seats_hash("") == 0xcbf29ce484222325ULL);
    assert_true(seats_hash("a") == 0xaf63dc4c8601ec8cULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip_fresh_games),
        cmocka_unit_test(test_round_trip_mid_game),
        cmocka_unit_test(test_round_trip_lobby),
        cmocka_unit_test(test_chat),
        cmocka_unit_test_setup(test_damaged_records, base_setup),
        cmocka_unit_test(test_not_an_object),
        cmocka_unit_test(test_seat_helpers),
        cmocka_unit_test(test_seat_rules),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
