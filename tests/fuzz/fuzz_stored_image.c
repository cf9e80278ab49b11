/*
 * fuzz_stored_image.c - a game's image as read back from the store
 * (bot/image.h), where a damaged disk may have left anything.
 *
 * Input: first, the bytes as an image, which image_read() must refuse or
 * pass over without tripping a sanitizer (only this build's image, whole,
 * is read, and then it must hold a game). Then the bytes as a record: when
 * game_from_json() accepts it, the game's image must read back to the same
 * record, and that image cut short, or with one byte changed (where and how
 * taken from the input), must never be read as a game.
 */
#include <json-c/json.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bot/game.h"
#include "bot/image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* g's record as text; the caller frees it. */
static char *record_text(const struct game *g)
{
    struct json_object *j = game_to_json(g);
    char *text = j ? strdup(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN)) : NULL;
    json_object_put(j);
    if (!text)
        abort();
    return text;
}

/* Reads image (len bytes) into a new game: its rc, and the game when 0. */
static int read_image(const void *image, size_t len, struct game **out)
{
    struct game *g = malloc(sizeof *g);
    char why[128];
    if (!g)
        abort();
    int rc = image_read(g, image, len, why, sizeof why);
    if (rc != 0) {
        free(g);
        g = NULL;
    }
    *out = g;
    return rc;
}

/* The image of g, read back, and damaged as data says. */
static void image_of(const struct game *g, const uint8_t *data, size_t size)
{
    struct buf b;
    buf_init(&b, IMAGE_BYTES_MAX);
    int rc = image_write(g, &b);
    if (rc != 0) { /* no memory, or no build id: neither here */
        fprintf(stderr, "no image of an accepted record (%d)\n", rc);
        abort();
    }
    struct game *back;
    if (read_image(b.data, b.len, &back) != 0) {
        fprintf(stderr, "an image just written is refused\n");
        abort();
    }
    char *want = record_text(g), *got = record_text(back);
    if (strcmp(want, got) != 0) {
        fprintf(stderr, "the image reads back as another record:\n%s\n%s\n", want, got);
        abort();
    }
    free(want);
    free(got);
    game_free(back);
    uint32_t pick = 0;
    memcpy(&pick, data, size < sizeof pick ? size : sizeof pick);
    if (read_image(b.data, pick % b.len, &back) == 0) {
        fprintf(stderr, "an image cut short is read\n");
        abort();
    }
    b.data[pick % b.len] ^= (char)(1u << (pick >> 29));
    if (read_image(b.data, b.len, &back) == 0) {
        fprintf(stderr, "an image with byte %u changed is read\n", (unsigned)(pick % b.len));
        abort();
    }
    buf_free(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct game *g;
    if (read_image(data, size, &g) == 0) {
        free(record_text(g));
        game_free(g);
    }
    g = calloc(1, sizeof *g);
    struct json_tokener *tok = json_tokener_new();
    struct json_object *j = NULL;
    char why[128];
    if (!g || !tok || size > INT32_MAX)
        goto done;
    j = json_tokener_parse_ex(tok, (const char *)data, (int)size);
    if (j && game_from_json(g, j, why, sizeof why) == 0)
        image_of(g, data, size);
done:
    json_object_put(j);
    json_tokener_free(tok);
    game_free(g);
    return 0;
}
