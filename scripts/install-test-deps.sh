#!/usr/bin/env bash
# Installs what the tests need beyond Python packages, on a fresh Debian bookworm machine, as root:
# libzmq and msgpack-c headers for the C bot, a JDK with Debian's JeroMQ and msgpack-java for the
# Java bot, the npm packages of the Node.js bot (from package-lock.json), the C and Java bots'
# builds, and Debian's Chromium with its WebDriver for the browser tests (tests/test_browser.py;
# Selenium is given the driver's path and downloads nothing).
# Idempotent and quiet: safe to run before every test run.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
packages=(libzmq3-dev libmsgpack-dev pkg-config make gcc default-jdk-headless libjeromq-java libmsgpack-java
          bubblewrap chromium chromium-driver fonts-dejavu-core)

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
# Another apt or dpkg (an unattended upgrade, a second install) may hold apt's locks: wait for them
# up to FOXGEESE_APT_LOCK_WAIT seconds (300), then say so in one line. apt-get waits for the dpkg
# lock itself (DPkg::Lock::Timeout); the lists and archive locks it gives up at once on, so a try
# that failed on a lock is tried again until the time is up.
lock_wait="${FOXGEESE_APT_LOCK_WAIT:-300}"
[[ "$lock_wait" =~ ^[0-9]{1,6}$ ]] || { echo "install-test-deps: FOXGEESE_APT_LOCK_WAIT=$lock_wait: give whole seconds" >&2; exit 2; }
apt_get() {
    local deadline=$((SECONDS + lock_wait)) output holder
    while true; do
        if output=$(apt-get -o DPkg::Lock::Timeout=$((deadline > SECONDS ? deadline - SECONDS : 0)) "$@" 2>&1); then
            return 0
        fi
        if ! grep -qE "Could not get lock|Unable to acquire the dpkg frontend lock|Unable to lock" <<<"$output"; then
            printf '%s\n' "$output" >&2
            echo "install-test-deps: apt-get $1 failed (its words above); fix that, then run this script again" >&2
            exit 1
        fi
        if ((SECONDS >= deadline)); then
            holder=$(grep -oE "held by process [0-9]+( \([^)]*\))?" <<<"$output" | head -n 1 || true)
            holder=${holder#held by }
            echo "install-test-deps: another apt or dpkg process${holder:+ ($holder)} still holds apt's lock" \
                 "after ${lock_wait} s of waiting; let it finish (or stop it), then run this script again" \
                 "(FOXGEESE_APT_LOCK_WAIT=SECONDS waits longer)" >&2
            exit 1
        fi
        sleep 1
    done
}
if ((${#missing[@]})); then
    export DEBIAN_FRONTEND=noninteractive
    apt_get update -qq
    apt_get install -y -qq --no-install-recommends "${missing[@]}"
fi

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "install-test-deps: node and npm are needed for examples/bots/js (Node.js 20)" >&2
    exit 1
fi
# npm ci only when the installed tree does not match the lock file already.
js="$root/examples/bots/js"
if ! cmp -s "$js/package-lock.json" "$js/node_modules/.package-lock.json.installed" 2>/dev/null; then
    (cd "$js" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    cp "$js/package-lock.json" "$js/node_modules/.package-lock.json.installed"
fi

make -s -C "$root/examples/bots/c"
make -s -C "$root/examples/bots/java"
