#!/usr/bin/env bash
# make soak: 64 keep-alive connections of mixed traffic (bench/mixed.lua) for SOAK_SECONDS
# (60) against a release Limette on SOAK_STORAGE (File or SQLite; File). Passes when no answer
# was unexpected (no non-2xx, no socket error), resident memory stays flat after warm-up and
# descriptors do not grow. Samples of RSS and descriptors are printed every 5 s.
# The mix removes what it creates (logouts, notification deletes), so RSS that grows is a leak.
# SOAK_READONLY=1 keeps the mix to reads (no login, no notification insert).
# LIMETTE_BIN runs another build (the static one, say) instead of target/release/limette.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECS=${SOAK_SECONDS:-60}
STORAGE=${SOAK_STORAGE:-File}
THREADS=${BENCH_THREADS:-8}
BIN=${LIMETTE_BIN:-$ROOT/target/release/limette}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/limette-soak.XXXXXX")
export BENCH_DIR=$ROOT/bench
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "${SOAK_KEEP:-}" ] && { echo "soak: kept $WORK"; return; }
  rm -rf "$WORK"
}
trap cleanup EXIT
[ -x "$BIN" ] || { echo "soak: build first (make soak does)" >&2; exit 1; }
. bench/lib.sh

instance soak "$STORAGE" "$BIN"
export BENCH_SID=$SID
IDLE_FDS=$(ls "/proc/$PID/fd" | wc -l)
cb=http%3A%2F%2F127.0.0.1%3A9999%2Fcb
code=$(curl -s -o /dev/null -w '%{redirect_url}' -b "lemonldap=$SID" \
  "$BASE/oauth2/authorize?response_type=code&client_id=demo&scope=openid+profile&redirect_uri=$cb" | sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
BENCH_BEARER=$(curl -s -u demo:demosecret -d grant_type=authorization_code -d "code=$code" \
  --data-urlencode redirect_uri=http://127.0.0.1:9999/cb "$BASE/oauth2/token" | sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')
export BENCH_BEARER
echo "soak: $SECS s, 64 connections, $STORAGE storage, $THREADS workers (idle RSS $(mib "$IDLE_KIB"))"
wrk -t2 -c64 -d"${SECS}s" --timeout 5s --latency -s bench/mixed.lua "$BASE" >"$WORK/wrk.out" 2>&1 &
WRK=$!
samples=()
t=0
while kill -0 "$WRK" 2>/dev/null; do
  sleep 5; t=$((t + 5))
  kill -0 "$WRK" 2>/dev/null || break
  rss=$(proc "$PID" VmRSS); fds=$(ls "/proc/$PID/fd" | wc -l); thr=$(proc "$PID" Threads)
  samples+=("$t $rss $fds")
  printf '  %3ss  RSS %-10s fds %-4s threads %s\n' "$t" "$(mib "$rss")" "$fds" "$thr"
done
wait "$WRK" || true
cat "$WORK/wrk.out"
bad=$(awk '/Non-2xx/ {print $NF}' "$WORK/wrk.out"); err=$(awk '/Socket errors/ {gsub(",", ""); print $4+$6+$8+$10}' "$WORK/wrk.out")
# Warm-up: the sample at 15 s (or the first); the end: the last sample.
warm=$(printf '%s\n' "${samples[@]}" | awk '$1 >= 15 { print; exit }')
[ -n "$warm" ] || warm=${samples[0]}
last=${samples[${#samples[@]}-1]}
read -r _ wrss wfds <<<"$warm"; read -r _ lrss lfds <<<"$last"
fail=0
say() { echo "soak: $*"; }
[ "${bad:-0}" = 0 ] && say "unexpected statuses: 0" || { say "unexpected statuses: $bad (FAIL)"; fail=1; }
[ "${err:-0}" = 0 ] && say "socket errors: 0" || { say "socket errors: $err (FAIL)"; fail=1; }
if awk -v a="$wrss" -v b="$lrss" 'BEGIN { exit !(b <= a * 1.25 + 4096) }'; then
  say "RSS flat after warm-up: $(mib "$wrss") -> $(mib "$lrss")"
else say "RSS grew after warm-up: $(mib "$wrss") -> $(mib "$lrss") (FAIL)"; fail=1; fi
# Under load the count moves with connection rotation; once the idle timeout has closed every
# connection it must be back to what it was at start.
sleep 7
quiet=$(ls "/proc/$PID/fd" | wc -l)
if [ "$quiet" -le $((IDLE_FDS + 4)) ]; then say "descriptors: $IDLE_FDS at start, $wfds -> $lfds under load, $quiet once quiet"
else say "descriptors grew: $IDLE_FDS at start, $quiet once quiet (FAIL)"; fail=1; fi
say "peak RSS $(mib "$(proc "$PID" VmHWM)"); stored during the run: $(ls "$WORK/soak/sessions" | wc -l) session files, $(ls "$WORK/soak/notifications" 2>/dev/null | wc -l) notification files (RSS that follows them is data, not a leak)"
[ "$fail" = 0 ] && say "PASS" || say "FAIL"
exit "$fail"
