#!/bin/sh
# Installs the Debian packages that building and testing illegald need, if any are missing.
# Usage: deploy/deps.sh [build|activity|test|fuzz]. As root it uses apt-get; otherwise it names
# what to install.
set -eu
mode=${1:-build}
pkgs="cmake make gcc pkg-config libuv1-dev libwebsockets-dev libcurl4-openssl-dev libjson-c-dev
libsqlite3-dev libinih-dev libolm-dev libqrencode-dev zlib1g-dev"
# The Discord Activity's page needs Discord's SDK, which npm installs from its lockfile when
# CMake configures (adapters/web/sdk/setup.sh); without npm the build leaves the Activity out
# and says so. The tests and the container image's build stage need it; a plain build does not.
activity_pkgs="npm"
if [ "$mode" = activity ] || [ "$mode" = test ]; then
    # Only when no npm is on the PATH: another one (NodeSource's nodejs) serves as well.
    command -v npm >/dev/null 2>&1 || pkgs="$pkgs nodejs $activity_pkgs"
fi
if [ "$mode" = test ]; then
    pkgs="$pkgs libcmocka-dev clang-format mandoc systemd" # the format and deploy tests
    pkgs="$pkgs gettext" # msgfmt checks the translations
    pkgs="$pkgs libolm-dev" # the Matrix test players' devices (tests/matrix/hs_player.c)
    pkgs="$pkgs chromium fonts-noto-color-emoji" # the local table's browser tests
    # The container image check (tests/deploy/image.sh) runs only as root.
    if [ "$(id -u)" = 0 ]; then pkgs="$pkgs podman debootstrap curl"; fi
fi
[ "$mode" = fuzz ] && pkgs="$pkgs libcmocka-dev clang libclang-rt-14-dev" # libFuzzer
missing=""
for p in $pkgs; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q || echo "deps: apt-get update failed; trying the cached package lists" >&2
    apt-get install -y -q --no-install-recommends $missing
else
    echo "deps: missing Debian packages:$missing" >&2
    echo "deps: run 'sudo apt-get install$missing' or run make as root" >&2
    exit 1
fi
