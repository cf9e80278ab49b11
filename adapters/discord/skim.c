/*
 * skim.c - deciding from a gateway message's text, without parsing it into
 * objects, that the adapter would ignore it, or reading only what it needs.
 *
 * In a busy guild most gateway messages are chat: MESSAGE_CREATE in a guild
 * channel whose content does not start with "!illegal". Building a json-c
 * tree for each only to drop it cost most of an ignored message's time. The
 * skimmer walks the text and answers only when it is sure; anything unusual
 * (an escape in a key, a wanted key twice, a number it does not read exactly
 * as json-c would, deep nesting) means "parse it properly". Of a message the
 * adapter reads (a command, a DM) it hands on where the dozen members it
 * reads are in the text (spans), decoded only when read: no object is made.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>

#include "skim.h"
#include "skim_walk.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* For the string reader, called for every key and string value: a call's
 * saving and restoring of registers cost more than most keys' scan. */
#define INLINE_ALWAYS static inline __attribute__((always_inline))

/* The walk's own whitespace skip, inlined where it runs for every member. */
INLINE_ALWAYS void skip_spaces(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

/* Whether the byte at c, after any whitespace, is ch. ch is tested first:
 * Discord's JSON is compact, so between two tokens there is none. */
INLINE_ALWAYS bool at(struct cursor *c, char ch)
{
    if (c->p < c->end && *c->p == ch)
        return true;
    skip_spaces(c);
    return c->p < c->end && *c->p == ch;
}

void skip_ws(struct cursor *c)
{
    skip_spaces(c);
}

#define ONES  0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL

/* The bytes of w that may stop a string's scan (a quote, a backslash or a
 * control character), each marked by its high bit: (x - ONES) & ~x & HIGHS
 * marks the bytes of x that are 0, and (w - ONES * 0x20) & ~w & HIGHS those
 * of w below 0x20. A borrow can mark a byte after a marked one as well, never
 * one before it: the first mark in memory order is exact. */
static uint64_t string_stops(uint64_t w)
{
    uint64_t quote = w ^ (ONES * '"'), backslash = w ^ (ONES * '\\');
    return (((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash) |
            ((w - ONES * 0x20) & ~w)) &
           HIGHS;
}

/* How many bytes of the 8 at p a string's scan passes over before the first
 * that may stop it (8: none does). On a big-endian machine the borrows run
 * the other way, so a word that holds a stop is read byte by byte there. */
static size_t plain_run(const char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    uint64_t stops = string_stops(w);
    if (!stops)
        return 8;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (size_t)__builtin_ctzll(stops) / 8;
#else
    return 0;
#endif
}

#ifdef __SSE2__
/* The bytes of the 16 at p that may stop a string's scan, as a mask of bits
 * in memory order: a quote, a backslash, or a byte below 0x20 (the unsigned
 * minimum of it and 0x1f is itself). */
static unsigned string_stops16(const char *p)
{
    __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
    __m128i quote = _mm_cmpeq_epi8(v, _mm_set1_epi8('"'));
    __m128i backslash = _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'));
    __m128i control = _mm_cmpeq_epi8(_mm_min_epu8(v, _mm_set1_epi8(0x1f)), v);
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control));
}
#endif

/* p moved over the plain bytes of a string up to end: to the first byte that
 * may stop its scan, or to where fewer than 8 bytes are left (SSE2 takes 16
 * at a time while 16 are left, the word test 8 after). */
INLINE_ALWAYS const char *skip_plain(const char *p, const char *end)
{
#ifdef __SSE2__
    for (; end - p >= 16; p += 16) {
        unsigned stops = string_stops16(p);
        if (stops)
            return p + __builtin_ctz(stops);
    }
#endif
    while (end - p >= 8) {
        size_t run = plain_run(p);
        p += run;
        if (run < 8)
            break;
    }
    return p;
}

/* A string at c (its quote included) into s. Strings are most of a message's
 * bytes: plain ones are passed over many bytes at a time, and the scan goes
 * straight to the byte that ends them. */
INLINE_ALWAYS bool read_string(struct cursor *c, struct span *s)
{
    if (c->p >= c->end || *c->p != '"')
        return false;
    s->start = ++c->p;
    s->escaped = false;
    for (;;) {
        c->p = skip_plain(c->p, c->end);
        if (c->p >= c->end)
            return false;
        if (*c->p == '"')
            break;
        if ((unsigned char)*c->p < 0x20)
            return false;
        if (*c->p == '\\') {
            s->escaped = true;
            /* strchr finds the string's own NUL: a NUL byte is no escape */
            if (++c->p >= c->end || !*c->p || !strchr("\"\\/bfnrtu", *c->p))
                return false;
            if (*c->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (c->p + i >= c->end || !isxdigit((unsigned char)c->p[i]))
                        return false;
                c->p += 4;
            }
        }
        c->p++;
    }
    s->len = (size_t)(c->p - s->start);
    c->p++;
    return true;
}

/* A letter or digit in ASCII, where a literal or a number may not end: told
 * here, not by isalnum(), a call into libc for each. */
static bool is_word_byte(char ch)
{
    unsigned char lower = (unsigned char)ch | 0x20;
    return (ch >= '0' && ch <= '9') || (lower >= 'a' && lower <= 'z');
}

static bool is_digit(const struct cursor *c)
{
    return c->p < c->end && *c->p >= '0' && *c->p <= '9';
}

/* The literal at c, exactly: true, false or null, told by its first byte
 * (tried in turn, each was a strlen and a memcmp, most of them failing:
 * a fifth of a real message's walk, whose objects are mostly null and false). */
static bool skip_literal(struct cursor *c)
{
    size_t left = (size_t)(c->end - c->p), n = *c->p == 'f' ? 5 : 4;
    /* sizes the compiler knows, so no call */
    bool same = left >= n && (*c->p == 't'   ? memcmp(c->p, "true", 4) == 0
                              : *c->p == 'f' ? memcmp(c->p, "false", 5) == 0
                                             : memcmp(c->p, "null", 4) == 0);
    if (!same || (left > n && is_word_byte(c->p[n])))
        return false;
    c->p += n;
    return true;
}

/* A number at c, in JSON's own grammar only. */
static bool skip_number(struct cursor *c)
{
    if (c->p < c->end && *c->p == '-')
        c->p++;
    if (!is_digit(c))
        return false;
    if (*c->p == '0')
        c->p++;
    else
        while (is_digit(c))
            c->p++;
    if (c->p < c->end && *c->p == '.') {
        c->p++;
        if (!is_digit(c))
            return false;
        while (is_digit(c))
            c->p++;
    }
    if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
        c->p++;
        if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
            c->p++;
        if (!is_digit(c))
            return false;
        while (is_digit(c))
            c->p++;
    }
    return c->p == c->end || !is_word_byte(*c->p);
}

/* Whether the value at c is an empty array or object written without
 * spaces ("[]", "{}"), as most of a message's arrays are; passed over if so. */
INLINE_ALWAYS bool pass_empty(struct cursor *c)
{
    if (c->end - c->p < 2 || (c->p[0] != '[' && c->p[0] != '{') || c->p[1] != c->p[0] + 2)
        return false;
    c->p += 2;
    return true;
}

/* The value at c read as skip_value() reads it, its text into whole: a
 * string, a literal, a number or an empty container, most of a message's
 * values, without a call (skip_value()'s saving of registers cost more than
 * most of them); the rest by skip_value(). */
INLINE_ALWAYS bool read_value(struct cursor *c, unsigned depth, struct span *whole)
{
    const char *start = c->p;
    if (c->p < c->end && depth <= SKIM_MAX_DEPTH) {
        if (*c->p == '"') {
            if (!read_string(c, whole))
                return false;
            whole->start = start;
            whole->len += 2;
            return true;
        }
        bool literal = *c->p == 'n' || *c->p == 'f' || *c->p == 't';
        bool number = *c->p == '-' || (*c->p >= '0' && *c->p <= '9');
        if (literal || number || pass_empty(c)) {
            if ((literal && !skip_literal(c)) || (number && !skip_number(c)))
                return false;
            *whole = (struct span){start, (size_t)(c->p - start), false};
            return true;
        }
    }
    return skip_value(c, depth, whole);
}

/* The value at c passed over, at nesting depth depth: a string, a literal, a
 * number or an empty container without a call; the rest by skip_value(). */
INLINE_ALWAYS bool pass_value(struct cursor *c, unsigned depth)
{
    struct span ignored;
    if (c->p < c->end && depth <= SKIM_MAX_DEPTH) {
        if (*c->p == '"')
            return read_string(c, &ignored);
        if (*c->p == 'n' || *c->p == 'f' || *c->p == 't')
            return skip_literal(c);
        if (*c->p == '-' || (*c->p >= '0' && *c->p <= '9'))
            return skip_number(c);
        if (pass_empty(c))
            return true;
    }
    return skip_value(c, depth, &ignored);
}

/* The members or elements of the object or array whose opening byte c has
 * just passed, up to its closing byte close, each passed over. */
static bool pass_container(struct cursor *c, unsigned depth, char close)
{
    skip_spaces(c);
    if (c->p < c->end && *c->p == close) {
        c->p++;
        return true;
    }
    for (;;) {
        struct span ignored;
        if (close == '}') {
            if (!read_string(c, &ignored) || !at(c, ':'))
                return false;
            c->p++;
            skip_spaces(c);
        }
        if (!pass_value(c, depth + 1))
            return false;
        if (at(c, ',')) {
            c->p++;
            skip_spaces(c);
            continue;
        }
        if (c->p >= c->end || *c->p != close)
            return false;
        c->p++;
        return true;
    }
}

/* Any value at c, skipped over; its text (quotes included) into whole. */
bool skip_value(struct cursor *c, unsigned depth, struct span *whole)
{
    if (c->p >= c->end || depth > SKIM_MAX_DEPTH)
        return false;
    whole->start = c->p;
    whole->escaped = false;
    char open = *c->p;
    if (open == '"') {
        struct span s;
        if (!read_string(c, &s))
            return false;
        whole->escaped = s.escaped;
    } else if (open == '{' || open == '[') {
        c->p++;
        if (!pass_container(c, depth, open == '{' ? '}' : ']'))
            return false;
    } else if (open == 't' || open == 'f' || open == 'n') {
        if (!skip_literal(c))
            return false;
    } else if (!skip_number(c)) {
        return false;
    }
    whole->len = (size_t)(c->p - whole->start);
    return true;
}

static bool is(const struct span *s, const char *word)
{
    return s->len == strlen(word) && memcmp(s->start, word, s->len) == 0;
}

/* each_member()'s walk, inlined where take is known, so that it is inlined
 * too: a call a member through a pointer cost more than most members. */
INLINE_ALWAYS bool walk_members(struct cursor *c, unsigned depth,
                                bool (*take)(void *arg, const struct span *key, struct cursor *c,
                                             unsigned depth),
                                void *arg)
{
    if (depth > SKIM_MAX_DEPTH)
        return false;
    skip_spaces(c);
    if (c->p >= c->end || *c->p++ != '{')
        return false;
    skip_spaces(c);
    if (c->p < c->end && *c->p == '}') {
        c->p++;
        return true;
    }
    for (;;) {
        struct span key;
        if (!read_string(c, &key) || key.escaped || !at(c, ':'))
            return false;
        c->p++;
        skip_spaces(c);
        if (!take(arg, &key, c, depth + 1))
            return false;
        if (at(c, ',')) {
            c->p++;
            if (!at(c, '"')) /* the next key's quote, tested before any space */
                return false;
            continue;
        }
        if (c->p >= c->end || *c->p != '}')
            return false;
        c->p++;
        return true;
    }
}

bool each_member(struct cursor *c, unsigned depth, const struct member_fn *fn)
{
    return walk_members(c, depth, fn->take, fn->arg);
}

/* Notes the value of a wanted key; refuses a second one. */
static bool note(struct span *slot, bool *seen, const struct span *value)
{
    if (*seen)
        return false;
    *seen = true;
    *slot = *value;
    return true;
}

/* What the start of content (a string with its quotes), after spaces, says
 * of the line. */
enum line_start {
    LINE_CHAT,    /* neither "!illegal" nor a mention */
    LINE_COMMAND, /* "!illegal" or a mention ("<@") */
    LINE_ESCAPED, /* an escape there could spell anything */
};

static enum line_start line_start(const struct span *content)
{
    const char *text = content->start + 1, *end = content->start + content->len - 1;
    while (text < end && *text == ' ')
        text++;
    size_t n = (size_t)(end - text) < 8 ? (size_t)(end - text) : 8;
    if (memchr(text, '\\', n))
        return LINE_ESCAPED;
    return (n == 8 && strncasecmp(text, "!illegal", 8) == 0) ||
                   (n >= 2 && text[0] == '<' && text[1] == '@')
               ? LINE_COMMAND
               : LINE_CHAT;
}

/* Whether a kept value (an array's text) holds any element. */
static bool has_elements(const struct span *v)
{
    struct cursor c = {v->start, v->start + v->len};
    if (c.p >= c.end || *c.p != '[')
        return false;
    c.p++;
    skip_ws(&c);
    return c.p < c.end && *c.p != ']';
}

/* ---- what the adapter reads of a message ------------------------------- */

#define KEPT_NAME_MAX 16 /* longer than any kept name: same_name() reads at most this */

/* KEPT_SEEN: read and looked at (mentions), never handed on. */
enum kept_type { KEPT_STRING, KEPT_BOOL, KEPT_STRINGS, KEPT_OBJECT, KEPT_SEEN };

/* A member kept: its name and type; where in struct gw_message it goes (a
 * struct gw_span, or for a bool and an object a bool); for an object, the
 * members kept of it are kept[first] up to kept[end - 1]. */
struct kept {
    char name[KEPT_NAME_MAX]; /* in the entry, so compared without a pointer's load */
    size_t len;               /* strlen(name), compared first: most keys differ in length */
    enum kept_type type;
    size_t at;
    unsigned first, end;
};

/* The message (the dispatch's "d"), then its own members, then author's,
 * then member's: the members of each object are a run of the table. */
enum {
    K_MESSAGE,
    K_ID,
    K_CHANNEL,
    K_GUILD,
    K_CONTENT,
    K_MENTIONS,
    K_AUTHOR,
    K_MEMBER,
    K_AUTHOR_ID,
    K_USERNAME,
    K_GLOBAL_NAME,
    K_BOT,
    K_NICK,
    K_PERMISSIONS,
    K_ROLES,
    NKEPT
};

#define NAME(s) s, sizeof(s) - 1 /* a name and its length */
#define AT(m)   offsetof(struct gw_message, m)
#define LEAF(m) AT(m), 0, 0

/* What inbound.c's dc_read_skimmed() and guilds.c's dc_moderates() read of a
 * MESSAGE_CREATE: nothing else is kept. A member of another type is left
 * out, as the adapter's getters would read nothing from it; so are the
 * array's elements that are not strings (gw_span_next_string()). */
static const struct kept kept[NKEPT] = {
    [K_MESSAGE] = {NAME("d"), KEPT_OBJECT, 0, K_ID, K_AUTHOR_ID}, /* at: unused, always read */
    [K_ID] = {NAME("id"), KEPT_STRING, LEAF(id)},
    [K_CHANNEL] = {NAME("channel_id"), KEPT_STRING, LEAF(channel_id)},
    [K_GUILD] = {NAME("guild_id"), KEPT_STRING, LEAF(guild_id)},
    [K_CONTENT] = {NAME("content"), KEPT_STRING, LEAF(content)},
    [K_MENTIONS] = {NAME("mentions"), KEPT_SEEN, 0, 0, 0},
    [K_AUTHOR] = {NAME("author"), KEPT_OBJECT, AT(author), K_AUTHOR_ID, K_NICK},
    [K_MEMBER] = {NAME("member"), KEPT_OBJECT, AT(member), K_NICK, NKEPT},
    [K_AUTHOR_ID] = {NAME("id"), KEPT_STRING, LEAF(author_id)},
    [K_USERNAME] = {NAME("username"), KEPT_STRING, LEAF(username)},
    [K_GLOBAL_NAME] = {NAME("global_name"), KEPT_STRING, LEAF(global_name)},
    [K_BOT] = {NAME("bot"), KEPT_BOOL, LEAF(bot)},
    [K_NICK] = {NAME("nick"), KEPT_STRING, LEAF(nick)},
    [K_PERMISSIONS] = {NAME("permissions"), KEPT_STRING, LEAF(permissions)},
    [K_ROLES] = {NAME("roles"), KEPT_STRINGS, LEAF(roles)},
};

/* The kept members as read, each one's text; a second of any is refused. */
struct reading {
    struct span value[NKEPT];
    bool seen[NKEPT];
};

/* The members of one kept object being read into r. */
struct within {
    struct reading *r;
    unsigned object;
    uint64_t lengths; /* bit n set: one of its kept members' names is n bytes */
};

/* The bits that differ between the 8, 4 or 2 bytes at a and those at b: a
 * load each of a size the compiler knows, where memcmp() was a call. */
#define DIFFER(type)                                                                               \
    INLINE_ALWAYS type differ_##type(const char *a, const char *b)                                 \
    {                                                                                              \
        type x, y;                                                                                 \
        memcpy(&x, a, sizeof x);                                                                   \
        memcpy(&y, b, sizeof y);                                                                   \
        return x ^ y;                                                                              \
    }
DIFFER(uint64_t)
DIFFER(uint32_t)
DIFFER(uint16_t)

/* Whether the n bytes at key (n < KEPT_NAME_MAX) are those of name, a kept
 * entry's name padded with NULs: its first and last words compared, which
 * overlap when n is no multiple of the word. */
INLINE_ALWAYS bool same_name(const char *key, const char *name, size_t n)
{
    if (n >= 8)
        return (differ_uint64_t(key, name) | differ_uint64_t(key + n - 8, name + n - 8)) == 0;
    if (n >= 4)
        return (differ_uint32_t(key, name) | differ_uint32_t(key + n - 4, name + n - 4)) == 0;
    if (n >= 2)
        return (differ_uint16_t(key, name) | differ_uint16_t(key + n - 2, name + n - 2)) == 0;
    return n == 0 || key[0] == name[0];
}

static bool read_object(struct reading *r, unsigned i, struct cursor *c, unsigned depth);

/* Reads the value at c of kept member i into r; an object's own kept
 * members in the same walk (read_object()), since a second walk would cost
 * as much again. The rest, most kept members, are read in line. */
INLINE_ALWAYS bool read_kept(struct reading *r, unsigned i, struct cursor *c, unsigned depth)
{
    if (r->seen[i])
        return false;
    r->seen[i] = true;
    if (kept[i].type != KEPT_OBJECT || c->p >= c->end || *c->p != '{')
        return read_value(c, depth, &r->value[i]);
    return read_object(r, i, c, depth);
}

static bool take_kept(void *arg, const struct span *key, struct cursor *c, unsigned depth)
{
    const struct within *w = arg;
    /* most keys are of no kept name's length: passed over without a search */
    if (key->len < 64 && (w->lengths >> key->len & 1))
        for (unsigned i = kept[w->object].first; i < kept[w->object].end; i++)
            if (key->len == kept[i].len && same_name(key->start, kept[i].name, key->len))
                return read_kept(w->r, i, c, depth);
    return pass_value(c, depth);
}

/* The object at c of kept member i, its kept members read into r. */
static bool read_object(struct reading *r, unsigned i, struct cursor *c, unsigned depth)
{
    struct within w = {r, i, 0};
    for (unsigned k = kept[i].first; k < kept[i].end; k++)
        w.lengths |= 1ULL << kept[k].len; /* every name is under 64 bytes */
    const char *start = c->p;
    if (!walk_members(c, depth, take_kept, &w))
        return false;
    r->value[i] = (struct span){start, (size_t)(c->p - start), false};
    return true;
}

/* Hands on the members of kept object kept[object] that r read into m,
 * each where kept[] says; one of another type is left out. */
static void hand_on(const struct reading *r, unsigned object, struct gw_message *m)
{
    for (unsigned i = kept[object].first; i < kept[object].end; i++) {
        const struct span *v = &r->value[i];
        char *at = (char *)m + kept[i].at;
        if (!r->seen[i])
            continue;
        if (kept[i].type == KEPT_STRING && v->start[0] == '"') {
            *(struct gw_span *)(void *)at = (struct gw_span){v->start + 1, v->len - 2, v->escaped};
        } else if (kept[i].type == KEPT_STRINGS && v->start[0] == '[') {
            *(struct gw_span *)(void *)at = (struct gw_span){v->start + 1, v->len - 2, false};
        } else if (kept[i].type == KEPT_BOOL) {
            *(bool *)at = is(v, "true");
        } else if (kept[i].type == KEPT_OBJECT && v->start[0] == '{') {
            *(bool *)at = true;
            hand_on(r, i, m);
        }
    }
}

/* ---- reading a span ---------------------------------------------------- */

/* The four hex digits at p (read_string() checked them) as a number. */
static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        unsigned char ch = (unsigned char)p[i];
        v = v << 4 | (ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10);
    }
    return v;
}

/* Code point cp at o in UTF-8; past what it wrote. */
static char *put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xf0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

#define REPLACEMENT 0xfffd /* what json-c makes of a surrogate without its pair */

/* json-c tells a surrogate by its low 16 bits alone, a code point a pair
 * made too: U+1D800 waits for a low half as a high one does, U+1DC00 is
 * written as a lone low one. The test data (skim_cases.txt) holds both. */
static bool is_high(unsigned cp)
{
    return (cp & 0xfc00) == 0xd800;
}

static bool is_low(unsigned cp)
{
    return (cp & 0xfc00) == 0xdc00;
}

/* A string span's decoding: where it writes, and a high surrogate (or what
 * json-c takes for one) waiting for its low half, or 0. */
struct decoder {
    char *o;
    unsigned high;
};

/* Writes the code point of a \uXXXX escape (or of a pair) as json-c does. */
static void put_unicode(struct decoder *d, unsigned cp)
{
    if (d->high) {
        if (is_low(cp))
            cp = ((d->high & 0x3ff) << 10) + (cp & 0x3ff) + 0x10000;
        else
            d->o = put_utf8(d->o, REPLACEMENT);
        d->high = 0;
    }
    if (is_high(cp))
        d->high = cp;
    else
        d->o = put_utf8(d->o, is_low(cp) ? REPLACEMENT : cp);
}

/* Anything but a \uXXXX escape ends a wait for a low half. */
static void end_wait(struct decoder *d)
{
    if (d->high)
        d->o = put_utf8(d->o, REPLACEMENT);
    d->high = 0;
}

size_t gw_span_string(const struct gw_span *s, char *out)
{
    const char *p = s->p, *end = s->p + s->len;
    struct decoder d = {out, 0};
    while (p < end) {
        const char *bs = s->escaped ? memchr(p, '\\', (size_t)(end - p)) : NULL;
        size_t run = (size_t)((bs ? bs : end) - p);
        if (run)
            end_wait(&d);
        memcpy(d.o, p, run);
        d.o += run;
        p += run;
        if (!bs)
            break;
        char e = p[1];
        p += 2;
        if (e == 'u') {
            put_unicode(&d, hex4(p));
            p += 4;
        } else {
            end_wait(&d);
            *d.o++ = e == 'b'   ? '\b'
                     : e == 'f' ? '\f'
                     : e == 'n' ? '\n'
                     : e == 'r' ? '\r'
                     : e == 't' ? '\t'
                                : e; /* '"', '\\' or '/' */
        }
    }
    end_wait(&d);
    *d.o = '\0';
    return (size_t)(d.o - out);
}

bool gw_span_next_string(struct gw_span *rest, struct gw_span *element)
{
    struct cursor c = {rest->p, rest->p + rest->len};
    struct span e = {0};
    bool string = false;
    skip_ws(&c);
    /* the skimmer walked the whole array already: a failure here is its end */
    while (!string && c.p < c.end && skip_value(&c, 1, &e)) {
        string = e.start[0] == '"';
        skip_ws(&c);
        if (c.p < c.end && *c.p == ',')
            c.p++;
        skip_ws(&c);
    }
    rest->len = (size_t)(c.end - c.p);
    rest->p = c.p;
    if (string)
        *element = (struct gw_span){e.start + 1, e.len - 2, e.escaped};
    return string;
}

/* ---- the gateway message ----------------------------------------------- */

/* What the walk read of a gateway message: op, s and t, and d's kept members. */
struct top {
    struct span op, s, t;
    bool has_op, has_s, has_t;
    struct reading d;
};

/* Notes op, s and t, giving up as soon as the message is no MESSAGE_CREATE
 * dispatch, and reads d's kept members as it passes them. */
static bool take_top(void *arg, const struct span *key, struct cursor *c, unsigned depth)
{
    struct top *t = arg;
    struct span value;
    if (is(key, "d"))
        return read_kept(&t->d, K_MESSAGE, c, depth);
    if (!read_value(c, depth, &value))
        return false;
    if (is(key, "op"))
        return note(&t->op, &t->has_op, &value) && is(&value, "0");
    if (is(key, "t"))
        return note(&t->t, &t->has_t, &value) && is(&value, "\"MESSAGE_CREATE\"");
    if (is(key, "s"))
        return note(&t->s, &t->has_s, &value);
    return true;
}

/* A sequence as json-c reads it into the adapter: digits (at most 18, so no
 * overflow) or null. */
static bool read_seq(const struct top *t, int64_t *seq)
{
    *seq = 0;
    if (!t->has_s || is(&t->s, "null"))
        return true;
    if (t->s.len == 0 || t->s.len > 18 || (t->s.len > 1 && t->s.start[0] == '0'))
        return false;
    for (size_t i = 0; i < t->s.len; i++) {
        if (t->s.start[i] < '0' || t->s.start[i] > '9')
            return false;
        *seq = *seq * 10 + (t->s.start[i] - '0');
    }
    return true;
}

enum gw_skim gw_skim(const char *txt, size_t len, int64_t *seq, struct gw_message *message)
{
    struct cursor c = {txt, txt + len};
    struct top top = {0};
    struct member_fn top_fn = {take_top, &top};
    const struct reading *d = &top.d;
    if (!each_member(&c, 0, &top_fn))
        return GW_SKIM_PARSE;
    skip_ws(&c);
    if (c.p != c.end || !top.has_op || !top.has_t || !d->seen[K_MESSAGE] ||
        d->value[K_MESSAGE].start[0] != '{' || !read_seq(&top, seq))
        return GW_SKIM_PARSE;
    /* In a guild channel only what is addressed to the bot matters (inbound.c,
     * table_command): "!illegal ...", a line starting with a mention, or a
     * reply that mentions it, which is left to the full parse (the adapter
     * reads its mentions and the message it replies to): so is a line whose
     * start is escaped and that mentions someone. */
    if (d->seen[K_GUILD] && d->seen[K_CONTENT] && d->value[K_GUILD].start[0] == '"' &&
        d->value[K_CONTENT].start[0] == '"') {
        enum line_start start = line_start(&d->value[K_CONTENT]);
        bool mentions = d->seen[K_MENTIONS] && has_elements(&d->value[K_MENTIONS]);
        if (start == LINE_CHAT)
            return mentions ? GW_SKIM_PARSE : GW_SKIM_IGNORE;
        if (start == LINE_ESCAPED && mentions)
            return GW_SKIM_PARSE;
    }
    /* A bot's message, the echo of each of our own among them: the adapter
     * reads none. */
    if (d->seen[K_AUTHOR] && d->value[K_AUTHOR].start[0] == '{' && d->seen[K_BOT] &&
        is(&d->value[K_BOT], "true"))
        return GW_SKIM_IGNORE;
    if (!message)
        return GW_SKIM_PARSE;
    *message = (struct gw_message){0};
    hand_on(d, K_MESSAGE, message);
    return GW_SKIM_MESSAGE;
}
