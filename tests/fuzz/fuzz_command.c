/*
 * fuzz_command.c - chat command lines and the card lists and player names in
 * them, as a user may type them in a table or a DM.
 *
 * Input: one line; its first byte picks table or DM parsing and the resources
 * in play, so one corpus covers both.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bot/command.h"
#include "core/illegal/module.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const ids[] = {"alice", "bob", "<@123>", "carol"};
    static const char *const names[] = {"Alice Smith", "bob", "Dave", "alice"};
    char *line, word[64], choices[512];
    struct command c;
    struct il_bundle bundle;
    unsigned in_play;
    int resource, index;

    if (size == 0)
        return 0;
    in_play = data[0];
    line = malloc(size);
    if (line == NULL)
        return 0;
    memcpy(line, data + 1, size - 1);
    line[size - 1] = '\0';

    memset(&c, 0, sizeof c);
    if (command_parse(line, (data[0] & 1) != 0, &c) == CMD_OK) {
        il_parse_cards(c.arg2, in_play, "en", &bundle, word, sizeof word, choices, sizeof choices);
        il_parse_cards(c.arg3, in_play, "en", &bundle, word, sizeof word, choices, sizeof choices);
        il_parse_resource(c.arg, in_play, "en", &resource, choices, sizeof choices);
        command_match_player(c.arg, ids, names, 4, &index, choices, sizeof choices);
    }
    il_parse_cards(line, in_play, "en", &bundle, word, sizeof word, choices, sizeof choices);
    command_match_player(line, ids, names, 4, &index, choices, sizeof choices);
    free(line);
    return 0;
}
