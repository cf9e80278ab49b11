/*
 * answer_check.h - dc_answer_id() (adapters/discord/answer.h) held to
 * json-c's parse of the same answer, for the unit test and the fuzz target.
 */
#ifndef TESTS_DISCORD_ANSWER_CHECK_H
#define TESTS_DISCORD_ANSWER_CHECK_H

#include <stdbool.h>

/* Runs dc_answer_id() on body; when it answers, json-c must read body as an
 * object whose "id" is the same string. Writes what it read into id (or ""
 * when it gave up). Returns false when the two disagree. */
bool answer_check(const char *body, char id[24]);

#endif
