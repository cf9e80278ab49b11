/*
 * config.c - the settings table (each default written here once), the
 * presets, and reading and changing a game's settings.
 */
#include <string.h>

#include "internal.h"
#include "module.h"

#define MIN_S   (PD_TIMER_MIN_MS / 1000)
#define MAX_S   (PD_TIMER_MAX_MS / 1000)
#define LOBBY   RULES_IN_LOBBY
#define GAME    RULES_IN_GAME
#define CONFIG  RULES_IN_CONFIG
#define HOUR_S  3600
#define TIMER_S (PD_SET_TURN) /* the first timer's setting */

static const char *const series_values[] = {"0", "500000", "1000000", NULL};
const int32_t pd_series_goals[3] = {PD_SERIES_OFF, PD_SERIES_SHORT, PD_SERIES_LONG};

_Static_assert(sizeof series_values / sizeof *series_values - 1 ==
                   sizeof pd_series_goals / sizeof *pd_series_goals,
               "a goal for each value of the series setting");

/* A turn is long enough to trade, the Magnum's window short, as the
 * rulebook's table would be: one look around. */
const struct rules_setting pd_settings[] = {
    [PD_SET_PRESET] = {"preset", RULES_WORDS, LOBBY, 0, 0, 0, NULL, "palm-drewes.setting.preset",
                       "palm-drewes.setting-help.preset"},
    [PD_SET_TURN] = {"turn", RULES_DURATION, LOBBY | GAME | CONFIG, 120, MIN_S, MAX_S, NULL,
                     "palm-drewes.setting.turn", "palm-drewes.setting-help.turn"},
    [PD_SET_WINDOW] = {"window", RULES_DURATION, LOBBY | GAME | CONFIG, 15, MIN_S, MAX_S, NULL,
                       "palm-drewes.setting.window", "palm-drewes.setting-help.window"},
    [PD_SET_PASS] = {"pass", RULES_DURATION, LOBBY | GAME | CONFIG, 60, MIN_S, MAX_S, NULL,
                     "palm-drewes.setting.pass", "palm-drewes.setting-help.pass"},
    [PD_SET_CHOICE] = {"choice", RULES_DURATION, LOBBY | GAME | CONFIG, 60, MIN_S, MAX_S, NULL,
                       "palm-drewes.setting.choice", "palm-drewes.setting-help.choice"},
    [PD_SET_REMINDER] = {"reminder", RULES_DURATION, LOBBY | CONFIG, 30, 0,
                         PD_REMINDER_MAX_MS / 1000, NULL, "palm-drewes.setting.reminder",
                         "palm-drewes.setting-help.reminder"},
    [PD_SET_SERIES] = {"series", RULES_CHOICE, LOBBY | CONFIG, 0, 0, 0, series_values,
                       "palm-drewes.setting.series", "palm-drewes.setting-help.series"},
    [PD_SETTINGS] = {0},
};

const char *const pd_preset_ids[PD_PRESETS + 1] = {
    [PD_PRESET_LIVE] = "live", [PD_PRESET_QUICK] = "quick", [PD_PRESET_CASUAL] = "casual"};

/* The first is the default, and takes the daemon's timers. */
const struct pd_preset pd_presets[PD_PRESETS] = {
    [PD_PRESET_LIVE] = {{0}},
    [PD_PRESET_QUICK] = {{[PD_SET_TURN] = 45,
                          [PD_SET_WINDOW] = 8,
                          [PD_SET_PASS] = 20,
                          [PD_SET_CHOICE] = 20,
                          [PD_SET_REMINDER] = 15}},
    [PD_PRESET_CASUAL] = {{[PD_SET_TURN] = 24 * HOUR_S,
                           [PD_SET_WINDOW] = HOUR_S,
                           [PD_SET_PASS] = 6 * HOUR_S,
                           [PD_SET_CHOICE] = 6 * HOUR_S,
                           [PD_SET_REMINDER] = 2 * HOUR_S}},
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
    for (size_t i = 0; i < sizeof pd_series_goals / sizeof *pd_series_goals; i++)
        if (pd_series_goals[i] == target)
            return true;
    return false;
}

static bool is_duration(enum pd_setting s)
{
    return s >= PD_SET_TURN && s <= PD_SET_REMINDER;
}

/* The value of setting s as pd_config_get() reads it, from a value of the
 * table's kind (seconds, an index). Returns -1 for one out of range. */
static int64_t value_of(enum pd_setting s, int64_t v)
{
    if (s == PD_SET_SERIES)
        return v >= 0 && v < (int64_t)(sizeof pd_series_goals / sizeof *pd_series_goals)
                   ? pd_series_goals[v]
                   : -1;
    return v * 1000;
}

/* Writes v into setting s of c, unchecked. */
static void put(struct pd_config *c, enum pd_setting s, int64_t v)
{
    if (s == PD_SET_SERIES)
        c->series_target = (int32_t)v;
    else if (s == PD_SET_REMINDER)
        c->reminder_ms = v;
    else
        c->timer_ms[s - TIMER_S] = v;
}

/* Whether v is a value of setting s (as pd_config_get() reads it). */
static bool valid(enum pd_setting s, int64_t v)
{
    if (s == PD_SET_SERIES)
        return pd_series_target_ok(v);
    return is_duration(s) && v >= pd_settings[s].min * 1000 && v <= pd_settings[s].max * 1000;
}

void pd_config_from(struct pd_config *c, const int64_t *values)
{
    memset(c, 0, sizeof *c);
    for (unsigned s = PD_SET_TURN; s < PD_SETTINGS; s++) {
        int64_t v = value_of(s, values ? values[s] : pd_settings[s].def);
        /* a value the configuration's check let through, or the table's */
        put(c, s, valid(s, v) ? v : value_of(s, pd_settings[s].def));
    }
}

void pd_config_default(struct pd_config *c)
{
    pd_config_from(c, NULL);
}

void pd_preset_apply(struct pd_config *c, enum pd_preset_id p, const int64_t *values)
{
    struct pd_config d;
    pd_config_from(&d, values);
    for (unsigned s = PD_SET_TURN; is_duration(s); s++) {
        int64_t v = pd_presets[p].value[s] * 1000;
        put(c, s, v && valid(s, v) ? v : pd_config_get(&d, s));
    }
}

int pd_preset_of(const struct pd_config *c, const int64_t *values)
{
    for (int p = 0; p < PD_PRESETS; p++) {
        struct pd_config x = *c;
        pd_preset_apply(&x, (enum pd_preset_id)p, values);
        if (memcmp(x.timer_ms, c->timer_ms, sizeof c->timer_ms) == 0 &&
            x.reminder_ms == c->reminder_ms)
            return p;
    }
    return -1;
}

int64_t pd_config_get(const struct pd_config *c, enum pd_setting s)
{
    if (s >= TIMER_S && s < TIMER_S + PD_TIMERS)
        return c->timer_ms[s - TIMER_S];
    if (s == PD_SET_REMINDER)
        return c->reminder_ms;
    return s == PD_SET_SERIES ? c->series_target : -1;
}

int pd_config_set(struct pd_config *c, enum pd_setting s, int64_t v)
{
    if (!valid(s, v))
        return -1;
    put(c, s, v);
    return 0;
}
