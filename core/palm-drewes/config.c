/*
 * config.c - the defaults, the settings a host may change, and the presets.
 */
#include <string.h>

#include "internal.h"

#define SECOND 1000LL
#define MINUTE (60 * SECOND)
#define HOUR   (60 * MINUTE)

/* The presets; the first is the default. A turn is long enough to trade, the
 * Magnum's window short, as the rulebook's table would be: one look around. */
const struct pd_preset pd_presets[] = {
    {"live", {2 * MINUTE, 15 * SECOND, MINUTE, MINUTE}, 30 * SECOND},
    {"quick", {45 * SECOND, 8 * SECOND, 20 * SECOND, 20 * SECOND}, 15 * SECOND},
    {"casual", {24 * HOUR, HOUR, 6 * HOUR, 6 * HOUR}, 2 * HOUR},
    {NULL, {0, 0, 0, 0}, 0},
};

static const int64_t series_goals[] = {PD_SERIES_OFF, PD_SERIES_SHORT, PD_SERIES_LONG, -1};

const struct pd_setting pd_settings[] = {
    {"turn", PD_SETTING_DURATION, PD_TIMER_MIN_MS, PD_TIMER_MAX_MS, NULL,
     "palm-drewes.setting.turn", "palm-drewes.setting-help.turn"},
    {"window", PD_SETTING_DURATION, PD_TIMER_MIN_MS, PD_TIMER_MAX_MS, NULL,
     "palm-drewes.setting.window", "palm-drewes.setting-help.window"},
    {"pass", PD_SETTING_DURATION, PD_TIMER_MIN_MS, PD_TIMER_MAX_MS, NULL,
     "palm-drewes.setting.pass", "palm-drewes.setting-help.pass"},
    {"choice", PD_SETTING_DURATION, PD_TIMER_MIN_MS, PD_TIMER_MAX_MS, NULL,
     "palm-drewes.setting.choice", "palm-drewes.setting-help.choice"},
    {"reminder", PD_SETTING_DURATION, 0, PD_REMINDER_MAX_MS, NULL, "palm-drewes.setting.reminder",
     "palm-drewes.setting-help.reminder"},
    {"series", PD_SETTING_CHOICE, 0, 0, series_goals, "palm-drewes.setting.series",
     "palm-drewes.setting-help.series"},
    {NULL, PD_SETTING_DURATION, 0, 0, NULL, NULL, NULL},
};

bool pd_timer_ok(int64_t ms)
{
    return ms >= PD_TIMER_MIN_MS && ms <= PD_TIMER_MAX_MS;
}

bool pd_reminder_ok(int64_t ms)
{
    return ms >= 0 && ms <= PD_REMINDER_MAX_MS;
}

bool pd_series_target_ok(int64_t target)
{
    for (const int64_t *v = series_goals; *v >= 0; v++)
        if (*v == target)
            return true;
    return false;
}

void pd_preset_apply(struct pd_config *c, const struct pd_preset *p)
{
    memcpy(c->timer_ms, p->timer_ms, sizeof c->timer_ms);
    c->reminder_ms = p->reminder_ms;
}

void pd_config_default(struct pd_config *c)
{
    memset(c, 0, sizeof *c);
    pd_preset_apply(c, &pd_presets[0]);
    c->series_target = PD_SERIES_OFF;
}

const struct pd_preset *pd_preset_of(const struct pd_config *c)
{
    for (const struct pd_preset *p = pd_presets; p->id; p++)
        if (memcmp(p->timer_ms, c->timer_ms, sizeof c->timer_ms) == 0 &&
            p->reminder_ms == c->reminder_ms)
            return p;
    return NULL;
}

const struct pd_setting *pd_setting_find(const char *name)
{
    for (const struct pd_setting *s = pd_settings; name && s->name; s++)
        if (strcmp(s->name, name) == 0)
            return s;
    return NULL;
}

/* Where setting s lives in c: a timer, the reminder, or the series goal. */
static int timer_of(const struct pd_setting *s)
{
    return pd_timer_from_id(s->name);
}

int64_t pd_config_get(const struct pd_config *c, const struct pd_setting *s)
{
    int t = timer_of(s);
    if (t >= 0)
        return c->timer_ms[t];
    if (s->kind == PD_SETTING_CHOICE)
        return c->series_target;
    return c->reminder_ms;
}

int pd_config_set(struct pd_config *c, const struct pd_setting *s, int64_t v)
{
    if (s->kind == PD_SETTING_CHOICE) {
        if (!pd_series_target_ok(v))
            return -1;
        c->series_target = (int32_t)v;
        return 0;
    }
    if (v < s->min || v > s->max)
        return -1;
    int t = timer_of(s);
    if (t >= 0)
        c->timer_ms[t] = v;
    else
        c->reminder_ms = v;
    return 0;
}
