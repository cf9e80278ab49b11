/*
 * ixbody.c - interaction answers as text around a written body; see ixbody.h.
 */
#include "ixbody.h"

#include <stdio.h>
#include <string.h>

#include "adapters/common/jsonw.h"

void ixb_ephemeral(struct jw *w)
{
    jw_object(w);
    jw_key(w, "flags");
    jw_int(w, EPHEMERAL_FLAG);
}

/* The callback's head, {"type":N,"data": (or {"type":N when it has no
 * data), into head; its length. */
static size_t head_of(char head[48], int type, bool data)
{
    int n = snprintf(head, 48, "{\"type\":%d%s", type, data ? ",\"data\":" : "");
    return n > 0 && n < 48 ? (size_t)n : 0;
}

int ixb_wrap(struct buf *out, int type, const char *body, size_t len)
{
    char head[48];
    size_t n = head_of(head, type, body != NULL);
    if (n == 0 || buf_append(out, head, n) < 0 || (body && buf_append(out, body, len) < 0) ||
        buf_append(out, "}", 1) < 0) {
        buf_free(out); /* nothing half made */
        return -1;
    }
    return 0;
}

bool ixb_data(const char *req, size_t len, int type, size_t *at, size_t *dlen)
{
    char head[48];
    size_t n = head_of(head, type, true);
    if (n == 0 || len < n + 3 || memcmp(req, head, n) != 0 || req[len - 1] != '}' || req[n] != '{')
        return false;
    *at = n;
    *dlen = len - n - 1;
    return true;
}

int ixb_unflag(struct buf *out, const char *body, size_t len)
{
    size_t flag = sizeof(IXB_EPHEMERAL) - 1;
    if (len == flag && memcmp(body, IXB_EPHEMERAL_ONLY, flag) == 0)
        return buf_append(out, "{}", 2);
    if (len <= flag || memcmp(body, IXB_EPHEMERAL, flag) != 0)
        return buf_append(out, body, len);
    if (buf_append(out, "{", 1) < 0 || buf_append(out, body + flag, len - flag) < 0) {
        buf_free(out); /* nothing half made */
        return -1;
    }
    return 0;
}
