/*
 * slash.c - the bot's slash commands: registered from the command tables
 * within Discord's limits (fit.h), and a command interaction read back into
 * the canonical text the dispatcher parses.
 *
 * Where a command shows in Discord's command picker follows from its entry
 * (core/command.h), so that a command added to a table finds its place:
 *
 *   who: a player      a command of its own: /offer, /accept, /vote, /grab,
 *                      the moves players make most, quickest to type;
 *   who: the host      /illegal host <word>: pause, next, kick, set ...;
 *   who: anyone        /illegal <word>: new, join, status, help, stats ...
 *
 * One slash command per command word: of two entries with one word (two
 * rules modules), the first, as the dispatcher finds it. A command is
 * available in the bot's DM when one of its entries may be used in private.
 * Each command is checked against Discord's limits as it is placed: one that
 * would break one (a 26th subcommand, the combined size) is left out with a
 * log line, and can still be typed; tests/discord/test_limits.c fails when
 * the tables' commands do not all fit.
 */
#include <stdio.h>
#include <string.h>

#include "bot/command.h"
#include "bot/log.h"
#include "core/catalog.h"
#include "internal.h"

#define SLASH_COMMAND "illegal" /* the table commands' command, as "!illegal" is typed */
#define HOST_GROUP    "host"

enum { OPT_SUB = GW_IX_OPT_SUB, OPT_GROUP = GW_IX_OPT_GROUP, OPT_STRING = 3, OPT_INTEGER = 4 };
enum { CTX_GUILD = 0, CTX_BOT_DM = 1 };
enum { GUILD_INSTALL = 0 };

/* Discord's locale for each catalog language; Discord shows es-ES to es-419
 * users and the default (English) to every locale not listed. */
static const struct {
    const char *code, *locale;
} discord_locales[] = {
    {"de", "de"}, {"es", "es-ES"}, {"fr", "fr"}, {"hu", "hu"}, {"nl", "nl"}, {"pt", "pt-BR"},
};
#define NLOCALES (sizeof discord_locales / sizeof *discord_locales)

/* ---- names and descriptions in every language ---- */

/* Adds `field` = value (a description cut to fit; a name as it is) and
 * `field`_localizations: the text of key in every other language that words
 * it differently (a name only where it is a valid name). */
static void localize(struct json_object *o, const char *field, const char *value, const char *key,
                     bool name)
{
    char localizations[64];
    struct json_object *l = json_object_new_object();
    json_object_object_add(
        o, field, name ? json_object_new_string(value) : dc_fit_json(value, DC_DESCRIPTION_MAX));
    for (size_t i = 0; i < NLOCALES; i++) {
        const char *t = catalog_text(discord_locales[i].code, key);
        if (!t || !*t || strcmp(t, value) == 0 || (name && !dc_valid_name(t)))
            continue;
        json_object_object_add(l, discord_locales[i].locale,
                               name ? json_object_new_string(t)
                                    : dc_fit_json(t, DC_DESCRIPTION_MAX));
    }
    snprintf(localizations, sizeof localizations, "%s_localizations", field);
    json_object_object_add(o, localizations, l);
}

/* The name o shows readers of locale (NULL: its default name). */
static const char *name_in(struct json_object *o, const char *locale)
{
    const char *t = locale ? jget_str(jget_obj(o, "name_localizations"), locale) : NULL;
    return t ? t : jget_str(o, "name");
}

/*
 * Localized names among siblings (the options of one command or group, or the
 * commands): one that is another sibling's name, in English or in that
 * language, goes, and that sibling shows its English name there. Discord
 * refuses such option names (application-commands, Localization); two
 * commands of one name in a picker would confuse as much.
 */
static void distinct_names(struct json_object *siblings)
{
    size_t n = jarr_len(siblings);
    for (size_t l = 0; l < NLOCALES; l++) {
        const char *locale = discord_locales[l].locale;
        for (size_t i = 0; i < n; i++) {
            struct json_object *a = jarr_at(siblings, i);
            struct json_object *names = jget_obj(a, "name_localizations");
            const char *mine = jget_str(names, locale);
            bool clash = false;
            for (size_t j = 0; mine && j < n && !clash; j++)
                clash =
                    j != i && (strcmp(mine, jget_str(jarr_at(siblings, j), "name")) == 0 ||
                               (j < i && strcmp(mine, name_in(jarr_at(siblings, j), locale)) == 0));
            if (clash) {
                log_debug(DC_MOD, NULL, "slash command name %s (%s) taken: %s shows its own", mine,
                          locale, jget_str(a, "name"));
                json_object_object_del(names, locale);
            }
        }
    }
}

/* ---- the combined size (application-commands, Slash Commands) ---- */

/* field's longest form: itself or one of its localizations. */
static size_t longest(struct json_object *o, const char *field)
{
    char key[64];
    const char *v = jget_str(o, field);
    size_t n = v ? dc_chars(v) : 0;
    snprintf(key, sizeof key, "%s_localizations", field);
    struct json_object *l = jget_obj(o, key);
    if (l) {
        json_object_object_foreach(l, locale, t)
        {
            (void)locale;
            const char *s =
                json_object_is_type(t, json_type_string) ? json_object_get_string(t) : "";
            if (dc_chars(s) > n)
                n = dc_chars(s);
        }
    }
    return n;
}

/* What o adds to its command's size: its name, description, choices and
 * nested options. */
static size_t size_of(struct json_object *o)
{
    size_t n = longest(o, "name") + longest(o, "description");
    struct json_object *choices = jget_arr(o, "choices"), *opts = jget_arr(o, "options");
    for (size_t i = 0; i < jarr_len(choices); i++)
        n += longest(jarr_at(choices, i), "name") + longest(jarr_at(choices, i), "value");
    for (size_t i = 0; i < jarr_len(opts); i++)
        n += size_of(jarr_at(opts, i));
    return n;
}

/* ---- one entry as a command or a subcommand ---- */

/* A subcommand, group or option: name (family "slash.name" or
 * "slash.option-name", the same word in every language's key) and
 * description (a catalog key). */
static struct json_object *option(int type, const char *family, const char *word,
                                  const char *desc_key)
{
    char key[96];
    const char *desc = desc_key ? catalog_text("en", desc_key) : NULL;
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_int(type));
    snprintf(key, sizeof key, "%s.%s", family, word);
    localize(o, "name", word, key, true);
    localize(o, "description", desc && *desc ? desc : word, desc_key ? desc_key : key, false);
    return o;
}

/* The choices of o: its values (fixed, or known when asked: the games and
 * their modes), each named by itself in every language (a value players type
 * too, and Discord-compatible servers that lag, such as Spacebar, refuse
 * localized choices). None when they would not fit: the option is then free
 * text, which the bot reads as typed. */
static struct json_object *choices_of(const struct command_option *o)
{
    const char *values[DC_CHOICES_MAX + 1];
    size_t n = 0;
    for (const char *const *v = o->values; v && *v && n <= DC_CHOICES_MAX; v++)
        values[n++] = *v;
    if (o->values_of)
        n = o->values_of(values, DC_CHOICES_MAX + 1);
    for (size_t i = 0; i < n && n <= DC_CHOICES_MAX; i++)
        if (!dc_valid_name(values[i]) || dc_chars(values[i]) > DC_CHOICE_TEXT_MAX)
            n = DC_CHOICES_MAX + 1;
    if (n > DC_CHOICES_MAX) {
        log_error(DC_MOD, NULL,
                  "slash option %s: its values do not fit Discord's %d choices "
                  "of %d characters; it is offered as free text",
                  o->name, DC_CHOICES_MAX, DC_CHOICE_TEXT_MAX);
        return NULL;
    }
    if (!n)
        return NULL;
    struct json_object *choices = json_object_new_array();
    for (size_t i = 0; i < n; i++) {
        struct json_object *c = json_object_new_object();
        json_object_object_add(c, "name", json_object_new_string(values[i]));
        json_object_object_add(c, "value", json_object_new_string(values[i]));
        json_object_array_add(choices, c);
    }
    return choices;
}

/* The options of def, in the order of its text (required ones first, as
 * Discord asks: the tables list them so). */
static struct json_object *options_of(const struct command_def *def)
{
    struct json_object *opts = json_object_new_array();
    for (unsigned i = 0; i < COMMAND_MAX_OPTIONS && def->options[i].name; i++) {
        const struct command_option *o = &def->options[i];
        struct json_object *j =
            option(o->integer ? OPT_INTEGER : OPT_STRING, "slash.option-name", o->name, o->summary);
        if (o->required)
            json_object_object_add(j, "required", json_object_new_boolean(1));
        struct json_object *choices = choices_of(o);
        if (choices)
            json_object_object_add(j, "choices", choices);
        else if (o->autocomplete)
            json_object_object_add(j, "autocomplete", json_object_new_boolean(1));
        if (o->max > 0) {
            json_object_object_add(j, "min_value", json_object_new_int(o->min));
            json_object_object_add(j, "max_value", json_object_new_int(o->max));
        }
        json_object_array_add(opts, j);
    }
    distinct_names(opts);
    return opts;
}

/* def as a subcommand (a command of its own: its options at the top, as a
 * command is). */
static struct json_object *leaf(const struct command_def *def)
{
    struct json_object *s = option(OPT_SUB, "slash.name", def->word, def->summary);
    struct json_object *opts = options_of(def);
    if (jarr_len(opts))
        json_object_object_add(s, "options", opts);
    else
        json_object_put(opts);
    return s;
}

/* ---- the layout ---- */

enum home { HOME_OWN, HOME_ILLEGAL, HOME_HOST };

static enum home home_of(const struct command_def *def)
{
    switch (def->who) {
    case CMD_PLAYER:
        return HOME_OWN;
    case CMD_HOST:
        return HOME_HOST;
    default:
        return HOME_ILLEGAL;
    }
}

struct layout {
    struct json_object *top;     /* the commands of their own */
    struct json_object *illegal; /* /illegal's subcommands */
    struct json_object *host;    /* /illegal host's subcommands */
    size_t illegal_size;         /* /illegal's combined size with all of them */
    bool illegal_dm, host_any;
};

/* Whether a command of its own or a subcommand may be added where `count`
 * are, at most `max`, and grow its command's size (now *size) by `add`. */
static bool room(const struct command_def *def, const char *where, size_t count, size_t max,
                 size_t *size, size_t add)
{
    const char *why = NULL;
    if (!dc_valid_name(def->word))
        why = "its word is no slash command name";
    else if (count >= max)
        why = "there are as many commands there as Discord takes";
    else if (*size + add > DC_COMMAND_SIZE_MAX)
        why = "the command would pass Discord's combined size";
    if (why) {
        log_error(DC_MOD, NULL, "slash command %s%s left out: %s; it can still be typed", where,
                  def->word, why);
        return false;
    }
    *size += add;
    return true;
}

/* Places def (the first entry of its word) in the layout. */
static void place(struct layout *l, const struct command_def *def)
{
    struct json_object *s = leaf(def);
    size_t add = size_of(s), own = 0;
    enum home h = home_of(def);
    /* /illegal keeps a place for the host group among its options */
    size_t reserved = h == HOME_ILLEGAL ? 1 : 0;
    bool ok = false;
    if (h == HOME_OWN)
        ok = room(def, "/", jarr_len(l->top) + 1, DC_COMMANDS_MAX, &own, add);
    else if (h == HOME_HOST)
        ok = room(def, "/" SLASH_COMMAND " " HOST_GROUP " ", jarr_len(l->host), DC_OPTIONS_MAX,
                  &l->illegal_size, add);
    else
        ok = room(def, "/" SLASH_COMMAND " ", jarr_len(l->illegal) + reserved, DC_OPTIONS_MAX,
                  &l->illegal_size, add);
    if (!ok) {
        json_object_put(s);
        return;
    }
    if (h == HOME_OWN) {
        json_object_object_add(s, "type", json_object_new_int(1)); /* CHAT_INPUT */
        json_object_array_add(l->top, s);
        return;
    }
    json_object_array_add(h == HOME_HOST ? l->host : l->illegal, s);
    l->illegal_dm = l->illegal_dm || (def->places & CMD_IN_PRIVATE);
    l->host_any = l->host_any || h == HOME_HOST;
}

/* Where a command may be used, for a global command (guild commands take
 * none: application-commands, Application Command Structure): in guilds
 * always (a private command answers privately there), in the bot's DM when
 * in_dm. */
static void add_contexts(struct json_object *c, bool in_dm)
{
    struct json_object *contexts = json_object_new_array();
    json_object_array_add(contexts, json_object_new_int(CTX_GUILD));
    if (in_dm)
        json_object_array_add(contexts, json_object_new_int(CTX_BOT_DM));
    json_object_object_add(c, "contexts", contexts);
    struct json_object *itypes = json_object_new_array();
    json_object_array_add(itypes, json_object_new_int(GUILD_INSTALL));
    json_object_object_add(c, "integration_types", itypes);
}

/* /illegal, without its subcommands yet. */
static struct json_object *illegal_command(void)
{
    struct json_object *cmd = json_object_new_object();
    json_object_object_add(cmd, "name", json_object_new_string(SLASH_COMMAND));
    json_object_object_add(cmd, "type", json_object_new_int(1));
    localize(cmd, "description", catalog_text("en", "slash.illegal"), "slash.illegal", false);
    return cmd;
}

struct json_object *dc_commands_json(bool global)
{
    struct layout l = {.top = json_object_new_array(),
                       .illegal = json_object_new_array(),
                       .host = json_object_new_array()};
    struct json_object *illegal = illegal_command();
    struct json_object *group = option(OPT_GROUP, "slash.name", HOST_GROUP, "slash.host");
    l.illegal_size = size_of(illegal) + size_of(group);
    const struct command_def *def;
    for (size_t i = 0; (def = command_at(i)); i++)
        if (command_find(def->word, CMD_IN_TABLE | CMD_IN_PRIVATE) == def)
            place(&l, def);

    /* /illegal first, its host group last among its options */
    struct json_object *all = json_object_new_array();
    if (l.host_any) {
        distinct_names(l.host);
        json_object_object_add(group, "options", json_object_get(l.host));
        json_object_array_add(l.illegal, json_object_get(group));
    }
    if (jarr_len(l.illegal)) {
        distinct_names(l.illegal);
        json_object_object_add(illegal, "options", json_object_get(l.illegal));
        json_object_array_add(all, json_object_get(illegal));
    }
    for (size_t i = 0; i < jarr_len(l.top); i++)
        json_object_array_add(all, json_object_get(jarr_at(l.top, i)));
    distinct_names(all);
    for (size_t i = 0; global && i < jarr_len(all); i++) {
        struct json_object *c = jarr_at(all, i);
        const char *name = jget_str(c, "name");
        const struct command_def *d = command_find(name, CMD_IN_TABLE | CMD_IN_PRIVATE);
        bool in_dm = c == illegal ? l.illegal_dm : d && (d->places & CMD_IN_PRIVATE);
        add_contexts(c, in_dm);
    }
    json_object_put(illegal);
    json_object_put(group);
    json_object_put(l.top);
    json_object_put(l.illegal);
    json_object_put(l.host);
    return all;
}

/* ---- an interaction's command ---- */

/* Appends the value of option o (a string or an integer) to b, when it was
 * given. Returns 0, or -1 when b is full or memory ran out. */
static int append_value(struct buf *b, const struct dc_ix_in *in, const struct command_option *o)
{
    for (unsigned i = 0; i < in->noptions; i++) {
        const struct dc_ix_option *given = &in->options[i];
        if (given->name && given->value && strcmp(given->name, o->name) == 0) {
            if (o->before && buf_printf(b, " %s", o->before) < 0)
                return -1;
            return buf_printf(b, " %s", given->value);
        }
    }
    return 0;
}

char *dc_slash_text(const struct dc_ix_in *in)
{
    const char *word = in->leaf;
    const struct command_def *def = word ? command_find(word, CMD_IN_TABLE | CMD_IN_PRIVATE) : NULL;
    if (!def)
        return NULL;
    struct buf b;
    buf_init(&b, DC_COMMAND_TEXT_MAX);
    if (buf_printf(&b, "%s%s", def->places & CMD_IN_TABLE ? PLATFORM_COMMAND_PREFIX " " : "",
                   def->word) < 0)
        goto fail;
    for (unsigned i = 0; i < COMMAND_MAX_OPTIONS && def->options[i].name; i++)
        if (append_value(&b, in, &def->options[i]) < 0)
            goto fail;
    return buf_take(&b);
fail:
    buf_free(&b);
    return NULL;
}
