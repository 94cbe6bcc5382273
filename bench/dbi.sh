# Sourced by bench/run.sh: logins on the DBI user store (authentication = DBI, docs/users.md),
# one user a hash family, on SQLite and on PostgreSQL, each reported against the cost of its
# hash alone measured in the same run (examples/hash_cost.rs: the library's `Hashing::verify`
# on one thread, the check a login runs): the hash is the floor of a login. Needs run.sh's
# ROOT, WORK, BIN, DUR, BEST_OF, CONNS, THREADS and functions (wrk1, instance, stop, skip).
#
# Environment: BENCH_HASH_SECONDS (seconds of checks a scheme, 3).

# The schemes, as `dbiDynamicHashNewPasswordScheme` names them (`clear`: clear text). The
# lists of valid schemes are examples/hash_cost.rs's.
DBI_SCHEMES=(clear sha256 ssha512 unixcrypt5 unixcrypt6 argon2id)
DBI_VALID="sha256 sha512"
DBI_SALTED="ssha256 ssha512 unixcrypt5 unixcrypt6 argon2id"
DBI_PASSWORD=bench-Passw0rd
HASH_COST=$ROOT/target/release/examples/hash_cost
# One row a store and scheme: store|scheme|logins/s|p50|p99|CPU µs/login|non-2xx|errors.
DBI_ROWS=()
declare -A HASH_US=() HASH_PER_S=()

# dbi_label SCHEME: the scheme as the tables name it.
dbi_label() {
  case $1 in
    clear) echo "clear text" ;;
    unixcrypt5) echo "\$5\$ (5,000 rounds)" ;;
    unixcrypt6) echo "\$6\$ (5,000 rounds)" ;;
    argon2id) echo "argon2id (19 MiB, 2 passes)" ;;
    *) echo "{$1}" ;;
  esac
}

# hash_alone: each scheme's check alone, on one thread (HASH_US, HASH_PER_S).
hash_alone() {
  echo "== the hash alone, one thread (examples/hash_cost.rs)"
  if [ ! -x "$HASH_COST" ]; then
    echo "  not built (make bench builds it)"
    return 0
  fi
  local s us per wall
  while IFS='|' read -r s us per wall; do
    HASH_US[$s]=$us HASH_PER_S[$s]=$per
    printf '  %-32s %12s us of CPU a check (%s us of wall time) %12s checks/s\n' "$(dbi_label "$s")" "$us" "$wall" "$per"
  done < <("$HASH_COST" "${BENCH_HASH_SECONDS:-3}" "${DBI_SCHEMES[@]}")
}

# dbi_prepare BINARY DIR: (BENCH_PREPARE of bench/lib.sh's instance) the DBI keys on the
# table `users` of DBI_CHAIN (@DIR@: the data folder), the table made by `db init`, and one
# user a scheme (`bench-SCHEME`), added by `users add` with that scheme for new passwords.
dbi_prepare() {
  local cfg=("$1" -c "$2/limette.ini" --data "$2") s
  "${cfg[@]}" config -yes 1 set authentication DBI userDB Same passwordDB DBI \
    dbiAuthChain "${DBI_CHAIN//@DIR@/$2}" ${DBI_USER:+dbiAuthUser "$DBI_USER"} \
    dbiAuthTable users dbiAuthLoginCol login dbiAuthPasswordCol password \
    dbiDynamicHashEnabled 1 dbiDynamicHashValidSchemes "$DBI_VALID" \
    dbiDynamicHashValidSaltedSchemes "$DBI_SALTED" dbiDynamicHashNewPasswordScheme ssha512 \
    dbiExportedVars '{"uid":"login","cn":"cn"}' >/dev/null
  "${cfg[@]}" db init >/dev/null
  for s in "${DBI_SCHEMES[@]}"; do
    "${cfg[@]}" config -yes 1 set dbiDynamicHashNewPasswordScheme "${s#clear}" >/dev/null
    echo "$DBI_PASSWORD" | "${cfg[@]}" users add "bench-$s" "cn=Bench $s" >/dev/null
  done
  "${cfg[@]}" config -yes 1 set dbiDynamicHashNewPasswordScheme ssha512 >/dev/null
}

# dbi_rows STORE(SQLite|PostgreSQL): an instance on that storage (its sessions there too), its
# users in a table of the same database, then one login row a scheme.
dbi_rows() {
  local store=$1
  echo "== logins on the DBI user store, $store"
  if [ "$store" = PostgreSQL ]; then
    DBI_CHAIN=$PG_CHAIN DBI_USER=limette BENCH_PREPARE=dbi_prepare instance dbi-pg PostgreSQL "$BIN"
  else
    DBI_CHAIN="dbi:SQLite:dbname=@DIR@/users.db" DBI_USER="" BENCH_PREPARE=dbi_prepare \
      instance dbi-sqlite SQLite "$BIN"
  fi
  local s
  for s in "${DBI_SCHEMES[@]}"; do dbi_row "$store" "$s"; done
  stop "$PID"
}

# dbi_row STORE SCHEME: the login of bench-SCHEME, checked once, then BEST_OF runs (the best
# req/s; the server's CPU time per login, median).
dbi_row() {
  local store=$1 s=$2 r best="" cl="" bad=0 err=0 said
  said=$(curl -s -H 'Accept: application/json' -d "user=bench-$s" -d "password=$DBI_PASSWORD" "$BASE/")
  if [[ "$said" != *'"result":1'* ]]; then
    echo "  $(dbi_label "$s"): the login fails: $said"
    DBI_ROWS+=("$store|$s|failed|-|-|-|-|-")
    return 0
  fi
  for ((r = 1; r <= BEST_OF; r++)); do
    BENCH_COOKIE="" BENCH_USER=bench-$s BENCH_PASSWORD=$DBI_PASSWORD \
      wrk1 "$PID" ka "$CONNS" login_as.lua "$BASE/"
    cl+="${CPU_US:-0} " bad=$((bad + ${BAD:-0})) err=$((err + ${ERR:-0}))
    if [ -z "$best" ] || [ "${RPS:-0}" -gt "${best%%|*}" ]; then best="${RPS:-0}|${P50:--}|${P99:--}"; fi
  done
  local cpu; cpu=$(median $cl)
  printf '  %-32s %8s logins/s  p50 %-8s p99 %-8s cpu %s us/login\n' "$(dbi_label "$s")" \
    "${best%%|*}" "$(cut -d'|' -f2 <<<"$best")" "${best##*|}" "${cpu:--}"
  DBI_ROWS+=("$store|$s|$best|${cpu:--}|$bad|$err")
}

# dbi_table: the rows as Markdown, each beside its hash alone.
dbi_table() {
  echo
  echo "## Logins on the DBI user store, against the hash alone"
  echo
  echo "\`POST /\` JSON logins of one user of the DBI user table a row (a new session each, the"
  echo "sessions in the same database as the users), $CONNS connections, $THREADS workers, best of $BEST_OF runs of"
  echo "$DUR s; the server's CPU time a login (user and system, all threads, median of the runs). The hash"
  echo "alone: \`examples/hash_cost.rs\`, the same scheme's check (\`Hashing::verify\`, what a login"
  echo "runs) on one thread for ${BENCH_HASH_SECONDS:-3} s, in this run: its CPU time a check, and the checks a"
  echo "second that makes on one core. The floor of a login is its hash: the last column is the hash's"
  echo "share of a login's CPU time."
  echo
  echo "| store | scheme | logins/s | p50 | p99 | server CPU µs/login | hash alone: CPU µs/check | hash alone: checks/s, one core | logins/s ÷ checks/s | hash's share of a login's CPU | non-2xx/3xx | socket errors |"
  echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
  local store s rps p50 p99 cpu bad err us per
  for row in "${DBI_ROWS[@]}"; do
    IFS='|' read -r store s rps p50 p99 cpu bad err <<<"$row"
    us=${HASH_US[$s]:--} per=${HASH_PER_S[$s]:--}
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$store" \
      "$(dbi_label "$s")" "$rps" "$p50" "$p99" "$cpu" "$us" "$per" \
      "$(awk -v a="$rps" -v b="$per" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3g%%", 100 * a / b; else printf "-" }')" \
      "$(awk -v a="$us" -v b="$cpu" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.3g%%", 100 * a / b; else printf "-" }')" \
      "$bad" "$err"
  done
}
