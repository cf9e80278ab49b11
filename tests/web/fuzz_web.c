/*
 * fuzz_web.c - what the web adapter's fuzz targets share (fuzz_web.h).
 */
#include "fuzz_web.h"
#include "adapters/web/internal.h"

struct json_object *fuzz_state;

char *fuzz_state_get(void *ctx, struct platform *p, const char *key)
{
    (void)ctx;
    (void)p;
    struct json_object *v;
    if (!json_object_object_get_ex(fuzz_state, key, &v))
        return NULL;
    return strdup(json_object_get_string(v));
}

int fuzz_state_set(void *ctx, struct platform *p, const char *key, const char *value)
{
    (void)ctx;
    (void)p;
    return json_object_object_add(fuzz_state, key, json_object_new_string(value));
}

int fuzz_state_del(void *ctx, struct platform *p, const char *key)
{
    (void)ctx;
    (void)p;
    json_object_object_del(fuzz_state, key);
    return 0;
}

void fuzz_web_frames(struct web *w, const uint8_t *data, size_t size, void (*each)(unsigned n))
{
    /* two sockets, so table lists and the shared output bound reach another one */
    struct conn conns[2];
    for (int i = 0; i < 2; i++)
        web_conn_init(w, &conns[i], NULL);
    const char *buf = (const char *)data, *end = buf + size;
    unsigned n = 0;
    while (buf < end) {
        const char *nl = memchr(buf, '\n', (size_t)(end - buf));
        size_t len = nl ? (size_t)(nl - buf) : (size_t)(end - buf);
        struct conn *c = &conns[n++ & 1];
        if (len <= WEB_MAX_FRAME)
            web_on_message(w, c, buf, len);
        if (each)
            each(n);
        buf += len + (nl != NULL);
    }
    /* one socket leaves as a closed one does (tables and seat released), alone in the list */
    for (int i = 0; i < 2; i++)
        conns[i].want_write = false;
    web_conn_unlink(w, &conns[1]);
    web_conn_leave(w, &conns[0]);
    web_conn_free(&conns[1]);
}
