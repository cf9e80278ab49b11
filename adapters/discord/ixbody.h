/*
 * ixbody.h - the requests that answer an interaction, as text around a
 * message body the writer made (render.c), with no json-c object between.
 *
 * An answer's body is ephemeral: a message body whose first member is
 * "flags":64 (IXB_EPHEMERAL), the form a follow-up takes. The same body
 * without that member is what an edit of the deferred answer and a plain
 * message (a DM) take; a callback carries the body as its "data"
 * (interactions/receiving-and-responding: Interaction Response Structure).
 * Each reading function reads back only what these functions and the
 * writer wrote, byte for byte.
 *
 * Each writing function writes into an empty capped buffer (bot/util/buf.h):
 * when the cap would be passed or memory runs out it returns -1 and leaves
 * the buffer empty, so a caller never sends half a request.
 */
#ifndef DISCORD_IXBODY_H
#define DISCORD_IXBODY_H

#include <stdbool.h>
#include <stddef.h>

#include "bot/util/buf.h"

#define EPHEMERAL_FLAG 64 /* message flag 1 << 6 */

#define IXB_STR_(x) #x
#define IXB_STR(x)  IXB_STR_(x)
/* How every ephemeral body starts, as ixb_ephemeral() writes it. */
#define IXB_EPHEMERAL "{\"flags\":" IXB_STR(EPHEMERAL_FLAG) ","
/* An ephemeral body with nothing else (a deferral's data). */
#define IXB_EPHEMERAL_ONLY "{\"flags\":" IXB_STR(EPHEMERAL_FLAG) "}"

struct jw;

/* Opens an ephemeral body with w: the object and its flags, first. */
void ixb_ephemeral(struct jw *w);

/* Writes {"type":type,"data":<body>} into out (empty), body's len bytes as
 * they are ({"type":type} when body is NULL). Returns 0, or -1 (out empty). */
int ixb_wrap(struct buf *out, int type, const char *body, size_t len);

/* Where the data of req (len bytes), a callback ixb_wrap() wrote with type,
 * starts (*at) and how long it is (*dlen); false when req is no such
 * callback (another type, no data, not ours). */
bool ixb_data(const char *req, size_t len, int type, size_t *at, size_t *dlen);

/* Writes body (len bytes) into out (empty) without its ephemeral flag (as
 * it is when it has none). Returns 0, or -1 (out empty). */
int ixb_unflag(struct buf *out, const char *body, size_t len);

#endif
