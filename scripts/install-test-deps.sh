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
if ((${#missing[@]})); then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
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
