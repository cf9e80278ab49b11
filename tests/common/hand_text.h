/*
 * hand_text.h - reading the hand a player is shown, as the end-to-end tests'
 * players do on every platform.
 */
#ifndef TESTS_HAND_TEXT_H
#define TESTS_HAND_TEXT_H

#include <stddef.h>

/* Writes into out (len bytes, cut to fit) the first card the text of a hand
 * names: "Dope ×2, Guns" names Dope. An empty hand gives "". */
void hand_first_card(const char *hand, char *out, size_t len);

#endif
