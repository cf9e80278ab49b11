/*
 * fuzz_stored_game.c - a game record as read back from the store, where a
 * damaged disk, an older daemon or a hand edit may have left anything.
 *
 * Input: the record's text. It goes the way a restore takes it: json-c's
 * parser, then game_from_json() (which checks the bot's fields and hands the
 * rules state to the core's il_game_from_json()). A record that is accepted
 * must then behave: written out again it reads back to the same text, it
 * renders, and the rules play it on, deadline after deadline, to its end.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/game.h"
#include "bot/platform.h"
#include "bot/render.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FUZZ_MAX_TICKS 200 /* more than any game has steps */

/* Renders into nothing, but reads every message as an adapter would. */
static void emit(void *arg, const struct outbound *m)
{
    size_t *bytes = arg;
    *bytes += strlen(m->text);
    if (m->data)
        *bytes += strlen(json_object_to_json_string((struct json_object *)m->data));
}

static void emit_rules(void *arg, const struct rules_msg *m)
{
    size_t *bytes = arg;
    *bytes += strlen(m->text);
    if (m->data)
        *bytes += strlen(json_object_to_json_string((struct json_object *)m->data));
}

/* game_to_json() as text; the caller frees it. */
static char *record_text(const struct game *g)
{
    struct json_object *j = game_to_json(g);
    if (!j)
        abort();
    char *text = strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN));
    json_object_put(j);
    if (!text)
        abort();
    return text;
}

/* Reads text back; an accepted record that does not is a bug. */
static void read_back(const char *text, struct game *g)
{
    char why[128];
    struct json_object *j = json_tokener_parse(text);
    free(g->state);
    free(g->chat);
    free(g->minds);
    g->state = NULL;
    g->chat = NULL;
    g->minds = NULL;
    if (!j || game_from_json(g, j, why, sizeof why) < 0) {
        fprintf(stderr, "a record written by game_to_json() is refused (%s): %s\n", why, text);
        abort();
    }
    json_object_put(j);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct game *g = calloc(1, sizeof *g), *again = calloc(1, sizeof *again);
    void *ev = NULL, *tick = NULL;
    struct json_tokener *tok = json_tokener_new();
    struct json_object *j = NULL;
    char why[128];
    size_t bytes = 0;

    if (!g || !again || !tok || size > INT32_MAX)
        goto done;
    j = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    if (!j || game_from_json(g, j, why, sizeof why) < 0)
        goto done;
    ev = malloc(g->rules->events_size);
    tick = malloc(g->rules->action_size);
    if (!ev || !tick)
        goto done;

    char *first = record_text(g);
    read_back(first, again);
    char *second = record_text(again);
    if (strcmp(first, second) != 0) {
        fprintf(stderr, "record changed on a round trip:\n%s\n%s\n", first, second);
        abort();
    }
    free(first);
    free(second);

    if (!g->started) {
        struct rules_defaults defaults;
        rules_defaults_init(g->rules, &defaults);
        render_lobby(g, &defaults, 43200, emit, &bytes);
        goto done;
    }
    struct game_view v;
    game_view(g, &v);
    const struct rules_table table = v.t;
    for (unsigned i = 0; i < g->nseats; i++)
        g->rules->render_private(g->state, &table, i, false, emit_rules, &bytes);
    g->rules->steer(tick, RULES_TICK, 0, 0);
    for (unsigned t = 0; t < FUZZ_MAX_TICKS; t++) {
        int64_t dl = g->rules->deadline(g->state);
        if (!dl || g->rules->apply(g->state, tick, dl, &g->rng, ev) != 0)
            break;
        g->rules->note(g->state, ev);
        g->rules->render(g->state, &table, ev, dl, emit_rules, &bytes);
        char *text = record_text(g);
        read_back(text, again);
        free(text);
    }
done:
    json_object_put(j);
    json_tokener_free(tok);
    free(ev);
    free(tick);
    game_free(again);
    game_free(g);
    return 0;
}
