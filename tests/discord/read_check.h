/*
 * read_check.h - whether the adapter's two readers of a MESSAGE_CREATE (its
 * skimmed spans, json-c's parse: adapters/discord/internal.h, dc_read_*) give
 * the bot the same input: shared by test_skim and the gateway fuzz target.
 */
#ifndef TESTS_DISCORD_READ_CHECK_H
#define TESTS_DISCORD_READ_CHECK_H

#include <stdbool.h>
#include <stddef.h>

struct platform;

/*
 * When the skimmer reads the gateway message txt (len bytes), reads it with
 * the Discord adapter p both ways and compares the inputs: the same answer
 * (read or ignored) and, read, the same type, channel, user, name,
 * moderator, text, community and order. *read says whether the spans gave
 * an input. Returns NULL when they agree (or the skimmer does not read it),
 * else what differs (a static string).
 */
const char *read_check(struct platform *p, const char *txt, size_t len, bool *read);

#endif
