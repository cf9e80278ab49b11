/*
 * zdeflate.c - messages deflated as the gateway's zlib-stream (zdeflate.h).
 */
#include <stdint.h>

#include "zdeflate.h"

int zd_message(z_stream *zs, const void *msg, size_t n, unsigned char *out, size_t *len, size_t cap)
{
    zs->next_in = (Bytef *)(uintptr_t)msg;
    zs->avail_in = (uInt)n;
    zs->next_out = out + *len;
    zs->avail_out = (uInt)(cap - *len);
    if (deflate(zs, Z_SYNC_FLUSH) != Z_OK || zs->avail_in || !zs->avail_out)
        return -1; /* a full out may hold only part of the flush */
    *len = cap - zs->avail_out;
    return 0;
}
