#!/bin/sh
# run.sh BUILD_DIR SECONDS: runs every libFuzzer target of a -DILLEGALD_FUZZ=ON
# build for SECONDS each, starting from its seed corpus. New inputs go to
# BUILD_DIR/fuzz-corpus/<name>, crashes to BUILD_DIR/fuzz-crashes/<name>; copy a
# crash into tests/fuzz/corpus/<name>/ once it is fixed.
set -eu
build=$1
seconds=$2
top=$(cd "$(dirname "$0")/../.." && pwd)
status=0
for bin in "$build"/bin/fuzz_*; do
    case "$bin" in *_replay) continue ;; esac
    [ -x "$bin" ] || continue
    name=${bin##*/fuzz_}
    mkdir -p "$build/fuzz-corpus/$name" "$build/fuzz-crashes/$name"
    echo "fuzz: $name for ${seconds}s"
    if ! "$bin" -max_total_time="$seconds" -print_final_stats=1 \
        -artifact_prefix="$build/fuzz-crashes/$name/" \
        "$build/fuzz-corpus/$name" "$top/tests/fuzz/corpus/$name" \
        </dev/null 2>"$build/fuzz-$name.log"; then
        echo "fuzz: $name FAILED, see $build/fuzz-$name.log and $build/fuzz-crashes/$name" >&2
        status=1
    fi
    grep -E '^stat::number_of_executed_units' "$build/fuzz-$name.log" || true
done
exit "$status"
