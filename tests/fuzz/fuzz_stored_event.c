/*
 * fuzz_stored_event.c - an event record as read back from the store, where a
 * damaged disk, an older daemon or a hand edit may have left anything.
 *
 * Input: the record's text. It goes the way a restore takes it: json-c's
 * parser, then event_from_json(). A record that is accepted must then keep
 * the invariants of bot/event.h: written out again it reads back to the same
 * text, and seating, moving and taking tables away leave every player at a
 * table of the event or at none.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/event.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* E2 and E3, or abort. */
static void check(const struct event *e)
{
    if (e->nplayers > EVENT_MAX_PLAYERS || e->ntables > EVENT_MAX_TABLES)
        abort();
    for (unsigned i = 0; i < e->nplayers; i++) {
        int t = e->players[i].table;
        if (t != EVENT_NO_TABLE && (t < 0 || (unsigned)t >= e->ntables))
            abort();
        for (unsigned k = 0; k < i; k++)
            if (strcmp(e->players[i].user, e->players[k].user) == 0)
                abort();
    }
    for (unsigned i = 0; i < e->ntables; i++)
        for (unsigned k = 0; k < i; k++)
            if (strcmp(e->tables[i].channel, e->tables[k].channel) == 0)
                abort();
}

static char *record_text(const struct event *e)
{
    struct json_object *j = event_to_json(e);
    char *text = j ? strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN)) : NULL;
    json_object_put(j);
    if (!text)
        abort();
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    struct event *e = calloc(1, sizeof *e), *again = calloc(1, sizeof *again);
    char why[128];
    if (!text || !e || !again)
        abort();
    memcpy(text, data, size);
    text[size] = '\0';
    struct json_object *j = json_tokener_parse(text);
    if (j && event_from_json(e, j, why, sizeof why) == 0) {
        check(e);
        char *first = record_text(e);
        struct json_object *k = json_tokener_parse(first);
        if (!k || event_from_json(again, k, why, sizeof why) < 0)
            abort();
        char *second = record_text(again);
        if (strcmp(first, second) != 0)
            abort();
        json_object_put(k);
        free(first);
        free(second);
        unsigned needed;
        if (event_seat_balanced(e, 4, 8, &needed) == EVENT_OK) {
            check(e);
            for (unsigned i = 0; i < e->nplayers; i++)
                if (e->players[i].table == EVENT_NO_TABLE)
                    abort(); /* E4: everyone is seated */
        }
        if (e->nplayers && event_move(e, 0, (int)e->ntables - 1) != EVENT_OK)
            abort();
        check(e);
        if (e->ntables && event_remove_table(e, 0) != EVENT_OK)
            abort();
        check(e);
    }
    json_object_put(j);
    free(again);
    free(e);
    free(text);
    return 0;
}
