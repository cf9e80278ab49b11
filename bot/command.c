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
#include "render.h"

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
static long find_for(const char *s)
{
    for (const char *p = s; *p; p++) {
        if ((p == s || isspace((unsigned char)p[-1])) && strncasecmp(p, "for", 3) == 0 &&
            (p[3] == '\0' || isspace((unsigned char)p[3])))
            return p - s;
    }
    return -1;
}

static enum command_error parse_args(struct command *c, const char *rest)
{
    rest = skip_space(rest);
    size_t len = strlen(rest);
    enum command_args args = command_def(c->type)->args;
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
        long at = find_for(p);
        if (at < 0)
            return CMD_ERR_USAGE;
        if (copy_trimmed(c->arg2, sizeof c->arg2, p, (size_t)at) < 0 ||
            copy_trimmed(c->arg3, sizeof c->arg3, p + at + 3, strlen(p + at + 3)) < 0)
            return CMD_ERR_TOO_LONG;
        return c->arg2[0] && c->arg3[0] ? CMD_OK : CMD_ERR_USAGE;
    }
    case ARGS_NONE:
        break;
    }
    return *rest ? CMD_ERR_USAGE : CMD_OK;
}

/* The command called `w` that may be typed in `places`. */
static enum command_type lookup(const char *w, unsigned places)
{
    for (unsigned t = CMD_NONE + 1; t < CMD_COUNT; t++) {
        const struct command_def *def = command_def((enum command_type)t);
        if ((def->places & places) && strcmp(def->word, w) == 0)
            return (enum command_type)t;
    }
    return CMD_NONE;
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
    char w[32];
    const char *p = skip_space(line);

    memset(c, 0, sizeof *c);
    c->type = CMD_NONE;
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
            strcpy(c->game, w);
        else
            p = save;
    }
    if (!next_word(&p, w, sizeof w)) {
        c->type = CMD_HELP;
        return CMD_OK;
    }
    /* Private commands also work after "!illegal", so buttons and habits both work. */
    c->type = lookup(w, c->table ? CMD_IN_TABLE | CMD_IN_PRIVATE : CMD_IN_PRIVATE);
    if (c->type == CMD_NONE)
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

void command_usage(char *out, size_t len, const char *lang, enum command_type t)
{
    const struct command_def *def = command_def(t);
    const char *vars[] = {"syntax", catalog_text(lang, def->syntax), "example",
                          def->example ? catalog_text(lang, def->example) : "", NULL};
    render_fill(out, len, lang,
                def->example                 ? "usage.with-example"
                : def->places & CMD_IN_TABLE ? "usage.table"
                                             : "usage.private",
                vars);
}

/* Appends the syntax of every command that `wanted` accepts to out. */
static void syntax_list(char *out, size_t len, const char *lang,
                        bool (*wanted)(const struct command_def *))
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned t = CMD_NONE + 1; t < CMD_COUNT; t++) {
        const struct command_def *def = command_def((enum command_type)t);
        if (!wanted(def))
            continue;
        int w = snprintf(out + n, len - n, "%s%s", n ? ", " : "", catalog_text(lang, def->syntax));
        if (w < 0 || (size_t)w >= len - n)
            return;
        n += (size_t)w;
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
    return def->places == CMD_IN_PRIVATE || def == command_def(CMD_HELP);
}

void command_help(char *out, size_t len, const char *lang, bool table)
{
    char a[1024], b[1024];
    if (table) {
        syntax_list(a, sizeof a, lang, for_everyone);
        syntax_list(b, sizeof b, lang, for_host);
        const char *vars[] = {"commands", a, "host", b, NULL};
        render_fill(out, len, lang, "help.table", vars);
    } else {
        syntax_list(a, sizeof a, lang, in_private);
        const char *vars[] = {"commands", a, NULL};
        render_fill(out, len, lang, "help.private", vars);
    }
}

/* Lower-cases s keeping letters and digits only, then drops one trailing 's'
 * so that singular and plural compare equal. */
static void fold(const char *s, size_t len, char *out, size_t outlen)
{
    size_t n = 0;
    for (size_t i = 0; i < len && s[i]; i++)
        if (isalnum((unsigned char)s[i]) && n + 1 < outlen)
            out[n++] = (char)tolower((unsigned char)s[i]);
    if (n > 2 && out[n - 1] == 's')
        n--;
    out[n] = '\0';
}

/* Calls fn for every folded name of resource r: display name, id, and the
 * catalog's aliases ("alias.<id>", separated by '|'). Stops when fn returns true. */
static bool each_name(unsigned r, const char *lang, bool (*fn)(const char *, void *), void *arg)
{
    char key[64], folded[64];
    const char *id = il_resource_id(r);
    snprintf(key, sizeof key, "card.%s", id);
    const char *display = catalog_text(lang, key);
    fold(id, strlen(id), folded, sizeof folded);
    if (fn(folded, arg))
        return true;
    if (display) {
        fold(display, strlen(display), folded, sizeof folded);
        if (fn(folded, arg))
            return true;
    }
    snprintf(key, sizeof key, "alias.%s", id);
    const char *aliases = catalog_text(lang, key);
    while (aliases && *aliases) {
        const char *bar = strchr(aliases, '|');
        size_t len = bar ? (size_t)(bar - aliases) : strlen(aliases);
        fold(aliases, len, folded, sizeof folded);
        if (fn(folded, arg))
            return true;
        aliases = bar ? bar + 1 : NULL;
    }
    return false;
}

static bool equals(const char *name, void *arg)
{
    return strcmp(name, arg) == 0;
}

static bool has_prefix(const char *name, void *arg)
{
    return strncmp(name, arg, strlen(arg)) == 0;
}

static void list_resources(unsigned in_play, const char *lang, char *out, size_t outlen)
{
    size_t n = 0;
    out[0] = '\0';
    for (unsigned r = 0; r < IL_RESOURCES; r++) {
        if (!(in_play & (1u << r)))
            continue;
        char key[64];
        snprintf(key, sizeof key, "card.%s", il_resource_id(r));
        const char *name = catalog_text(lang, key);
        int w = snprintf(out + n, outlen - n, "%s%s", n ? ", " : "", name ? name : key);
        if (w < 0 || (size_t)w >= outlen - n)
            return;
        n += (size_t)w;
    }
}

/* True when the folded words name a role or a suspect card. */
static bool names_role(const char *folded, const char *lang)
{
    static const char *const generic[] = {"dealer", "buyer", "role", "suspect"};
    for (size_t i = 0; i < sizeof generic / sizeof *generic; i++)
        if (strcmp(folded, generic[i]) == 0)
            return true;
    for (unsigned t = IL_RESOURCES; t < IL_CARD_TYPES; t++) {
        char key[64], name[96];
        snprintf(key, sizeof key, "card.%s", il_card_id(t));
        const char *text = catalog_text(lang, key);
        if (!text)
            continue;
        fold(text, strlen(text), name, sizeof name);
        if (strcmp(name, folded) == 0)
            return true;
        /* Without "The " too, so "arms dealer" matches "The Arms Dealer". */
        if (strncasecmp(text, "the ", 4) == 0) {
            fold(text + 4, strlen(text + 4), name, sizeof name);
            if (strcmp(name, folded) == 0)
                return true;
        }
    }
    return false;
}

/* Resolves folded words to a resource. Exact names first, then unique prefixes. */
static enum resolve_error match_resource(const char *folded, bool allow_prefix, unsigned in_play,
                                         const char *lang, int *out)
{
    int found = -1, count = 0;
    if (!folded[0])
        return RESOLVE_UNKNOWN;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if (each_name(r, lang, equals, (void *)folded)) {
            *out = (int)r;
            return (in_play & (1u << r)) ? RESOLVE_OK : RESOLVE_UNKNOWN;
        }
    if (!allow_prefix)
        return RESOLVE_UNKNOWN;
    for (unsigned r = 0; r < IL_RESOURCES; r++)
        if ((in_play & (1u << r)) && each_name(r, lang, has_prefix, (void *)folded)) {
            found = (int)r;
            count++;
        }
    if (count == 1) {
        *out = found;
        return RESOLVE_OK;
    }
    return count > 1 ? RESOLVE_AMBIGUOUS : RESOLVE_UNKNOWN;
}

/* Enough for any argument that fits: one letter and one separator each. */
#define MAX_TOKENS (COMMAND_ARG_MAX / 2 + 1)

/* Splits text into words at blanks, commas, '+' and "and". Returns the
 * count, or MAX_TOKENS + 1 when there are more words than fit. */
static unsigned tokenize(char *text, char **tok)
{
    unsigned n = 0;
    char *save = NULL;
    for (char *p = strtok_r(text, " \t\r\n,+;", &save); p;
         p = strtok_r(NULL, " \t\r\n,+;", &save)) {
        if (strcasecmp(p, "and") == 0)
            continue;
        if (n == MAX_TOKENS)
            return MAX_TOKENS + 1;
        tok[n++] = p;
    }
    return n;
}

static void set_word(char *word, size_t wordlen, char **tok, unsigned i, unsigned k)
{
    size_t n = 0;
    word[0] = '\0';
    for (unsigned j = i; j < i + k; j++) {
        int w = snprintf(word + n, wordlen - n, "%s%s", n ? " " : "", tok[j]);
        if (w < 0 || (size_t)w >= wordlen - n)
            return;
        n += (size_t)w;
    }
}

enum resolve_error command_parse_cards(const char *text, unsigned in_play, const char *lang,
                                       struct il_bundle *out, char *word, size_t wordlen,
                                       char *choices, size_t choiceslen)
{
    char buf[COMMAND_ARG_MAX];
    char *tok[MAX_TOKENS];
    memset(out, 0, sizeof *out);
    word[0] = choices[0] = '\0';
    if (strlen(text) >= sizeof buf)
        return RESOLVE_BAD_COUNT;
    snprintf(buf, sizeof buf, "%s", text);
    unsigned n = tokenize(buf, tok);
    if (n == 1 && (strcasecmp(tok[0], "nothing") == 0 || strcasecmp(tok[0], "none") == 0))
        return RESOLVE_OK;
    if (n == 0 || n > MAX_TOKENS)
        return RESOLVE_BAD_COUNT;

    long count = -1;
    for (unsigned i = 0; i < n;) {
        char *end;
        long v = strtol(tok[i], &end, 10);
        if (*end == '\0' || strcasecmp(end, "x") == 0) {
            if (count >= 0 || v <= 0 || v > 99) {
                set_word(word, wordlen, tok, i, 1);
                return RESOLVE_BAD_COUNT;
            }
            count = v;
            i++;
            continue;
        }
        /* Longest phrase first, so "luxury cars" wins over "luxury". */
        enum resolve_error err = RESOLVE_UNKNOWN;
        int res = -1;
        unsigned used = 0;
        for (unsigned k = (n - i < 3 ? n - i : 3); k >= 1 && err != RESOLVE_OK; k--) {
            char joined[COMMAND_ARG_MAX], folded[COMMAND_ARG_MAX];
            set_word(joined, sizeof joined, tok, i, k);
            fold(joined, strlen(joined), folded, sizeof folded);
            if (names_role(folded, lang)) {
                set_word(word, wordlen, tok, i, k);
                return RESOLVE_NOT_TRADABLE;
            }
            enum resolve_error e = match_resource(folded, k == 1, in_play, lang, &res);
            if (e == RESOLVE_OK || k == 1)
                err = e;
            used = k;
        }
        if (err != RESOLVE_OK) {
            set_word(word, wordlen, tok, i, 1);
            list_resources(in_play, lang, choices, choiceslen);
            return err;
        }
        unsigned total = out->n[res] + (unsigned)(count < 0 ? 1 : count);
        if (total > 99) {
            set_word(word, wordlen, tok, i, used);
            return RESOLVE_BAD_COUNT;
        }
        out->n[res] = (uint8_t)total;
        count = -1;
        i += used;
    }
    if (count >= 0) {
        snprintf(word, wordlen, "%ld", count);
        return RESOLVE_BAD_COUNT;
    }
    return RESOLVE_OK;
}

enum resolve_error command_parse_resource(const char *text, unsigned in_play, const char *lang,
                                          int *resource, char *choices, size_t choiceslen)
{
    char folded[COMMAND_ARG_MAX];
    choices[0] = '\0';
    fold(text, strlen(text), folded, sizeof folded);
    enum resolve_error e = match_resource(folded, true, in_play, lang, resource);
    if (e != RESOLVE_OK)
        list_resources(in_play, lang, choices, choiceslen);
    return e;
}

/* Strips mention syntax: "<@123>", "<@!123>", "@alice". */
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
    size_t used = 0;
    out[0] = '\0';
    for (unsigned i = 0; i < n; i++) {
        int w = snprintf(out + used, outlen - used, "%s%s", used ? ", " : "",
                         names[i] ? names[i] : ids[i]);
        if (w < 0 || (size_t)w >= outlen - used)
            return;
        used += (size_t)w;
    }
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
    const unsigned char *p = (const unsigned char *)(name ? name : "");
    size_t n = 0, chars = 0;
    bool space = false;

    if (outlen == 0)
        return false;
    while (*p && chars < COMMAND_NAME_CHARS) {
        uint32_t c;
        size_t len = utf8_decode(p, &c);
        if (len == 0) {
            p++; /* a byte that is not UTF-8 is dropped */
            continue;
        }
        if (breaks_text(c) || c == ' ') {
            space = n > 0; /* runs become one space; leading ones go */
            p += len;
            continue;
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
