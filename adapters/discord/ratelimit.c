/*
 * ratelimit.c - buckets, the global limit and invalid-request accounting.
 */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ratelimit.h"

/*
 * The global limit. Discord counts requests as they arrive, and a request
 * arrives at some time between the moment we let it go and its answer: the
 * way there may hold it up (a busy loop, a slow connection) and bunch it
 * with later ones. So a request counts from when it is let go until a second
 * after its answer: a new one goes only while fewer than the limit are in
 * flight or were answered within the last second. Then no two requests can
 * arrive closer than a second apart with the limit's number between them,
 * however long the way. The window is a second and a little more, for the
 * steps of our millisecond clock.
 */
#define RL_GLOBAL_WINDOW_MS 1010u

/* The ring of answer times starts this small and doubles, up to the limit,
 * only when its oldest answer is still in the window: a bot given 10,000 a
 * second holds 80 KB only once it answers that many. */
#define RL_GLOBAL_RING_MIN 16u

struct rl_bucket {
    int limit;     /* -1: unknown */
    int remaining; /* -1: unknown */
    uint64_t reset_at;
    int inflight;
};

int rl_init(struct rl *rl, unsigned global_per_sec, unsigned invalid_limit)
{
    memset(rl, 0, sizeof(*rl));
    map_init(&rl->routes);
    map_init(&rl->buckets);
    rl->global_per_sec = global_per_sec ? global_per_sec : 50;
    rl->invalid_limit = invalid_limit < RL_INVALID_RING ? invalid_limit : RL_INVALID_RING;
    return 0;
}

void rl_free(struct rl *rl)
{
    map_clear(&rl->routes, free);
    map_clear(&rl->buckets, free);
    free(rl->gwin);
    rl->gwin = NULL;
    rl->gcap = 0;
}

static bool is_id(const char *s, size_t n)
{
    if (!n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* Appends n bytes of s at out[*o], cut to what outlen holds with its NUL. */
static void put(char *out, size_t outlen, size_t *o, const char *s, size_t n)
{
    size_t room = outlen - 1 - *o;
    if (n > room)
        n = room;
    memcpy(out + *o, s, n);
    *o += n;
    out[*o] = '\0';
}

void rl_route(const char *method, const char *path, char *route, size_t routelen, char *major,
              size_t majorlen)
{
    size_t o = 0, mo = 0;
    route[0] = '\0';
    major[0] = '\0';
    put(route, routelen, &o, method, strlen(method));
    put(route, routelen, &o, " ", 1);
    const char *q = strchr(path, '?');
    size_t plen = q ? (size_t)(q - path) : strlen(path);
    const char *segs[16];
    size_t lens[16];
    unsigned n = 0;
    for (size_t i = 0; i < plen && n < 16;) {
        while (i < plen && path[i] == '/')
            i++;
        if (i >= plen)
            break;
        size_t j = i;
        while (j < plen && path[j] != '/')
            j++;
        segs[n] = path + i;
        lens[n] = j - i;
        n++;
        i = j;
    }
    /* the top-level resource: channels/{id}, guilds/{id}, webhooks/{id}[/{token}] */
    unsigned nmajor = 0;
    if (n >= 2 && is_id(segs[1], lens[1])) {
        if ((lens[0] == 8 && strncmp(segs[0], "channels", 8) == 0) ||
            (lens[0] == 6 && strncmp(segs[0], "guilds", 6) == 0))
            nmajor = 2;
        else if (lens[0] == 8 && strncmp(segs[0], "webhooks", 8) == 0)
            nmajor = n >= 3 && !is_id(segs[2], lens[2]) ? 3 : 2;
        /* Not a top-level resource for Discord, but each interaction is
         * answered once through its own id and token (its follow-ups go to
         * webhooks/<app>/<token>): keyed by it, answers to different
         * interactions never wait for each other while their bucket is
         * unknown. */
        else if (lens[0] == 12 && strncmp(segs[0], "interactions", 12) == 0)
            nmajor = 2;
    }
    for (unsigned i = 0; i < nmajor; i++) {
        if (i)
            put(major, majorlen, &mo, "/", 1);
        put(major, majorlen, &mo, segs[i], lens[i]);
    }
    for (unsigned i = 0; i < n; i++) {
        put(route, routelen, &o, "/", 1);
        bool after_reactions =
            i > 0 && lens[i - 1] == 9 && strncmp(segs[i - 1], "reactions", 9) == 0;
        bool interaction_token =
            i == 2 && lens[0] == 12 && strncmp(segs[0], "interactions", 12) == 0;
        bool webhook_token = i == 2 && nmajor == 3;
        if (is_id(segs[i], lens[i]))
            put(route, routelen, &o, ":id", 3);
        else if (after_reactions)
            put(route, routelen, &o, ":emoji", 6);
        else if (interaction_token || webhook_token)
            put(route, routelen, &o, ":token", 6);
        else
            put(route, routelen, &o, segs[i], lens[i]);
    }
}

/* Writes the key of a request's bucket state, "<bucket or route>|<major>",
 * joined by hand (snprintf cost each request ~800 instructions), and returns
 * the route's bucket hash, or NULL while it is not known. */
static const char *state_key(struct rl *rl, const char *route, const char *major, char *key,
                             size_t keylen)
{
    const char *hash = map_get(&rl->routes, route), *first = hash ? hash : route;
    size_t o = 0;
    put(key, keylen, &o, first, strlen(first));
    put(key, keylen, &o, "|", 1);
    put(key, keylen, &o, major, strlen(major));
    return hash;
}

/* The bucket state under key, made unknown when there is none. */
static struct rl_bucket *bucket_at(struct rl *rl, const char *key)
{
    struct rl_bucket *b = map_get(&rl->buckets, key);
    if (b)
        return b;
    b = calloc(1, sizeof(*b));
    if (!b)
        return NULL;
    b->limit = -1;
    b->remaining = -1;
    if (map_put(&rl->buckets, key, b, NULL) < 0) {
        free(b);
        return NULL;
    }
    return b;
}

unsigned rl_invalid_recent(struct rl *rl, uint64_t now)
{
    while (rl->ninvalid) {
        unsigned oldest = (rl->invalid_pos + RL_INVALID_RING - rl->ninvalid) % RL_INVALID_RING;
        if (rl->invalid[oldest] + RL_INVALID_WINDOW_MS > now)
            break;
        rl->ninvalid--;
    }
    return rl->ninvalid;
}

static void count_invalid(struct rl *rl, uint64_t now)
{
    rl->n_invalid_total++;
    rl->invalid[rl->invalid_pos] = now;
    rl->invalid_pos = (rl->invalid_pos + 1) % RL_INVALID_RING;
    if (rl->ninvalid < RL_INVALID_RING)
        rl->ninvalid++;
}

/* How long a request bound to the global limit must wait: 0, a time, or
 * RL_WAIT_RELEASE when the requests in flight alone reach the limit. The
 * ring holds the answer times of the last gcap requests, oldest first from
 * gpos (0: no request yet), every answer still in the window among them. */
static uint64_t global_wait(const struct rl *rl, uint64_t now)
{
    if (now < rl->global_until)
        return rl->global_until - now;
    /* From gpos the ring reads unused slots (0), then answer times in the
     * order they came: "still in the window" is false, then true, so the
     * first answer inside it is found by halving, not by a walk as long as
     * the limit (10,000 a second for a large bot). */
    unsigned n = rl->gcap, limit = rl->global_per_sec, old = 0, hi = n;
    while (old < hi) {
        unsigned mid = old + (hi - old) / 2;
        uint64_t t = rl->gwin[(rl->gpos + mid) % n];
        if (t && t + RL_GLOBAL_WINDOW_MS > now)
            hi = mid;
        else
            old = mid + 1;
    }
    unsigned counted = rl->ginflight + (n - old);
    if (counted < limit)
        return 0;
    if (rl->ginflight >= limit)
        return RL_WAIT_RELEASE;
    /* the answers that must leave the window first, oldest first (counted -
     * limit < n - old, as fewer than the limit are in flight) */
    uint64_t t = rl->gwin[(rl->gpos + old + (counted - limit)) % n];
    return t + RL_GLOBAL_WINDOW_MS - now;
}

/* Doubles the ring, up to the limit: the new slots unused, first from gpos,
 * then the answers in their order. -1 when out of memory. */
static int grow_window(struct rl *rl)
{
    unsigned cap = rl->gcap ? rl->gcap * 2 : RL_GLOBAL_RING_MIN;
    if (cap > rl->global_per_sec || cap < rl->gcap)
        cap = rl->global_per_sec;
    uint64_t *w = calloc(cap, sizeof(*w));
    if (!w)
        return -1;
    unsigned added = cap - rl->gcap;
    for (unsigned i = 0; i < rl->gcap; i++)
        w[added + i] = rl->gwin[(rl->gpos + i) % rl->gcap];
    free(rl->gwin);
    rl->gwin = w;
    rl->gcap = cap;
    rl->gpos = 0;
    return 0;
}

/* Notes an answer bound to the global limit in the ring, in place of its
 * oldest, which the ring grows to keep while it is in the window. */
static void global_answered(struct rl *rl, uint64_t now)
{
    uint64_t oldest = rl->gcap ? rl->gwin[rl->gpos] : 0;
    if ((!rl->gcap || (oldest && oldest + RL_GLOBAL_WINDOW_MS > now)) &&
        rl->gcap < rl->global_per_sec && grow_window(rl) < 0) {
        /* No memory to keep an answer still in the window (or any): nothing
         * global goes until it would have left it. A full ring of the
         * limit's size drops none that counts (the ring's own wait is longer). */
        uint64_t until = (rl->gcap ? oldest : now) + RL_GLOBAL_WINDOW_MS;
        if (until > rl->global_until)
            rl->global_until = until;
        if (!rl->gcap)
            return;
    }
    rl->gwin[rl->gpos] = now ? now : 1;
    rl->gpos = (rl->gpos + 1) % rl->gcap;
}

uint64_t rl_acquire(struct rl *rl, const char *route, const char *major, bool exempt, uint64_t now)
{
    if (rl->invalid_limit && rl_invalid_recent(rl, now) >= rl->invalid_limit) {
        unsigned oldest = (rl->invalid_pos + RL_INVALID_RING - rl->ninvalid) % RL_INVALID_RING;
        return rl->invalid[oldest] + RL_INVALID_WINDOW_MS - now;
    }
    if (!exempt) {
        uint64_t w = global_wait(rl, now);
        if (w)
            return w;
    }
    char key[512];
    state_key(rl, route, major, key, sizeof(key));
    struct rl_bucket *b = bucket_at(rl, key);
    if (!b)
        return 100; /* no memory: try again shortly */
    if (b->reset_at && now >= b->reset_at) {
        b->remaining = b->limit;
        b->reset_at = 0;
    }
    if (b->remaining == 0)
        return b->reset_at > now ? b->reset_at - now : 1;
    if (b->remaining < 0 && b->inflight > 0)
        return RL_WAIT_RELEASE;
    if (b->remaining > 0)
        b->remaining--;
    b->inflight++;
    if (!exempt)
        rl->ginflight++;
    return 0;
}

/* The route's bucket hash is now known (or changed): its state b, kept under
 * key, moves under the hash, or joins the state already there. Returns the
 * state the request's answer goes to (b as it was when out of memory). */
static struct rl_bucket *learn_hash(struct rl *rl, const char *route, const char *major,
                                    const char *key, struct rl_bucket *b, const char *bucket)
{
    char newkey[512];
    char *hash = strdup(bucket);
    void *prev = NULL;
    if (!hash || map_put(&rl->routes, route, hash, &prev) < 0) {
        free(hash);
        return b;
    }
    free(prev);
    state_key(rl, route, major, newkey, sizeof(newkey));
    struct rl_bucket *shared = map_get(&rl->buckets, newkey);
    if (!shared) {
        map_del(&rl->buckets, key);
        if (map_put(&rl->buckets, newkey, b, NULL) < 0) {
            free(b);
            return NULL;
        }
        return b;
    }
    if (shared != b) {
        shared->inflight += b->inflight;
        free(map_del(&rl->buckets, key));
    }
    return shared;
}

uint64_t rl_release(struct rl *rl, const char *route, const char *major, bool exempt, long status,
                    const struct rl_headers *h, double body_retry_after, bool body_global,
                    uint64_t now)
{
    if (!exempt) {
        if (rl->ginflight > 0)
            rl->ginflight--;
        global_answered(rl, now);
    }
    char key[512];
    const char *known = state_key(rl, route, major, key, sizeof(key));
    struct rl_bucket *b = bucket_at(rl, key);
    if (b && b->inflight > 0)
        b->inflight--;
    if (b && h->bucket[0] && (!known || strcmp(known, h->bucket) != 0))
        b = learn_hash(rl, route, major, key, b, h->bucket);
    if (b && h->remaining < 0 && b->remaining == 0 && !b->reset_at)
        b->remaining = -1; /* a bucket a 429 made, answered without limits: unknown again, not
                              empty for ever (a 5xx from a proxy says none) */
    if (b && h->remaining >= 0) {
        b->remaining = h->remaining;
        if (h->limit >= 0)
            b->limit = h->limit;
        if (h->reset_after >= 0)
            b->reset_at = now + (uint64_t)(h->reset_after * 1000.0 + 0.5);
        if (b->limit < 0)
            b->limit = b->remaining + 1;
    }
    if (status == 401 || status == 403)
        count_invalid(rl, now);
    if (status != 429)
        return 0;
    double ra = body_retry_after >= 0 ? body_retry_after : h->retry_after;
    if (ra < 0)
        ra = 1.0;
    uint64_t wait = (uint64_t)(ra * 1000.0 + 0.5);
    if (!wait)
        wait = 1;
    rl->n429++;
    if (strcasecmp(h->scope, "shared") != 0)
        count_invalid(rl, now);
    if (body_global || h->global || strcasecmp(h->scope, "global") == 0) {
        rl->n429_global++;
        if (now + wait > rl->global_until)
            rl->global_until = now + wait;
    } else if (b) {
        b->remaining = 0;
        b->reset_at = now + wait;
        if (b->limit < 0)
            b->limit = 1;
    }
    return wait;
}

void rl_headers_init(struct rl_headers *h)
{
    memset(h, 0, sizeof(*h));
    h->limit = -1;
    h->remaining = -1;
    h->reset_after = -1;
    h->retry_after = -1;
}

/*
 * A response header line, "Name: value\r\n", read only when it is one of the
 * rate limit's: every answer carries a dozen other lines, so a line is let go
 * on its first byte or its length where it can be, and its name is compared
 * once with the one name it can still be.
 */
#define RL_PREFIX     "x-ratelimit-"
#define RL_PREFIX_LEN (sizeof(RL_PREFIX) - 1)
#define RL_RETRY      "retry-after" /* the shortest name read */
#define RL_RETRY_LEN  (sizeof(RL_RETRY) - 1)
#define RL_NAME(s)    s, sizeof(s) - 1

enum rl_field {
    RLF_NONE,
    RLF_BUCKET,
    RLF_SCOPE,
    RLF_LIMIT,
    RLF_REMAINING,
    RLF_RESET_AFTER,
    RLF_RETRY_AFTER,
    RLF_GLOBAL
};

static const struct {
    const char *name; /* after "x-ratelimit-", lower case */
    size_t len;
    enum rl_field field;
} rl_names[] = {
    {RL_NAME("bucket"), RLF_BUCKET},
    {RL_NAME("scope"), RLF_SCOPE},
    {RL_NAME("limit"), RLF_LIMIT},
    {RL_NAME("remaining"), RLF_REMAINING},
    {RL_NAME("reset-after"), RLF_RESET_AFTER},
    {RL_NAME("global"), RLF_GLOBAL},
};

/* s (n bytes) against lower-case ASCII lower, without regard to case. */
static bool same_name(const char *s, const char *lower, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c) != (unsigned char)lower[i])
            return false;
    }
    return true;
}

/* Which of the rate limit's headers the name before the ':' at line[n] is. */
static enum rl_field field_of(const char *line, size_t n)
{
    if (n == RL_RETRY_LEN && same_name(line, RL_RETRY, RL_RETRY_LEN))
        return RLF_RETRY_AFTER;
    if (n <= RL_PREFIX_LEN || !same_name(line, RL_PREFIX, RL_PREFIX_LEN))
        return RLF_NONE;
    for (size_t i = 0; i < sizeof(rl_names) / sizeof(rl_names[0]); i++)
        if (n - RL_PREFIX_LEN == rl_names[i].len &&
            same_name(line + RL_PREFIX_LEN, rl_names[i].name, rl_names[i].len))
            return rl_names[i].field;
    return RLF_NONE;
}

static void copy_val(char *dst, size_t dlen, const char *v, size_t vlen)
{
    if (vlen >= dlen)
        vlen = dlen - 1;
    memcpy(dst, v, vlen);
    dst[vlen] = '\0';
}

/* A count of a header, 0 .. INT_MAX (what is no number reads 0). */
static int header_count(const char *v, size_t vl)
{
    char tmp[64];
    copy_val(tmp, sizeof(tmp), v, vl);
    long n = strtol(tmp, NULL, 10);
    return n < 0 ? 0 : n > INT_MAX ? INT_MAX : (int)n;
}

/* Seconds, as strtod reads them (what is no number reads 0). */
static double header_seconds(const char *v, size_t vl)
{
    char tmp[64];
    copy_val(tmp, sizeof(tmp), v, vl);
    return strtod(tmp, NULL);
}

static void set_field(struct rl_headers *h, enum rl_field f, const char *v, size_t vl)
{
    switch (f) {
    case RLF_BUCKET:
        copy_val(h->bucket, sizeof(h->bucket), v, vl);
        break;
    case RLF_SCOPE:
        copy_val(h->scope, sizeof(h->scope), v, vl);
        break;
    case RLF_LIMIT:
        h->limit = header_count(v, vl);
        break;
    case RLF_REMAINING:
        h->remaining = header_count(v, vl);
        break;
    case RLF_RESET_AFTER:
        h->reset_after = header_seconds(v, vl);
        break;
    case RLF_RETRY_AFTER:
        h->retry_after = header_seconds(v, vl);
        break;
    case RLF_GLOBAL:
        h->global = vl >= 4 && strncasecmp(v, "true", 4) == 0;
        break;
    case RLF_NONE:
        break;
    }
}

void rl_headers_parse(struct rl_headers *h, const char *line, size_t len)
{
    /* the names read begin with an x, or are "retry-after" */
    if (len <= RL_RETRY_LEN ||
        (line[0] != 'x' && line[0] != 'X' && line[0] != 'r' && line[0] != 'R'))
        return;
    const char *colon = memchr(line, ':', len);
    if (!colon)
        return;
    size_t n = (size_t)(colon - line);
    enum rl_field f = field_of(line, n);
    if (f == RLF_NONE)
        return;
    size_t i = n + 1;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    size_t e = len;
    while (e > i && (line[e - 1] == '\r' || line[e - 1] == '\n' || line[e - 1] == ' '))
        e--;
    set_field(h, f, line + i, e - i);
}
