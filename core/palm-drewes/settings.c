/*
 * settings.c - the lobby's settings of Palm & Drewes' Illegal: its modes
 * (the presets), `set`, the lobby line, all read from pd_settings[] and
 * pd_presets[] (config.c).
 */
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../catalog.h"
#include "../text.h"
#include "module.h"
#include "words.h"

/* A mode is a preset: the ways to play differ only in their clocks. */
const char *pd_settings_preset_at(unsigned i)
{
    return i < PD_PRESETS ? pd_preset_ids[i] : NULL;
}

int pd_preset_index(const char *id)
{
    for (int p = 0; p < PD_PRESETS; p++)
        if (strcasecmp(pd_preset_ids[p], id) == 0)
            return p;
    return -1;
}

int pd_settings_init(struct pd_state *s, const char *mode, const struct rules_defaults *defaults)
{
    int p = mode ? pd_preset_index(mode) : PD_PRESET_LIVE;
    if (p < 0)
        return -1;
    memset(s, 0, sizeof *s);
    s->preset = (uint8_t)p;
    pd_config_from(&s->config, defaults->value);
    pd_preset_apply(&s->config, (enum pd_preset_id)p, defaults->value);
    s->series.dealer = PD_NOBODY;
    return 0;
}

const char *pd_settings_mode(const struct pd_state *s)
{
    return pd_preset_ids[s->preset < PD_PRESETS ? s->preset : 0];
}

/* "off", "500000", "1000000" (also "500k", "1m"): the series' goal. */
static int64_t parse_series(const char *v)
{
    static const struct {
        const char *word;
        int64_t goal;
    } words[] = {{"0", PD_SERIES_OFF},      {"off", PD_SERIES_OFF},
                 {"none", PD_SERIES_OFF},   {"500000", PD_SERIES_SHORT},
                 {"500k", PD_SERIES_SHORT}, {"1000000", PD_SERIES_LONG},
                 {"1m", PD_SERIES_LONG}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcasecmp(v, words[i].word) == 0)
            return words[i].goal;
    return -1;
}

static void series_text(int32_t goal, const char *lang, char *out, size_t len)
{
    char euros[48];
    if (goal == PD_SERIES_OFF) {
        snprintf(out, len, "%s", catalog_text(lang, PD_KEYS "series-off"));
        return;
    }
    pd_euros_text(euros, sizeof euros, lang, goal);
    const char *vars[] = {"goal", euros, NULL};
    text_fill(out, len, lang, PD_KEYS "series-goal", vars);
}

/* A setting of a running game becomes the host's action, when it has one. */
static enum rules_set_result set_started(enum pd_setting st, int64_t ms, struct pd_action *action)
{
    if (st < PD_SET_TURN || st >= PD_SET_TURN + PD_TIMERS)
        return RULES_SET_LOCKED;
    pd_action_init(action, PD_ACT_SET_TIMER, PD_HOST);
    action->timer = (enum pd_timer)(st - PD_SET_TURN);
    action->ms = ms;
    return RULES_SET_PLAY;
}

static enum rules_set_result set_preset(struct pd_state *s, const char *value,
                                        const struct rules_defaults *defaults, char *shown,
                                        size_t shownlen)
{
    int p = pd_preset_index(value);
    if (p < 0)
        return RULES_SET_BAD_VALUE;
    s->preset = (uint8_t)p;
    pd_preset_apply(&s->config, (enum pd_preset_id)p, defaults->value);
    snprintf(shown, shownlen, "%s", pd_preset_ids[p]);
    return RULES_SET_DONE;
}

enum rules_set_result pd_settings_set(struct pd_state *s, bool started, const char *key,
                                      const char *value, const char *lang,
                                      const struct rules_defaults *defaults, char *shown,
                                      size_t shownlen, struct pd_action *action)
{
    const struct rules_setting *row;
    snprintf(shown, shownlen, "%s", value);
    enum rules_set_result r = rules_setting_check(pd_settings, key, started, &row);
    if (r != RULES_SET_DONE)
        return r;
    enum pd_setting st = (enum pd_setting)(row - pd_settings);
    if (st == PD_SET_PRESET)
        return set_preset(s, value, defaults, shown, shownlen);
    int64_t v = st == PD_SET_SERIES ? parse_series(value) : text_parse_duration(value, 1000);
    struct pd_config c = s->config;
    if (v < 0 || pd_config_set(&c, st, v) != 0)
        return RULES_SET_BAD_VALUE;
    if (started)
        return set_started(st, v, action);
    s->config = c;
    if (st == PD_SET_SERIES)
        series_text((int32_t)v, lang, shown, shownlen);
    else
        text_duration(shown, shownlen, lang, v);
    return RULES_SET_DONE;
}

int pd_settings_describe(const struct pd_state *s, const char *lang,
                         const struct rules_defaults *defaults, struct json_object *out, char *text,
                         size_t len)
{
    int p = pd_preset_of(&s->config, defaults->value);
    char values[PD_SETTINGS][64];
    const char *vars[2 * PD_SETTINGS + 1];
    unsigned n = 0;
    if (json_object_object_add(out, "preset",
                               p >= 0 ? json_object_new_string(pd_preset_ids[p]) : NULL) != 0)
        return -1;
    for (unsigned st = PD_SET_TURN; st < PD_SETTINGS; st++) {
        int64_t v = pd_config_get(&s->config, st);
        bool duration = st != PD_SET_SERIES;
        if (json_object_object_add(out, pd_settings[st].name,
                                   json_object_new_int64(duration ? v / 1000 : v)))
            return -1;
        if (duration)
            text_duration(values[st], sizeof values[st], lang, v);
        else
            series_text((int32_t)v, lang, values[st], sizeof values[st]);
        vars[n++] = pd_settings[st].name;
        vars[n++] = values[st];
    }
    vars[n++] = "preset";
    vars[n++] = p >= 0 ? text_name(lang, "palm-drewes.preset", pd_preset_ids[p])
                       : catalog_text(lang, PD_KEYS "preset-custom");
    vars[n] = NULL;
    text_fill(text, len, lang, PD_KEYS "msg.settings", vars);
    return 0;
}
