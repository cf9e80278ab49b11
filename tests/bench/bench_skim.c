/*
 * bench_skim.c - what the gateway skimmer (adapters/discord/skim.h) costs a
 * message, next to json-c's parse of the whole message (gw_decode), over the
 * frames of a data file.
 *
 *     bench_skim FRAMES [ITERATIONS]
 *
 * FRAMES holds "NAME FRAME" lines ('#' starts a comment). Prints one line a
 * frame: what the skimmer made of it and the nanoseconds a call of each took
 * (the median of five runs of ITERATIONS calls, 20,000 by default). Exits 1
 * when the file cannot be read or a frame is no gateway message.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "gateway.h"
#include "skim.h"

#define MAX_LINE  65536
#define RUNS      5
#define MAX_ITERS 10000000UL

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nanoseconds a call of one(frame) takes: the median of RUNS runs of iters calls. */
static double time_calls(void (*one)(const char *, size_t), const char *frame, size_t len,
                         unsigned long iters)
{
    double runs[RUNS];
    for (int r = 0; r < RUNS; r++) {
        double t0 = now_ns();
        for (unsigned long i = 0; i < iters; i++)
            one(frame, len);
        runs[r] = (now_ns() - t0) / (double)iters;
    }
    qsort(runs, RUNS, sizeof(*runs), by_value);
    return runs[RUNS / 2];
}

static void skim_once(const char *frame, size_t len)
{
    int64_t seq;
    struct gw_message message;
    gw_skim(frame, len, &seq, &message);
}

static void decode_once(const char *frame, size_t len)
{
    struct gw_payload p;
    json_object_put(gw_decode(frame, len, &p));
}

int main(int argc, char **argv)
{
    static const char *const answers[] = {
        [GW_SKIM_PARSE] = "parse", [GW_SKIM_IGNORE] = "ignore", [GW_SKIM_MESSAGE] = "message"};
    unsigned long iters = 20000;
    if (argc < 2 || argc > 3 || (argc == 3 && (iters = strtoul(argv[2], NULL, 10)) == 0) ||
        iters > MAX_ITERS) {
        fprintf(stderr, "usage: bench_skim FRAMES [ITERATIONS]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    static char line[MAX_LINE];
    int status = 0;
    printf("%-10s %7s %-8s %10s %10s %6s\n", "frame", "bytes", "skim", "skim ns", "parse ns",
           "ratio");
    while (fgets(line, sizeof(line), f)) {
        line[strcspn(line, "\n")] = '\0';
        char *frame = strchr(line, ' ');
        if (line[0] == '#' || !frame)
            continue;
        *frame++ = '\0';
        size_t len = strlen(frame);
        struct gw_payload p;
        struct json_object *whole = gw_decode(frame, len, &p);
        if (!whole) {
            fprintf(stderr, "%s: no gateway message\n", line);
            status = 1;
            continue;
        }
        json_object_put(whole);
        int64_t seq;
        struct gw_message message;
        enum gw_skim answer = gw_skim(frame, len, &seq, &message);
        double skim = time_calls(skim_once, frame, len, iters);
        double parse = time_calls(decode_once, frame, len, iters);
        printf("%-10s %7zu %-8s %10.0f %10.0f %6.2f\n", line, len, answers[answer], skim, parse,
               skim / parse);
    }
    if (ferror(f)) {
        perror(argv[1]);
        status = 1;
    }
    fclose(f);
    return status;
}
