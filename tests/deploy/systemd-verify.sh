#!/bin/sh
# systemd-verify.sh UNIT BINARY MANDIR: `systemd-analyze verify` must pass on
# UNIT (a copy of deploy/illegald.service whose ExecStart is BINARY) without
# a single warning. MANDIR holds man8/illegald.8 for Documentation=man:.
# Exits 77 (skipped) while BINARY is not built.
set -u
unit=$1 bin=$2 mandir=$3
if ! command -v systemd-analyze >/dev/null 2>&1; then
    echo "FAIL: systemd-analyze not found; install the systemd package (deploy/deps.sh test)" >&2
    exit 1
fi
if [ ! -x "$bin" ]; then
    echo "SKIP: $bin is not built, and ExecStart must name an executable" >&2
    exit 77
fi
grep -qx "ExecStart=$bin --config /etc/illegald/illegald.conf" "$unit" || {
    echo "FAIL: $unit does not start $bin --config /etc/illegald/illegald.conf" >&2
    exit 1
}
# systemd-analyze looks Documentation=man: pages up with man(1), when there is one.
if command -v man >/dev/null 2>&1; then
    out=$(MANPATH=$mandir systemd-analyze verify "$unit" 2>&1)
else
    out=$(systemd-analyze verify --man=no "$unit" 2>&1)
fi
rc=$?
if [ "$rc" -ne 0 ] || [ -n "$out" ]; then
    printf '%s\n' "$out" >&2
    echo "FAIL: systemd-analyze verify $unit (exit $rc)" >&2
    exit 1
fi
echo "ok: systemd-analyze verify $unit"
