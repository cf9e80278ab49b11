/*
 * util.h - what every module of the utility library shares.
 *
 * The library (bot/util/) holds the few tools every part of the daemon
 * needs: a capped growable buffer (buf.h), one string-keyed map (map.h), one
 * clock (clock.h) and the build's id (build_id.h); the typed JSON getters are
 * core/json.h. Lists are <sys/queue.h>.
 *
 * Out of memory: no function of the daemon aborts on a failed allocation.
 * It returns an error to its caller, which refuses the input that needed the
 * memory, or keeps it to retry later: a user who sent a command gets a reply
 * that it failed where there is one to send, otherwise a line goes to the
 * log, and the daemon goes on with the next input. Nothing half-done is kept:
 * a failed append leaves a buffer as it was, a failed insert a map as it was.
 */
#ifndef BOT_UTIL_UTIL_H
#define BOT_UTIL_UTIL_H

#include "core/attributes.h" /* MUST_USE */

#endif
