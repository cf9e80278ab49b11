/*
 * rate_check.h - rl_headers_parse() (adapters/discord/ratelimit.h) held to a
 * plain reader of the same header lines, one name at a time, for the REST
 * unit test and the fuzz target.
 */
#ifndef TESTS_DISCORD_RATE_CHECK_H
#define TESTS_DISCORD_RATE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

/* Splits text (n bytes) into lines as libcurl hands them to a header
 * callback (each with its '\n', the last perhaps without), reads them with
 * rl_headers_parse() and with the plain reader, and compares every field.
 * Returns false when the two disagree. */
bool rate_check(const char *text, size_t n);

#endif
