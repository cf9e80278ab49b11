/*
 * test_config.c - bot/config.c: defaults, the file, the environment,
 * <key>_file secrets, every error message, and secrets kept out of output.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "bot/config.h"
#include "core/illegal/module.h"

extern char **environ;

static char tmpdir[64];

/* The value of one of Illegal's settings in c: [game.illegal], or old [game]. */
static int64_t game_value(const struct config *c, const char *name)
{
    const struct rules_setting *s = rules_setting_find(il_module.settings_table, name);
    assert_non_null(s);
    return config_game(c, &il_module)->value[rules_setting_index(&il_module, s)];
}

/* The same for a setting that is a choice, as written. */
static const char *game_text(const struct config *c, const char *name)
{
    return rules_setting_find(il_module.settings_table, name)->values[game_value(c, name)];
}
static int nfiles;

/* Writes content to a new file in tmpdir; returns its path (static storage). */
static const char *write_file(const char *name, const char *content)
{
    static char paths[64][128];
    char *path = paths[nfiles++ % 64];
    snprintf(path, 128, "%s/%s", tmpdir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(content, f);
    assert_int_equal(fclose(f), 0);
    return path;
}

/* Removes every ILLEGALD_* variable, so tests start from a clean environment. */
static void clear_env(void)
{
    for (;;) {
        char name[128] = "";
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "ILLEGALD_", 9) == 0) {
                size_t n = strcspn(*e, "=");
                snprintf(name, sizeof name, "%.*s", (int)n, *e);
                break;
            }
        if (!name[0])
            return;
        unsetenv(name);
    }
}

static int setup(void **state)
{
    (void)state;
    clear_env();
    return 0;
}

static int group_setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/illegald-config-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* Loads content as a file named name; asserts success. */
static void load_ok(struct config *c, const char *content)
{
    char err[512];
    assert_int_equal(config_init(c), 0);
    const char *path = content ? write_file("ok.conf", content) : NULL;
    int rc = config_load(c, path, err, sizeof err);
    if (rc != 0)
        fail_msg("config_load failed: %s", err);
}

/* Loads content and asserts the error is exactly fmt with the file's path for %s. */
static void load_fails(const char *content, const char *fmt)
{
    struct config c;
    char err[512], want[1024];
    const char *path = write_file("bad.conf", content);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, path, err, sizeof err), -1);
    /* each %s of fmt is the file's path */
    size_t n = 0;
    for (const char *f = fmt; *f && n + 1 < sizeof want; f++) {
        if (f[0] == '%' && f[1] == 's') {
            n += (size_t)snprintf(want + n, sizeof want - n, "%s", path);
            f++;
        } else {
            want[n++] = *f;
        }
    }
    want[n < sizeof want ? n : sizeof want - 1] = '\0';
    assert_string_equal(err, want);
    config_free(&c);
}

/* Loads no file with the current environment and asserts the error. */
static void env_fails(const char *want)
{
    struct config c;
    char err[512];
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, NULL, err, sizeof err), -1);
    assert_string_equal(err, want);
    config_free(&c);
}

static void test_defaults(void **state)
{
    (void)state;
    struct config c;
    load_ok(&c, NULL);
    assert_string_equal(c.store_path, "illegald.db");
    assert_string_equal(c.log_level, "info");
    assert_null(c.log_file);
    assert_string_equal(c.language, "en");
    assert_string_equal(c.default_game, "illegal");
    assert_string_equal(game_text(&c, "variant"), "standard");
    assert_int_equal(game_value(&c, "session"), 180);
    assert_int_equal(game_value(&c, "casual-session"), 1200);
    assert_int_equal(game_value(&c, "reveal"), 2);
    assert_int_equal(game_value(&c, "grab"), 30);
    assert_int_equal(game_value(&c, "debate"), 60);
    assert_int_equal(game_value(&c, "vote"), 30);
    assert_int_equal(c.lobby_idle_seconds, 3600);
    assert_int_equal(c.lobbies_per_host, 3);
    assert_int_equal(c.lobbies_per_server, 100);
    assert_int_equal(c.lobbies_total, 2000);
    assert_null(c.discord_token);
    assert_null(c.discord_application_id);
    assert_string_equal(c.discord_api_url, "https://discord.com/api/v10");
    assert_null(c.discord_gateway_url);
    assert_int_equal(c.discord_nguilds, 0);
    assert_null(c.discord_moderator_role);
    assert_int_equal(c.discord_shards, 0);
    assert_true(c.discord_compression); /* compress=zlib-stream asked */
    assert_null(c.matrix_homeserver);
    assert_null(c.matrix_user_id);
    assert_null(c.matrix_access_token);
    assert_null(c.matrix_password);
    assert_null(c.matrix_device_id);
    assert_int_equal(c.matrix_moderator_power_level, 50);
    assert_null(c.matrix_invite_allow);
    assert_true(c.web_enabled);
    assert_string_equal(c.web_bind, "127.0.0.1");
    assert_int_equal(c.web_port, 8080);
    assert_false(c.metrics_enabled);
    assert_string_equal(c.metrics_bind, "127.0.0.1");
    assert_int_equal(c.metrics_port, 9108);
    config_free(&c);

    /* An empty file, comments only, changes nothing. */
    load_ok(&c, "; nothing\n# at all\n\n");
    assert_int_equal(c.web_port, 8080);
    config_free(&c);
}

static const char full_file[] = "; every key\n"
                                "[store]\n"
                                "path = /var/lib/illegald/x.db\n"
                                "[log]\n"
                                "level = debug\n"
                                "file = /var/log/illegald.log\n"
                                "[game]\n"
                                "language = en\n"
                                "variant = casual\n"
                                "session_seconds = 240\n"
                                "casual_session_seconds = 1800\n"
                                "reveal_seconds = 3\n"
                                "grab_seconds = 20\n"
                                "debate_seconds = 90\n"
                                "vote_seconds = 45\n"
                                "[discord]\n"
                                "token = DISCORD-SECRET-1\n"
                                "application_id = 123456789012345678\n"
                                "api_url = http://127.0.0.1:5000/api/v10\n"
                                "gateway_url = ws://127.0.0.1:5001/gw\n"
                                "guilds = 111, 222,333\n"
                                "moderator_role = Game Masters\n"
                                "shards = 2\n"
                                "[matrix]\n"
                                "homeserver = https://matrix.example.org\n"
                                "user_id = @illegal:example.org\n"
                                "access_token = MATRIX-SECRET-2\n"
                                "password = MATRIX PASSWORD 3\n"
                                "device_id = ILLEGALD1\n"
                                "moderator_power_level = 75\n"
                                "invite_allow = example.org,@friend:other.org\n"
                                "[web]\n"
                                "enabled = yes\n"
                                "bind = 0.0.0.0\n"
                                "port = 8081\n"
                                "[metrics]\n"
                                "enabled = on\n"
                                "bind = 127.0.0.1\n"
                                "port = 9100\n";

static void test_file_values(void **state)
{
    (void)state;
    struct config c;
    load_ok(&c, full_file);
    assert_string_equal(c.store_path, "/var/lib/illegald/x.db");
    assert_string_equal(c.log_level, "debug");
    assert_string_equal(c.log_file, "/var/log/illegald.log");
    assert_string_equal(c.language, "en");
    assert_string_equal(game_text(&c, "variant"), "casual");
    assert_int_equal(game_value(&c, "session"), 240);
    assert_int_equal(game_value(&c, "casual-session"), 1800);
    assert_int_equal(game_value(&c, "reveal"), 3);
    assert_int_equal(game_value(&c, "grab"), 20);
    assert_int_equal(game_value(&c, "debate"), 90);
    assert_int_equal(game_value(&c, "vote"), 45);
    assert_string_equal(c.discord_token, "DISCORD-SECRET-1");
    assert_string_equal(c.discord_application_id, "123456789012345678");
    assert_string_equal(c.discord_api_url, "http://127.0.0.1:5000/api/v10");
    assert_string_equal(c.discord_gateway_url, "ws://127.0.0.1:5001/gw");
    assert_int_equal(c.discord_nguilds, 3);
    assert_string_equal(c.discord_guilds[0], "111");
    assert_string_equal(c.discord_guilds[1], "222");
    assert_string_equal(c.discord_guilds[2], "333");
    assert_string_equal(c.discord_moderator_role, "Game Masters");
    assert_int_equal(c.discord_shards, 2);
    assert_string_equal(c.matrix_homeserver, "https://matrix.example.org");
    assert_string_equal(c.matrix_user_id, "@illegal:example.org");
    assert_string_equal(c.matrix_access_token, "MATRIX-SECRET-2");
    assert_string_equal(c.matrix_password, "MATRIX PASSWORD 3");
    assert_string_equal(c.matrix_device_id, "ILLEGALD1");
    assert_int_equal(c.matrix_moderator_power_level, 75);
    assert_string_equal(c.matrix_invite_allow, "example.org,@friend:other.org");
    assert_true(c.web_enabled);
    assert_string_equal(c.web_bind, "0.0.0.0");
    assert_int_equal(c.web_port, 8081);
    assert_true(c.metrics_enabled);
    assert_string_equal(c.metrics_bind, "127.0.0.1");
    assert_int_equal(c.metrics_port, 9100);
    config_free(&c);
}

static void test_syntax_freedoms(void **state)
{
    (void)state;
    struct config c;
    /* Names are case-insensitive, lines may be indented, ';' ends a value,
     * and bools take every spelling. */
    load_ok(&c, "[Web]\n"
                "    PORT = 8123 ; the table\n"
                "\tEnabled = Off\n"
                "[metrics]\n"
                "enabled: TRUE\n"
                "[game]\n"
                "vote_seconds = +604800\n"
                "[log]\n"
                "file =\n");
    assert_int_equal(c.web_port, 8123);
    assert_false(c.web_enabled);
    assert_true(c.metrics_enabled);
    assert_int_equal(game_value(&c, "vote"), 604800);
    assert_null(c.log_file);
    config_free(&c);

    static const char *const truths[] = {"true", "yes", "on", "1"};
    static const char *const lies[] = {"false", "no", "off", "0"};
    for (int i = 0; i < 4; i++) {
        char text[64];
        snprintf(text, sizeof text, "[metrics]\nenabled = %s\n", truths[i]);
        load_ok(&c, text);
        assert_true(c.metrics_enabled);
        config_free(&c);
        snprintf(text, sizeof text, "[web]\nenabled = %s\n", lies[i]);
        load_ok(&c, text);
        assert_false(c.web_enabled);
        config_free(&c);
    }
}

static void test_web_default(void **state)
{
    (void)state;
    struct config c;
    load_ok(&c, "[discord]\ntoken = abc\n");
    assert_false(c.web_enabled);
    config_free(&c);

    load_ok(&c, "[matrix]\nhomeserver = https://m.org\naccess_token = t\n");
    assert_false(c.web_enabled);
    config_free(&c);

    load_ok(&c, "[discord]\ntoken = abc\n[web]\nenabled = true\n");
    assert_true(c.web_enabled);
    config_free(&c);

    /* Set by the environment counts as explicit too. */
    setenv("ILLEGALD_WEB_ENABLED", "1", 1);
    load_ok(&c, "[discord]\ntoken = abc\n");
    assert_true(c.web_enabled);
    config_free(&c);

    /* An empty token is no token: the table stays the default. */
    clear_env();
    load_ok(&c, "[discord]\ntoken =\n");
    assert_null(c.discord_token);
    assert_true(c.web_enabled);
    config_free(&c);
}

/* The Activity runs the web listener whatever [web] enabled says, and takes
 * the application id as its OAuth2 client id unless told otherwise. */
static void test_activity(void **state)
{
    (void)state;
    struct config c;
    load_ok(&c, "[discord]\ntoken = abc\napplication_id = 42\nactivity = on\n"
                "client_secret = s3cret\n");
    assert_true(c.discord_activity);
    assert_false(c.web_enabled);
    assert_true(c.web_listen);
    assert_string_equal(c.discord_client_id, "42");
    config_free(&c);

    load_ok(&c, "[discord]\ntoken = abc\n");
    assert_false(c.discord_activity);
    assert_false(c.web_listen);
    config_free(&c);
}

static void test_env_override(void **state)
{
    (void)state;
    struct config c;
    setenv("ILLEGALD_WEB_PORT", "9000", 1);
    setenv("ILLEGALD_LOG_LEVEL", "warn", 1);
    setenv("ILLEGALD_LOG_FILE", "", 1);
    setenv("ILLEGALD_DISCORD_GUILDS", "7, 8", 1);
    setenv("ILLEGALD_GAME_CASUAL_SESSION_SECONDS", "600", 1);
    setenv("ILLEGALD_STORE_PATH", "/data/env.db", 1);
    setenv("ILLEGALD_MATRIX_MODERATOR_POWER_LEVEL", "100", 1);
    load_ok(&c, "[web]\nport = 8000\n[log]\nlevel = debug\nfile = /x.log\n"
                "[discord]\nguilds = 1,2,3\n");
    assert_int_equal(c.web_port, 9000);
    assert_string_equal(c.log_level, "warn");
    assert_null(c.log_file);
    assert_int_equal(c.discord_nguilds, 2);
    assert_string_equal(c.discord_guilds[0], "7");
    assert_string_equal(c.discord_guilds[1], "8");
    assert_int_equal(game_value(&c, "casual-session"), 600);
    assert_string_equal(c.store_path, "/data/env.db");
    assert_int_equal(c.matrix_moderator_power_level, 100);
    config_free(&c);

    /* The environment alone, without a file. */
    clear_env();
    setenv("ILLEGALD_DISCORD_TOKEN", "ENV-TOKEN", 1);
    setenv("ILLEGALD_METRICS_ENABLED", "yes", 1);
    load_ok(&c, NULL);
    assert_string_equal(c.discord_token, "ENV-TOKEN");
    assert_true(c.metrics_enabled);
    assert_false(c.web_enabled);
    config_free(&c);

    /* The environment's value is what is checked. */
    clear_env();
    setenv("ILLEGALD_WEB_PORT", "65536", 1);
    env_fails("environment ILLEGALD_WEB_PORT: out of range (0..65535): 65536");
    clear_env();
    setenv("ILLEGALD_GAME_VARIANT", "chaos", 1);
    env_fails("environment ILLEGALD_GAME_VARIANT: unknown variant \"chaos\" "
              "(standard, advanced, casual or casual-advanced)");
    clear_env();
    setenv("ILLEGALD_WEB_ENABLED", "", 1);
    env_fails("environment ILLEGALD_WEB_ENABLED: must not be empty");
}

static void test_secret_files(void **state)
{
    (void)state;
    struct config c;
    char text[512];
    const char *dtok = write_file("discord_token", "FILE-DISCORD-TOKEN\n");
    const char *mpass = write_file("matrix_password", "pass word with spaces\r\n");
    const char *mtok = write_file("matrix_token", "ENV-FILE-MATRIX-TOKEN");
    const char *port = write_file("port", "8443\n\n");

    snprintf(text, sizeof text,
             "[discord]\ntoken_file = %s\n[matrix]\nhomeserver = https://m.org\n"
             "user_id = @b:m.org\npassword_file = %s\n[web]\nport_file = %s\n",
             dtok, mpass, port);
    setenv("ILLEGALD_MATRIX_ACCESS_TOKEN_FILE", mtok, 1);
    load_ok(&c, text);
    assert_string_equal(c.discord_token, "FILE-DISCORD-TOKEN");
    assert_string_equal(c.matrix_password, "pass word with spaces");
    assert_string_equal(c.matrix_access_token, "ENV-FILE-MATRIX-TOKEN");
    assert_int_equal(c.web_port, 8443);
    config_free(&c);

    /* An empty file (systemd's SetCredential= fallback) leaves a key unset. */
    clear_env();
    const char *empty = write_file("empty_token", "\n");
    setenv("ILLEGALD_MATRIX_ACCESS_TOKEN_FILE", empty, 1);
    snprintf(text, sizeof text, "[discord]\ntoken_file = %s\n", empty);
    load_ok(&c, text);
    assert_null(c.discord_token);
    assert_null(c.matrix_access_token);
    assert_true(c.web_enabled);
    config_free(&c);

    /* The environment's _FILE overrides the file's plain value. */
    clear_env();
    setenv("ILLEGALD_DISCORD_TOKEN_FILE", dtok, 1);
    load_ok(&c, "[discord]\ntoken = FROM-CONF\n");
    assert_string_equal(c.discord_token, "FILE-DISCORD-TOKEN");
    config_free(&c);
}

static void test_secret_file_errors(void **state)
{
    (void)state;
    char text[256], want[512];
    const char *empty = write_file("empty_token", "\n");

    /* In the file: the error names the config line and the unreadable file. */
    snprintf(want, sizeof want,
             "%%s:3: [discord] token_file: cannot read %s/missing: No such file or directory",
             tmpdir);
    snprintf(text, sizeof text, "[discord]\n; token below\ntoken_file = %s/missing\n", tmpdir);
    load_fails(text, want);

    /* An empty file is an empty value: fine for a token, not for a port. */
    snprintf(want, sizeof want, "%%s:2: [web] port_file: must not be empty");
    snprintf(text, sizeof text, "[web]\nport_file = %s\n", empty);
    load_fails(text, want);

    /* A directory cannot be read as a value. */
    snprintf(want, sizeof want, "%%s:2: [matrix] access_token_file: cannot read %s: %s", tmpdir,
             strerror(EISDIR));
    snprintf(text, sizeof text, "[matrix]\naccess_token_file = %s\n", tmpdir);
    load_fails(text, want);

    /* In the environment. */
    snprintf(text, sizeof text, "%s/nope", tmpdir);
    setenv("ILLEGALD_DISCORD_TOKEN_FILE", text, 1);
    snprintf(want, sizeof want,
             "environment ILLEGALD_DISCORD_TOKEN_FILE: cannot read %s/nope: No such file or "
             "directory",
             tmpdir);
    env_fails(want);

    /* Both forms at once is a mistake, not a silent choice. */
    setenv("ILLEGALD_DISCORD_TOKEN", "x", 1);
    env_fails("environment ILLEGALD_DISCORD_TOKEN: also set as ILLEGALD_DISCORD_TOKEN_FILE; set "
              "one of them");
}

struct bad_case {
    const char *content;
    const char *error; /* %s is the file's path */
};

static const struct bad_case bad_cases[] = {
    {"[store]\npath = x\n[bogus]\nkey = 1\n", "%s:4: [bogus] key: unknown section"},
    {"[web]\nprot = 1\n", "%s:2: [web] prot: unknown key"},
    {"[web]\nport_fil = 1\n", "%s:2: [web] port_fil: unknown key"},
    {"level = info\n", "%s:1: level: key outside any [section]"},
    {"[web]\nport = 80a\n", "%s:2: [web] port: not a number: \"80a\""},
    {"[web]\nport = 0x50\n", "%s:2: [web] port: not a number: \"0x50\""},
    {"[web]\nport = 70000\n", "%s:2: [web] port: out of range (0..65535): 70000"},
    {"[metrics]\nport = -1\n", "%s:2: [metrics] port: out of range (0..65535): -1"},
    {"[game]\nvote_seconds = 0\n", "%s:2: [game] vote_seconds: out of range (1..604800): 0"},
    {"[game]\nlobby_idle_seconds = 59\n",
     "%s:2: [game] lobby_idle_seconds: out of range (60..604800): 59"},
    {"[game]\nlobbies_per_host = 0\n", "%s:2: [game] lobbies_per_host: out of range (1..1000): 0"},
    {"[game]\nlobbies_total = 0\n", "%s:2: [game] lobbies_total: out of range (1..1000000): 0"},
    {"[game]\nsession_seconds = 604801\n",
     "%s:2: [game] session_seconds: out of range (1..604800): 604801"},
    {"[game]\ngrab_seconds = -5\n", "%s:2: [game] grab_seconds: out of range (1..604800): -5"},
    {"[game]\ndebate_seconds = 99999999999999999999\n",
     "%s:2: [game] debate_seconds: out of range (1..604800): 99999999999999999999"},
    {"[game]\nreveal_seconds =\n", "%s:2: [game] reveal_seconds: must not be empty"},
    {"[matrix]\nmoderator_power_level = 101\n",
     "%s:2: [matrix] moderator_power_level: out of range (0..100): 101"},
    {"[matrix]\nmoderator_power_level = -1\n",
     "%s:2: [matrix] moderator_power_level: out of range (0..100): -1"},
    {"[discord]\nshards = many\n", "%s:2: [discord] shards: not a number: \"many\""},
    {"[discord]\nmessage_content = sometimes\n",
     "%s:2: [discord] message_content: \"sometimes\" is none of auto, on and off"},
    {"[discord]\ncompression = zlib-stream\n",
     "%s:2: [discord] compression: not a boolean (true/false, yes/no, on/off, 1/0): "
     "\"zlib-stream\""},
    {"[discord]\nactivity = on\n", "%s:2: [discord] activity: the Activity needs the bot's token"},
    {"[discord]\ntoken = t\nactivity = on\n",
     "%s:3: [discord] activity: the Activity needs application_id (or client_id)"},
    {"[discord]\ntoken = t\napplication_id = 1\nactivity = on\n",
     "%s:4: [discord] activity: the Activity needs client_secret (client_secret_file)"},
    {"[web]\ntls_cert = /etc/c.pem\n",
     "%s:2: [web] tls_cert: HTTPS needs both tls_cert and tls_key"},
    {"[web]\nenabled = maybe\n",
     "%s:2: [web] enabled: not a boolean (true/false, yes/no, on/off, 1/0): \"maybe\""},
    {"[log]\nlevel = loud\n",
     "%s:2: [log] level: unknown log level \"loud\" (debug, info, warn or error)"},
    {"[game]\nvariant = chaos\n", "%s:2: [game] variant: unknown variant \"chaos\" (standard, "
                                  "advanced, casual or casual-advanced)"},
    {"[game]\nlanguage = xx\n",
     "%s:2: [game] language: unsupported language \"xx\" (one of: en (English), de (Deutsch), es "
     "(Español), fr (Français), hu (Magyar), nl (Nederlands), pt (Português))"},
    {"[web]\nport = 1\nport = 2\n", "%s:3: [web] port: duplicate key (already set at line 2)"},
    {"[discord]\ntoken = a\n\ntoken_file = /x\n",
     "%s:4: [discord] token_file: duplicate key (already set at line 2)"},
    {"[web]\nport = 1\n[metrics]\n[web]\nPort = 2\n",
     "%s:5: [web] Port: duplicate key (already set at line 2)"},
    {"[web]\nenabled = true\nport = 9000\n[metrics]\nenabled = yes\nport = 9000\n",
     "%s:6: [metrics] port: web and metrics both listen on 127.0.0.1:9000; give them different "
     "ports"},
    {"[web]\nbind = 0.0.0.0\nport = 9108\n[metrics]\nenabled = yes\n",
     "%s:3: [web] port: web and metrics both listen on 127.0.0.1:9108; give them different "
     "ports"},
    {"[matrix]\nhomeserver = https://m.org\nuser_id = @b:m.org\n",
     "%s:2: [matrix] homeserver: needs access_token, or user_id and password"},
    {"[matrix]\nhomeserver = https://m.org\npassword = pw\n",
     "%s:3: [matrix] password: a password login needs user_id"},
    {"[matrix]\nuser_id = bob\n",
     "%s:2: [matrix] user_id: not a Matrix user id (@name:server): \"bob\""},
    {"[matrix]\nhomeserver = matrix.org\naccess_token = t\n",
     "%s:2: [matrix] homeserver: not a http:// or https:// URL: \"matrix.org\""},
    {"[discord]\napi_url = ftp://x\n",
     "%s:2: [discord] api_url: not a http:// or https:// URL: \"ftp://x\""},
    {"[discord]\ngateway_url = https://x\n",
     "%s:2: [discord] gateway_url: not a ws:// or wss:// URL: \"https://x\""},
    {"[discord]\napi_url =\n", "%s:2: [discord] api_url: must not be empty"},
    {"[store]\npath =\n", "%s:2: [store] path: must not be empty"},
    {"[web]\nbind = local host\n",
     "%s:2: [web] bind: must not contain spaces or control characters: \"local host\""},
    {"[discord]\ntoken = Bot abc.def\n",
     "%s:2: [discord] token: must not contain spaces or control characters (give the bare "
     "token, no \"Bot \")"},
    {"[discord]\nguilds = 1,,2\n", "%s:2: [discord] guilds: empty guild id in \"1,,2\""},
    {"[discord]\nguilds = 1,\n", "%s:2: [discord] guilds: empty guild id in \"1,\""},
    {"[discord]\nguilds = 1,abc\n", "%s:2: [discord] guilds: a guild id is a number, in \"1,abc\""},
    {"[discord]\nguilds = 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17\n",
     "%s:2: [discord] guilds: more than 16 guilds"},
    {"[web]\nport 8080\n", "%s:2: syntax error: expected [section] or key = value"},
    {"[web\nport = 1\n", "%s:1: syntax error: expected [section] or key = value"},
    /* Every error of the file is reported, a line each, in the file's order. */
    {"[web]\nnonsense\nprot = 1\n", "%s:2: syntax error: expected [section] or key = value\n"
                                    "%s:3: [web] prot: unknown key"},
    {"[web]\nprot = 1\nnonsense\n", "%s:2: [web] prot: unknown key\n"
                                    "%s:3: syntax error: expected [section] or key = value"},
    /* keys under a broken [header] are not blamed on the section before it */
    {"[web]\nport = x\n[game\nlanguage = en\n",
     "%s:2: [web] port: not a number: \"x\"\n"
     "%s:3: syntax error: expected [section] or key = value"},
    /* an unknown section is one error, not one a key */
    {"[bogus]\na = 1\nb = 2\n[web]\nport = 0x\n", "%s:2: [bogus] a: unknown section\n"
                                                  "%s:5: [web] port: not a number: \"0x\""},
    {"[web]\n  port = 1\n   continued\n", "%s:3: syntax error: expected [section] or key = value"},
};

static void test_errors(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
        print_message("case %zu: %s\n", i, bad_cases[i].error);
        load_fails(bad_cases[i].content, bad_cases[i].error);
    }
}

/* A file with many mistakes is reported whole, up to a cap, so one run of
 * --check-config shows what to fix. */
static void test_many_errors(void **state)
{
    (void)state;
    char text[2048], err[8192], want[256];
    size_t n = (size_t)snprintf(text, sizeof text, "[web]\n");
    for (int i = 0; i < 25; i++)
        n += (size_t)snprintf(text + n, sizeof text - n, "key%d = 1\n", i);
    struct config c;
    const char *path = write_file("many.conf", text);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, path, err, sizeof err), -1);
    unsigned lines = 1;
    for (const char *p = err; *p; p++)
        lines += *p == '\n';
    assert_int_equal(lines, 21); /* 20 errors, then that there are more */
    snprintf(want, sizeof want, "%s:2: [web] key0: unknown key\n", path);
    assert_memory_equal(err, want, strlen(want));
    snprintf(want, sizeof want, "%s:21: [web] key19: unknown key\n(more errors not shown)", path);
    assert_non_null(strstr(err, want));
    config_free(&c);
}

static void test_long_line(void **state)
{
    (void)state;
    char text[1024], want[256];
    snprintf(text, sizeof text, "[store]\npath = /%0600d\n", 0);
    struct config c;
    char err[512];
    const char *path = write_file("long.conf", text);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: line longer than ", path);
    assert_memory_equal(err, want, strlen(want));
    assert_non_null(
        strstr(err, "characters; give a long value as <key>_file or in the environment"));
    config_free(&c);

    /* A line of a mebibyte is read no further than the line cap, and refused the same way. */
    size_t big = 1u << 20;
    char *huge = malloc(big + 64);
    assert_non_null(huge);
    int n = snprintf(huge, 64, "[store]\npath = /");
    memset(huge + n, 'x', big);
    strcpy(huge + n + big, "\n");
    path = write_file("huge.conf", huge);
    free(huge);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, path, err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:2: line longer than ", path);
    assert_memory_equal(err, want, strlen(want));
    config_free(&c);

    /* A long value is fine through <key>_file. */
    const char *value = write_file("long_path", text + 15);
    snprintf(text, sizeof text, "[store]\npath_file = %s\n", value);
    load_ok(&c, text);
    assert_int_equal(strlen(c.store_path), 601);
    config_free(&c);
}

static void test_missing_file(void **state)
{
    (void)state;
    struct config c;
    char err[256], path[128];
    snprintf(path, sizeof path, "%s/does-not-exist.conf", tmpdir);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, path, err, sizeof err), -1);
    char want[256];
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory", path);
    assert_string_equal(err, want);
    config_free(&c);
}

static void test_small_error_buffer(void **state)
{
    (void)state;
    struct config c;
    char err[8];
    memset(err, 'x', sizeof err);
    const char *path = write_file("small.conf", "[web]\nport = nope\n");
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, path, err, sizeof err), -1);
    assert_int_equal(strlen(err), sizeof err - 1);
    config_free(&c);

    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, path, NULL, 0), -1);
    config_free(&c);
}

static void test_secrets_not_echoed(void **state)
{
    (void)state;
    struct config c;
    char err[512];
    const char *path = write_file("leak.conf", "[discord]\ntoken = Bot SUPERSECRET\n");
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, path, err, sizeof err), -1);
    assert_null(strstr(err, "SUPERSECRET"));
    config_free(&c);

    setenv("ILLEGALD_MATRIX_ACCESS_TOKEN", "tab\tSUPERSECRET", 1);
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "ILLEGALD_MATRIX_ACCESS_TOKEN"));
    assert_null(strstr(err, "SUPERSECRET"));
    config_free(&c);
}

static char *describe(const struct config *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    config_describe(c, f);
    assert_int_equal(fclose(f), 0);
    return buf;
}

static void test_describe(void **state)
{
    (void)state;
    struct config c;
    const char *pw = write_file("pw", "PASSWORD-FROM-FILE\n");
    setenv("ILLEGALD_MATRIX_PASSWORD_FILE", pw, 1);
    setenv("ILLEGALD_DISCORD_TOKEN", "ENV-DISCORD-SECRET", 1);
    load_ok(&c, full_file);
    char *out = describe(&c);
    assert_null(strstr(out, "SECRET"));
    assert_null(strstr(out, "PASSWORD-FROM-FILE"));
    assert_null(strstr(out, "MATRIX PASSWORD"));
    assert_non_null(strstr(out, "\n[discord]\ntoken = (set)\n"));
    assert_non_null(strstr(out, "\naccess_token = (set)\n"));
    assert_non_null(strstr(out, "\npassword = (set)\n"));
    assert_non_null(strstr(out, "\n[web]\nenabled = true\nbind = 0.0.0.0\nport = 8081\n"));
    assert_non_null(strstr(out, "\nguilds = 111,222,333\n"));
    assert_non_null(strstr(out, "\nsession_seconds = 240\n"));
    assert_non_null(strstr(out, "\nuser_id = @illegal:example.org\n"));
    assert_non_null(strstr(out, "\nlevel = debug\n"));
    free(out);
    config_free(&c);

    clear_env();
    load_ok(&c, NULL);
    out = describe(&c);
    assert_non_null(strstr(out, "\ntoken = (not set)\n"));
    assert_non_null(strstr(out, "\naccess_token = (not set)\n"));
    assert_non_null(strstr(out, "\nfile =\n"));
    assert_non_null(strstr(out, "\nguilds =\n"));
    assert_non_null(strstr(out, "\n[metrics]\nenabled = false\nbind = 127.0.0.1\nport = 9108\n"));
    free(out);
    config_free(&c);
}

/* A URL may carry credentials: a password (or a token) before the host, a
 * token in its query. --check-config shows the rest of it, and an error
 * about a URL quotes it the same way. */
static void test_url_credentials(void **state)
{
    (void)state;
    struct config c;
    char err[512];
    load_ok(&c, "[matrix]\n"
                "homeserver = https://bot:HUNTER2@matrix.example.org:"
                "8448/base?access_token=QUERYSECRET#FRAGSECRET\n"
                "access_token = t\n"
                "[discord]\n"
                "api_url = http://TOKENUSER@127.0.0.1:5000/api\n");
    char *out = describe(&c);
    assert_null(strstr(out, "HUNTER2"));
    assert_null(strstr(out, "QUERYSECRET"));
    assert_null(strstr(out, "FRAGSECRET"));
    assert_null(strstr(out, "TOKENUSER"));
    assert_non_null(strstr(
        out, "\nhomeserver = https://(hidden)@matrix.example.org:8448/base?(hidden)#(hidden)\n"));
    assert_non_null(strstr(out, "\napi_url = http://(hidden)@127.0.0.1:5000/api\n"));
    free(out);
    config_free(&c);

    const char *path =
        write_file("badurl.conf", "[discord]\napi_url = ftp://me:HUNTER3@example.org\n");
    assert_int_equal(config_init(&c), 0);
    assert_int_equal(config_load(&c, path, err, sizeof err), -1);
    assert_non_null(strstr(err, "api_url"));
    assert_non_null(strstr(err, "ftp://(hidden)@example.org"));
    assert_null(strstr(err, "HUNTER3"));
    config_free(&c);
}

static void test_is_secret(void **state)
{
    (void)state;
    assert_true(config_is_secret_key("discord", "token"));
    assert_true(config_is_secret_key("discord", "token_file"));
    assert_true(config_is_secret_key("discord", "client_secret"));
    assert_true(config_is_secret_key("Discord", "TOKEN"));
    assert_true(config_is_secret_key("matrix", "access_token"));
    assert_true(config_is_secret_key("matrix", "password"));
    assert_false(config_is_secret_key("matrix", "user_id"));
    assert_false(config_is_secret_key("web", "port"));
    assert_false(config_is_secret_key("nope", "token"));
    assert_false(config_is_secret_key(NULL, "token"));
    assert_false(config_is_secret_key("discord", NULL));
}

/* Reads the whole of path into a malloc'd string. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    int ch;
    while ((ch = getc(f)) != EOF)
        putc(ch, out);
    fclose(f);
    assert_int_equal(fclose(out), 0);
    return buf;
}

/*
 * config/illegald.conf.example loads as it ships, and with every "#key = value"
 * line uncommented it names every key once and its values are the defaults.
 */
static void test_example_file(void **state)
{
    (void)state;
    struct config c, d;
    char err[512];
    assert_int_equal(config_init(&c), 0);
    if (config_load(&c, EXAMPLE_CONF, err, sizeof err) != 0)
        fail_msg("%s", err);
    char *want = describe(&c);
    config_free(&c);

    char *text = slurp(EXAMPLE_CONF);
    size_t nkeys = 0;
    for (char *p = text; *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : p + strlen(p)) {
        if (p[0] == '#' && p[1] >= 'a' && p[1] <= 'z') {
            p[0] = ' ';
            nkeys++;
        }
    }
    assert_int_equal(nkeys, 64);
    load_ok(&d, text);
    char *got = describe(&d);
    assert_string_equal(got, want);
    config_free(&d);
    free(got);
    free(want);
    free(text);
}

/*
 * A game's defaults live in its own section, [game.<module>], as its settings
 * table names them; Illegal's old keys in plain [game] still work, and are
 * listed for the log's one line.
 */
static void test_game_sections(void **state)
{
    (void)state;
    struct config c;
    load_ok(&c, "[game.illegal]\nvariant = casual-advanced\ngrab_seconds = 12\n");
    assert_string_equal(game_text(&c, "variant"), "casual-advanced");
    assert_int_equal(game_value(&c, "grab"), 12);
    assert_int_equal(game_value(&c, "vote"), 30);
    assert_string_equal(c.game_section_keys, "");
    config_free(&c);

    load_ok(&c,
            "[game]\nsession_seconds = 99\nvote_seconds = 9\n[Game.Illegal]\nreveal_seconds = 4\n");
    assert_int_equal(game_value(&c, "session"), 99);
    assert_int_equal(game_value(&c, "reveal"), 4);
    assert_string_equal(c.game_section_keys,
                        "session_seconds (game.illegal), vote_seconds (game.illegal)");
    config_free(&c);

    setenv("ILLEGALD_GAME_ILLEGAL_DEBATE_SECONDS", "70", 1);
    setenv("ILLEGALD_GAME_GRAB_SECONDS", "25", 1);
    load_ok(&c, NULL);
    assert_int_equal(game_value(&c, "debate"), 70);
    assert_int_equal(game_value(&c, "grab"), 25);
    config_free(&c);
    clear_env();
    setenv("ILLEGALD_GAME_PALM_DREWES_TURN_SECONDS", "90", 1);
    load_ok(&c, "");
    const struct rules_module *pd_env = rules_by_id("palm-drewes");
    assert_int_equal(config_game(&c, pd_env)
                         ->value[rules_setting_index(
                             pd_env, rules_setting_find(pd_env->settings_table, "turn"))],
                     90);
    config_free(&c);
    clear_env();
    setenv("ILLEGALD_GAME_ILLEGAL_VARIANT", "chaos", 1);
    env_fails("environment ILLEGALD_GAME_ILLEGAL_VARIANT: unknown variant \"chaos\" "
              "(standard, advanced, casual or casual-advanced)");
    clear_env();

    load_fails("[game]\ngrab_seconds = 5\n[game.illegal]\ngrab_seconds = 6\n",
               "%s:4: [game.illegal] grab_seconds: duplicate key (already set at line 2)");
    load_fails("[game.illegal]\nlanguage = de\n", "%s:2: [game.illegal] language: unknown key");
    load_fails("[game.illegal]\nresources = guns\n", "%s:2: [game.illegal] resources: unknown key");
    load_ok(&c, "[game]\ndefault_game = illegal\n");
    assert_string_equal(c.default_game, "illegal");
    config_free(&c);
    load_fails("[game]\ndefault_game = chess\n",
               "%s:2: [game] default_game: unknown game \"chess\" (illegal, palm-drewes)");
    load_fails("[game.chess]\nclock_seconds = 5\n",
               "%s:2: [game.chess] clock_seconds: unknown section");

    /* the second game's section, read from its own settings table */
    load_ok(&c, "[game]\ndefault_game = palm-drewes\n[game.palm-drewes]\nturn_seconds = 300\n"
                "series = 500000\n");
    assert_string_equal(c.default_game, "palm-drewes");
    const struct rules_module *pd = rules_by_id("palm-drewes");
    const struct rules_defaults *d = config_game(&c, pd);
    assert_int_equal(
        d->value[rules_setting_index(pd, rules_setting_find(pd->settings_table, "turn"))], 300);
    assert_int_equal(
        d->value[rules_setting_index(pd, rules_setting_find(pd->settings_table, "series"))], 1);
    config_free(&c);
    load_fails("[game.palm-drewes]\nturn_seconds = 0\n",
               "%s:2: [game.palm-drewes] turn_seconds: out of range (1..604800): 0");
    load_fails("[game.palm-drewes]\nseries = 7\n",
               "%s:2: [game.palm-drewes] series: unknown series \"7\" (0, 500000 or 1000000)");
    load_fails("[game]\nturn_seconds = 60\n", /* its keys are not in [game] */
               "%s:2: [game] turn_seconds: unknown key");
}

static void test_reinit(void **state)
{
    (void)state;
    struct config c;
    load_ok(&c, full_file);
    config_free(&c);
    config_free(&c); /* twice is harmless */
    load_ok(&c, full_file);
    config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_defaults, setup),
        cmocka_unit_test_setup(test_file_values, setup),
        cmocka_unit_test_setup(test_game_sections, setup),
        cmocka_unit_test_setup(test_syntax_freedoms, setup),
        cmocka_unit_test_setup(test_web_default, setup),
        cmocka_unit_test_setup(test_activity, setup),
        cmocka_unit_test_setup(test_env_override, setup),
        cmocka_unit_test_setup(test_secret_files, setup),
        cmocka_unit_test_setup(test_secret_file_errors, setup),
        cmocka_unit_test_setup(test_errors, setup),
        cmocka_unit_test_setup(test_many_errors, setup),
        cmocka_unit_test_setup(test_long_line, setup),
        cmocka_unit_test_setup(test_missing_file, setup),
        cmocka_unit_test_setup(test_small_error_buffer, setup),
        cmocka_unit_test_setup(test_secrets_not_echoed, setup),
        cmocka_unit_test_setup(test_describe, setup),
        cmocka_unit_test_setup(test_url_credentials, setup),
        cmocka_unit_test_setup(test_is_secret, setup),
        cmocka_unit_test_setup(test_example_file, setup),
        cmocka_unit_test_setup(test_reinit, setup),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
