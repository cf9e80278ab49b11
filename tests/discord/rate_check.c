/*
 * rate_check.c - the rate limit's header reader against a plain one: each
 * line compared with every name the limiter reads, without regard to case,
 * the value's blanks trimmed, numbers read by strtol and strtod.
 */
#include "rate_check.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "adapters/discord/ratelimit.h"

static bool named(const char *line, size_t len, const char *name, const char **val, size_t *vlen)
{
    size_t n = strlen(name);
    if (len <= n || strncasecmp(line, name, n) != 0 || line[n] != ':')
        return false;
    size_t i = n + 1;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    size_t e = len;
    while (e > i && (line[e - 1] == '\r' || line[e - 1] == '\n' || line[e - 1] == ' '))
        e--;
    *val = line + i;
    *vlen = e - i;
    return true;
}

static void copy(char *dst, size_t dlen, const char *v, size_t vlen)
{
    if (vlen >= dlen)
        vlen = dlen - 1;
    memcpy(dst, v, vlen);
    dst[vlen] = '\0';
}

static int count(const char *v)
{
    long n = strtol(v, NULL, 10);
    return n < 0 ? 0 : n > INT_MAX ? INT_MAX : (int)n;
}

static void plain_parse(struct rl_headers *h, const char *line, size_t len)
{
    const char *v;
    size_t vl;
    char tmp[64];
    if (named(line, len, "X-RateLimit-Bucket", &v, &vl)) {
        copy(h->bucket, sizeof(h->bucket), v, vl);
    } else if (named(line, len, "X-RateLimit-Scope", &v, &vl)) {
        copy(h->scope, sizeof(h->scope), v, vl);
    } else if (named(line, len, "X-RateLimit-Limit", &v, &vl)) {
        copy(tmp, sizeof(tmp), v, vl);
        h->limit = count(tmp);
    } else if (named(line, len, "X-RateLimit-Remaining", &v, &vl)) {
        copy(tmp, sizeof(tmp), v, vl);
        h->remaining = count(tmp);
    } else if (named(line, len, "X-RateLimit-Reset-After", &v, &vl)) {
        copy(tmp, sizeof(tmp), v, vl);
        h->reset_after = strtod(tmp, NULL);
    } else if (named(line, len, "Retry-After", &v, &vl)) {
        copy(tmp, sizeof(tmp), v, vl);
        h->retry_after = strtod(tmp, NULL);
    } else if (named(line, len, "X-RateLimit-Global", &v, &vl)) {
        h->global = vl >= 4 && strncasecmp(v, "true", 4) == 0;
    }
}

/* Two seconds' values alike: the same number, or both not a number. */
static bool same_seconds(double a, double b)
{
    return a == b || (isnan(a) && isnan(b));
}

bool rate_check(const char *text, size_t n)
{
    struct rl_headers got, want;
    rl_headers_init(&got);
    rl_headers_init(&want);
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(text + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (text + i)) + 1 : n - i;
        rl_headers_parse(&got, text + i, len);
        plain_parse(&want, text + i, len);
        i += len;
    }
    return strcmp(got.bucket, want.bucket) == 0 && strcmp(got.scope, want.scope) == 0 &&
           got.limit == want.limit && got.remaining == want.remaining &&
           same_seconds(got.reset_after, want.reset_after) &&
           same_seconds(got.retry_after, want.retry_after) && got.global == want.global;
}
