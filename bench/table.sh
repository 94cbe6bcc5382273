#!/usr/bin/env bash
# Prints the results of bench/run.sh as Markdown: machine, the wrk table, the other facts and
# the targets of the benchmark issue, then the build comparison. Arguments: ROWS-FILE
# FACTS-FILE DURATION THREADS COMPARE-FILE [STATIC-NAMES]: with names (space-separated), each
# comparison row ends with five fields per static build (see CMP_ROWS in bench/run.sh).
set -euo pipefail
rows=$1 facts=$2 dur=$3 threads=$4 compare=$5
read -r -a statics <<<"${6:-}"
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
echo "# Benchmark results"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores ($cpu), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(uname -sr)"
echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (modified)')"
echo "- wrk: 2 threads, ${dur} s per run, on the same cores as the servers; both servers $threads workers; each row and each ceiling: the best of ${BENCH_BEST_OF:-3} runs"
echo "- data folders under: ${BENCH_DATA_DIR:-?} ($(df -PT "${BENCH_DATA_DIR:-/}" 2>/dev/null | awk 'NR == 2 { print $2 }')); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| endpoint | conn | conns | req/s | p50 | p99 | vs ceiling | non-2xx/3xx | socket errors |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
while IFS= read -r line; do if [ -n "$line" ]; then echo "| ${line//|/ | } |"; fi; done <"$rows"
echo
echo "| measure | value |"
echo "| --- | --- |"
while IFS='|' read -r k v; do echo "| $k | $v |"; done <"$facts"
echo
echo "Targets (benchmark issue; reported, not asserted):"
echo
awk -F'|' '
  function pct(r) { sub("%", "", r); return r + 0 }
  $7 == "-" || $4 == "n/a" { next }
  $1 ~ /GET \/ with cookie \(File\)/ && $2 == "close" { printf "- Connection: close >= 8k req/s: %s req/s %s\n", $4, ($4 >= 8000 ? "(met)" : "(MISSED)") }
  $1 ~ /GET \/ with cookie|sessions\/global|config\/latest \(|userinfo/ && $2 == "ka" { printf "- read %s >= 70%% of ceiling: %s %s\n", $1, $7, (pct($7) >= 70 ? "(met)" : "(MISSED)") }
  $1 ~ /GET \/lmauth/ && $2 == "ka" { printf "- handler endpoint %s >= 80%% of ceiling: %s %s\n", $1, $7, (pct($7) >= 80 ? "(met)" : "(MISSED)") }
  $1 ~ /JSON login/ { printf "- JSON login %s >= 25%% of ceiling: %s %s, p99 %s\n", $1, $7, (pct($7) >= 25 ? "(met)" : "(MISSED)"), $6 }
  $1 ~ /notifications, one/ { printf "- write %s >= 20%% of ceiling, p99 <= 50 ms: %s, p99 %s\n", $1, $7, $6 }
  $1 ~ /OIDC authorize \+ token, per request/ { printf "- HS256 token flow %s >= 20%% of ceiling: %s %s, p99 %s\n", $1, $7, (pct($7) >= 20 ? "(met)" : "(MISSED)"), $6 }
  $1 ~ /OIDC .*(RS256|ES256)/ { printf "- token flow %s: %s of ceiling, p99 %s\n", $1, $7, $6 }
  $1 ~ /at 2 conns/ { printf "- response over 2 KiB (%s) at 2 connections, p50 < 5 ms: %s\n", $1, $5 }
  $1 ~ /all conns served/ { printf "- 64 keep-alive connections all served: %s socket errors, %s non-2xx\n", $9, $8 }
' "$rows"
awk -F'|' '
  /^10,000 notifications/ && !/in memory/ { printf "- 10,000 notifications in one request <= 250 ms: %s\n", $2 }
  function mib(v) { sub(/ MiB.*/, "", v); return v + 0 }
  /idle RSS \(glibc, File\)/ { printf "- idle RSS <= 5 MiB (glibc): %s %s\n", $2, (mib($2) <= 5 ? "(met)" : "(MISSED)") }
  /idle RSS \(.*, File\)/ && !/glibc/ { printf "- idle RSS <= 3 MiB (%s): %s %s\n", $1, $2, (mib($2) <= 3 ? "(met)" : "(MISSED)") }
  /peak RSS under load \(/ { printf "- %s <= 40 MiB: %s %s\n", $1, $2, (mib($2) <= 40 ? "(met)" : "(MISSED)") }
  /^binary \(/ && /without PostgreSQL/ { printf "- static binary without PostgreSQL <= 4.5 MiB stripped (%s): %s %s\n", $1, $2, (mib($2) <= 4.5 ? "(met)" : "(MISSED)") }
  /^binary \(/ && !/glibc/ && !/without PostgreSQL/ { printf "- static binary with PostgreSQL <= 5.5 MiB stripped (%s): %s %s\n", $1, $2, (mib($2) <= 5.5 ? "(met)" : "(MISSED)") }
  /idle keep-alive connections/ { match($2, /p99 [0-9.]+ ms/); p = substr($2, RSTART + 4, RLENGTH - 7) + 0
    match($2, /peak RSS [0-9.]+/); r = substr($2, RSTART + 9, RLENGTH - 9) + 0
    printf "- %s: user p99 < 50 ms and RSS < 64 MiB: %s %s\n", $1, $2, (p < 50 && r < 64 ? "(met)" : "(MISSED)") }
  /slow headers|anonymous 8 MB/ { match($2, /[0-9.]+% answered/); a = substr($2, RSTART, RLENGTH - 10) + 0
    match($2, /p99 [0-9.]+ ms/); p = substr($2, RSTART + 4, RLENGTH - 7) + 0
    match($2, /peak RSS [0-9.]+/); r = substr($2, RSTART + 9, RLENGTH - 9) + 0
    printf "- %s: user >= 95%% answered, p99 < 1 s, RSS < 256 MiB: %s %s\n", $1, $2, (a >= 95 && p < 1000 && r < 256 ? "(met)" : "(MISSED)") }
' "$facts"

[ ${#statics[@]} -gt 0 ] || exit 0
echo
echo "## The static build against the glibc build"
echo
echo "Every File row on both builds, side by side, in ${BENCH_ROUNDS:-7} rounds of ${BENCH_ROUND_DURATION:-3} s in alternating order"
echo "(glibc first, then the static build first, ...), data in ${BENCH_MEMORY_DIR:-?}"
echo "($(df -PT "${BENCH_MEMORY_DIR:-/}" 2>/dev/null | awk 'NR == 2 { print $2 }')). Best req/s of each build; the ratios are the median of the"
echo "rounds' ratios; CPU is the server's user and system time per request served (median)."
echo
head="| endpoint | conn | conns | glibc: req/s | glibc: CPU µs/req |"
rule="| --- | --- | ---: | ---: | ---: |"
for n in "${statics[@]}"; do
  head+=" $n: req/s | $n ÷ glibc, req/s | $n: CPU µs/req | glibc ÷ $n, CPU | non-2xx/3xx, socket errors (glibc; $n) |"
  rule+=" ---: | ---: | ---: | ---: | ---: |"
done
echo "$head"
echo "$rule"
while IFS='|' read -r -a f; do
  [ ${#f[@]} -gt 0 ] || continue
  line="| ${f[0]} | ${f[1]} | ${f[2]} | ${f[3]} | ${f[4]} |"
  for ((i = 0; i < ${#statics[@]}; i++)); do
    b=$((6 + 5 * i))
    line+=" ${f[b]} | ${f[b + 1]} | ${f[b + 2]} | ${f[b + 3]} | ${f[5]}; ${f[b + 4]} |"
  done
  echo "$line"
done <"$compare"
echo
# The worst row against the glibc build, and rows short of 90 % of it, by req/s and by CPU.
for i in "${!statics[@]}"; do
  awk -F'|' -v b=$((7 + 5 * i)) -v name="${statics[$i]}" '
    function judge(what, v) {
      sub("%", "", v); if (v == "" || v == "-") return; v += 0
      if (n[what] == 0 || v < worst[what]) { worst[what] = v; wrow[what] = $1 " " $2 }
      if (v < 90) { short[what] = short[what] sprintf("%s %s (%d%%); ", $1, $2, v) }
      n[what]++
    }
    NF { judge("req/s", $(b + 1)); judge("CPU time per request", $(b + 3)) }
    END {
      split("req/s|CPU time per request", whats, "|")
      for (k = 1; k <= 2; k++) { w = whats[k]; if (n[w])
        printf "- %s within 10%% of glibc on every row, by %s: worst %d%% (%s) %s\n", name, w, worst[w], wrow[w], (short[w] == "" ? "(met)" : "(MISSED: " short[w] ")") }
    }
  ' "$compare"
done
