/*
 * skim_ix.c - an INTERACTION_CREATE read from its text (skim_ix.h).
 *
 * Without the message content intent, slash commands are how people play,
 * and json-c's parse and free of a whole interaction cost about a third of
 * a command's instructions. The walk here (skim.c's, skim_walk.h) keeps
 * where the members the adapter reads are, and gives up on anything it
 * does not read exactly as json-c would: the full parse then reads it.
 */
#include <string.h>

#include "skim_ix.h"
#include "skim_walk.h"

static bool same(const struct span *v, const char *word)
{
    return v->len == strlen(word) && memcmp(v->start, word, v->len) == 0;
}

/* A value's span as the adapter reads a string: none when it is no string. */
static struct gw_span string_of(const struct span *v)
{
    if (v->start[0] != '"')
        return (struct gw_span){0};
    return (struct gw_span){v->start + 1, v->len - 2, v->escaped};
}

/*
 * An integer as json-c reads it into *out: *integer false for any other
 * value (a fraction or an exponent makes a double). False when unsure: more
 * digits than fit surely, or "-0" (json-c writes it back as "0").
 */
static bool read_int(const struct span *v, bool *integer, int64_t *out)
{
    const char *p = v->start, *end = v->start + v->len;
    *integer = false;
    *out = 0;
    if (p == end || (*p != '-' && (*p < '0' || *p > '9')))
        return true;
    for (const char *q = p; q < end; q++)
        if (*q == '.' || *q == 'e' || *q == 'E')
            return true;
    bool negative = *p == '-';
    p += negative;
    if (end - p < 1 || end - p > 18)
        return false;
    int64_t x = 0;
    for (; p < end; p++)
        x = x * 10 + (*p - '0');
    if (negative && x == 0)
        return false;
    *out = negative ? -x : x;
    *integer = true;
    return true;
}

/* Marks key number bit of an object read; false when it came before (json-c
 * would keep the last: the full parse reads it). */
static bool first_time(unsigned *seen, unsigned bit)
{
    if (*seen & (1u << bit))
        return false;
    *seen |= 1u << bit;
    return true;
}

/* The string member at c into *out. */
static bool take_string(struct cursor *c, unsigned depth, struct gw_span *out)
{
    struct span v;
    if (!skip_value(c, depth, &v))
        return false;
    *out = string_of(&v);
    return true;
}

/* The integer member at c into *out (0 when of another type). */
static bool take_int(struct cursor *c, unsigned depth, int64_t *out)
{
    struct span v;
    bool integer;
    return skip_value(c, depth, &v) && read_int(&v, &integer, out);
}

/* The object member at c, its members each to fn; *object says whether it
 * is one (else it is passed over). */
static bool take_object(struct cursor *c, unsigned depth, bool *object, const struct member_fn *fn)
{
    struct span v;
    *object = c->p < c->end && *c->p == '{';
    return *object ? each_member(c, depth, fn) : skip_value(c, depth, &v);
}

/* The array member at c into *out, its text; start NULL when it is none. */
static bool take_array(struct cursor *c, unsigned depth, struct span *out)
{
    if (!skip_value(c, depth, out))
        return false;
    if (out->start[0] != '[')
        out->start = NULL;
    return true;
}

/* ---- the user, the member, the message ---- */

struct user {
    unsigned seen;
    bool object;
    struct gw_span id, username, global_name;
};

static bool take_user(void *arg, const struct span *key, struct cursor *c, unsigned depth)
{
    struct user *u = arg;
    struct span v;
    if (same(key, "id"))
        return first_time(&u->seen, 0) && take_string(c, depth, &u->id);
    if (same(key, "username"))
        return first_time(&u->seen, 1) && take_string(c, depth, &u->username);
    if (same(key, "global_name"))
        return first_time(&u->seen, 2) && take_string(c, depth, &u->global_name);
    return skip_value(c, depth, &v);
}

/* A user object member at c into u. */
static bool user_at(struct cursor *c, unsigned depth, struct user *u)
{
    struct member_fn fn = {take_user, u};
    return take_object(c, depth, &u->object, &fn);
}

struct member {
    unsigned seen;
    struct gw_interaction *ix;
    struct user user;
};

static bool take_member(void *arg, const struct span *key, struct cursor *c, unsigned depth)
{
    struct member *m = arg;
    struct span v;
    if (same(key, "nick"))
        return first_time(&m->seen, 0) && take_string(c, depth, &m->ix->nick);
    if (same(key, "permissions"))
        return first_time(&m->seen, 1) && take_string(c, depth, &m->ix->permissions);
    if (same(key, "roles")) {
        if (!first_time(&m->seen, 2) || !take_array(c, depth, &v))
            return false;
        if (v.start)
            m->ix->roles = (struct gw_span){v.start + 1, v.len - 2, false};
        return true;
    }
    if (same(key, "user"))
        return first_time(&m->seen, 3) && user_at(c, depth, &m->user);
    return skip_value(c, depth, &v);
}

static bool take_message(void *arg, const struct span *key, struct cursor *c, unsigned depth)
{
    struct user *u = arg; /* its id alone */
    struct span v;
    if (same(key, "id"))
        return first_time(&u->seen, 0) && take_string(c, depth, &u->id);
    return skip_value(c, depth, &v);
}

/* ---- the command's options ---- */

/* An option as read: what the adapter reads of a leaf's, and what leads to
 * a subcommand's. */
struct option {
    unsigned seen;
    struct gw_ix_option out;
    int64_t type;
    struct span options; /* start NULL: no array */
};

static bool take_option(void *arg, const struct span *key, struct cursor *c, unsigned depth)
{
    struct option *o = arg;
    struct span v;
    if (same(key, "name"))
        return first_time(&o->seen, 0) && take_string(c, depth, &o->out.name);
    if (same(key, "type"))
        return first_time(&o->seen, 1) && take_int(c, depth, &o->type);
    if (same(key, "options"))
        return first_time(&o->seen, 2) && take_array(c, depth, &o->options);
    if (!same(key, "value") && !same(key, "focused"))
        return skip_value(c, depth, &v);
    if (!first_time(&o->seen, same(key, "value") ? 3 : 4) || !skip_value(c, depth, &v))
        return false;
    if (same(key, "focused")) {
        o->out.focused = same(&v, "true");
        return true;
    }
    int64_t n;
    o->out.value = string_of(&v);
    if (!read_int(&v, &o->out.integer, &n))
        return false;
    if (o->out.integer)
        o->out.value = (struct gw_span){v.start, v.len, false};
    return true;
}

/* The elements of the array text arr into list (at most GW_IX_LIST_MAX, or
 * false); an element that is no object reads as one with no members. */
static bool read_options(const struct span *arr, unsigned depth, struct option *list, unsigned *n)
{
    struct cursor c = {arr->start + 1, arr->start + arr->len - 1};
    *n = 0;
    skip_ws(&c);
    while (c.p < c.end) {
        if (*n == GW_IX_LIST_MAX)
            return false;
        struct option *o = &list[(*n)++];
        *o = (struct option){0};
        bool object;
        struct member_fn fn = {take_option, o};
        if (!take_object(&c, depth, &object, &fn))
            return false;
        skip_ws(&c);
        if (c.p < c.end && *c.p == ',')
            c.p++;
        skip_ws(&c);
    }
    return true;
}

/* The strings of the array text arr into ix->values, a non-string's p NULL. */
static bool read_values(const struct span *arr, unsigned depth, struct gw_interaction *ix)
{
    struct cursor c = {arr->start + 1, arr->start + arr->len - 1};
    skip_ws(&c);
    while (c.p < c.end) {
        struct span v;
        if (ix->nvalues == GW_IX_LIST_MAX || !skip_value(&c, depth, &v))
            return false;
        ix->values[ix->nvalues++] = string_of(&v);
        skip_ws(&c);
        if (c.p < c.end && *c.p == ',')
            c.p++;
        skip_ws(&c);
    }
    return true;
}

/* ---- the data ---- */

struct data {
    unsigned seen;
    struct gw_interaction *ix;
    struct span options, values; /* start NULL: no array */
    unsigned depth;              /* where its arrays are */
};

static bool take_data(void *arg, const struct span *key, struct cursor *c, unsigned depth)
{
    struct data *d = arg;
    struct span v;
    d->depth = depth;
    if (same(key, "name"))
        return first_time(&d->seen, 0) && take_string(c, depth, &d->ix->leaf);
    if (same(key, "type"))
        return first_time(&d->seen, 1) && take_int(c, depth, &d->ix->data_type);
    if (same(key, "options"))
        return first_time(&d->seen, 2) && take_array(c, depth, &d->options);
    if (same(key, "custom_id"))
        return first_time(&d->seen, 3) && take_string(c, depth, &d->ix->custom_id);
    if (same(key, "values"))
        return first_time(&d->seen, 4) && take_array(c, depth, &d->values);
    return skip_value(c, depth, &v);
}

/* The leaf the data names and its options: a group's first subcommand's, a
 * subcommand's own (slash.c registers no deeper). */
static bool read_leaf(struct data *d)
{
    struct option list[GW_IX_LIST_MAX];
    unsigned n = 0;
    struct span arr = d->options;
    for (int level = 0; arr.start; level++) {
        if (!read_options(&arr, d->depth + 1 + (unsigned)level, list, &n))
            return false;
        if (level == GW_IX_SUB_DEPTH || n == 0 ||
            (list[0].type != GW_IX_OPT_SUB && list[0].type != GW_IX_OPT_GROUP))
            break;
        d->ix->leaf = list[0].out.name;
        arr = list[0].options;
        n = 0;
    }
    for (unsigned i = 0; i < n; i++)
        d->ix->options[i] = list[i].out;
    d->ix->noptions = n;
    return !d->values.start || read_values(&d->values, d->depth + 1, d->ix);
}

/* ---- the interaction ---- */

struct reading {
    unsigned seen;
    struct gw_interaction *ix;
    struct member member;
    struct user user, message;
    struct data data;
};

/* d's members the adapter reads, by name; their bits in reading.seen. */
static bool take_d(void *arg, const struct span *key, struct cursor *c, unsigned depth)
{
    struct reading *r = arg;
    struct gw_interaction *ix = r->ix;
    static const struct {
        const char *name;
        size_t at;
    } strings[] = {
        {"id", offsetof(struct gw_interaction, id)},
        {"token", offsetof(struct gw_interaction, token)},
        {"application_id", offsetof(struct gw_interaction, application_id)},
        {"guild_id", offsetof(struct gw_interaction, guild_id)},
        {"channel_id", offsetof(struct gw_interaction, channel_id)},
        {"locale", offsetof(struct gw_interaction, locale)},
    };
    enum { NSTRINGS = sizeof strings / sizeof *strings };
    for (unsigned i = 0; i < NSTRINGS; i++)
        if (same(key, strings[i].name))
            return first_time(&r->seen, i) &&
                   take_string(c, depth, (struct gw_span *)(void *)((char *)ix + strings[i].at));
    struct member_fn member = {take_member, &r->member}, data = {take_data, &r->data},
                     message = {take_message, &r->message};
    if (same(key, "type"))
        return first_time(&r->seen, NSTRINGS) && take_int(c, depth, &ix->type);
    if (same(key, "member"))
        return first_time(&r->seen, NSTRINGS + 1) && take_object(c, depth, &ix->member, &member);
    if (same(key, "user"))
        return first_time(&r->seen, NSTRINGS + 2) && user_at(c, depth, &r->user);
    if (same(key, "data")) {
        bool object;
        return first_time(&r->seen, NSTRINGS + 3) && take_object(c, depth, &object, &data);
    }
    if (same(key, "message")) {
        return first_time(&r->seen, NSTRINGS + 4) &&
               take_object(c, depth, &r->message.object, &message);
    }
    struct span v;
    return skip_value(c, depth, &v);
}

/* What the walk read of a gateway message: op, s and t, and d: read as the
 * walk passes it when t came first (as Discord sends it), else its text,
 * read after. */
struct top {
    unsigned seen;
    struct span op, s, t, d;
    bool d_read;
    struct reading *r;
};

/* d's members the adapter reads, from the object at c. */
static bool read_d(struct reading *r, struct cursor *c, unsigned depth)
{
    struct member_fn fn = {take_d, r};
    return each_member(c, depth, &fn);
}

/* Notes op, s, t and d, giving up as soon as the message is no
 * INTERACTION_CREATE dispatch. */
static bool take_top(void *arg, const struct span *key, struct cursor *c, unsigned depth)
{
    struct top *t = arg;
    struct span v;
    if (same(key, "d") && (t->seen & 2u) && c->p < c->end && *c->p == '{') {
        /* t said INTERACTION_CREATE: d is read in this walk, not a second */
        const char *start = c->p;
        if (!first_time(&t->seen, 3) || !read_d(t->r, c, depth))
            return false;
        t->d = (struct span){start, (size_t)(c->p - start), false};
        t->d_read = true;
        return true;
    }
    if (!skip_value(c, depth, &v))
        return false;
    if (same(key, "op"))
        return first_time(&t->seen, 0) && same(&v, "0") && (t->op = v, true);
    if (same(key, "t"))
        return first_time(&t->seen, 1) && same(&v, "\"INTERACTION_CREATE\"") && (t->t = v, true);
    if (same(key, "s"))
        return first_time(&t->seen, 2) && (t->s = v, true);
    if (same(key, "d"))
        return first_time(&t->seen, 3) && (t->d = v, true);
    return true;
}

/* The sequence as gw_decode() reads it: an integer's, else 0; never below 0. */
static bool read_seq(const struct top *t, int64_t *seq)
{
    bool integer;
    *seq = 0;
    if (!(t->seen & 4u))
        return true;
    if (!read_int(&t->s, &integer, seq))
        return false;
    if (*seq < 0)
        *seq = 0;
    return true;
}

/* The user the adapter reads: member's when member is an object, else d's. */
static void choose_user(const struct reading *r, struct gw_interaction *ix)
{
    const struct user *u = ix->member ? &r->member.user : &r->user;
    ix->user_id = u->id;
    ix->username = u->username;
    ix->global_name = u->global_name;
}

bool gw_skim_ix(const char *txt, size_t len, int64_t *seq, struct gw_interaction *ix)
{
    struct cursor c = {txt, txt + len};
    *ix = (struct gw_interaction){0};
    struct reading r = {.ix = ix, .member = {.ix = ix}, .data = {.ix = ix}};
    struct top top = {.r = &r};
    struct member_fn top_fn = {take_top, &top};
    if (!each_member(&c, 0, &top_fn))
        return false;
    skip_ws(&c);
    if (c.p != c.end || (top.seen & 11u) != 11u || top.d.start[0] != '{' || !read_seq(&top, seq))
        return false;
    struct cursor d = {top.d.start, top.d.start + top.d.len};
    if ((!top.d_read && !read_d(&r, &d, 1)) || !read_leaf(&r.data))
        return false;
    choose_user(&r, ix);
    ix->message_id = r.message.id;
    return true;
}
