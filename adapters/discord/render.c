/*
 * render.c - outbound messages as Discord message bodies: content, embeds
 * for announcements, buttons and select menus from the data's actions.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bot/log.h"
#include "core/catalog.h"
#include "core/compose.h"
#include "core/text.h"
#include "internal.h"

/* The longest text rendered whole; what passes it is cut to a message's length anyway. */
#define DC_TEXT_MAX (64u << 10)

enum { BTN_PRIMARY = 1, BTN_SECONDARY = 2, BTN_SUCCESS = 3, BTN_DANGER = 4 };
enum { COMP_ROW = 1, COMP_BUTTON = 2, COMP_STRING_SELECT = 3 };

/* The bytes of the longest first part of p within room characters that ends
 * at a line break (the break not included), or within the line when its
 * first line is longer. */
static size_t split_at_line(const char *p, size_t room)
{
    size_t len = dc_fit(p, room);
    if (!p[len])
        return len;
    for (size_t i = len; i > 0; i--)
        if (p[i - 1] == '\n')
            return i - 1 > 0 ? i - 1 : len;
    return len;
}

static struct json_object *new_embed(const char *title, struct json_object *desc, int color)
{
    struct json_object *e = json_object_new_object();
    if (title)
        json_object_object_add(e, "title", dc_fit_json(title, DC_EMBED_TITLE_MAX));
    if (desc && *json_object_get_string(desc))
        json_object_object_add(e, "description", desc);
    else
        json_object_put(desc);
    if (color)
        json_object_object_add(e, "color", json_object_new_int(color));
    return e;
}

/*
 * text as a message's embeds: the first titled (title may be NULL), each
 * description at most DC_EMBED_DESC_MAX characters, the text split between
 * lines, all within DC_EMBED_TOTAL_MAX and DC_EMBEDS_MAX (resources/message,
 * Embed Limits). A text longer than one message holds is cut there, ended
 * with "…", and the cut logged with key, the message's.
 */
static struct json_object *embeds_of(const char *title, const char *text, int color,
                                     const char *key)
{
    struct json_object *embeds = json_object_new_array();
    struct json_object *head = new_embed(title, NULL, color);
    const char *shown_title = jget_str(head, "title");
    size_t budget = DC_EMBED_TOTAL_MAX - (shown_title ? dc_chars(shown_title) : 0);
    const char *p = text;
    bool cut = false;
    do {
        size_t room = budget < DC_EMBED_DESC_MAX ? budget : DC_EMBED_DESC_MAX;
        bool last = jarr_len(embeds) + 1 == DC_EMBEDS_MAX || room == budget;
        size_t len = split_at_line(p, room);
        struct json_object *desc;
        if (p[len] && (last || len == 0)) {
            /* more than the message holds */
            desc = room > 0 ? dc_fit_json(p, room) : NULL;
            cut = true;
        } else {
            desc = json_object_new_string_len(p, (int)len);
        }
        budget -= desc ? dc_chars(json_object_get_string(desc)) : 0;
        json_object_array_add(embeds, jarr_len(embeds) ? new_embed(NULL, desc, color)
                                                       : new_embed(title, desc, color));
        p += len;
        if (*p == '\n')
            p++;
    } while (*p && !cut);
    json_object_put(head);
    if (cut)
        log_warn(DC_MOD, NULL,
                 "%s: a text of %zu characters is more than a Discord message holds (%d); "
                 "it is cut there",
                 key ? key : "a message", dc_chars(text), DC_EMBED_TOTAL_MAX);
    return embeds;
}

/* A body with text as its content, or as embeds when longer than content
 * may be; the body's other fields are the caller's. */
static void set_text(struct json_object *body, const char *text, int color, const char *key)
{
    if (dc_chars(text) <= DC_CONTENT_MAX) {
        json_object_object_add(body, "content", json_object_new_string(text));
        return;
    }
    json_object_object_add(body, "content", json_object_new_string(""));
    json_object_object_add(body, "embeds", embeds_of(NULL, text, color, key));
}

struct json_object *dc_render_text(const char *text, int flags)
{
    struct json_object *b = json_object_new_object();
    struct json_object *am = json_object_new_object();
    json_object_object_add(am, "parse", json_object_new_array());
    set_text(b, text, 0, NULL);
    json_object_object_add(b, "allowed_mentions", am);
    if (flags)
        json_object_object_add(b, "flags", json_object_new_int(flags));
    dc_fix_utf8(b);
    return b;
}

int dc_custom_id(char *out, const char *key, const char *action)
{
    int n = snprintf(out, DC_CUSTOM_ID_MAX + 1, "%s%c%s", key, DC_CUSTOM_ID_SEP, action);
    return n < 0 || n > DC_CUSTOM_ID_MAX ? -1 : 0;
}

/* The custom_id of action on the message under key, into id; false (logged)
 * when it would not fit: the control is then left out, and its command still
 * works typed. */
static bool control_id(char *id, const char *key, const char *action)
{
    if (dc_custom_id(id, key, action) == 0)
        return true;
    log_error(DC_MOD, NULL,
              "%s: the control for \"%s\" is left out: its custom_id would pass "
              "Discord's %d characters",
              key, action, DC_CUSTOM_ID_MAX);
    return false;
}

/* A button for command on the message under key; NULL when their custom_id
 * would not fit. */
static struct json_object *button(const char *label, const char *key, const char *command,
                                  int style)
{
    char id[DC_CUSTOM_ID_MAX + 1];
    if (!control_id(id, key, command))
        return NULL;
    struct json_object *b = json_object_new_object();
    json_object_object_add(b, "type", json_object_new_int(COMP_BUTTON));
    json_object_object_add(b, "style", json_object_new_int(style));
    json_object_object_add(b, "label", dc_fit_json(label, DC_LABEL_MAX));
    json_object_object_add(b, "custom_id", json_object_new_string(id));
    return b;
}

/* Adds a row of items (none: no row); a row past DC_ROWS_MAX is left out,
 * logged. */
static void add_row(struct json_object *components, struct json_object *items)
{
    if (json_object_array_length(items) == 0) {
        json_object_put(items);
        return;
    }
    if (json_object_array_length(components) >= DC_ROWS_MAX) {
        log_error(DC_MOD, NULL,
                  "a message's controls pass Discord's %d rows; the rest are left out",
                  DC_ROWS_MAX);
        json_object_put(items);
        return;
    }
    struct json_object *row = json_object_new_object();
    json_object_object_add(row, "type", json_object_new_int(COMP_ROW));
    json_object_object_add(row, "components", items);
    json_object_array_add(components, row);
}

/* With the Activity on, "Play in Discord" under the lobby and under each
 * table notice that opens a timed step, in the message's language. */
static void launch_row(const struct dc *dc, struct json_object *components, const char *lang)
{
    if (!dc->activity_on)
        return;
    struct json_object *row = json_object_new_array();
    json_object_array_add(row, dc_activity_button(dc, lang));
    add_row(components, row);
}

/* A label for one of the bot's own actions: the result's "Play again", a
 * lobby's command word capitalised ("Join"). */
static void action_label(const struct dc *dc, const char *action, char *out, size_t len, int *style)
{
    *style = BTN_SECONDARY;
    if (strcmp(action, OUT_ACTION_REMATCH) == 0) {
        *style = BTN_SUCCESS;
        snprintf(out, len, "%s", dc_word(dc, "ui.play-again"));
        return;
    }
    if (strncmp(action, "!illegal ", 9) == 0) {
        const char *verb = action + 9;
        *style = strcmp(verb, "start") == 0   ? BTN_SUCCESS
                 : strcmp(verb, "leave") == 0 ? BTN_DANGER
                                              : BTN_PRIMARY;
        /* the command word, capitalised, cut to fit (a label is short) */
        size_t n = strnlen(verb, len - 1);
        memcpy(out, verb, n);
        out[n] = '\0';
        if (out[0] >= 'a' && out[0] <= 'z')
            out[0] = (char)(out[0] - 'a' + 'A');
        return;
    }
    snprintf(out, len, "%s", action);
}

/* The button style of a choice's tone (bot/platform.h). */
static int tone_style(const char *tone)
{
    static const struct {
        const char *tone;
        int style;
    } styles[] = {{"yes", BTN_SUCCESS}, {"no", BTN_DANGER}, {"main", BTN_PRIMARY}};
    for (size_t i = 0; tone && i < sizeof styles / sizeof styles[0]; i++)
        if (strcmp(tone, styles[i].tone) == 0)
            return styles[i].style;
    return BTN_SECONDARY;
}

/* The command of the i-th control of data: its "actions" (the bot's own,
 * after prefix where they lack it), else its "choices" (a module's; those a
 * reaction makes have no command). Writes its label and style; false when
 * there is none to show. */
static bool control_at(const struct dc *dc, const struct json_object *data, size_t i,
                       const char *prefix, char *cmd, size_t clen, char *label, size_t llen,
                       int *style)
{
    struct json_object *actions = jget_arr(data, "actions");
    const char *a = actions ? jarr_str(actions, i) : NULL;
    if (actions) {
        int w = a && prefix && strncmp(a, prefix, strlen(prefix)) != 0
                    ? snprintf(cmd, clen, "%s%s", prefix, a)
                    : snprintf(cmd, clen, "%s", a ? a : "");
        if (!a || w < 0 || (size_t)w >= clen)
            return false; /* too long for any custom_id */
        action_label(dc, cmd, label, llen, style);
        return true;
    }
    struct json_object *c = jarr_at(jget_arr(data, "choices"), i);
    a = jget_str(c, "command");
    int w = a ? snprintf(cmd, clen, "%s", a) : -1;
    if (w < 0 || (size_t)w >= clen)
        return false;
    msg_choice_label(c, dc->words_lang ? dc->words_lang : dc->language, label, llen);
    if (!*label)
        snprintf(label, llen, "%s", a);
    *style = tone_style(jget_str(c, "tone"));
    return true;
}

/* Buttons for the controls of the message under key (data.actions, else
 * the commands of data.choices), five to a row, at most five rows (the same
 * command once). prefix goes before actions that lack it (the lobby's "join"
 * is "!illegal join"). A message without a key gets none: a press on it
 * could not be told from a press on another. */
static void action_buttons(const struct dc *dc, struct json_object *components, const char *key,
                           const struct json_object *data, const char *prefix)
{
    struct json_object *list = jget_arr(data, "actions");
    if (!list)
        list = jget_arr(data, "choices");
    if (!list || !key)
        return;
    size_t n = jarr_len(list), placed = 0;
    struct json_object *row = json_object_new_array(), *seen = json_object_new_object();
    for (size_t i = 0; i < n; i++) {
        char cmd[DC_CUSTOM_ID_MAX + 1], label[4 * DC_LABEL_MAX + 1];
        int style;
        if (!control_at(dc, data, i, prefix, cmd, sizeof cmd, label, sizeof label, &style) ||
            json_object_object_get_ex(seen, cmd, NULL))
            continue; /* none, too long for any custom_id, or a button already there */
        if (placed == (size_t)DC_ROWS_MAX * DC_ROW_BUTTONS_MAX) {
            log_error(DC_MOD, NULL,
                      "%s: more actions than Discord's %d buttons; \"%s\" and "
                      "those after it are left out",
                      key, DC_ROWS_MAX * DC_ROW_BUTTONS_MAX, cmd);
            break;
        }
        json_object_object_add(seen, cmd, NULL);
        struct json_object *b = button(label, key, cmd, style);
        if (b) {
            json_object_array_add(row, b);
            placed++;
        }
        if (json_object_array_length(row) == DC_ROW_BUTTONS_MAX) {
            add_row(components, row);
            row = json_object_new_array();
        }
    }
    add_row(components, row);
    json_object_put(seen);
}

static struct json_object *select_menu(const char *key, const char *action, const char *placeholder,
                                       int min, int max)
{
    char id[DC_CUSTOM_ID_MAX + 1];
    if (!control_id(id, key, action))
        return NULL;
    struct json_object *s = json_object_new_object();
    json_object_object_add(s, "type", json_object_new_int(COMP_STRING_SELECT));
    json_object_object_add(s, "custom_id", json_object_new_string(id));
    json_object_object_add(s, "placeholder", dc_fit_json(placeholder, DC_PLACEHOLDER_MAX));
    json_object_object_add(s, "min_values", json_object_new_int(min));
    json_object_object_add(s, "max_values", json_object_new_int(max));
    json_object_object_add(s, "options", json_object_new_array());
    return s;
}

/* An option of a menu: its label cut to fit, its value whole or not at all
 * (a value cut short would be another choice), at most DC_SELECT_OPTIONS_MAX. */
static void select_option(struct json_object *sel, const char *label, const char *value,
                          bool chosen)
{
    struct json_object *opts = jget_arr(sel, "options");
    if (!opts || jarr_len(opts) >= DC_SELECT_OPTIONS_MAX || !*label || !*value)
        return;
    if (dc_chars(value) > DC_OPTION_TEXT_MAX) {
        log_error(DC_MOD, NULL,
                  "a menu option's value passes Discord's %d characters; the "
                  "option is left out",
                  DC_OPTION_TEXT_MAX);
        return;
    }
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "label", dc_fit_json(label, DC_OPTION_TEXT_MAX));
    json_object_object_add(o, "value", json_object_new_string(value));
    /* an edit of the hand keeps what the player chose shown as chosen */
    if (chosen)
        json_object_object_add(o, "default", json_object_new_boolean(1));
    json_object_array_add(opts, o);
}

/* Whether the builder's list ("2 guns 1 alcohol") holds exactly "<q> <item>". */
static bool picked(const char *list, unsigned q, const char *item)
{
    char want[64];
    int n = snprintf(want, sizeof(want), "%u %s", q, item);
    for (const char *p = list; p && n > 0 && (p = strstr(p, want)) != NULL; p++)
        if ((p == list || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' ')) {
            /* "12 guns" must not count as "2 guns": the number starts a pair */
            const char *b = p;
            unsigned words = 0;
            while (b > list) {
                b--;
                if (*b == ' ')
                    words++;
            }
            if (words % 2 == 0)
                return true;
        }
    return false;
}

/* An item's or a part's label: its "label", else its "label_key" in the
 * message's language, else its id. */
static const char *label_of(const struct dc *dc, const struct json_object *o, const char *id)
{
    const char *label = jget_str(o, "label"), *key = jget_str(o, "label_key");
    return label ? label : key ? dc_word(dc, key) : id ? id : "";
}

/* Options "<q> × <label>" (value "<q> <id>") for q = 1..max. */
static void item_options(const struct dc *dc, struct json_object *sel,
                         const struct json_object *item, unsigned max, const char *chosen)
{
    const char *id = jget_str(item, "id");
    for (unsigned q = 1; id && q <= max; q++) {
        char label[128], value[64];
        snprintf(label, sizeof(label), "%u \xC3\x97 %s", q, label_of(dc, item, id));
        snprintf(value, sizeof(value), "%u %s", q, id);
        select_option(sel, label, value, picked(chosen, q, id));
    }
}

static void add_select(struct json_object *components, struct json_object *sel)
{
    int n = (int)jarr_len(jget_arr(sel, "options"));
    if (!sel)
        return;
    if (n == 0) {
        json_object_put(sel);
        return;
    }
    if (jget_int64_or(sel, "max_values", 0) > n)
        json_object_object_add(sel, "max_values", json_object_new_int(n));
    struct json_object *items = json_object_new_array();
    json_object_array_add(items, sel);
    add_row(components, items);
}

static const char *player_name(struct json_object *p)
{
    const char *name = jget_str(p, "name");
    return name && *name ? name : jget_str(p, "id");
}

/* The menu of a part that picks one of its "players" (by id, shown by name). */
static struct json_object *players_menu(const struct dc *dc, const char *key, const char *action,
                                        const struct json_object *part, const char *chosen)
{
    struct json_object *players = jget_arr(part, "players");
    struct json_object *sel = select_menu(key, action, label_of(dc, part, NULL), 1, 1);
    for (size_t i = 0; sel && i < jarr_len(players); i++) {
        struct json_object *p = jarr_at(players, i);
        const char *id = jget_str(p, "id"), *name = player_name(p);
        if (id && name)
            select_option(sel, name, id, chosen && strcmp(chosen, id) == 0);
    }
    return sel;
}

/* The menu of a part that picks counts of its "items": each in every
 * quantity up to its "max", cut so that every item fits in the 25 options. */
static struct json_object *items_menu(const struct dc *dc, const char *key, const char *action,
                                      const struct json_object *part, const char *chosen)
{
    struct json_object *items = jget_arr(part, "items");
    struct json_object *sel = select_menu(key, action, label_of(dc, part, NULL), 0, 25);
    size_t n = 0;
    for (size_t i = 0; i < jarr_len(items); i++)
        n += jget_int64_or(jarr_at(items, i), "max", 0) > 0;
    unsigned cap = DC_SELECT_OPTIONS_MAX / (unsigned)(n ? n : 1);
    for (size_t i = 0; sel && i < jarr_len(items); i++) {
        int64_t max = jget_int64_or(jarr_at(items, i), "max", 0);
        if (max > 0)
            item_options(dc, sel, jarr_at(items, i), max < cap ? (unsigned)max : cap, chosen);
    }
    return sel;
}

/*
 * A module's "compose" (bot/platform.h) under the DM message keyed key: a
 * menu a part (action "tb:<part>"), then a button that sends the command
 * ("tb:send <template>": the press carries its template, the adapter keeps
 * nothing of the message). What the player chose stays shown. A compose
 * that does not fit is left out, logged.
 */
static void render_builder(struct dc *dc, struct json_object *components, const char *key,
                           const struct json_object *data)
{
    struct json_object *compose = jget_obj(data, "compose");
    char why[128], action[DC_CUSTOM_ID_MAX + 1];
    if (!compose || !key)
        return;
    if (compose_check(compose, why, sizeof why) < 0) {
        log_error(DC_MOD, NULL, "%s: its compose is left out: %s", key, why);
        return;
    }
    const struct dc_builder *tb = dc_builder_of(dc, key, false);
    struct json_object *parts = jget_arr(compose, "parts");
    for (size_t i = 0; i < jarr_len(parts); i++) {
        struct json_object *part = jarr_at(parts, i);
        const char *name = jget_str(part, "name");
        snprintf(action, sizeof action, "tb:%s", name);
        const char *chosen = dc_builder_pick(tb, name);
        add_select(components, jget_arr(part, "players")
                                   ? players_menu(dc, key, action, part, chosen)
                                   : items_menu(dc, key, action, part, chosen));
    }
    snprintf(action, sizeof action, "tb:send %s", jget_str(compose, "command"));
    struct json_object *send = button(label_of(dc, compose, NULL), key, action, BTN_SUCCESS);
    if (!send)
        return;
    struct json_object *row = json_object_new_array();
    json_object_array_add(row, send);
    add_row(components, row);
}

/*
 * Whether m opens a timed step: a message whose choices are open (a drop
 * once cards can be grabbed, a ballot), or a notice its module says opens
 * one ("opens": of several events told together, any one). The countdown
 * goes on them and nowhere else.
 */
#define LONG_STEP_S 3600 /* a deadline this far off is shown as a date too */

static bool opens_timed_step(const struct outbound *m)
{
    const struct json_object *data = m->data;
    switch (m->kind) {
    case OUT_BALLOT:
        return true;
    case OUT_TABLE_VIEW:
    case OUT_PRIVATE_VIEW:
    case OUT_PROMPT:
        return jarr_len(jget_arr(data, "choices")) > 0;
    case OUT_NOTICE:
        return jget_true(data, "opens");
    default:
        return false;
    }
}

/* The title a module gives a view or a ballot (data.title, a catalog key),
 * or NULL. */
static const char *module_title(const struct dc *dc, const struct json_object *data)
{
    const char *key = jget_str(data, "title");
    return key ? dc_word(dc, key) : NULL;
}

/* The lobby's title: ui.title-lobby with the name of the game it sets up
 * (<module>.game), into out. */
static const char *lobby_title(const struct dc *dc, const struct json_object *data, char *out,
                               size_t len)
{
    const char *lang = dc->words_lang ? dc->words_lang : dc->language;
    const char *module = jget_str(data, "module");
    const char *vars[] = {"game", module ? text_name(lang, module, "game") : "", NULL};
    text_fill(out, len, lang, "ui.title-lobby", vars);
    return out;
}

/* How a kind looks: an embed of this colour, titled by the bot's own catalog
 * key or, with none, by the module's "title"; a kind not listed is plain
 * content (a notice, an error, a prompt). */
static const struct {
    enum outbound_kind kind;
    int color;
    const char *title;
} looks[] = {
    {OUT_LOBBY, 0x5865F2, NULL}, /* lobby_title() */
    {OUT_PRIVATE_VIEW, 0x2B2D31, NULL},
    {OUT_BALLOT, 0xED4245, NULL},
    {OUT_TABLE_VIEW, 0x57F287, NULL},
    {OUT_RESULT, 0xEB459E, "ui.title-results"},
    {OUT_GAME_OVER, 0xEB459E, "ui.title-results"},
};

/* The controls under m's text: buttons for its actions or choices (a table
 * view's emoji choices are reactions, delivery.c), the lobby's and an
 * opening's launch button, a DM's trade builder. */
static void add_controls(struct dc *dc, const struct outbound *m, struct json_object *components)
{
    const struct json_object *data = m->data;
    switch (m->kind) {
    case OUT_LOBBY:
        action_buttons(dc, components, m->key, data, PLATFORM_COMMAND_PREFIX " ");
        launch_row(dc, components, jget_str(data, "lang"));
        return;
    case OUT_NOTICE: /* one or a few lines: plain content */
        if (m->channel && opens_timed_step(m))
            launch_row(dc, components, jget_str(data, "lang"));
        return;
    case OUT_ERROR:
        return;
    case OUT_PRIVATE_VIEW:
    case OUT_PROMPT:
        if (m->user)
            render_builder(dc, components, m->key, data);
        break;
    default:
        break;
    }
    action_buttons(dc, components, m->key, data, NULL); /* and the result's Play again */
}

static struct json_object *render_body(struct dc *dc, const struct outbound *m)
{
    const struct json_object *data = m->data;
    const char *text = m->text ? m->text : "";
    struct json_object *body = json_object_new_object();
    struct json_object *am = json_object_new_object();
    json_object_object_add(am, "parse", json_object_new_array());
    json_object_object_add(body, "allowed_mentions", am);
    struct json_object *components = json_object_new_array();
    struct json_object *embeds = NULL;
    const char *title = NULL;
    int color = 0;
    bool as_embed = false;
    char extra[96] = "";
    int64_t deadline = jget_int64_or(data, "deadline", 0);

    for (size_t i = 0; i < sizeof looks / sizeof looks[0]; i++)
        if (looks[i].kind == m->kind) {
            as_embed = true;
            color = looks[i].color;
            title = looks[i].title ? dc_word(dc, looks[i].title) : module_title(dc, data);
        }
    char lobby[256];
    if (m->kind == OUT_LOBBY)
        title = lobby_title(dc, data, lobby, sizeof lobby);
    add_controls(dc, m, components);
    if (deadline > 0 && opens_timed_step(m)) {
        /* Discord writes these in each reader's own time zone and language; a
         * step of an hour or more also gets its date and time */
        long long at = (long long)(deadline / 1000);
        if (at - (long long)time(NULL) >= LONG_STEP_S)
            snprintf(extra, sizeof(extra), "\n\xE2\x8F\xB3 <t:%lld:R> (<t:%lld:F>)", at, at);
        else
            snprintf(extra, sizeof(extra), "\n\xE2\x8F\xB3 <t:%lld:R>", at);
    }
    /* In a DM, what asks the player to act names its table (a channel
     * mention): a player may sit at two. */
    char table[96] = "";
    const char *at = jget_str(data, "table");
    if (m->user && at && (m->kind == OUT_PROMPT || m->kind == OUT_PRIVATE_VIEW))
        snprintf(table, sizeof table, "<#%s>\n", at);
    /* the text and its countdown; without memory for both, the text alone */
    struct buf d;
    buf_init(&d, DC_TEXT_MAX);
    const char *shown = buf_printf(&d, "%s%s%s", table, text, extra) == 0 ? d.data : text;
    if (as_embed) {
        json_object_object_add(body, "content", json_object_new_string(""));
        embeds = embeds_of(title, shown, color, m->key);
    } else {
        set_text(body, shown, color, m->key);
    }
    buf_free(&d);
    /* an edit must clear what the previous version had */
    if (!json_object_object_get_ex(body, "embeds", NULL))
        json_object_object_add(body, "embeds", embeds ? embeds : json_object_new_array());
    json_object_object_add(body, "components", components);
    return body;
}

struct json_object *dc_render(struct dc *dc, const struct outbound *m)
{
    const char *lang = jget_str(m->data, "lang");
    dc->words_lang = catalog_has_language(lang) ? lang : NULL;
    struct json_object *body = render_body(dc, m);
    dc->words_lang = NULL;
    dc_fix_utf8(body);
    return body;
}

const char *dc_word_for(const struct dc *dc, const char *locale, const char *key)
{
    const char *lang = catalog_match(locale);
    const char *t = catalog_text(lang ? lang : dc->language, key);
    return t ? t : key;
}

const char *dc_word(const struct dc *dc, const char *key)
{
    const char *t = catalog_text(dc->words_lang ? dc->words_lang : dc->language, key);
    return t ? t : key;
}
