#!/bin/sh
# deps.sh - install the Debian packages Rookery needs to build, run and test (only the missing ones).
# usage: scripts/deps.sh [build|test]
# "test" also installs, from npm as pinned by the package-lock.json of each folder and run by Debian's Node.js
# (any node already on the machine will do): the HTML validator of tests/browser/html_valid.py (html-validate),
# the accessibility checker of tests/browser/accessibility.py (axe-core) and the OpenAPI 3.1 schema that
# tests/api/openapi_contract.py checks docs/openapi.yaml by.
# PostgreSQL's server is for the tests, which start private ones (tests/harness/postgres.py); the
# system's own cluster, if the package starts one, is not used.
set -eu

build="gcc pkg-config meson ninja-build python3 python3-yaml libsqlite3-dev libmicrohttpd-dev libjansson-dev libsodium-dev libgmime-3.0-dev libcurl4-openssl-dev libpq-dev"
test="libcmocka-dev chromium curl python3-aiosmtpd python3-jsonschema postfix swaks faketime postgresql python3-psycopg2"

want=$build
if [ "${1:-build}" = test ]; then
	want="$build $test"
	if ! command -v node >/dev/null 2>&1; then
		want="$want nodejs npm"
	elif ! command -v npm >/dev/null 2>&1; then
		want="$want npm"
	fi
fi

missing=""
for p in $want; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -n "$missing" ]; then
	echo "Installing:$missing"
	sudo=""
	[ "$(id -u)" -ne 0 ] && sudo="sudo"
	export DEBIAN_FRONTEND=noninteractive
	# The tests run private Postfix instances of their own; the system one needs no set-up.
	echo "postfix postfix/main_mailer_type select No configuration" | $sudo debconf-set-selections
	$sudo apt-get update -qq
	# shellcheck disable=SC2086
	$sudo apt-get install -y -qq --no-install-recommends $missing
fi

[ "${1:-build}" = test ] || exit 0
# The npm packages of the tests, each folder again whenever its lock file is newer than what npm installed.
for dir in tests/browser/html_validator tests/browser/axe tests/api/openapi_schema; do
	pkg="$(dirname "$0")/../$dir"
	if [ ! -d "$pkg/node_modules" ] || [ -n "$(find "$pkg/package-lock.json" -newer "$pkg/node_modules")" ]; then
		echo "Installing the npm packages of $dir (npm ci)"
		(cd "$pkg" && npm ci --no-audit --no-fund)
		touch "$pkg/node_modules"
	fi
done
