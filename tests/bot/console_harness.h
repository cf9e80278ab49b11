/*
 * console_harness.h - drives a real `illegald --console` process for tests.
 *
 * The daemon runs as a child with pipes on stdin and stdout. Tests send JSON
 * lines and collect every line the daemon writes. harness_sync() sends a ping
 * and waits for its pong, so that every line sent before it has been handled
 * and committed. Nothing here knows the rules; tests read the transcript.
 */
#ifndef TESTS_CONSOLE_HARNESS_H
#define TESTS_CONSOLE_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct json_object;

struct harness {
    pid_t pid;
    int to_child, from_child;
    char *buf; /* bytes read but not yet split into lines */
    size_t len, cap;
    unsigned pings;
    /* Every line the daemon wrote, in order, across restarts. */
    struct json_object **lines;
    size_t nlines, caplines;
    /* Every line sent, in order (pings included), for replaying a game. */
    char **sent;
    size_t nsent, capsent;
    char dir[256];   /* temporary directory holding the store */
    char store[300]; /* the store's path */
    uint64_t seed;
};

/* Makes a temporary directory and starts the daemon on a new store there. */
void harness_init(struct harness *h, uint64_t seed);

/* (Re)starts the daemon on the harness's store. */
void harness_start(struct harness *h);

/* Sends one input line (a JSON text, no newline). */
void harness_send(struct harness *h, const char *line);

/* printf-style harness_send. */
void harness_sendf(struct harness *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Sends a "message" event; channel "dm" is a direct message. Text is escaped. */
void harness_message(struct harness *h, const char *channel, const char *user, const char *text,
                     bool moderator);

/* Waits until every line sent so far is handled. Returns the index of the
 * first line that arrived during this call (lines[from..nlines) are new). */
size_t harness_sync(struct harness *h);

/* Kills the daemon with SIGKILL and reaps it. */
void harness_kill(struct harness *h);

/* Closes stdin, reads the remaining output and returns the exit status. */
int harness_finish(struct harness *h);

/* Frees everything and removes the temporary directory. */
void harness_free(struct harness *h);

/*
 * Replays into h every input `recorded` sent (its pings aside). After the
 * input that completes each of `times` equal parts, it waits for the daemon
 * and calls interrupt(h, arg), which must leave a daemon running on the same
 * store. Returns how many interruptions there were.
 */
unsigned harness_replay(struct harness *h, const struct harness *recorded, unsigned times,
                        void (*interrupt)(struct harness *h, void *arg), void *arg);

/* Writes the scores of table's game_over line as compact JSON; fails the test if none. */
void harness_scores(const struct harness *h, const char *table, char *out, size_t len);

/* How many lines of the given type the daemon wrote. */
unsigned harness_count(const struct harness *h, const char *type);

/* How many new messages (not edits) the daemon posted to channel ("t1", "dm:alice"). */
unsigned harness_new_messages(const struct harness *h, const char *channel);

/* Field accessors on a line; NULL/false/-1 when absent. */
const char *line_str(const struct json_object *line, const char *key);
const char *line_data_str(const struct json_object *line, const char *key);
struct json_object *line_data(const struct json_object *line, const char *key);

/* True when line is a message to channel (e.g. "t1" or "dm:alice"). */
bool line_in(const struct json_object *line, const char *channel);

/* Index of the last line at or after `from` that is a message to channel and
 * whose text contains needle; -1 when none. */
long harness_find(const struct harness *h, size_t from, const char *channel, const char *needle);

/* Writes into out the longest run of key's text in lang between its
 * placeholders: words that only that message has, to look for where the
 * message must not be. "" when the catalog has no such text. */
void harness_fixed_words(const char *lang, const char *key, char *out, size_t len);

#endif
