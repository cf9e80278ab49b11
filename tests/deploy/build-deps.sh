#!/bin/sh
# build-deps.sh SOURCE_DIR: the build packages agree everywhere they are named:
# deploy/deps.sh (build mode), the lint's BUILD_PKGS, and the Dockerfile's
# build stage, which must install every one of them; so do the packages that
# install the Discord Activity's SDK (deps.sh activity_pkgs, the lint's
# ACTIVITY_PKGS), which the build stage installs too: the image has the Activity.
set -u
src=$1
# The words of the first NAME="..." assignment in FILE, one per line, sorted.
words() {
    awk -v name="$2" '
        !on && index($0, name "=\"") == 1 { on = 1; sub(/^[^"]*"/, "") }
        on { if (index($0, "\"")) { sub(/".*/, ""); print; exit } print }
    ' "$1" | tr -s ' \t' '\n\n' | sed '/^$/d' | sort
}
# agree WHAT DEPS_NAME LINT_NAME: the two lists are the same and not empty.
agree() {
    a=$(words "$src/deploy/deps.sh" "$2")
    b=$(words "$src/deploy/lint-dockerfile.sh" "$3")
    if [ -z "$a" ] || [ "$a" != "$b" ]; then
        echo "FAIL: deploy/deps.sh $1 packages ($2) and lint-dockerfile.sh $3 differ:" >&2
        echo "deps.sh: $(echo $a)" >&2
        echo "lint:    $(echo $b)" >&2
        exit 1
    fi
    echo $a
}
deps=$(agree build pkgs BUILD_PKGS) || exit 1
activity=$(agree activity activity_pkgs ACTIVITY_PKGS) || exit 1
status=0
for p in $deps $activity; do
    grep -Eq "(^|[[:space:]])$p([[:space:]]|\\\\|\$)" "$src/deploy/Dockerfile" || {
        echo "FAIL: deploy/Dockerfile does not install $p" >&2
        status=1
    }
done
[ "$status" -eq 0 ] && echo "ok: build packages:" $deps "; the Activity's:" $activity
exit $status
