#!/bin/sh
# format.sh SOURCE_DIR: every tracked C file follows the repository's .clang-format.
set -u
cd "$1" || exit 1
status=0
for f in $(git ls-files '*.c' '*.h'); do
    if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
        echo "not formatted: $f (run: clang-format -i $f)" >&2
        status=1
    fi
done
[ "$status" -eq 0 ] && echo "ok: every C file follows .clang-format"
exit "$status"
