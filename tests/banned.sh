#!/bin/sh
# banned.sh SOURCE_DIR: no tracked C file of the daemon (all but tests/, whose
# tools may take shortcuts) calls a function the project does not use
# (README.md, "Conventions of the code"). Each has a safer way here:
#   strcpy, strcat, strncpy, strncat  -> text_copy() (core/text.h), snprintf, struct buf
#   sprintf, vsprintf                 -> snprintf, vsnprintf (capped)
#   gets                              -> fgets, getline
#   atoi, atol, atoll, atof           -> strtol, strtoll, strtod with their end and errno
#   strtok                            -> strcspn/strspn, or strtok_r (no hidden state)
#   rand, srand, random               -> the seeded rng of core/rng.h (replayable)
#   tmpnam, tempnam, mktemp           -> mkstemp, mkdtemp
#   asctime, ctime, localtime, gmtime -> their _r forms (no shared buffer)
#   alloca                            -> a fixed array or malloc (no unbounded stack)
set -u
cd "$1" || exit 1
banned='strcpy|strcat|strncpy|strncat|sprintf|vsprintf|gets|atoi|atol|atoll|atof|strtok|rand|srand|random|tmpnam|tempnam|mktemp|asctime|ctime|localtime|gmtime|alloca'
# a call: the name, not part of a longer name or a member, then "("
if git rev-parse --git-dir >/dev/null 2>&1; then
    files=$(git ls-files '*.c' '*.h' ':!tests/')
else
    files=$(find . -path ./tests -prune -o -path './build*' -prune -o \( -name '*.c' -o -name '*.h' \) -print)
fi
found=$(echo "$files" | xargs grep -nE "(^|[^_a-zA-Z0-9.>])($banned)[[:space:]]*\(" |
        grep -vE '^[^:]+:[0-9]+:[[:space:]]*(/?\*|//)')
if [ -n "$found" ]; then
    echo "$found" >&2
    echo "banned functions called (see tests/banned.sh for what to use instead)" >&2
    exit 1
fi
echo "ok: no banned function is called"
