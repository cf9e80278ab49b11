/*
 * main.c - illegald: options, settings, the loop, signals, and the platforms.
 *
 * The composition root: the one file that knows every adapter, so that bot/
 * never includes one.
 */
#include <getopt.h>
#include <inttypes.h>
#include <json-c/json_c_version.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "adapters/common/activity.h"
#include "adapters/console/console.h"
#include "bot/config.h"
#include "bot/dispatcher.h"
#include "bot/log.h"
#include "bot/metrics.h"
#include "bot/ops_http.h"
#include "bot/store.h"
#if defined(ILLEGALD_WITH_WEB) || defined(ILLEGALD_WITH_DISCORD)
#include <libwebsockets.h>
#endif
#if defined(ILLEGALD_WITH_DISCORD) || defined(ILLEGALD_WITH_MATRIX)
#include <curl/curl.h>
#endif
#ifdef ILLEGALD_WITH_WEB
#include "adapters/web/web.h"
#endif
#ifdef ILLEGALD_WITH_DISCORD
#include "adapters/discord/discord.h"
#endif
#ifdef ILLEGALD_WITH_MATRIX
#include "adapters/matrix/matrix.h"
#endif

#ifndef ILLEGALD_VERSION
#define ILLEGALD_VERSION "unknown"
#endif

struct daemon {
    uv_loop_t loop;
    struct config config;
    struct store *store;
    struct dispatcher *dispatcher;
    struct metrics *metrics;
    struct ops_http *ops;
    struct ops_http_checks checks;
    uv_signal_t sigterm, sigint, sighup;
    uv_prepare_t settled; /* runs until the start's work is done (dispatcher_settled) */
    bool stopping;
    struct activity_link activity; /* the Discord Activity, shared by two adapters */
};

struct options {
    const char *config_path;
    const char *store_path;
    bool check_config;
    bool console;
    bool virtual_time;
    bool seeded;
    uint64_t seed;
    bool register_commands;
};

static void usage(FILE *out)
{
    fprintf(
        out,
        "usage: illegald [--config FILE] [--store PATH] [--register-commands]\n"
        "       illegald [--config FILE] [--store PATH] --check-config\n"
        "       illegald --console [--virtual-time] [--seed N] [--store PATH]\n"
        "\n"
        "Hosts the party game Illegal on Discord, Matrix, a local web table, or the console.\n"
        "\n"
        "  -c, --config FILE   read settings from FILE (INI; see config/illegald.conf.example)\n"
        "  -s, --store PATH    keep games in the SQLite database PATH\n"
        "      --check-config  validate the settings, print them (secrets masked) and exit\n"
        "      --register-commands\n"
        "                      register Discord's slash commands at this start, even when\n"
        "                      the store says Discord has them as they are\n"
        "      --console       play through JSON lines on stdin and stdout\n"
        "      --virtual-time  with --console: time moves only through \"advance\" lines\n"
        "      --seed N        make every game reproducible from N\n"
        "  -V, --version       print the version and the libraries' versions\n"
        "  -h, --help          print this help\n"
        "\n"
        "Every setting can also come from ILLEGALD_<SECTION>_<KEY>; see the README.\n");
}

/* The versions built against, and (after the arrow) those loaded now. */
static void version(void)
{
    printf("illegald %s\n", ILLEGALD_VERSION);
    printf("libuv %d.%d.%d -> %s\n", UV_VERSION_MAJOR, UV_VERSION_MINOR, UV_VERSION_PATCH,
           uv_version_string());
    printf("sqlite %s -> %s\n", SQLITE_VERSION, sqlite3_libversion());
    printf("json-c %s -> %s\n", JSON_C_VERSION, json_c_version());
#if defined(ILLEGALD_WITH_WEB) || defined(ILLEGALD_WITH_DISCORD)
    printf("libwebsockets %d.%d.%d -> %s\n", LWS_LIBRARY_VERSION_MAJOR, LWS_LIBRARY_VERSION_MINOR,
           LWS_LIBRARY_VERSION_PATCH, lws_get_library_version());
#endif
#if defined(ILLEGALD_WITH_DISCORD) || defined(ILLEGALD_WITH_MATRIX)
    printf("libcurl %s -> %s\n", LIBCURL_VERSION, curl_version_info(CURLVERSION_NOW)->version);
#endif
}

/* The one screen shown when nothing is configured to play on. */
static void setup_help(void)
{
    fprintf(stderr,
            "illegald has no platform to play on.\n"
            "\n"
            "Configure one in a file (see config/illegald.conf.example) or in the environment:\n"
            "\n"
            "  Discord: create an application and a bot at the Discord developer portal, then\n"
            "      ILLEGALD_DISCORD_TOKEN=...  ILLEGALD_DISCORD_APPLICATION_ID=...\n"
            "  Matrix: create an account for the bot on your homeserver, then\n"
            "      ILLEGALD_MATRIX_HOMESERVER=https://matrix.example.org\n"
            "      ILLEGALD_MATRIX_USER_ID=@illegal:example.org  ILLEGALD_MATRIX_ACCESS_TOKEN=...\n"
            "  Local table in a browser: [web] enabled = true (http://127.0.0.1:8080)\n"
            "\n"
            "Or try it right away on the console:  illegald --console\n"
            "The README walks through each platform step by step.\n");
}

/* The long options that have no letter. */
enum { OPT_CHECK = 256, OPT_CONSOLE, OPT_VIRTUAL, OPT_SEED, OPT_REGISTER };

/* Takes one option onto o. Returns -1 to read on, else the exit code (0 after --version or
 * --help, 2 after a bad option). */
static int take_option(int ch, struct options *o)
{
    char *end;
    switch (ch) {
    case 'c':
        o->config_path = optarg;
        return -1;
    case 's':
        o->store_path = optarg;
        return -1;
    case OPT_CHECK:
        o->check_config = true;
        return -1;
    case OPT_CONSOLE:
        o->console = true;
        return -1;
    case OPT_VIRTUAL:
        o->virtual_time = true;
        return -1;
    case OPT_REGISTER:
        o->register_commands = true;
        return -1;
    case OPT_SEED:
        o->seed = strtoull(optarg, &end, 10);
        if (!*optarg || *end) {
            fprintf(stderr, "illegald: --seed takes a whole number, not \"%s\"\n", optarg);
            return 2;
        }
        o->seeded = true;
        return -1;
    case 'V':
        version();
        return 0;
    case 'h':
        usage(stdout);
        return 0;
    default:
        usage(stderr);
        return 2;
    }
}

static int parse_options(int argc, char **argv, struct options *o)
{
    static const struct option longopts[] = {
        {"config", required_argument, NULL, 'c'},
        {"store", required_argument, NULL, 's'},
        {"check-config", no_argument, NULL, OPT_CHECK},
        {"console", no_argument, NULL, OPT_CONSOLE},
        {"virtual-time", no_argument, NULL, OPT_VIRTUAL},
        {"seed", required_argument, NULL, OPT_SEED},
        {"register-commands", no_argument, NULL, OPT_REGISTER},
        {"version", no_argument, NULL, 'V'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    int ch, rc;
    while ((ch = getopt_long(argc, argv, "c:s:Vh", longopts, NULL)) != -1)
        if ((rc = take_option(ch, o)) >= 0)
            return rc;
    if (optind < argc) {
        fprintf(stderr, "illegald: unexpected argument \"%s\"\n", argv[optind]);
        return 2;
    }
    if (o->virtual_time && !o->console) {
        fprintf(stderr, "illegald: --virtual-time needs --console\n");
        return 2;
    }
    return -1;
}

static void shutdown_daemon(struct daemon *d)
{
    if (d->stopping)
        return;
    d->stopping = true;
    log_info("main", NULL, "shutting down");
    ops_http_stop(d->ops);
    d->ops = NULL;
    dispatcher_stop(d->dispatcher);
    uv_close((uv_handle_t *)&d->sigterm, NULL);
    uv_close((uv_handle_t *)&d->sigint, NULL);
    uv_close((uv_handle_t *)&d->sighup, NULL);
    /* a start that never settled (Discord unreachable) must not hold the loop */
    uv_close((uv_handle_t *)&d->settled, NULL);
}

static void on_signal(uv_signal_t *s, int signum)
{
    struct daemon *d = s->data;
    if (signum == SIGHUP) {
        if (log_reopen() < 0)
            log_error("main", NULL, "cannot reopen the log file");
        else
            log_info("main", NULL, "log reopened");
        return;
    }
    shutdown_daemon(d);
}

static void on_console_advance(void *arg, int64_t ms)
{
    struct daemon *d = arg;
    dispatcher_advance(d->dispatcher, ms);
}

static void on_console_eof(void *arg)
{
    shutdown_daemon(arg);
}

static int add_console(struct daemon *d, const struct options *o)
{
    struct console_options co = {
        .in_fd = 0,
        .out_fd = 1,
        .advance = o->virtual_time ? on_console_advance : NULL,
        .eof = on_console_eof,
        .arg = d,
    };
    struct platform *p = console_platform_new(dispatcher_host(d->dispatcher), &co);
    if (!p || dispatcher_add_platform(d->dispatcher, p) < 0) {
        log_error("main", NULL, "cannot create the console");
        return -1;
    }
    return 1;
}

#if defined(ILLEGALD_WITH_DISCORD) || defined(ILLEGALD_WITH_MATRIX) || defined(ILLEGALD_WITH_WEB)
typedef struct platform *platform_new_fn(const struct config *cfg, const struct platform_host *host,
                                         char *err, size_t errlen);

/* Creates the platform named name with make and adds it to the dispatcher; NULL logged. */
static struct platform *add_platform(struct daemon *d, const char *name, platform_new_fn *make)
{
    char err[512] = "";
    struct platform *p = make(&d->config, dispatcher_host(d->dispatcher), err, sizeof err);
    if (!p || dispatcher_add_platform(d->dispatcher, p) < 0) {
        log_error("main", NULL, "%s: %s", name, err);
        return NULL;
    }
    return p;
}
#endif

/* Creates the configured platforms. Returns how many, or -1 on error. */
static int add_platforms(struct daemon *d, const struct options *o)
{
    int n = 0;
    struct platform *discord = NULL, *web = NULL;
    if (o->console)
        return add_console(d, o);
#ifdef ILLEGALD_WITH_DISCORD
    if (d->config.discord_token) {
        if (!(discord = add_platform(d, "discord", discord_platform_new)))
            return -1;
        n++;
    }
#endif
#ifdef ILLEGALD_WITH_MATRIX
    if (d->config.matrix_homeserver) {
        if (!add_platform(d, "matrix", matrix_platform_new))
            return -1;
        n++;
    }
#endif
#ifdef ILLEGALD_WITH_WEB
    if (d->config.web_listen) {
        if (!(web = add_platform(d, "web", web_platform_new)))
            return -1;
        n++;
    }
#endif
#if defined(ILLEGALD_WITH_WEB) && defined(ILLEGALD_WITH_DISCORD)
    /* the Activity: the web listener serves pages that play Discord's games */
    if (discord && web && d->config.discord_activity) {
        discord_activity_link(discord, &d->activity);
        if (web_activity_link(web, &d->activity) < 0)
            return -1;
    }
#endif
    (void)discord;
    (void)web;
    return n;
}

static bool check_healthy(void *arg)
{
    struct daemon *d = arg;
    return dispatcher_healthy(d->dispatcher);
}

static bool check_ready(void *arg)
{
    struct daemon *d = arg;
    return dispatcher_ready(d->dispatcher);
}

/* The start's work is done once every platform is connected and none waits
 * for the answer to a request the start made (Discord's slash commands'
 * registration): what it freed (the restore's records, the registration's
 * objects, its body and answer) is given back to the system, which glibc
 * does not do by itself for blocks freed below the heap's top. Once. */
static void on_settled(uv_prepare_t *h)
{
    struct daemon *d = h->data;
    if (!dispatcher_settled(d->dispatcher))
        return;
    uv_prepare_stop(h);
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

static void close_walk(uv_handle_t *h, void *arg)
{
    (void)arg;
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

/* The store, the metrics and the dispatcher; false logged. */
static bool open_parts(struct daemon *d, const struct options *o)
{
    char err[512] = "";
    struct dispatcher_options dopt = {
        .config = &d->config,
        .loop = &d->loop,
        .virtual_time = o->virtual_time,
        .seeded = o->seeded,
        .seed = o->seed,
    };
    if (store_open(&d->store, d->config.store_path, err, sizeof err) < 0) {
        log_error("main", NULL, "store: %s", err);
        return false;
    }
    dopt.store = d->store;
    d->metrics = metrics_new();
    if (!d->metrics) {
        log_error("main", NULL, "out of memory");
        return false;
    }
    dopt.metrics = d->metrics;
    if (dispatcher_new(&d->dispatcher, &dopt, err, sizeof err) < 0) {
        log_error("main", NULL, "%s", err);
        return false;
    }
    return true;
}

/* The health and metrics listener, when configured; false logged. */
static bool start_ops(struct daemon *d)
{
    char err[512] = "";
    if (!d->config.metrics_enabled)
        return true;
    d->checks = (struct ops_http_checks){check_healthy, check_ready, d};
    if (ops_http_start(&d->ops, &d->loop, d->config.metrics_bind, d->config.metrics_port,
                       d->metrics, &d->checks, err, sizeof err) < 0) {
        log_error("main", NULL, "metrics listener: %s", err);
        return false;
    }
    log_info("main", NULL, "health and metrics at http://%s:%d/", d->config.metrics_bind,
             ops_http_port(d->ops));
    return true;
}

/* SIGTERM and SIGINT stop the daemon, SIGHUP reopens the log; and the start's settling. */
static void watch_signals(struct daemon *d)
{
    uv_signal_init(&d->loop, &d->sigterm);
    uv_signal_init(&d->loop, &d->sigint);
    uv_signal_init(&d->loop, &d->sighup);
    d->sigterm.data = d->sigint.data = d->sighup.data = d;
    uv_signal_start(&d->sigterm, on_signal, SIGTERM);
    uv_signal_start(&d->sigint, on_signal, SIGINT);
    uv_signal_start(&d->sighup, on_signal, SIGHUP);
    uv_prepare_init(&d->loop, &d->settled);
    d->settled.data = d;
    uv_prepare_start(&d->settled, on_settled);
}

static int run(struct daemon *d, const struct options *o)
{
    char err[512] = "";
    if (!open_parts(d, o))
        return 1;
    int n = add_platforms(d, o);
    if (n < 0)
        return 1;
    if (n == 0) {
        setup_help(); /* a daemon with nothing to serve is a setup error, not a success */
        return 2;
    }
    if (dispatcher_start(d->dispatcher, err, sizeof err) < 0) {
        log_error("main", NULL, "%s", err);
        return 1;
    }
    if (!start_ops(d))
        return 1;
    watch_signals(d);
    log_info("main", NULL, "illegald %s running, store %s", ILLEGALD_VERSION, d->config.store_path);
    uv_run(&d->loop, UV_RUN_DEFAULT);
    return 0;
}

/* Reads the configuration with the options over it. Returns -1 to go on, else the exit code
 * (the configuration freed): 2 for a bad file, 0 after --check-config. */
static int configure(struct daemon *d, const struct options *o)
{
    char err[8192] = ""; /* every error of a configuration file, one a line */
    if (config_init(&d->config) < 0) {
        fprintf(stderr, "illegald: out of memory\n");
        return 1;
    }
    if (config_load(&d->config, o->config_path, err, sizeof err) < 0) {
        for (const char *line = err; *line;) {
            size_t n = strcspn(line, "\n");
            fprintf(stderr, "illegald: %.*s\n", (int)n, line);
            line += n + (line[n] == '\n');
        }
        config_free(&d->config);
        return 2;
    }
    if (o->store_path) {
        char *path = strdup(o->store_path);
        if (!path) {
            config_free(&d->config);
            return 1;
        }
        free(d->config.store_path);
        d->config.store_path = path;
    }
    d->config.discord_register_commands = o->register_commands;
    if (o->check_config) {
        config_describe(&d->config, stdout);
        printf("; %s: the settings are valid\n", o->config_path ? o->config_path : "defaults");
        config_free(&d->config);
        return 0;
    }
    return -1;
}

/* The log as configured, then the event loop. Returns -1 to go on, else the exit code (the
 * configuration freed). */
static int open_log_and_loop(struct daemon *d)
{
    log_set_level((enum log_level)log_level_parse(d->config.log_level));
    if (log_open(d->config.log_file) < 0) {
        fprintf(stderr, "illegald: cannot open log file %s\n", d->config.log_file);
        config_free(&d->config);
        return 1;
    }
    if (d->config.game_section_keys[0])
        log_warn("config", NULL, "[game] %s: read as settings of a game; move them to its section",
                 d->config.game_section_keys);
    if (uv_loop_init(&d->loop) < 0) {
        fprintf(stderr, "illegald: cannot create the event loop\n");
        config_free(&d->config);
        return 1;
    }
    return -1;
}

/* Stops what still runs, lets the adapters close their handles, then frees everything. */
static void teardown(struct daemon *d)
{
    ops_http_stop(d->ops);
    if (d->dispatcher && !d->stopping)
        dispatcher_stop(d->dispatcher);
    /* Let adapters finish closing their handles before freeing them. */
    uv_walk(&d->loop, close_walk, NULL);
    uv_run(&d->loop, UV_RUN_DEFAULT);
    dispatcher_free(d->dispatcher);
    metrics_free(d->metrics);
    store_close(d->store);
    uv_loop_close(&d->loop);
    log_close();
    config_free(&d->config);
}

int main(int argc, char **argv)
{
    struct options o = {0};
    struct daemon d;
    int rc = parse_options(argc, argv, &o);
    if (rc >= 0)
        return rc;

    memset(&d, 0, sizeof d);
    signal(SIGPIPE, SIG_IGN);
    if ((rc = configure(&d, &o)) >= 0 || (rc = open_log_and_loop(&d)) >= 0)
        return rc;
    rc = run(&d, &o);
    teardown(&d);
    return rc;
}
