/*
 * test_event.c - an event's record and its invariants (bot/event.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "bot/event.h"

static struct event *new_event(unsigned players, unsigned tables)
{
    struct event *e = calloc(1, sizeof *e);
    assert_non_null(e);
    strcpy(e->id, "e1");
    strcpy(e->name, "cup");
    strcpy(e->hall, "hall");
    strcpy(e->organizer, "org");
    strcpy(e->organizer_name, "org");
    e->seed = 99;
    for (unsigned i = 0; i < players; i++) {
        char user[16];
        snprintf(user, sizeof user, "u%u", i);
        assert_int_equal(event_sign_up(e, user, NULL, NULL), EVENT_OK);
    }
    for (unsigned t = 0; t < tables; t++) {
        char channel[16];
        snprintf(channel, sizeof channel, "t%u", t);
        assert_int_equal(event_add_table(e, channel), EVENT_OK);
    }
    return e;
}

/* E1: each refusal leaves the record byte for byte as it was. */
static void test_refusals_change_nothing(void **state)
{
    (void)state;
    struct event *e = new_event(EVENT_MAX_PLAYERS, EVENT_MAX_TABLES);
    struct event *copy = malloc(sizeof *e);
    unsigned needed = 0, table = 0;
    char long_name[GAME_TEXT_MAX + 1];
    memset(long_name, 'x', GAME_TEXT_MAX);
    long_name[GAME_TEXT_MAX] = '\0';
    memcpy(copy, e, sizeof *e);
    assert_int_equal(event_sign_up(e, "u1", NULL, NULL), EVENT_ERR_JOINED);
    assert_int_equal(event_sign_up(e, "new", NULL, NULL), EVENT_ERR_FULL);
    assert_int_equal(event_withdraw(e, EVENT_MAX_PLAYERS), EVENT_ERR_NOT_JOINED);
    assert_int_equal(event_add_table(e, "t1"), EVENT_ERR_TABLE_EXISTS);
    assert_int_equal(event_add_table(e, "t99"), EVENT_ERR_TABLES_FULL);
    assert_int_equal(event_move(e, 0, EVENT_MAX_TABLES), EVENT_ERR_BAD_TABLE);
    assert_int_equal(event_move(e, EVENT_MAX_PLAYERS, 0), EVENT_ERR_NOT_JOINED);
    assert_int_equal(event_remove_table(e, EVENT_MAX_TABLES), EVENT_ERR_BAD_TABLE);
    assert_int_equal(event_seat_balanced(e, 4, 6, &needed), EVENT_ERR_NEED_TABLES);
    assert_int_equal(needed, 11);
    assert_int_equal(event_check_round(e, 4, 8, &table), EVENT_ERR_UNSEATED);
    assert_memory_equal(e, copy, sizeof *e);
    assert_int_equal(event_withdraw(e, 0), EVENT_OK);
    memcpy(copy, e, sizeof *e);
    assert_int_equal(event_sign_up(e, long_name, NULL, NULL), EVENT_ERR_TOO_LONG);
    assert_int_equal(event_sign_up(e, "ok", long_name, NULL), EVENT_ERR_TOO_LONG);
    assert_memory_equal(e, copy, sizeof *e);
    free(copy);
    free(e);
}

/* E4 for every count of players and tables: everyone seated, at no more
 * tables than there are, min to max each, sizes within one; E5 then holds. */
static void test_balanced_seating(void **state)
{
    (void)state;
    unsigned seated = 0;
    for (unsigned tables = 1; tables <= EVENT_MAX_TABLES; tables++)
        for (unsigned players = 0; players <= EVENT_MAX_PLAYERS; players++) {
            struct event *e = new_event(players, tables);
            unsigned needed = 0, bad = 0;
            enum event_error err = event_seat_balanced(e, 4, 8, &needed);
            if (players < 4) {
                assert_int_equal(err, EVENT_ERR_TOO_FEW);
            } else if (players > 8 * tables) {
                assert_int_equal(err, EVENT_ERR_NEED_TABLES);
                assert_int_equal(needed, (players + 7) / 8);
            } else {
                unsigned lo = players, hi = 0, used = 0;
                assert_int_equal(err, EVENT_OK);
                for (unsigned t = 0; t < tables; t++) {
                    unsigned n = event_table_count(e, (int)t);
                    if (!n)
                        continue;
                    used++;
                    lo = n < lo ? n : lo;
                    hi = n > hi ? n : hi;
                }
                assert_int_equal(event_table_count(e, EVENT_NO_TABLE), 0);
                assert_true(lo >= 4 && hi <= 8 && hi - lo <= 1);
                assert_true(used <= tables);
                assert_int_equal(event_check_round(e, 4, 8, &bad), EVENT_OK);
                seated++;
            }
            free(e);
        }
    assert_true(seated > 100);
}

/* Seating by hand, and the checks of a round (E5); a table taken away
 * unseats its players and renumbers the ones after it (E3). */
static void test_by_hand(void **state)
{
    (void)state;
    struct event *e = new_event(12, 3);
    unsigned bad = 99;
    for (unsigned i = 0; i < 12; i++)
        assert_int_equal(event_move(e, i, (int)(i / 4)), EVENT_OK);
    assert_int_equal(event_check_round(e, 4, 8, &bad), EVENT_OK);
    assert_int_equal(event_move(e, 0, 2), EVENT_OK); /* 3, 4, 5 */
    assert_int_equal(event_check_round(e, 4, 8, &bad), EVENT_ERR_TABLE_SIZE);
    assert_int_equal(bad, 0);
    assert_int_equal(event_move(e, 4, 0), EVENT_OK); /* 4, 3, 5 */
    assert_int_equal(event_check_round(e, 4, 8, &bad), EVENT_ERR_TABLE_SIZE);
    assert_int_equal(bad, 1);
    assert_int_equal(event_move(e, 5, EVENT_NO_TABLE), EVENT_OK);
    assert_int_equal(event_check_round(e, 4, 8, &bad), EVENT_ERR_UNSEATED);
    /* Table 2 ("t1") goes: its players have none, "t2" becomes table 2. */
    assert_int_equal(event_remove_table(e, 1), EVENT_OK);
    assert_int_equal(e->ntables, 2);
    assert_string_equal(e->tables[1].channel, "t2");
    assert_int_equal(event_table_count(e, 1), 5);
    assert_int_equal(event_table_count(e, EVENT_NO_TABLE), 3);
    free(e);
}

/* The record's JSON form reads back to the same record; damage is refused. */
static void test_json(void **state)
{
    (void)state;
    struct event *e = new_event(9, 2), *back = calloc(1, sizeof *back);
    unsigned needed;
    char why[128];
    assert_int_equal(event_seat_balanced(e, 4, 8, &needed), EVENT_OK);
    strcpy(e->players[3].language, "fr");
    strcpy(e->tables[1].game, "g7");
    e->round = 3;
    struct json_object *j = event_to_json(e);
    assert_non_null(j);
    assert_int_equal(event_from_json(back, j, why, sizeof why), 0);
    assert_memory_equal(back, e, sizeof *e);
    /* a player at a table the event does not have */
    json_object_object_add(json_object_array_get_idx(json_object_object_get(j, "players"), 0),
                           "table", json_object_new_int(2));
    memset(back, 0x5a, sizeof *back);
    struct event *untouched = malloc(sizeof *back);
    memcpy(untouched, back, sizeof *back);
    assert_int_equal(event_from_json(back, j, why, sizeof why), -1);
    assert_memory_equal(back, untouched, sizeof *back);
    json_object_put(j);
    free(untouched);
    free(back);
    free(e);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refusals_change_nothing),
        cmocka_unit_test(test_balanced_seating),
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
