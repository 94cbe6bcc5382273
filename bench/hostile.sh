#!/usr/bin/env bash
# make soak, hostile scenario: attackers at 127.0.0.2 and 127.0.0.3 hold HOSTILE_BODIES (50)
# slow-body, HOSTILE_HEADERS (500) slow-header and HOSTILE_IDLE (1000) idle keep-alive
# connections, reopened as soon as they are closed or refused, while a user at 127.0.0.1 logs
# in, runs the code flow and reads its session for HOSTILE_SECONDS (30) (bench/hostile.py).
# Reports the user's p50/p99 latency and the server's threads and RSS before and during.
# Passes when the user met no error and its p99 stays under one second.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${HOSTILE_SECONDS:-30}
THREADS=${BENCH_THREADS:-8}
BIN=${LIMETTE_BIN:-$ROOT/target/release/limette}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/limette-hostile.XXXXXX")
export BENCH_DIR=$ROOT/bench
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
[ -x "$BIN" ] || { echo "hostile: build first (make soak does)" >&2; exit 1; }
. bench/lib.sh
# The attackers meet the shipped limits (conf/limette.ini), the cap per address included.
export BENCH_PER_ADDRESS=64
# Attack connections plus the server's own: raise the soft limit of open files if allowed.
ulimit -n 8192 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

instance hostile File "$BIN"
idle_rss=$(proc "$PID" VmRSS); idle_thr=$(proc "$PID" Threads)
echo "hostile: ${HOSTILE_BODIES:-50} slow bodies, ${HOSTILE_HEADERS:-500} slow headers, ${HOSTILE_IDLE:-1000} idle, for $SECS s; $THREADS workers"
python3 bench/hostile.py "$PORT" "$SECS" "${HOSTILE_BODIES:-50}" "${HOSTILE_HEADERS:-500}" "${HOSTILE_IDLE:-1000}" >"$WORK/driver.out" &
DRIVER=$!
until grep -q ATTACK "$WORK/driver.out" 2>/dev/null || ! kill -0 "$DRIVER" 2>/dev/null; do sleep 0.1; done
max_rss=0; max_thr=0
while kill -0 "$DRIVER" 2>/dev/null && ! grep -q USER-DONE "$WORK/driver.out"; do
  rss=$(proc "$PID" VmRSS); thr=$(proc "$PID" Threads)
  [ "$rss" -gt "$max_rss" ] && max_rss=$rss
  [ "$thr" -gt "$max_thr" ] && max_thr=$thr
  sleep 1
done
wait "$DRIVER"
result=$(tail -1 "$WORK/driver.out")
echo "$result"
echo "hostile: server before: $idle_thr threads, RSS $(mib "$idle_rss"); during: up to $max_thr threads, RSS up to $(mib "$max_rss"); peak RSS $(mib "$(proc "$PID" VmHWM)")"
echo "$result" | python3 bench/hostile.py --verdict
