#!/usr/bin/env bash
# make bench: loads a release Limette and, in the same run, the bare tiny_http ceiling
# (examples/ceiling.rs, same pool shape) with wrk, and prints one table: endpoint, req/s,
# p50, p99, ratio to the ceiling. Also: idle and peak RSS, binary sizes, time to first
# answer, 10,000 notifications in one request. Writes bench/RESULTS.md.
# Every File row is run on each static build too (one column each), right after the glibc
# build's run of the same row, so that the machine's drift over minutes never lands on one
# column: the static musl binary of `make static` by default, or the builds named in
# BENCH_STATIC.
#
# Environment: BENCH_DURATION (seconds per run, 4), BENCH_CONNECTIONS (32), BENCH_THREADS
# (workers of both servers, 8), BENCH_LOG (Limette's logLevel, notice: access lines on),
# BENCH_STATIC ("NAME=BINARY ...", static builds to compare, e.g. one per allocator).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
DUR=${BENCH_DURATION:-4}
CONNS=${BENCH_CONNECTIONS:-32}
THREADS=${BENCH_THREADS:-8}
BIN=$ROOT/target/release/limette
CEIL=$ROOT/target/release/examples/ceiling
MUSL=$ROOT/target/x86_64-unknown-linux-musl/release/limette
WORK=$(mktemp -d "${TMPDIR:-/tmp}/limette-bench.XXXXXX")
export BENCH_DIR=$ROOT/bench
PIDS=()
ROWS=()
declare -A STATIC_ROWS=()
STATIC_NAMES=()
# The running static instances, by name (set while the File rows run).
declare -A S_BASE=() S_SID=()
G_BASE="" G_SID=""
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

for tool in wrk curl; do command -v $tool >/dev/null || { echo "bench: $tool is required" >&2; exit 1; }; done
[ -x "$BIN" ] && [ -x "$CEIL" ] || { echo "bench: build first (make bench does)" >&2; exit 1; }
. bench/lib.sh

# wrk1 MODE CONNS SCRIPT URL: one wrk run; sets RPS, P50, P99, BAD, ERR.
wrk1() {
  local mode=$1 conns=$2 script=$3 url=$4 out=$WORK/wrk.out
  WRK_RUNS=$((${WRK_RUNS:-0} + 1))
  BENCH_RUN="$$-$WRK_RUNS" BENCH_CLOSE=$([ "$mode" = close ] && echo 1 || echo 0) \
    wrk -t2 -c"$conns" -d"${DUR}s" --timeout 5s --latency -s "bench/$script" "$url" >"$out" 2>&1 || true
  RPS=$(awk '/^Requests\/sec/ {printf "%.0f", $2}' "$out")
  P50=$(awk '$1=="50%" {print $2}' "$out"); P99=$(awk '$1=="99%" {print $2}' "$out")
  BAD=$(awk '/Non-2xx/ {print $NF}' "$out"); ERR=$(awk '/Socket errors/ {gsub(",", ""); print $4+$6+$8+$10}' "$out")
}

# run LABEL MODE(ka|close) CONNS SCRIPT URL [CEILING_RPS]: one table row. During the File rows
# (G_BASE set) the same row also runs on each static instance, its address, session and
# bearer token in place of the glibc instance's, in two rounds of opposite order (glibc then
# static, static then glibc); each build keeps its better round, and the errors of both.
run() {
  local label=$1 mode=$2 conns=$3 script=$4 url=$5 ceil=${6:-}
  local rounds=1 r
  [ -n "$G_BASE" ] && [ ${#STATIC_NAMES[@]} -gt 0 ] && rounds=2
  G_BEST="" G_FAULTS=0
  declare -gA S_BEST=() S_FAULTS=()
  for ((r = 1; r <= rounds; r++)); do
    if ((r == 1)); then
      glibc_round "$mode" "$conns" "$script" "$url"; static_rounds "$mode" "$conns" "$script" "$url"
    else
      static_rounds "$mode" "$conns" "$script" "$url"; glibc_round "$mode" "$conns" "$script" "$url"
    fi
  done
  IFS='|' read -r RPS P50 P99 <<<"$G_BEST"
  [ "$ceil" = self ] && ceil=${RPS:-0}
  local bad=${G_FAULTS%/*} err=${G_FAULTS#*/}
  [ "$G_FAULTS" = 0 ] && bad=0 err=0
  ROWS+=("$label|$mode|$conns|${RPS:-0}|${P50:--}|${P99:--}|$(pct "${RPS:-0}" "$ceil")|$bad|$err")
  printf '  %-44s %-5s %3s conns %8s req/s  p50 %-8s p99 %-8s\n' "$label" "$mode" "$conns" "${RPS:-0}" "${P50:--}" "${P99:--}"
  local name srps sf
  for name in "${STATIC_NAMES[@]}"; do
    [ -n "${S_BEST[$name]:-}" ] || continue
    srps=${S_BEST[$name]}; sf=${S_FAULTS[$name]}
    [ "$sf" = 0 ] && sf=0/0
    STATIC_ROWS["$name|$label|$mode"]="$srps|$(pct "$srps" "$ceil")|${sf%/*}|${sf#*/}"
    printf '  %-44s %-5s %3s conns %8s req/s  (%s)\n' "" "$mode" "$conns" "$srps" "$name"
  done
}

# faults OLD: OLD plus this run's non-2xx answers and socket errors, as BAD/ERR.
faults() {
  local old=${1:-0}; [ "$old" = 0 ] && old=0/0
  echo "$(( ${old%/*} + ${BAD:-0} ))/$(( ${old#*/} + ${ERR:-0} ))"
}

glibc_round() {
  wrk1 "$@"
  G_FAULTS=$(faults "$G_FAULTS")
  if [ -z "$G_BEST" ] || [ "${RPS:-0}" -gt "${G_BEST%%|*}" ]; then G_BEST="${RPS:-0}|${P50:--}|${P99:--}"; fi
}

static_rounds() {
  [ -n "$G_BASE" ] || return 0
  local mode=$1 conns=$2 script=$3 url=$4 name surl
  for name in "${STATIC_NAMES[@]}"; do
    surl=${url//$G_BASE/${S_BASE[$name]}}; surl=${surl//$G_SID/${S_SID[$name]}}
    BENCH_COOKIE=${BENCH_COOKIE//$G_SID/${S_SID[$name]}} \
      BENCH_BEARER=${BENCH_BEARER:+$(bearer "${S_BASE[$name]}" "lemonldap=${S_SID[$name]}")} \
      wrk1 "$mode" "$conns" "$script" "$surl"
    S_FAULTS[$name]=$(faults "${S_FAULTS[$name]:-0}")
    if [ -z "${S_BEST[$name]:-}" ] || [ "${RPS:-0}" -gt "${S_BEST[$name]}" ]; then S_BEST[$name]=${RPS:-0}; fi
  done
}

# bearer BASE COOKIE: an access token from a code flow of the demo RP on that instance.
bearer() {
  local base=$1 cookie=$2 code cb=http%3A%2F%2F127.0.0.1%3A9999%2Fcb
  code=$(curl -s -o /dev/null -w '%{redirect_url}' -b "$cookie" \
    "$base/oauth2/authorize?response_type=code&client_id=demo&scope=openid+profile+email&redirect_uri=$cb&state=s" |
    sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
  curl -s -u demo:demosecret -d grant_type=authorization_code -d "code=$code" \
    --data-urlencode redirect_uri=http://127.0.0.1:9999/cb "$base/oauth2/token" |
    sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p'
}

# expect STATUS CURL-ARGS...: true when the endpoint answers STATUS (it exists and is on).
expect() { local want=$1; shift; [ "$(curl -s -o /dev/null -w '%{http_code}' "$@")" = "$want" ]; }
skip() { ROWS+=("$1|-|-|n/a|-|-|-|-|-"); echo "  $1: not available ($2)"; }

# endpoints LABEL-SUFFIX FULL(1|0): every endpoint that exists, on the running instance.
endpoints() {
  local s=$1 full=$2 cb=http%3A%2F%2F127.0.0.1%3A9999%2Fcb
  run "GET / with cookie ($s)" ka "$CONNS" get.lua "$BASE/" "$CEIL_KA"
  [ "$full" = 1 ] && run "GET / with cookie ($s)" close "$CONNS" get.lua "$BASE/" "$CEIL_CLOSE"
  BENCH_COOKIE="" run "POST / JSON login, new session ($s)" ka "$CONNS" login.lua "$BASE/" "$CEIL_KA"
  if expect 200 "$BASE/sessions/global/$SID"; then
    run "GET /sessions/global/<id> ($s)" ka "$CONNS" get.lua "$BASE/sessions/global/$SID" "$CEIL_KA"
  else skip "GET /sessions/global/<id> ($s)" "restSessionServer"; fi
  if [ "$full" = 1 ]; then
    if expect 200 "$BASE/config/latest"; then
      run "GET /config/latest ($s)" ka "$CONNS" get.lua "$BASE/config/latest" "$CEIL_KA"
    else skip "GET /config/latest" "restConfigServer"; fi
  fi
  local auth="$BASE/oauth2/authorize?response_type=code&client_id=demo&scope=openid+profile+email&redirect_uri=$cb&state=s"
  if expect 302 -b "$BENCH_COOKIE" "$auth"; then
    run "OIDC authorize + token, per request ($s)" ka "$CONNS" oidc_flow.lua "$BASE" "$CEIL_KA"
    # The same flow with ID tokens signed by the provider's keys: RSA-2048 (RS256) costs about
    # a millisecond of one core per token, P-256 (ES256) a small fraction of that.
    local alg
    for alg in RS256 ES256; do
      BENCH_CLIENT=demo-$alg run "OIDC authorize + token, $alg ID token ($s)" ka "$CONNS" oidc_flow.lua "$BASE" "$CEIL_KA"
    done
    local tok
    tok=$(bearer "$BASE" "$BENCH_COOKIE")
    if [ -n "$tok" ] && [ "$full" = 1 ]; then
      BENCH_BEARER=$tok run "GET /oauth2/userinfo ($s)" ka "$CONNS" get.lua "$BASE/oauth2/userinfo" "$CEIL_KA"
    fi
  else skip "OIDC code flow ($s)" "no OIDC provider"; fi
  if expect 200 -H 'Content-Type: application/json' -d '{"uid":"dwho","date":"2024-01-01","reference":"probe","text":"t"}' "$BASE/notifications"; then
    run "POST /notifications, one insert ($s)" ka "$CONNS" notification.lua "$BASE" "$CEIL_KA"
  else skip "POST /notifications ($s)" "notificationServer"; fi
}

# bulk BASE: 10,000 notifications in one request; sets BULK.
bulk() {
  awk 'BEGIN { printf "["; for (i = 1; i <= 10000; i++) { if (i > 1) printf ","
    printf "{\"uid\":\"u%d\",\"date\":\"2024-01-01\",\"reference\":\"BULK%d\",\"text\":\"t\"}", i % 50, i }
    printf "]" }' >"$WORK/bulk.json"
  local t
  t=$(curl -s -o "$WORK/bulk.out" -w '%{time_total}' -H 'Content-Type: application/json' --data-binary @"$WORK/bulk.json" "$1/notifications")
  if grep -q '"result":10000' "$WORK/bulk.out"; then
    BULK=$(awk -v t="$t" 'BEGIN { printf "%.0f ms", t * 1000 }')
  else BULK="failed: $(head -c 200 "$WORK/bulk.out")"; fi
}

echo "== ceiling (bare tiny_http, $THREADS workers)"
start ceiling "$CEIL" 127.0.0.1:0 "$THREADS"
CEIL_FIRST=$FIRST_MS
BENCH_COOKIE="" run "ceiling: small JSON" ka "$CONNS" get.lua "http://127.0.0.1:$PORT/" self; CEIL_KA=$RPS
BENCH_COOKIE="" run "ceiling: small JSON" close "$CONNS" get.lua "http://127.0.0.1:$PORT/" self; CEIL_CLOSE=$RPS
stop "$PID"

# file_rows: every File row, on the glibc instance and each static one in turn.
file_rows() {
  endpoints File 1
  BENCH_COOKIE="" run "GET /static/limette.css (all conns served)" ka 64 get.lua "$BASE/static/limette.css" "$CEIL_KA"
  BIG=$(curl -s "$BASE/config/latest?full=1" | wc -c)
  BENCH_COOKIE="" run "GET /config/latest?full=1 ($BIG B) at 2 conns" ka 2 get.lua "$BASE/config/latest?full=1" "$CEIL_KA"
}

# The static builds' instances, started first (each measured idle before any load).
STATIC_FACTS=""
declare -A S_PID=() S_IDLE=()
read -r -a STATIC_LIST <<<"${BENCH_STATIC:-static=$MUSL}"
for entry in "${STATIC_LIST[@]}"; do
  name=${entry%%=*} sbin=${entry#*=}
  if [ ! -x "$sbin" ]; then
    STATIC_FACTS+="binary ($name)|not built (make static)"$'\n'
    continue
  fi
  echo "== Limette, $name build, File storage (its rows run after the glibc build's)"
  instance "s-$name" File "$sbin"
  STATIC_NAMES+=("$name")
  S_BASE[$name]=$BASE S_SID[$name]=$SID S_PID[$name]=$PID S_IDLE[$name]=$IDLE_KIB
  STATIC_FACTS+="binary ($name, stripped)|$(stat -c %s "$sbin" | awk '{ printf "%.2f MiB", $1 / 1048576 }')"$'\n'
done

echo "== Limette, File storage"
instance file File "$BIN"
FILE_FIRST=$FIRST_MS; FILE_IDLE=$IDLE_KIB
G_BASE=$BASE G_SID=$SID
file_rows
G_BASE=""
bulk "$BASE"
FILE_BULK=${BULK:-n/a}
for name in "${STATIC_NAMES[@]}"; do
  BULK=""
  bulk "${S_BASE[$name]}"
  STATIC_FACTS+="idle RSS ($name, File)|$(mib "${S_IDLE[$name]}")"$'\n'
  STATIC_FACTS+="peak RSS under load ($name, File)|$(mib "$(proc "${S_PID[$name]}" VmHWM)")"$'\n'
  STATIC_FACTS+="10,000 notifications in one request ($name, File)|${BULK:-n/a}"$'\n'
  stop "${S_PID[$name]}"
done
# One connection, 21 sequential multi-KiB answers: a Nagle / delayed-ACK stall shows as a
# median near 40 ms (this was a test assertion, median under 20 ms; timings live here).
NAGLE_MS=$(for _ in $(seq 21); do echo "url = \"$BASE/config/latest?full=1\""; echo "output = /dev/null"; done |
  curl -s -K - -w '%{time_total}
' | sort -n | awk 'NR == 11 { printf "%.1f", $1 * 1000 }')
FILE_PEAK=$(proc "$PID" VmHWM); FILE_FDS=$(ls "/proc/$PID/fd" | wc -l)
stop "$PID"

echo "== Limette, SQLite storage"
instance sqlite SQLite "$BIN"
SQL_IDLE=$IDLE_KIB
endpoints SQLite 0
SQL_PEAK=$(proc "$PID" VmHWM)
stop "$PID"

GLIBC_SIZE=$(stat -c %s "$BIN" | awk '{ printf "%.2f MiB", $1 / 1048576 }')
{
  # Each row gains one field per static build: req/s, ratio to the ceiling and to the glibc
  # row, for the File rows it ran; a trailing "!" when it met non-2xx answers or socket errors.
  for row in "${ROWS[@]}"; do
    IFS='|' read -r label mode _ rps _ _ _ _ _ <<<"$row"
    extra=""
    for name in "${STATIC_NAMES[@]}"; do
      v=${STATIC_ROWS["$name|$label|$mode"]:-}
      if [ -z "$v" ]; then extra+="|-"; continue; fi
      IFS='|' read -r srps sratio sbad serr <<<"$v"
      flag=""; if [ "${sbad:-0}" != 0 ] || [ "${serr:-0}" != 0 ]; then flag=" !"; fi
      extra+="|$srps ($sratio; $(pct "$srps" "$rps") of glibc)$flag"
    done
    printf '%s%s\n' "$row" "$extra"
  done >"$WORK/rows"
  cat >"$WORK/facts" <<EOF
binary (glibc, stripped)|$GLIBC_SIZE
idle RSS (glibc, File)|$(mib "$FILE_IDLE")
idle RSS (glibc, SQLite)|$(mib "$SQL_IDLE")
peak RSS under load (File)|$(mib "$FILE_PEAK")
peak RSS under load (SQLite)|$(mib "$SQL_PEAK")
open descriptors after the File run|$FILE_FDS
time to first answer (Limette, File)|$FILE_FIRST ms
time to first answer (ceiling)|$CEIL_FIRST ms
keep-alive median, 21 sequential $BIG B answers (File)|${NAGLE_MS:-n/a} ms
10,000 notifications in one request (File)|$FILE_BULK
EOF
  printf '%s' "$STATIC_FACTS" >>"$WORK/facts"
}
BENCH_DATA_DIR=$(dirname "$WORK") bash bench/table.sh "$WORK/rows" "$WORK/facts" "$DUR" "$THREADS" "${STATIC_NAMES[*]}" | tee bench/RESULTS.md
