#!/bin/sh
# busy-port.sh ILLEGALD: a second daemon whose local table port is taken
# says so and exits 1 (it once crashed in the loop instead).
set -u
bin=$1
dir=$(mktemp -d)
port=$((20000 + $$ % 30000))
while ss -Hltn "sport = :$port" 2>/dev/null | grep -q .; do port=$((port + 1)); done
trap 'kill "$first" 2>/dev/null; wait "$first" 2>/dev/null; rm -rf "$dir"' EXIT
ILLEGALD_WEB_PORT=$port "$bin" --store "$dir/a.db" >"$dir/a.log" 2>&1 &
first=$!
for _ in $(seq 1 50); do
    ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
    sleep 0.1
done
ILLEGALD_WEB_PORT=$port "$bin" --store "$dir/b.db" >"$dir/b.log" 2>&1
rc=$?
cat "$dir/b.log"
if [ "$rc" -ne 1 ]; then
    echo "FAIL: the second daemon exited $rc, expected 1" >&2
    exit 1
fi
if ! grep -q "port $port on 127.0.0.1 is in use" "$dir/b.log"; then
    echo "FAIL: no clear error about port $port" >&2
    exit 1
fi
echo "ok: a busy port is a clear error and exit 1"
