/*
 * fuzz_discord_answer.c - Discord's answer to a post, one input a run: the
 * created message's id read without the full parse (adapters/discord/
 * answer.h) must be what json-c reads, whenever the reader answers. A
 * disagreement aborts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "answer_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *body = malloc(size + 1), id[24];
    if (!body)
        return 0;
    memcpy(body, data, size);
    body[size] = '\0'; /* as the REST layer hands it: NUL-terminated */
    if (!answer_check(body, id))
        abort();
    free(body);
    return 0;
}
