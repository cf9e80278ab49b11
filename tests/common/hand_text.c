/*
 * hand_text.c - reading the hand a player is shown (see hand_text.h).
 */
#include <stdio.h>
#include <string.h>

#include "hand_text.h"

void hand_first_card(const char *hand, char *out, size_t len)
{
    size_t end = strcspn(hand, ",.");
    const char *x = strstr(hand, " \xC3\x97"); /* " ×": the count of a card held more than once */
    if (x && (size_t)(x - hand) < end)
        end = (size_t)(x - hand);
    snprintf(out, len, "%.*s", (int)end, hand);
}
