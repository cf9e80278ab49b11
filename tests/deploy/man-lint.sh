#!/bin/sh
# man-lint.sh PAGE: the mdoc man page must format without a warning.
# mandoc -T lint when mandoc is installed (deploy/deps.sh test installs it);
# otherwise groff's mdoc package with all warnings on.
set -u
page=$1
if command -v mandoc >/dev/null 2>&1; then
    tool="mandoc -T lint -W warning"
    out=$(mandoc -T lint -W warning "$page" 2>&1)
elif command -v groff >/dev/null 2>&1; then
    tool="groff -mdoc -ww -z"
    out=$(groff -mdoc -Tutf8 -ww -z "$page" 2>&1)
else
    echo "FAIL: neither mandoc nor groff is installed (deploy/deps.sh test installs mandoc)" >&2
    exit 1
fi
rc=$?
if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
    printf '%s\n' "$out" >&2
    echo "FAIL: $tool $page (exit $rc)" >&2
    exit 1
fi
echo "ok: $tool $page"
