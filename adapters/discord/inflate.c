/*
 * inflate.c - the gateway's zlib-stream, inflated piece by piece.
 *
 * With compression, the gateway's messages are one zlib stream over the
 * connection, in binary websocket messages; each gateway message ends with
 * a sync flush, whose last four bytes are 00 00 ff ff, and may be cut over
 * several websocket messages. JSON's keys repeat from message to message, so
 * the stream carries a fraction of the bytes: fewer for the kernel to copy
 * and for libwebsockets' client to walk one byte at a time.
 */
#include <stdint.h>
#include <string.h>

#include "inflate.h"

#define CHUNK 4096 /* inflated a chunk at a time into out */

static const unsigned char flush_suffix[4] = {0x00, 0x00, 0xff, 0xff};

/* Keeps the stream's last four bytes, across pieces. */
static void note_tail(struct gw_zstream *zs, const unsigned char *in, size_t len)
{
    if (len >= sizeof(zs->tail)) {
        memcpy(zs->tail, in + len - sizeof(zs->tail), sizeof(zs->tail));
        zs->ntail = sizeof(zs->tail);
        return;
    }
    size_t keep = zs->ntail + len > sizeof(zs->tail) ? sizeof(zs->tail) - len : zs->ntail;
    memmove(zs->tail, zs->tail + zs->ntail - keep, keep);
    memcpy(zs->tail + keep, in, len);
    zs->ntail = keep + len;
}

enum gw_inflate gw_inflate_feed(struct gw_zstream *zs, const void *in, size_t len, struct buf *out)
{
    if (len == 0)
        return GW_INFLATE_MORE; /* no flush ends in it */
    if (!zs->live) {
        memset(&zs->z, 0, sizeof(zs->z));
        int rc = inflateInit(&zs->z);
        if (rc != Z_OK)
            return rc == Z_MEM_ERROR ? GW_INFLATE_NO_MEMORY : GW_INFLATE_CORRUPT;
        zs->live = true;
        zs->ntail = 0;
    }
    zs->z.next_in = (Bytef *)(uintptr_t)in; /* zlib's API is not const */
    zs->z.avail_in = (uInt)len;
    unsigned char chunk[CHUNK];
    do {
        zs->z.next_out = chunk;
        zs->z.avail_out = sizeof(chunk);
        int rc = inflate(&zs->z, Z_SYNC_FLUSH);
        size_t n = sizeof(chunk) - zs->z.avail_out;
        if (rc == Z_MEM_ERROR)
            return GW_INFLATE_NO_MEMORY;
        /* Z_BUF_ERROR: no progress possible, all input taken; Z_STREAM_END:
         * the stream may not end while the connection lasts */
        if (rc != Z_OK && rc != Z_BUF_ERROR)
            return GW_INFLATE_CORRUPT;
        if (n && buf_append(out, chunk, n) < 0)
            return out->len + n > out->max ? GW_INFLATE_TOO_LARGE : GW_INFLATE_NO_MEMORY;
        if (rc == Z_BUF_ERROR)
            break;
    } while (zs->z.avail_in > 0 || zs->z.avail_out == 0);
    note_tail(zs, in, len);
    if (zs->ntail == sizeof(zs->tail) && memcmp(zs->tail, flush_suffix, sizeof(zs->tail)) == 0)
        return GW_INFLATE_DONE;
    return GW_INFLATE_MORE;
}

void gw_zstream_reset(struct gw_zstream *zs)
{
    if (zs->live)
        inflateEnd(&zs->z);
    zs->live = false;
    zs->ntail = 0;
}
