/*
 * inflate.h - the gateway's transport compression ("compress=zlib-stream"):
 * one zlib stream a connection, each message ending in a sync flush.
 */
#ifndef DISCORD_INFLATE_H
#define DISCORD_INFLATE_H

#include <stdbool.h>
#include <stddef.h>

#include <zlib.h>

#include "bot/util/buf.h"

/* What gw_inflate_feed() made of a piece of the stream. */
enum gw_inflate {
    GW_INFLATE_MORE,      /* the message goes on in a later piece */
    GW_INFLATE_DONE,      /* out holds one whole message */
    GW_INFLATE_CORRUPT,   /* not a zlib stream: the connection cannot go on */
    GW_INFLATE_TOO_LARGE, /* the message would pass out's maximum */
    GW_INFLATE_NO_MEMORY,
};

/* One connection's stream. Zeroed, it is ready: zlib's state is made once
 * the stream's two-byte header has come, and its window (32 KB for
 * Discord's) only then. */
struct gw_zstream {
    z_stream z;
    bool live;             /* z holds zlib's state */
    unsigned char head[2]; /* the zlib header (RFC 1950), read by hand: see inflate.c */
    size_t nhead;
    unsigned char tail[4]; /* the stream's last bytes so far: a flush ends in 00 00 ff ff */
    size_t ntail;
};

/*
 * Feeds the next piece of the compressed stream (len bytes at in, a
 * websocket message's payload, whatever its cut) and appends what it
 * inflates to out. A message ends where a piece ends in the flush's suffix:
 * GW_INFLATE_DONE, out then holds the message (the caller reads it and
 * resets out before the next). CORRUPT, TOO_LARGE and NO_MEMORY leave the
 * stream unusable until gw_zstream_reset(), and out holding part of a
 * message, for the caller to empty.
 */
enum gw_inflate gw_inflate_feed(struct gw_zstream *zs, const void *in, size_t len, struct buf *out);

/* Forgets the stream (a new connection starts a new one); frees zlib's state. */
void gw_zstream_reset(struct gw_zstream *zs);

#endif
