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
#      volume, and stops cleanly on SIGTERM;
#   5. check that the image has the Discord Activity: started again with
#      [discord] activity = on (Discord itself on a closed loopback port), it
#      serves the Embedded App SDK compiled into it; nothing of npm's is in
#      the image.
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
# Detaches every mount at or under $1, deepest first. debootstrap mounts proc
# in the root it makes and unmounts it at its end, but a busy one stays (seen
# here): it must go neither into the image's tar nor under rm -rf.
unmount_under() {
    awk -v d="$1" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo | sort -r |
        while read -r m; do umount -l "$m"; done
}
unmount_under "$(realpath -m "$work")"
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
mounted=""
cleanup() {
    [ -n "$mounted" ] && podman image umount "$image" >/dev/null 2>&1
    podman rmi -f "$image" "$base" >/dev/null 2>&1
    unmount_under "$work/rootfs"
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
unmount_under "$work/rootfs"
# A host whose way out passes a TLS-inspecting proxy trusts its CA in
# /usr/local/share/ca-certificates; so must the build stage's npm (Debian's
# ca-certificates takes them in when it is installed there).
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
    mkdir -p "$work/rootfs/usr/local/share/ca-certificates"
    cp /usr/local/share/ca-certificates/*.crt "$work/rootfs/usr/local/share/ca-certificates/"
fi
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
# The SDK reaches the image compiled in; npm and its node_modules stay in the build stage.
[ ! -e "$root/usr/bin/npm" ] && [ ! -e "$root/usr/bin/node" ] || fail "the image has npm or node"
found=$(find "$root" -xdev -name node_modules -print -quit)
[ -z "$found" ] || fail "the image has $found"
echo "ok: no npm, node or node_modules in the image"

# The volume, owned by the daemon's user as a fresh named volume would be.
volume=$work/volume
mkdir -p "$volume"
chown "$ids" "$volume"
chmod 0750 "$volume"
# The health listener's port: a free one, as the build host may use 9108.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null ||
        echo $(($1 + run % 20000))
}
port=$(free_port 20000)
# The Activity's web listener (step 5): another free one.
web=$(free_port 40000)

# Inside a private mount namespace, so every bind mount goes with it.
step "start $cmd from the image root as $user"
unshare --mount --propagation private sh -s "$root" "$volume" "$ids" "$workdir" "$cmd" "$port" \
    "$health" "$work" "$web" <<'EOF'
set -eu
root=$1 volume=$2 ids=$3 workdir=$4 cmd=$5 port=$6 health=$7 work=$8 web=$9
fail() { echo "FAIL: $*" >&2; exit 1; }
# stop PID LOG: SIGTERM, after which the daemon must exit 0.
stop() {
    kill -TERM "$1"
    rc=0
    wait "$1" || rc=$?
    [ "$rc" = 0 ] || { cat "$2" >&2; fail "the daemon exited $rc after SIGTERM"; }
    echo "ok: the daemon stopped on SIGTERM (exit 0)"
}
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
stop "$pid" "$work/daemon.log"

# The Activity: its pages and its SDK served by the image's binary.
echo secret >"$volume/client_secret"
chown "$ids" "$volume/client_secret"
"$@" ILLEGALD_WEB_PORT="$web" ILLEGALD_DISCORD_ACTIVITY=on ILLEGALD_DISCORD_TOKEN=image-test \
    ILLEGALD_DISCORD_APPLICATION_ID=900000000000000002 \
    ILLEGALD_DISCORD_CLIENT_SECRET_FILE=/var/lib/illegald/client_secret \
    ILLEGALD_DISCORD_API_URL=http://127.0.0.1:9/api/v10 ILLEGALD_DISCORD_GATEWAY_URL=ws://127.0.0.1:9 \
    "$chroot" --userspec="$ids" "$root" sh -c "cd '$workdir' && exec $cmd" >"$work/activity.log" 2>&1 &
pid=$!
i=0
until grep -q "Activity's pages at" "$work/activity.log"; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/activity.log" >&2; fail "the daemon with the Activity on exited"; }
    i=$((i + 1))
    [ "$i" -lt 300 ] || { kill "$pid"; cat "$work/activity.log" >&2; fail "no Activity in 30 s"; }
    sleep 0.1
done
type=$(curl -fsS --max-time 4 -o "$work/sdk.mjs" -w '%{content_type}' \
    "http://127.0.0.1:$web/.proxy/sdk/index.mjs") || fail "the image serves no SDK"
case $type in text/javascript*) ;; *) fail "the SDK came as $type" ;; esac
[ -s "$work/sdk.mjs" ] || fail "the SDK is empty"
curl -fsS --max-time 4 "http://127.0.0.1:$web/.proxy/activity.json" | grep -q 900000000000000002 ||
    fail "no /.proxy/activity.json"
echo "ok: with the Activity on, the image serves its SDK ($(wc -c <"$work/sdk.mjs") bytes of index.mjs)"
stop "$pid" "$work/activity.log"
EOF
step "done"
