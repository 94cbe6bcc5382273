#!/usr/bin/env bash
# Prints the results of bench/run.sh as Markdown: machine, the wrk table, the other facts and
# the targets of the benchmark issue. Arguments: ROWS-FILE FACTS-FILE DURATION THREADS.
set -euo pipefail
rows=$1 facts=$2 dur=$3 threads=$4
cpu=$(awk -F': ' '/model name/ { print $2; exit }' /proc/cpuinfo)
echo "# Benchmark results"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "- machine: $(nproc) cores ($cpu), $(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo) RAM, $(uname -sr)"
echo "- commit: $(git rev-parse --short HEAD 2>/dev/null || echo '?')$(git diff --quiet 2>/dev/null || echo ' (modified)')"
echo "- wrk: 2 threads, ${dur} s per run, on the same cores as the servers; both servers $threads workers"
echo
echo "| endpoint | conn | conns | req/s | p50 | p99 | vs ceiling | non-2xx/3xx | socket errors |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
while IFS='|' read -r label mode conns rps p50 p99 ratio bad err; do
  echo "| $label | $mode | $conns | $rps | $p50 | $p99 | $ratio | $bad | $err |"
done <"$rows"
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
awk -F'|' '
  /10,000 notifications/ { printf "- 10,000 notifications in one request <= 250 ms: %s\n", $2 }
  /idle RSS \(glibc, File\)/ { printf "- idle RSS <= 5 MiB (glibc): %s\n", $2 }
  /idle RSS \(musl/ { printf "- idle RSS <= 2 MiB (musl): %s\n", $2 }
  /peak RSS under load \(File\)/ { printf "- peak RSS under load < 64 MiB: %s\n", $2 }
  /static musl/ { printf "- static binary <= 4 MiB stripped: %s\n", $2 }
' "$facts"
