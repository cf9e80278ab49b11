/*
 * config.c - Illegal's settings: their table, with every default written
 * once, the default set-ups it gives, and the timer bounds.
 */
#include <string.h>

#include "internal.h"
#include "module.h"

#define MIN_S (IL_TIMER_MIN_MS / 1000)
#define MAX_S (IL_TIMER_MAX_MS / 1000)

#define LOBBY  RULES_IN_LOBBY
#define GAME   RULES_IN_GAME
#define CONFIG RULES_IN_CONFIG

static const char *const ballots[] = {"private", "poll", NULL};

const struct rules_setting il_settings[] = {
    [IL_SET_PRESET] = {"preset", RULES_WORDS, LOBBY, 0, 0, 0, NULL, IL_KEYS "setting.preset",
                       IL_KEYS "setting-help.preset"},
    [IL_SET_VARIANT] = {"variant", RULES_CHOICE, LOBBY | CONFIG, IL_VARIANT_STANDARD, 0, 0,
                        il_variant_ids, IL_KEYS "setting.variant", IL_KEYS "setting-help.variant"},
    [IL_SET_RESOURCES] = {"resources", RULES_WORDS, LOBBY, 0, 0, 0, NULL,
                          IL_KEYS "setting.resources", IL_KEYS "setting-help.resources"},
    [IL_SET_TRIBUNAL] = {"tribunal", RULES_WORDS, LOBBY, 0, 0, 0, NULL, IL_KEYS "setting.tribunal",
                         IL_KEYS "setting-help.tribunal"},
    [IL_SET_TRIBUNAL_AT] = {"tribunal-at", RULES_WORDS, GAME, 0, 0, 0, NULL,
                            IL_KEYS "setting.tribunal-at", IL_KEYS "setting-help.tribunal-at"},
    [IL_SET_BALLOTS] = {"ballots", RULES_CHOICE, LOBBY | GAME, 0, 0, 0, ballots,
                        IL_KEYS "setting.ballots", IL_KEYS "setting-help.ballots"},
    [IL_SET_SESSION] = {"session", RULES_DURATION, LOBBY | GAME | CONFIG, 180, MIN_S, MAX_S, NULL,
                        IL_KEYS "setting.session", IL_KEYS "setting-help.session"},
    [IL_SET_CASUAL_SESSION] = {"casual-session", RULES_DURATION, CONFIG, 1200, MIN_S, MAX_S, NULL,
                               IL_KEYS "setting.casual-session",
                               IL_KEYS "setting-help.casual-session"},
    [IL_SET_REVEAL] = {"reveal", RULES_DURATION, LOBBY | GAME | CONFIG, 2, MIN_S, MAX_S, NULL,
                       IL_KEYS "setting.reveal", IL_KEYS "setting-help.reveal"},
    [IL_SET_GRAB] = {"grab", RULES_DURATION, LOBBY | GAME | CONFIG, 30, MIN_S, MAX_S, NULL,
                     IL_KEYS "setting.grab", IL_KEYS "setting-help.grab"},
    [IL_SET_DEBATE] = {"debate", RULES_DURATION, LOBBY | GAME | CONFIG, 60, MIN_S, MAX_S, NULL,
                       IL_KEYS "setting.debate", IL_KEYS "setting-help.debate"},
    [IL_SET_VOTE] = {"vote", RULES_DURATION, LOBBY | GAME | CONFIG, 30, MIN_S, MAX_S, NULL,
                     IL_KEYS "setting.vote", IL_KEYS "setting-help.vote"},
    [IL_SETTINGS] = {0},
};

enum il_setting il_timer_setting(enum il_timer t, enum il_variant v)
{
    static const enum il_setting of[IL_TIMERS] = {
        [IL_TIMER_SESSION] = IL_SET_SESSION, [IL_TIMER_REVEAL] = IL_SET_REVEAL,
        [IL_TIMER_GRAB] = IL_SET_GRAB,       [IL_TIMER_DEBATE] = IL_SET_DEBATE,
        [IL_TIMER_VOTE] = IL_SET_VOTE,
    };
    return t == IL_TIMER_SESSION && il_variant_casual(v) ? IL_SET_CASUAL_SESSION : of[t];
}

void il_config_default(struct il_config *c, enum il_variant v)
{
    memset(c, 0, sizeof *c);
    c->variant = v;
    c->resources = 0;
    for (unsigned t = 0; t < IL_TIMERS; t++)
        c->timer_ms[t] = il_settings[il_timer_setting((enum il_timer)t, v)].def * 1000;
}

bool il_timer_ok(int64_t ms)
{
    return ms >= IL_TIMER_MIN_MS && ms <= IL_TIMER_MAX_MS;
}
