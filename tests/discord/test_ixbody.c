/*
 * test_ixbody.c - interaction answers as text around a written body
 * (adapters/discord/ixbody.h): what a callback, a follow-up, an edit and a
 * DM carry, read back by json-c; a body with every escape the writer makes;
 * a buffer's cap reached, which leaves nothing half made.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "adapters/common/jsonw.h"
#include "ixbody.h"

#define CAP (1u << 20)

/* A text with every ASCII byte but NUL, bytes that start no valid UTF-8
 * sequence, U+2028 and an emoji: each of the writer's escapes. */
static void every_escape(char *text, size_t len)
{
    size_t n = 0;
    for (int c = 1; c < 128; c++)
        text[n++] = (char)c;
    static const char rest[] = "\x80\xC3 \xFF\xE2\x80\xA8\xF0\x9F\x8E\xB2\xED\xA0\x80";
    assert_true(n + sizeof rest <= len);
    memcpy(text + n, rest, sizeof rest);
}

/* An ephemeral body of text, as render.c writes one, into b. */
static void ephemeral(struct buf *b, const char *text)
{
    struct jw w;
    buf_init(b, CAP);
    jw_init(&w, b);
    ixb_ephemeral(&w);
    jw_key(&w, "content");
    jw_str(&w, text);
    jw_key(&w, "embeds");
    jw_array(&w);
    jw_array_end(&w);
    jw_object_end(&w);
    assert_int_equal(jw_finish(&w), 0);
}

static const char *str_of(struct json_object *o, const char *key)
{
    struct json_object *v = NULL;
    return json_object_object_get_ex(o, key, &v) ? json_object_get_string(v) : NULL;
}

static void wrapped_every_escape(void **state)
{
    (void)state;
    char text[256];
    every_escape(text, sizeof text);
    struct buf body, req, plain;
    ephemeral(&body, text);
    assert_memory_equal(body.data, IXB_EPHEMERAL, sizeof IXB_EPHEMERAL - 1);

    buf_init(&req, CAP);
    assert_int_equal(ixb_wrap(&req, 4, body.data, body.len), 0);
    struct json_object *r = json_tokener_parse(req.data), *b = json_tokener_parse(body.data);
    assert_non_null(r);
    assert_non_null(b);
    struct json_object *type = NULL, *data = NULL, *flags = NULL;
    assert_true(json_object_object_get_ex(r, "type", &type) && json_object_get_int(type) == 4);
    assert_true(json_object_object_get_ex(r, "data", &data));
    assert_true(json_object_object_get_ex(data, "flags", &flags) &&
                json_object_get_int(flags) == EPHEMERAL_FLAG);
    assert_string_equal(str_of(data, "content"), str_of(b, "content"));
    /* every ASCII byte came through, the rest as valid UTF-8 */
    assert_memory_equal(str_of(data, "content"), text, 127);

    size_t at, len;
    assert_true(ixb_data(req.data, req.len, 4, &at, &len));
    assert_int_equal(len, body.len);
    assert_memory_equal(req.data + at, body.data, body.len);

    buf_init(&plain, CAP);
    assert_int_equal(ixb_unflag(&plain, req.data + at, len), 0);
    struct json_object *p = json_tokener_parse(plain.data);
    assert_non_null(p);
    assert_false(json_object_object_get_ex(p, "flags", NULL));
    assert_string_equal(str_of(p, "content"), str_of(b, "content"));
    assert_int_equal(plain.len, body.len - (sizeof IXB_EPHEMERAL - 1) + 1);
    json_object_put(p);
    json_object_put(b);
    json_object_put(r);
    buf_free(&plain);
    buf_free(&req);
    buf_free(&body);
}

static void without_data(void **state)
{
    (void)state;
    struct buf req;
    buf_init(&req, CAP);
    assert_int_equal(ixb_wrap(&req, 6, NULL, 0), 0);
    assert_string_equal(req.data, "{\"type\":6}");
    size_t at, len;
    assert_false(ixb_data(req.data, req.len, 6, &at, &len));
    buf_free(&req);

    assert_int_equal(ixb_wrap(&req, 5, IXB_EPHEMERAL_ONLY, sizeof IXB_EPHEMERAL_ONLY - 1), 0);
    assert_string_equal(req.data, "{\"type\":5,\"data\":{\"flags\":64}}");
    assert_false(ixb_data(req.data, req.len, 4, &at, &len)); /* a deferral says nothing */
    assert_true(ixb_data(req.data, req.len, 5, &at, &len));
    buf_free(&req);

    assert_int_equal(ixb_unflag(&req, IXB_EPHEMERAL_ONLY, sizeof IXB_EPHEMERAL_ONLY - 1), 0);
    assert_string_equal(req.data, "{}");
    buf_free(&req);
    assert_int_equal(ixb_unflag(&req, "{\"content\":\"a\"}", 15), 0);
    assert_string_equal(req.data, "{\"content\":\"a\"}"); /* none to take out */
    buf_free(&req);
}

static void not_ours(void **state)
{
    (void)state;
    static const char *const reqs[] = {
        "",
        "{\"type\":4}",
        "{\"type\":4,\"data\":[1]}",
        "{\"type\":40,\"data\":{}}",
        "{\"type\":14,\"data\":{}}",
        "{\"data\":{},\"type\":4}",
    };
    for (size_t i = 0; i < sizeof reqs / sizeof reqs[0]; i++) {
        size_t at, len;
        if (ixb_data(reqs[i], strlen(reqs[i]), 4, &at, &len))
            fail_msg("read data from %s", reqs[i]);
    }
}

/* A cap one byte short: -1, and the buffer left empty; at the cap: whole. */
static void cap_reached(void **state)
{
    (void)state;
    char text[256];
    every_escape(text, sizeof text);
    struct buf body, req;
    ephemeral(&body, text);
    size_t wrapped = body.len + strlen("{\"type\":4,\"data\":}");
    buf_init(&req, wrapped - 1);
    assert_int_equal(ixb_wrap(&req, 4, body.data, body.len), -1);
    assert_int_equal(req.len, 0);
    assert_null(req.data);
    buf_init(&req, wrapped);
    assert_int_equal(ixb_wrap(&req, 4, body.data, body.len), 0);
    assert_int_equal(req.len, wrapped);
    buf_free(&req);

    size_t plain = body.len - (sizeof IXB_EPHEMERAL - 1) + 1;
    buf_init(&req, plain - 1);
    assert_int_equal(ixb_unflag(&req, body.data, body.len), -1);
    assert_int_equal(req.len, 0);
    assert_null(req.data);
    buf_init(&req, plain);
    assert_int_equal(ixb_unflag(&req, body.data, body.len), 0);
    assert_int_equal(req.len, plain);
    buf_free(&req);
    buf_free(&body);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(wrapped_every_escape),
        cmocka_unit_test(without_data),
        cmocka_unit_test(not_ours),
        cmocka_unit_test(cap_reached),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
