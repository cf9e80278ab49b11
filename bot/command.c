/*
 * command.c - parsing canonical commands and resolving loose names.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "command.h"
#include "core/catalog.h"
#include "core/modules.h"
#include "core/text.h"

static const char *skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s))
        s++;
    return s;
}

/* Copies the next word of *s into out (lower case) and advances *s. Returns its length. */
static size_t next_word(const char **s, char *out, size_t outlen)
{
    const char *p = skip_space(*s);
    size_t n = 0;
    while (*p && !isspace((unsigned char)*p)) {
        if (n + 1 < outlen)
            out[n++] = (char)tolower((unsigned char)*p);
        p++;
    }
    out[n] = '\0';
    *s = p;
    return n;
}

/* Copies s with surrounding blanks removed. Returns -1 when it does not fit. */
static int copy_trimmed(char *out, size_t outlen, const char *s, size_t len)
{
    while (len && isspace((unsigned char)*s)) {
        s++;
        len--;
    }
    while (len && isspace((unsigned char)s[len - 1]))
        len--;
    if (len >= outlen)
        return -1;
    memcpy(out, s, len);
    out[len] = '\0';
    return 0;
}

static bool parse_number(const char *s, long *out)
{
    char *end;
    if (*s == '#')
        s++;
    if (!isdigit((unsigned char)*s))
        return false;
    long v = strtol(s, &end, 10);
    if (*skip_space(end) != '\0' || v < 0 || v > 1000000)
        return false;
    *out = v;
    return true;
}

/* Finds " for " (any case) as a whole word in s; returns its offset or -1. */
/* Finds the first word of s that is "for" in any of the catalog's languages
 * (a command is parsed before its game, so before its language is known);
 * stores the word's length in *len. Returns its offset, or -1. */
static long find_for(const char *s, size_t *len)
{
    for (const char *p = s; *p; p++) {
        if (p != s && !isspace((unsigned char)p[-1]))
            continue;
        const char *code;
        for (size_t i = 0; (code = catalog_language_at(i)); i++) {
            const char *w = catalog_text(code, "word.for");
            size_t n = w ? strlen(w) : 0;
            if (n && strncasecmp(p, w, n) == 0 && (p[n] == '\0' || isspace((unsigned char)p[n]))) {
                *len = n;
                return p - s;
            }
        }
    }
    return -1;
}

static enum command_error parse_args(struct command *c, const char *rest)
{
    rest = skip_space(rest);
    size_t len = strlen(rest);
    enum command_args args = c->def->args;
    switch (args) {
    case ARGS_OPTIONAL:
    case ARGS_TEXT:
        if (copy_trimmed(c->arg, sizeof c->arg, rest, len) < 0)
            return CMD_ERR_TOO_LONG;
        if (args == ARGS_TEXT && !c->arg[0])
            return CMD_ERR_USAGE;
        return CMD_OK;
    case ARGS_NUMBER:
        if (!parse_number(rest, &c->number) || c->number == 0)
            return CMD_ERR_USAGE;
        return CMD_OK;
    case ARGS_DURATION:
        /* minutes when bare: what "extend 5" always meant */
        c->ms = text_parse_duration(rest, 60000);
        return c->ms > 0 ? CMD_OK : CMD_ERR_USAGE;
    case ARGS_KEY_VALUE: {
        const char *p = rest;
        if (!next_word(&p, c->arg, sizeof c->arg))
            return CMD_ERR_USAGE;
        if (copy_trimmed(c->arg2, sizeof c->arg2, p, strlen(p)) < 0)
            return CMD_ERR_TOO_LONG;
        return c->arg2[0] ? CMD_OK : CMD_ERR_USAGE;
    }
    case ARGS_TRADE: {
        /* <player> <cards> for <cards> */
        const char *p = rest;
        char who[COMMAND_ARG_MAX];
        const char *start = skip_space(p);
        if (!next_word(&p, who, sizeof who))
            return CMD_ERR_USAGE;
        if ((size_t)(p - start) >= sizeof c->arg)
            return CMD_ERR_TOO_LONG;
        copy_trimmed(c->arg, sizeof c->arg, start, (size_t)(p - start));
        size_t forlen;
        long at = find_for(p, &forlen);
        if (at < 0)
            return CMD_ERR_USAGE;
        const char *ask = p + at + forlen;
        if (copy_trimmed(c->arg2, sizeof c->arg2, p, (size_t)at) < 0 ||
            copy_trimmed(c->arg3, sizeof c->arg3, ask, strlen(ask)) < 0)
            return CMD_ERR_TOO_LONG;
        return c->arg2[0] && c->arg3[0] ? CMD_OK : CMD_ERR_USAGE;
    }
    case ARGS_NONE:
        break;
    }
    return *rest ? CMD_ERR_USAGE : CMD_OK;
}

/* A game id is "g" followed by digits. */
static bool is_game_id(const char *w)
{
    if (w[0] != 'g' || !w[1])
        return false;
    for (const char *p = w + 1; *p; p++)
        if (!isdigit((unsigned char)*p))
            return false;
    return true;
}

enum command_error command_parse(const char *line, bool in_table, struct command *c)
{
    return command_parse_for(line, in_table, rules_default(), c);
}

enum command_error command_parse_for(const char *line, bool in_table,
                                     const struct rules_module *rules, struct command *c)
{
    char w[32];
    const char *p = skip_space(line);

    memset(c, 0, sizeof *c);
    if (strncasecmp(p, "!illegal", 8) == 0 && (p[8] == '\0' || isspace((unsigned char)p[8]))) {
        c->table = true;
        p += 8;
    } else if (in_table) {
        return CMD_OK;
    }
    if (!c->table) {
        const char *save = p;
        next_word(&p, w, sizeof w);
        if (is_game_id(w) && strlen(w) < sizeof c->game)
            text_copy(c->game, sizeof c->game, w);
        else
            p = save;
    }
    if (!next_word(&p, w, sizeof w)) {
        c->def = command_find_in("help", CMD_IN_TABLE | CMD_IN_PRIVATE, rules);
        return CMD_OK;
    }
    /* Private commands also work after "!illegal", so buttons and habits both work. */
    c->def = command_find_in(w, c->table ? CMD_IN_TABLE | CMD_IN_PRIVATE : CMD_IN_PRIVATE, rules);
    if (!c->def)
        return CMD_ERR_UNKNOWN;
    return parse_args(c, p);
}

const char *command_error_id(enum command_error e)
{
    switch (e) {
    case CMD_OK:
        return "ok";
    case CMD_ERR_UNKNOWN:
        return "unknown";
    case CMD_ERR_USAGE:
        return "usage";
    case CMD_ERR_TOO_LONG:
        return "too-long";
    }
    return "unknown";
}

/* Joins n values with '|' into out. */
static void join_values(const char *const *values, unsigned n, char *out, size_t len)
{
    struct text_list l;
    text_list_init(&l, out, len, "|");
    for (unsigned i = 0; i < n; i++)
        text_list_add(&l, "%s", values[i]);
}

/* The values of an option that depend on the game, grouped by game: "Illegal:
 * a|b; Illegal (Palm & Drewes): c|d". */
static void values_by_game(const struct command_option *o, const char *lang, char *out, size_t len)
{
    const char *values[64];
    char joined[512], group[640];
    struct text_list l;
    text_list_init(&l, out, len, "; ");
    for (size_t i = 0; i < rules_count(); i++) {
        const struct rules_module *r = rules_at(i);
        join_values(values, o->values_in(r, values, sizeof values / sizeof *values), joined,
                    sizeof joined);
        const char *vars[] = {"game", text_name(lang, r->id, "game"), "values", joined, NULL};
        text_fill(group, sizeof group, lang, "usage.values-of-game", vars);
        text_list_add(&l, "%s", group);
    }
}

/* The values of an option, as a syntax writes them ("standard|advanced"),
 * into out: those of game where they depend on it (every game's, grouped,
 * with game NULL and several games); false when it has no list of values. */
static bool option_values(const struct command_option *o, const struct rules_module *game,
                          const char *lang, char *out, size_t len)
{
    const char *values[64];
    unsigned n = 0;
    if (o->values_in && !game && rules_count() > 1) {
        values_by_game(o, lang, out, len);
        return true;
    }
    if (o->values_in)
        n = o->values_in(game ? game : rules_at(0), values, sizeof values / sizeof *values);
    else if (o->values_of)
        n = o->values_of(values, sizeof values / sizeof *values);
    else
        for (const char *const *v = o->values; v && *v && n < sizeof values / sizeof *values; v++)
            values[n++] = *v;
    join_values(values, n, out, len);
    return o->values || o->values_of || o->values_in;
}

/* Whether an option of def lists values that depend on the game. */
static bool game_values(const struct command_def *def)
{
    for (unsigned i = 0; i < COMMAND_MAX_OPTIONS && def->options[i].name; i++)
        if (def->options[i].values_in)
            return true;
    return false;
}

void command_syntax(char *out, size_t len, const char *lang, const struct command_def *def,
                    const struct rules_module *game)
{
    char key[64], values[COMMAND_MAX_OPTIONS][1024];
    const char *vars[2 * COMMAND_MAX_OPTIONS + 1];
    unsigned n = 0;
    /* the form that names a game, where the daemon has several and the
     * command is about none of them */
    int w = snprintf(key, sizeof key, "%s-games", def->syntax);
    bool several = rules_count() > 1 && !(game && game_values(def)) && w > 0 &&
                   (size_t)w < sizeof key && catalog_text(lang, key);
    for (unsigned i = 0; i < COMMAND_MAX_OPTIONS && def->options[i].name; i++)
        if (option_values(&def->options[i], game, lang, values[i], sizeof values[i])) {
            vars[2 * n] = def->options[i].name;
            vars[2 * n + 1] = values[i];
            n++;
        }
    vars[2 * n] = NULL;
    text_fill(out, len, lang, several ? key : def->syntax, vars);
}

void command_usage(char *out, size_t len, const char *lang, const struct command_def *def,
                   const struct rules_module *game)
{
    char syntax[1024];
    command_syntax(syntax, sizeof syntax, lang, def, game);
    const char *vars[] = {"syntax", syntax, "example",
                          def->example ? catalog_text(lang, def->example) : "", NULL};
    text_fill(out, len, lang,
              def->example                 ? "usage.with-example"
              : def->places & CMD_IN_TABLE ? "usage.table"
                                           : "usage.private",
              vars);
}

/* Appends the syntax of every command of the bot and of rules that `wanted`
 * accepts to out; game: what the syntaxes are about (NULL: every game). */
static void syntax_list(char *out, size_t len, const char *lang, const struct rules_module *rules,
                        const struct rules_module *game, bool (*wanted)(const struct command_def *))
{
    struct text_list l;
    text_list_init(&l, out, len, ", ");
    const struct command_def *def;
    char syntax[1024];
    for (size_t i = 0; (def = command_at(i)); i++)
        if (wanted(def) && command_find_in(def->word, def->places, rules) == def) {
            command_syntax(syntax, sizeof syntax, lang, def, game);
            text_list_add(&l, "%s", syntax);
        }
}

static bool for_everyone(const struct command_def *def)
{
    return (def->places & CMD_IN_TABLE) && def->who != CMD_HOST;
}

static bool for_host(const struct command_def *def)
{
    return (def->places & CMD_IN_TABLE) && def->who == CMD_HOST;
}

static bool in_private(const struct command_def *def)
{
    return def->places & CMD_IN_PRIVATE;
}

void command_help(char *out, size_t len, const char *lang, bool table, const char *prefix,
                  const struct rules_module *rules, const struct rules_module *game)
{
    char a[2048], b[2048];
    rules = rules ? rules : rules_default();
    if (table) {
        syntax_list(a, sizeof a, lang, rules, game, for_everyone);
        syntax_list(b, sizeof b, lang, rules, game, for_host);
        const char *vars[] = {"commands", a, "host", b, "prefix", prefix, NULL};
        text_fill(out, len, lang, "help.table", vars);
    } else {
        syntax_list(a, sizeof a, lang, rules, game, in_private);
        const char *vars[] = {"commands", a, NULL};
        text_fill(out, len, lang, "help.private", vars);
    }
}

static void strip_mention(const char *text, char *out, size_t outlen)
{
    const char *p = skip_space(text);
    size_t len = strlen(p);
    while (len && isspace((unsigned char)p[len - 1]))
        len--;
    if (len >= 3 && p[0] == '<' && p[1] == '@' && p[len - 1] == '>') {
        p += 2;
        len -= 3;
        if (len && *p == '!') {
            p++;
            len--;
        }
    } else if (len && *p == '@' && !strchr(p, ':')) {
        /* Keep Matrix ids ("@alice:example.org") whole; drop a lone '@'. */
        p++;
        len--;
    }
    if (len >= outlen)
        len = outlen - 1;
    memcpy(out, p, len);
    out[len] = '\0';
}

static void list_players(const char *const *names, const char *const *ids, unsigned n, char *out,
                         size_t outlen)
{
    struct text_list l;
    text_list_init(&l, out, outlen, ", ");
    for (unsigned i = 0; i < n; i++)
        text_list_add(&l, "%s", names[i] ? names[i] : ids[i]);
}

/* Index of the seat whose id `want` (mention syntax stripped) names exactly,
 * or, failing that, without regard to case when only one does; else -1. */
static int match_id(const char *want, const char *const *ids, unsigned n)
{
    int found = -1, count = 0;
    for (unsigned i = 0; i < n; i++)
        if (strcmp(ids[i], want) == 0)
            return (int)i;
    for (unsigned i = 0; i < n; i++)
        if (strcasecmp(ids[i], want) == 0) {
            found = (int)i;
            count++;
        }
    return count == 1 ? found : -1;
}

int command_name_claims_id(const char *name, const char *const *ids, unsigned n)
{
    char want[COMMAND_ARG_MAX];
    strip_mention(name, want, sizeof want);
    for (unsigned i = 0; i < n; i++)
        if (strcasecmp(ids[i], want) == 0 || strcasecmp(ids[i], name) == 0)
            return (int)i;
    return -1;
}

enum resolve_error command_match_player(const char *text, const char *const *ids,
                                        const char *const *names, unsigned n, int *index,
                                        char *choices, size_t choiceslen)
{
    char want[COMMAND_ARG_MAX];
    strip_mention(text, want, sizeof want);
    choices[0] = '\0';
    if (!want[0]) {
        list_players(names, ids, n, choices, choiceslen);
        return RESOLVE_UNKNOWN;
    }
    /* Ids first, over every seat: ids are what buttons and mentions carry, and
     * a display name must never capture another player's id. */
    int found = match_id(want, ids, n), count = 0;
    if (found >= 0) {
        *index = found;
        return RESOLVE_OK;
    }
    for (unsigned i = 0; i < n; i++)
        if (names[i] && strcasecmp(names[i], want) == 0) {
            found = (int)i;
            count++;
        }
    if (count == 0) {
        size_t len = strlen(want);
        for (unsigned i = 0; i < n; i++)
            if (strncasecmp(ids[i], want, len) == 0 ||
                (names[i] && strncasecmp(names[i], want, len) == 0)) {
                found = (int)i;
                count++;
            }
    }
    if (count == 1) {
        *index = found;
        return RESOLVE_OK;
    }
    list_players(names, ids, n, choices, choiceslen);
    return count > 1 ? RESOLVE_AMBIGUOUS : RESOLVE_UNKNOWN;
}

/* Length of the UTF-8 sequence at s and its code point in *cp, or 0 when s
 * does not start a valid, shortest-form sequence. */
static size_t utf8_decode(const unsigned char *s, uint32_t *cp)
{
    size_t len;
    uint32_t c = s[0], min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if ((c & 0xe0) == 0xc0) {
        len = 2;
        c &= 0x1f;
        min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        c &= 0x0f;
        min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        c &= 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        c = (c << 6) | (s[i] & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
        return 0;
    *cp = c;
    return len;
}

/* Characters that would break a line or reorder text: C0 and C1 controls,
 * line and paragraph separators, and the bidirectional controls. */
static bool breaks_text(uint32_t c)
{
    return c < 0x20 || (c >= 0x7f && c <= 0x9f) || c == 0x2028 || c == 0x2029 || c == 0x200e ||
           c == 0x200f || (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) ||
           c == 0x061c || c == 0xfeff;
}

bool command_clean_name(const char *name, char *out, size_t outlen)
{
    return command_clean_text(name, COMMAND_NAME_CHARS, out, outlen);
}

bool command_clean_text(const char *text, size_t max_chars, char *out, size_t outlen)
{
    const unsigned char *p = (const unsigned char *)(text ? text : "");
    size_t n = 0, chars = 0;
    bool space = false;

    if (outlen == 0)
        return false;
    while (*p && chars < max_chars) {
        uint32_t c = *p;
        size_t len = 1;
        /* printable ASCII, most of what is typed, is kept as it is */
        if (c <= ' ' || c >= 0x7f) {
            if (!(len = utf8_decode(p, &c))) {
                p++; /* a byte that is not UTF-8 is dropped */
                continue;
            }
            if (breaks_text(c) || c == ' ') {
                space = n > 0; /* runs become one space; leading ones go */
                p += len;
                continue;
            }
        }
        if (n + (space ? 1 : 0) + len >= outlen)
            break;
        if (space) {
            out[n++] = ' ';
            chars++;
            space = false;
        }
        memcpy(out + n, p, len);
        n += len;
        chars++;
        p += len;
    }
    out[n] = '\0';
    return n > 0;
}
