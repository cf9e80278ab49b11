/*
 * test_deploy_env.c - the settings the deployment files give the daemon are
 * valid and mean what they say: the container (Dockerfile ENV, compose.yaml
 * environment and secrets, the example env file) and the systemd unit
 * (Environment= and credentials), each over the example configuration that
 * both install as /etc/illegald/illegald.conf.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "bot/config.h"

extern char **environ;

static char tmpdir[64];

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
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

static void write_file(const char *path, const char *content)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(content, f);
    assert_int_equal(fclose(f), 0);
}

static void clear_env(void)
{
    for (;;) {
        char name[128] = "";
        for (char **e = environ; *e; e++)
            if (strncmp(*e, "ILLEGALD_", 9) == 0) {
                snprintf(name, sizeof name, "%.*s", (int)strcspn(*e, "="), *e);
                break;
            }
        if (!name[0])
            return;
        unsetenv(name);
    }
}

/* Sets "KEY=VALUE" (VALUE up to end), replacing a leading from with to. */
static void set_pair(const char *pair, size_t len, const char *from, const char *to)
{
    char buf[512], value[512];
    assert_true(len < sizeof buf);
    memcpy(buf, pair, len);
    buf[len] = '\0';
    char *eq = strchr(buf, '=');
    assert_non_null(eq);
    *eq = '\0';
    const char *v = eq + 1;
    if (from && strncmp(v, from, strlen(from)) == 0)
        snprintf(value, sizeof value, "%s%s", to, v + strlen(from));
    else
        snprintf(value, sizeof value, "%s", v);
    assert_int_equal(setenv(buf, value, 1), 0);
}

/* The example env file: every uncommented KEY=value line. */
static int apply_env_file(const char *path)
{
    char *text = slurp(path);
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (line[0] == '#' || !strchr(line, '='))
            continue;
        assert_true(strncmp(line, "ILLEGALD_", 9) == 0);
        set_pair(line, strlen(line), NULL, NULL);
        n++;
    }
    free(text);
    return n;
}

/* The Dockerfile's ENV instructions: KEY=VALUE words, over continued lines. */
static int apply_dockerfile_env(const char *text)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, "\nENV "));) {
        p += 5;
        /* The instruction ends at the first newline not escaped by a backslash. */
        const char *end = p;
        while (*end && !(*end == '\n' && end[-1] != '\\'))
            end++;
        char *inst = strndup(p, (size_t)(end - p));
        assert_non_null(inst);
        for (char *w = strtok(inst, " \t\n\\"); w; w = strtok(NULL, " \t\n\\")) {
            set_pair(w, strlen(w), NULL, NULL);
            n++;
        }
        free(inst);
        p = end;
    }
    return n;
}

/* compose.yaml's `environment:` entries; /run/secrets/ becomes secrets. */
static int apply_compose_env(const char *path, const char *secrets)
{
    char *text = slurp(path);
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        char *s = line + strspn(line, " ");
        if (strncmp(s, "ILLEGALD_", 9) != 0)
            continue;
        char *colon = strstr(s, ": ");
        assert_non_null(colon);
        *colon = '=';
        memmove(colon + 1, colon + 2, strlen(colon + 2) + 1);
        set_pair(s, strlen(s), "/run/secrets/", secrets);
        n++;
    }
    free(text);
    return n;
}

/* The unit's Environment= lines; %d/ becomes creds. */
static int apply_unit_env(const char *path, const char *creds)
{
    char *text = slurp(path);
    int n = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (strncmp(line, "Environment=", 12) != 0)
            continue;
        set_pair(line + 12, strlen(line + 12), "%d/", creds);
        n++;
    }
    free(text);
    return n;
}

static void load(struct config *c)
{
    char err[512];
    assert_int_equal(config_init(c), 0);
    if (config_load(c, EXAMPLE_CONF, err, sizeof err) != 0)
        fail_msg("%s", err);
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
    snprintf(tmpdir, sizeof tmpdir, "/tmp/illegald-deploy-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    char path[128];
    snprintf(path, sizeof path, "%s/secrets", tmpdir);
    return mkdir(path, 0700);
}

static int group_teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_container(void **state)
{
    (void)state;
    char secrets[128], path[192];
    snprintf(secrets, sizeof secrets, "%s/secrets/", tmpdir);
    /* As compose.yaml's comment says: an empty secret for a platform not in use. */
    snprintf(path, sizeof path, "%sdiscord_token", secrets);
    write_file(path, "");
    snprintf(path, sizeof path, "%smatrix_access_token", secrets);
    write_file(path, "");

    char *dockerfile = slurp(DEPLOY_DIR "/Dockerfile");
    assert_true(apply_dockerfile_env(dockerfile) >= 3);
    assert_true(apply_env_file(DEPLOY_DIR "/illegald.env.example") >= 1);
    assert_int_equal(apply_compose_env(DEPLOY_DIR "/compose.yaml", secrets), 2);

    struct config c;
    load(&c);
    assert_string_equal(c.store_path, "/var/lib/illegald/illegald.db");
    assert_null(c.discord_token);
    assert_null(c.matrix_access_token);
    assert_true(c.web_enabled);
    assert_string_equal(c.web_bind, "0.0.0.0");
    /* The HEALTHCHECK asks the metrics listener, which must be on, on its port. */
    assert_true(c.metrics_enabled);
    assert_string_equal(c.metrics_bind, "127.0.0.1");
    char want[64];
    snprintf(want, sizeof want, "http://127.0.0.1:${ILLEGALD_METRICS_PORT:-%d}/healthz",
             c.metrics_port);
    assert_non_null(strstr(dockerfile, want));
    snprintf(want, sizeof want, "\nEXPOSE %d\n", c.web_port);
    assert_non_null(strstr(dockerfile, want));
    char *compose = slurp(DEPLOY_DIR "/compose.yaml");
    snprintf(want, sizeof want, "\"127.0.0.1:%d:%d\"", c.web_port, c.web_port);
    assert_non_null(strstr(compose, want));
    config_free(&c);

    /* With a Discord token as a secret: Discord on, the table off by default. */
    snprintf(path, sizeof path, "%sdiscord_token", secrets);
    write_file(path, "container-discord-token\n");
    load(&c);
    assert_string_equal(c.discord_token, "container-discord-token");
    assert_false(c.web_enabled);
    assert_true(c.metrics_enabled);
    config_free(&c);
    free(compose);
    free(dockerfile);
}

static void test_systemd_unit(void **state)
{
    (void)state;
    char creds[128], path[192];
    snprintf(creds, sizeof creds, "%s/creds/", tmpdir);
    mkdir(creds, 0700);
    /* What SetCredential=...:\n gives when /etc/illegald/<name> is missing. */
    snprintf(path, sizeof path, "%sdiscord_token", creds);
    write_file(path, "\n");
    snprintf(path, sizeof path, "%smatrix_access_token", creds);
    write_file(path, "\n");

    assert_int_equal(apply_unit_env(DEPLOY_DIR "/illegald.service", creds), 3);
    struct config c;
    load(&c);
    assert_string_equal(c.store_path, "/var/lib/illegald/illegald.db");
    assert_null(c.discord_token);
    assert_null(c.matrix_access_token);
    assert_true(c.web_enabled);
    config_free(&c);

    /* The store is in the unit's StateDirectory. */
    char *unit = slurp(DEPLOY_DIR "/illegald.service");
    assert_non_null(strstr(unit, "\nStateDirectory=illegald\n"));
    assert_non_null(strstr(unit, "\nSetCredential=discord_token:\\n\n"));
    assert_non_null(strstr(unit, "\nSetCredential=matrix_access_token:\\n\n"));
    free(unit);

    snprintf(path, sizeof path, "%sdiscord_token", creds);
    write_file(path, "unit-discord-token\n");
    load(&c);
    assert_string_equal(c.discord_token, "unit-discord-token");
    assert_false(c.web_enabled);
    config_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_container, setup),
        cmocka_unit_test_setup(test_systemd_unit, setup),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
