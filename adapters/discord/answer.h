/*
 * answer.h - the id of a message Discord created, read from its answer
 * without json-c's parse of the whole message.
 */
#ifndef DISCORD_ANSWER_H
#define DISCORD_ANSWER_H

#include <stddef.h>

#define ANSWER_ID_MAX 20 /* the digits of a snowflake (a 64-bit number) */

/*
 * Reads into id (len bytes) the "id" of the JSON object body, Discord's
 * answer to a post (resources/message: the message object). Returns 0 when
 * body is one valid JSON object whose last top-level "id" is a string of 1 to
 * ANSWER_ID_MAX digits written without escapes, exactly what json-c would
 * read; -1 otherwise (anything it is not sure of), when the caller reads
 * body with json-c instead.
 */
int dc_answer_id(const char *body, char *id, size_t len);

#endif
