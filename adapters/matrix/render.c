/*
 * render.c - outbound messages as Matrix event contents.
 *
 * What the bot says is an m.notice (the convention for bots: clients and
 * other bots never answer notices, and the default push rule
 * .m.rule.suppress_notices keeps them silent) with a plain body and an HTML
 * formatted_body where players' names are bold. A message that asks players
 * to act (a ping: data "mentions") is an m.text instead, with those players
 * as pills in formatted_body (in place when the text names them, else before
 * it) and in m.mentions, so that their clients notify them. Hands are
 * replaced in place with m.replace edits, which notify nobody again; the drop
 * gets one m.annotation per card; a tribunal vote can be a poll in the
 * unstable MSC3381 form that clients implement.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "bot/util/buf.h"
#include "core/catalog.h"
#include "mx.h"

/* The longest formatted text built (a Matrix event is at most 64 KiB anyway). */
#define MX_HTML_MAX (1u << 20)

/*
 * A capped buffer whose first failed append (too long, no memory) sticks:
 * the many appends of an HTML text go unchecked, and sb_take says at the end
 * whether the text is whole.
 */
struct sbuf {
    struct buf b;
    bool failed;
};

static void sb_init(struct sbuf *b)
{
    buf_init(&b->b, MX_HTML_MAX);
    b->failed = false;
}

static void sb_add(struct sbuf *b, const char *s, size_t n)
{
    if (!b->failed && buf_append(&b->b, s, n) < 0)
        b->failed = true;
}

static void sb_puts(struct sbuf *b, const char *s)
{
    sb_add(b, s, strlen(s));
}

/* The text (malloc'd; "" when nothing was added), or NULL when an append failed. */
static char *sb_take(struct sbuf *b)
{
    sb_add(b, "", 0); /* an empty text is "", not NULL */
    if (b->failed) {
        buf_free(&b->b);
        return NULL;
    }
    return buf_take(&b->b);
}

/* Escapes one line of text for HTML, without newline handling. */
static void sb_escape(struct sbuf *b, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&':
            sb_puts(b, "&amp;");
            break;
        case '<':
            sb_puts(b, "&lt;");
            break;
        case '>':
            sb_puts(b, "&gt;");
            break;
        case '"':
            sb_puts(b, "&quot;");
            break;
        case '\'':
            sb_puts(b, "&#39;");
            break;
        default:
            sb_add(b, s + i, 1);
        }
    }
}

char *mx_html_escape(const char *text)
{
    struct sbuf b;
    sb_init(&b);
    sb_escape(&b, text, strlen(text));
    return sb_take(&b);
}

/* The players a message names, from the {"id","name"} objects of its data,
 * and whether each is one the message asks to act (data "mentions"). */
#define MX_NAMES_MAX 32

struct names {
    const char *id[MX_NAMES_MAX], *name[MX_NAMES_MAX];
    bool mention[MX_NAMES_MAX];
    size_t n;
};

static bool listed(const struct json_object *list, const char *id)
{
    for (size_t i = 0; i < jarr_len(list); i++) {
        const char *v = jarr_str(list, i);
        if (v && strcmp(v, id) == 0)
            return true;
    }
    return false;
}

/* Walks data (a few levels: players sit in arrays and objects of it). */
static void gather_names(struct json_object *o, const struct json_object *mentions,
                         struct names *out, int depth)
{
    if (!o || depth > 3)
        return;
    if (json_object_is_type(o, json_type_array)) {
        for (size_t i = 0; i < json_object_array_length(o); i++)
            gather_names(json_object_array_get_idx(o, i), mentions, out, depth + 1);
        return;
    }
    if (!json_object_is_type(o, json_type_object))
        return;
    const char *id = jget_str(o, "id"), *name = jget_str(o, "name");
    if (id && name && *name) {
        for (size_t i = 0; i < out->n; i++)
            if (strcmp(out->id[i], id) == 0)
                return;
        if (out->n == MX_NAMES_MAX)
            return;
        out->id[out->n] = id;
        out->name[out->n] = name;
        out->mention[out->n] = listed(mentions, out->id[out->n]);
        out->n++;
        return;
    }
    json_object_object_foreach(o, k, v)
    {
        (void)k;
        gather_names(v, mentions, out, depth + 1);
    }
}

static bool word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-';
}

/* The longest name of `names` that starts at s (and ends there as a word), or -1. */
static int name_at(const struct names *names, const char *line, const char *s, const char *end)
{
    int best = -1;
    size_t best_len = 0;
    if (s > line && word_char(s[-1]))
        return -1;
    for (size_t i = 0; i < names->n; i++) {
        size_t len = strlen(names->name[i]);
        if (len > best_len && len <= (size_t)(end - s) && strncmp(s, names->name[i], len) == 0 &&
            (s + len == end || !word_char(s[len]))) {
            best = (int)i;
            best_len = len;
        }
    }
    return best;
}

/* One line: names in bold, players asked to act as pills (mentions). */
static void line_html(struct sbuf *b, const char *p, size_t n, const struct names *names)
{
    const char *end = p + n, *plain = p;
    for (const char *s = p; s < end;) {
        int who = name_at(names, p, s, end);
        if (who < 0) {
            s++;
            continue;
        }
        sb_escape(b, plain, (size_t)(s - plain));
        if (names->mention[who]) {
            sb_puts(b, "<a href=\"https://matrix.to/#/");
            sb_escape(b, names->id[who], strlen(names->id[who]));
            sb_puts(b, "\">");
            sb_escape(b, names->name[who], strlen(names->name[who]));
            sb_puts(b, "</a>");
        } else {
            sb_puts(b, "<b>");
            sb_escape(b, names->name[who], strlen(names->name[who]));
            sb_puts(b, "</b>");
        }
        s += strlen(names->name[who]);
        plain = s;
    }
    sb_escape(b, plain, (size_t)(end - plain));
}

/* Whether the text names player who (so that a pill goes in place). */
static bool named_in(const char *text, const struct names *names, size_t who)
{
    const char *line = text;
    for (const char *s = text; *s; s++) {
        if (*s == '\n')
            line = s + 1;
        if (name_at(names, line, s, s + strlen(s)) == (int)who)
            return true;
    }
    return false;
}

/* Pills, before the text, for the players a ping asks to act that the text does not name. */
static void prefix_pills(struct sbuf *b, const char *text, const struct names *names)
{
    bool any = false;
    for (size_t i = 0; i < names->n; i++) {
        if (!names->mention[i] || named_in(text, names, i))
            continue;
        sb_puts(b, any ? ", " : "");
        sb_puts(b, "<a href=\"https://matrix.to/#/");
        sb_escape(b, names->id[i], strlen(names->id[i]));
        sb_puts(b, "\">");
        sb_escape(b, names->name[i], strlen(names->name[i]));
        sb_puts(b, "</a>");
        any = true;
    }
    if (any)
        sb_puts(b, ": ");
}

/*
 * The HTML form of a message, line by line. Bold marks headings and names
 * only: the first line of a structured message (lobby, hand, offer, drop,
 * vote, result) is its heading when more lines follow it.
 */
static char *to_html(const char *text, bool structured, const struct names *names)
{
    struct sbuf b;
    sb_init(&b);
    prefix_pills(&b, text, names);
    const char *p = text;
    bool first = true;
    bool heading = structured && strchr(text, '\n');
    while (*p || first) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        if (!first)
            sb_puts(&b, "<br>");
        if (first && heading && n > 0) {
            sb_puts(&b, "<b>");
            sb_escape(&b, p, n);
            sb_puts(&b, "</b>");
        } else {
            line_html(&b, p, n, names);
        }
        first = false;
        if (!nl)
            break;
        p = nl + 1;
    }
    return sb_take(&b);
}

/* "m.mentions": the Matrix users data asks to act. Always present, so that a
 * display name in the text never notifies anyone by accident. */
static struct json_object *mentions_json(const struct json_object *data)
{
    struct json_object *m = json_object_new_object();
    struct json_object *list = jget_arr(data, "mentions"), *ids = NULL;
    if (!data)
        return m;
    for (size_t i = 0; i < jarr_len(list); i++) {
        const char *v = jarr_str(list, i);
        if (!v || v[0] != '@')
            continue;
        if (!ids)
            ids = json_object_new_array();
        json_object_array_add(ids, json_object_get(jarr_at(list, i)));
    }
    if (ids)
        json_object_object_add(m, "user_ids", ids);
    return m;
}

/* Adds each Matrix user of list not gathered yet, with their name from known or their
 * localpart, so that a ping names whom it mentions even when its data carries no players. */
static void add_mentioned(struct names *names, const struct json_object *list,
                          const struct json_object *known, char (*local)[64])
{
    for (size_t i = 0; i < jarr_len(list) && names->n < MX_NAMES_MAX; i++) {
        const char *id = jarr_str(list, i);
        bool have = false;
        for (size_t k = 0; id && k < names->n; k++)
            have = have || strcmp(names->id[k], id) == 0;
        if (!id || id[0] != '@' || have)
            continue;
        const char *name = jget_str(known, id);
        if (!name) {
            size_t n = strcspn(id + 1, ":");
            snprintf(local[names->n], 64, "%.*s", (int)(n < 63 ? n : 63), id + 1);
            name = local[names->n];
        }
        names->id[names->n] = id;
        names->name[names->n] = name;
        names->mention[names->n] = true;
        names->n++;
    }
}

struct json_object *mx_render_message(const char *text, enum outbound_kind kind,
                                      const struct json_object *data, bool ping,
                                      const struct json_object *known)
{
    struct names names = {0};
    char local[MX_NAMES_MAX][64];
    struct json_object *mentions = ping ? jget(data, "mentions") : NULL;
    bool structured = kind != OUT_NOTICE && kind != OUT_ERROR && kind != OUT_GAME_OVER;
    gather_names((struct json_object *)data, mentions, &names, 0);
    if (ping)
        add_mentioned(&names, mentions, known, local);
    char *html = to_html(text ? text : "", structured, &names);
    if (!html)
        return NULL;
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "msgtype", json_object_new_string(ping ? "m.text" : "m.notice"));
    json_object_object_add(c, "body", json_object_new_string(text ? text : ""));
    json_object_object_add(c, "format", json_object_new_string("org.matrix.custom.html"));
    json_object_object_add(c, "formatted_body", json_object_new_string(html));
    json_object_object_add(c, "m.mentions", mentions_json(ping ? data : NULL));
    free(html);
    return c;
}

/* Member k of o if it is a string, else "". */
static const char *str_field(const struct json_object *o, const char *k)
{
    const char *s = jget_str(o, k);
    return s ? s : "";
}

struct json_object *mx_render_edit(struct json_object *new_content, const char *event_id)
{
    struct json_object *c = json_object_new_object();
    char *body = NULL, *html = NULL;
    const char *b = str_field(new_content, "body");
    const char *f = str_field(new_content, "formatted_body");
    size_t bl = strlen(b) + 3, fl = strlen(f) + 3;
    body = malloc(bl);
    html = malloc(fl);
    if (!body || !html) {
        free(body);
        free(html);
        json_object_put(c);
        json_object_put(new_content);
        return NULL;
    }
    /* The fallback for clients without edits: "* " and the new text. A notice, whatever the new
     * content is: an edit notifies nobody again, by any server's push rules. */
    snprintf(body, bl, "* %s", b);
    snprintf(html, fl, "* %s", f);
    json_object_object_add(c, "msgtype", json_object_new_string("m.notice"));
    json_object_object_add(c, "body", json_object_new_string(body));
    json_object_object_add(c, "format", json_object_new_string("org.matrix.custom.html"));
    json_object_object_add(c, "formatted_body", json_object_new_string(html));
    /* The new content mentions whom it mentions; the edit itself notifies
     * nobody again. */
    json_object_object_add(c, "m.mentions", json_object_new_object());
    free(body);
    free(html);
    json_object_object_add(c, "m.new_content", new_content);
    struct json_object *rel = json_object_new_object();
    json_object_object_add(rel, "rel_type", json_object_new_string("m.replace"));
    json_object_object_add(rel, "event_id", json_object_new_string(event_id));
    json_object_object_add(c, "m.relates_to", rel);
    return c;
}

struct json_object *mx_render_reaction(const char *event_id, const char *key)
{
    struct json_object *c = json_object_new_object();
    struct json_object *rel = json_object_new_object();
    json_object_object_add(rel, "rel_type", json_object_new_string("m.annotation"));
    json_object_object_add(rel, "event_id", json_object_new_string(event_id));
    json_object_object_add(rel, "key", json_object_new_string(key));
    json_object_object_add(c, "m.relates_to", rel);
    return c;
}

void mx_choice_label(const struct json_object *data, const struct json_object *choice, char *out,
                     size_t len)
{
    msg_choice_label(choice, jget_str(data, "lang"), out, len);
    if (!*out)
        snprintf(out, len, "%s", str_field(choice, "command"));
}

/*
 * A poll for a ballot: one answer per choice of data.choices that has a
 * command ("vote alice", "abstain"). *answers receives {answer id: command},
 * the map the adapter keeps to turn responses back into commands.
 */
struct json_object *mx_render_poll(const char *text, const struct json_object *data,
                                   struct json_object **answers)
{
    struct json_object *choices = jget_arr(data, "choices");
    *answers = NULL;
    if (jarr_len(choices) == 0)
        return NULL;
    /* the core's poll question says that everyone sees each answer; the table text says the
     * votes are secret, which a poll's are not */
    const char *question = jget_str(data, "poll_question");
    if (!question || !*question)
        question = text && *text ? text : "Vote";
    size_t qlen = strcspn(question, "\n");
    char *q = strndup(question, qlen);
    if (!q)
        return NULL;
    struct json_object *list = json_object_new_array();
    struct json_object *map = json_object_new_object();
    struct sbuf fb;
    sb_init(&fb);
    sb_puts(&fb, q);
    size_t n = jarr_len(choices);
    if (n > 20) /* clients show at most 20 answers */
        n = 20;
    for (size_t i = 0; i < n; i++) {
        const char *act = jget_str(jarr_at(choices, i), "command");
        if (!act)
            continue;
        char id[32], line[320], label[256];
        snprintf(id, sizeof(id), "a%zu", i + 1);
        mx_choice_label(data, jarr_at(choices, i), label, sizeof label);
        struct json_object *ans = json_object_new_object();
        json_object_object_add(ans, "id", json_object_new_string(id));
        json_object_object_add(ans, "org.matrix.msc1767.text", json_object_new_string(label));
        json_object_array_add(list, ans);
        json_object_object_add(map, id, json_object_new_string(act));
        snprintf(line, sizeof(line), "\n%zu. %s", i + 1, label);
        sb_puts(&fb, line);
    }
    char *fallback = sb_take(&fb);
    if (!fallback) {
        free(q);
        json_object_put(list);
        json_object_put(map);
        return NULL;
    }
    struct json_object *start = json_object_new_object();
    struct json_object *question_o = json_object_new_object();
    json_object_object_add(question_o, "org.matrix.msc1767.text", json_object_new_string(q));
    json_object_object_add(start, "question", question_o);
    json_object_object_add(start, "kind",
                           json_object_new_string("org.matrix.msc3381.poll.undisclosed"));
    json_object_object_add(start, "max_selections", json_object_new_int(1));
    json_object_object_add(start, "answers", list);
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "org.matrix.msc3381.poll.start", start);
    json_object_object_add(c, "org.matrix.msc1767.text", json_object_new_string(fallback));
    json_object_object_add(c, "m.mentions", mentions_json(data)); /* the voters */
    free(q);
    free(fallback);
    *answers = map;
    return c;
}

struct json_object *mx_render_poll_end(const char *event_id, const char *text)
{
    struct json_object *c = json_object_new_object();
    json_object_object_add(c, "org.matrix.msc3381.poll.end", json_object_new_object());
    json_object_object_add(c, "org.matrix.msc1767.text", json_object_new_string(text));
    struct json_object *rel = json_object_new_object();
    json_object_object_add(rel, "rel_type", json_object_new_string("m.reference"));
    json_object_object_add(rel, "event_id", json_object_new_string(event_id));
    json_object_object_add(c, "m.relates_to", rel);
    return c;
}

/* Keycap digits 1..9 then the keycap ten: the reactions for DM votes. */
const char *mx_vote_emoji(size_t i)
{
    static const char *const keys[] = {
        "1\xef\xb8\x8f\xe2\x83\xa3", "2\xef\xb8\x8f\xe2\x83\xa3", "3\xef\xb8\x8f\xe2\x83\xa3",
        "4\xef\xb8\x8f\xe2\x83\xa3", "5\xef\xb8\x8f\xe2\x83\xa3", "6\xef\xb8\x8f\xe2\x83\xa3",
        "7\xef\xb8\x8f\xe2\x83\xa3", "8\xef\xb8\x8f\xe2\x83\xa3", "9\xef\xb8\x8f\xe2\x83\xa3",
        "\xf0\x9f\x94\x9f",
    };
    return i < sizeof(keys) / sizeof(keys[0]) ? keys[i] : NULL;
}
