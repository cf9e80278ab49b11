/*
 * config.c - settings from an INI file (parsed by libinih), then from the
 * environment, then checked as a whole.
 *
 * Every key is described once, in keys[] below: its section, name, type,
 * bounds and whether it is a secret. Loading, the environment names, the
 * error messages and config_describe() all walk that one table.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include <ini.h>

#include "config.h"
#include "core/catalog.h"
#include "core/text.h"
#include "log.h"
#include "util/buf.h"

#define ENV_PREFIX     "ILLEGALD_"
#define FILE_SUFFIX    "_file"
#define MAX_VALUE_FILE (64 * 1024) /* largest <key>_file accepted */
#define MAX_LINE       (64 * 1024) /* longest line read whole; inih's own limit is lower */
#define MAX_TIMER      604800      /* one week, as the rules allow */
#define ECHO_MAX       80          /* longest value quoted back in an error */
#define MAX_ERRORS     20          /* errors of one file reported, then "and more" */

enum kind {
    K_STRING,   /* any text */
    K_URL,      /* text starting with <scheme>:// or <scheme>s:// */
    K_MXID,     /* a Matrix user id: @name:server */
    K_BOOL,     /* true/false/yes/no/on/off/1/0 */
    K_INT,      /* an int within [min, max] */
    K_INT64,    /* an int64_t within [min, max] */
    K_LEVEL,    /* a log level name */
    K_LANGUAGE, /* a catalog language */
    K_GAME,     /* a rules module's id */
    K_GUILDS,   /* a comma-separated list of Discord ids */
    K_AUTO,     /* auto, on or off */
};

enum {
    F_OPTIONAL = 1 << 0, /* a string that may be empty, and is then NULL */
    F_SECRET = 1 << 1,   /* never printed */
    F_NOSPACE = 1 << 2,  /* no whitespace or control characters inside */
};

struct key_def {
    const char *section;
    const char *name;
    enum kind kind;
    unsigned flags;
    size_t offset;
    int64_t min, max;   /* K_INT, K_INT64 */
    const char *scheme; /* K_URL: "http" accepts http:// and https:// */
};

#define OFF(field) offsetof(struct config, field)

static const struct key_def keys[] = {
    {"store", "path", K_STRING, 0, OFF(store_path), 0, 0, NULL},
    {"log", "level", K_LEVEL, 0, OFF(log_level), 0, 0, NULL},
    {"log", "file", K_STRING, F_OPTIONAL, OFF(log_file), 0, 0, NULL},
    {"game", "language", K_LANGUAGE, 0, OFF(language), 0, 0, NULL},
    {"game", "default_game", K_GAME, 0, OFF(default_game), 0, 0, NULL},
    {"game", "lobby_idle_seconds", K_INT64, 0, OFF(lobby_idle_seconds), 60, MAX_TIMER, NULL},
    {"game", "absent_seconds", K_INT64, 0, OFF(absent_seconds), 0, MAX_TIMER, NULL},
    {"game", "computer_pace", K_INT, 0, OFF(computer_pace), 0, 1000, NULL},
    {"game", "lobbies_per_host", K_INT, 0, OFF(lobbies_per_host), 1, 1000, NULL},
    {"game", "lobbies_per_server", K_INT, 0, OFF(lobbies_per_server), 1, 1000000, NULL},
    {"game", "lobbies_total", K_INT, 0, OFF(lobbies_total), 1, 1000000, NULL},
    {"discord", "token", K_STRING, F_OPTIONAL | F_SECRET | F_NOSPACE, OFF(discord_token), 0, 0,
     NULL},
    {"discord", "application_id", K_STRING, F_OPTIONAL | F_NOSPACE, OFF(discord_application_id), 0,
     0, NULL},
    {"discord", "api_url", K_URL, F_NOSPACE, OFF(discord_api_url), 0, 0, "http"},
    {"discord", "gateway_url", K_URL, F_OPTIONAL | F_NOSPACE, OFF(discord_gateway_url), 0, 0, "ws"},
    {"discord", "guilds", K_GUILDS, 0, 0, 0, 0, NULL},
    {"discord", "moderator_role", K_STRING, F_OPTIONAL, OFF(discord_moderator_role), 0, 0, NULL},
    {"discord", "shards", K_INT, 0, OFF(discord_shards), 0, 65535, NULL},
    {"discord", "global_rate_limit", K_INT, 0, OFF(discord_global_rate_limit), 1, 10000, NULL},
    {"discord", "message_content", K_AUTO, 0, OFF(discord_message_content), 0, 0, NULL},
    {"discord", "compression", K_BOOL, 0, OFF(discord_compression), 0, 0, NULL},
    {"discord", "activity", K_BOOL, 0, OFF(discord_activity), 0, 0, NULL},
    {"discord", "client_id", K_STRING, F_OPTIONAL | F_NOSPACE, OFF(discord_client_id), 0, 0, NULL},
    {"discord", "client_secret", K_STRING, F_OPTIONAL | F_SECRET | F_NOSPACE,
     OFF(discord_client_secret), 0, 0, NULL},
    {"matrix", "homeserver", K_URL, F_OPTIONAL | F_NOSPACE, OFF(matrix_homeserver), 0, 0, "http"},
    {"matrix", "user_id", K_MXID, F_OPTIONAL | F_NOSPACE, OFF(matrix_user_id), 0, 0, NULL},
    {"matrix", "access_token", K_STRING, F_OPTIONAL | F_SECRET | F_NOSPACE,
     OFF(matrix_access_token), 0, 0, NULL},
    {"matrix", "password", K_STRING, F_OPTIONAL | F_SECRET, OFF(matrix_password), 0, 0, NULL},
    {"matrix", "device_id", K_STRING, F_OPTIONAL | F_NOSPACE, OFF(matrix_device_id), 0, 0, NULL},
    {"matrix", "moderator_power_level", K_INT, 0, OFF(matrix_moderator_power_level), 0, 100, NULL},
    {"matrix", "invite_allow", K_STRING, F_OPTIONAL, OFF(matrix_invite_allow), 0, 0, NULL},
    {"matrix", "rooms_per_inviter", K_INT, 0, OFF(matrix_rooms_per_inviter), 1, 100000, NULL},
    {"matrix", "max_rooms", K_INT, 0, OFF(matrix_max_rooms), 1, 1000000, NULL},
    {"matrix", "pickle_key", K_STRING, F_OPTIONAL | F_SECRET, OFF(matrix_pickle_key), 0, 0, NULL},
    {"web", "enabled", K_BOOL, 0, OFF(web_enabled), 0, 0, NULL},
    {"web", "bind", K_STRING, F_NOSPACE, OFF(web_bind), 0, 0, NULL},
    {"web", "port", K_INT, 0, OFF(web_port), 0, 65535, NULL},
    {"web", "hosts", K_STRING, F_OPTIONAL, OFF(web_hosts), 0, 0, NULL},
    {"web", "max_connections", K_INT, 0, OFF(web_max_connections), 1, 65535, NULL},
    {"web", "max_per_address", K_INT, 0, OFF(web_max_per_address), 1, 65535, NULL},
    {"web", "hello_seconds", K_INT, 0, OFF(web_hello_seconds), 1, 3600, NULL},
    {"web", "idle_seconds", K_INT, 0, OFF(web_idle_seconds), 1, 86400, NULL},
    {"web", "tables_per_seat", K_INT, 0, OFF(web_tables_per_seat), 1, 256, NULL},
    {"web", "queue_bytes", K_INT, 0, OFF(web_queue_bytes), 65536, 1 << 30, NULL},
    {"web", "seats_per_address", K_INT, 0, OFF(web_seats_per_address), 1, 65535, NULL},
    {"web", "unused_seat_seconds", K_INT, 0, OFF(web_unused_seat_seconds), 1, 31536000, NULL},
    {"web", "tls_cert", K_STRING, F_OPTIONAL, OFF(web_tls_cert), 0, 0, NULL},
    {"web", "tls_key", K_STRING, F_OPTIONAL, OFF(web_tls_key), 0, 0, NULL},
    {"metrics", "enabled", K_BOOL, 0, OFF(metrics_enabled), 0, 0, NULL},
    {"metrics", "bind", K_STRING, F_NOSPACE, OFF(metrics_bind), 0, 0, NULL},
    {"metrics", "port", K_INT, 0, OFF(metrics_port), 0, 65535, NULL},
};

#define NKEYS (sizeof keys / sizeof keys[0])

/* Where a key got its value: a line of the file, or an environment variable. */
struct origin {
    int line;      /* > 0: set in the file at this line */
    bool via_file; /* given as <key>_file (in the file or the environment) */
    char env[64];  /* non-empty: set by this environment variable */
};

struct loader {
    struct config *c;
    const char *path;
    FILE *fp;
    struct buf line; /* the line being read, at most MAX_LINE bytes */
    int lineno;
    struct origin origin[NKEYS];
    struct origin game_origin[RULES_MODULES_MAX][RULES_SETTINGS_MAX]; /* [game.<module>] */
    char *err;
    size_t errlen;
    unsigned nerrors;         /* errors reported so far, one a line of err */
    char unknown_section[64]; /* the last unknown section reported */
    bool failed;
};

static char **str_field(struct config *c, const struct key_def *d)
{
    return (char **)((char *)c + d->offset);
}

static char *const *str_field_const(const struct config *c, const struct key_def *d)
{
    return (char *const *)((const char *)c + d->offset);
}

static const struct key_def *find_key(const char *section, const char *name)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcasecmp(keys[i].section, section) == 0 && strcasecmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

static int game_section(const char *section);

static bool known_section(const char *section)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (strcasecmp(keys[i].section, section) == 0)
            return true;
    return game_section(section) >= 0;
}

/* Writes name minus a "_file" suffix into base; false when it has none. */
static bool strip_file_suffix(const char *name, char *base, size_t len)
{
    size_t n = strlen(name), sn = strlen(FILE_SUFFIX);
    if (n <= sn || strcasecmp(name + n - sn, FILE_SUFFIX) != 0 || n - sn >= len)
        return false;
    memcpy(base, name, n - sn);
    base[n - sn] = '\0';
    return true;
}

/* Finds name, or name minus a "_file" suffix (setting *via_file). */
static const struct key_def *find_key_or_file(const char *section, const char *name, bool *via_file)
{
    char base[64];
    *via_file = false;
    const struct key_def *d = find_key(section, name);
    if (d || !strip_file_suffix(name, base, sizeof base))
        return d;
    d = find_key(section, base);
    if (d)
        *via_file = true;
    return d;
}

/* ---- the games' sections: [game.<module>], read from each module's table ---- */

#define GAME_SECTION "game"

/* A setting of a module's table, as the configuration names it. */
struct game_key {
    size_t module; /* its index in rules_at() */
    unsigned row;  /* its entry in the module's settings table */
    const struct rules_setting *s;
};

/* The index of the module whose section is [game.<id>], or -1. */
static int game_section(const char *section)
{
    size_t n = strlen(GAME_SECTION);
    if (strncasecmp(section, GAME_SECTION ".", n + 1) != 0)
        return -1;
    for (size_t i = 0; i < rules_count(); i++)
        if (strcasecmp(section + n + 1, rules_at(i)->id) == 0)
            return (int)i;
    return -1;
}

/* Finds name among the settings section holds: [game.<id>]'s, or in plain
 * [game] (*legacy), those of a module whose settings may be written there. */
static bool find_game_key(const char *section, const char *name, struct game_key *k, bool *legacy)
{
    int only = game_section(section);
    *legacy = only < 0;
    if (only < 0 && strcasecmp(section, GAME_SECTION) != 0)
        return false;
    for (size_t i = 0; i < rules_count(); i++) {
        const struct rules_module *m = rules_at(i);
        if (only >= 0 ? (int)i != only : !m->config_in_game_section)
            continue;
        const struct rules_setting *t = rules_settings(m);
        for (unsigned r = 0; t[r].name; r++) {
            char key[64];
            rules_setting_config_key(&t[r], key, sizeof key);
            if ((t[r].where & RULES_IN_CONFIG) && strcasecmp(key, name) == 0) {
                *k = (struct game_key){i, r, &t[r]};
                return true;
            }
        }
    }
    return false;
}

/* find_game_key(), also for name with a "_file" suffix (setting *via_file). */
static bool find_game_key_or_file(const char *section, const char *name, struct game_key *k,
                                  bool *legacy, bool *via_file)
{
    char base[64];
    *via_file = false;
    if (find_game_key(section, name, k, legacy))
        return true;
    *via_file =
        strip_file_suffix(name, base, sizeof base) && find_game_key(section, base, k, legacy);
    return *via_file;
}

/* Notes a module's key read from plain [game], for the log's one line. */
static void note_game_section_key(struct config *c, const struct game_key *k)
{
    char key[64];
    size_t used = strlen(c->game_section_keys);
    rules_setting_config_key(k->s, key, sizeof key);
    if (strstr(c->game_section_keys, key))
        return;
    snprintf(c->game_section_keys + used, sizeof c->game_section_keys - used, "%s%s (%s.%s)",
             used ? ", " : "", key, GAME_SECTION, rules_at(k->module)->id);
}

const struct rules_defaults *config_game(const struct config *c, const struct rules_module *rules)
{
    return &c->game_defaults[rules_index(rules)];
}

bool config_is_secret_key(const char *section, const char *key)
{
    bool via_file;
    if (!section || !key)
        return false;
    const struct key_def *d = find_key_or_file(section, key, &via_file);
    return d && (d->flags & F_SECRET);
}

/* ---- errors ---- */

/* Adds one error to ld->err, a line each: a file with several mistakes is
 * reported whole, so that one run of --check-config shows them all. */
static void put_error(struct loader *ld, const char *prefix, const char *fmt, va_list ap)
{
    ld->failed = true;
    if (!ld->err || ld->errlen == 0 || ld->nerrors > MAX_ERRORS)
        return;
    size_t used = strlen(ld->err);
    if (ld->nerrors++ == MAX_ERRORS) {
        snprintf(ld->err + used, ld->errlen - used, "\n(more errors not shown)");
        return;
    }
    if (used && used + 1 < ld->errlen)
        ld->err[used++] = '\n';
    if (used + 1 >= ld->errlen)
        return;
    int n = snprintf(ld->err + used, ld->errlen - used, "%s: ", prefix);
    if (n >= 0 && (size_t)n < ld->errlen - used)
        vsnprintf(ld->err + used + (size_t)n, ld->errlen - used - (size_t)n, fmt, ap);
}

/* Records an error found at line of the file; reading goes on to find the others. */
__attribute__((format(printf, 5, 6))) static void
file_error(struct loader *ld, int line, const char *section, const char *name, const char *fmt, ...)
{
    char prefix[512];
    if (section && name)
        snprintf(prefix, sizeof prefix, "%s:%d: [%s] %s", ld->path, line, section, name);
    else if (name)
        snprintf(prefix, sizeof prefix, "%s:%d: %s", ld->path, line, name);
    else
        snprintf(prefix, sizeof prefix, "%s:%d", ld->path, line);
    va_list ap;
    va_start(ap, fmt);
    put_error(ld, prefix, fmt, ap);
    va_end(ap);
}

/* An error of the whole file (it cannot be opened or read): "PATH: reason". */
__attribute__((format(printf, 2, 3))) static void path_error(struct loader *ld, const char *fmt,
                                                             ...)
{
    va_list ap;
    va_start(ap, fmt);
    put_error(ld, ld->path, fmt, ap);
    va_end(ap);
}

__attribute__((format(printf, 3, 4))) static void env_error(struct loader *ld, const char *var,
                                                            const char *fmt, ...)
{
    if (ld->failed)
        return;
    char prefix[128];
    snprintf(prefix, sizeof prefix, "environment %s", var);
    va_list ap;
    va_start(ap, fmt);
    put_error(ld, prefix, fmt, ap);
    va_end(ap);
}

/* Blames whatever set keys[i]: its line in the file, or its variable. */
__attribute__((format(printf, 3, 4))) static void origin_error(struct loader *ld, size_t i,
                                                               const char *fmt, ...)
{
    const struct origin *o = &ld->origin[i];
    char prefix[512];
    if (o->env[0])
        snprintf(prefix, sizeof prefix, "environment %s", o->env);
    else if (o->line > 0)
        snprintf(prefix, sizeof prefix, "%s:%d: [%s] %s%s", ld->path, o->line, keys[i].section,
                 keys[i].name, o->via_file ? FILE_SUFFIX : "");
    else
        snprintf(prefix, sizeof prefix, "configuration: [%s] %s", keys[i].section, keys[i].name);
    va_list ap;
    va_start(ap, fmt);
    put_error(ld, prefix, fmt, ap);
    va_end(ap);
}

/* ---- values ---- */

static bool parse_bool(const char *v, bool *out)
{
    static const char *const yes[] = {"true", "yes", "on", "1"};
    static const char *const no[] = {"false", "no", "off", "0"};
    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(v, yes[i]) == 0) {
            *out = true;
            return true;
        }
        if (strcasecmp(v, no[i]) == 0) {
            *out = false;
            return true;
        }
    }
    return false;
}

/* Parses a whole decimal integer; returns false if v is not one. */
static bool parse_int(const char *v, long long *out)
{
    if (!*v || !(isdigit((unsigned char)*v) || *v == '-' || *v == '+'))
        return false;
    errno = 0;
    char *end;
    long long n = strtoll(v, &end, 10);
    if (*end || end == v)
        return false;
    if (errno == ERANGE)
        n = n < 0 ? INT64_MIN : INT64_MAX; /* reported as out of range */
    *out = n;
    return true;
}

static bool has_space(const char *v)
{
    for (; *v; v++)
        if (isspace((unsigned char)*v) || iscntrl((unsigned char)*v))
            return true;
    return false;
}

/* Writes URL v as it may be shown: credentials before the host ("user:password@")
 * and the query and fragment, where tokens travel, become "(hidden)". */
void config_url_shown(const char *v, char *out, size_t len)
{
    const char *scheme = strstr(v, "://");
    const char *host = scheme ? scheme + 3 : v;
    const char *end = host + strcspn(host, "/?#"), *at = NULL;
    for (const char *p = host; p < end; p++)
        if (*p == '@')
            at = p;
    const char *tail = end + strcspn(end, "?#");
    int n = at ? snprintf(out, len, "%.*s(hidden)%.*s", (int)(host - v), v, (int)(tail - at), at)
               : snprintf(out, len, "%.*s", (int)(tail - v), v);
    const char *fragment = strchr(tail, '#');
    if (n >= 0 && (size_t)n < len)
        snprintf(out + n, len - (size_t)n, "%s%s", *tail == '?' ? "?(hidden)" : "",
                 fragment ? "#(hidden)" : "");
}

static int set_string(char **field, const char *v, bool optional)
{
    char *copy = NULL;
    if (*v || !optional) {
        copy = strdup(v);
        if (!copy)
            return -1;
    }
    free(*field);
    *field = copy;
    return 0;
}

static void free_guilds(struct config *c)
{
    for (unsigned i = 0; i < c->discord_nguilds; i++) {
        free(c->discord_guilds[i]);
        c->discord_guilds[i] = NULL;
    }
    c->discord_nguilds = 0;
}

/* Replaces the guild list with the comma-separated ids in v. */
static int set_guilds(struct config *c, const char *v, char *why, size_t whylen)
{
    char *ids[CONFIG_MAX_GUILDS];
    unsigned n = 0;
    const char *p = v;
    while (*p) {
        while (*p == ' ' || *p == '\t')
            p++;
        const char *start = p;
        while (isdigit((unsigned char)*p))
            p++;
        size_t len = (size_t)(p - start);
        while (*p == ' ' || *p == '\t')
            p++;
        if (*p && *p != ',') {
            snprintf(why, whylen, "a guild id is a number, in \"%.*s\"", ECHO_MAX, v);
            goto fail;
        }
        if (len == 0 || len > 20) {
            snprintf(why, whylen, "%s guild id in \"%.*s\"", len ? "too long a" : "empty", ECHO_MAX,
                     v);
            goto fail;
        }
        if (n == CONFIG_MAX_GUILDS) {
            snprintf(why, whylen, "more than %d guilds", CONFIG_MAX_GUILDS);
            goto fail;
        }
        ids[n] = strndup(start, len);
        if (!ids[n]) {
            snprintf(why, whylen, "out of memory");
            goto fail;
        }
        n++;
        if (*p == ',') {
            p++;
            if (!*p) {
                snprintf(why, whylen, "empty guild id in \"%.*s\"", ECHO_MAX, v);
                goto fail;
            }
        }
    }
    free_guilds(c);
    for (unsigned i = 0; i < n; i++)
        c->discord_guilds[i] = ids[i];
    c->discord_nguilds = n;
    return 0;
fail:
    for (unsigned i = 0; i < n; i++)
        free(ids[i]);
    return -1;
}

/* Sets key d of c from text v. Returns 0, or -1 with the reason in why. */
/* A value's shape before its kind is looked at: not empty (unless it may
 * be), no spaces where none belong; a secret is never echoed. */
static int check_shape(const struct key_def *d, const char *v, char *why, size_t whylen)
{
    char shown[ECHO_MAX + 1];
    if (!*v && !(d->flags & F_OPTIONAL) && d->kind != K_GUILDS) {
        snprintf(why, whylen, "must not be empty");
        return -1;
    }
    if (!(d->flags & F_NOSPACE) || !has_space(v))
        return 0;
    if (d->flags & F_SECRET) {
        snprintf(why, whylen, "must not contain spaces or control characters%s",
                 strcmp(d->section, "discord") == 0 ? " (give the bare token, no \"Bot \")" : "");
        return -1;
    }
    if (d->kind == K_URL)
        config_url_shown(v, shown, sizeof shown);
    snprintf(why, whylen, "must not contain spaces or control characters: \"%.*s\"", ECHO_MAX,
             d->kind == K_URL ? shown : v);
    return -1;
}

static int check_url(const struct key_def *d, const char *v, char *why, size_t whylen)
{
    char shown[ECHO_MAX + 1];
    size_t sl = strlen(d->scheme);
    bool ok = strncmp(v, d->scheme, sl) == 0 &&
              (strncmp(v + sl, "://", 3) == 0 || strncmp(v + sl, "s://", 4) == 0);
    if (!*v || (ok && v[sl + (v[sl] == 's' ? 4 : 3)]))
        return 0;
    config_url_shown(v, shown, sizeof shown);
    snprintf(why, whylen, "not a %s:// or %ss:// URL: \"%s\"", d->scheme, d->scheme, shown);
    return -1;
}

static int check_mxid(const struct key_def *d, const char *v, char *why, size_t whylen)
{
    const char *colon = strchr(v, ':');
    (void)d;
    if (!*v || (v[0] == '@' && colon && colon != v + 1 && colon[1]))
        return 0;
    snprintf(why, whylen, "not a Matrix user id (@name:server): \"%.*s\"", ECHO_MAX, v);
    return -1;
}

static int check_level(const struct key_def *d, const char *v, char *why, size_t whylen)
{
    (void)d;
    if (log_level_parse(v) >= 0)
        return 0;
    snprintf(why, whylen, "unknown log level \"%.*s\" (debug, info, warn or error)", ECHO_MAX, v);
    return -1;
}

static int check_game(const struct key_def *d, const char *v, char *why, size_t whylen)
{
    char list[256] = "";
    (void)d;
    if (rules_by_id(v))
        return 0;
    for (size_t i = 0; i < rules_count(); i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                 rules_at(i)->id);
    snprintf(why, whylen, "unknown game \"%.*s\" (%s)", ECHO_MAX, v, list);
    return -1;
}

static int check_auto(const struct key_def *d, const char *v, char *why, size_t whylen)
{
    (void)d;
    if (strcmp(v, "auto") == 0 || strcmp(v, "on") == 0 || strcmp(v, "off") == 0)
        return 0;
    snprintf(why, whylen, "\"%.*s\" is none of auto, on and off", ECHO_MAX, v);
    return -1;
}

static int check_language(const struct key_def *d, const char *v, char *why, size_t whylen)
{
    char list[256];
    (void)d;
    if (catalog_has_language(v))
        return 0;
    text_languages(list, sizeof list);
    snprintf(why, whylen, "unsupported language \"%.*s\" (one of: %s)", ECHO_MAX, v, list);
    return -1;
}

/* Reads a boolean or a number into its field. */
static int set_number(struct config *c, const struct key_def *d, const char *v, char *why,
                      size_t whylen)
{
    long long n;
    bool b;
    if (d->kind == K_BOOL) {
        if (!parse_bool(v, &b)) {
            snprintf(why, whylen, "not a boolean (true/false, yes/no, on/off, 1/0): \"%.*s\"",
                     ECHO_MAX, v);
            return -1;
        }
        *(bool *)((char *)c + d->offset) = b;
        return 0;
    }
    if (!parse_int(v, &n)) {
        snprintf(why, whylen, "not a number: \"%.*s\"", ECHO_MAX, v);
        return -1;
    }
    if (n < d->min || n > d->max) {
        snprintf(why, whylen, "out of range (%lld..%lld): %.*s", (long long)d->min,
                 (long long)d->max, ECHO_MAX, v);
        return -1;
    }
    if (d->kind == K_INT)
        *(int *)((char *)c + d->offset) = (int)n;
    else
        *(int64_t *)((char *)c + d->offset) = n;
    return 0;
}

/* The check of each kind of text, before it is kept as a string. */
typedef int (*text_check_fn)(const struct key_def *d, const char *v, char *why, size_t whylen);
static const text_check_fn text_checks[] = {
    [K_URL] = check_url,   [K_MXID] = check_mxid, [K_LEVEL] = check_level,
    [K_GAME] = check_game, [K_AUTO] = check_auto, [K_LANGUAGE] = check_language,
};

static int apply(struct config *c, const struct key_def *d, const char *v, char *why, size_t whylen)
{
    if (check_shape(d, v, why, whylen) < 0)
        return -1;
    if (d->kind == K_BOOL || d->kind == K_INT || d->kind == K_INT64)
        return set_number(c, d, v, why, whylen);
    if (d->kind == K_GUILDS)
        return set_guilds(c, v, why, whylen);
    text_check_fn check =
        (size_t)d->kind < sizeof text_checks / sizeof *text_checks ? text_checks[d->kind] : NULL;
    if (check && check(d, v, why, whylen) < 0)
        return -1;
    if (set_string(str_field(c, d), v, d->flags & F_OPTIONAL) < 0) {
        snprintf(why, whylen, "out of memory");
        return -1;
    }
    return 0;
}

/*
 * Reads the value of a <key>_file: the whole file, trailing newlines removed.
 * An empty file is an empty value, which unsets an optional key: systemd's
 * SetCredential= fallback gives an empty credential for a platform not in use.
 * Returns a malloc'd string, or NULL with the reason in why.
 */
static char *read_value_file(const char *path, char *why, size_t whylen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        snprintf(why, whylen, "cannot read %s: %s", path, strerror(errno));
        return NULL;
    }
    char *buf = malloc(MAX_VALUE_FILE + 1);
    if (!buf) {
        fclose(f);
        snprintf(why, whylen, "out of memory");
        return NULL;
    }
    size_t n = fread(buf, 1, MAX_VALUE_FILE + 1, f);
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    const char *problem = NULL;
    if (rerr)
        problem = strerror(rerr);
    else if (n > MAX_VALUE_FILE)
        problem = "larger than 64 KiB";
    else if (memchr(buf, '\0', n))
        problem = "contains a NUL byte";
    while (!problem && n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        n--;
    if (problem) {
        snprintf(why, whylen, "cannot read %s: %s", path, problem);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* ---- the file ---- */

/* A section of keys after a broken [header]: they are skipped, not blamed on
 * the section before it. No real section has a control character in its name. */
#define BROKEN_SECTION "\x01broken"

/* Whether inih reads line s (indentation stripped) as a comment, a [section]
 * or key = value, as ini.c decides: a ';' after a blank starts a comment. */
static bool ini_line_ok(const char *s)
{
    if (!*s || *s == ';' || *s == '#')
        return true;
    const char *want = *s == '[' ? "]" : "=:";
    bool was_space = false;
    for (const char *p = *s == '[' ? s + 1 : s; *p; p++) {
        if (strchr(want, *p))
            return true;
        if (was_space && *p == ';')
            return false;
        was_space = isspace((unsigned char)*p);
    }
    return false;
}

/*
 * fgets() for inih that counts lines (the handler learns its line from
 * ld->lineno), strips indentation so no line is taken as a continuation, and
 * refuses lines longer than inih's buffer instead of letting it split them.
 */
static char *read_line(char *str, int num, void *stream)
{
    struct loader *ld = stream;
    /* The line into ld->line; what does not fit (past MAX_LINE, or no memory) is
     * read and dropped, and the line refused below. */
    int ch;
    bool any = false, cut = false, no_memory = false;
    buf_reset(&ld->line);
    while ((ch = getc(ld->fp)) != EOF) {
        any = true;
        if (ch == '\n')
            break;
        char byte = (char)ch;
        if (!cut && buf_append(&ld->line, &byte, 1) < 0) {
            cut = true;
            no_memory = ld->line.len < ld->line.max;
        }
    }
    if (!any)
        return NULL;
    ld->lineno++;
    const char *line = ld->line.data ? ld->line.data : "";
    size_t n = ld->line.len;
    str[0] = '\0';
    if (no_memory) {
        file_error(ld, ld->lineno, NULL, NULL, "no memory to read the line");
        return str;
    }
    if (memchr(line, '\0', n)) {
        file_error(ld, ld->lineno, NULL, NULL, "NUL byte in the line");
        return str;
    }
    while (n > 0 && line[n - 1] == '\r')
        n--;
    size_t skip = 0;
    while (skip < n && (line[skip] == ' ' || line[skip] == '\t'))
        skip++;
    if (cut || num < 4 || n - skip > (size_t)num - 3) {
        file_error(ld, ld->lineno, NULL, NULL,
                   "line longer than %d characters; give a long value as <key>_file or in "
                   "the environment",
                   num < 4 ? 0 : num - 3);
        return str;
    }
    memcpy(str, line + skip, n - skip);
    str[n - skip] = '\0';
    const char *text = str;
    if (ld->lineno == 1 && strncmp(text, "\xEF\xBB\xBF", 3) == 0)
        text += 3; /* a byte order mark, which inih skips */
    if (!ini_line_ok(text)) {
        /* said here, so that every such line is reported, not only inih's first */
        file_error(ld, ld->lineno, NULL, NULL, "syntax error: expected [section] or key = value");
        snprintf(str, (size_t)num, "%s", text[0] == '[' ? "[" BROKEN_SECTION "]" : "");
    }
    return str;
}

/* A module's setting from the file: [game.<module>] key, or [game] key. */
static void on_game_key(struct loader *ld, const char *section, const char *name, const char *value,
                        const struct game_key *k, bool legacy, bool via_file)
{
    int line = ld->lineno;
    struct origin *o = &ld->game_origin[k->module][k->row];
    char why[512];
    char *content = NULL;
    if (o->line > 0) {
        file_error(ld, line, section, name, "duplicate key (already set at line %d)", o->line);
        return;
    }
    o->line = line;
    o->via_file = via_file;
    if (via_file) {
        content = read_value_file(value, why, sizeof why);
        if (!content) {
            file_error(ld, line, section, name, "%s", why);
            return;
        }
        value = content;
    }
    if (rules_setting_parse_config(k->s, value, &ld->c->game_defaults[k->module].value[k->row], why,
                                   sizeof why) < 0)
        file_error(ld, line, section, name, "%s", why);
    else if (legacy)
        note_game_section_key(ld->c, k);
    free(content);
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct loader *ld = user;
    int line = ld->lineno;
    /* errors are recorded here, and reading goes on: 1 keeps inih from
     * counting them as its own */
    if (strcmp(section, BROKEN_SECTION) == 0)
        return 1;
    if (!*section) {
        file_error(ld, line, NULL, name, "key outside any [section]");
        return 1;
    }
    struct game_key gk;
    bool legacy, via_file;
    if (find_game_key_or_file(section, name, &gk, &legacy, &via_file)) {
        on_game_key(ld, section, name, value, &gk, legacy, via_file);
        return 1;
    }
    if (!known_section(section)) {
        /* one error a section, not one a key */
        if (strcmp(ld->unknown_section, section) != 0)
            file_error(ld, line, section, name, "unknown section");
        snprintf(ld->unknown_section, sizeof ld->unknown_section, "%s", section);
        return 1;
    }
    const struct key_def *d = find_key_or_file(section, name, &via_file);
    if (!d) {
        file_error(ld, line, section, name, "unknown key");
        return 1;
    }
    size_t i = (size_t)(d - keys);
    struct origin *o = &ld->origin[i];
    if (o->line > 0) {
        file_error(ld, line, section, name, "duplicate key (already set at line %d)", o->line);
        return 1;
    }
    o->line = line;
    o->via_file = via_file;

    char why[512];
    char *content = NULL;
    if (via_file) {
        content = read_value_file(value, why, sizeof why);
        if (!content) {
            file_error(ld, line, section, name, "%s", why);
            return 1;
        }
        value = content;
    }
    int rc = apply(ld->c, d, value, why, sizeof why);
    free(content);
    if (rc < 0) {
        file_error(ld, line, section, name, "%s", why);
        return 1;
    }
    return 1;
}

static void load_file(struct loader *ld)
{
    ld->fp = fopen(ld->path, "r");
    if (!ld->fp) {
        path_error(ld, "cannot open: %s", strerror(errno));
        return;
    }
    int rc = ini_parse_stream(read_line, ld, on_key, ld);
    bool read_failed = ferror(ld->fp);
    fclose(ld->fp);
    ld->fp = NULL;
    buf_free(&ld->line);
    if (read_failed)
        path_error(ld, "read error after line %d", ld->lineno);
    else if (rc == -2)
        path_error(ld, "out of memory");
    else if (rc > 0) /* a syntax error read_line() did not see; inih says only its first */
        file_error(ld, rc, NULL, NULL, "syntax error: expected [section] or key = value");
}

/* ---- the environment ---- */

static void env_name(char *out, size_t len, const char *section, const char *name,
                     const char *suffix)
{
    snprintf(out, len, "%s%s_%s%s", ENV_PREFIX, section, name, suffix);
    for (char *p = out; *p; p++) /* [game.palm-drewes]: ILLEGALD_GAME_PALM_DREWES_ */
        *p = *p == '.' || *p == '-' ? '_' : (char)toupper((unsigned char)*p);
}

/*
 * The value of [section] name in the environment: ILLEGALD_<SECTION>_<NAME>,
 * or the contents of the file ILLEGALD_<SECTION>_<NAME>_FILE names (then
 * *content holds it, for the caller to free). The variable used goes into
 * used. NULL when neither is set, or on an error (reported).
 */
static const char *env_value(struct loader *ld, const char *section, const char *name,
                             char used[64], char **content)
{
    char var[64], var_file[64], why[512];
    env_name(var, sizeof var, section, name, "");
    env_name(var_file, sizeof var_file, section, name, "_FILE");
    const char *v = getenv(var), *vf = getenv(var_file);
    *content = NULL;
    if (v && vf) {
        env_error(ld, var, "also set as %s; set one of them", var_file);
        return NULL;
    }
    snprintf(used, 64, "%s", v ? var : var_file);
    if (!vf)
        return v;
    *content = read_value_file(vf, why, sizeof why);
    if (!*content)
        env_error(ld, used, "%s", why);
    return *content;
}

static void load_env(struct loader *ld)
{
    for (size_t i = 0; i < NKEYS && !ld->failed; i++) {
        const struct key_def *d = &keys[i];
        char used[64], why[512], *content;
        const char *v = env_value(ld, d->section, d->name, used, &content);
        if (!v)
            continue;
        int rc = apply(ld->c, d, v, why, sizeof why);
        bool via_file = content != NULL;
        free(content);
        if (rc < 0) {
            env_error(ld, used, "%s", why);
            return;
        }
        struct origin *o = &ld->origin[i];
        o->line = 0;
        o->via_file = via_file;
        snprintf(o->env, sizeof o->env, "%s", used);
    }
}

/* A module's setting from the environment: ILLEGALD_GAME_<MODULE>_<KEY>, or,
 * for a module whose settings [game] may hold, ILLEGALD_GAME_<KEY>. */
static void load_game_env(struct loader *ld, size_t module)
{
    const struct rules_module *m = rules_at(module);
    char section[64];
    snprintf(section, sizeof section, "%s.%s", GAME_SECTION, m->id);
    for (unsigned r = 0; rules_settings(m)[r].name && !ld->failed; r++) {
        const struct rules_setting *s = &rules_settings(m)[r];
        char key[64], used[64], why[512], *content;
        if (!(s->where & RULES_IN_CONFIG))
            continue;
        rules_setting_config_key(s, key, sizeof key);
        const char *v = env_value(ld, section, key, used, &content);
        if (!v && !ld->failed && m->config_in_game_section)
            v = env_value(ld, GAME_SECTION, key, used, &content);
        if (!v)
            continue;
        if (rules_setting_parse_config(s, v, &ld->c->game_defaults[module].value[r], why,
                                       sizeof why) < 0)
            env_error(ld, used, "%s", why);
        free(content);
    }
}

/* ---- the whole ---- */

static size_t key_index(const char *section, const char *name)
{
    return (size_t)(find_key(section, name) - keys);
}

static bool is_set(const struct loader *ld, size_t i)
{
    return ld->origin[i].line > 0 || ld->origin[i].env[0];
}

static bool wildcard(const char *bind)
{
    return strcmp(bind, "0.0.0.0") == 0 || strcmp(bind, "::") == 0 || strcmp(bind, "*") == 0 ||
           strcmp(bind, "[::]") == 0;
}

/* The Activity needs the bot (to check who is in an instance) and the OAuth2
 * client; it runs on the [web] listener. */
static void check_activity(struct loader *ld)
{
    struct config *c = ld->c;
    size_t at = key_index("discord", "activity");
    if (c->discord_activity && !c->discord_token)
        origin_error(ld, at, "the Activity needs the bot's token");
    else if (c->discord_activity && !c->discord_application_id && !c->discord_client_id)
        origin_error(ld, at, "the Activity needs application_id (or client_id)");
    else if (c->discord_activity && !c->discord_client_secret)
        origin_error(ld, at, "the Activity needs client_secret (client_secret_file)");
    if (c->discord_activity && !c->discord_client_id && c->discord_application_id &&
        !(c->discord_client_id = strdup(c->discord_application_id)))
        origin_error(ld, at, "out of memory");
    c->web_listen = c->web_enabled || c->discord_activity;
    if ((c->web_tls_cert == NULL) != (c->web_tls_key == NULL))
        origin_error(ld, key_index("web", c->web_tls_cert ? "tls_cert" : "tls_key"),
                     "HTTPS needs both tls_cert and tls_key");
}

static void check_whole(struct loader *ld)
{
    struct config *c = ld->c;

    size_t web_enabled = key_index("web", "enabled");
    if (!is_set(ld, web_enabled))
        c->web_enabled = !c->discord_token && !c->matrix_homeserver;
    check_activity(ld);

    if (c->matrix_password && !c->matrix_user_id)
        origin_error(ld, key_index("matrix", "password"), "a password login needs user_id");
    if (c->matrix_homeserver && !c->matrix_access_token && !c->matrix_password)
        origin_error(ld, key_index("matrix", "homeserver"),
                     "needs access_token, or user_id and password");

    if (c->web_enabled && c->metrics_enabled && c->web_port && c->web_port == c->metrics_port &&
        (strcmp(c->web_bind, c->metrics_bind) == 0 || wildcard(c->web_bind) ||
         wildcard(c->metrics_bind))) {
        /* Blame the setting most likely to be the mistake. */
        static const char *const blame[][2] = {
            {"metrics", "port"}, {"metrics", "bind"}, {"web", "port"},
            {"web", "bind"},     {"web", "enabled"},  {"metrics", "enabled"},
        };
        size_t who = key_index("metrics", "port");
        for (size_t k = 0; k < sizeof blame / sizeof blame[0]; k++)
            if (is_set(ld, key_index(blame[k][0], blame[k][1]))) {
                who = key_index(blame[k][0], blame[k][1]);
                break;
            }
        origin_error(ld, who, "web and metrics both listen on %s:%d; give them different ports",
                     c->metrics_bind, c->metrics_port);
    }
}

int config_init(struct config *c)
{
    memset(c, 0, sizeof *c);
    static const struct {
        const char *section, *name, *value;
    } defaults[] = {
        {"store", "path", "illegald.db"},
        {"log", "level", "info"},
        {"game", "language", "en"},
        {"discord", "api_url", "https://discord.com/api/v10"},
        {"discord", "message_content", "auto"},
        {"web", "bind", "127.0.0.1"},
        {"metrics", "bind", "127.0.0.1"},
    };
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        char **field = str_field(c, find_key(defaults[i].section, defaults[i].name));
        *field = strdup(defaults[i].value);
        if (!*field) {
            config_free(c);
            return -1;
        }
    }
    c->discord_global_rate_limit = 50;
    c->discord_compression = true;
    c->default_game = strdup(rules_default()->id);
    if (!c->default_game) {
        config_free(c);
        return -1;
    }
    for (size_t i = 0; i < rules_count(); i++)
        rules_defaults_init(rules_at(i), &c->game_defaults[i]);
    c->lobby_idle_seconds = 3600;
    c->absent_seconds = 43200;
    c->computer_pace = 100;
    c->lobbies_per_host = 3;
    c->lobbies_per_server = 100;
    c->lobbies_total = 2000;
    c->matrix_moderator_power_level = 50;
    c->matrix_rooms_per_inviter = 3;
    c->matrix_max_rooms = 1000;
    c->web_enabled = true;
    c->web_listen = true;
    c->web_port = 8080;
    c->web_max_connections = 512;
    c->web_max_per_address = 64;
    c->web_hello_seconds = 10;
    c->web_idle_seconds = 120;
    c->web_tables_per_seat = 4;
    c->web_queue_bytes = 64 << 20;
    c->web_seats_per_address = 32;
    c->web_unused_seat_seconds = 86400;
    c->metrics_port = 9108;
    return 0;
}

int config_load(struct config *c, const char *path, char *err, size_t errlen)
{
    struct loader ld;
    memset(&ld, 0, sizeof ld);
    buf_init(&ld.line, MAX_LINE);
    ld.c = c;
    ld.path = path;
    ld.err = err;
    ld.errlen = errlen;
    if (err && errlen)
        err[0] = '\0';
    if (path)
        load_file(&ld);
    if (!ld.failed)
        load_env(&ld);
    for (size_t i = 0; i < rules_count() && !ld.failed; i++)
        load_game_env(&ld, i);
    if (!ld.failed)
        check_whole(&ld);
    return ld.failed ? -1 : 0;
}

void config_free(struct config *c)
{
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key_def *d = &keys[i];
        if (d->kind == K_STRING || d->kind == K_URL || d->kind == K_MXID || d->kind == K_LEVEL ||
            d->kind == K_LANGUAGE || d->kind == K_GAME || d->kind == K_AUTO) {
            char **field = str_field(c, d);
            free(*field);
            *field = NULL;
        }
    }
    free_guilds(c);
}

/* Writes [game.<module>] with each setting the configuration may hold. */
static void describe_game(const struct config *c, size_t module, FILE *out)
{
    const struct rules_module *m = rules_at(module);
    fprintf(out, "\n[%s.%s]\n", GAME_SECTION, m->id);
    const struct rules_setting *t = rules_settings(m);
    for (unsigned r = 0; t[r].name; r++) {
        char key[64], value[64];
        if (!(t[r].where & RULES_IN_CONFIG))
            continue;
        rules_setting_config_key(&t[r], key, sizeof key);
        rules_setting_config_text(&t[r], c->game_defaults[module].value[r], value, sizeof value);
        fprintf(out, "%s = %s\n", key, value);
    }
}

void config_describe(const struct config *c, FILE *out)
{
    const char *section = NULL;
    fprintf(out, "; effective illegald settings; secrets are shown as (set) or (not set)\n");
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key_def *d = &keys[i];
        if (!section || strcmp(section, d->section) != 0) {
            /* each game's own section follows [game] */
            for (size_t m = 0; section && strcmp(section, GAME_SECTION) == 0 && m < rules_count();
                 m++)
                describe_game(c, m, out);
            section = d->section;
            fprintf(out, "\n[%s]\n", section);
        }
        fprintf(out, "%s =", d->name);
        switch (d->kind) {
        case K_BOOL:
            fprintf(out, " %s", *(const bool *)((const char *)c + d->offset) ? "true" : "false");
            break;
        case K_INT:
            fprintf(out, " %d", *(const int *)((const char *)c + d->offset));
            break;
        case K_INT64:
            fprintf(out, " %lld", (long long)*(const int64_t *)((const char *)c + d->offset));
            break;
        case K_GUILDS:
            for (unsigned g = 0; g < c->discord_nguilds; g++)
                fprintf(out, "%s%s", g ? "," : " ", c->discord_guilds[g]);
            break;
        default: {
            const char *v = *str_field_const(c, d);
            char shown[1024];
            if (d->flags & F_SECRET) {
                fprintf(out, " %s", v ? "(set)" : "(not set)");
            } else if (v && d->kind == K_URL) {
                config_url_shown(v, shown, sizeof shown);
                fprintf(out, " %s", shown);
            } else if (v)
                fprintf(out, " %s", v);
            break;
        }
        }
        fputc('\n', out);
    }
}
