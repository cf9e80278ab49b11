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

/* One embed: its title (the first's), its description when not empty, its
 * colour when it has one. The description is p's first len bytes or, when
 * cut_to is not 0, p cut to cut_to characters and ended with "…". Returns
 * the description's characters. */
static size_t write_embed(struct jw *w, const char *title, const char *p, size_t len, size_t cut_to,
                          int color)
{
    size_t n = 0;
    jw_object(w);
    if (title) {
        jw_key(w, "title");
        dc_fit_write(w, title, DC_EMBED_TITLE_MAX);
    }
    if (cut_to) {
        jw_key(w, "description");
        n = dc_fit_write(w, p, cut_to);
    } else if (len) {
        jw_key(w, "description");
        jw_strn(w, p, len);
        n = dc_chars_n(p, len);
    }
    if (color) {
        jw_key(w, "color");
        jw_int(w, color);
    }
    jw_object_end(w);
    return n;
}

/*
 * text as a message's embeds (an array written by w): the first titled
 * (title may be NULL), each description at most DC_EMBED_DESC_MAX
 * characters, the text split between lines, all within DC_EMBED_TOTAL_MAX
 * and DC_EMBEDS_MAX (resources/message, Embed Limits). A text longer than
 * one message holds is cut there, ended with "…", and the cut logged with
 * key, the message's.
 */
static void write_embeds(struct jw *w, const char *title, const char *text, int color,
                         const char *key)
{
    bool title_cut = false;
    size_t title_chars = 0;
    if (title)
        title_chars = dc_chars_n(title, dc_fit_cut(title, DC_EMBED_TITLE_MAX, &title_cut));
    size_t budget = DC_EMBED_TOTAL_MAX - title_chars - title_cut, embeds = 0;
    const char *p = text;
    bool cut = false;
    jw_array(w);
    do {
        size_t room = budget < DC_EMBED_DESC_MAX ? budget : DC_EMBED_DESC_MAX;
        bool last = embeds + 1 == DC_EMBEDS_MAX || room == budget;
        size_t len = split_at_line(p, room);
        const char *t = embeds++ ? NULL : title;
        cut = p[len] && (last || len == 0); /* more than the message holds */
        budget -= write_embed(w, t, p, cut ? 0 : len, cut ? room : 0, color);
        p += len;
        if (*p == '\n')
            p++;
    } while (*p && !cut);
    jw_array_end(w);
    if (cut)
        log_warn(DC_MOD, NULL,
                 "%s: a text of %zu characters is more than a Discord message holds (%d); "
                 "it is cut there",
                 key ? key : "a message", dc_chars(text), DC_EMBED_TOTAL_MAX);
}

/* A text's "content" and "embeds": the text as content, or as embeds when
 * longer than content may be. */
static void write_text(struct jw *w, const char *text, int color, const char *key)
{
    bool plain = dc_chars(text) <= DC_CONTENT_MAX;
    jw_key(w, "content");
    jw_str(w, plain ? text : "");
    jw_key(w, "embeds");
    if (plain) {
        jw_array(w);
        jw_array_end(w);
    } else {
        write_embeds(w, NULL, text, color, key);
    }
}

/* The mentions a body allows: none, so a name or a text never pings. */
static void write_no_mentions(struct jw *w)
{
    jw_key(w, "allowed_mentions");
    jw_object(w);
    jw_key(w, "parse");
    jw_array(w);
    jw_array_end(w);
    jw_object_end(w);
}

struct buf *dc_body_start(struct dc *dc, struct jw *w)
{
    struct buf *b = &dc->body;
    if (b->max == 0)
        buf_init(b, DC_BODY_MAX);
    buf_reset(b);
    jw_init(w, b);
    return b;
}

void dc_body_done(struct dc *dc)
{
    if (dc->body.cap > DC_BODY_KEEP)
        buf_free(&dc->body); /* a long body's memory goes back; the usual one's is kept */
}

void dc_render_text(struct jw *w, const char *text)
{
    write_text(w, text, 0, NULL);
    write_no_mentions(w);
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

/* Adds a row of items (none: no row) to *components, made at the first; a
 * row past DC_ROWS_MAX is left out, logged. */
static void add_row(struct json_object **components, struct json_object *items)
{
    if (json_object_array_length(items) == 0) {
        json_object_put(items);
        return;
    }
    if (!*components && !(*components = json_object_new_array())) {
        json_object_put(items);
        return;
    }
    if (json_object_array_length(*components) >= DC_ROWS_MAX) {
        log_error(DC_MOD, NULL,
                  "a message's controls pass Discord's %d rows; the rest are left out",
                  DC_ROWS_MAX);
        json_object_put(items);
        return;
    }
    struct json_object *row = json_object_new_object();
    json_object_object_add(row, "type", json_object_new_int(COMP_ROW));
    json_object_object_add(row, "components", items);
    json_object_array_add(*components, row);
}

/* With the Activity on, "Play in Discord" under the lobby and under each
 * table notice that opens a timed step, in the message's language. */
static void launch_row(const struct dc *dc, struct json_object **components, const char *lang)
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
static void action_buttons(const struct dc *dc, struct json_object **components, const char *key,
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

static void add_select(struct json_object **components, struct json_object *sel)
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
static void render_builder(struct dc *dc, struct json_object **components, const char *key,
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
static void add_controls(struct dc *dc, const struct outbound *m, struct json_object **components)
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

/* How m looks: as an embed (its colour and title), or as plain content. */
struct look {
    bool as_embed;
    int color;
    const char *title;
    char lobby[256];
};

static void look_of(struct dc *dc, const struct outbound *m, struct look *l)
{
    l->as_embed = false;
    l->color = 0;
    l->title = NULL;
    for (size_t i = 0; i < sizeof looks / sizeof looks[0]; i++)
        if (looks[i].kind == m->kind) {
            l->as_embed = true;
            l->color = looks[i].color;
            l->title = looks[i].title ? dc_word(dc, looks[i].title) : module_title(dc, m->data);
        }
    if (m->kind == OUT_LOBBY)
        l->title = lobby_title(dc, m->data, l->lobby, sizeof l->lobby);
}

/* What goes around m's text: in a DM, the table that asks the player to act
 * (a channel mention: a player may sit at two), before it; the countdown of
 * a timed step after it. */
static void text_around(const struct outbound *m, char table[96], char extra[96])
{
    const struct json_object *data = m->data;
    int64_t deadline = jget_int64_or(data, "deadline", 0);
    const char *at = jget_str(data, "table");
    table[0] = extra[0] = '\0';
    if (deadline > 0 && opens_timed_step(m)) {
        /* Discord writes these in each reader's own time zone and language; a
         * step of an hour or more also gets its date and time */
        long long t = (long long)(deadline / 1000);
        if (t - (long long)time(NULL) >= LONG_STEP_S)
            snprintf(extra, 96, "\n\xE2\x8F\xB3 <t:%lld:R> (<t:%lld:F>)", t, t);
        else
            snprintf(extra, 96, "\n\xE2\x8F\xB3 <t:%lld:R>", t);
    }
    if (m->user && at && (m->kind == OUT_PROMPT || m->kind == OUT_PRIVATE_VIEW))
        snprintf(table, 96, "<#%s>\n", at);
}

/* m's "content" and "embeds": plain content written from its pieces, with
 * no copy; an embed, or a text too long for content, from one string. */
static void write_shown(struct dc *dc, const struct outbound *m, struct jw *w)
{
    const char *text = m->text ? m->text : "";
    char table[96], extra[96];
    struct look l;
    look_of(dc, m, &l);
    text_around(m, table, extra);
    size_t bytes = strlen(table) + strlen(text) + strlen(extra);
    /* a character is at least a byte: so many bytes need no count */
    if (!l.as_embed && (bytes <= DC_CONTENT_MAX ||
                        dc_chars(table) + dc_chars(text) + dc_chars(extra) <= DC_CONTENT_MAX)) {
        jw_key(w, "content");
        jw_str_open(w);
        jw_str_add(w, table, strlen(table));
        jw_str_add(w, text, bytes - strlen(table) - strlen(extra));
        jw_str_add(w, extra, strlen(extra));
        jw_str_close(w);
        jw_key(w, "embeds"); /* an edit must clear what the previous version had */
        jw_array(w);
        jw_array_end(w);
        return;
    }
    /* without memory for the whole, the text alone */
    struct buf d;
    buf_init(&d, DC_TEXT_MAX);
    const char *shown = buf_printf(&d, "%s%s%s", table, text, extra) == 0 ? d.data : text;
    if (l.as_embed) {
        jw_key(w, "content");
        jw_str(w, "");
        jw_key(w, "embeds");
        write_embeds(w, l.title, shown, l.color, m->key);
    } else {
        write_text(w, shown, l.color, m->key);
    }
    buf_free(&d);
}

/* m's "components": its controls, or none when bare (a message whose
 * controls are closed for good). Returns whether it has any. */
static bool write_components(struct dc *dc, const struct outbound *m, struct jw *w, bool bare)
{
    struct json_object *components = NULL; /* made by the first control */
    if (!bare)
        add_controls(dc, m, &components);
    jw_key(w, "components");
    jw_array(w);
    for (size_t i = 0; i < jarr_len(components); i++)
        jw_json(w, json_object_array_get_idx(components, i));
    jw_array_end(w);
    bool any = components != NULL; /* a row is made only with its items */
    json_object_put(components);
    return any;
}

bool dc_render_into(struct dc *dc, const struct outbound *m, bool bare, struct jw *w)
{
    const char *lang = jget_str(m->data, "lang");
    dc->words_lang = catalog_has_language(lang) ? lang : NULL;
    write_no_mentions(w);
    write_shown(dc, m, w);
    bool controls = write_components(dc, m, w, bare);
    dc->words_lang = NULL;
    return controls;
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
