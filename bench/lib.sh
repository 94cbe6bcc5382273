# Shared by bench/run.sh and bench/soak.sh (sourced): start and stop servers, read /proc,
# write a Limette configuration with every REST server on and start it. Needs WORK, THREADS,
# PIDS (an array) in the caller.

# start NAME CMD...: runs a server, sets PID, PORT and FIRST_MS (spawn to first answer).
start() {
  local name=$1; shift
  local t0; t0=$(date +%s%N)
  "$@" >"$WORK/$name.out" 2>"$WORK/$name.err" &
  PID=$!; PIDS+=("$PID"); PORT=""
  for _ in $(seq 1 4000); do
    PORT=$(sed -n 's/.*listening on http:\/\/[0-9.]*:\([0-9]*\).*/\1/p' "$WORK/$name.out" | head -1)
    [ -n "$PORT" ] && break
    sleep 0.001
  done
  [ -n "$PORT" ] || { echo "bench: $name did not start" >&2; cat "$WORK/$name.err" >&2; exit 1; }
  until curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do sleep 0.001; done
  FIRST_MS=$(( ($(date +%s%N) - t0) / 1000000 ))
}

# stop PID: ends a server started here and forgets it, so that the clean-up at exit never
# signals its number again (process numbers are reused: another program may hold it by then).
stop() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  local p keep=()
  for p in "${PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  PIDS=("${keep[@]}")
}
proc() { awk -v k="$2:" '$1==k {print $2}' "/proc/$1/status"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.2f MiB", k / 1024 }'; }
# pct A B: A as a percentage of B, rounded down to a tenth, so that a target check on the
# printed figure never calls met what falls short (19.76 % printed as 20 % did).
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "") printf "%.1f%%", int(1000 * a / b) / 10; else printf "-" }'; }

# pg_start: a throw-away PostgreSQL cluster of the distribution's server in its own folder
# (initdb, its Unix socket in that folder, no TCP listener; as the postgres user when root,
# which the server requires); sets PG_CHAIN, the `DBI:Pg:` chain of its database. False when
# the server is not installed (.ci/setup.d/postgres.sh installs it).
pg_start() {
  PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
  [ -n "$PG_BIN" ] && [ -x "$PG_BIN/initdb" ] || return 1
  PG_AS=(); [ "$(id -u)" = 0 ] && PG_AS=(runuser -u postgres --)
  PG_DIR=$(mktemp -d "${TMPDIR:-/tmp}/limette-bench-pg.XXXXXX")
  [ "$(id -u)" = 0 ] && chown postgres: "$PG_DIR"
  "${PG_AS[@]}" "$PG_BIN/initdb" -D "$PG_DIR/data" -U limette --auth=trust -E UTF8 --no-sync >/dev/null
  "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -l "$PG_DIR/log" -w \
    -o "-k $PG_DIR -c listen_addresses='' -c max_connections=200" start >/dev/null
  PG_CHAIN="DBI:Pg:dbname=postgres;host=$PG_DIR"
}

# pg_stop: stops and removes the cluster of pg_start.
pg_stop() {
  [ -n "${PG_DIR:-}" ] || return 0
  "${PG_AS[@]}" "$PG_BIN/pg_ctl" -D "$PG_DIR/data" -w -m fast stop >/dev/null 2>&1 || true
  rm -rf "$PG_DIR"; PG_DIR=""
}

# instance NAME STORAGE(File|SQLite|PostgreSQL) BINARY [PARENT]: writes a configuration and
# starts Limette on it, its data in PARENT/NAME (PARENT: $WORK by default). PostgreSQL: the
# sessions and notifications in the cluster of pg_start (tables made by `limette db init`).
instance() {
  local name=$1 storage=$2 bin=$3 dir=${4:-$WORK}/$1 sess notif=""
  mkdir -p "$dir/conf"; cp conf/lmConf-1.json "$dir/conf/"
  if [ "$storage" = PostgreSQL ]; then
    sess="Apache::Session::Browseable::PgJSON
globalStorageOptions = {\"DataSource\": \"$PG_CHAIN\", \"UserName\": \"limette\"}"
    notif="notificationStorage = DBI
notificationStorageOptions = {\"dbiChain\": \"$PG_CHAIN\", \"dbiUser\": \"limette\"}"
  elif [ "$storage" = SQLite ]; then
    sess="SQLite
globalStorageOptions = {\"DataSource\": \"$dir/sessions.db\"}"
    notif="notificationStorage = SQLite
notificationStorageOptions = {\"dbiChain\": \"dbi:SQLite:dbname=$dir/notifications.db\", \"dbiTable\": \"notifications\"}"
  else
    sess="File
globalStorageOptions = {\"Directory\": \"$dir/sessions\"}"
  fi
  cat >"$dir/limette.ini" <<EOF
[all]
logLevel = ${BENCH_LOG:-notice}
[configuration]
type = File
dirName = $dir/conf
[portal]
threads = $THREADS
; wrk loads from one address: the cap per address (64 by default) would refuse its
; connections; bench/hostile.sh keeps the default
maxConnectionsPerAddress = ${BENCH_PER_ADDRESS:-1024}
globalStorage = $sess
persistentStorage = File
persistentStorageOptions = {"Directory": "$dir/psessions"}
restSessionServer = 1
restConfigServer = 1
notificationServer = 1
notificationServerDELETE = 1
$notif
${BENCH_INI:-}
EOF
  [ "$storage" != PostgreSQL ] || "$bin" -c "$dir/limette.ini" --data "$dir" db init >/dev/null
  # Two more relying parties like demo, signing with RS256 and ES256. Their keys are generated
  # and saved at the first start, which is not the one measured (RSA generation takes a while).
  local rp args=()
  for rp in RS256 ES256; do
    local k="oidcRPMetaDataOptions/demo-$rp"
    args+=("$k" oidcRPMetaDataOptionsClientID "demo-$rp" "$k" oidcRPMetaDataOptionsClientSecret demosecret
      "$k" oidcRPMetaDataOptionsRedirectUris http://127.0.0.1:9999/cb
      "$k" oidcRPMetaDataOptionsIDTokenSignAlg "$rp" "$k" oidcRPMetaDataOptionsBypassConsent 1)
  done
  # More, for one instance: BENCH_ADDKEY (key subkey value triples) and BENCH_SET (key value
  # pairs), read without pathname expansion (a RequestUris pattern holds '*').
  local extra=()
  read -r -a extra <<<"${BENCH_ADDKEY:-}"
  args+=("${extra[@]}")
  "$bin" -c "$dir/limette.ini" --data "$dir" config -yes 1 addKey "${args[@]}" 2>/dev/null
  read -r -a extra <<<"${BENCH_SET:-}"
  [ ${#extra[@]} -eq 0 ] || "$bin" -c "$dir/limette.ini" --data "$dir" config -yes 1 set "${extra[@]}" >/dev/null
  # BENCH_PREPARE: a function run here with BINARY and the data folder, before the start (the
  # DBI rows configure their user table and add their users, bench/dbi.sh).
  [ -z "${BENCH_PREPARE:-}" ] || "$BENCH_PREPARE" "$bin" "$dir"
  start "$name-keys" "$bin" -c "$dir/limette.ini" --data "$dir" -l 127.0.0.1:0
  stop "$PID"
  start "$name" "$bin" -c "$dir/limette.ini" --data "$dir" -l 127.0.0.1:0
  BASE=http://127.0.0.1:$PORT
  IDLE_KIB=$(proc "$PID" VmRSS)
  # Of which anonymous (heap, stacks): the memory Limette itself holds. The rest of the RSS is
  # the program's own mapped code and constants (and, for glibc, the shared C library): clean
  # pages of the file that the kernel can drop and read again at any time.
  IDLE_ANON_KIB=$(proc "$PID" RssAnon)
  SID=$(curl -s -H 'Accept: application/json' -d user=dwho -d password=dwho "$BASE/" | sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
  export BENCH_COOKIE="lemonldap=$SID"
}

