/*
 * compose.c - filling a compose template (compose.h), and checking a
 * module's compose before an adapter draws it.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "compose.h"
#include "json.h"

/* out as it is written: what is in it so far, and whether it ran short. */
struct writer {
    char *out;
    size_t len, at;
    bool over;
};

static void put(struct writer *w, const char *s, size_t n)
{
    if (w->over || w->at + n >= w->len) {
        w->over = true;
        return;
    }
    memcpy(w->out + w->at, s, n);
    w->at += n;
    w->out[w->at] = '\0';
}

static enum compose_fill bad(char *out, size_t len, const char *why)
{
    snprintf(out, len, "%s", why);
    return COMPOSE_BAD;
}

bool compose_name_ok(const char *s, size_t n)
{
    if (n == 0 || n > COMPOSE_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

static bool has_control(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f)
            return true;
    return false;
}

/* The part that starts at p ('{'): its name into name, its text for "not
 * chosen" (after '|') as *dflt (NULL: none); returns what follows its '}',
 * or NULL with why set. */
static const char *read_part(const char *p, char name[COMPOSE_NAME_MAX + 1], const char **dflt,
                             size_t *dlen, const char **why)
{
    const char *end = strchr(p + 1, '}'), *open = strchr(p + 1, '{');
    if (!end || (open && open < end)) {
        *why = "a \"{\" in the template has no \"}\"";
        return NULL;
    }
    const char *bar = memchr(p + 1, '|', (size_t)(end - p - 1));
    size_t n = (size_t)((bar ? bar : end) - (p + 1));
    if (!compose_name_ok(p + 1, n)) {
        *why = "a part's name in the template is not 1 to 16 of a-z, 0-9 and -";
        return NULL;
    }
    memcpy(name, p + 1, n);
    name[n] = '\0';
    *dflt = bar ? bar + 1 : NULL;
    *dlen = bar ? (size_t)(end - bar - 1) : 0;
    return end + 1;
}

enum compose_fill compose_fill(const char *tmpl, compose_value_fn value, void *arg, char *out,
                               size_t len)
{
    if (!out || len == 0)
        return COMPOSE_BAD;
    out[0] = '\0';
    if (!tmpl)
        return bad(out, len, "no template");
    size_t words = strcspn(tmpl, "{}");
    while (words > 0 && tmpl[words - 1] == ' ')
        words--;
    if (words == 0 || tmpl[0] == ' ')
        return bad(out, len, "the template does not start with its command");
    struct writer w = {out, len, 0, false};
    bool missing = false;
    for (const char *p = tmpl; *p;) {
        if (*p == '}')
            return bad(out, len, "a \"}\" in the template has no \"{\"");
        if (*p != '{') {
            size_t n = strcspn(p, "{}");
            put(&w, p, n);
            p += n;
            continue;
        }
        char name[COMPOSE_NAME_MAX + 1];
        const char *dflt, *why = NULL;
        size_t dlen;
        if (!(p = read_part(p, name, &dflt, &dlen, &why)))
            return bad(out, len, why);
        const char *v = value ? value(arg, name) : NULL;
        if (v && has_control(v))
            return bad(out, len, "a part's value holds a control character");
        if (v && *v)
            put(&w, v, strlen(v));
        else if (dflt)
            put(&w, dflt, dlen);
        else
            missing = true;
    }
    if (w.over)
        return bad(out, len, "the command is longer than its buffer");
    if (missing) {
        memcpy(out, tmpl, words); /* words < w.len: the template's text was written */
        out[words] = '\0';
        return COMPOSE_INCOMPLETE;
    }
    return COMPOSE_OK;
}

/* What compose_check's fill asks of each part the template names. */
struct check {
    const struct json_object *parts;
    unsigned named[COMPOSE_PARTS_MAX];
    const char *unknown;
};

static const char *check_value(void *arg, const char *name)
{
    struct check *c = arg;
    for (size_t i = 0; i < jarr_len(c->parts); i++)
        if (strcmp(name, jget_str(jarr_at(c->parts, i), "name")) == 0) {
            c->named[i]++;
            return "x";
        }
    c->unknown = "the template names a part the compose does not have";
    return "x";
}

/* Whether a part of a compose is well formed; why says how not. */
static bool part_ok(const struct json_object *part, const char **why)
{
    const char *name = jget_str(part, "name");
    struct json_object *players = jget_arr(part, "players"), *items = jget_arr(part, "items");
    if (!name || !compose_name_ok(name, strlen(name)))
        *why = "a part has no name of 1 to 16 of a-z, 0-9 and -";
    else if ((players != NULL) == (items != NULL))
        *why = "a part has neither or both of players and items";
    else
        return true;
    return false;
}

int compose_check(const struct json_object *compose, char *why, size_t len)
{
    struct check c = {jget_arr(compose, "parts"), {0}, NULL};
    const char *tmpl = jget_str(compose, "command"), *reason = NULL;
    size_t n = jarr_len(c.parts);
    if (!tmpl)
        reason = "no command template";
    else if (n == 0 || n > COMPOSE_PARTS_MAX)
        reason = "not 1 to 4 parts";
    for (size_t i = 0; !reason && i < n; i++)
        (void)part_ok(jarr_at(c.parts, i), &reason);
    char out[512];
    if (!reason && compose_fill(tmpl, check_value, &c, out, sizeof out) == COMPOSE_BAD) {
        snprintf(why, len, "%s", out);
        return -1;
    }
    for (size_t i = 0; !reason && !c.unknown && i < n; i++)
        if (c.named[i] != 1)
            reason = "the template does not name each part once";
    if (!reason)
        reason = c.unknown;
    if (reason)
        snprintf(why, len, "%s", reason);
    return reason ? -1 : 0;
}
