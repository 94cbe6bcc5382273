#!/usr/bin/env bash
# Two Limette nodes on one PostgreSQL database (docs/cluster.md): session reads on node 1
# alone, then on both nodes at once (the same number of connections, half on each), with
# each node's CPU time per request. Run by `make bench` after the PostgreSQL rows, or alone:
# `bash bench/two_nodes.sh [BINARY]` (default target/release/limette, built with the postgres
# feature). Prints a small table and appends it to bench/RESULTS.md when BENCH_APPEND=1.
set -euo pipefail
cd "$(dirname "$0")/.."

BIN=${1:-target/release/limette}
DUR=${BENCH_DURATION:-4}
CONNS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-8}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/limette-two-nodes.XXXXXX")
PIDS=()
# shellcheck source=bench/lib.sh
source bench/lib.sh
HZ=$(getconf CLK_TCK)

cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  pg_stop
  rm -rf "$WORK"
}
trap cleanup EXIT

# ticks PID: the process's user + system CPU time, in clock ticks.
ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# load URL CONNS OUT: wrk on one URL (keep-alive), its output in OUT.
load() {
  wrk -t1 -c"$2" -d"${DUR}s" --timeout 5s -s bench/get.lua "$1" >"$3" 2>&1 || true
}
rps() { awk '/^Requests\/sec/ {printf "%.0f", $2}' "$1"; }
count() { awk '/ requests in / { print $1; exit }' "$1"; }
per_req() { awk -v t="$1" -v n="$2" -v hz="$HZ" 'BEGIN { if (n > 0) printf "%.1f", t * 1e6 / hz / n; else printf "-" }'; }

command -v wrk >/dev/null || { echo "two_nodes: wrk is required (make bench-tools)" >&2; exit 1; }
pg_start || { echo "two_nodes: PostgreSQL's server is not installed (.ci/setup.d/postgres.sh)" >&2; exit 1; }

instance node1 PostgreSQL "$BIN"
P1=$PID B1=$BASE
SID_1=$SID
instance node2 PostgreSQL "$BIN"
P2=$PID B2=$BASE
# One session, made on node 1, read on both: the database is what they share.
export BENCH_COOKIE="lemonldap=$SID_1"
URL1="$B1/sessions/global/$SID_1" URL2="$B2/sessions/global/$SID_1"
[ "$(curl -s -o /dev/null -w '%{http_code}' "$URL2")" = 200 ] || { echo "two_nodes: node 2 does not see node 1's session" >&2; exit 1; }

# Node 1 alone, all connections.
t0=$(ticks "$P1")
load "$URL1" "$CONNS" "$WORK/one.out"
t1=$(ticks "$P1")
ONE_RPS=$(rps "$WORK/one.out")
ONE_CPU=$(per_req $((t1 - t0)) "$(count "$WORK/one.out")")

# Both nodes, half the connections each, at the same time.
a0=$(ticks "$P1") b0=$(ticks "$P2")
load "$URL1" $((CONNS / 2)) "$WORK/a.out" &
j1=$!
load "$URL2" $((CONNS / 2)) "$WORK/b.out" &
j2=$!
wait "$j1" "$j2"
a1=$(ticks "$P1") b1=$(ticks "$P2")
A_RPS=$(rps "$WORK/a.out") B_RPS=$(rps "$WORK/b.out")
A_CPU=$(per_req $((a1 - a0)) "$(count "$WORK/a.out")")
B_CPU=$(per_req $((b1 - b0)) "$(count "$WORK/b.out")")
TWO_RPS=$((A_RPS + B_RPS))

TABLE=$(cat <<EOF

## Two nodes on one PostgreSQL database (bench/two_nodes.sh)

- $(nproc) cores shared by wrk, both nodes and PostgreSQL; $DUR s per run, $CONNS connections in all; session read (GET /sessions/global/<id>)

| run | req/s | node 1 CPU us/req | node 2 CPU us/req |
| --- | ---: | ---: | ---: |
| node 1 alone | $ONE_RPS | $ONE_CPU | - |
| both nodes | $TWO_RPS ($A_RPS + $B_RPS) | $A_CPU | $B_CPU |
EOF
)
echo "$TABLE"
if [ "${BENCH_APPEND:-0}" = 1 ]; then echo "$TABLE" >>bench/RESULTS.md; fi
