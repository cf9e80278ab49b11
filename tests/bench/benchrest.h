/*
 * benchrest.h - the REST half of the benchmark's fake Discord: a small
 * HTTP/1.1 keep-alive server on loopback, in its own thread, with no rate
 * limit of its own (the test server's REST holds every bot to Discord's 50
 * requests/s, which a benchmark at 1,000 commands/s cannot use). It answers
 * GET /gateway/bot with the test server's gateway, records each message a
 * bot posts (when, in which channel) and echoes it back on the gateway as the
 * bot's own MESSAGE_CREATE, as Discord does, and counts interaction
 * callbacks. Every other request gets 200 {}.
 */
#ifndef BENCHREST_H
#define BENCHREST_H

#include <stddef.h>

struct fd_server;
struct br_server;

/* Channels of the benchmark's guild (channel ids are br_channel_id(i)). */
#define BR_CHANNELS 50

/* Starts on 127.0.0.1 at a free port; NULL on error. */
struct br_server *br_start(void);
void br_stop(struct br_server *s);
int br_port(const struct br_server *s);

/* The gateway of the bot now under test (NULL between runs): echoes go there,
 * and GET /gateway/bot names it. Resets the counters and pending commands. */
void br_attach(struct br_server *s, struct fd_server *gw);

/* The id of channel i, written into out. */
void br_channel_id(unsigned i, char *out, size_t len);

/* A command was sent in channel i at t (fd_now()): the next message posted
 * there answers it, and its latency is kept when measure is set. */
void br_expect(struct br_server *s, unsigned i, double t, int measure);

/* Messages posted since br_attach. */
unsigned long br_posts(struct br_server *s);
/* Interaction callbacks (POST /interactions/ID/TOKEN/callback) since br_attach. */
unsigned long br_callbacks(struct br_server *s);
/* The time the first message was posted since br_attach, or 0. */
double br_first_post(struct br_server *s);

/* Copies the measured latencies (ms) into out (at most max); returns how many
 * and forgets them. */
size_t br_take_latencies(struct br_server *s, double *out, size_t max);

/* A copy of the first body a bot posted since the server started (the
 * caller frees it), or NULL. */
char *br_first_body(struct br_server *s);

#endif
