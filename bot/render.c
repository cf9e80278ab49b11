/*
 * render.c - the lobby message, the one message every game shares.
 *
 * Everything a game shows once it has started is its rules module's
 * (core/rules.h: render); the lobby is the bot's own.
 */
#include <json-c/json.h>
#include <stdio.h>
#include <string.h>

#include "computers.h"
#include "core/catalog.h"
#include "core/text.h"
#include "render.h"

#define TEXT_MAX 2048

/* A seat as the lobby shows it; a computer's says its level, which the host
 * chose at the table. */
static struct json_object *player_json(const struct game *g, unsigned seat)
{
    struct json_object *p = json_object_new_object();
    const struct rules_strategy *level = game_seat_level(g, seat);
    json_object_object_add(p, "id", json_object_new_string(g->seats[seat].user));
    json_object_object_add(p, "name", json_object_new_string(game_seat_name(g, seat)));
    if (level && game_seat_is_computer(g, seat))
        json_object_object_add(p, "computer", json_object_new_string(level->id));
    return p;
}

/* The lobby's controls: a computer to add while a seat is free (the host's),
 * one to remove while one sits. */
static void lobby_actions(const struct game *g, struct json_object *actions)
{
    bool computers = false;
    for (unsigned i = 0; i < g->nseats; i++)
        computers = computers || game_seat_is_computer(g, i);
    json_object_array_add(actions, json_object_new_string("join"));
    json_object_array_add(actions, json_object_new_string("leave"));
    if (g->rules->strategies && g->rules->strategies[0].id && g->nseats < g->rules->max_players)
        json_object_array_add(actions, json_object_new_string("add computer"));
    if (computers)
        json_object_array_add(actions, json_object_new_string("remove computer"));
    json_object_array_add(actions, json_object_new_string("start"));
}

/* Adds the settings to data and, in an open lobby, their line to text. */
static int lobby_settings(const struct game *g, const struct rules_defaults *defaults,
                          int64_t absent_seconds, struct json_object *data, char *text, size_t len)
{
    char line[512];
    struct json_object *settings = json_object_new_object();
    struct json_object *presets = json_object_new_array();
    if (json_object_object_add(data, "settings", settings) != 0) {
        json_object_put(settings);
        json_object_put(presets);
        return -1;
    }
    if (json_object_object_add(data, "presets", presets) != 0) {
        json_object_put(presets);
        return -1;
    }
    for (unsigned i = 0; g->rules->preset_at(i); i++)
        json_object_array_add(presets, json_object_new_string(g->rules->preset_at(i)));
    if (g->rules->settings(g->state, g->language, defaults, settings, line, sizeof line) != 0)
        return -1;
    size_t used = strlen(text);
    if (!g->started && used < len)
        snprintf(text + used, len - used, "\n%s", line);
    if (!g->started && g->start_at) {
        char when[64], sentence[256], min[16], max[16];
        text_time(when, sizeof when, g->start_at);
        snprintf(min, sizeof min, "%u", g->rules->min_players);
        snprintf(max, sizeof max, "%u", g->rules->max_players);
        const char *vars[] = {"time", when, "min", min, "max", max, NULL};
        text_fill(sentence, sizeof sentence, g->language, "msg.lobby-start-at", vars);
        used = strlen(text);
        if (used < len)
            snprintf(text + used, len - used, "\n%s", sentence);
        json_object_object_add(data, "start_at", json_object_new_int64(g->start_at));
    }
    if (!g->started && g->stand_in && absent_seconds) { /* S14 */
        char idle[64], sentence[256];
        text_duration(idle, sizeof idle, g->language, absent_seconds * 1000);
        const char *vars[] = {"idle", idle, NULL};
        text_fill(sentence, sizeof sentence, g->language, "msg.lobby-stand-in", vars);
        used = strlen(text);
        if (used < len)
            snprintf(text + used, len - used, "\n%s", sentence);
    }
    const struct rules_strategy *level = computers_level(g->rules, g->stand_in);
    if (level)
        json_object_object_add(data, "stand_in", json_object_new_string(level->id));
    if (!g->started && g->nkicked) { /* S8, S9 */
        char count[16], sentence[256];
        snprintf(count, sizeof count, "%u", g->nkicked);
        const char *vars[] = {"count", count, NULL};
        text_fill(sentence, sizeof sentence, g->language, "msg.lobby-kicked", vars);
        used = strlen(text);
        if (used < len)
            snprintf(text + used, len - used, "\n%s", sentence);
        json_object_object_add(data, "kicked", json_object_new_int((int)g->nkicked));
    }
    return 0;
}

void render_lobby(const struct game *g, const struct rules_defaults *defaults,
                  int64_t absent_seconds, render_emit_fn emit, void *arg)
{
    char players[1024], count[16], min[16], max[16], key[MSG_KEY_MAX], text[TEXT_MAX],
        prefix[PLATFORM_PREFIX_MAX];
    game_seat_names(g, players, sizeof players);
    platform_command_prefix(g->platform, prefix, sizeof prefix);
    snprintf(count, sizeof count, "%u", g->nseats);
    snprintf(min, sizeof min, "%u", g->rules->min_players);
    snprintf(max, sizeof max, "%u", g->rules->max_players);
    const char *mode = g->rules->mode(g->state);
    const char *vars[] = {"id",      g->id,
                          "game",    text_name(g->language, g->rules->id, "game"),
                          "variant", text_name(g->language, g->rules->mode_keys, mode),
                          "host",    g->host_name,
                          "count",   count,
                          "players", g->nseats ? players : catalog_text(g->language, "msg.nobody"),
                          "prefix",  prefix,
                          "min",     min,
                          "max",     max,
                          NULL};
    struct json_object *data = json_object_new_object();
    if (!data)
        return;
    text_fill(text, sizeof text, g->language, g->started ? "msg.lobby-started" : "msg.lobby", vars);
    struct msg_key k = {.number = 0};
    snprintf(k.game, sizeof k.game, "%s", g->id);
    snprintf(k.topic, sizeof k.topic, "lobby");
    if (msg_key_format(&k, key, sizeof key) < 0) {
        json_object_put(data);
        return;
    }
    json_object_object_add(data, "game", json_object_new_string(g->id));
    json_object_object_add(data, "table", json_object_new_string(g->table));
    json_object_object_add(data, "module", json_object_new_string(g->rules->id));
    json_object_object_add(data, "variant", json_object_new_string(mode));
    json_object_object_add(data, "lang", json_object_new_string(g->language));
    json_object_object_add(data, "host", json_object_new_string(g->host));
    struct json_object *list = json_object_new_array();
    for (unsigned i = 0; i < g->nseats; i++)
        json_object_array_add(list, player_json(g, i));
    json_object_object_add(data, "players", list);
    /* Once the game is on, its lobby offers nothing more to press. */
    struct json_object *actions = json_object_new_array();
    if (!g->started)
        lobby_actions(g, actions);
    json_object_object_add(data, "actions", actions);
    if (lobby_settings(g, defaults, absent_seconds, data, text, sizeof text) != 0) {
        json_object_put(data);
        return;
    }
    struct outbound m = {.kind = OUT_LOBBY,
                         .channel = g->table,
                         .key = key,
                         .key_parts = &k,
                         .replace = true,
                         .text = text,
                         .data = data};
    emit(arg, &m);
    json_object_put(data);
}
