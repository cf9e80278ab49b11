#!/bin/sh
# catalog_gen over folders (the files in gen/): a game's key compiled under its
# id beside the bot's key of the same name, and a game's faulty translation
# found by check, with its file and line.
# usage: gen_modules.sh CATALOG_GEN GEN_DIR
set -u
gen=$1 dir=$2 out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "$1"; [ -f "$out/log" ] && cat "$out/log"; exit 1; }
"$gen" json "$out" "$dir/bot" game="$dir/game" >"$out/log" 2>&1 || fail "json failed"
grep -qF '"card.guns":"Knarren","game.card.guns":"Waffen von {player}"' "$out/de.json" ||
    fail "de.json lacks the game's key under its id: $(cat "$out/de.json")"
"$gen" check "$dir/bot" game="$dir/game" >"$out/log" 2>&1 || fail "check refused good files"
"$gen" check "$dir/bot" game="$dir/bad" >"$out/log" 2>&1 && fail "check passed a faulty translation"
grep -qF 'bad/de.po:9: game.card.guns: its {placeholders} differ' "$out/log" ||
    fail "check did not name the faulty line"
echo "catalog_gen: a game's keys under its id, its faults found"
