/*
 * inflate.c - the gateway's zlib-stream, inflated piece by piece.
 *
 * With compression, the gateway's messages are one zlib stream over the
 * connection, in binary websocket messages; each gateway message ends with
 * a sync flush, whose last four bytes are 00 00 ff ff, and may be cut over
 * several websocket messages. JSON's keys repeat from message to message, so
 * the stream carries a fraction of the bytes: fewer for the kernel to copy
 * and for libwebsockets' client to walk one byte at a time.
 *
 * The stream's two-byte zlib header is read here and the rest inflated as
 * raw deflate: zlib then computes no Adler-32 of what it inflates (about
 * 4,000 instructions a command), a check value that sits in the stream's
 * trailer, and the gateway's stream never ends while the connection lasts.
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

/*
 * The window bits (8 to 15) of a zlib header (RFC 1950, 2.2): method 8
 * (deflate), a window of at most 32 KB, the check bits right, no preset
 * dictionary (the gateway has none to give). -1 when it is none of these.
 */
static int header_window_bits(const unsigned char head[2])
{
    unsigned cm = head[0] & 0x0f, cinfo = head[0] >> 4;
    bool fdict = head[1] & 0x20;
    if (cm != 8 || cinfo > 7 || fdict || (head[0] * 256u + head[1]) % 31 != 0)
        return -1;
    return (int)cinfo + 8;
}

/* Takes the header's bytes from the piece's start (it may come a byte at a
 * time) and, once whole, makes zlib's state for the raw deflate after it.
 * GW_INFLATE_MORE: taken, the stream goes on. */
static enum gw_inflate start_stream(struct gw_zstream *zs, const unsigned char **in, size_t *len)
{
    while (zs->nhead < sizeof(zs->head) && *len) {
        zs->head[zs->nhead++] = *(*in)++;
        (*len)--;
    }
    if (zs->nhead < sizeof(zs->head))
        return GW_INFLATE_MORE; /* the rest of the header in the next piece */
    int bits = header_window_bits(zs->head);
    if (bits < 0)
        return GW_INFLATE_CORRUPT;
    memset(&zs->z, 0, sizeof(zs->z));
    int rc = inflateInit2(&zs->z, -bits); /* negative: raw deflate, no check value */
    if (rc != Z_OK)
        return rc == Z_MEM_ERROR ? GW_INFLATE_NO_MEMORY : GW_INFLATE_CORRUPT;
    zs->live = true;
    return GW_INFLATE_MORE;
}

/* Inflates the piece into out. GW_INFLATE_MORE: all taken. */
static enum gw_inflate inflate_piece(struct gw_zstream *zs, const unsigned char *in, size_t len,
                                     struct buf *out)
{
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
    return GW_INFLATE_MORE;
}

enum gw_inflate gw_inflate_feed(struct gw_zstream *zs, const void *in, size_t len, struct buf *out)
{
    if (len == 0)
        return GW_INFLATE_MORE; /* no flush ends in it */
    const unsigned char *piece = in, *p = in;
    size_t left = len;
    enum gw_inflate r = zs->live ? GW_INFLATE_MORE : start_stream(zs, &p, &left);
    if (r == GW_INFLATE_MORE && zs->live && left)
        r = inflate_piece(zs, p, left, out);
    if (r != GW_INFLATE_MORE)
        return r;
    note_tail(zs, piece, len);
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
    zs->nhead = 0;
}
