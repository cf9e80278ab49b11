/*
 * settings.c - reading a module's table of settings (core/rules.h).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rules.h"
#include "text.h"

bool rules_transition_ok(const struct rules_transition *list, const char *from, const char *to)
{
    for (const struct rules_transition *t = list; t && t->from; t++)
        if (strcmp(t->from, from) == 0 && strcmp(t->to, to) == 0)
            return true;
    return false;
}

const struct rules_setting *rules_setting_find(const struct rules_setting *table, const char *name)
{
    for (const struct rules_setting *s = table; s && s->name; s++)
        if (strcasecmp(s->name, name) == 0)
            return s;
    return NULL;
}

enum rules_set_result rules_setting_check(const struct rules_setting *table, const char *key,
                                          bool started, const struct rules_setting **row)
{
    const struct rules_setting *s = rules_setting_find(table, key);
    *row = s;
    if (!s || !(s->where & (RULES_IN_LOBBY | RULES_IN_GAME)))
        return RULES_SET_BAD_KEY;
    if (started && !(s->where & RULES_IN_GAME))
        return RULES_SET_LOCKED;
    if (!started && !(s->where & RULES_IN_LOBBY))
        return RULES_SET_GAME_ONLY;
    return RULES_SET_DONE;
}

const struct rules_setting *rules_settings(const struct rules_module *m)
{
    static const struct rules_setting none[] = {{0}};
    return m->settings_table ? m->settings_table : none;
}

unsigned rules_setting_index(const struct rules_module *m, const struct rules_setting *s)
{
    return (unsigned)(s - m->settings_table);
}

void rules_defaults_init(const struct rules_module *m, struct rules_defaults *d)
{
    memset(d, 0, sizeof *d);
    const struct rules_setting *t = rules_settings(m);
    for (unsigned i = 0; i < RULES_SETTINGS_MAX && t[i].name; i++)
        d->value[i] = t[i].def;
}

void rules_setting_names(const struct rules_module *m, char *out, size_t len)
{
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    if (!m->settings_table)
        text_list_add(&l, "%s", m->setting_names ? m->setting_names : "");
    for (const struct rules_setting *s = rules_settings(m); s->name; s++)
        if (s->where & (RULES_IN_LOBBY | RULES_IN_GAME))
            text_list_add(&l, "%s", s->name);
}

void rules_setting_config_key(const struct rules_setting *s, char *out, size_t len)
{
    snprintf(out, len, "%s%s", s->name, s->kind == RULES_DURATION ? "_seconds" : "");
    for (char *p = out; *p; p++)
        if (*p == '-')
            *p = '_';
}

int rules_setting_parse_config(const struct rules_setting *s, const char *text, int64_t *value,
                               char *why, size_t whylen)
{
    if (!*text) {
        snprintf(why, whylen, "must not be empty");
        return -1;
    }
    if (s->kind == RULES_CHOICE) {
        char list[256] = "";
        size_t used = 0;
        for (unsigned i = 0; s->values[i]; i++) {
            if (strcmp(text, s->values[i]) == 0) {
                *value = i;
                return 0;
            }
            const char *sep = !i ? "" : s->values[i + 1] ? ", " : " or ";
            if (used < sizeof list)
                used +=
                    (size_t)snprintf(list + used, sizeof list - used, "%s%s", sep, s->values[i]);
        }
        snprintf(why, whylen, "unknown %s \"%.80s\" (%s)", s->name, text, list);
        return -1;
    }
    if (s->kind != RULES_DURATION) {
        snprintf(why, whylen, "not a setting of the configuration");
        return -1;
    }
    char *end;
    errno = 0;
    long long n = strtoll(text, &end, 10);
    if (!*text || !(isdigit((unsigned char)*text) || *text == '-' || *text == '+') || *end) {
        snprintf(why, whylen, "not a number: \"%.80s\"", text);
        return -1;
    }
    if (errno == ERANGE || n < s->min || n > s->max) {
        snprintf(why, whylen, "out of range (%lld..%lld): %.80s", (long long)s->min,
                 (long long)s->max, text);
        return -1;
    }
    *value = n;
    return 0;
}

void rules_setting_config_text(const struct rules_setting *s, int64_t value, char *out, size_t len)
{
    if (s->kind == RULES_CHOICE)
        snprintf(out, len, "%s", s->values[value]);
    else
        snprintf(out, len, "%lld", (long long)value);
}
