#!/bin/sh
# Installs the reference bot of `make bench` into a build directory:
#   setup.sh SOURCE_DIR DEST_DIR
# npm ci installs exactly the committed package-lock.json. Without node or npm
# it leaves no bot.js behind, and the benchmark measures illegald alone.
set -eu
src=$1
dest=$2
mkdir -p "$dest"
rm -f "$dest/bot.js"
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    echo "node or npm not found: the benchmark will measure illegald alone"
    exit 0
fi
cp "$src/package.json" "$src/package-lock.json" "$dest/"
if [ ! -f "$dest/node_modules/discord.js/package.json" ] ||
    ! cmp -s "$src/package-lock.json" "$dest/node_modules/.package-lock.json.bench"; then
    (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
    cp "$src/package-lock.json" "$dest/node_modules/.package-lock.json.bench"
fi
cp "$src/bot.js" "$dest/"
version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$dest/node_modules/discord.js/package.json")
echo "discord.js $version in $dest"
