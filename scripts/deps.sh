#!/bin/sh
# deps.sh - install the Debian packages Rookery needs to build, run and test (only the missing ones).
# usage: scripts/deps.sh [build|test]
set -eu

build="gcc pkg-config meson ninja-build python3 libsqlite3-dev libmicrohttpd-dev libjansson-dev libsodium-dev libgmime-3.0-dev libcurl4-openssl-dev"
test="libcmocka-dev chromium curl python3-aiosmtpd postfix swaks"

want=$build
[ "${1:-build}" = test ] && want="$build $test"

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0

echo "Installing:$missing"
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# The tests run private Postfix instances of their own; the system one needs no set-up.
echo "postfix postfix/main_mailer_type select No configuration" | $sudo debconf-set-selections
$sudo apt-get update -qq
# shellcheck disable=SC2086
$sudo apt-get install -y -qq --no-install-recommends $missing
