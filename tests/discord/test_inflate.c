/*
 * test_inflate.c - the gateway's zlib-stream inflater (adapters/discord/inflate.h):
 * messages whole and cut anywhere (inside the flush's suffix too), one
 * stream after another, a corrupt stream, a message over the cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "inflate.h"
#include "zdeflate.h"

static const char *const messages[] = {
    "{\"op\":10,\"d\":{\"heartbeat_interval\":41250},\"s\":null,\"t\":null}",
    "{\"op\":0,\"t\":\"MESSAGE_CREATE\",\"s\":2,\"d\":{\"guild_id\":\"7001\",\"content\":\"!"
    "illegal status\"}}",
    "{\"op\":0,\"t\":\"MESSAGE_CREATE\",\"s\":3,\"d\":{\"guild_id\":\"7001\",\"content\":\"chat\"}"
    "}",
};
#define NMESSAGES (sizeof(messages) / sizeof(messages[0]))

/* The messages deflated as one stream into out; returns its length, and
 * where each message's flush ends in ends[]. */
static size_t deflate_all(unsigned char *out, size_t cap, size_t *ends)
{
    z_stream zs;
    memset(&zs, 0, sizeof(zs));
    assert_int_equal(deflateInit(&zs, Z_DEFAULT_COMPRESSION), Z_OK);
    size_t len = 0;
    for (size_t i = 0; i < NMESSAGES; i++) {
        assert_int_equal(zd_message(&zs, messages[i], strlen(messages[i]), out, &len, cap), 0);
        ends[i] = len;
    }
    deflateEnd(&zs);
    return len;
}

/* Each message in one piece, then each cut at every place: the message is
 * done at its last piece only, and reads as it was sent. */
static void whole_and_cut(void **state)
{
    (void)state;
    unsigned char z[4096];
    size_t ends[NMESSAGES];
    deflate_all(z, sizeof(z), ends);
    for (size_t cut = 0; cut < 64; cut++) {
        struct gw_zstream zs = {0};
        struct buf out;
        buf_init(&out, 1 << 16);
        size_t at = 0;
        for (size_t i = 0; i < NMESSAGES; i++) {
            size_t first = cut && at + cut < ends[i] ? cut : ends[i] - at; /* 0: whole */
            assert_int_equal(gw_inflate_feed(&zs, z + at, first, &out),
                             first < ends[i] - at ? GW_INFLATE_MORE : GW_INFLATE_DONE);
            if (first < ends[i] - at)
                assert_int_equal(gw_inflate_feed(&zs, z + at + first, ends[i] - at - first, &out),
                                 GW_INFLATE_DONE);
            assert_int_equal(out.len, strlen(messages[i]));
            assert_memory_equal(out.len ? out.data : "", messages[i], out.len);
            buf_reset(&out);
            at = ends[i];
        }
        assert_int_equal(gw_inflate_feed(&zs, z, 0, &out), GW_INFLATE_MORE); /* nothing ends */
        gw_zstream_reset(&zs);
        buf_free(&out);
    }
}

/* A new connection's stream starts over, with its own zlib header. */
static void stream_after_reset(void **state)
{
    (void)state;
    unsigned char z[4096];
    size_t ends[NMESSAGES];
    deflate_all(z, sizeof(z), ends);
    struct gw_zstream zs = {0};
    struct buf out;
    buf_init(&out, 1 << 16);
    for (int round = 0; round < 2; round++) {
        assert_int_equal(gw_inflate_feed(&zs, z, ends[0], &out), GW_INFLATE_DONE);
        assert_string_equal(out.data, messages[0]);
        buf_reset(&out);
        gw_zstream_reset(&zs);
    }
    /* without the reset, the stream's header again is no deflate data */
    assert_int_equal(gw_inflate_feed(&zs, z, ends[0], &out), GW_INFLATE_DONE);
    buf_reset(&out);
    assert_int_equal(gw_inflate_feed(&zs, z, ends[0], &out), GW_INFLATE_CORRUPT);
    gw_zstream_reset(&zs);
    buf_free(&out);
}

/* Text where the stream should be, and a message larger than the cap. */
static void corrupt_and_too_large(void **state)
{
    (void)state;
    struct gw_zstream zs = {0};
    struct buf out;
    buf_init(&out, 16);
    const char *text = "{\"op\":10,\"d\":{}}";
    assert_int_equal(gw_inflate_feed(&zs, text, strlen(text), &out), GW_INFLATE_CORRUPT);
    gw_zstream_reset(&zs);
    /* zlib headers the gateway never sends: a preset dictionary, another
     * method than deflate, a window past 32 KB, check bits wrong; the header
     * is read by hand (inflate.c), so each is refused there, also when it
     * comes a byte at a time */
    static const unsigned char heads[][2] = {
        {0x78, 0xbb}, {0x79, 0x18}, {0x88, 0x98}, {0x78, 0x9d}};
    for (size_t i = 0; i < sizeof(heads) / sizeof(heads[0]); i++) {
        assert_int_equal(gw_inflate_feed(&zs, heads[i], 2, &out), GW_INFLATE_CORRUPT);
        gw_zstream_reset(&zs);
        assert_int_equal(gw_inflate_feed(&zs, heads[i], 1, &out), GW_INFLATE_MORE);
        assert_int_equal(gw_inflate_feed(&zs, heads[i] + 1, 1, &out), GW_INFLATE_CORRUPT);
        gw_zstream_reset(&zs);
    }
    assert_int_equal(out.len, 0);
    buf_free(&out);
    unsigned char z[4096];
    size_t ends[NMESSAGES];
    deflate_all(z, sizeof(z), ends);
    assert_int_equal(gw_inflate_feed(&zs, z, ends[0], &out), GW_INFLATE_TOO_LARGE);
    assert_true(out.len <= out.max);
    gw_zstream_reset(&zs);
    buf_free(&out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(whole_and_cut),
        cmocka_unit_test(stream_after_reset),
        cmocka_unit_test(corrupt_and_too_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
