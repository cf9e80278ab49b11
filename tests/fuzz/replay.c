/*
 * replay.c - runs a fuzz target over its seed corpus without libFuzzer.
 *
 * Usage: fuzz_<name>_replay PATH...; each PATH is a file or a directory of
 * files, read in name order so a failure replays the same way. A crash ends
 * the run through the sanitizers; otherwise it prints how many inputs ran.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

#define REPLAY_MAX_INPUT (4u << 20) /* a seed larger than this is a mistake */

static int replay_file(const char *path, unsigned *count)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf = NULL;
    size_t n = 0;
    int rc = -1;

    if (f == NULL)
        goto fail;
    buf = malloc(REPLAY_MAX_INPUT);
    if (buf == NULL)
        goto fail;
    n = fread(buf, 1, REPLAY_MAX_INPUT, f);
    if (ferror(f) || !feof(f))
        goto fail;
    /* Hand the target an exact-size copy so ASan sees reads past the end. */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact == NULL)
        goto fail;
    memcpy(exact, buf, n);
    LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    (*count)++;
    rc = 0;
fail:
    if (rc != 0)
        fprintf(stderr, "replay: cannot read %s\n", path);
    free(buf);
    if (f != NULL)
        fclose(f);
    return rc;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int replay_path(const char *path, unsigned *count)
{
    struct stat st;
    struct dirent **names = NULL;
    int n, rc = 0;

    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such path %s\n", path);
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return replay_file(path, count);
    n = scandir(path, &names, NULL, by_name);
    if (n < 0) {
        fprintf(stderr, "replay: cannot list %s\n", path);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        char child[4096];
        if (names[i]->d_name[0] != '.' &&
            (size_t)snprintf(child, sizeof child, "%s/%s", path, names[i]->d_name) < sizeof child &&
            replay_path(child, count) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    unsigned count = 0;
    int rc = 0;

    if (LLVMFuzzerInitialize != NULL)
        LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 1; i < argc; i++)
        if (replay_path(argv[i], &count) != 0)
            rc = 1;
    if (count == 0) {
        fprintf(stderr, "replay: no input found\n");
        rc = 1;
    }
    printf("%u passed, %d failed\n", rc ? 0 : count, rc ? 1 : 0);
    return rc;
}
