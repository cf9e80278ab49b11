/*
 * po.c - a reader for the part of the gettext PO format the catalog uses.
 *
 * Line by line: a keyword line starts a field, quoted continuation lines
 * extend it, and an entry ends where the next one starts. Invariants:
 *   1. An entry is kept only with a msgid and at least one msgstr.
 *   2. msgstr[N] come in order from 0 and only after a msgid_plural.
 *   3. Every kept string is valid UTF-8 of at most PO_STRING_MAX bytes.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "po.h"

struct reader {
    struct po_file *f;
    struct po_entry cur; /* the entry being read; cur.line == 0 while none is */
    char **field;        /* the string continuation lines extend, or NULL */
    bool next_fuzzy, next_brace;
    unsigned line;
    char *why;
    size_t whylen;
};

static int fail(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct reader *r, const char *fmt, ...)
{
    int n = snprintf(r->why, r->whylen, "line %u: ", r->line);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->whylen)
        vsnprintf(r->why + n, r->whylen - (size_t)n, fmt, ap);
    va_end(ap);
    return -1;
}

static void entry_free(struct po_entry *e)
{
    free(e->ctxt);
    free(e->id);
    free(e->id_plural);
    for (unsigned i = 0; i < PO_FORMS_MAX; i++)
        free(e->str[i]);
    memset(e, 0, sizeof *e);
}

void po_free(struct po_file *f)
{
    for (size_t i = 0; i < f->n; i++)
        entry_free(&f->entries[i]);
    free(f->entries);
    f->entries = NULL;
    f->n = 0;
}

static bool utf8_valid(const unsigned char *s, size_t n)
{
    for (size_t i = 0; i < n;) {
        unsigned c = s[i], more, cp;
        if (c < 0x80)
            more = 0, cp = c;
        else if (c >= 0xC2 && c <= 0xDF)
            more = 1, cp = c & 0x1F;
        else if ((c & 0xF0) == 0xE0)
            more = 2, cp = c & 0x0F;
        else if (c >= 0xF0 && c <= 0xF4)
            more = 3, cp = c & 0x07;
        else
            return false;
        if (n - i <= more)
            return false;
        for (unsigned k = 1; k <= more; k++) {
            if ((s[i + k] & 0xC0) != 0x80)
                return false;
            cp = cp << 6 | (s[i + k] & 0x3F);
        }
        if ((more == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
            (more == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return false;
        i += more + 1;
    }
    return true;
}

/* Appends the quoted string at *p (after blanks) to *dst; nothing but blanks may follow it. */
static int append_quoted(struct reader *r, const char *p, const char *end, char **dst)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p == end || *p != '"')
        return fail(r, "a quoted string was expected");
    p++;
    size_t have = *dst ? strlen(*dst) : 0;
    char buf[PO_STRING_MAX];
    size_t n = 0;
    for (;;) {
        if (p == end)
            return fail(r, "the string has no closing quote");
        char c = *p++;
        if (c == '"')
            break;
        if (c == '\\') {
            if (p == end)
                return fail(r, "the string has no closing quote");
            switch (*p++) {
            case 'n':
                c = '\n';
                break;
            case 't':
                c = '\t';
                break;
            case '"':
                c = '"';
                break;
            case '\\':
                c = '\\';
                break;
            default:
                return fail(r, "unknown escape \\%c", p[-1]);
            }
        } else if ((unsigned char)c < 0x20 && c != '\t') {
            return fail(r, "a control character inside a string");
        }
        if (have + n + 1 >= sizeof buf)
            return fail(r, "a string longer than %d bytes", PO_STRING_MAX);
        buf[n++] = c;
    }
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    if (p != end)
        return fail(r, "text after the closing quote");
    if (!utf8_valid((const unsigned char *)buf, n))
        return fail(r, "the string is not valid UTF-8");
    char *s = realloc(*dst, have + n + 1);
    if (!s)
        return fail(r, "out of memory");
    memcpy(s + have, buf, n);
    s[have + n] = '\0';
    *dst = s;
    return 0;
}

/* Ends the current entry, if any: keeps it when complete (invariant 1). */
static int finish(struct reader *r)
{
    r->field = NULL;
    if (!r->cur.line)
        return 0;
    if (!r->cur.id || r->cur.nstr == 0) {
        r->line = r->cur.line;
        return fail(r, "an entry without %s", r->cur.id ? "msgstr" : "msgid");
    }
    if (r->f->n == PO_ENTRIES_MAX)
        return fail(r, "more than %d entries", PO_ENTRIES_MAX);
    struct po_entry *grown = realloc(r->f->entries, (r->f->n + 1) * sizeof *grown);
    if (!grown)
        return fail(r, "out of memory");
    r->f->entries = grown;
    r->f->entries[r->f->n++] = r->cur;
    memset(&r->cur, 0, sizeof r->cur);
    return 0;
}

static int start(struct reader *r)
{
    if (finish(r) < 0)
        return -1;
    r->cur.line = r->line;
    r->cur.fuzzy = r->next_fuzzy;
    r->cur.brace_format = r->next_brace;
    r->next_fuzzy = r->next_brace = false;
    return 0;
}

static void read_flags(struct reader *r, const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ' ' || *p == ','))
            p++;
        const char *w = p;
        while (p < end && *p != ' ' && *p != ',')
            p++;
        if (p - w == 5 && memcmp(w, "fuzzy", 5) == 0)
            r->next_fuzzy = true;
        else if (p - w == 19 && memcmp(w, "python-brace-format", 19) == 0)
            r->next_brace = true;
    }
}

static bool keyword(const char **p, const char *end, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(end - *p) < n || memcmp(*p, word, n) != 0)
        return false;
    if (*p + n < end && (*p)[n] != ' ' && (*p)[n] != '\t' && (*p)[n] != '[')
        return false;
    *p += n;
    return true;
}

static int read_keyword(struct reader *r, const char *p, const char *end)
{
    struct po_entry *e = &r->cur;
    if (keyword(&p, end, "msgctxt")) {
        if (start(r) < 0)
            return -1;
        r->field = &e->ctxt;
    } else if (keyword(&p, end, "msgid_plural")) {
        if (!e->line || !e->id || e->id_plural || e->nstr)
            return fail(r, "msgid_plural must follow a msgid");
        r->field = &e->id_plural;
    } else if (keyword(&p, end, "msgid")) {
        if ((!e->line || e->id) && start(r) < 0)
            return -1;
        r->field = &e->id;
    } else if (keyword(&p, end, "msgstr")) {
        if (!e->line || !e->id)
            return fail(r, "msgstr must follow a msgid");
        unsigned form = 0;
        if (p < end && *p == '[') {
            char *close;
            unsigned long v = strtoul(p + 1, &close, 10);
            if (!e->id_plural || close == p + 1 || close >= end || *close != ']' ||
                !isdigit((unsigned char)p[1]))
                return fail(r, "msgstr[N] needs a msgid_plural and a number");
            if (v != e->nstr || v >= PO_FORMS_MAX)
                return fail(r, "msgstr[%lu] out of order or past %d forms", v, PO_FORMS_MAX);
            form = (unsigned)v;
            p = close + 1;
        } else if (e->id_plural) {
            return fail(r, "a plural entry needs msgstr[N]");
        } else if (e->nstr) {
            return fail(r, "a keyword repeated in one entry");
        }
        e->nstr = form + 1;
        r->field = &e->str[form];
    } else {
        return fail(r, "unknown keyword");
    }
    /* Each field is written once: a string already there means a repeated keyword. */
    if (*r->field)
        return fail(r, "a keyword repeated in one entry");
    *r->field = calloc(1, 1);
    if (!*r->field)
        return fail(r, "out of memory");
    return append_quoted(r, p, end, r->field);
}

int po_parse(const char *text, size_t len, struct po_file *f, char *why, size_t whylen)
{
    struct reader r = {.f = f, .why = why, .whylen = whylen};
    f->entries = NULL;
    f->n = 0;
    if (whylen)
        why[0] = '\0';
    if (len > PO_FILE_MAX)
        return fail(&r, "the file is larger than %d bytes", PO_FILE_MAX);
    if (memchr(text, '\0', len))
        return fail(&r, "a NUL byte in the file");
    const char *p = text, *end = text + len;
    if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3; /* a byte order mark, as some editors write */
    while (p < end) {
        r.line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *next = eol ? eol + 1 : end;
        if (!eol)
            eol = end;
        if (eol > p && eol[-1] == '\r')
            eol--;
        const char *q = p;
        while (q < eol && (*q == ' ' || *q == '\t'))
            q++;
        int rc = 0;
        if (q == eol) {
            r.field = NULL;
        } else if (*q == '#') {
            if (q + 1 < eol && q[1] == ',') {
                if (r.cur.line && r.cur.nstr)
                    rc = finish(&r);
                read_flags(&r, q + 2, eol);
            }
            r.field = NULL;
        } else if (*q == '"') {
            rc = r.field ? append_quoted(&r, q, eol, r.field)
                         : fail(&r, "a string that continues nothing");
        } else {
            rc = read_keyword(&r, q, eol);
        }
        if (rc < 0)
            goto fail;
        p = next;
    }
    if (finish(&r) == 0)
        return 0;
fail:
    entry_free(&r.cur);
    po_free(f);
    return -1;
}

const struct po_entry *po_header(const struct po_file *f)
{
    for (size_t i = 0; i < f->n; i++)
        if (!f->entries[i].ctxt && f->entries[i].id[0] == '\0')
            return &f->entries[i];
    return NULL;
}

int po_header_field(const struct po_file *f, const char *name, char *out, size_t len)
{
    const struct po_entry *h = po_header(f);
    size_t n = strlen(name);
    for (const char *l = h ? h->str[0] : NULL; l && *l;
         l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        if (strncmp(l, name, n) != 0 || l[n] != ':')
            continue;
        const char *v = l + n + 1;
        while (*v == ' ')
            v++;
        size_t vlen = strcspn(v, "\n");
        while (vlen && v[vlen - 1] == ' ')
            vlen--;
        snprintf(out, len, "%.*s", (int)vlen, v);
        return 0;
    }
    return -1;
}

/* ---- Plural-Forms formulas ---- */

#define PLURAL_DEPTH_MAX 32

struct formula {
    const char *p;
    char *out;
    size_t len, n;
    unsigned depth;
    const char *why;
};

/* Keeps the first error: what follows it is only its consequence. */
static void oops(struct formula *x, const char *why)
{
    if (!x->why)
        x->why = why;
}

static void emit(struct formula *x, const char *s, size_t n)
{
    if (x->n + n >= x->len) {
        oops(x, "the formula is too long");
        return;
    }
    memcpy(x->out + x->n, s, n);
    x->n += n;
    x->out[x->n] = '\0';
}

static void blanks(struct formula *x)
{
    while (*x->p == ' ' || *x->p == '\t')
        x->p++;
}

/* Consumes operator op when it is next (and not the start of a longer one). */
static bool take(struct formula *x, const char *op)
{
    blanks(x);
    size_t n = strlen(op);
    if (strncmp(x->p, op, n) != 0)
        return false;
    if (n == 1 && strchr("<>=!&|", op[0]) && (x->p[1] == '=' || x->p[1] == op[0]) &&
        !(op[0] == '!' && x->p[1] == '!'))
        return false;
    x->p += n;
    return true;
}

static void ternary(struct formula *x);

static void primary(struct formula *x)
{
    blanks(x);
    if (take(x, "!")) {
        emit(x, "!", 1);
        primary(x);
    } else if (take(x, "(")) {
        emit(x, "(", 1);
        ternary(x);
        if (!take(x, ")"))
            oops(x, "a parenthesis is not closed");
        emit(x, ")", 1);
    } else if (*x->p == 'n') {
        x->p++;
        emit(x, "n", 1);
    } else if (isdigit((unsigned char)*x->p)) {
        const char *d = x->p;
        while (isdigit((unsigned char)*x->p))
            x->p++;
        if (x->p - d > 9)
            oops(x, "a number is too large");
        emit(x, d, (size_t)(x->p - d));
        emit(x, "UL", 2);
    } else {
        oops(x, "n, a number or a parenthesis was expected");
    }
}

/* One level of binary operators: operands are parsed by next. */
static void binary(struct formula *x, const char *const *ops, void (*next)(struct formula *))
{
    emit(x, "(", 1);
    next(x);
    for (bool more = true; more && !x->why;) {
        more = false;
        for (const char *const *op = ops; *op; op++) {
            if (!take(x, *op))
                continue;
            emit(x, " ", 1);
            emit(x, *op, strlen(*op));
            emit(x, " ", 1);
            if (((*op)[0] == '/' || (*op)[0] == '%')) {
                blanks(x);
                if (!isdigit((unsigned char)*x->p) || strtoul(x->p, NULL, 10) == 0) {
                    oops(x, "a divisor must be a non-zero number");
                    return;
                }
            }
            next(x);
            more = true;
            break;
        }
    }
    emit(x, ")", 1);
}

static void mul(struct formula *x)
{
    static const char *const ops[] = {"*", "/", "%", NULL};
    binary(x, ops, primary);
}
static void add(struct formula *x)
{
    static const char *const ops[] = {"+", "-", NULL};
    binary(x, ops, mul);
}
static void rel(struct formula *x)
{
    static const char *const ops[] = {"<=", ">=", "<", ">", NULL};
    binary(x, ops, add);
}
static void eq(struct formula *x)
{
    static const char *const ops[] = {"==", "!=", NULL};
    binary(x, ops, rel);
}
static void and_(struct formula *x)
{
    static const char *const ops[] = {"&&", NULL};
    binary(x, ops, eq);
}
static void or_(struct formula *x)
{
    static const char *const ops[] = {"||", NULL};
    binary(x, ops, and_);
}

static void ternary(struct formula *x)
{
    if (++x->depth > PLURAL_DEPTH_MAX) {
        oops(x, "the formula nests too deeply");
        return;
    }
    emit(x, "(", 1);
    or_(x);
    if (!x->why && take(x, "?")) {
        emit(x, " ? ", 3);
        ternary(x);
        if (!x->why && !take(x, ":"))
            oops(x, "a ? without its :");
        emit(x, " : ", 3);
        if (!x->why)
            ternary(x);
    }
    emit(x, ")", 1);
    x->depth--;
}

int po_plural_c(const char *forms, unsigned *nplurals, char *out, size_t len, char *why,
                size_t whylen)
{
    const char *np = strstr(forms, "nplurals="), *pl = strstr(forms, "plural=");
    if (pl && np && pl == np + 2)
        pl = strstr(np + 9, "plural=");
    char *end;
    unsigned long count = np ? strtoul(np + 9, &end, 10) : 0;
    if (!np || !pl || count < 1 || count > PO_FORMS_MAX) {
        snprintf(why, whylen, "Plural-Forms needs nplurals=1..%d and plural=", PO_FORMS_MAX);
        return -1;
    }
    struct formula x = {.p = pl + 7, .out = out, .len = len};
    if (len)
        out[0] = '\0';
    ternary(&x);
    blanks(&x);
    if (!x.why && *x.p == ';')
        x.p++;
    blanks(&x);
    if (!x.why && *x.p)
        x.why = "unexpected text in the formula";
    if (x.why) {
        snprintf(why, whylen, "Plural-Forms: %s", x.why);
        return -1;
    }
    *nplurals = (unsigned)count;
    return 0;
}
