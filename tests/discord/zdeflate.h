/*
 * zdeflate.h - the gateway's side of compress=zlib-stream for the inflater's
 * test and fuzz target: messages into one zlib stream, each ended by a sync
 * flush, as Discord sends them.
 */
#ifndef DISCORD_ZDEFLATE_H
#define DISCORD_ZDEFLATE_H

#include <stddef.h>

#include <zlib.h>

/* Appends msg (n bytes) to the stream zs (deflateInit'ed) and its sync
 * flush to out (at *len of cap bytes). Returns 0, or -1 when out is full. */
int zd_message(z_stream *zs, const void *msg, size_t n, unsigned char *out, size_t *len,
               size_t cap);

#endif
