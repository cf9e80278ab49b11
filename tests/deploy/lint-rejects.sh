#!/bin/sh
# lint-rejects.sh LINT FIXTURE PATTERN: the Dockerfile lint must reject
# FIXTURE (exit 1) with a message containing PATTERN.
set -u
lint=$1 fixture=$2 pattern=$3
out=$(sh "$lint" "$fixture" 2>&1)
rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 1 ]; then
    echo "FAIL: lint exited $rc on $fixture, expected 1" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -qF -- "$pattern"; then
    echo "FAIL: no message containing '$pattern' for $fixture" >&2
    exit 1
fi
