/*
 * transcript.c - runs one transcript case: console input lines, and the
 * output the daemon must write in answer to each of them.
 *
 * Usage: transcript [--update] CASE
 *
 * The format is described in tests/transcripts/README.md. Each input line is
 * sent to a real `illegald --console --virtual-time`; the runner then waits
 * for a pong, so the lines the daemon wrote in between are exactly the answer
 * to that input, and matches them against the expectation lines that follow
 * the input in the case. With --update the case file is rewritten with what
 * the daemon wrote (exact lines), keeping comments, inputs and `<!` lines, so
 * a behaviour change shows as a diff of the case.
 */
#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/bot/console_harness.h"

#define CASE_LINE_MAX  8192
#define CASE_LINES_MAX 4096

enum case_kind {
    CASE_OTHER,   /* a comment or a blank line: kept as it is */
    CASE_SEED,    /* "seed N": the daemon's --seed, before any input */
    CASE_INPUT,   /* "> ...": one input line */
    CASE_KILL,    /* "! kill": SIGKILL, then a restart on the same store */
    CASE_RESTART, /* "! restart": end of input (exit 0 expected), then a restart */
    CASE_EXACT,   /* "< LINE": the next output line is exactly LINE */
    CASE_GLOB,    /* "<~ PATTERN": the next output line matches PATTERN ('*' any run) */
    CASE_ANY,     /* "<...": any number of output lines */
    CASE_ABSENT,  /* "<! PATTERN": no output line of this step matches PATTERN */
};

struct case_line {
    enum case_kind kind;
    char *text; /* the whole line as written */
    char *arg;  /* what follows the marker (points into text) */
    unsigned number;
};

struct case_file {
    struct case_line lines[CASE_LINES_MAX];
    unsigned n;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("transcript: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

static enum case_kind classify(char *text, char **arg)
{
    static const struct {
        const char *prefix;
        enum case_kind kind;
    } markers[] = {
        {"<...", CASE_ANY},          {"<~ ", CASE_GLOB},   {"<! ", CASE_ABSENT},
        {"< ", CASE_EXACT},          {"> ", CASE_INPUT},   {"! kill", CASE_KILL},
        {"! restart", CASE_RESTART}, {"seed ", CASE_SEED},
    };
    for (size_t i = 0; i < sizeof markers / sizeof *markers; i++) {
        size_t len = strlen(markers[i].prefix);
        if (strncmp(text, markers[i].prefix, len) == 0) {
            *arg = text + len;
            return markers[i].kind;
        }
    }
    *arg = text;
    return CASE_OTHER;
}

static void case_read(const char *path, struct case_file *cf)
{
    char buf[CASE_LINE_MAX];
    FILE *f = fopen(path, "r");
    if (f == NULL)
        die("cannot open %s", path);
    cf->n = 0;
    while (fgets(buf, sizeof buf, f) != NULL) {
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n')
            die("%s:%u: line longer than %d bytes", path, cf->n + 1, CASE_LINE_MAX - 2);
        if (cf->n == CASE_LINES_MAX)
            die("%s: more than %d lines", path, CASE_LINES_MAX);
        buf[strcspn(buf, "\n")] = '\0';
        struct case_line *l = &cf->lines[cf->n];
        l->text = strdup(buf);
        if (l->text == NULL)
            die("out of memory");
        l->kind = classify(l->text, &l->arg);
        l->number = ++cf->n;
    }
    fclose(f);
}

/* Appends s to out (capacity cap), escaping newlines and backslashes. */
static void put_escaped(char *out, size_t cap, size_t *len, const char *s)
{
    for (; s != NULL && *s != '\0' && *len + 3 < cap; s++) {
        if (*s == '\n' || *s == '\\') {
            out[(*len)++] = '\\';
            out[(*len)++] = *s == '\n' ? 'n' : '\\';
        } else {
            out[(*len)++] = *s;
        }
    }
    out[*len] = '\0';
}

static void put_raw(char *out, size_t cap, size_t *len, const char *s)
{
    int n = snprintf(out + *len, cap - *len, "%s", s);
    *len += n < 0 ? 0 : ((size_t)n >= cap - *len ? cap - *len - 1 : (size_t)n);
}

/*
 * One output line in the form a case states it:
 *   send CHANNEL ID KIND: TEXT     edit CHANNEL ID KIND: TEXT
 *   poll CHANNEL ID: TEXT | OPTION | OPTION
 *   TYPE {the rest of the line as JSON}    (react, game_over, error, ...)
 * Text newlines are written "\n".
 */
static void canonical(struct json_object *line, char *out, size_t cap)
{
    const char *type = line_str(line, "type");
    size_t len = 0;
    out[0] = '\0';
    if (type == NULL) {
        put_raw(out, cap, &len, json_object_to_json_string(line));
        return;
    }
    put_raw(out, cap, &len, type);
    if (strcmp(type, "send") == 0 || strcmp(type, "edit") == 0 || strcmp(type, "poll") == 0) {
        const char *kind = line_str(line, "kind");
        put_raw(out, cap, &len, " ");
        put_raw(out, cap, &len, line_str(line, "channel") ? line_str(line, "channel") : "?");
        put_raw(out, cap, &len, " ");
        put_raw(out, cap, &len, line_str(line, "id") ? line_str(line, "id") : "?");
        if (kind != NULL) {
            put_raw(out, cap, &len, " ");
            put_raw(out, cap, &len, kind);
        }
        put_raw(out, cap, &len, ": ");
        put_escaped(out, cap, &len, line_str(line, "text"));
        struct json_object *options;
        if (json_object_object_get_ex(line, "options", &options) &&
            json_object_is_type(options, json_type_array))
            for (size_t i = 0; i < json_object_array_length(options); i++) {
                put_raw(out, cap, &len, " | ");
                put_escaped(out, cap, &len,
                            json_object_get_string(json_object_array_get_idx(options, i)));
            }
        return;
    }
    struct json_object *rest = json_object_new_object();
    if (rest == NULL)
        die("out of memory");
    json_object_object_foreach(line, key, value)
    {
        if (strcmp(key, "type") != 0)
            json_object_object_add(rest, key, json_object_get(value));
    }
    put_raw(out, cap, &len, " ");
    put_raw(out, cap, &len,
            json_object_to_json_string_ext(rest, JSON_C_TO_STRING_PLAIN |
                                                     JSON_C_TO_STRING_NOSLASHESCAPE));
    json_object_put(rest);
}

/* Whether s matches pattern, where '*' stands for any run of characters. */
static bool glob_match(const char *pattern, const char *s)
{
    const char *star = NULL, *resume = NULL;
    while (*s != '\0') {
        if (*pattern == '*') {
            star = pattern++;
            resume = s;
        } else if (*pattern == *s) {
            pattern++;
            s++;
        } else if (star != NULL) {
            pattern = star + 1;
            s = ++resume;
        } else {
            return false;
        }
    }
    while (*pattern == '*')
        pattern++;
    return *pattern == '\0';
}

/* Whether outputs[0..nout) match the expectation lines exp[0..nexp). */
static bool block_match(struct case_line *const *exp, unsigned nexp, char *const *outputs,
                        unsigned nout)
{
    if (nexp == 0)
        return nout == 0;
    if (exp[0]->kind == CASE_ANY) {
        for (unsigned skip = 0; skip <= nout; skip++)
            if (block_match(exp + 1, nexp - 1, outputs + skip, nout - skip))
                return true;
        return false;
    }
    if (nout == 0)
        return false;
    bool ok = exp[0]->kind == CASE_EXACT ? strcmp(exp[0]->arg, outputs[0]) == 0
                                         : glob_match(exp[0]->arg, outputs[0]);
    return ok && block_match(exp + 1, nexp - 1, outputs + 1, nout - 1);
}

/*
 * Turns a case input into a console line. Short forms:
 *   > TABLE USER: TEXT        a message in a table     > dm USER: TEXT   a DM
 *   > mod TABLE USER: TEXT    the same from a moderator
 *   > advance SECONDS         > dms USER open|closed
 *   > react TABLE USER ID KEY
 *   > {...}                   any console line as it is
 *   > raw TEXT                the line TEXT as it is, even when it is no JSON
 */
static void input_line(const char *in, char *out, size_t cap, const char *where)
{
    char a[256], b[256], c[256], d[256];
    const char *colon = strstr(in, ": ");
    bool moderator = strncmp(in, "mod ", 4) == 0;
    if (in[0] == '{') {
        snprintf(out, cap, "%s", in);
    } else if (strncmp(in, "raw ", 4) == 0) {
        snprintf(out, cap, "%s", in + 4);
    } else if (sscanf(in, "advance %255s", a) == 1) {
        snprintf(out, cap, "{\"type\":\"advance\",\"seconds\":%s}", a);
    } else if (sscanf(in, "dms %255s %255s", a, b) == 2) {
        snprintf(out, cap, "{\"type\":\"dms\",\"user\":\"%s\",\"open\":%s}", a,
                 strcmp(b, "open") == 0 ? "true" : "false");
    } else if (sscanf(in, "react %255s %255s %255s %255s", a, b, c, d) == 4) {
        snprintf(out, cap,
                 "{\"type\":\"reaction\",\"channel\":\"%s\",\"user\":\"%s\",\"message\":\"%s\","
                 "\"key\":\"%s\"}",
                 a, b, c, d);
    } else if (colon != NULL && sscanf(in + (moderator ? 4 : 0), "%255s %255[^:]", a, b) == 2) {
        struct json_object *o = json_object_new_object();
        if (o == NULL)
            die("out of memory");
        json_object_object_add(o, "type", json_object_new_string("message"));
        json_object_object_add(o, "channel", json_object_new_string(a));
        json_object_object_add(o, "user", json_object_new_string(b));
        json_object_object_add(o, "text", json_object_new_string(colon + 2));
        if (moderator)
            json_object_object_add(o, "moderator", json_object_new_boolean(true));
        snprintf(out, cap, "%s",
                 json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
                                                       JSON_C_TO_STRING_NOSLASHESCAPE));
        json_object_put(o);
    } else {
        die("%s: cannot read this input: %s", where, in);
    }
}

struct run {
    const char *path;
    struct case_file cf;
    struct harness h;
    bool update;
    FILE *rewrite;
    unsigned failures;
};

static void emit(struct run *r, const char *line)
{
    if (r->rewrite != NULL)
        fprintf(r->rewrite, "%s\n", line);
}

/* Checks the output of one step against its expectation lines [from, to). */
static void check_step(struct run *r, const struct case_line *step, unsigned from, unsigned to,
                       size_t out_from)
{
    static char buf[CASE_LINE_MAX * 4];
    char *outputs[CASE_LINES_MAX];
    struct case_line *exp[CASE_LINES_MAX];
    unsigned nout = 0, nexp = 0;

    for (size_t i = out_from; i < r->h.nlines && nout < CASE_LINES_MAX; i++) {
        const char *type = line_str(r->h.lines[i], "type");
        if (type != NULL && strcmp(type, "pong") == 0)
            continue;
        canonical(r->h.lines[i], buf, sizeof buf);
        outputs[nout] = strdup(buf);
        if (outputs[nout++] == NULL)
            die("out of memory");
    }
    for (unsigned i = from; i < to; i++) {
        struct case_line *l = &r->cf.lines[i];
        if (l->kind == CASE_EXACT || l->kind == CASE_GLOB || l->kind == CASE_ANY)
            exp[nexp++] = l;
    }
    for (unsigned i = from; i < to; i++) {
        const struct case_line *l = &r->cf.lines[i];
        if (l->kind == CASE_ABSENT)
            for (unsigned o = 0; o < nout; o++)
                if (glob_match(l->arg, outputs[o])) {
                    fprintf(stderr, "%s:%u: forbidden line was written: %s\n", r->path, l->number,
                            outputs[o]);
                    r->failures++;
                }
    }
    if (r->update) {
        /* Comments in a step introduce the next one, so they go last. */
        for (unsigned i = from; i < to; i++)
            if (r->cf.lines[i].kind == CASE_ABSENT)
                emit(r, r->cf.lines[i].text);
        for (unsigned o = 0; o < nout; o++)
            fprintf(r->rewrite, "< %s\n", outputs[o]);
        for (unsigned i = from; i < to; i++)
            if (r->cf.lines[i].kind == CASE_OTHER)
                emit(r, r->cf.lines[i].text);
    } else if (!block_match(exp, nexp, outputs, nout)) {
        fprintf(stderr, "%s:%u: the answer to this step differs\n  step: %s\n  expected:\n",
                r->path, step->number, step->text);
        for (unsigned i = 0; i < nexp; i++)
            fprintf(stderr, "    %s\n", exp[i]->text);
        fprintf(stderr, "  written:\n");
        for (unsigned o = 0; o < nout; o++)
            fprintf(stderr, "    < %s\n", outputs[o]);
        r->failures++;
    }
    for (unsigned o = 0; o < nout; o++)
        free(outputs[o]);
}

static void run_case(struct run *r)
{
    char line[CASE_LINE_MAX], where[64];
    uint64_t seed = 1;
    unsigned i = 0, steps = 0;
    bool started = false;

    for (; i < r->cf.n && r->cf.lines[i].kind != CASE_INPUT; i++) {
        if (r->cf.lines[i].kind == CASE_SEED)
            seed = strtoull(r->cf.lines[i].arg, NULL, 10);
        emit(r, r->cf.lines[i].text);
    }
    while (i < r->cf.n) {
        struct case_line *step = &r->cf.lines[i++];
        unsigned from = i;
        while (i < r->cf.n && r->cf.lines[i].kind != CASE_INPUT &&
               r->cf.lines[i].kind != CASE_KILL && r->cf.lines[i].kind != CASE_RESTART)
            i++;
        emit(r, step->text);
        if (!started) {
            harness_init(&r->h, seed);
            started = true;
        }
        size_t out_from = r->h.nlines;
        if (step->kind == CASE_INPUT) {
            snprintf(where, sizeof where, "%s:%u", r->path, step->number);
            input_line(step->arg, line, sizeof line, where);
            harness_send(&r->h, line);
            harness_sync(&r->h);
        } else if (step->kind == CASE_KILL) {
            harness_kill(&r->h);
            harness_start(&r->h);
            out_from = r->h.nlines;
            harness_sync(&r->h);
        } else {
            int status = harness_finish(&r->h);
            if (status != 0) {
                fprintf(stderr, "%s:%u: the daemon exited %d\n", r->path, step->number, status);
                r->failures++;
            }
            out_from = r->h.nlines;
            harness_start(&r->h);
            harness_sync(&r->h);
        }
        check_step(r, step, from, i, out_from);
        steps++;
    }
    if (started) {
        int status = harness_finish(&r->h);
        if (status != 0) {
            fprintf(stderr, "%s: the daemon exited %d at end of input\n", r->path, status);
            r->failures++;
        }
        harness_free(&r->h);
    }
    if (steps == 0)
        die("%s: no input line", r->path);
}

int main(int argc, char **argv)
{
    static struct run r;
    char tmp[4096];
    int arg = 1;

    if (argc > 1 && strcmp(argv[1], "--update") == 0) {
        r.update = true;
        arg++;
    }
    if (arg != argc - 1)
        die("usage: transcript [--update] CASE");
    r.path = argv[arg];
    case_read(r.path, &r.cf);
    if (r.update) {
        snprintf(tmp, sizeof tmp, "%s.new", r.path);
        r.rewrite = fopen(tmp, "w");
        if (r.rewrite == NULL)
            die("cannot write %s", tmp);
    }
    run_case(&r);
    if (r.update) {
        if (fclose(r.rewrite) != 0 || rename(tmp, r.path) != 0)
            die("cannot replace %s", r.path);
        printf("updated %s\n", r.path);
    }
    for (unsigned i = 0; i < r.cf.n; i++)
        free(r.cf.lines[i].text);
    printf("%u passed, %u failed\n", r.failures ? 0 : 1, r.failures ? 1 : 0);
    return r.failures ? 1 : 0;
}
