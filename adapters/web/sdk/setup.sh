#!/bin/sh
# Installs Discord's Embedded App SDK, pinned by package-lock.json, for the
# Activity's page (the build embeds its ES modules: adapters/web/CMakeLists.txt).
# Run by CMake at configure time when the SDK is missing. Without npm, or
# offline, it says so and the build goes on without the SDK: the daemon then
# refuses [discord] activity = on with a clear error. No install script runs.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out="$here/node_modules/@discord/embedded-app-sdk/output/index.mjs"
[ -f "$out" ] && [ "$here/package-lock.json" -ot "$out" ] && exit 0
if ! command -v npm >/dev/null 2>&1; then
    echo "activity sdk: npm is missing; building without the Discord Activity's SDK" >&2
    exit 0
fi
cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error ||
    echo "activity sdk: npm ci failed; building without the Discord Activity's SDK" >&2
exit 0
