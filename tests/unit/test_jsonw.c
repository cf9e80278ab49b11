/*
 * test_jsonw.c - the JSON writer (adapters/common/jsonw.h) against its cases
 * in jsonw_cases.txt: what is written, in the writer's calls, and the exact
 * bytes that must come out ("error" when the writer must refuse). Every
 * string a case writes is also read back by json-c, which must find the same
 * text, made valid UTF-8.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "adapters/common/jsonw.h"
#include "case_file.h"

static const char *cases_path;

/* A case's text: \xNN, \\ and \s (a space) decoded, into out; its length. */
static size_t decode(const char *s, size_t n, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '\\' || i + 1 == n) {
            out[o++] = s[i];
        } else if (s[i + 1] == 'x' && i + 3 < n + 1) {
            char hex[3] = {s[i + 2], s[i + 3], 0};
            out[o++] = (char)strtoul(hex, NULL, 16);
            i += 3;
        } else {
            out[o++] = s[i + 1] == 's' ? ' ' : s[i + 1];
            i++;
        }
    }
    out[o] = '\0';
    return o;
}

/* Runs one call of a case: "{" "}" "[" "]" "k:NAME" "s:TEXT" "i:N" "true"
 * "false" "null" "open" "add:TEXT" "close" "json:JSON" "repeat:N:TEXT" (a
 * string of TEXT N times). */
static void call(struct jw *w, const char *t, size_t n)
{
    static char text[1 << 17];
    if (n == 1 && strchr("{}[]", *t)) {
        void (*const fns[])(struct jw *) = {jw_object, jw_object_end, jw_array, jw_array_end};
        fns[strchr("{}[]", *t) - "{}[]"](w);
    } else if (strncmp(t, "k:", 2) == 0) {
        decode(t + 2, n - 2, text);
        jw_key(w, text);
    } else if (strncmp(t, "s:", 2) == 0) {
        jw_strn(w, text, decode(t + 2, n - 2, text));
    } else if (strncmp(t, "add:", 4) == 0) {
        jw_str_add(w, text, decode(t + 4, n - 4, text));
    } else if (strncmp(t, "i:", 2) == 0) {
        jw_int(w, strtoll(t + 2, NULL, 10));
    } else if (strncmp(t, "repeat:", 7) == 0) {
        char *end;
        unsigned long times = strtoul(t + 7, &end, 10);
        size_t len = decode(end + 1, n - (size_t)(end + 1 - t), text);
        assert_true(len * times < sizeof text);
        for (unsigned long i = 1; i < times; i++)
            memcpy(text + i * len, text, len);
        jw_strn(w, text, len * times);
    } else if (n == 4 && strncmp(t, "true", 4) == 0) {
        jw_bool(w, true);
    } else if (n == 5 && strncmp(t, "false", 5) == 0) {
        jw_bool(w, false);
    } else if (n == 4 && strncmp(t, "null", 4) == 0) {
        jw_null(w);
    } else if (n == 4 && strncmp(t, "open", 4) == 0) {
        jw_str_open(w);
    } else if (n == 5 && strncmp(t, "close", 5) == 0) {
        jw_str_close(w);
    } else {
        fail_msg("unknown call \"%.*s\"", (int)n, t);
    }
}

/* The expected bytes: \xNN decoded, in place. */
static void decode_hex(char *s)
{
    char *o = s;
    for (const char *p = s; *p; p++) {
        if (p[0] == '\\' && p[1] == 'x' && p[2] && p[3]) {
            char hex[3] = {p[2], p[3], 0};
            *o++ = (char)strtoul(hex, NULL, 16);
            p += 3;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
}

/* The case's calls (spaces between them) written into b. */
static int run(const char *calls, struct buf *b)
{
    struct jw w;
    jw_init(&w, b);
    if (strncmp(calls, "json:", 5) == 0) {
        struct json_object *o = json_tokener_parse(calls + 5);
        assert_non_null(o);
        jw_json(&w, o);
        json_object_put(o);
        return jw_finish(&w);
    }
    for (const char *t = calls; *t;) {
        size_t n = strcspn(t, " ");
        call(&w, t, n);
        t += n + (t[n] == ' ');
    }
    return jw_finish(&w);
}

/* What a reader makes of the bytes written: valid JSON, and every string
 * valid UTF-8 (json-c reads any bytes; the check is ours). */
static void read_back(const char *line, const struct buf *b)
{
    struct json_tokener *tok = json_tokener_new();
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    /* with its NUL, so that a number at the end is known to end there */
    struct json_object *o = json_tokener_parse_ex(tok, b->data, (int)b->len + 1);
    if (json_tokener_get_error(tok) != json_tokener_success || /* null reads as NULL */
        json_tokener_get_parse_end(tok) < b->len)
        fail_msg("%s: %s does not read back as one strict JSON value", line, b->data);
    json_object_put(o);
    json_tokener_free(tok);
}

static void cases(void **state)
{
    (void)state;
    FILE *f = fopen(cases_path, "r");
    assert_non_null(f);
    static char line[1 << 16];
    unsigned n = 0;
    while (case_next(f, line, sizeof line)) {
        char *sep = strstr(line, " => ");
        assert_non_null(sep);
        *sep = '\0';
        const char *calls = line;
        char *want = sep + 4;
        decode_hex(want);
        size_t cap = 1u << 20;
        if (strncmp(calls, "cap=", 4) == 0) {
            char *end;
            cap = strtoul(calls + 4, &end, 10);
            calls = end + 1;
        }
        struct buf b;
        buf_init(&b, cap);
        int rc = run(calls, &b);
        assert_true(b.len <= cap);
        if (strcmp(want, "error") == 0) {
            if (rc == 0)
                fail_msg("%s: written (%s), where it must fail", calls, b.data);
        } else if (strncmp(want, "len=", 4) == 0) {
            if (rc != 0 || b.len != strtoul(want + 4, NULL, 10))
                fail_msg("%s: %zu bytes written (rc %d), want %s", calls, b.len, rc, want);
            read_back(calls, &b);
        } else {
            if (rc != 0 || strcmp(b.data ? b.data : "", want) != 0)
                fail_msg("%s:\n  got  %s\n  want %s", calls, rc ? "(failed)" : b.data, want);
            read_back(calls, &b);
        }
        buf_free(&b);
        n++;
    }
    fclose(f);
    printf("%u cases\n", n);
    assert_true(n > 20);
}

/* Every byte value, alone and between others: the output reads back as the
 * input made valid, each bad byte one U+FFFD. */
static void every_byte(void **state)
{
    (void)state;
    for (unsigned c = 0; c < 256; c++) {
        char in[3] = {'a', (char)c, 'b'};
        struct buf b;
        struct jw w;
        buf_init(&b, 64);
        jw_init(&w, &b);
        jw_strn(&w, in, 3);
        assert_int_equal(jw_finish(&w), 0);
        struct json_object *o = json_tokener_parse(b.data);
        assert_non_null(o);
        const char *s = json_object_get_string(o);
        size_t len = (size_t)json_object_get_string_len(o);
        if (c < 0x80) {
            assert_int_equal(len, 3);
            assert_memory_equal(s, in, 3);
        } else {
            assert_int_equal(len, 5);
            assert_memory_equal(s,
                                "a\xEF\xBF\xBD"
                                "b",
                                5);
        }
        json_object_put(o);
        buf_free(&b);
    }
}

int main(int argc, char **argv)
{
    cases_path = argc > 1 ? argv[1] : "jsonw_cases.txt";
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cases),
        cmocka_unit_test(every_byte),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
