#!/bin/sh
# install-layout.sh BUILD_DIR: `cmake --install` puts the binary, the systemd
# unit, the man page and the example configuration where an admin expects
# them, the installed unit verifies and starts the installed binary, and that
# binary checks the installed example configuration without printing secrets.
# Exits 77 (skipped) while the daemon is not built.
set -u
build=$1
if [ ! -x "$build/bin/illegald" ]; then
    echo "SKIP: $build/bin/illegald is not built yet" >&2
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/illegald-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
status=0
fail() {
    echo "FAIL: $*" >&2
    status=1
}

prefix=$tmp/usr
if ! cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log" >&2
    echo "FAIL: cmake --install $build --prefix $prefix" >&2
    exit 1
fi

bin=$prefix/bin/illegald
unit=$prefix/lib/systemd/system/illegald.service
man=$prefix/share/man/man8/illegald.8
example=$prefix/share/doc/illegald/illegald.conf.example
[ -x "$bin" ] || fail "no $bin: the illegald target needs install(TARGETS illegald RUNTIME DESTINATION \${CMAKE_INSTALL_BINDIR})"
for f in "$unit" "$man" "$example"; do
    [ -f "$f" ] || fail "no $f: the top-level CMakeLists.txt needs add_subdirectory(deploy)"
done
[ "$status" -eq 0 ] || exit 1

grep -qx "ExecStart=$bin --config /etc/illegald/illegald.conf" "$unit" ||
    fail "$unit does not start $bin"
if command -v systemd-analyze >/dev/null 2>&1; then
    if command -v man >/dev/null 2>&1; then
        out=$(MANPATH=$prefix/share/man systemd-analyze verify "$unit" 2>&1)
    else
        out=$(systemd-analyze verify --man=no "$unit" 2>&1)
    fi
    rc=$?
    { [ "$rc" -eq 0 ] && [ -z "$out" ]; } || fail "systemd-analyze verify $unit: $out"
else
    fail "systemd-analyze not found; install the systemd package (deploy/deps.sh test)"
fi

"$bin" --version >"$tmp/version" 2>&1 || fail "$bin --version exited $?"
"$bin" --help >"$tmp/help" 2>&1 || fail "$bin --help exited $?"

# The example configuration is valid as installed, and secrets stay secret.
if ILLEGALD_DISCORD_TOKEN=install-layout-SECRET-token \
    "$bin" --config "$example" --check-config >"$tmp/check" 2>&1; then
    if grep -q "install-layout-SECRET-token" "$tmp/check"; then
        fail "--check-config printed the Discord token"
    fi
else
    cat "$tmp/check" >&2
    fail "$bin --config $example --check-config exited non-zero"
fi

# A bad setting is refused, naming the file, the line and the key.
printf '[web]\nport = 70000\n' >"$tmp/bad.conf"
if "$bin" --config "$tmp/bad.conf" --check-config >"$tmp/bad" 2>&1; then
    fail "--check-config accepted port = 70000"
elif ! grep -qF "$tmp/bad.conf:2: [web] port" "$tmp/bad"; then
    cat "$tmp/bad" >&2
    fail "--check-config did not name $tmp/bad.conf:2: [web] port"
fi

[ "$status" -eq 0 ] && echo "ok: install layout under $prefix"
exit $status
