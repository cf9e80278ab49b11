/*
 * config.h - the daemon's settings: INI file, then environment, then defaults.
 *
 * Every key in the file can be overridden by ILLEGALD_<SECTION>_<KEY>
 * (upper case). Any key may instead be given as <key>_file in the file, or as
 * ILLEGALD_<SECTION>_<KEY>_FILE in the environment, naming a file whose
 * contents (trailing newlines removed) are the value: systemd credentials and
 * Docker secrets work that way. Secrets are never logged; config_describe()
 * masks them.
 *
 * Section and key names are case-insensitive. Lines may be indented; there
 * are no continuation lines. Lines starting with ';' or '#' are comments, and
 * " ;" starts a comment after a value, so a value holding " ;" must come from
 * the environment or a <key>_file. Values are taken as written, without quotes.
 * A line holds at most 197 characters (libinih's line buffer); a longer value
 * comes from the environment or a <key>_file. Relative <key>_file paths are
 * relative to the working directory.
 *
 * Optional strings are NULL when unset or set to the empty string; the other
 * strings are never NULL.
 */
#ifndef BOT_CONFIG_H
#define BOT_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/modules.h"
#include "util/util.h"

#define CONFIG_MAX_GUILDS 16

struct config {
    /* [store] */
    char *store_path; /* default "illegald.db"; never empty */
    /* [log] */
    char *log_level; /* "debug", "info" (default), "warn", "error" */
    char *log_file;  /* NULL (default): stderr; reopened on SIGHUP */
    /* [game] */
    char *language;             /* a new table's language (a catalog code), default "en" */
    char *default_game;         /* the module `new` opens at a table that has played none */
    int64_t lobby_idle_seconds; /* a lobby unchanged this long closes; default 3600 */
    int64_t absent_seconds;     /* a player idle this long is warned; 0: never; 43200 */
    int computer_pace;          /* computer players' delays, percent of a person's: 100 */
    int lobbies_per_host;       /* open lobbies one user may host per platform; default 3 */
    int lobbies_per_server;     /* open lobbies of one server (a Discord guild); default 100 */
    int lobbies_total;          /* open lobbies in the whole daemon; default 2000 */
    /* [game.<module>]: each module's defaults, by its index in rules_at(), as
     * its settings table declares them (core/rules.h); config_game() reads one */
    struct rules_defaults game_defaults[RULES_MODULES_MAX];
    /* keys of those read from the plain [game] section, as before games had
     * sections ("session_seconds (game.illegal)"), for one line in the log; "" */
    char game_section_keys[256];
    /* [discord]: enabled when token is set */
    char *discord_token; /* secret */
    char *discord_application_id;
    char *discord_api_url;                   /* default "https://discord.com/api/v10" */
    char *discord_gateway_url;               /* default: asked from GET /gateway/bot */
    char *discord_guilds[CONFIG_MAX_GUILDS]; /* empty: global commands */
    unsigned discord_nguilds;
    char *discord_moderator_role;
    int discord_shards;            /* 0 (default): as GET /gateway/bot says */
    int discord_global_rate_limit; /* REST requests per second in all (default 50) */
    /* "auto" (default): ask for the Message Content intent, go on without it
     * when Discord refuses it; "on": ask, and stop if refused; "off": never ask */
    char *discord_message_content;
    /* The gateway's transport compression (compress=zlib-stream); default
     * true: inflating a message costs less CPU than libwebsockets' client
     * walking its text a byte at a time (adapters/discord/README.md) */
    bool discord_compression;
    /* Not a setting: --register-commands, this start registers the slash
     * commands even when the store says Discord has them as they are */
    bool discord_register_commands;
    /* The Discord Activity (adapters/web/activity.c): the local table's page
     * inside Discord for the game of the channel it is launched in. On needs
     * the token, application_id and client_secret; it starts the [web]
     * listener, which then serves the Activity (and the local table only when
     * [web] enabled is set too). */
    bool discord_activity;       /* default false */
    char *discord_client_id;     /* default: application_id (the same for Discord apps) */
    char *discord_client_secret; /* secret: the OAuth2 client secret */
    bool web_listen;             /* the [web] listener runs: web_enabled or discord_activity */
    /* [matrix]: enabled when homeserver is set */
    char *matrix_homeserver; /* needs access_token, or user_id and password */
    char *matrix_user_id;
    char *matrix_access_token; /* secret */
    char *matrix_password;     /* secret */
    char *matrix_device_id;
    int matrix_moderator_power_level; /* default 50; 0..100 */
    char *matrix_invite_allow;        /* users and servers; empty: the bot's own server; "*": all */
    int matrix_rooms_per_inviter;     /* rooms joined on one user's invites; default 3 */
    int matrix_max_rooms;             /* rooms joined in all; default 1000 */
    char *matrix_pickle_key; /* secret: encrypts the stored encryption keys; unset: a key file */
    /* [web]: the local table */
    bool web_enabled;        /* default true when neither a Discord token nor a homeserver is set */
    char *web_bind;          /* default "127.0.0.1" */
    int web_port;            /* default 8080; 0 picks a free port */
    char *web_hosts;         /* comma list of Host names; NULL: bind, localhost, 127.0.0.1, ::1 */
    int web_max_connections; /* default 512: HTTP and websocket connections at once */
    int web_max_per_address; /* default 64: connections from one client address */
    int web_hello_seconds;   /* default 10: a websocket's time to say hello */
    int web_idle_seconds;    /* default 120: a silent websocket is pinged, then closed */
    int web_tables_per_seat; /* default 4: tables a seat opened that have no game yet */
    int web_queue_bytes;     /* default 64 MiB: output queued to all sockets together */
    int web_seats_per_address;   /* default 32: seats made from one client address */
    int web_unused_seat_seconds; /* default 1 day: a seat that never played is then forgotten */
    char *web_tls_cert; /* PEM certificate chain: the listener speaks HTTPS (both or none) */
    char *web_tls_key;  /* its private key (a path) */
    /* [metrics] */
    bool metrics_enabled; /* default false */
    char *metrics_bind;   /* default "127.0.0.1" */
    int metrics_port;     /* default 9108; never the web listener's address */
};

/* Fills c with the defaults. Returns 0, or -1 on no memory (c then owns
 * nothing). Call config_free() when done, whatever config_load() returned. */
int config_init(struct config *c) MUST_USE;

/*
 * Loads path (if not NULL) over the defaults, then the environment, then
 * validates. On error returns -1 and writes "FILE:LINE: [section] key: reason"
 * (or "environment ILLEGALD_X_Y: reason") into err. c is usable only on 0.
 */
int config_load(struct config *c, const char *path, char *err, size_t errlen) MUST_USE;

/* The defaults of rules' settings: the configuration's. */
const struct rules_defaults *config_game(const struct config *c, const struct rules_module *rules);

/* Frees every string c owns; c may then be config_init'ed again. */
void config_free(struct config *c);

/*
 * Writes the effective settings to out as INI text, one "key = value" line
 * per key in every section, for `illegald --check-config`. Secrets are
 * written as "(set)" or "(not set)", never as their value; so are the
 * credentials, query and fragment of a URL (config_url_shown).
 */
void config_describe(const struct config *c, FILE *out);

/* Writes URL v into out (len bytes, cut to fit) as it may be shown or logged:
 * credentials before the host ("user:password@") and the query and fragment,
 * where tokens travel, each become "(hidden)". */
void config_url_shown(const char *v, char *out, size_t len);

/* True if [section] key holds a secret (a token or a password). Names are
 * case-insensitive; a trailing "_file" is ignored. */
bool config_is_secret_key(const char *section, const char *key);

#endif
