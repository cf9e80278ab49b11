/*
 * fuzz_config_ini.c - the INI configuration file, with every check the
 * daemon makes of it.
 *
 * Input: the file's contents. They are written to a temporary file (on tmpfs
 * when there is one) and loaded by config_load(), the daemon's own loader:
 * libinih with the line reader that refuses over-long lines, each key's type
 * and range checks, <key>_file indirection and the checks across keys. A file
 * that loads is then described, as --check-config does.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bot/config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

extern char **environ;

static char path[64];
static FILE *devnull;

static void cleanup(void)
{
    unlink(path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    snprintf(path, sizeof path, "%s/illegald-fuzz-config-XXXXXX",
             access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    int fd = mkstemp(path);
    devnull = fopen("/dev/null", "w");
    if (fd < 0 || !devnull) {
        perror("fuzz_config_ini: setup");
        abort();
    }
    close(fd);
    atexit(cleanup);
    /* Only the file counts: settings from the environment would hide it. */
    for (char **e = environ; *e;)
        if (strncmp(*e, "ILLEGALD_", 9) == 0) {
            char name[256];
            size_t n = strcspn(*e, "=");
            snprintf(name, sizeof name, "%.*s", (int)n, *e);
            unsetenv(name);
        } else {
            e++;
        }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct config c;
    char err[512];
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    if (config_init(&c) < 0)
        return 0;
    if (config_load(&c, path, err, sizeof err) == 0)
        config_describe(&c, devnull);
    else if (!err[0] || !memchr(err, '\0', sizeof err))
        abort(); /* every refusal says why */
    config_free(&c);
    return 0;
}
