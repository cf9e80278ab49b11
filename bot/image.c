/*
 * image.c - a hosted game's image (image.h): written with each change of a
 * game, read by a start instead of its JSON record.
 *
 * The image must give back the game game_from_json(game_to_json(g)) gives:
 * what the record does not keep (the links, a DM probe's count, whether a
 * player's DMs failed, seats and lists past their counts) is cleared before
 * writing (tests/unit/test_game_record.c and the stored_image fuzz target
 * hold the two against each other).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/util/build_id.h"
#include "chat.h"
#include "core/modules.h"
#include "image.h"

#define IMAGE_MAGIC     "ILGI"
#define IMAGE_FORMAT    2 /* 2: a table's chat as a fourth part */
#define IMAGE_BUILD_MAX BUILD_ID_MAX
#define IMAGE_RULES_MAX 24 /* a rules module's id, with its NUL */

struct head {
    char magic[4];
    uint8_t format, build_len, unused[2];
    uint8_t build[IMAGE_BUILD_MAX];
    char rules[IMAGE_RULES_MAX];
    uint32_t game_size, state_size, mind_size, nminds, body_len;
    uint32_t chat_size; /* 0: no chat */
    uint64_t sum;       /* of the head (this field 0) and the body */
};
_Static_assert(sizeof(struct head) == 96, "no padding: the checksum covers every byte");

#define CHECKSUM_START 0xcbf29ce484222325ULL /* FNV-1a */

static uint64_t checksum(uint64_t h, const void *bytes, size_t len)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ULL;
    return h;
}

/* The checksum of an image: its head (sum 0) and body. */
static uint64_t image_sum(struct head h, const void *body)
{
    h.sum = 0;
    return checksum(checksum(CHECKSUM_START, &h, sizeof h), body, h.body_len);
}

/* Word w of a part of len bytes, its last word padded with zero bytes. */
static uint64_t word_at(const unsigned char *p, size_t len, size_t w)
{
    uint64_t v = 0;
    size_t at = w * 8;
    memcpy(&v, p + at, len - at < 8 ? len - at : 8);
    return v;
}

/* Appends a part of len bytes as tokens (image.h). Returns 0 or -1. */
static int encode(struct buf *b, const void *part, size_t len)
{
    const unsigned char *p = part;
    size_t nw = (len + 7) / 8, w = 0;
    while (w < nw) {
        uint16_t tok[2] = {0, 0};
        for (; w < nw && tok[0] < UINT16_MAX && word_at(p, len, w) == 0; w++)
            tok[0]++;
        size_t from = w;
        for (; w < nw && tok[1] < UINT16_MAX && word_at(p, len, w) != 0; w++)
            tok[1]++;
        bool partial = tok[1] && w * 8 > len; /* the last literal word is padded */
        size_t whole = partial ? w - 1 : w;
        uint64_t last = partial ? word_at(p, len, w - 1) : 0;
        if (buf_append(b, tok, sizeof tok) < 0 ||
            (whole > from && buf_append(b, p + from * 8, (whole - from) * 8) < 0) ||
            (partial && buf_append(b, &last, sizeof last) < 0))
            return -1;
    }
    return 0;
}

struct reader {
    const unsigned char *p;
    size_t len, at;
};

/* Fills a part of len bytes, zeroed by the caller, from r's tokens. Returns 0,
 * or -1 when they do not fill it exactly within the image. */
static int decode(struct reader *r, void *part, size_t len)
{
    unsigned char *out = part;
    size_t nw = (len + 7) / 8, w = 0;
    while (w < nw) {
        uint16_t tok[2];
        if (r->len - r->at < sizeof tok)
            return -1;
        memcpy(tok, r->p + r->at, sizeof tok);
        r->at += sizeof tok;
        size_t zeros = tok[0], words = tok[1];
        if (zeros + words == 0 || zeros + words > nw - w || words * 8 > r->len - r->at)
            return -1;
        w += zeros;
        if (words) {
            size_t at = w * 8, n = (w + words) * 8 > len ? len - at : words * 8;
            memcpy(out + at, r->p + r->at, n);
        }
        r->at += words * 8;
        w += words;
    }
    return 0;
}

/* g as its record keeps it (the file's comment). */
static void keep_stored(struct game *copy, const struct game *g)
{
    *copy = *g;
    copy->platform = NULL;
    copy->rules = NULL;
    copy->state = NULL;
    copy->chat = NULL;
    copy->minds = NULL;
    copy->probes_pending = 0;
    copy->closed = false;
    memset(&copy->links, 0, sizeof copy->links);
    for (unsigned i = 0; i < copy->nseats; i++) {
        copy->seats[i].dm_unreachable = false;
        if (!copy->started)
            copy->seats[i].last_move = -1;
    }
    memset(copy->seats + copy->nseats, 0, sizeof copy->seats[0] * (RULES_MAX_SEATS - copy->nseats));
    memset(copy->watchers + copy->nwatchers, 0,
           sizeof copy->watchers[0] * (GAME_MAX_WATCHERS - copy->nwatchers));
    memset(copy->insiders + copy->ninsiders, 0,
           sizeof copy->insiders[0] * (GAME_MAX_INSIDERS - copy->ninsiders));
    memset(copy->kicked + copy->nkicked, 0,
           sizeof copy->kicked[0] * (GAME_MAX_KICKED - copy->nkicked));
}

/* Appends g's chat, its lines past its count zero (the record keeps none).
 * Returns 0 or -1. */
static int encode_chat(struct buf *b, const struct game_chat *c)
{
    struct game_chat *copy = calloc(1, sizeof *copy);
    if (!copy)
        return -1;
    copy->n = c->n;
    memcpy(copy->lines, c->lines, sizeof c->lines[0] * c->n);
    int rc = encode(b, copy, sizeof *copy);
    free(copy);
    return rc;
}

int image_write(const struct game *g, struct buf *b)
{
    size_t build_len;
    const uint8_t *build = build_id(&build_len);
    buf_reset(b);
    if (!build_len || strlen(g->rules->id) >= IMAGE_RULES_MAX)
        return 1;
    struct head h = {.format = IMAGE_FORMAT, /* every byte set: the checksum covers them */
                     .build_len = (uint8_t)build_len,
                     .game_size = sizeof *g,
                     .state_size = (uint32_t)g->rules->state_size,
                     .mind_size = (uint32_t)(g->minds ? game_mind_size(g) : 0),
                     .nminds = g->minds ? g->nseats : 0,
                     .chat_size = g->chat && g->chat->n ? sizeof *g->chat : 0};
    memcpy(h.magic, IMAGE_MAGIC, sizeof h.magic);
    memcpy(h.build, build, build_len);
    memcpy(h.rules, g->rules->id, strlen(g->rules->id));
    struct game *copy = malloc(sizeof *copy);
    if (!copy)
        return -1;
    keep_stored(copy, g);
    int rc = buf_append(b, &h, sizeof h) < 0 || encode(b, copy, sizeof *copy) < 0 ||
                     encode(b, g->state, h.state_size) < 0 ||
                     (h.nminds && encode(b, g->minds, (size_t)h.nminds * h.mind_size) < 0) ||
                     (h.chat_size && encode_chat(b, g->chat) < 0)
                 ? -1
                 : 0;
    free(copy);
    if (rc < 0 || b->len - sizeof h > UINT32_MAX)
        return -1;
    h.body_len = (uint32_t)(b->len - sizeof h);
    h.sum = image_sum(h, b->data + sizeof h);
    memcpy(b->data, &h, sizeof h);
    return 0;
}

static bool text_ok(const char *s, size_t size)
{
    return memchr(s, '\0', size) != NULL;
}

static unsigned levels(const struct rules_module *rules)
{
    unsigned n = 0;
    for (const struct rules_strategy *l = rules->strategies; l && l->id; l++)
        n++;
    return n;
}

/* What in a decoded game would mislead the bot, or NULL: every text ends
 * within its field, every count within its array (the state is the rules'
 * own, kept by the checksum). */
static const char *check_game(const struct game *g)
{
    unsigned nlevels = levels(g->rules);
    if (!text_ok(g->id, sizeof g->id) || !text_ok(g->table, sizeof g->table) ||
        !text_ok(g->host, sizeof g->host) || !text_ok(g->host_name, sizeof g->host_name) ||
        !text_ok(g->language, sizeof g->language) || !text_ok(g->community, sizeof g->community) ||
        !text_ok(g->event, sizeof g->event))
        return "a text field is not terminated";
    if (g->nseats > g->rules->max_players || g->nseats > RULES_MAX_SEATS)
        return "seats invalid";
    for (unsigned i = 0; i < g->nseats; i++) {
        const struct seat *s = &g->seats[i];
        if (!text_ok(s->user, sizeof s->user) || !text_ok(s->name, sizeof s->name) ||
            !text_ok(s->language, sizeof s->language) || s->computer > nlevels)
            return "a seat is invalid";
    }
    if (g->nwatchers > GAME_MAX_WATCHERS || g->ninsiders > GAME_MAX_INSIDERS ||
        g->nkicked > GAME_MAX_KICKED || g->stand_in > nlevels || g->reminders_sent > 7)
        return "a count is out of range";
    for (unsigned i = 0; i < g->nwatchers; i++)
        if (!text_ok(g->watchers[i], sizeof g->watchers[i]))
            return "a watcher is not terminated";
    if (!(g->rng.s[0] | g->rng.s[1] | g->rng.s[2] | g->rng.s[3]))
        return "rng state is all zero";
    return NULL;
}

/* The chat of an image (its fourth part) into out->chat: lines as chat.c
 * makes them, every text ending within its field. */
static const char *read_chat(struct game *out, const struct head *h, struct reader *r)
{
    if (h->chat_size != sizeof *out->chat)
        return "its chat is not this build's";
    struct game_chat *c = out->chat = calloc(1, sizeof *c);
    if (!c)
        return "out of memory";
    if (decode(r, c, sizeof *c) < 0)
        return "its chat is truncated";
    if (c->n == 0 || c->n > GAME_CHAT_LINES)
        return "its chat's count is out of range";
    for (unsigned i = 0; i < c->n; i++) {
        const struct chat_line *l = &c->lines[i];
        if (!text_ok(l->user, sizeof l->user) || !text_ok(l->name, sizeof l->name) ||
            !text_ok(l->text, sizeof l->text))
            return "a chat line is not terminated";
    }
    return NULL;
}

/* The body of an image whose head h is this build's, into out. */
static const char *read_body(struct game *out, const struct head *h, struct reader *r)
{
    const struct rules_module *rules = rules_by_id(h->rules);
    if (!rules || h->game_size != sizeof *out || h->state_size != rules->state_size)
        return "its sizes are not this build's";
    if (decode(r, out, sizeof *out) < 0)
        return "its game is truncated";
    /* no pointer is taken from an image, whatever its bytes say */
    out->platform = NULL;
    out->state = out->minds = NULL;
    out->chat = NULL;
    memset(&out->links, 0, sizeof out->links);
    out->rules = rules;
    const char *bad = check_game(out);
    if (bad)
        return bad;
    if (h->nminds &&
        (h->nminds != out->nseats || h->mind_size != game_mind_size(out) || !out->started))
        return "its computers' memories do not fit the game";
    if (!(out->state = calloc(1, rules->state_size)) ||
        (h->nminds && !(out->minds = calloc(h->nminds, h->mind_size))))
        return "out of memory";
    if (decode(r, out->state, rules->state_size) < 0 ||
        (h->nminds && decode(r, out->minds, (size_t)h->nminds * h->mind_size) < 0))
        return "its state is truncated";
    if (h->chat_size && (bad = read_chat(out, h, r)))
        return bad;
    if (r->at != r->len)
        return "it is too long";
    return NULL;
}

int image_read(struct game *out, const void *image, size_t len, char *why, size_t whylen)
{
    size_t build_len;
    const uint8_t *build = build_id(&build_len);
    memset(out, 0, sizeof *out);
    struct head h;
    if (len < sizeof h || memcmp(image, IMAGE_MAGIC, 4) != 0) {
        snprintf(why, whylen, "image truncated or not an image");
        return -1;
    }
    memcpy(&h, image, sizeof h);
    if (h.format != IMAGE_FORMAT || !build_len || h.build_len != build_len ||
        memcmp(h.build, build, build_len) != 0)
        return 1;
    struct reader r = {(const unsigned char *)image + sizeof h, len - sizeof h, 0};
    const char *bad = NULL;
    if (h.body_len != r.len || image_sum(h, r.p) != h.sum)
        bad = "image damaged (its length or checksum)";
    else if (!text_ok(h.rules, sizeof h.rules))
        bad = "image names no rules module";
    else
        bad = read_body(out, &h, &r);
    if (!bad)
        return 0;
    snprintf(why, whylen, "%s", bad);
    free(out->state);
    free(out->minds);
    free(out->chat);
    memset(out, 0, sizeof *out);
    return -1;
}
