#!/usr/bin/env bash
# Prints the results of bench/run.sh as Markdown: machine, the wrk table, the other facts and
# the targets of the benchmark issue. Arguments: ROWS-FILE FACTS-FILE DURATION THREADS
# [STATIC-NAMES]: with names (space-separated), each row ends with one field per static build.
set -euo pipefail
rows=$1 facts=$2 dur=$3 threads=$4
read -r -a statics <<<"${5:-}"
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
echo "# Benchmark results"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores ($cpu), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(uname -sr)"
echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (modified)')"
echo "- wrk: 2 threads, ${dur} s per run, on the same cores as the servers; both servers $threads workers"
echo "- data folders under: ${BENCH_DATA_DIR:-?} ($(df -PT "${BENCH_DATA_DIR:-/}" 2>/dev/null | awk 'NR == 2 { print $2 }')); load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
head="| endpoint | conn | conns | req/s | p50 | p99 | vs ceiling | non-2xx/3xx | socket errors |"
rule="| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for n in "${statics[@]}"; do head+=" $n: req/s (vs ceiling; vs glibc) |"; rule+=" ---: |"; done
echo "$head"
echo "$rule"
while IFS= read -r line; do echo "| ${line//|/ | } |"; done <"$rows"
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
  $1 ~ /^ceiling/ && $2 == "close" { close_ceiling = $4 }
  $1 ~ /GET \/ with cookie \(File\)/ && $2 == "close" { printf "- Connection: close >= 8k req/s: %s req/s %s\n", $4, ($4 >= 8000 ? "(met)" : "(MISSED)") }
  $1 ~ /sessions\/global|config\/latest \(|userinfo/ { printf "- read %s >= 45%% of ceiling: %s %s\n", $1, $7, (pct($7) >= 45 ? "(met)" : "(MISSED)") }
  $1 ~ /JSON login|notifications, one/ { printf "- write %s >= 20%% of ceiling, p99 <= 50 ms: %s, p99 %s\n", $1, $7, $6 }
  $1 ~ /OIDC/ { printf "- token flow %s >= 20%% of ceiling, p99 <= 50 ms: %s, p99 %s\n", $1, $7, $6 }
  $1 ~ /at 2 conns/ { printf "- response over 2 KiB (%s) at 2 connections, p50 < 5 ms: %s\n", $1, $5 }
  $1 ~ /all conns served/ { printf "- 64 keep-alive connections all served: %s socket errors, %s non-2xx\n", $9, $8 }
' "$rows"
# Static builds: the worst row against the glibc build, and rows short of 90 % of it.
for i in "${!statics[@]}"; do
  awk -F'|' -v col=$((10 + i)) -v name="${statics[$i]}" '
    $col ~ /of glibc/ {
      v = $col; sub(/.*; /, "", v); sub(/% of glibc.*/, "", v); v += 0
      if (n == 0 || v < worst) { worst = v; wrow = $1 " " $2 }
      if (v < 90) { short = short sprintf("%s %s (%d%%); ", $1, $2, v) }
      n++
    }
    END { if (n) printf "- %s within 10%% of glibc on every row: worst %d%% (%s) %s\n", name, worst, wrow, (short == "" ? "(met)" : "(MISSED: " short ")") }
  ' "$rows"
done
awk -F'|' '
  /10,000 notifications/ { printf "- 10,000 notifications in one request <= 250 ms: %s\n", $2 }
  /idle RSS \(glibc, File\)/ { printf "- idle RSS <= 5 MiB (glibc): %s\n", $2 }
  /idle RSS \(.*, File\)/ && !/glibc/ { printf "- idle RSS <= 3 MiB (%s): %s\n", $1, $2 }
  /peak RSS under load \(File\)/ { printf "- peak RSS under load < 64 MiB: %s\n", $2 }
  /^binary \(/ && !/glibc/ { printf "- static binary <= 5 MiB stripped (%s): %s\n", $1, $2 }
' "$facts"
