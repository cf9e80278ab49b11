#!/bin/sh
# build-deps.sh SOURCE_DIR: the build packages agree everywhere they are named:
# deploy/deps.sh (build mode), the lint's BUILD_PKGS, and the Dockerfile's
# build stage, which must install every one of them.
set -u
src=$1
# The words of the first NAME="..." assignment in FILE, one per line, sorted.
words() {
    awk -v name="$2" '
        !on && index($0, name "=\"") == 1 { on = 1; sub(/^[^"]*"/, "") }
        on { if (index($0, "\"")) { sub(/".*/, ""); print; exit } print }
    ' "$1" | tr -s ' \t' '\n\n' | sed '/^$/d' | sort
}
deps=$(words "$src/deploy/deps.sh" pkgs)
lint=$(words "$src/deploy/lint-dockerfile.sh" BUILD_PKGS)
if [ -z "$deps" ] || [ "$deps" != "$lint" ]; then
    echo "FAIL: deploy/deps.sh build packages and lint-dockerfile.sh BUILD_PKGS differ:" >&2
    echo "deps.sh: $(echo $deps)" >&2
    echo "lint:    $(echo $lint)" >&2
    exit 1
fi
status=0
for p in $deps; do
    grep -Eq "(^|[[:space:]])$p([[:space:]]|\\\\|\$)" "$src/deploy/Dockerfile" || {
        echo "FAIL: deploy/Dockerfile does not install $p" >&2
        status=1
    }
done
[ "$status" -eq 0 ] && echo "ok: build packages:" $deps
exit $status
