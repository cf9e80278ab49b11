/*
 * gateway.h - Discord gateway v10 (JSON) shards over libwebsockets, on the
 * host's libuv loop.
 *
 * Each shard: HELLO, heartbeats (the first after interval x jitter), IDENTIFY
 * or RESUME, dispatches in sequence order (a replayed sequence number is never
 * handed on twice), zombie detection, op 7 / op 9, close codes (fatal ones
 * stop the shard with the reason), capped exponential backoff, at most 120
 * sends per 60 s per connection, sends under 4096 bytes, and the session
 * (id, sequence, resume URL) saved through the callbacks.
 */
#ifndef DISCORD_GATEWAY_H
#define DISCORD_GATEWAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bot/util/util.h"

struct uv_loop_s;
struct json_object;
struct gw;
struct gw_message;
struct gw_interaction;

/* Intents, from Discord's list of gateway intents. */
#define GW_INTENT_GUILDS                   (1u << 0)
#define GW_INTENT_GUILD_MEMBERS            (1u << 1)
#define GW_INTENT_GUILD_MESSAGES           (1u << 9)
#define GW_INTENT_GUILD_MESSAGE_REACTIONS  (1u << 10)
#define GW_INTENT_DIRECT_MESSAGES          (1u << 12)
#define GW_INTENT_DIRECT_MESSAGE_REACTIONS (1u << 13)
#define GW_INTENT_MESSAGE_CONTENT          (1u << 15)

#define GW_MAX_SEND       4096 /* a sent payload stays under this many bytes */
#define GW_SEND_LIMIT     120  /* sends per connection ... */
#define GW_SEND_WINDOW_MS 60000u
#define GW_MAX_RECV       (8u << 20)

struct gw_ops {
    /* A dispatch (op 0) with a new sequence number. d is borrowed. */
    void (*dispatch)(void *ud, int shard, const char *type, struct json_object *d, int64_t seq);
    /* A MESSAGE_CREATE dispatch with a new sequence number that the skimmer
     * read (skim.h) instead of dispatch's parse. m and the text its spans
     * point into are the shard's, valid for the call only. */
    void (*message)(void *ud, int shard, const struct gw_message *m, int64_t seq);
    /* An INTERACTION_CREATE dispatch with a new sequence number that the
     * interaction skimmer read (skim_ix.h), as message. */
    void (*interaction)(void *ud, int shard, const struct gw_interaction *ix, int64_t seq);
    /* Store access for the session; get returns a malloc'd string or NULL. */
    char *(*state_get)(void *ud, const char *key);
    void (*state_set)(void *ud, const char *key, const char *value);
    /* state_set without a disk flush of its own: on disk with the bot's next
     * commit, or within about a second (bot/platform.h, state_defer). */
    void (*state_defer)(void *ud, const char *key, const char *value);
    /* The host follows key's value through *version and text (bot/platform.h,
     * state_follow; text NULL: no longer). Returns 0, or -1 when it cannot:
     * the shard then hands over each new sequence with state_defer. May be NULL. */
    int (*state_follow)(void *ud, const char *key, const uint64_t *version,
                        bool (*text)(void *arg, char *out, size_t cap), void *arg);
    /* Discord refused a privileged intent (close 4014) and the shards go on
     * without `dropped`, gw_new's optional intents; called once. May be NULL. */
    void (*intents_dropped)(void *ud, unsigned dropped);
};

struct gw_shard_stats {
    bool ready, stopped;
    int fatal_code; /* the close code that stopped the shard, or 0 */
    unsigned connects, identifies, resumes, zombies, heartbeats;
    unsigned skimmed; /* dispatches ignored from their text, never parsed (skim.h) */
    int64_t seq;
};

/* Whether url (wss://, ws://) needs TLS. */
bool gw_url_tls(const char *url);

/* token and user_agent (sent on the websocket upgrade) are borrowed until
 * gw_close(). tls says whether the gateway URL is wss://: TLS is set up only
 * then, since loading the CA bundle costs start-up time and memory. nshards
 * (at least 1) sizes libwebsockets' descriptor tables, which would otherwise
 * take 16 bytes for every descriptor the process may open. optional: the
 * privileged intents among `intents` the shards drop, rather than stop, when
 * Discord refuses them (close 4014); see gw_ops.intents_dropped. */
struct gw *gw_new(struct uv_loop_s *loop, const char *token, const char *user_agent,
                  unsigned intents, unsigned optional, const struct gw_ops *ops, void *ud, bool tls,
                  int nshards);

/*
 * The request path for a gateway URL's path as lws_parse_uri() gives it
 * ("/" when the URL has none, else without its leading '/'): the URL's own
 * query when it has one, else "?v=10&encoding=json", with
 * "&compress=zlib-stream" when compress is set (the gateway then sends its
 * messages as one compressed stream, inflate.h). A URL's own query is kept
 * as it is; whatever the query, a gateway that does not compress sends
 * text, read as such. "/" gives "/?v=10&encoding=json".
 */
void gw_request_path(const char *url_path, bool compress, char *out, size_t len);

/* One gateway payload's envelope; the pointers are borrowed from the parsed root. */
struct gw_payload {
    int op;
    const char *type; /* "t": the dispatch's name, or NULL */
    int64_t seq;      /* "s", 0 when absent or not a number */
    struct json_object *d;
};
/*
 * Parses one gateway message (the text of a websocket message) into p.
 * Returns the parsed root, which the caller puts and p borrows from, or NULL
 * when it is not a JSON object with an integer "op".
 */
struct json_object *gw_decode(const char *txt, size_t len, struct gw_payload *p);
/*
 * Connects gw_new()'s nshards shards to url (wss:// or ws://).
 * max_concurrency comes from GET /gateway/bot (1 when unknown); delay_ms
 * holds back the first IDENTIFY (session_start_limit exhausted); compress
 * asks for transport compression ([discord] compression). Returns 0 or -1.
 */
int gw_start(struct gw *g, const char *url, int max_concurrency, uint64_t delay_ms,
             bool compress) MUST_USE;
int gw_shard_count(const struct gw *g);
void gw_shard_stats(const struct gw *g, int shard, struct gw_shard_stats *st);
/* Closes every shard so that the session stays resumable, then frees g
 * once the loop has closed its handles. No dispatch happens after it. */
void gw_close(struct gw *g);

#endif
