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
    for (unsigned k = 0; pd_presets[k].id; k++)
        if (k == i)
            return pd_presets[k].id;
    return NULL;
}

static const struct pd_preset *preset_named(const char *id)
{
    for (const struct pd_preset *p = pd_presets; p->id; p++)
        if (strcasecmp(p->id, id) == 0)
            return p;
    return NULL;
}

int pd_settings_init(struct pd_state *s, const char *mode)
{
    const struct pd_preset *p = preset_named(mode ? mode : pd_presets[0].id);
    if (!p)
        return -1;
    memset(s, 0, sizeof *s);
    pd_config_default(&s->config);
    pd_preset_apply(&s->config, p);
    s->series.dealer = PD_NOBODY;
    return 0;
}

const char *pd_settings_mode(const struct pd_state *s)
{
    const struct pd_preset *p = pd_preset_of(&s->config);
    return p ? p->id : "custom";
}

/* "off", "500000", "1000000" (also "500k", "1m"): the series' goal. */
static int64_t parse_series(const char *v)
{
    static const struct {
        const char *word;
        int64_t goal;
    } words[] = {{"off", PD_SERIES_OFF},      {"none", PD_SERIES_OFF},
                 {"500000", PD_SERIES_SHORT}, {"500k", PD_SERIES_SHORT},
                 {"1000000", PD_SERIES_LONG}, {"1m", PD_SERIES_LONG}};
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
static enum rules_set_result set_started(const struct pd_setting *st, int64_t ms,
                                         struct pd_action *action)
{
    int t = pd_timer_from_id(st->name);
    if (t < 0)
        return RULES_SET_LOCKED;
    pd_action_init(action, PD_ACT_SET_TIMER, PD_HOST);
    action->timer = (enum pd_timer)t;
    action->ms = ms;
    return RULES_SET_PLAY;
}

enum rules_set_result pd_settings_set(struct pd_state *s, bool started, const char *key,
                                      const char *value, const char *lang, char *shown,
                                      size_t shownlen, struct pd_action *action)
{
    snprintf(shown, shownlen, "%s", value);
    if (strcmp(key, "preset") == 0) {
        const struct pd_preset *p = preset_named(value);
        if (started)
            return RULES_SET_LOCKED;
        if (!p)
            return RULES_SET_BAD_VALUE;
        pd_preset_apply(&s->config, p);
        snprintf(shown, shownlen, "%s", p->id);
        return RULES_SET_DONE;
    }
    const struct pd_setting *st = pd_setting_find(key);
    if (!st)
        return RULES_SET_BAD_KEY;
    int64_t v =
        st->kind == PD_SETTING_CHOICE ? parse_series(value) : text_parse_duration(value, 1000);
    struct pd_config c = s->config;
    if (v < 0 || pd_config_set(&c, st, v) != 0)
        return RULES_SET_BAD_VALUE;
    if (started)
        return set_started(st, v, action);
    s->config = c;
    if (st->kind == PD_SETTING_CHOICE)
        series_text((int32_t)v, lang, shown, shownlen);
    else
        text_duration(shown, shownlen, lang, v);
    return RULES_SET_DONE;
}

int pd_settings_describe(const struct pd_state *s, const char *lang, struct json_object *out,
                         char *text, size_t len)
{
    const struct pd_preset *p = pd_preset_of(&s->config);
    char values[8][64];
    const char *vars[2 * 8 + 5];
    unsigned n = 0, i = 0;
    if (json_object_object_add(out, "preset", p ? json_object_new_string(p->id) : NULL) != 0)
        return -1;
    for (const struct pd_setting *st = pd_settings; st->name && i < 8; st++, i++) {
        int64_t v = pd_config_get(&s->config, st);
        bool duration = st->kind == PD_SETTING_DURATION;
        if (json_object_object_add(out, st->name, json_object_new_int64(duration ? v / 1000 : v)))
            return -1;
        if (duration)
            text_duration(values[i], sizeof values[i], lang, v);
        else
            series_text((int32_t)v, lang, values[i], sizeof values[i]);
        vars[n++] = st->name;
        vars[n++] = values[i];
    }
    vars[n++] = "preset";
    vars[n++] = p ? text_name(lang, "palm-drewes.preset", p->id)
                  : catalog_text(lang, PD_KEYS "preset-custom");
    vars[n] = NULL;
    text_fill(text, len, lang, PD_KEYS "msg.settings", vars);
    return 0;
}
