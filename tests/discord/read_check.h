/*
 * read_check.h - whether the adapter's two readers of a MESSAGE_CREATE (its
 * skimmed spans, json-c's parse: adapters/discord/internal.h, dc_read_*), and
 * of an INTERACTION_CREATE (dc_ix_read_*), give the bot the same input:
 * shared by test_skim and the gateway and skim_ix fuzz targets.
 */
#ifndef TESTS_DISCORD_READ_CHECK_H
#define TESTS_DISCORD_READ_CHECK_H

#include <stdbool.h>
#include <stddef.h>

struct platform;
struct fuzz_host;

/* The Discord adapter of a daemon on a fresh store (fuzz_host_open(h)), as
 * the gateway fuzz target builds it, ready, with a guild 7001 whose owner is
 * 6100, whose role 9001 administers it and whose role 9002 is the
 * moderator role. NULL when it could not be made. */
struct platform *read_check_adapter(struct fuzz_host *h);

/*
 * When the skimmer reads the gateway message txt (len bytes), reads it with
 * the Discord adapter p both ways and compares the inputs: the same answer
 * (read or ignored) and, read, the same type, channel, user, name,
 * moderator, text, community and order. *read says whether the spans gave
 * an input. Returns NULL when they agree (or the skimmer does not read it),
 * else what differs (a static string).
 */
const char *read_check(struct platform *p, const char *txt, size_t len, bool *read);

/*
 * When the interaction skimmer (skim_ix.h) reads the gateway message txt,
 * checks that the full parse reads it as an INTERACTION_CREATE of the same
 * sequence, reads it with the Discord adapter p both ways (dc_ix_read_*)
 * and compares every member the adapter reads, the moderator answer too.
 * *read says whether the skimmer read it. Returns NULL when they agree (or
 * the skimmer does not read it), else what differs (a static string).
 */
const char *ix_read_check(struct platform *p, const char *txt, size_t len, bool *read);

#endif
