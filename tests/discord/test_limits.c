/*
 * test_limits.c - what the bot sends Discord keeps Discord's documented
 * limits (discord_limits.c, written from docs.discord.com/developers alone):
 *
 * - the checker itself, on the cases of limit_cases.txt: bodies at each limit
 *   it knows and past it, so that the test server refuses what Discord
 *   refuses and takes what it takes;
 * - the slash commands built from the command tables: within every limit,
 *   each command once and where its entry says (a player's move a command of
 *   its own, the host's under /illegal host, the rest under /illegal), each
 *   translation of their names kept, with room left for more; registered
 *   through the test server, globally and per guild; and each one, picked as
 *   a user would, read back into the canonical text the dispatcher parses;
 * - messages whatever their length: a text past a message's content goes to
 *   embeds, split between lines, one past what a message holds is cut with an
 *   ellipsis; labels, menus, custom_ids, interaction answers and
 *   autocomplete choices, each shortened or left out on purpose.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "adapters/discord/discord.h"
#include "adapters/discord/internal.h"
#include "bot/command.h"
#include "core/catalog.h"
#include "discord_limits.h"
#include "fdclient.h"
#include "harness.h"

#define TABLE_A     "540000000000000001"
#define ELLIPSIS    "\xE2\x80\xA6"
#define EMOJI       "\xF0\x9F\x94\xAB" /* beyond the BMP: two UTF-16 units */
#define THREE_BYTES "\xE2\x82\xAC"     /* the euro sign: three bytes, one character */

static const char *jstr(struct json_object *o, const char *k)
{
    return jget_str(o, k);
}

static size_t alen(struct json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* unit repeated n times (malloc'd). */
static char *repeat(const char *unit, size_t n)
{
    size_t u = strlen(unit);
    char *s = malloc(u * n + 1);
    assert_non_null(s);
    for (size_t i = 0; i < n; i++)
        memcpy(s + i * u, unit, u);
    s[u * n] = '\0';
    return s;
}

/* ---- the checker, on the cases of limit_cases.txt ---- */

enum what { MSG_CREATE, MSG_FOLLOWUP, MSG_EDIT, CALLBACK, COMMANDS };

static const struct {
    const char *word;
    enum what what;
} wheres[] = {{"create", MSG_CREATE},
              {"followup", MSG_FOLLOWUP},
              {"edit", MSG_EDIT},
              {"callback", CALLBACK},
              {"commands", COMMANDS}};

/* Runs the checker for w on j into e (lim_init'ed here; the caller frees). */
static void run_checker(enum what w, struct json_object *j, struct lim_errors *e)
{
    lim_init(e);
    if (w == CALLBACK)
        lim_callback(e, j);
    else if (w == COMMANDS)
        lim_commands(e, j);
    else
        lim_message(e, j,
                    w == MSG_CREATE     ? LIM_CREATE
                    : w == MSG_FOLLOWUP ? LIM_FOLLOWUP
                                        : LIM_EDIT);
}

/* The errors the checker finds in j, as a JSON text; "" when none (malloc'd). */
static char *check(enum what w, struct json_object *j)
{
    struct lim_errors e;
    run_checker(w, j, &e);
    struct json_object *answer = e.n ? lim_answer(&e) : NULL;
    char *out =
        strdup(answer ? json_object_to_json_string_ext(answer, JSON_C_TO_STRING_PLAIN) : "");
    json_object_put(answer);
    lim_free(&e);
    return out;
}

/* A case's body with one repeat, the innermost, written out: <<N*unit>> or
 * <<N,unit>>, # in unit its number (malloc'd, s freed); NULL when s has none
 * (s kept) or the repeat is malformed (s freed, *bad set). */
static char *expand_one(char *s, bool *bad)
{
    char *close = strstr(s, ">>"), *open = NULL;
    if (!close)
        return NULL;
    for (char *p = s; p + 1 < close; p++)
        if (p[0] == '<' && p[1] == '<')
            open = p;
    char *end = NULL;
    unsigned long n = open ? strtoul(open + 2, &end, 10) : 0;
    if (!open || end == open + 2 || (*end != '*' && *end != ',')) {
        *bad = true;
        free(s);
        return NULL;
    }
    const char *unit = end + 1;
    size_t ulen = (size_t)(close - unit), hashes = 0;
    for (size_t i = 0; i < ulen; i++)
        hashes += unit[i] == '#';
    size_t cap = (size_t)(open - s) + n * (ulen + hashes * 20 + 1) + strlen(close + 2) + 1;
    char *out = malloc(cap), *w = out;
    assert_non_null(out);
    memcpy(w, s, (size_t)(open - s));
    w += open - s;
    for (unsigned long i = 0; i < n; i++) {
        if (i && *end == ',')
            *w++ = ',';
        for (size_t k = 0; k < ulen; k++) {
            if (unit[k] == '#')
                w += sprintf(w, "%lu", i);
            else
                *w++ = unit[k];
        }
    }
    strcpy(w, close + 2);
    free(s);
    return out;
}

/* body with every repeat written out (malloc'd), or NULL when one is malformed. */
static char *expand(const char *body)
{
    char *s = strdup(body), *next;
    bool bad = false;
    assert_non_null(s);
    while ((next = expand_one(s, &bad)))
        s = next;
    if (!bad && strstr(s, "<<")) { /* a repeat never closed */
        free(s);
        return NULL;
    }
    return bad ? NULL : s;
}

/* Whether errors has a form error at path (dotted, "." the top), of code when
 * code is not NULL. */
static bool has_error(struct json_object *errors, const char *path, const char *code)
{
    char buf[256], *save = NULL;
    struct json_object *at = errors;
    snprintf(buf, sizeof buf, "%s", strcmp(path, ".") == 0 ? "" : path);
    for (char *k = strtok_r(buf, ".", &save); k && at; k = strtok_r(NULL, ".", &save))
        at = json_object_object_get(at, k);
    struct json_object *list = json_object_object_get(at, "_errors");
    for (size_t i = 0; i < alen(list); i++)
        if (!code || strcmp(jstr(json_object_array_get_idx(list, i), "code"), code) == 0)
            return true;
    return false;
}

/* Whether the checker's answer e is what want says: "ok", "=CODE", "PATH" or
 * "PATH:CODE" (limit_cases.txt). */
static bool as_wanted(const struct lim_errors *e, char *want)
{
    if (strcmp(want, "ok") == 0)
        return e->n == 0;
    if (want[0] == '=')
        return e->n > 0 && e->code == atoi(want + 1);
    char *code = strchr(want, ':');
    if (code)
        *code++ = '\0';
    return e->n > 0 && e->code == 50035 && has_error(e->errors, want, code);
}

/* One case's line: WHERE WANT BODY. */
static void one_case(const char *line, unsigned lineno, unsigned *counts)
{
    char where[16], want[256];
    int off = 0;
    if (sscanf(line, "%15s %255s %n", where, want, &off) != 2 || off == 0)
        fail_msg("line %u: not WHERE WANT BODY: %.100s", lineno, line);
    size_t w = 0;
    while (w < sizeof wheres / sizeof *wheres && strcmp(wheres[w].word, where) != 0)
        w++;
    if (w == sizeof wheres / sizeof *wheres)
        fail_msg("line %u: no such place: %s", lineno, where);
    char *body = expand(line + off);
    if (!body)
        fail_msg("line %u: a repeat is malformed: %.100s", lineno, line + off);
    struct json_object *j = json_tokener_parse(body);
    if (!j)
        fail_msg("line %u: no JSON: %.200s", lineno, body);
    struct lim_errors e;
    run_checker(wheres[w].what, j, &e);
    char shown[256];
    snprintf(shown, sizeof shown, "%s", want);
    if (!as_wanted(&e, want)) {
        struct json_object *a = e.n ? lim_answer(&e) : NULL;
        fail_msg("line %u: %s %s, but %s", lineno, where, shown,
                 a ? json_object_to_json_string_ext(a, JSON_C_TO_STRING_PLAIN) : "taken");
    }
    counts[w]++;
    lim_free(&e);
    json_object_put(j);
    free(body);
}

static const char *cases_path;

/* Every case of limit_cases.txt: what Discord's documentation says each
 * endpoint takes and refuses, the checker takes and refuses. */
static void test_checker_cases(void **state)
{
    (void)state;
    FILE *f = fopen(cases_path, "r");
    if (!f)
        fail_msg("no cases at %s", cases_path);
    char *line = NULL;
    size_t cap = 0;
    unsigned lineno = 0, counts[sizeof wheres / sizeof *wheres] = {0};
    while (getline(&line, &cap, f) >= 0) {
        lineno++;
        line[strcspn(line, "\n")] = '\0';
        if (line[0] && line[0] != '#')
            one_case(line, lineno, counts);
    }
    free(line);
    fclose(f);
    unsigned all = 0;
    for (size_t w = 0; w < sizeof wheres / sizeof *wheres; w++) {
        printf("%u cases of %s\n", counts[w], wheres[w].word);
        assert_true(counts[w] > 0);
        all += counts[w];
    }
    assert_true(all >= 150);
}

/* ---- the slash commands, from the tables ---- */

static const char *const locales[][2] = {{"de", "de"}, {"es", "es-ES"}, {"fr", "fr"},
                                         {"hu", "hu"}, {"nl", "nl"},    {"pt", "pt-BR"}};

/* Where def's command is: "" for a command of its own, "illegal" under
 * /illegal, "illegal host" in its host group. */
static const char *home(const struct command_def *def)
{
    return def->who == CMD_PLAYER ? "" : def->who == CMD_HOST ? "illegal host" : "illegal";
}

/* Finds word's leaf in the registration; fills where ("" / "illegal" /
 * "illegal host") and returns it, or NULL; counts how many there are. */
static struct json_object *find(struct json_object *cmds, const char *word, char *where, size_t len,
                                unsigned *count)
{
    struct json_object *found = NULL;
    *count = 0;
    for (size_t i = 0; i < alen(cmds); i++) {
        struct json_object *c = json_object_array_get_idx(cmds, i), *opts = jget(c, "options");
        bool nested = alen(opts) &&
                      json_object_get_int(jget(json_object_array_get_idx(opts, 0), "type")) <= 2;
        if (!nested && strcmp(jstr(c, "name"), word) == 0) {
            snprintf(where, len, "%s", "");
            found = c;
            ++*count;
        }
        for (size_t k = 0; nested && k < alen(opts); k++) {
            struct json_object *o = json_object_array_get_idx(opts, k);
            if (json_object_get_int(jget(o, "type")) == 1 && strcmp(jstr(o, "name"), word) == 0) {
                snprintf(where, len, "%s", jstr(c, "name"));
                found = o;
                ++*count;
            }
            struct json_object *g = jget(o, "options");
            for (size_t m = 0; json_object_get_int(jget(o, "type")) == 2 && m < alen(g); m++)
                if (strcmp(jstr(json_object_array_get_idx(g, m), "name"), word) == 0) {
                    snprintf(where, len, "%s %s", jstr(c, "name"), jstr(o, "name"));
                    found = json_object_array_get_idx(g, m);
                    ++*count;
                }
        }
    }
    return found;
}

static void assert_taken(struct json_object *cmds)
{
    char *errors = check(COMMANDS, cmds);
    if (*errors)
        fail_msg("Discord would refuse the registration: %s", errors);
    free(errors);
}

/* Whether the command named name may be used in the bot's DM. */
static bool in_dm(struct json_object *cmds, const char *name)
{
    for (size_t i = 0; i < alen(cmds); i++) {
        struct json_object *c = json_object_array_get_idx(cmds, i), *ctx = jget(c, "contexts");
        if (strcmp(jstr(c, "name"), name) != 0)
            continue;
        for (size_t k = 0; k < alen(ctx); k++)
            if (json_object_get_int(json_object_array_get_idx(ctx, k)) == 1)
                return true;
    }
    return false;
}

/*
 * Every command of the tables is in the registration once, where its entry
 * says, and the whole is what Discord takes, as global commands (with where
 * they may be used) and as a guild's (without). Today's commands leave room
 * for more in each place, so that the next few fit too: the figures print.
 */
static void test_registration_fits(void **state)
{
    (void)state;
    for (int global = 0; global < 2; global++) {
        struct json_object *cmds = dc_commands_json(global);
        assert_taken(cmds);
        const struct command_def *def;
        unsigned n = 0;
        for (size_t i = 0; (def = command_at(i)); i++) {
            if (command_find(def->word, CMD_IN_TABLE | CMD_IN_PRIVATE) != def)
                continue;
            char where[64];
            unsigned count;
            struct json_object *leaf = find(cmds, def->word, where, sizeof where, &count);
            if (count != 1)
                fail_msg("%s: %u times in the registration", def->word, count);
            if (strcmp(where, home(def)) != 0)
                fail_msg("%s: under \"%s\", not \"%s\"", def->word, where, home(def));
            unsigned want = 0;
            while (want < COMMAND_MAX_OPTIONS && def->options[want].name)
                want++;
            assert_int_equal(alen(jget(leaf, "options")), want);
            if (global) {
                const char *top = *where ? "illegal" : def->word;
                if ((def->places & CMD_IN_PRIVATE) && !in_dm(cmds, top))
                    fail_msg("%s: not in the bot's DM", def->word);
                if (!*where && !(def->places & CMD_IN_PRIVATE) && in_dm(cmds, top))
                    fail_msg("%s: offered in the bot's DM, where it does nothing", def->word);
            }
            n++;
        }
        assert_true(n >= 31);
        for (size_t i = 0; i < alen(cmds); i++) {
            struct json_object *c = json_object_array_get_idx(cmds, i);
            assert_true(global ? jget(c, "contexts") != NULL : jget(c, "contexts") == NULL);
        }
        if (!global) {
            json_object_put(cmds);
            continue;
        }
        /* the room left, printed, and kept */
        struct json_object *illegal = json_object_array_get_idx(cmds, 0);
        assert_string_equal(jstr(illegal, "name"), "illegal");
        struct json_object *opts = jget(illegal, "options");
        struct json_object *host = NULL;
        for (size_t k = 0; k < alen(opts); k++)
            if (json_object_get_int(jget(json_object_array_get_idx(opts, k), "type")) == 2)
                host = json_object_array_get_idx(opts, k);
        assert_non_null(host);
        size_t largest = 0;
        for (size_t k = 1; k < alen(cmds); k++)
            if (lim_command_size(json_object_array_get_idx(cmds, k)) > largest)
                largest = lim_command_size(json_object_array_get_idx(cmds, k));
        printf("%u commands: /illegal %zu of 25 options (host %zu of 25), %zu of 8000 "
               "characters; %zu commands of their own (100 in all), the largest %zu characters\n",
               n, alen(opts), alen(jget(host, "options")), lim_command_size(illegal),
               alen(cmds) - 1, largest);
        assert_true(alen(opts) <= 20 && alen(jget(host, "options")) <= 20);
        assert_true(lim_command_size(illegal) <= 6500 && alen(cmds) <= 60);
        json_object_put(cmds);
    }
}

/* field's text in locale, from o. */
static const char *localized(struct json_object *o, const char *field, const char *locale)
{
    char key[64];
    snprintf(key, sizeof key, "%s_localizations", field);
    return jstr(jget(o, key), locale);
}

/* Whether got is want, or want cut to a description's 100 characters with
 * an ellipsis. */
static bool same_or_cut(const char *got, const char *want)
{
    if (!got)
        return false;
    if (strcmp(got, want) == 0)
        return true;
    size_t keep = strlen(got) - strlen(ELLIPSIS);
    return lim_chars(want) > 100 && lim_chars(got) == 100 && strncmp(got, want, keep) == 0 &&
           strcmp(got + keep, ELLIPSIS) == 0;
}

/* Each of o's names and descriptions as the catalog words it in every
 * language (a description past 100 characters cut): none dropped (an
 * invalid name, two of one name). */
static void assert_localized(struct json_object *o, const char *name_key, const char *desc_key)
{
    if (!catalog_text("en", name_key) || !catalog_text("en", desc_key))
        fail_msg("%s: the catalog has no %s or no %s", jstr(o, "name"), name_key, desc_key);
    assert_true(same_or_cut(jstr(o, "description"), catalog_text("en", desc_key)));
    for (size_t l = 0; l < sizeof locales / sizeof *locales; l++) {
        const char *want = catalog_text(locales[l][0], name_key);
        const char *got = localized(o, "name", locales[l][1]);
        if (strcmp(want, jstr(o, "name")) != 0 && (!got || strcmp(got, want) != 0))
            fail_msg("%s: %s name %s, not %s", jstr(o, "name"), locales[l][1],
                     got ? got : "missing", want);
        want = catalog_text(locales[l][0], desc_key);
        got = localized(o, "description", locales[l][1]);
        if (strcmp(want, catalog_text("en", desc_key)) != 0 && !same_or_cut(got, want))
            fail_msg("%s: %s description %s, not %s", jstr(o, "name"), locales[l][1],
                     got ? got : "missing", want);
    }
}

/* Every name and description shows in each reader's language, as the
 * catalog words it: none refused by the name rule, none lost to another's. */
static void test_registration_localized(void **state)
{
    (void)state;
    struct json_object *cmds = dc_commands_json(true);
    const struct command_def *def;
    for (size_t i = 0; (def = command_at(i)); i++) {
        if (command_find(def->word, CMD_IN_TABLE | CMD_IN_PRIVATE) != def)
            continue;
        char where[64], key[96];
        unsigned count;
        struct json_object *leaf = find(cmds, def->word, where, sizeof where, &count);
        snprintf(key, sizeof key, "slash.name.%s", def->word);
        assert_localized(leaf, key, def->summary);
        for (unsigned k = 0; k < COMMAND_MAX_OPTIONS && def->options[k].name; k++) {
            struct json_object *o = json_object_array_get_idx(jget(leaf, "options"), k);
            assert_string_equal(jstr(o, "name"), def->options[k].name);
            snprintf(key, sizeof key, "slash.option-name.%s", def->options[k].name);
            assert_localized(o, key, def->options[k].summary);
        }
    }
    struct json_object *opts = jget(json_object_array_get_idx(cmds, 0), "options");
    struct json_object *host = json_object_array_get_idx(opts, alen(opts) - 1);
    assert_string_equal(jstr(host, "name"), "host");
    assert_localized(host, "slash.name.host", "slash.host");
    json_object_put(cmds);
}

/* ---- through the test server ---- */

/* The test server and the adapter, its commands registered. */
static void start(struct harness *h)
{
    h_init(h, 1000, true);
    assert_true(h_run_until(h, h_registered, 5000));
}

static int want_inputs;
static bool enough_inputs(struct harness *h)
{
    return h_count_inputs(h) >= want_inputs;
}

/* The registration the server took, and nothing refused. */
static void assert_registered(struct harness *h, const char *path)
{
    struct json_object *s = h_snapshot(h);
    struct json_object *cmds = jget(s, "commands");
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    assert_int_equal(alen(cmds), 1);
    assert_string_equal(jstr(json_object_array_get_idx(cmds, 0), "path"), path);
    json_object_put(s);
}

/* The value a test gives option o, and its place in the text. */
static void sample(const struct command_option *o, char *json, size_t jlen, char *text, size_t tlen)
{
    const char *first[1] = {NULL};
    if (o->values_of)
        o->values_of(first, 1);
    const char *v = o->values ? o->values[0] : first[0] ? first[0] : o->integer ? "7" : "sample";
    if (o->integer)
        snprintf(json, jlen, "{\"name\":\"%s\",\"type\":4,\"value\":%s}", o->name, v);
    else
        snprintf(json, jlen, "{\"name\":\"%s\",\"type\":3,\"value\":\"%s\"}", o->name, v);
    snprintf(text, tlen, "%s%s %s", o->before ? " " : "", o->before ? o->before : "", v);
}

/*
 * Registered through the server, globally then for one guild, and taken.
 * Then every command of the tables, picked where the server has it as a user
 * would (fdc_slash looks it up there) with every option given, reaches the
 * bot as the canonical text: in the guild, and in the bot's DM for a private
 * one.
 */
static void test_registration_through_server(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    char path[128];
    snprintf(path, sizeof path, "/applications/%s/commands", FD_APP_ID);
    assert_registered(&h, path);

    const struct command_def *def;
    unsigned sent = 0, ix = 6000;
    for (size_t i = 0; (def = command_at(i)); i++) {
        if (command_find(def->word, CMD_IN_TABLE | CMD_IN_PRIVATE) != def)
            continue;
        char opts[1024] = "[", text[1024], id[16];
        snprintf(text, sizeof text, "%s%s", def->places & CMD_IN_TABLE ? "!illegal " : "",
                 def->word);
        for (unsigned k = 0; k < COMMAND_MAX_OPTIONS && def->options[k].name; k++) {
            char one[256], part[256];
            sample(&def->options[k], one, sizeof one, part, sizeof part);
            snprintf(opts + strlen(opts), sizeof opts - strlen(opts), "%s%s", k ? "," : "", one);
            snprintf(text + strlen(text), sizeof text - strlen(text), "%s", part);
        }
        strcat(opts, "]");
        for (int dm = 0; dm < 2; dm++) {
            if (dm && !(def->places & CMD_IN_PRIVATE))
                continue;
            snprintf(id, sizeof id, "%u", ix++);
            fdc_slash(h.srv, id, dm ? NULL : FD_GUILD_ID, dm ? "dm71" : TABLE_A, "71", def->word,
                      opts, FD_PERM_NONE);
            want_inputs = (int)++sent;
            assert_true(h_run_until(&h, enough_inputs, 5000));
            struct json_object *in = json_object_array_get_idx(h.inputs, sent - 1);
            if (strcmp(jstr(in, "text"), text) != 0)
                fail_msg("/%s %s: \"%s\", not \"%s\"", def->word, dm ? "in a DM" : "",
                         jstr(in, "text"), text);
        }
    }
    assert_true(sent > 31);
    h_run_for(&h, 200);
    struct json_object *s = h_snapshot(&h);
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    json_object_put(s);
    h_fini(&h);

    /* per guild: no contexts, and found there */
    h_init(&h, 1000, true);
    h_stop_adapter(&h);
    static char *guilds[] = {FD_GUILD_ID};
    h.cfg.discord_guilds[0] = guilds[0];
    h.cfg.discord_nguilds = 1;
    h_start_adapter(&h);
    assert_true(h_run_until(&h, h_registered, 5000));
    s = h_snapshot(&h);
    snprintf(path, sizeof path, "/applications/%s/guilds/%s/commands", FD_APP_ID, FD_GUILD_ID);
    struct json_object *cmds = jget(s, "commands");
    assert_string_equal(jstr(json_object_array_get_idx(cmds, alen(cmds) - 1), "path"), path);
    assert_int_equal(json_object_get_int(jget(s, "invalid")), 0);
    json_object_put(s);
    fdc_slash(h.srv, "7001", FD_GUILD_ID, TABLE_A, "71", "pause", NULL, FD_PERM_NONE);
    want_inputs = 1;
    assert_true(h_run_until(&h, enough_inputs, 5000));
    assert_string_equal(jstr(json_object_array_get_idx(h.inputs, 0), "text"), "!illegal pause");
    h_fini(&h);
}

/* ---- messages ---- */

static const char *want_text; /* a message whose content or first embed starts so */
static struct json_object *posted(struct json_object *s, const char *start)
{
    struct json_object *msgs = jget(s, "messages");
    for (size_t i = 0; i < alen(msgs); i++) {
        struct json_object *m = json_object_array_get_idx(msgs, i), *b = jget(m, "body");
        const char *c = jstr(b, "content");
        const char *d = jstr(json_object_array_get_idx(jget(b, "embeds"), 0), "description");
        if ((c && strncmp(c, start, strlen(start)) == 0) ||
            (d && strncmp(d, start, strlen(start)) == 0))
            return m;
    }
    return NULL;
}

static bool posted_yet(struct harness *h)
{
    struct json_object *s = h_snapshot(h);
    bool yes = posted(s, want_text) != NULL || json_object_get_int(jget(s, "invalid")) > 0;
    json_object_put(s);
    return yes;
}

/* Sends m and returns a copy of what the server took (the caller puts it);
 * fails when the server refused anything. */
static struct json_object *send_and_get(struct harness *h, const struct outbound *m,
                                        const char *start)
{
    assert_int_equal(h->p->ops->send(h->p, m), 0);
    want_text = start;
    assert_true(h_run_until(h, posted_yet, 5000));
    struct json_object *s = h_snapshot(h);
    if (json_object_get_int(jget(s, "invalid")) > 0)
        fail_msg("refused: %s", json_object_to_json_string(jget(s, "refused")));
    struct json_object *m2 = NULL;
    json_object_deep_copy(posted(s, start), &m2, NULL);
    json_object_put(s);
    return m2;
}

/* The text a message shows: its content, or its embeds' descriptions, one
 * line apart (malloc'd). */
static char *shown(struct json_object *m)
{
    struct json_object *b = jget(m, "body"), *embeds = jget(b, "embeds");
    const char *c = jstr(b, "content");
    if (c && *c)
        return strdup(c);
    size_t len = 1;
    for (size_t i = 0; i < alen(embeds); i++) {
        const char *d = jstr(json_object_array_get_idx(embeds, i), "description");
        len += (d ? strlen(d) : 0) + 1;
    }
    char *out = calloc(1, len);
    for (size_t i = 0; i < alen(embeds); i++) {
        const char *d = jstr(json_object_array_get_idx(embeds, i), "description");
        if (i)
            strcat(out, "\n");
        strcat(out, d ? d : "");
    }
    return out;
}

/* Lines of about 90 characters, numbered, chars characters in all. */
static char *lines_of(size_t chars, const char *unit)
{
    char *s = calloc(1, chars * 4 + 1);
    size_t n = 0, line = 0;
    while (n < chars) {
        char head[16];
        int w = snprintf(head, sizeof head, "%zu ", line++);
        strcat(s, head);
        n += (size_t)w;
        for (int k = 0; k < 80 && n < chars; k++) {
            bool whole = n + lim_chars(unit) <= chars; /* else one character to end on */
            strcat(s, whole ? unit : "a");
            n += whole ? lim_chars(unit) : 1;
        }
        if (n < chars) {
            strcat(s, "\n");
            n++;
        }
    }
    return s;
}

/*
 * Texts about the limits, of one-byte characters and of emoji counted as two:
 * up to 2000 characters a message's content; past it embeds, split between
 * lines, nothing lost up to what one message holds (6000 characters); past
 * that, cut where it must be, with an ellipsis.
 */
static void test_long_texts(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    static const struct {
        size_t chars;
        const char *unit;
        bool content, whole;
    } cases[] = {
        {2000, "a", true, true},    {2001, "a", false, true},     {2000, EMOJI, true, true},
        {2002, EMOJI, false, true}, {4500, "a", false, true},     {5900, "\xC3\xA9", false, true},
        {9000, "a", false, false},  {40000, EMOJI, false, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *text = lines_of(cases[i].chars, cases[i].unit), start[16];
        snprintf(start, sizeof start, "%.6s", text);
        text[0] = (char)('A' + i); /* each its own first line */
        snprintf(start, sizeof start, "%.2s", text);
        struct outbound m = {.kind = OUT_NOTICE, .channel = TABLE_A, .text = text};
        struct json_object *got = send_and_get(&h, &m, start);
        char *seen = shown(got);
        struct json_object *body = jget(got, "body");
        assert_int_equal(*jstr(body, "content") != '\0', cases[i].content);
        if (cases[i].whole) {
            if (strcmp(seen, text) != 0)
                fail_msg("case %zu: the text changed on its way (%zu of %zu characters)", i,
                         lim_chars(seen), lim_chars(text));
        } else {
            /* cut at what a message holds, with the mark */
            size_t n = lim_chars(seen);
            assert_true(n > 5500 && n <= 6000 + 10);
            assert_non_null(strstr(seen, ELLIPSIS));
            assert_int_equal(strncmp(seen, text, strlen(seen) - strlen(ELLIPSIS) - 100), 0);
        }
        printf("%zu characters: %s, %zu embeds\n", cases[i].chars,
               cases[i].content ? "content" : "embeds", alen(jget(body, "embeds")));
        free(seen);
        free(text);
        json_object_put(got);
        h_run_for(&h, 220); /* the channel's bucket: five a second */
    }
    h_fini(&h);
}

/* The labels of message m's buttons, and how many rows and buttons. */
static unsigned buttons(struct json_object *m, unsigned *rows)
{
    struct json_object *comps = jget(jget(m, "body"), "components");
    unsigned n = 0;
    *rows = (unsigned)alen(comps);
    for (size_t r = 0; r < alen(comps); r++)
        n += (unsigned)alen(jget(json_object_array_get_idx(comps, r), "components"));
    return n;
}

static struct json_object *control(struct json_object *m, size_t row, size_t i)
{
    struct json_object *comps = jget(jget(m, "body"), "components");
    return json_object_array_get_idx(jget(json_object_array_get_idx(comps, row), "components"), i);
}

/* Thirty vote choices of long names, one of them twice: 25 buttons in 5
 * rows, each label cut to 80 characters. */
static void controls_vote(struct harness *h, const char *name)
{
    struct json_object *data = json_tokener_parse("{\"game\":\"g1\",\"case\":1,\"choices\":[]}");
    for (int i = 0; i < 30; i++) {
        char id[32], action[48];
        snprintf(id, sizeof id, "9%017d", i);
        snprintf(action, sizeof action, "vote %s", id);
        for (int twice = 0; twice < (i == 3 ? 2 : 1); twice++) { /* the same twice: one button */
            struct json_object *c = json_object_new_object();
            json_object_object_add(c, "command", json_object_new_string(action));
            json_object_object_add(c, "label", json_object_new_string(name));
            json_object_object_add(c, "player", json_object_new_string(id));
            json_object_array_add(jget(data, "choices"), c);
        }
    }
    struct outbound vote = {.kind = OUT_BALLOT,
                            .channel = TABLE_A,
                            .key = "g1/vote/1",
                            .text = "Case 1: vote",
                            .data = data};
    struct json_object *m = send_and_get(h, &vote, "Case 1");
    unsigned rows, n = buttons(m, &rows);
    assert_int_equal(n, 25);
    assert_int_equal(rows, 5);
    const char *label = jstr(control(m, 0, 0), "label");
    assert_int_equal(lim_chars(label), 80);
    assert_non_null(strstr(label, ELLIPSIS));
    json_object_put(m);
    json_object_put(data);
}

/* A key too long for any custom_id: the message goes without controls. */
static void controls_long_key(struct harness *h)
{
    char *key = repeat("k", 120);
    struct json_object *data =
        json_tokener_parse("{\"game\":\"g1\",\"actions\":[\"join\",\"leave\"]}");
    struct outbound lobby = {.kind = OUT_LOBBY,
                             .channel = TABLE_A,
                             .key = key,
                             .text = "Lobby of long key",
                             .data = data};
    unsigned rows;
    struct json_object *m = send_and_get(h, &lobby, "Lobby of long key");
    assert_int_equal(buttons(m, &rows), 0);
    json_object_put(m);
    json_object_put(data);
    free(key);
}

/* The builder: 8 players of long names, a hand of everything. */
static void controls_builder(struct harness *h, const char *name)
{
    struct json_object *data = json_tokener_parse(
        "{\"game\":\"g1\",\"table\":\"" TABLE_A "\",\"compose\":{"
        "\"command\":\"offer {to} {give|nothing} for "
        "{ask|nothing}\",\"label_key\":\"ui.send-offer\","
        "\"parts\":[{\"name\":\"to\",\"players\":[]},{\"name\":\"give\",\"items\":[]},"
        "{\"name\":\"ask\",\"items\":[]}]}}");
    struct json_object *parts = jget(jget(data, "compose"), "parts");
    static const char *const cards[] = {"guns", "alcohol",      "powder",      "call-girls",
                                        "porn", "secret-files", "luxury-cars", "diamonds"};
    for (int i = 0; i < 8; i++) {
        char id[32];
        snprintf(id, sizeof id, "8%017d", i);
        struct json_object *p = json_object_new_object();
        json_object_object_add(p, "id", json_object_new_string(id));
        json_object_object_add(p, "name", json_object_new_string(name));
        json_object_array_add(jget(json_object_array_get_idx(parts, 0), "players"), p);
        for (size_t k = 1; k < 3; k++) {
            struct json_object *item = json_object_new_object();
            json_object_object_add(item, "id", json_object_new_string(cards[i]));
            json_object_object_add(item, "label", json_object_new_string(name));
            json_object_object_add(item, "max", json_object_new_int(k == 1 ? 30 : 3));
            json_object_array_add(jget(json_object_array_get_idx(parts, k), "items"), item);
        }
    }
    struct outbound hand = {.kind = OUT_PRIVATE_VIEW,
                            .user = "71",
                            .key = "g1/hand/71",
                            .text = "Your hand: everything",
                            .data = data};
    struct json_object *m = send_and_get(h, &hand, "<#" TABLE_A ">");
    unsigned rows;
    buttons(m, &rows);
    assert_int_equal(rows, 4); /* whom, give, ask, send */
    for (size_t r = 0; r < 3; r++) {
        struct json_object *sel = control(m, r, 0);
        assert_true(alen(jget(sel, "options")) >= 8 && alen(jget(sel, "options")) <= 25);
        assert_true(lim_chars(jstr(json_object_array_get_idx(jget(sel, "options"), 0), "label")) <=
                    100);
    }
    json_object_put(m);
    json_object_put(data);
}

/* A compose whose template names a part it does not have: the message goes
 * without it. */
static void controls_odd_compose(struct harness *h)
{
    struct json_object *data =
        json_tokener_parse("{\"game\":\"g1\",\"compose\":{\"command\":\"offer {to} {gift}\","
                           "\"parts\":[{\"name\":\"to\",\"players\":[{\"id\":\"81\"}]}]}}");
    struct outbound odd = {.kind = OUT_PRIVATE_VIEW,
                           .user = "72",
                           .key = "g1/hand/72",
                           .text = "A compose that does not fit",
                           .data = data};
    unsigned rows;
    struct json_object *m = send_and_get(h, &odd, "A compose that does not fit");
    assert_int_equal(buttons(m, &rows), 0);
    assert_int_equal(rows, 0);
    json_object_put(m);
    json_object_put(data);
}

/*
 * Controls past Discord's limits: a vote among 30 candidates with names of
 * 100 characters (25 buttons, five rows, labels cut with an ellipsis), the
 * same action twice (one button), a key so long its custom_ids cannot fit
 * (no controls, the message still goes), a trade builder for 8 players
 * with long names and a hand of every card many times over, and a compose
 * that does not fit (left out, the message still goes).
 */
static void test_controls(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    char *name = repeat(THREE_BYTES, 100);
    controls_vote(&h, name);
    controls_long_key(&h);
    controls_builder(&h, name);
    controls_odd_compose(&h);
    free(name);
    h_fini(&h);
}

/*
 * A text cut inside a character, or with a stray byte, as a buffer of fixed
 * size may leave it: Discord takes only UTF-8 (the server answers 50109), so
 * each broken byte shows as U+FFFD and the message goes.
 */
static void test_broken_utf8(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    struct json_object *data =
        json_tokener_parse("{\"game\":\"g1\",\"case\":1,\"choices\":[{\"command\":\"vote 75\","
                           "\"player\":\"75\",\"label\":\"Bob\\u00e9\"}]}");
    /* the name cut after the first byte of its last character */
    json_object_object_add(json_object_array_get_idx(jget(data, "choices"), 0), "label",
                           json_object_new_string("Bob\xC3"));
    struct outbound m = {.kind = OUT_BALLOT,
                         .channel = TABLE_A,
                         .key = "g1/vote/1",
                         .text = "Broken \xE2\x80 and \xFF stray",
                         .data = data};
    struct json_object *got = send_and_get(&h, &m, "Broken");
    assert_string_equal(
        jstr(json_object_array_get_idx(jget(jget(got, "body"), "embeds"), 0), "description"),
        "Broken \xEF\xBF\xBD\xEF\xBF\xBD and \xEF\xBF\xBD stray");
    assert_string_equal(jstr(control(got, 0, 0), "label"), "Bob\xEF\xBF\xBD");
    json_object_put(got);
    json_object_put(data);
    h_fini(&h);
}

static const char *want_cb;
static bool have_callback(struct harness *h)
{
    struct json_object *s = h_snapshot(h), *cbs = jget(s, "callbacks");
    bool yes = false;
    for (size_t i = 0; i < alen(cbs); i++)
        yes = yes || strcmp(jstr(json_object_array_get_idx(cbs, i), "id"), want_cb) == 0;
    yes = yes || json_object_get_int(jget(s, "invalid")) > 0;
    json_object_put(s);
    return yes;
}

static struct json_object *callback_of(struct harness *h, const char *id)
{
    want_cb = id;
    assert_true(h_run_until(h, have_callback, 5000));
    struct json_object *s = h_snapshot(h), *cbs = jget(s, "callbacks"), *got = NULL;
    if (json_object_get_int(jget(s, "invalid")) > 0)
        fail_msg("refused: %s", json_object_to_json_string(jget(s, "refused")));
    for (size_t i = 0; i < alen(cbs); i++)
        if (strcmp(jstr(json_object_array_get_idx(cbs, i), "id"), id) == 0)
            json_object_deep_copy(json_object_array_get_idx(cbs, i), &got, NULL);
    json_object_put(s);
    return got;
}

/*
 * Interaction answers: one longer than a message's content goes as embeds;
 * autocomplete offers players of names past a choice's length (cut, with an
 * ellipsis, in whole characters) and no card list longer than a choice's
 * value may be.
 */
static void test_answers(void **state)
{
    (void)state;
    struct harness h;
    start(&h);
    char *text = lines_of(3000, "a");
    text[0] = 'Z';
    h.auto_reply = text;
    fdc_slash(h.srv, "8001", FD_GUILD_ID, TABLE_A, "71", "status", NULL, FD_PERM_NONE);
    struct json_object *cb = callback_of(&h, "8001");
    struct json_object *data = jget(cb, "data");
    assert_string_equal(jstr(data, "content"), "");
    assert_int_equal(alen(jget(data, "embeds")), 1);
    json_object_put(cb);
    h.auto_reply = NULL;
    free(text);

    char *name = repeat(THREE_BYTES, 40); /* 120 bytes, 40 characters */
    char *longer = repeat("\xC3\xA9", 150);
    /* the players the bot completes (bot/complete.c), one named past a choice's length */
    h.completions = json_object_new_array();
    const char *names[] = {name, longer};
    for (int i = 0; i < 2; i++) {
        struct json_object *p = json_object_new_array();
        json_object_array_add(p, json_object_new_string(names[i]));
        json_object_array_add(p, json_object_new_string(i ? "77" : "76"));
        json_object_array_add(h.completions, p);
    }
    fdc_autocomplete(h.srv, "8002", NULL, "dm71", "71", "offer",
                     "[{\"name\":\"player\",\"type\":3,\"value\":\"\",\"focused\":true}]");
    cb = callback_of(&h, "8002");
    struct json_object *choices = jget(jget(cb, "data"), "choices");
    assert_int_equal(alen(choices), 2);
    assert_string_equal(jstr(json_object_array_get_idx(choices, 0), "name"), name);
    const char *cut = jstr(json_object_array_get_idx(choices, 1), "name");
    assert_int_equal(lim_chars(cut), 100);
    assert_non_null(strstr(cut, ELLIPSIS));
    json_object_put(cb);
    /* a card list typed past what a choice's value holds: nothing to offer */
    char *typed = repeat("1 guns ", 20), opts[512], completed[256];
    snprintf(completed, sizeof completed, "%s1 guns", typed);
    json_object_put(h.completions);
    h.completions = json_object_new_array();
    struct json_object *card = json_object_new_array();
    json_object_array_add(card, json_object_new_string(completed));
    json_object_array_add(card, json_object_new_string(completed));
    json_object_array_add(h.completions, card);
    snprintf(opts, sizeof opts,
             "[{\"name\":\"player\",\"type\":3,\"value\":\"76\"},"
             "{\"name\":\"give\",\"type\":3,\"value\":\"%s\",\"focused\":true}]",
             typed);
    fdc_autocomplete(h.srv, "8003", NULL, "dm71", "71", "offer", opts);
    cb = callback_of(&h, "8003");
    assert_int_equal(alen(jget(jget(cb, "data"), "choices")), 0);
    json_object_put(cb);
    free(typed);
    free(name);
    free(longer);
    h_fini(&h);
}

int main(void)
{
    cases_path = getenv("LIMIT_CASES") ? getenv("LIMIT_CASES") : "limit_cases.txt";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_checker_cases),
        cmocka_unit_test(test_registration_fits),
        cmocka_unit_test(test_registration_localized),
        cmocka_unit_test(test_registration_through_server),
        cmocka_unit_test(test_long_texts),
        cmocka_unit_test(test_controls),
        cmocka_unit_test(test_broken_utf8),
        cmocka_unit_test(test_answers),
    };
    if (getenv("LIMITS_ONLY")) /* one test by name */
        cmocka_set_test_filter(getenv("LIMITS_ONLY"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
