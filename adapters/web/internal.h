/*
 * internal.h - what the local table's files share; not an API for anyone else.
 *
 * web.c holds the platform (start, send, stop); frames.c the frames written
 * to sockets; scopes.c the tables and users with their cached frames; seats.c
 * the seats held by tokens; inbound.c what browsers send; limits.c the
 * connection and Host limits; http.c the libwebsockets callback and pages.
 */
#ifndef ADAPTERS_WEB_INTERNAL_H
#define ADAPTERS_WEB_INTERNAL_H

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <json-c/json.h>
#include <libwebsockets.h>
#include <openssl/evp.h>
#include <uv.h>

#include "adapters/web/assets.h"
#include "adapters/web/web.h"
#include "bot/config.h"
#include "bot/log.h"
#include "bot/platform.h"
#include "core/catalog.h"
#include "core/json.h"
#include "core/attributes.h"

#define MOD "web"

#define WEB_MAX_FRAME  8192             /* largest inbound message, bytes */
#define WEB_MAX_OPEN   16               /* tables one socket follows */
#define WEB_CACHE_MAX  256              /* frames kept per table or user */
#define WEB_MAX_TABLES 256              /* tables the adapter remembers */
#define WEB_QUEUE_MAX  (4u << 20)       /* bytes queued to one socket before it is dropped */
#define WEB_FD_SPARE   64               /* descriptors left to the rest of the daemon */
#define WEB_LWS_FDS    8                /* lws's beyond max_connections: listeners, its pipe */
#define WEB_HOSTS_MAX  64               /* names in the list of allowed Host names */
#define WEB_HOST_LEN   256              /* bytes in a Host header */
#define WEB_ADDR_LEN   INET6_ADDRSTRLEN /* bytes in a client address as text */
#define WEB_CHUNK      4096             /* bytes written per WRITEABLE callback */
#define WEB_NAME_MAX   24               /* bytes in a display name */
#define WEB_TABLE_MAX  32               /* bytes in a table id */
#define WEB_TEXT_MAX   2000             /* bytes in a typed command */
#define WEB_KEY_MAX    128              /* bytes in a message key */
#define WEB_TOKEN_MIN  16
#define WEB_TOKEN_MAX  128

struct frame {
    STAILQ_ENTRY(frame) link;
    size_t len;
    unsigned char buf[]; /* LWS_PRE bytes of headroom, then len bytes */
};

struct cached {
    char *key; /* NULL for a message never referred to again */
    char *json;
};

/* The frames sent to one table (is_user false) or one user's DMs. */
struct scope {
    LIST_ENTRY(scope) link;
    char *id;
    bool is_user;
    struct cached *items;
    size_t n, cap;
    /* tables only: what the list of tables shows, once a game opened there */
    char *phase;
    int players;
    bool listed;
    char *creator; /* the user who opened it first, until it is listed */
};

/* A seat (seats.c): every one is in memory, from the store. */
struct seat {
    LIST_ENTRY(seat) link;
    char hash[65];
    char *user;
    char *name;              /* NULL until its first hello names it */
    char addr[WEB_ADDR_LEN]; /* the client address that made it */
    int64_t made, used;      /* when it was made, and last visited (ms) */
    bool played;             /* opened a table, typed or reacted: never forgotten */
};

struct probe {
    STAILQ_ENTRY(probe) link;
    char *user;
};

struct web;
struct ticket;
struct activity_link;

/* libwebsockets' per-connection data, for HTTP and websocket alike. */
struct conn {
    struct web *w; /* NULL once the adapter stopped */
    struct lws *wsi;
    LIST_ENTRY(conn) link;
    /* websocket */
    char addr[WEB_ADDR_LEN]; /* the client's address, "" when unknown */
    char *user, *name;
    char lang[8]; /* the page's language from its hello (a catalog code), or "" */
    char *open[WEB_MAX_OPEN];
    unsigned nopen;
    char *rx;
    size_t rxlen;
    bool in_msg, rx_over, rx_binary;
    STAILQ_HEAD(, frame) queue; /* oldest first; qoff bytes of the first are written */
    size_t qbytes, qoff;
    bool closing, want_write, want_ping;
    bool finish; /* closed once what it has queued is written */
    /* the presence run (http.c) that last told it who is online */
    uint64_t presence_run;
    /* a page inside Discord (activity.c): its user is a Discord user, its one table
     * (open[0], "d#<channel>") the instance's channel */
    bool activity;
    uint64_t authorizing; /* the authorization it waits for, or 0 */
    char *act_channel, *act_guild, *act_dm;
    /* HTTP: a page's file, or an answer made for the request (body, owned) */
    const struct web_asset *asset;
    char *body;
    size_t body_len;
    size_t http_off;
};

/* Lives as long as the lws context (lws frees it), so late callbacks are safe. */
struct shim {
    struct web *w;
};

/* An open connection (from accept() to close) and its client's address. */
struct peer {
    struct lws *wsi;
    char addr[WEB_ADDR_LEN];
};

struct web {
    struct platform base;
    char *bind;
    int cfg_port;
    int port;
    /* limits, from [web] */
    unsigned max_conns, max_per_addr, tables_per_seat, seats_per_addr;
    int unused_seat_secs;
    int hello_secs, idle_secs;
    size_t queue_max;
    char *hosts_cfg;
    char *hosts[WEB_HOSTS_MAX]; /* Host names allowed, lower case, IPv6 without brackets */
    unsigned nhosts;
    struct peer *peers; /* max_conns of them */
    unsigned npeers;
    char pending_addr[WEB_ADDR_LEN]; /* accepted, not yet a wsi */
    bool pending;
    size_t queued; /* bytes queued to all sockets */
    lws_sorted_usec_list_t ping_sul;
    struct lws_context *ctx;  /* set while started */
    struct lws_context *lctx; /* set until lws has wholly destroyed the context */
    struct shim *shim;
    LIST_HEAD(, conn) conns; /* open websockets, newest first */
    unsigned nconns;
    LIST_HEAD(, scope) scopes;
    unsigned ntables;
    LIST_HEAD(, seat) seats; /* every seat (seats.c) */
    unsigned nseats;
    lws_sorted_usec_list_t sweep_sul;
    lws_sorted_usec_list_t presence_sul; /* who is online, told once a burst of changes ends */
    bool presence_armed;
    /* presence runs so far: each room's list is made once a run */
    uint64_t presence_runs;
    STAILQ_HEAD(, probe) probes; /* answered in the order asked */
    lws_sorted_usec_list_t probe_sul;
    bool probe_armed;
    uint64_t order;
    bool started;
    bool local_table;         /* [web] enabled: the local table's own hellos are served */
    char *tls_cert, *tls_key; /* [web] tls_cert and tls_key: HTTPS, or NULL */
    /* the Discord Activity (activity.c), when linked */
    struct activity_link *act;
    char act_origin[128]; /* https://<client id>.discordsays.com */
    LIST_HEAD(, ticket) tickets;
    unsigned ntickets;
    uint64_t act_auth_id;
};

/* --- frames.c --- */

bool web_conn_follows(const struct conn *c, const char *table);

void web_conn_free(struct conn *c);

/* A new websocket of w: c cleared, its queue empty, first in w->conns. */
void web_conn_init(struct web *w, struct conn *c, struct lws *wsi);

/* Closes c once it can be written to; what it had queued is dropped now. */
void web_conn_kill(struct conn *c);

/* Closes c once what it has queued is written (a refusal that explains itself). */
void web_conn_finish(struct conn *c);

void web_conn_queue(struct conn *c, const char *json, size_t len);

void web_conn_queue_obj(struct conn *c, struct json_object *o);

void web_conn_unlink(struct web *w, struct conn *c);

/*
 * Output is queued without calling libwebsockets, and web_conn_wake() only marks
 * the socket; web_wake_all() asks for the WRITEABLE callbacks once the handler
 * returns. So the message handler runs without a live connection (fuzzing).
 */
void web_conn_wake(struct conn *c);

/* Writes the next fragment of the head frame. Returns -1 to close the socket. */
int web_conn_write(struct conn *c) MUST_USE;

/* The string member `name` of o, its length in *len, or NULL (absent, not a string, has NUL). */
const char *web_get_str(struct json_object *o, const char *name, size_t *len);

void web_send_error(struct conn *c, const char *code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void web_sha256_hex(const char *a, const char *b, char out[65]);

/* Normalises a table name into its id in out: lower case, spaces to '-'. */
bool web_table_id(const char *s, size_t len, char out[WEB_TABLE_MAX + 1]);

/* A display name: 1..24 bytes of letters, digits, '-', '_', '.' or non-ASCII UTF-8. */
bool web_valid_name(const char *s, size_t len);

bool web_valid_token(const char *t, size_t len);

void web_wake_all(struct web *w);

/* --- scopes.c --- */

/* Keeps json under key in s: replaces the keyed frame when asked, drops the oldest when full. */
void web_scope_cache(struct scope *s, const char *key, bool replace, const char *json);

struct scope *web_scope_find(struct web *w, const char *id, bool is_user);

void web_scope_free(struct scope *s);

bool web_scope_has_key(const struct scope *s, const char *key);

struct scope *web_scope_new(struct web *w, const char *id, bool is_user);

void web_scope_replay(struct conn *c, const struct scope *s);

/* Forgets table t when nobody follows it and no game was ever opened there; a
 * finished game's table stays until it makes room for a new one (web_table_get). */
void web_table_drop_if_empty(struct web *w, struct scope *t);

/* The table scope for id, made if new (listed only once a game opens there);
 * when the list is full, the oldest finished table nobody follows makes room.
 * NULL when full all the same. */
struct scope *web_table_get(struct web *w, const char *id);

void web_tables_broadcast(struct web *w);

struct json_object *web_tables_json(struct web *w);

/* The games this build has, for a welcome (frames.c); the caller owns it. */
struct json_object *web_games_json(void);
/* GET /games.json: web_games_json() as a body the caller frees, for the
 * first screen, which speaks of the games before any hello. NULL when out of
 * memory. */
char *web_games_http(const char **type, size_t *len);

/* Reads the listed tables and the stored caches (tables and trading rooms). */
void web_tables_load(struct web *w);

/* Stores s's cache (and a table's phase and players) with the bot's next
 * commit; web_scope_forget() deletes it. */
void web_scope_save(struct web *w, const struct scope *s);
void web_scope_forget(struct web *w, const struct scope *s);

/* Stores which users have a stored cache (after a new trading room). */
void web_users_save(struct web *w);

/* How many tables user opened that have no game yet. */
unsigned web_tables_opened_by(const struct web *w, const char *user);

void web_tables_save(struct web *w);

/* --- seats.c --- */

/* Whether name belongs to a seat other than s (any case). */
bool web_name_taken(struct web *w, const struct seat *s, const char *name);

void web_seat_free(struct seat *s);

/*
 * The seat of token: an existing one (*fresh false), or a new one with no
 * name yet, made from client address addr (*fresh true: not yet in w->seats;
 * the caller links it once the hello succeeds, or frees it). NULL with
 * *refused set when addr made seats_per_address seats already; NULL alone on
 * no memory.
 */
struct seat *web_seat_get(struct web *w, const char *token, const char *addr, bool *fresh,
                          bool *refused);

/* A hello took the seat: its last visit is now. */
void web_seat_visit(struct web *w, struct seat *s);

/* A socket of user closed: the seat's last visit, from which expiry counts. */
void web_seat_release(struct web *w, const char *user);

/* The seat of user opened a table, typed or reacted: it is never forgotten. */
void web_seat_played(struct web *w, const char *user);

/* Stores s's row at once. */
void web_seat_save(struct web *w, const struct seat *s);

/* Reads every seat from the store (and drops older builds' name rows). */
void web_seats_load(struct web *w);

/* Forgets the seats that never played and nobody visited for unused_seat_seconds. */
void web_seats_sweep(struct web *w);

/* --- inbound.c --- */

void web_deliver(struct web *w, struct conn *c, enum inbound_type type, const char *channel,
                 const char *text, const char *key, const char *reaction);

void web_on_receive(struct web *w, struct conn *c, const void *in, size_t len);

/* Handles one whole websocket message from c's browser (a JSON object). */
void web_on_message(struct web *w, struct conn *c, const char *buf, size_t len);

/* --- limits.c --- */

/* Whether the request's Host header names an allowed host and this server's port. */
bool web_host_allowed(const struct web *w, struct lws *wsi);

void web_host_refused(struct lws *wsi);

void web_hosts_free(struct web *w);

/*
 * The allowed Host names: [web] hosts (comma-separated), or by default the
 * bind address, localhost, 127.0.0.1 and ::1, and when bound to every
 * interface, the addresses of this machine's interfaces.
 */
int web_hosts_init(struct web *w, bool any);

/* At accept(): whether the client at a may open one more connection (0) or is refused (1). */
int web_peer_admit(struct web *w, const struct lws_filter_network_conn_args *a);

void web_peer_created(struct web *w, struct lws *wsi);

void web_peer_destroyed(struct web *w, struct lws *wsi);

/* The client address of an open connection, or "" when unknown. */
const char *web_peer_addr(const struct web *w, struct lws *wsi);

/* --- invite.c --- */

/* Calls fn with each address of this machine's networks (IPv4, or IPv6 with
 * v6; not loopback, not link-local) and the network's name. Returns how many. */
unsigned web_network_addresses(bool v6, void (*fn)(void *arg, const char *ip, const char *network),
                               void *arg);

/* The answer to GET path when it is /invite.json or /invite/<n>.svg: a new
 * string of len bytes (caller frees) and its Content-Type in *type; NULL for
 * another path, an address the invite does not have, or no memory. */
char *web_invite(const struct web *w, const char *path, const char **type, size_t *len);

/* --- http.c --- */

lws_usec_t web_ping_interval(const struct web *w);

/* Every idle_seconds / 3, pings the seated sockets: a live browser's pong keeps it open. */
void web_ping_run(lws_sorted_usec_list_t *sul);

extern const struct lws_protocols web_protocols[];

/* --- presence (http.c) --- */

/* Who is online changed (a seat's first socket, or its last, came or went):
 * every seated socket is told, once the burst of changes is over. */
void web_presence_changed(struct web *w);

/* --- activity.c --- */

/* Handles a frame of the Activity (an "activity" hello, or any frame of a page
 * inside Discord); false when the frame is the local table's to handle. */
bool web_activity_frame(struct web *w, struct conn *c, const char *type, struct json_object *o);

/* Forgets the tickets that expired. */
void web_activity_sweep(struct web *w);

void web_activity_free(struct web *w);

/* The answer to GET /activity.json (the client id the page's SDK needs), a new
 * string of len bytes, with the Activity on; NULL for another path. */
char *web_activity_http(const struct web *w, const char *path, const char **type, size_t *len);

/* --- http.c (also) --- */

/* A websocket closed: forgets it, then the tables and the seat nobody holds any more. */
void web_conn_leave(struct web *w, struct conn *c);

#endif
