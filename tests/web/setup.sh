#!/bin/sh
# Installs what the web tests need, when missing: Debian's Chromium (apt, as
# root) and the npm packages pinned by package-lock.json (npm ci). No browser
# is ever downloaded by npm: playwright-core drives /usr/bin/chromium.
set -eu
here=$(cd "$(dirname "$0")" && pwd)

# chromium drives the tests; the emoji font only makes the screenshots show the cards' emoji
missing=""
[ -x /usr/bin/chromium ] || missing="chromium"
dpkg-query -W -f='${Status}' fonts-noto-color-emoji 2>/dev/null | grep -q "install ok installed" ||
    missing="$missing fonts-noto-color-emoji"
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ]; then
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q || echo "web setup: apt-get update failed; trying the cached lists" >&2
        apt-get install -y -q --no-install-recommends $missing
    elif [ ! -x /usr/bin/chromium ]; then
        echo "web setup: Chromium is missing: run 'sudo apt-get install chromium'" >&2
        exit 1
    fi
fi

stamp="$here/node_modules/.package-lock.json"
if [ ! -f "$stamp" ] || [ ! -d "$here/node_modules/playwright-core" ] ||
    [ ! -d "$here/node_modules/ws" ] || [ ! -d "$here/node_modules/jsqr" ] ||
    [ "$here/package-lock.json" -nt "$stamp" ]; then
    cd "$here"
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund --loglevel=error
fi
echo "web setup: chromium and npm packages ready"
