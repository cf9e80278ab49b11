#!/bin/sh
# Installs Discord's Embedded App SDK, pinned by package-lock.json, for the
# Activity's page (the build embeds its ES modules: adapters/web/CMakeLists.txt).
# Run by CMake at configure time when the SDK is missing, and by the container
# image's build stage. Without npm, or offline, it says so and the build goes
# on without the SDK: the daemon then refuses [discord] activity = on with a
# clear error. With --require (the image; CMake's ILLEGALD_REQUIRE_ACTIVITY)
# that is a failure instead. No install script runs.
set -u
require=0
[ "${1:-}" = --require ] && require=1
here=$(cd "$(dirname "$0")" && pwd)
# npm writes this at the end of an install: newer than the lockfile, it is done.
stamp="$here/node_modules/.package-lock.json"
out="$here/node_modules/@discord/embedded-app-sdk/output/index.mjs"
[ -f "$out" ] && [ -f "$stamp" ] && [ ! "$here/package-lock.json" -nt "$stamp" ] && exit 0
left_out() {
    if [ "$require" = 1 ]; then
        echo "activity sdk: $1, and this build requires the Discord Activity's SDK." >&2
        exit 1
    fi
    echo "activity sdk: $1; building without the Discord Activity (its page needs Discord's SDK)." >&2
    echo "activity sdk: 'sh deploy/deps.sh activity' installs npm; then configure again (make does)." >&2
    exit 0
}
command -v npm >/dev/null 2>&1 || left_out "npm is missing"
cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error ||
    left_out "npm ci failed (is the npm registry reachable?)"
[ -f "$out" ] || left_out "npm ci installed no $out"
