#!/bin/sh
# http.sh - requests per second of the main routes, as ratios to a trivial route measured in the same run.
# usage: bench/http.sh [seconds per route, default 5]
# Needs wrk (Debian package "wrk"); builds an optimised binary in build-bench/.
set -eu
cd "$(dirname "$0")/.."
secs=${1:-5}
command -v wrk >/dev/null || { echo "bench/http.sh needs wrk: apt-get install wrk" >&2; exit 1; }
[ -d build-bench ] || meson setup build-bench -Dtests=false -Dbench=true >/dev/null
meson compile -C build-bench >/dev/null

tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
./build-bench/service/rookery serve --port 0 --db "$tmp/bench.db" --games-per-hour 0 >"$tmp/out" 2>"$tmp/log" &
pid=$!
while ! grep -q serving "$tmp/out"; do sleep 0.1; done
base=$(sed -n 's/^Rookery is serving \(.*\)\/$/\1/p' "$tmp/out")

game=$(curl -s -X POST "$base/api/games" -H 'Content-Type: application/json' \
	-d '{"variant":"nchess","seats":[{"name":"Ann"},{"name":"Ben"}]}')
id=$(printf '%s' "$game" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
token=$(printf '%s' "$game" | python3 -c 'import json,sys; print(json.load(sys.stdin)["seats"][0]["token"])')
curl -s -X POST "$base/api/games/$id/moves" -H "Authorization: Bearer $token" \
	-H 'Content-Type: application/json' -d '{"move":"S 7 1 6 1","ply":0}' >/dev/null

cat >"$tmp/create.lua" <<'LUA'
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.body = '{"variant":"nchess","seats":[{"name":"Ann"},{"name":"Ben"}]}'
LUA
cat >"$tmp/replay.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer $token"
wrk.body = '{"move":"S 7 1 6 1","ply":0}'
LUA

rate() {  # route label, then wrk arguments
	wrk -t2 -c8 -d"${secs}s" "$@" 2>/dev/null | awk '/Requests\/sec/ {print $2}'
}
baseline=$(rate "$base/api/variants")
printf '%-44s %10s %8s\n' route 'req/s' ratio
printf '%-44s %10.0f %8.2f\n' 'GET /api/variants (baseline)' "$baseline" 1
row() {
	label=$1; shift
	r=$(rate "$@")
	printf '%-44s %10.0f %8.2f\n' "$label" "$r" "$(awk -v r="$r" -v b="$baseline" 'BEGIN { print r / b }')"
}
row 'GET /api/games/{id} (public)' "$base/api/games/$id"
row 'GET /api/games/{id} (seat, legal moves)' -H "Authorization: Bearer $token" "$base/api/games/$id"
row 'GET /games/{id} (HTML page)' "$base/games/$id"
row 'GET /api/games/{id}/moves' "$base/api/games/$id/moves"
row 'GET /games/{id}/board.svg (image)' "$base/games/$id/board.svg"
row 'GET /api/games/{id}/record (text)' "$base/api/games/$id/record"
row 'GET /api/games (list, newest first)' "$base/api/games"
row 'GET /games (HTML lists)' "$base/games"
row 'GET / (home: five games with their boards)' "$base/"
row 'POST /api/games/{id}/moves (idempotent replay)' -s "$tmp/replay.lua" "$base/api/games/$id/moves"
row 'POST /api/games (write, fsync)' -s "$tmp/create.lua" "$base/api/games"
