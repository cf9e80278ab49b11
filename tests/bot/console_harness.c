/*
 * console_harness.c - a child illegald on pipes, and its transcript.
 */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "console_harness.h"
#include "core/catalog.h"

#define READ_TIMEOUT_MS 120000

static void die(const char *what)
{
    fprintf(stderr, "harness: %s: %s\n", what, strerror(errno));
    abort();
}

void harness_init(struct harness *h, uint64_t seed)
{
    memset(h, 0, sizeof *h);
    h->pid = -1;
    h->seed = seed;
    /* Memory-backed when possible: the tests kill processes, not machines,
     * so they need no fsync to reach a disk. */
    snprintf(h->dir, sizeof h->dir, "%s/illegald-test-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    if (!mkdtemp(h->dir))
        die("mkdtemp");
    snprintf(h->store, sizeof h->store, "%s/store.db", h->dir);
    harness_start(h);
}

void harness_start(struct harness *h)
{
    int in[2], out[2];
    char seed[32], log[320];
    if (pipe(in) < 0 || pipe(out) < 0)
        die("pipe");
    snprintf(seed, sizeof seed, "%llu", (unsigned long long)h->seed);
    snprintf(log, sizeof log, "%s/stderr.log", h->dir);
    pid_t pid = fork();
    if (pid < 0)
        die("fork");
    if (pid == 0) {
        int err = open(log, O_WRONLY | O_CREAT | O_APPEND, 0600);
        dup2(in[0], 0);
        dup2(out[1], 1);
        if (err >= 0)
            dup2(err, 2);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        /* The store must be this test's own, whatever the environment says. */
        unsetenv("ILLEGALD_STORE_PATH");
        execl(ILLEGALD_BIN, "illegald", "--console", "--virtual-time", "--seed", seed, "--store",
              h->store, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    h->pid = pid;
    h->to_child = in[1];
    h->from_child = out[0];
    h->len = 0;
}

void harness_send(struct harness *h, const char *line)
{
    if (h->nsent == h->capsent) {
        h->capsent = h->capsent ? h->capsent * 2 : 1024;
        h->sent = realloc(h->sent, h->capsent * sizeof *h->sent);
        if (!h->sent)
            die("realloc");
    }
    h->sent[h->nsent] = strdup(line);
    if (!h->sent[h->nsent++])
        die("strdup");
    size_t n = strlen(line);
    const char *p = line;
    while (n) {
        ssize_t w = write(h->to_child, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            die("write to daemon");
        p += w;
        n -= (size_t)w;
    }
    if (write(h->to_child, "\n", 1) != 1)
        die("write to daemon");
}

void harness_sendf(struct harness *h, const char *fmt, ...)
{
    char line[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    harness_send(h, line);
}

void harness_message(struct harness *h, const char *channel, const char *user, const char *text,
                     bool moderator)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "type", json_object_new_string("message"));
    json_object_object_add(o, "channel", json_object_new_string(channel));
    json_object_object_add(o, "user", json_object_new_string(user));
    json_object_object_add(o, "text", json_object_new_string(text));
    if (moderator)
        json_object_object_add(o, "moderator", json_object_new_boolean(1));
    harness_send(h, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
}

static void add_line(struct harness *h, const char *text, size_t len)
{
    struct json_object *o = json_tokener_parse(text);
    (void)len;
    if (!o) {
        fprintf(stderr, "harness: daemon wrote a line that is not JSON: %s\n", text);
        abort();
    }
    if (h->nlines == h->caplines) {
        h->caplines = h->caplines ? h->caplines * 2 : 1024;
        h->lines = realloc(h->lines, h->caplines * sizeof *h->lines);
        if (!h->lines)
            die("realloc");
    }
    h->lines[h->nlines++] = o;
}

/* Reads whatever is available (waiting up to the timeout) and splits lines.
 * Returns false at end of output. */
static bool read_some(struct harness *h)
{
    struct pollfd pfd = {.fd = h->from_child, .events = POLLIN};
    int rc = poll(&pfd, 1, READ_TIMEOUT_MS);
    if (rc == 0) {
        fprintf(stderr, "harness: the daemon said nothing for %d s\n", READ_TIMEOUT_MS / 1000);
        abort();
    }
    if (h->cap - h->len < 65536) {
        h->cap = h->cap ? h->cap * 2 : 1 << 20;
        h->buf = realloc(h->buf, h->cap);
        if (!h->buf)
            die("realloc");
    }
    ssize_t n = read(h->from_child, h->buf + h->len, h->cap - h->len - 1);
    if (n < 0 && errno == EINTR)
        return true;
    if (n <= 0)
        return false;
    h->len += (size_t)n;
    size_t start = 0;
    for (size_t i = 0; i < h->len; i++)
        if (h->buf[i] == '\n') {
            h->buf[i] = '\0';
            add_line(h, h->buf + start, i - start);
            start = i + 1;
        }
    memmove(h->buf, h->buf + start, h->len - start);
    h->len -= start;
    return true;
}

static bool is_pong(const struct json_object *o, const char *id)
{
    const char *type = line_str(o, "type");
    const char *got = line_str(o, "id");
    return type && strcmp(type, "pong") == 0 && got && strcmp(got, id) == 0;
}

size_t harness_sync(struct harness *h)
{
    size_t from = h->nlines;
    char id[32];
    snprintf(id, sizeof id, "sync-%u", ++h->pings);
    harness_sendf(h, "{\"type\":\"ping\",\"id\":\"%s\"}", id);
    for (;;) {
        for (size_t i = from; i < h->nlines; i++)
            if (is_pong(h->lines[i], id))
                return from;
        if (!read_some(h)) {
            fprintf(stderr, "harness: the daemon stopped before answering %s\n", id);
            abort();
        }
    }
}

void harness_kill(struct harness *h)
{
    kill(h->pid, SIGKILL);
    waitpid(h->pid, NULL, 0);
    close(h->to_child);
    close(h->from_child);
    h->pid = -1;
}

int harness_finish(struct harness *h)
{
    int status;
    close(h->to_child);
    while (read_some(h))
        ;
    close(h->from_child);
    waitpid(h->pid, &status, 0);
    h->pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void harness_free(struct harness *h)
{
    char path[400];
    if (h->pid > 0)
        harness_kill(h);
    for (size_t i = 0; i < h->nlines; i++)
        json_object_put(h->lines[i]);
    free(h->lines);
    for (size_t i = 0; i < h->nsent; i++)
        free(h->sent[i]);
    free(h->sent);
    free(h->buf);
    const char *files[] = {"store.db", "store.db-wal", "store.db-shm", "store.db-lock",
                           "stderr.log"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", h->dir, files[i]);
        unlink(path);
    }
    rmdir(h->dir);
}

const char *line_str(const struct json_object *line, const char *key)
{
    struct json_object *v;
    if (!json_object_object_get_ex(line, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

struct json_object *line_data(const struct json_object *line, const char *key)
{
    struct json_object *data, *v;
    if (!json_object_object_get_ex(line, "data", &data) ||
        !json_object_object_get_ex(data, key, &v))
        return NULL;
    return v;
}

const char *line_data_str(const struct json_object *line, const char *key)
{
    struct json_object *v = line_data(line, key);
    return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

bool line_in(const struct json_object *line, const char *channel)
{
    const char *c = line_str(line, "channel");
    return c && strcmp(c, channel) == 0;
}

long harness_find(const struct harness *h, size_t from, const char *channel, const char *needle)
{
    for (size_t i = h->nlines; i-- > from;) {
        const char *text = line_str(h->lines[i], "text");
        if (line_in(h->lines[i], channel) && text && strstr(text, needle))
            return (long)i;
    }
    return -1;
}

static bool is_ping(const char *line)
{
    return strstr(line, "\"type\":\"ping\"") != NULL;
}

unsigned harness_replay(struct harness *h, const struct harness *recorded, unsigned times,
                        void (*interrupt)(struct harness *h, void *arg), void *arg)
{
    size_t inputs = 0, sent = 0;
    unsigned done = 0;
    for (size_t i = 0; i < recorded->nsent; i++)
        inputs += !is_ping(recorded->sent[i]);
    size_t every = inputs / (times + 1);
    assert_true(every > 0);
    for (size_t i = 0; i < recorded->nsent; i++) {
        if (is_ping(recorded->sent[i]))
            continue;
        harness_send(h, recorded->sent[i]);
        if (++sent % every == 0 && done < times) {
            harness_sync(h);
            interrupt(h, arg);
            done++;
        }
    }
    harness_sync(h);
    return done;
}

void harness_scores(const struct harness *h, const char *table, char *out, size_t len)
{
    for (size_t i = h->nlines; i-- > 0;) {
        const char *type = line_str(h->lines[i], "type");
        if (type && strcmp(type, "game_over") == 0 && line_in(h->lines[i], table)) {
            struct json_object *scores;
            assert_true(json_object_object_get_ex(h->lines[i], "scores", &scores));
            snprintf(out, len, "%s",
                     json_object_to_json_string_ext(scores, JSON_C_TO_STRING_PLAIN));
            return;
        }
    }
    fail_msg("no game_over for %s", table);
}

unsigned harness_count(const struct harness *h, const char *type)
{
    unsigned n = 0;
    for (size_t i = 0; i < h->nlines; i++) {
        const char *t = line_str(h->lines[i], "type");
        n += t && strcmp(t, type) == 0;
    }
    return n;
}

unsigned harness_new_messages(const struct harness *h, const char *channel)
{
    unsigned n = 0;
    for (size_t i = 0; i < h->nlines; i++) {
        const char *t = line_str(h->lines[i], "type");
        n += t && (strcmp(t, "send") == 0 || strcmp(t, "poll") == 0) &&
             line_in(h->lines[i], channel);
    }
    return n;
}

/* The longest words of key's text in lang between its placeholders: words
 * that only that message has. */
void harness_fixed_words(const char *lang, const char *key, char *out, size_t len)
{
    const char *t = catalog_text(lang, key);
    out[0] = '\0';
    while (t && *t) {
        size_t n = strcspn(t, "{");
        if (n > strlen(out) && n < len)
            snprintf(out, len, "%.*s", (int)n, t);
        t += n;
        t += *t ? strcspn(t, "}") + (t[strcspn(t, "}")] ? 1 : 0) : 0;
    }
}
