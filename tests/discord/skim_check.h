/*
 * skim_check.h - whether the skimmer (adapters/discord/skim.h) and the full
 * parse (gw_decode) agree on one gateway message: shared by test_skim and
 * the gateway fuzz target.
 */
#ifndef TESTS_DISCORD_SKIM_CHECK_H
#define TESTS_DISCORD_SKIM_CHECK_H

#include <stddef.h>

#include "adapters/discord/skim.h"

/*
 * Skims txt (len bytes) into *got (and *seq) and checks the answer against
 * gw_decode's: an ignored message must parse as a guild MESSAGE_CREATE with
 * the same sequence whose content is no command; a message read must parse
 * as a MESSAGE_CREATE with the same sequence whose "d" holds the same values
 * of the members dc_read_message() and dc_is_moderator() read. Returns NULL when
 * they agree, else what differs (a static string).
 */
const char *skim_check(const char *txt, size_t len, enum gw_skim *got, int64_t *seq);

#endif
