#!/bin/sh
# image.sh SOURCE_DIR WORK_DIR: builds the container image of deploy/Dockerfile
# and starts the daemon from it, without pulling an image or running a
# container (neither works on every build host):
#   1. debootstrap a minimal Debian bookworm from the configured mirror and
#      `podman import` it as the base image of both stages;
#   2. `podman build --isolation=chroot --network=host` the Dockerfile;
#   3. `podman image mount` the image's root and, in a private mount
#      namespace with a scratch directory bound on /var/lib/illegald (the
#      volume), start the image's ENTRYPOINT and CMD under chroot as the
#      image's USER, with the image's ENV;
#   4. check that the daemon runs as that unprivileged user, answers
#      /healthz (and the image's HEALTHCHECK passes), keeps its store in the
#      volume, and stops cleanly on SIGTERM.
# Everything it makes lives in WORK_DIR or is removed on exit (the images
# are tagged with this run's id and removed with `podman rmi`).
# Needs root, podman and debootstrap (deploy/deps.sh test installs them as
# root); exits 77 (skipped) when not root. The mirror is the first bookworm
# one in /etc/apt/sources.list*, or ILLEGALD_DEBIAN_MIRROR.
set -eu
src=$1 work=$2

if [ "$(id -u)" != 0 ]; then
    echo "SKIP: the container image check needs root (podman builds as root here, and the"
    echo "SKIP: daemon is started from the image with chroot); run make test as root to check it"
    exit 77
fi
for tool in podman debootstrap curl unshare chroot; do
    if ! command -v $tool >/dev/null 2>&1; then
        echo "FAIL: $tool not found; install it (deploy/deps.sh test does, as root)" >&2
        exit 1
    fi
done

# The Debian mirror apt uses here: deb822 .sources first, then one-line lists.
mirror=${ILLEGALD_DEBIAN_MIRROR:-}
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '
        /^[ \t]*$/ { if (uri != "" && suites ~ /(^| )bookworm( |$)/) { print uri; exit } uri = suites = "" }
        /^URIs:/ { uri = $2 }
        /^Suites:/ { suites = $0; sub(/^Suites:[ \t]*/, "", suites) }
        END { if (uri != "" && suites ~ /(^| )bookworm( |$)/) print uri }' | head -n 1)
fi
if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk '$1 == "deb" && $0 ~ / bookworm / { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }')
fi
mirror=${mirror:-http://deb.debian.org/debian}

run=$$
base=localhost/illegald-test-base:$run
image=localhost/illegald-test:$run
# Images a killed run left behind (its tag is its process id, now gone).
podman images --format '{{.Repository}}:{{.Tag}}' | while read -r old; do
    case $old in
    localhost/illegald-test:* | localhost/illegald-test-base:*)
        kill -0 "${old##*:}" 2>/dev/null || podman rmi -f "$old" >/dev/null 2>&1 || true
        ;;
    esac
done
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
mounted=""
cleanup() {
    [ -n "$mounted" ] && podman image umount "$image" >/dev/null 2>&1
    podman rmi -f "$image" "$base" >/dev/null 2>&1
    rm -rf "$work/rootfs"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() {
    echo "== $(date -u +%H:%M:%S) $*"
}

step "debootstrap --variant=minbase bookworm from $mirror"
debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 || {
    tail -n 20 "$work/debootstrap.log" >&2
    fail "debootstrap (log: $work/debootstrap.log)"
}
tar -C "$work/rootfs" -cf - . | podman import --quiet - "$base" >/dev/null || fail "podman import"
rm -rf "$work/rootfs"

# Docker format, as OCI images have no HEALTHCHECK. No layer cache: nothing
# outlives the run but WORK_DIR.
step "podman build deploy/Dockerfile on $base"
podman build --isolation=chroot --network=host --format docker --layers=false --force-rm \
    --build-arg BUILD_BASE="$base" --build-arg RUNTIME_BASE="$base" \
    -f "$src/deploy/Dockerfile" --ignorefile "$src/deploy/Dockerfile.dockerignore" \
    -t "$image" "$src" >"$work/build.log" 2>&1 || {
    tail -n 30 "$work/build.log" >&2
    fail "podman build (log: $work/build.log)"
}

inspect() {
    podman image inspect --format "$1" "$image"
}
user=$(inspect '{{.Config.User}}')
workdir=$(inspect '{{.Config.WorkingDir}}')
cmd=$(inspect '{{range .Config.Entrypoint}}{{.}} {{end}}{{range .Config.Cmd}}{{.}} {{end}}')
health=$(inspect '{{if .HealthCheck}}{{range .HealthCheck.Test}}{{.}}|{{end}}{{end}}')
inspect '{{range .Config.Env}}{{println .}}{{end}}' | grep -v '^$' >"$work/env" || true
grep -q '^PATH=' "$work/env" || echo PATH=/usr/sbin:/usr/bin:/sbin:/bin >>"$work/env"
# shellcheck disable=SC2016 # a Go template, not a shell expansion
inspect '{{range $v, $_ := .Config.Volumes}}{{println $v}}{{end}}' | grep -qx /var/lib/illegald ||
    fail "the image declares no VOLUME /var/lib/illegald"
[ -n "$user" ] || fail "the image sets no USER"
case $health in
CMD-SHELL\|*) health=${health#CMD-SHELL|} health=${health%|} ;;
*) fail "the image has no HEALTHCHECK of the form CMD <shell command> (got '$health')" ;;
esac

root=$(podman image mount "$image") || fail "podman image mount"
mounted=1
ids=$(awk -F: -v u="$user" '$1 == u || $3 == u { print $3 ":" $4; exit }' "$root/etc/passwd")
[ -n "$ids" ] || fail "USER $user is not in the image's /etc/passwd"
uid=${ids%%:*}
[ "$uid" != 0 ] || fail "USER $user is root"
echo "image: $(inspect '{{.Size}}') bytes, USER $user ($ids), runs: $cmd"

# The volume, owned by the daemon's user as a fresh named volume would be.
volume=$work/volume
mkdir -p "$volume"
chown "$ids" "$volume"
chmod 0750 "$volume"
# The health listener's port: a free one, as the build host may use 9108.
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
    echo $((20000 + run % 20000)))

# Inside a private mount namespace, so every bind mount goes with it.
step "start $cmd from the image root as $user"
unshare --mount --propagation private sh -s "$root" "$volume" "$ids" "$workdir" "$cmd" "$port" \
    "$health" "$work" <<'EOF'
set -eu
root=$1 volume=$2 ids=$3 workdir=$4 cmd=$5 port=$6 health=$7 work=$8
fail() { echo "FAIL: $*" >&2; exit 1; }
mount --bind "$volume" "$root/var/lib/illegald"
mount -t proc proc "$root/proc"
for dev in null zero random urandom; do
    [ -e "$root/dev/$dev" ] || fail "the image has no /dev/$dev"
done
# The image's ENV, then what the test changes: loopback only, known port.
chroot=$(command -v chroot)
set -- env -i
while IFS= read -r kv; do set -- "$@" "$kv"; done <"$work/env"
set -- "$@" ILLEGALD_WEB_BIND=127.0.0.1 ILLEGALD_WEB_PORT=0 ILLEGALD_METRICS_ENABLED=true \
    ILLEGALD_METRICS_BIND=127.0.0.1 ILLEGALD_METRICS_PORT="$port"
"$@" "$chroot" --userspec="$ids" "$root" sh -c "cd '$workdir' && exec $cmd" >"$work/daemon.log" 2>&1 &
pid=$!
i=0
until curl -fsS --max-time 2 -o "$work/healthz" "http://127.0.0.1:$port/healthz" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/daemon.log" >&2; fail "the daemon exited before answering /healthz"; }
    i=$((i + 1))
    [ "$i" -lt 300 ] || { kill "$pid"; cat "$work/daemon.log" >&2; fail "no answer on /healthz in 30 s"; }
    sleep 0.1
done
echo "ok: /healthz answered: $(head -c 200 "$work/healthz")"
running=$(awk '/^Uid:/ { print $2 ":" $3 ":" $4 ":" $5 }' "/proc/$pid/status")
want=${ids%%:*}
[ "$running" = "$want:$want:$want:$want" ] || fail "the daemon runs as uid $running, not $want"
echo "ok: the daemon runs as uid $want (real, effective, saved, fs)"
"$@" "$chroot" --userspec="$ids" "$root" sh -c "$health" ||
    fail "the image's HEALTHCHECK ($health) failed"
echo "ok: the image's HEALTHCHECK passes"
[ -f "$volume/illegald.db" ] || fail "no store in the volume: $(ls -A "$volume")"
owner=$(stat -c %u "$volume/illegald.db")
[ "$owner" = "$want" ] || fail "the store belongs to uid $owner"
echo "ok: the store is in the volume: $(stat -c '%n %U/%u %a %s bytes' "$volume/illegald.db")"
kill -TERM "$pid"
rc=0
wait "$pid" || rc=$?
[ "$rc" = 0 ] || { cat "$work/daemon.log" >&2; fail "the daemon exited $rc after SIGTERM"; }
echo "ok: the daemon stopped on SIGTERM (exit 0)"
EOF
step "done"
