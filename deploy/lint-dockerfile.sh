#!/bin/sh
# lint-dockerfile.sh - checks deploy/Dockerfile without a Docker engine.
#
# Usage: deploy/lint-dockerfile.sh [DOCKERFILE]   (default: the Dockerfile next to this script)
#
# Rules:
#   - it has a build stage and a final stage, each FROM debian:bookworm or
#     debian:bookworm-slim (or an earlier stage of the file), directly or as
#     the default of an ARG declared before the first FROM;
#   - every `apt-get install` uses --no-install-recommends and names only the
#     packages the build needs (in a build stage) or the daemon needs at run
#     time (in the final stage): see BUILD_PKGS, ACTIVITY_PKGS and RUNTIME_PKGS
#     below;
#     packages are installed with apt-get, not apt or aptitude;
#   - the final stage copies nothing of npm's (node_modules): the Activity's
#     SDK reaches it compiled into the binary;
#   - the final stage sets a USER that is not root, a HEALTHCHECK and a
#     VOLUME for /var/lib/illegald.
# Prints one line per problem, FILE:LINE: message, and exits 1 if there is any.
set -eu

# What `cmake` needs to build illegald (deploy/deps.sh build installs the same).
BUILD_PKGS="cmake gcc make pkg-config libuv1-dev libwebsockets-dev libcurl4-openssl-dev
libjson-c-dev libsqlite3-dev libinih-dev libolm-dev libqrencode-dev zlib1g-dev"
# What installs the Discord Activity's SDK, in a build stage only (deploy/deps.sh activity).
ACTIVITY_PKGS="npm"
# What the binary links at run time; libwebsockets-evlib-uv is the libuv event
# loop plugin libwebsockets loads at run time; curl runs the HEALTHCHECK.
RUNTIME_PKGS="libuv1 libwebsockets17 libwebsockets-evlib-uv libcurl4 libjson-c5 libsqlite3-0
libinih1 libolm3 libqrencode4 ca-certificates curl"

file=${1:-"$(dirname "$0")/Dockerfile"}
if [ ! -r "$file" ]; then
    echo "lint-dockerfile: cannot read $file" >&2
    exit 2
fi

awk -v file="$file" -v build_pkgs="$BUILD_PKGS $ACTIVITY_PKGS" -v runtime_pkgs="$RUNTIME_PKGS" '
function problem(line, msg) {
    printf "%s:%d: %s\n", file, line, msg
    bad = 1
}
function allowed_set(list, set,    n, a, i) {
    n = split(list, a, /[ \t\n]+/)
    for (i = 1; i <= n; i++)
        if (a[i] != "")
            set[a[i]] = 1
}
# 1 if word has only the characters of a package name (and of =version, :arch).
function literal_chars(word) {
    return word ~ /^[A-Za-z0-9][A-Za-z0-9.+:=~-]*$/
}
# One logical instruction: the keyword, its arguments, its first line.
function instruction(text, line,    kw, args) {
    sub(/^[ \t]+/, "", text)
    if (text == "")
        return
    kw = toupper(text)
    sub(/[ \t].*/, "", kw)
    args = text
    sub(/^[^ \t]+[ \t]*/, "", args)
    ninst++
    inst_kw[ninst] = kw
    inst_args[ninst] = args
    inst_line[ninst] = line
    if (kw == "FROM")
        last_from = ninst
}
BEGIN {
    gsub(/[ \t\n]+/, " ", build_pkgs)
    gsub(/[ \t\n]+/, " ", runtime_pkgs)
    allowed_set(build_pkgs, build_ok)
    allowed_set(runtime_pkgs, runtime_ok)
}
# Comment lines vanish, even inside a continued instruction.
/^[ \t]*#/ { next }
{
    sub(/\r$/, "")
    if (cont == "") {
        if ($0 ~ /^[ \t]*$/)
            next
        start = NR
    }
    if ($0 ~ /\\[ \t]*$/) {
        line = $0
        sub(/\\[ \t]*$/, "", line)
        cont = cont line " "
        next
    }
    instruction(cont $0, start)
    cont = ""
}
END {
    if (cont != "")
        instruction(cont, start)

    nstages = 0
    for (i = 1; i <= ninst; i++) {
        kw = inst_kw[i]
        args = inst_args[i]
        if (kw == "FROM") {
            nstages++
            n = split(args, w, /[ \t]+/)
            image = ""
            for (k = 1; k <= n; k++) {
                if (w[k] ~ /^--/)
                    continue
                if (image == "") {
                    image = w[k]
                } else if (toupper(w[k]) == "AS" && k < n) {
                    stage_name[tolower(w[k + 1])] = 1
                    break
                }
            }
            # FROM ${NAME}: the default of a global ARG, which the build uses
            # unless told otherwise; the check applies to that default.
            if (image ~ /^\$\{?[A-Za-z_][A-Za-z0-9_]*\}?$/) {
                var = image
                gsub(/[${}]/, "", var)
                if (var in global_arg)
                    image = global_arg[var]
                else
                    problem(inst_line[i], "stage FROM " image ": no ARG " var " with a default before the first FROM")
            }
            base = image
            sub(/@sha256:[0-9a-f]+$/, "", base)
            if (base !~ /^\$/ && base != "debian:bookworm" && base != "debian:bookworm-slim" && !(tolower(base) in stage_name))
                problem(inst_line[i], "stage FROM " image ": use debian:bookworm or debian:bookworm-slim")
            final = (i == last_from)
            continue
        }
        if (nstages == 0) {
            if (kw != "ARG")
                problem(inst_line[i], kw " before the first FROM")
            else if (args ~ /^[A-Za-z_][A-Za-z0-9_]*=[^ \t]+$/) {
                var = args
                sub(/=.*/, "", var)
                global_arg[var] = substr(args, length(var) + 2)
            }
            continue
        }
        if (kw == "USER" && final) {
            user = args
            sub(/[ \t].*/, "", user)
            final_user = user
            final_user_line = inst_line[i]
        }
        if (kw == "HEALTHCHECK" && final)
            has_healthcheck = (toupper(args) !~ /^NONE/)
        if (kw == "VOLUME" && final && args ~ /\/var\/lib\/illegald/)
            has_volume = 1
        if ((kw == "COPY" || kw == "ADD") && final && args ~ /node_modules/)
            problem(inst_line[i], kw " of node_modules into the final stage: the SDK is compiled into the binary")
        if (kw != "RUN")
            continue

        # Split the shell command into simple commands and check each apt call.
        cmd = args
        gsub(/&&|\|\||[;|&()]/, "\n", cmd)
        m = split(cmd, simple, "\n")
        for (s = 1; s <= m; s++) {
            n = split(simple[s], w, /[ \t]+/)
            k = 1
            while (k <= n && (w[k] == "" || w[k] ~ /^[A-Za-z_][A-Za-z0-9_]*=/))
                k++
            if (k > n)
                continue
            prog = w[k]
            sub(/.*\//, "", prog)
            if (prog == "apt" || prog == "aptitude") {
                for (j = k + 1; j <= n; j++)
                    if (w[j] == "install")
                        problem(inst_line[i], "use apt-get, not " prog ", to install packages")
                continue
            }
            if (prog != "apt-get")
                continue
            verb = 0
            for (j = k + 1; j <= n; j++) {
                if (w[j] == "-o" || w[j] == "-c" || w[j] == "-t") {
                    j++
                    continue
                }
                if (w[j] ~ /^-/)
                    continue
                verb = j
                break
            }
            if (!verb || w[verb] != "install")
                continue
            norec = 0
            npkg = 0
            for (j = verb + 1; j <= n; j++) {
                if (w[j] == "")
                    continue
                if (w[j] == "-o" || w[j] == "-c" || w[j] == "-t") {
                    j++
                    continue
                }
                if (w[j] == "--no-install-recommends")
                    norec = 1
                if (w[j] ~ /^-/)
                    continue
                pkg = w[j]
                if (literal_chars(pkg) == 0) {
                    problem(inst_line[i], "apt-get install " pkg ": name packages literally so they can be checked")
                    continue
                }
                sub(/[=:].*/, "", pkg)
                npkg++
                if (final && !(pkg in runtime_ok))
                    problem(inst_line[i], "apt-get install " pkg ": not a run-time need of illegald (allowed in the final stage: " runtime_pkgs ")")
                else if (!final && !(pkg in build_ok))
                    problem(inst_line[i], "apt-get install " pkg ": not a build need of illegald (allowed in a build stage: " build_pkgs ")")
            }
            if (!norec)
                problem(inst_line[i], "apt-get install without --no-install-recommends")
            if (!npkg)
                problem(inst_line[i], "apt-get install names no package")
        }
    }

    if (nstages == 0) {
        problem(1, "no FROM: not a Dockerfile")
    } else {
        if (nstages < 2)
            problem(inst_line[last_from], "one stage only: build in one stage and ship a slim final stage")
        if (final_user == "")
            problem(inst_line[last_from], "the final stage sets no USER: it would run as root")
        else if (final_user ~ /^(root|0)(:.*)?$/)
            problem(final_user_line, "USER " final_user ": the final stage must not run as root")
        if (!has_healthcheck)
            problem(inst_line[last_from], "the final stage has no HEALTHCHECK")
        if (!has_volume)
            problem(inst_line[last_from], "the final stage has no VOLUME for /var/lib/illegald")
    }
    exit bad
}
' "$file" || {
    echo "lint-dockerfile: $file: problems above" >&2
    exit 1
}
echo "lint-dockerfile: $file: ok"
