#!/bin/sh
# seat_only.sh SOURCE_DIR: the computer players' sources (core/palm-drewes/ai/)
# include only their own header, the seat's view, the rng and the JSON
# getters, and never name the game's state or undo the seat-only build.
set -u
cd "$1/core/palm-drewes/ai" || exit 1
status=0
for f in *.c *.h; do
    bad=$(grep -n '#include "' "$f" | grep -v -e '"ai.h"' -e '"../view.h"' -e '"../../json.h"' \
        -e '"../../rng.h"')
    if [ -n "$bad" ]; then
        echo "$f includes more than a seat may see: $bad" >&2
        status=1
    fi
    if grep -n -E 'pd_game|pd_state|pd_player|PD_SEAT_ONLY|internal\.h|module\.h' "$f" >&2; then
        echo "$f names the game's state" >&2
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "ok: the computer players see a seat's view only"
exit "$status"
