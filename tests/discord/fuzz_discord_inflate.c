/*
 * fuzz_discord_inflate.c - the gateway's zlib-stream inflater
 * (adapters/discord/inflate.h), one input a run. Its first byte chooses:
 *   even: the rest is a stream from the wire, fed in pieces the second byte
 *         sizes, through errors and resets, into a capped buffer;
 *   odd:  the rest is messages (split at '\n') that a deflater sends as
 *         Discord does, cut in pieces the same way: what comes out, message
 *         after message, must be exactly what went in.
 * A broken invariant aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "inflate.h"
#include "zdeflate.h"

#define OUT_MAX (1u << 16)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Feeds in[0..len) in pieces of 1 + (k % step) bytes; the done messages are
 * appended to got (when not NULL). Returns the last piece's answer. */
static enum gw_inflate feed(struct gw_zstream *zs, const uint8_t *in, size_t len, unsigned step,
                            struct buf *got)
{
    struct buf out;
    buf_init(&out, OUT_MAX);
    enum gw_inflate r = GW_INFLATE_MORE;
    for (size_t at = 0, k = 0; at < len; k++) {
        size_t n = step ? 1 + k % step : len - at;
        if (n > len - at)
            n = len - at;
        r = gw_inflate_feed(zs, in + at, n, &out);
        at += n;
        if (out.len > out.max)
            abort();
        if (r == GW_INFLATE_DONE) {
            if (got && out.len && buf_append(got, out.data, out.len) < 0)
                abort();
            buf_reset(&out);
        } else if (r != GW_INFLATE_MORE) {
            gw_zstream_reset(zs);
            buf_reset(&out);
        }
    }
    buf_free(&out);
    return r;
}

static void round_trip(const uint8_t *msgs, size_t size, unsigned step)
{
    z_stream d;
    memset(&d, 0, sizeof(d));
    size_t cap = size * 2 + 1024, len = 0;
    unsigned char *z = malloc(cap);
    if (!z || deflateInit(&d, Z_DEFAULT_COMPRESSION) != Z_OK) {
        free(z);
        return;
    }
    struct buf want, got;
    buf_init(&want, OUT_MAX * 4);
    buf_init(&got, OUT_MAX * 4);
    for (size_t at = 0; at < size;) {
        const uint8_t *nl = memchr(msgs + at, '\n', size - at);
        size_t n = (nl ? (size_t)(nl - msgs) : size) - at;
        if (n > 0 && n < OUT_MAX) { /* Discord sends no empty message */
            if (zd_message(&d, msgs + at, n, z, &len, cap) < 0 ||
                buf_append(&want, msgs + at, n) < 0)
                abort();
        }
        at += n + 1;
    }
    deflateEnd(&d);
    struct gw_zstream zs = {0};
    enum gw_inflate r = feed(&zs, z, len, step, &got);
    /* a piece may end in the suffix's bytes by chance before a message's
     * end, so the messages are compared as one text */
    if ((len && r != GW_INFLATE_DONE) || got.len != want.len ||
        (got.len && memcmp(got.data, want.data, got.len) != 0))
        abort();
    gw_zstream_reset(&zs);
    buf_free(&want);
    buf_free(&got);
    free(z);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    unsigned step = data[1];
    if (data[0] & 1) {
        round_trip(data + 2, size - 2, step);
    } else {
        struct gw_zstream zs = {0};
        feed(&zs, data + 2, size - 2, step, NULL);
        gw_zstream_reset(&zs);
    }
    return 0;
}
