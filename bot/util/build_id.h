/*
 * build_id.h - the program's GNU build id: what tells this build from another
 * (a game's image is read back only by the build that wrote it; the Discord
 * adapter registers its slash commands again after an upgrade).
 */
#ifndef BOT_UTIL_BUILD_ID_H
#define BOT_UTIL_BUILD_ID_H

#include <stddef.h>
#include <stdint.h>

/* The longest build id kept, in bytes (GNU's are 20). */
#define BUILD_ID_MAX 32

/* The main program's build id, read from its notes once (thread-safe); *len
 * bytes of it, 0 when the program has none (a linker told not to write it).
 * The bytes are static. */
const uint8_t *build_id(size_t *len);

#endif
