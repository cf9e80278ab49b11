/*
 * discord_limits.c - Discord's documented limits on what a bot sends (discord_limits.h).
 *
 * Each number names the page of docs.discord.com/developers it comes from,
 * and the section where the page has several. Where a page says what may be
 * set and not what happens otherwise (message flags), what it does not list
 * is refused: stricter than Discord at worst.
 */
#include <locale.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wctype.h>

#include <json-c/json.h>

#include "discord_limits.h"

/* resources/message: Create Message's parameters (content, nonce, embeds) */
#define CONTENT_MAX 2000
#define NONCE_MAX   25
#define EMBEDS_MAX  10
/* resources/message: Embed Limits */
#define TITLE_MAX       256
#define DESCRIPTION_MAX 4096
#define FIELDS_MAX      25
#define FIELD_NAME_MAX  256
#define FIELD_VALUE_MAX 1024
#define FOOTER_MAX      2048
#define AUTHOR_MAX      256
#define EMBED_TOTAL_MAX 6000
/* resources/message: Allowed Mentions Object */
#define MENTIONS_MAX 100
/* resources/message: Message Flags */
#define F_SUPPRESS_EMBEDS        (1 << 2)
#define F_EPHEMERAL              (1 << 6)
#define F_SUPPRESS_NOTIFICATIONS (1 << 12)
#define F_IS_VOICE_MESSAGE       (1 << 13)
#define F_IS_COMPONENTS_V2       (1 << 15)
/* components/reference: Legacy Message Component Behavior (rows), the
 * overview (40 components with IS_COMPONENTS_V2), Action Row, What is a
 * Component (custom_id), Button, String Select and its Select Option */
#define ROWS_MAX           5
#define V2_COMPONENTS_MAX  40
#define ROW_BUTTONS_MAX    5
#define CUSTOM_ID_MAX      100
#define LABEL_MAX          80
#define URL_MAX            512
#define SELECT_OPTIONS_MAX 25
#define SELECT_VALUES_MAX  25
#define PLACEHOLDER_MAX    150
#define OPTION_TEXT_MAX    100
/* interactions/receiving-and-responding: Autocomplete (choices) */
#define AUTOCOMPLETE_MAX 25
/* interactions/receiving-and-responding: Modal; components/reference: Label,
 * Text Input (its label is deprecated; 45 as a Label's) */
#define MODAL_TITLE_MAX      45
#define MODAL_COMPONENTS_MAX 5
#define LABEL_TEXT_MAX       45
#define LABEL_DESC_MAX       100
#define INPUT_TEXT_MAX       4000
#define INPUT_PLACEHOLDER    100
/* interactions/application-commands: Application Command Structure, Option
 * Structure, Option Choice Structure, Registering a Command (how many), Slash
 * Commands (the combined size) */
#define NAME_MAX          32
#define DESC_MAX          100
#define OPTIONS_MAX       25
#define CHOICES_MAX       25
#define CHOICE_TEXT_MAX   100
#define STRING_LENGTH_MAX 6000
#define COMMAND_SIZE_MAX  8000
#define COMMANDS_MAX      100

enum {
    COMP_ROW = 1,
    COMP_BUTTON = 2,
    COMP_STRING_SELECT = 3,
    COMP_TEXT_INPUT = 4,
    COMP_TEXT_DISPLAY = 10,
    COMP_LABEL = 18,
    COMP_FILE_UPLOAD = 19,
    COMP_CHECKBOX = 23,
};
enum { BTN_LINK = 5, BTN_PREMIUM = 6 };
enum { OPT_SUB = 1, OPT_GROUP = 2, OPT_STRING = 3, OPT_INTEGER = 4, OPT_NUMBER = 10 };

/* reference: Locales, the keys a localization dictionary may have */
static const char *const locales[] = {
    "id", "da", "de", "en-GB", "en-US", "es-ES", "es-419", "fr",    "hr",    "it", "lt",
    "hu", "nl", "no", "pl",    "pt-BR", "ro",    "fi",     "sv-SE", "vi",    "tr", "cs",
    "el", "bg", "ru", "uk",    "hi",    "th",    "zh-CN",  "ja",    "zh-TW", "ko", NULL};

void lim_init(struct lim_errors *e)
{
    e->errors = json_object_new_object();
    e->n = 0;
    e->code = 50035;
}

void lim_free(struct lim_errors *e)
{
    json_object_put(e->errors);
    e->errors = NULL;
}

struct json_object *lim_answer(const struct lim_errors *e)
{
    struct json_object *a = json_object_new_object();
    json_object_object_add(a, "code", json_object_new_int(e->code));
    json_object_object_add(a, "message",
                           json_object_new_string(e->code == 50006 ? "Cannot send an empty message"
                                                                   : "Invalid Form Body"));
    json_object_object_add(a, "errors", json_object_get(e->errors));
    return a;
}

/* Adds an error at path ("embeds.0.description"; "" for the request). */
static void fail(struct lim_errors *e, const char *path, const char *code, const char *fmt, ...)
{
    char msg[256], part[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct json_object *at = e->errors;
    for (const char *p = path; *p;) {
        size_t n = strcspn(p, ".");
        snprintf(part, sizeof part, "%.*s", (int)n, p);
        struct json_object *next = json_object_object_get(at, part);
        if (!next) {
            next = json_object_new_object();
            json_object_object_add(at, part, next);
        }
        at = next;
        p += n + (p[n] == '.');
    }
    struct json_object *list = json_object_object_get(at, "_errors");
    if (!list) {
        list = json_object_new_array();
        json_object_object_add(at, "_errors", list);
    }
    struct json_object *one = json_object_new_object();
    json_object_object_add(one, "code", json_object_new_string(code));
    json_object_object_add(one, "message", json_object_new_string(msg));
    json_object_array_add(list, one);
    e->n++;
}

/* path + "." + field, into out (256 bytes: a path is cut to 200, which none
 * that the documentation names comes near, so gcc -O2 sees it fit). */
static const char *sub(char *out, size_t len, const char *path, const char *field)
{
    snprintf(out, len, "%.200s%s%.40s", path, *path ? "." : "", field);
    return out;
}

static const char *item(char *out, size_t len, const char *path, const char *field, size_t i)
{
    snprintf(out, len, "%.200s%s%.30s.%zu", path, *path ? "." : "", field, i);
    return out;
}

/* ---- text ---- */

/* The code point at *p, moving *p past it; a malformed byte is itself. */
static uint32_t next_cp(const unsigned char **p)
{
    const unsigned char *s = *p;
    uint32_t c = s[0];
    unsigned n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
    for (unsigned i = 1; i <= n; i++)
        if ((s[i] & 0xC0) != 0x80)
            n = 0;
    if (n)
        c &= 0x3Fu >> n;
    for (unsigned i = 1; i <= n; i++)
        c = (c << 6) | (s[i] & 0x3F);
    *p = s + 1 + n;
    return c;
}

size_t lim_chars(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;)
        n += next_cp(&p) >= 0x10000 ? 2 : 1;
    return n;
}

static size_t code_points(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; n++)
        next_cp(&p);
    return n;
}

/* Embed Limits: "leading and trailing whitespace characters are not included". */
static size_t trimmed_chars(const char *s)
{
    const char *b = s, *e = s + strlen(s);
    while (*b == ' ' || *b == '\n' || *b == '\t' || *b == '\r')
        b++;
    while (e > b && (e[-1] == ' ' || e[-1] == '\n' || e[-1] == '\t' || e[-1] == '\r'))
        e--;
    char *copy = strndup(b, (size_t)(e - b));
    size_t n = copy ? lim_chars(copy) : 0;
    free(copy);
    return n;
}

static bool is_string(struct json_object *v)
{
    return json_object_is_type(v, json_type_string);
}

/* Checks string field k of o: absent (or null) is fine unless required;
 * min to max characters. Returns the string, or NULL. */
static const char *text(struct lim_errors *e, const char *path, struct json_object *o,
                        const char *k, size_t min, size_t max, bool required)
{
    char at[256];
    struct json_object *v = NULL;
    sub(at, sizeof at, path, k);
    if (!json_object_object_get_ex(o, k, &v) || !v) {
        if (required)
            fail(e, at, "BASE_TYPE_REQUIRED", "This field is required");
        return NULL;
    }
    if (!is_string(v)) {
        fail(e, at, "BASE_TYPE_STRING", "Could not interpret the value as a string.");
        return NULL;
    }
    const char *s = json_object_get_string(v);
    size_t n = lim_chars(s);
    if (n < min || n > max) {
        if (min)
            fail(e, at, "BASE_TYPE_BAD_LENGTH", "Must be between %zu and %zu in length.", min, max);
        else
            fail(e, at, "BASE_TYPE_MAX_LENGTH", "Must be %zu or fewer in length.", max);
    }
    return s;
}

/* Checks array field k of o: at most max items. Returns it, or NULL. */
static struct json_object *array(struct lim_errors *e, const char *path, struct json_object *o,
                                 const char *k, size_t max)
{
    char at[256];
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, k, &v) || !v)
        return NULL;
    sub(at, sizeof at, path, k);
    if (!json_object_is_type(v, json_type_array)) {
        fail(e, at, "BASE_TYPE_ARRAY", "Must be an array.");
        return NULL;
    }
    if (json_object_array_length(v) > max)
        fail(e, at, "BASE_TYPE_MAX_LENGTH", "Must be %zu or fewer in length.", max);
    return v;
}

static size_t alen(struct json_object *a)
{
    return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* An integer field k of o within [min, max], when present. */
static void integer(struct lim_errors *e, const char *path, struct json_object *o, const char *k,
                    int64_t min, int64_t max)
{
    char at[256];
    struct json_object *v = NULL;
    if (!json_object_object_get_ex(o, k, &v) || !v)
        return;
    sub(at, sizeof at, path, k);
    if (!json_object_is_type(v, json_type_int))
        fail(e, at, "NUMBER_TYPE_COERCE", "Value is not int.");
    else if (json_object_get_int64(v) < min || json_object_get_int64(v) > max)
        fail(e, at, "NUMBER_TYPE_MAX", "Must be between %lld and %lld.", (long long)min,
             (long long)max);
}

/* ---- messages ---- */

/* Text field k of o (required or not), at most max characters once trimmed
 * (Embed Limits: "leading and trailing whitespace characters are not
 * included"); adds them to *total. */
static void embed_text(struct lim_errors *e, const char *path, struct json_object *o, const char *k,
                       size_t max, bool required, size_t *total)
{
    char at[256];
    const char *s = text(e, path, o, k, 0, SIZE_MAX, required);
    size_t n = s ? trimmed_chars(s) : 0;
    if (n > max)
        fail(e, sub(at, sizeof at, path, k), "BASE_TYPE_MAX_LENGTH",
             "Must be %zu or fewer in length.", max);
    *total += n;
}

/* One embed; adds its characters to *total. */
static void embed(struct lim_errors *e, const char *path, struct json_object *o, size_t *total)
{
    char at[256];
    if (!json_object_is_type(o, json_type_object)) {
        fail(e, path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType");
        return;
    }
    embed_text(e, path, o, "title", TITLE_MAX, false, total);
    embed_text(e, path, o, "description", DESCRIPTION_MAX, false, total);
    struct json_object *fields = array(e, path, o, "fields", FIELDS_MAX);
    for (size_t i = 0; i < alen(fields); i++) {
        struct json_object *f = json_object_array_get_idx(fields, i);
        item(at, sizeof at, path, "fields", i);
        embed_text(e, at, f, "name", FIELD_NAME_MAX, true, total);
        embed_text(e, at, f, "value", FIELD_VALUE_MAX, true, total);
    }
    struct json_object *footer = json_object_object_get(o, "footer");
    if (footer)
        embed_text(e, sub(at, sizeof at, path, "footer"), footer, "text", FOOTER_MAX, true, total);
    struct json_object *author = json_object_object_get(o, "author");
    if (author)
        embed_text(e, sub(at, sizeof at, path, "author"), author, "name", AUTHOR_MAX, true, total);
}

static void allowed_mentions(struct lim_errors *e, struct json_object *am)
{
    static const char *const types[] = {"roles", "users", "everyone", NULL};
    char at[256];
    if (!am)
        return;
    if (!json_object_is_type(am, json_type_object)) {
        fail(e, "allowed_mentions", "DICT_TYPE_CONVERT", "Only dictionaries may be used");
        return;
    }
    struct json_object *parse = array(e, "allowed_mentions", am, "parse", 3);
    bool parsed[3] = {false, false, false};
    for (size_t i = 0; i < alen(parse); i++) {
        const char *t = json_object_get_string(json_object_array_get_idx(parse, i));
        size_t k = 0;
        while (types[k] && (!t || strcmp(t, types[k]) != 0))
            k++;
        if (!types[k])
            fail(e, item(at, sizeof at, "allowed_mentions", "parse", i), "BASE_TYPE_CHOICES",
                 "Value must be one of ('roles', 'users', 'everyone').");
        else
            parsed[k] = true;
    }
    /* parse is mutually exclusive with a list of the same kind (an empty
     * list or null is no list) */
    for (size_t k = 0; k < 2; k++) {
        struct json_object *list = array(e, "allowed_mentions", am, types[k], MENTIONS_MAX);
        if (parsed[k] && alen(list) > 0)
            fail(e, sub(at, sizeof at, "allowed_mentions", "parse"),
                 "SET_TYPE_ALREADY_CONTAINS_VALUE",
                 "parse contains %s and a list of %s is given too", types[k], types[k]);
    }
}

/* One custom_id, unique on its message (seen: those of the message so far). */
static void custom_id(struct lim_errors *e, const char *path, struct json_object *c,
                      struct json_object *seen)
{
    char at[256];
    const char *id = text(e, path, c, "custom_id", 1, CUSTOM_ID_MAX, true);
    if (!id)
        return;
    if (json_object_object_get_ex(seen, id, NULL))
        fail(e, sub(at, sizeof at, path, "custom_id"), "COMPONENT_CUSTOM_ID_DUPLICATED",
             "Component custom id cannot be duplicated");
    json_object_object_add(seen, id, NULL);
}

static void button(struct lim_errors *e, const char *path, struct json_object *b,
                   struct json_object *seen)
{
    struct json_object *style = json_object_object_get(b, "style");
    int st = json_object_get_int(style);
    if (!json_object_is_type(style, json_type_int) || st < 1 || st > 6) {
        char at[256];
        fail(e, sub(at, sizeof at, path, "style"), "BASE_TYPE_CHOICES",
             "Value must be one of (1, 2, 3, 4, 5, 6).");
        return;
    }
    text(e, path, b, "label", 0, LABEL_MAX, false);
    /* Button: a link button has a url and no custom_id, the others (but
     * premium) a custom_id and no url */
    const char *wrong = st == BTN_LINK ? "custom_id" : "url";
    if (json_object_object_get(b, wrong)) {
        char at[256];
        fail(e, sub(at, sizeof at, path, wrong), "BUTTON_COMPONENT_INVALID_FIELD",
             "A button of style %d has no %s", st, wrong);
    }
    if (st == BTN_LINK)
        text(e, path, b, "url", 1, URL_MAX, true);
    else if (st != BTN_PREMIUM)
        custom_id(e, path, b, seen);
}

static void select_menu(struct lim_errors *e, const char *path, struct json_object *s, int type,
                        struct json_object *seen)
{
    custom_id(e, path, s, seen);
    text(e, path, s, "placeholder", 0, PLACEHOLDER_MAX, false);
    integer(e, path, s, "min_values", 0, SELECT_VALUES_MAX);
    integer(e, path, s, "max_values", 1, SELECT_VALUES_MAX);
    if (type != COMP_STRING_SELECT)
        return;
    char at[256];
    struct json_object *opts = array(e, path, s, "options", SELECT_OPTIONS_MAX);
    if (!opts)
        fail(e, sub(at, sizeof at, path, "options"), "BASE_TYPE_REQUIRED",
             "This field is required");
    for (size_t i = 0; i < alen(opts); i++) {
        struct json_object *o = json_object_array_get_idx(opts, i);
        item(at, sizeof at, path, "options", i);
        text(e, at, o, "label", 1, OPTION_TEXT_MAX, true);
        text(e, at, o, "value", 1, OPTION_TEXT_MAX, true);
        text(e, at, o, "description", 0, OPTION_TEXT_MAX, false);
    }
}

/* An action row: up to five buttons, or one select. */
static void row(struct lim_errors *e, const char *path, struct json_object *r,
                struct json_object *seen)
{
    char at[256], tat[256];
    if (json_object_get_int(json_object_object_get(r, "type")) != COMP_ROW) {
        fail(e, sub(at, sizeof at, path, "type"), "BASE_TYPE_CHOICES",
             "A message's top-level components are action rows.");
        return;
    }
    struct json_object *items = array(e, path, r, "components", ROW_BUTTONS_MAX);
    size_t n = alen(items);
    if (n == 0)
        fail(e, sub(at, sizeof at, path, "components"), "BASE_TYPE_BAD_LENGTH",
             "Must be between 1 and 5 in length.");
    for (size_t i = 0; i < n; i++) {
        struct json_object *c = json_object_array_get_idx(items, i);
        int type = json_object_get_int(json_object_object_get(c, "type"));
        item(at, sizeof at, path, "components", i);
        if (type == COMP_BUTTON) {
            button(e, at, c, seen);
        } else if (type == COMP_STRING_SELECT || (type >= 5 && type <= 8)) {
            if (n != 1)
                fail(e, at, "COMPONENT_LAYOUT_WIDTH_EXCEEDED",
                     "A select menu takes a whole action row.");
            select_menu(e, at, c, type, seen);
        } else {
            fail(e, sub(tat, sizeof tat, at, "type"), "BASE_TYPE_CHOICES",
                 "An action row holds buttons or one select menu.");
        }
    }
}

/* Counts every component of a tree (IS_COMPONENTS_V2 allows 40 in all). */
static size_t count_components(struct json_object *list)
{
    size_t n = 0;
    for (size_t i = 0; i < alen(list); i++) {
        struct json_object *c = json_object_array_get_idx(list, i);
        n += 1 + count_components(json_object_object_get(c, "components"));
        if (json_object_object_get(c, "accessory"))
            n++;
    }
    return n;
}

static void components(struct lim_errors *e, struct json_object *body, bool v2)
{
    struct json_object *list = array(e, "", body, "components", v2 ? SIZE_MAX : ROWS_MAX);
    struct json_object *seen = json_object_new_object();
    if (v2 && count_components(list) > V2_COMPONENTS_MAX)
        fail(e, "components", "BASE_TYPE_MAX_LENGTH", "Must be 40 or fewer in length.");
    for (size_t i = 0; !v2 && i < alen(list); i++) {
        char at[64];
        row(e, item(at, sizeof at, "", "components", i), json_object_array_get_idx(list, i), seen);
    }
    json_object_put(seen);
}

/* What may show: content, embeds, components, stickers, a poll. */
static bool shows_something(struct json_object *body)
{
    struct json_object *c = json_object_object_get(body, "content");
    return (is_string(c) && *json_object_get_string(c)) ||
           alen(json_object_object_get(body, "embeds")) > 0 ||
           alen(json_object_object_get(body, "components")) > 0 ||
           alen(json_object_object_get(body, "sticker_ids")) > 0 ||
           json_object_object_get(body, "poll") || json_object_object_get(body, "attachments");
}

/* The message flags a body may set: allowed, a mask. */
static void flags(struct lim_errors *e, struct json_object *body, int allowed)
{
    struct json_object *f = json_object_object_get(body, "flags");
    if (f && (!json_object_is_type(f, json_type_int) || (json_object_get_int(f) & ~allowed)))
        fail(e, "flags", "BASE_TYPE_CHOICES", "These flags may not be set here: %d",
             json_object_get_int(f) & ~allowed);
}

/* A message body; allowed: the flags it may set. */
static void message(struct lim_errors *e, struct json_object *body, bool create, int allowed)
{
    if (!json_object_is_type(body, json_type_object)) {
        fail(e, "", "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType");
        return;
    }
    bool v2 = json_object_get_int(json_object_object_get(body, "flags")) & F_IS_COMPONENTS_V2;
    text(e, "", body, "content", 0, v2 ? 0 : CONTENT_MAX, false);
    struct json_object *nonce = json_object_object_get(body, "nonce");
    if (nonce && !json_object_is_type(nonce, json_type_int))
        text(e, "", body, "nonce", 1, NONCE_MAX, false);
    struct json_object *embeds = array(e, "", body, "embeds", v2 ? 0 : EMBEDS_MAX);
    size_t total = 0;
    for (size_t i = 0; i < alen(embeds); i++) {
        char at[64];
        embed(e, item(at, sizeof at, "", "embeds", i), json_object_array_get_idx(embeds, i),
              &total);
    }
    if (total > EMBED_TOTAL_MAX)
        fail(e, "embeds", "MAX_EMBED_SIZE_EXCEEDED", "Embed size exceeds maximum size of %d",
             EMBED_TOTAL_MAX);
    allowed_mentions(e, json_object_object_get(body, "allowed_mentions"));
    components(e, body, v2);
    struct json_object *ref = json_object_object_get(body, "message_reference");
    if (ref)
        text(e, "message_reference", ref, "message_id", 1, 32, true);
    flags(e, body, allowed);
    if (create && e->n == 0 && !shows_something(body)) {
        /* Create Message: at least one of content, embeds, ... is required */
        e->code = 50006;
        e->n++;
    }
}

void lim_message(struct lim_errors *e, struct json_object *body, enum lim_where where)
{
    /* Create Message and Execute Webhook: the flags each lists (a webhook
     * no IS_VOICE_MESSAGE), and an interaction's follow-up may be ephemeral
     * (receiving-and-responding: Create Followup Message); an edit, of a message or a webhook's
     * (Edit Message, Edit Webhook Message): SUPPRESS_EMBEDS and
     * IS_COMPONENTS_V2 */
    static const int allowed[] = {
        [LIM_CREATE] =
            F_SUPPRESS_EMBEDS | F_SUPPRESS_NOTIFICATIONS | F_IS_VOICE_MESSAGE | F_IS_COMPONENTS_V2,
        [LIM_FOLLOWUP] =
            F_SUPPRESS_EMBEDS | F_SUPPRESS_NOTIFICATIONS | F_IS_COMPONENTS_V2 | F_EPHEMERAL,
        [LIM_EDIT] = F_SUPPRESS_EMBEDS | F_IS_COMPONENTS_V2,
    };
    message(e, body, where != LIM_EDIT, allowed[where]);
}

/* ---- modals ---- */

/* A text input (Text Input Structure). */
static void text_input(struct lim_errors *e, const char *path, struct json_object *c,
                       struct json_object *seen)
{
    char at[256];
    custom_id(e, path, c, seen);
    int style = json_object_get_int(json_object_object_get(c, "style"));
    if (style != 1 && style != 2)
        fail(e, sub(at, sizeof at, path, "style"), "BASE_TYPE_CHOICES",
             "Value must be one of (1, 2).");
    integer(e, path, c, "min_length", 0, INPUT_TEXT_MAX);
    integer(e, path, c, "max_length", 1, INPUT_TEXT_MAX);
    text(e, path, c, "value", 0, INPUT_TEXT_MAX, false);
    text(e, path, c, "placeholder", 0, INPUT_PLACEHOLDER, false);
    text(e, path, c, "label", 0, LABEL_TEXT_MAX, false);
}

/* What a Label holds: a text input, a select, or one of the modal-only inputs. */
static void labelled(struct lim_errors *e, const char *path, struct json_object *c,
                     struct json_object *seen)
{
    char at[256];
    int type = json_object_get_int(json_object_object_get(c, "type"));
    if (!json_object_is_type(c, json_type_object)) {
        fail(e, path, "BASE_TYPE_REQUIRED", "This field is required");
    } else if (type == COMP_TEXT_INPUT) {
        text_input(e, path, c, seen);
    } else if (type == COMP_STRING_SELECT || (type >= 5 && type <= 8)) {
        /* String Select: "Modals can not currently have disabled components" */
        if (json_object_get_boolean(json_object_object_get(c, "disabled")))
            fail(e, sub(at, sizeof at, path, "disabled"), "COMPONENT_INVALID_FIELD",
                 "A modal's components cannot be disabled");
        select_menu(e, path, c, type, seen);
    } else if (type == COMP_FILE_UPLOAD || (type >= 21 && type <= COMP_CHECKBOX)) {
        custom_id(e, path, c, seen);
    } else {
        fail(e, sub(at, sizeof at, path, "type"), "BASE_TYPE_CHOICES",
             "A label holds an input or a select menu.");
    }
}

/* One of a modal's top-level components: a Label, a Text Display, or (deprecated) an
 * action row of one text input. */
static void modal_item(struct lim_errors *e, const char *path, struct json_object *c,
                       struct json_object *seen)
{
    char at[256];
    int type = json_object_get_int(json_object_object_get(c, "type"));
    if (type == COMP_LABEL) {
        text(e, path, c, "label", 1, LABEL_TEXT_MAX, true);
        text(e, path, c, "description", 0, LABEL_DESC_MAX, false);
        labelled(e, sub(at, sizeof at, path, "component"), json_object_object_get(c, "component"),
                 seen);
    } else if (type == COMP_TEXT_DISPLAY) {
        text(e, path, c, "content", 1, SIZE_MAX, true);
    } else if (type == COMP_ROW) {
        struct json_object *items = array(e, path, c, "components", 1);
        struct json_object *input = json_object_array_get_idx(items, 0);
        if (alen(items) != 1 ||
            json_object_get_int(json_object_object_get(input, "type")) != COMP_TEXT_INPUT)
            fail(e, sub(at, sizeof at, path, "components"), "BASE_TYPE_BAD_LENGTH",
                 "A modal's action row holds one text input.");
        else
            text_input(e, item(at, sizeof at, path, "components", 0), input, seen);
    } else {
        fail(e, sub(at, sizeof at, path, "type"), "BASE_TYPE_CHOICES",
             "A modal holds labels and text displays.");
    }
}

/* A modal's data: custom_id, title, 1 to 5 components. */
static void modal(struct lim_errors *e, struct json_object *data)
{
    char at[64];
    if (!json_object_is_type(data, json_type_object)) {
        fail(e, "data", "BASE_TYPE_REQUIRED", "This field is required");
        return;
    }
    text(e, "data", data, "custom_id", 1, CUSTOM_ID_MAX, true);
    text(e, "data", data, "title", 1, MODAL_TITLE_MAX, true);
    struct json_object *list = array(e, "data", data, "components", MODAL_COMPONENTS_MAX);
    if (alen(list) == 0)
        fail(e, "data.components", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and %d in length.",
             MODAL_COMPONENTS_MAX);
    struct json_object *seen = json_object_new_object(); /* the inputs' custom_ids */
    for (size_t i = 0; i < alen(list); i++)
        modal_item(e, item(at, sizeof at, "data", "components", i),
                   json_object_array_get_idx(list, i), seen);
    json_object_put(seen);
}

/* receiving-and-responding: Interaction Response Object */
void lim_callback(struct lim_errors *e, struct json_object *body)
{
    struct json_object *type = json_object_object_get(body, "type");
    struct json_object *data = json_object_object_get(body, "data");
    char at[64], vat[96];
    switch (json_object_is_type(type, json_type_int) ? json_object_get_int(type) : 0) {
    case 1: /* PONG */
    case 6: /* DEFERRED_UPDATE_MESSAGE */
        break;
    case 4: /* CHANNEL_MESSAGE_WITH_SOURCE */
    case 7: /* UPDATE_MESSAGE: an edit, which may leave nothing to show */ {
        struct lim_errors d;
        lim_init(&d);
        message(&d, data, json_object_get_int(type) == 4,
                F_SUPPRESS_EMBEDS | F_EPHEMERAL | F_IS_COMPONENTS_V2 | F_IS_VOICE_MESSAGE |
                    F_SUPPRESS_NOTIFICATIONS);
        if (d.n) {
            json_object_object_add(e->errors, "data", json_object_get(d.errors));
            e->n += d.n;
            e->code = d.code; /* 50006 for a message of nothing */
        }
        lim_free(&d);
        break;
    }
    case 5: /* DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: EPHEMERAL is the only flag */
        if (data) {
            struct lim_errors d;
            lim_init(&d);
            flags(&d, data, F_EPHEMERAL);
            if (d.n) {
                json_object_object_add(e->errors, "data", json_object_get(d.errors));
                e->n += d.n;
            }
            lim_free(&d);
        }
        break;
    case 8: { /* APPLICATION_COMMAND_AUTOCOMPLETE_RESULT */
        struct json_object *choices = array(e, "data", data, "choices", AUTOCOMPLETE_MAX);
        if (!choices)
            fail(e, "data.choices", "BASE_TYPE_REQUIRED", "This field is required");
        for (size_t i = 0; i < alen(choices); i++) {
            struct json_object *c = json_object_array_get_idx(choices, i);
            item(at, sizeof at, "data", "choices", i);
            text(e, at, c, "name", 1, CHOICE_TEXT_MAX, true);
            struct json_object *v = json_object_object_get(c, "value");
            if (is_string(v))
                text(e, at, c, "value", 0, CHOICE_TEXT_MAX, true);
            else if (!json_object_is_type(v, json_type_int) &&
                     !json_object_is_type(v, json_type_double))
                fail(e, sub(vat, sizeof vat, at, "value"), "BASE_TYPE_REQUIRED",
                     "This field is required");
        }
        break;
    }
    case 9: /* MODAL */
        modal(e, data);
        break;
    default: /* and 10 (deprecated), and 12 (LAUNCH_ACTIVITY: the server takes it before, when the
              * app has Activities enabled) */
        fail(e, "type", "BASE_TYPE_CHOICES", "Value must be one of (1, 4, 5, 6, 7, 8, 9).");
    }
}

/* ---- application commands ---- */

static locale_t utf8_locale(void)
{
    static locale_t l;
    static bool tried;
    if (!tried) {
        tried = true;
        l = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    }
    return l;
}

/* \p{sc=Deva} and \p{sc=Thai}: the code points Unicode's Scripts.txt gives
 * those scripts (the blocks' dandas, Vedic tone marks and baht sign are
 * Common or Inherited). */
static bool in_script(uint32_t c)
{
    static const uint32_t ranges[][2] = {
        {0x0900, 0x0950},   {0x0955, 0x0963}, {0x0966, 0x097F}, {0xA8E0, 0xA8FF},
        {0x11B00, 0x11B09}, {0x0E01, 0x0E3A}, {0x0E40, 0x0E5B},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
        if (c >= ranges[i][0] && c <= ranges[i][1])
            return true;
    return false;
}

/*
 * Application Command Naming: ^[-_'\p{L}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$
 * (with the unicode flag: per code point), and the lower-case variant of any
 * letter that has one. Letters and numbers beyond ASCII are told by the C
 * library's Unicode tables.
 */
static bool valid_name(const char *s)
{
    size_t n = code_points(s);
    if (n < 1 || n > NAME_MAX)
        return false;
    locale_t l = utf8_locale();
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t c = next_cp(&p);
        if (c < 0x80) {
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_' ||
                  c == '\''))
                return false;
        } else if (in_script(c)) {
            continue; /* Devanagari and Thai, marks included */
        } else if (!l || !iswalnum_l((wint_t)c, l) || towlower_l((wint_t)c, l) != (wint_t)c) {
            return false;
        }
    }
    return true;
}

/* A name and its name_localizations. */
static void name(struct lim_errors *e, const char *path, struct json_object *o)
{
    char at[256];
    const char *s = text(e, path, o, "name", 1, SIZE_MAX, true);
    if (s && !valid_name(s))
        fail(e, sub(at, sizeof at, path, "name"), "APPLICATION_COMMAND_INVALID_NAME",
             "Command name is invalid");
}

static bool known_locale(const char *k)
{
    for (size_t i = 0; locales[i]; i++)
        if (strcmp(locales[i], k) == 0)
            return true;
    return false;
}

/* field_localizations of o: known locales, each value as field's rule says
 * (a name, or 1 to max characters). */
static void localizations(struct lim_errors *e, const char *path, struct json_object *o,
                          const char *field, size_t max)
{
    char key[64], at[256], lat[256];
    snprintf(key, sizeof key, "%s_localizations", field);
    struct json_object *l = json_object_object_get(o, key);
    if (!l)
        return;
    sub(at, sizeof at, path, key);
    if (!json_object_is_type(l, json_type_object)) {
        fail(e, at, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType");
        return;
    }
    json_object_object_foreach(l, locale, v)
    {
        sub(lat, sizeof lat, at, locale);
        if (!known_locale(locale))
            fail(e, lat, "BASE_TYPE_CHOICES", "Invalid locale");
        else if (!is_string(v))
            fail(e, lat, "BASE_TYPE_STRING", "Could not interpret the value as a string.");
        else if (max == 0 && !valid_name(json_object_get_string(v)))
            fail(e, lat, "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid");
        else if (max && (lim_chars(json_object_get_string(v)) < 1 ||
                         lim_chars(json_object_get_string(v)) > max))
            fail(e, lat, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and %zu in length.", max);
    }
}

/* The name o shows in locale (its localization, else its name). */
static const char *name_in(struct json_object *o, const char *locale)
{
    struct json_object *l = json_object_object_get(o, "name_localizations"), *v;
    if (locale && json_object_object_get_ex(l, locale, &v) && is_string(v))
        return json_object_get_string(v);
    return json_object_get_string(json_object_object_get(o, "name"));
}

/* The names in one options array are unique (Option Structure). */
static void unique_names(struct lim_errors *e, const char *path, struct json_object *opts)
{
    char at[256], fat[256];
    for (size_t i = 0; i < alen(opts); i++) {
        const char *an = name_in(json_object_array_get_idx(opts, i), NULL);
        for (size_t j = 0; an && j < i; j++) {
            const char *bn = name_in(json_object_array_get_idx(opts, j), NULL);
            if (bn && strcmp(an, bn) == 0) {
                item(at, sizeof at, path, "options", i);
                fail(e, sub(fat, sizeof fat, at, "name"),
                     "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME", "Option names must be unique");
            }
        }
    }
}

/* An option anywhere in a command, and its path. */
struct named {
    struct json_object *o;
    char path[256];
};

/* Appends the options under parent (at path), depth first, to *list. */
static void collect(struct json_object *parent, const char *path, struct named **list, size_t *n,
                    size_t *cap)
{
    struct json_object *opts = json_object_object_get(parent, "options");
    for (size_t i = 0; i < alen(opts); i++) {
        if (*n == *cap) {
            struct named *more = realloc(*list, (*cap ? *cap * 2 : 32) * sizeof **list);
            if (!more)
                return;
            *list = more;
            *cap = *cap ? *cap * 2 : 32;
        }
        struct named *it = &(*list)[(*n)++];
        char at[sizeof it->path]; /* the recursion may move *list, it->path with it */
        it->o = json_object_array_get_idx(opts, i);
        snprintf(it->path, sizeof it->path, "%s", item(at, sizeof at, path, "options", i));
        collect(it->o, at, list, n, cap);
    }
}

/*
 * Localization: a localized option name is distinct from the other options'
 * default names, and from their names in that locale, "on that command".
 * Taken over the whole command (subcommands' options too), an option of the
 * same name elsewhere (the same parameter of two subcommands) not another:
 * the strictest reading that still lets two subcommands share a parameter.
 */
static void localized_names(struct lim_errors *e, const char *path, struct json_object *c)
{
    struct named *all = NULL;
    size_t n = 0, cap = 0;
    char at[256];
    collect(c, path, &all, &n, &cap);
    for (size_t i = 0; i < n; i++) {
        struct json_object *l = json_object_object_get(all[i].o, "name_localizations");
        const char *an = name_in(all[i].o, NULL);
        if (!an || !json_object_is_type(l, json_type_object))
            continue;
        json_object_object_foreach(l, locale, v)
        {
            const char *mine = json_object_get_string(v);
            for (size_t j = 0; mine && j < n; j++) {
                const char *bn = name_in(all[j].o, NULL), *theirs = name_in(all[j].o, locale);
                if (!bn || strcmp(an, bn) == 0)
                    continue;
                if (strcmp(mine, bn) == 0 || (theirs && strcmp(mine, theirs) == 0)) {
                    fail(e, sub(at, sizeof at, all[i].path, "name_localizations"),
                         "APPLICATION_COMMAND_OPTIONS_DUPLICATE_NAME",
                         "Localized name %s (%s) is another option's name", mine, locale);
                    break;
                }
            }
        }
    }
    free(all);
}

static void options(struct lim_errors *e, const char *path, struct json_object *parent,
                    int parent_type);

/* One choice of an option of type. */
static void choice(struct lim_errors *e, const char *path, struct json_object *c, int type)
{
    char at[256];
    text(e, path, c, "name", 1, CHOICE_TEXT_MAX, true);
    localizations(e, path, c, "name", CHOICE_TEXT_MAX);
    struct json_object *v = json_object_object_get(c, "value");
    sub(at, sizeof at, path, "value");
    if (type == OPT_STRING && is_string(v))
        text(e, path, c, "value", 0, CHOICE_TEXT_MAX, true);
    else if (type == OPT_INTEGER && json_object_is_type(v, json_type_int))
        return;
    else if (type == OPT_NUMBER &&
             (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
        return;
    else
        fail(e, at, "APPLICATION_COMMAND_OPTION_CHOICE_TYPE",
             "The value's type is not the option's");
}

/* One option (a subcommand, a group or a parameter) under a parent of type
 * parent_type (0: the command). */
static void option(struct lim_errors *e, const char *path, struct json_object *o, int parent_type)
{
    char at[256];
    struct json_object *t = json_object_object_get(o, "type");
    int type = json_object_get_int(t);
    if (!json_object_is_type(t, json_type_int) || type < 1 || type > 11) {
        fail(e, sub(at, sizeof at, path, "type"), "BASE_TYPE_CHOICES",
             "Value must be one of (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11).");
        return;
    }
    bool nested = type == OPT_SUB || type == OPT_GROUP;
    /* Subcommands and Subcommand Groups: a group holds subcommands, a
     * subcommand holds parameters; nothing else nests */
    if ((parent_type == OPT_GROUP && type != OPT_SUB) || (parent_type == OPT_SUB && nested))
        fail(e, sub(at, sizeof at, path, "type"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
             "This option cannot be nested here");
    name(e, path, o);
    localizations(e, path, o, "name", 0);
    text(e, path, o, "description", 1, DESC_MAX, true);
    localizations(e, path, o, "description", DESC_MAX);
    if (nested && json_object_object_get(o, "required"))
        fail(e, sub(at, sizeof at, path, "required"), "APPLICATION_COMMAND_OPTION_REQUIRED",
             "Subcommands and groups are never required");
    struct json_object *choices = array(e, path, o, "choices", CHOICES_MAX);
    if (choices && type != OPT_STRING && type != OPT_INTEGER && type != OPT_NUMBER)
        fail(e, sub(at, sizeof at, path, "choices"), "APPLICATION_COMMAND_OPTION_CHOICES",
             "Only string, integer and number options have choices");
    for (size_t i = 0; i < alen(choices); i++) {
        char cat[256];
        choice(e, item(cat, sizeof cat, path, "choices", i), json_object_array_get_idx(choices, i),
               type);
    }
    bool autocomplete = json_object_get_boolean(json_object_object_get(o, "autocomplete"));
    if (autocomplete &&
        (alen(choices) > 0 || (type != OPT_STRING && type != OPT_INTEGER && type != OPT_NUMBER)))
        fail(e, sub(at, sizeof at, path, "autocomplete"), "APPLICATION_COMMAND_AUTOCOMPLETE",
             "Autocomplete is for string, integer and number options without choices");
    if ((json_object_object_get(o, "min_value") || json_object_object_get(o, "max_value")) &&
        type != OPT_INTEGER && type != OPT_NUMBER)
        fail(e, sub(at, sizeof at, path, "min_value"), "APPLICATION_COMMAND_OPTION_RANGE",
             "Only integer and number options have bounds");
    integer(e, path, o, "min_length", 0, STRING_LENGTH_MAX);
    integer(e, path, o, "max_length", 1, STRING_LENGTH_MAX);
    if (json_object_object_get(o, "options") && !nested)
        fail(e, sub(at, sizeof at, path, "options"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
             "Only subcommands and groups have options");
    if (nested)
        options(e, path, o, type);
}

/* The options of a command or of a subcommand or group. */
static void options(struct lim_errors *e, const char *path, struct json_object *parent,
                    int parent_type)
{
    char at[256], rat[256];
    struct json_object *opts = array(e, path, parent, "options", OPTIONS_MAX);
    bool optional_seen = false, nested = false, plain = false;
    for (size_t i = 0; i < alen(opts); i++) {
        struct json_object *o = json_object_array_get_idx(opts, i);
        int type = json_object_get_int(json_object_object_get(o, "type"));
        item(at, sizeof at, path, "options", i);
        option(e, at, o, parent_type);
        if (type == OPT_SUB || type == OPT_GROUP) {
            nested = true;
            continue;
        }
        plain = true;
        /* Option Structure: required options come before optional ones */
        bool required = json_object_get_boolean(json_object_object_get(o, "required"));
        if (required && optional_seen)
            fail(e, sub(rat, sizeof rat, at, "required"),
                 "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                 "Required options must be placed before non-required options");
        optional_seen = optional_seen || !required;
    }
    /* a command with subcommands or groups cannot be used alone, nor take
     * parameters beside them (Subcommands and Subcommand Groups) */
    if (nested && plain)
        fail(e, sub(at, sizeof at, path, "options"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID",
             "Subcommands and groups exclude other options at their level");
    unique_names(e, path, opts);
}

/* The longest of field and its localizations, in characters. */
static size_t longest(struct json_object *o, const char *field)
{
    char key[64];
    struct json_object *v = json_object_object_get(o, field);
    size_t n = is_string(v) ? lim_chars(json_object_get_string(v))
               : v          ? strlen(json_object_to_json_string(v))
                            : 0;
    snprintf(key, sizeof key, "%s_localizations", field);
    struct json_object *l = json_object_object_get(o, key);
    if (json_object_is_type(l, json_type_object)) {
        json_object_object_foreach(l, locale, t)
        {
            (void)locale;
            if (is_string(t) && lim_chars(json_object_get_string(t)) > n)
                n = lim_chars(json_object_get_string(t));
        }
    }
    return n;
}

static size_t options_size(struct json_object *parent)
{
    size_t n = 0;
    struct json_object *opts = json_object_object_get(parent, "options");
    for (size_t i = 0; i < alen(opts); i++) {
        struct json_object *o = json_object_array_get_idx(opts, i);
        struct json_object *choices = json_object_object_get(o, "choices");
        n += longest(o, "name") + longest(o, "description") + options_size(o);
        for (size_t c = 0; c < alen(choices); c++)
            n += longest(json_object_array_get_idx(choices, c), "name") +
                 longest(json_object_array_get_idx(choices, c), "value");
    }
    return n;
}

size_t lim_command_size(struct json_object *command)
{
    return longest(command, "name") + longest(command, "description") + options_size(command);
}

/* Array field k of o: values 0 to max, each once at most. */
static void small_values(struct lim_errors *e, const char *path, struct json_object *o,
                         const char *k, int max)
{
    char at[256];
    unsigned seen = 0;
    struct json_object *list = array(e, path, o, k, (size_t)max + 1);
    for (size_t i = 0; i < alen(list); i++) {
        struct json_object *v = json_object_array_get_idx(list, i);
        int n = json_object_get_int(v);
        if (!json_object_is_type(v, json_type_int) || n < 0 || n > max)
            fail(e, item(at, sizeof at, path, k, i), "BASE_TYPE_CHOICES",
                 "Value must be one of 0 to %d.", max);
        else if (seen & (1u << n))
            fail(e, item(at, sizeof at, path, k, i), "SET_TYPE_ALREADY_CONTAINS_VALUE",
                 "The set already contains %d.", n);
        else
            seen |= 1u << n;
    }
}

static void command(struct lim_errors *e, const char *path, struct json_object *c)
{
    if (!json_object_is_type(c, json_type_object)) {
        fail(e, path, "DICT_TYPE_CONVERT", "Only dictionaries may be used in a DictType");
        return;
    }
    int type = json_object_object_get(c, "type")
                   ? json_object_get_int(json_object_object_get(c, "type"))
                   : 1;
    if (type != 1)
        return; /* the bot registers slash commands only; others are not checked */
    name(e, path, c);
    localizations(e, path, c, "name", 0);
    text(e, path, c, "description", 1, DESC_MAX, true);
    localizations(e, path, c, "description", DESC_MAX);
    options(e, path, c, 0);
    localized_names(e, path, c);
    /* application-commands, Slash Commands: the combined size */
    if (lim_command_size(c) > COMMAND_SIZE_MAX)
        fail(e, path, "APPLICATION_COMMAND_TOO_LARGE", "Command exceeds maximum size (%d)",
             COMMAND_SIZE_MAX);
    /* contexts and integration types: the values their tables list */
    small_values(e, path, c, "contexts", 2);
    small_values(e, path, c, "integration_types", 1);
}

void lim_commands(struct lim_errors *e, struct json_object *commands)
{
    char at[32], nat[48];
    if (!json_object_is_type(commands, json_type_array)) {
        fail(e, "", "BASE_TYPE_ARRAY", "Must be an array.");
        return;
    }
    /* Registering a Command: 100 slash commands in a scope, one name each */
    size_t n = json_object_array_length(commands), slash = 0;
    for (size_t i = 0; i < n; i++) {
        struct json_object *c = json_object_array_get_idx(commands, i);
        snprintf(at, sizeof at, "%zu", i);
        command(e, at, c);
        struct json_object *t = json_object_object_get(c, "type");
        if (t && json_object_get_int(t) != 1)
            continue;
        slash++;
        for (size_t j = 0; j < i; j++) {
            struct json_object *d = json_object_array_get_idx(commands, j);
            struct json_object *dt = json_object_object_get(d, "type");
            const char *a = name_in(c, NULL), *b = name_in(d, NULL);
            if ((!dt || json_object_get_int(dt) == 1) && a && b && strcmp(a, b) == 0)
                fail(e, sub(nat, sizeof nat, at, "name"), "APPLICATION_COMMANDS_DUPLICATE_NAME",
                     "Application command names must be unique");
        }
    }
    if (slash > COMMANDS_MAX)
        fail(e, "", "BASE_TYPE_MAX_LENGTH", "Must be %d or fewer in length.", COMMANDS_MAX);
}
