#!/usr/bin/env bash
# make bench-handler: the handler endpoint side by side with LemonLDAP::NG 2.16's own handler,
# both behind nginx on this machine, protecting the same static answer with the same rules,
# headers and session (docs/protect-an-application.md):
#   - nginx proxying to the application without asking anyone: the ceiling of the rows below;
#   - nginx with conf/nginx-protect.conf asking Limette's /lmauth over HTTP;
#   - nginx with the same file, its /lmauth location asking LemonLDAP::NG's handler
#     (Lemonldap::NG::Handler::Server::Nginx under llng-fastcgi-server, two processes, as its
#     Debian package runs it) over FastCGI, as LemonLDAP::NG's own nginx example does;
#   - Limette's /lmauth asked directly (wrk standing for nginx).
# Limette writes the session, LemonLDAP::NG reads it from the same File store. Every row is
# checked first (200 with the user's header, else the script stops). Prints a Markdown table.
# Environment: LIMETTE_BIN (target/release/limette), BENCH_DURATION (4 s a row),
# BENCH_CONNECTIONS (32), BENCH_THREADS (wrk threads, 2).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${LIMETTE_BIN:-$ROOT/target/release/limette}
DUR=${BENCH_DURATION:-4} CONNS=${BENCH_CONNECTIONS:-32} WT=${BENCH_THREADS:-2}
RUN_AS=www-data
for tool in nginx llng-fastcgi-server wrk curl python3; do
  command -v "$tool" >/dev/null || { echo "bench-handler: $tool missing (.ci/setup.d/handler.sh)" >&2; exit 1; }
done
[ -x "$BIN" ] || { echo "bench-handler: no $BIN (make build)" >&2; exit 1; }
W=$(mktemp -d "${TMPDIR:-/tmp}/limette-bench-handler.XXXXXX")
chmod 755 "$W"
PIDS=()
cleanup() {
  local p
  for p in "${PIDS[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done
  rm -rf "$W"
}
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
spawn() { local name=$1; shift; setsid "$@" >"$W/$name.out" 2>&1 & PIDS+=("$!"); }
wait_port() {
  for _ in $(seq 600); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.1
  done
  echo "bench-handler: nothing listens on $1 ($2):" >&2; cat "$W/$2.out" >&2; exit 1
}
LP=$(port) AP=$(port) NL=$(port) NO=$(port) NP=$(port)
HOST=app.example.com

# The site, for both: one virtual host, two exported headers, the users' port 80.
python3 - "$ROOT/conf/lmConf-1.json" "$W" "$LP" <<'EOF'
import json, sys
conf_file, w, lp = sys.argv[1], sys.argv[2], sys.argv[3]
site = {
    "locationRules": {"app.example.com": {"^/admin": "inGroup(\"timelords\")", "default": "accept"}},
    "exportedHeaders": {"app.example.com": {"Auth-User": "$uid", "Auth-Mail": "$mail"}},
    "vhostOptions": {"app.example.com": {"vhostPort": 80}},
}
ours = json.load(open(conf_file))
ours.update(site)
ours["portal"] = f"http://127.0.0.1:{lp}/"
import os
os.makedirs(f"{w}/limette/conf"); os.makedirs(f"{w}/llng/conf"); os.makedirs(f"{w}/llng/locks")
json.dump(ours, open(f"{w}/limette/conf/lmConf-1.json", "w"))
theirs = json.load(open("/var/lib/lemonldap-ng/conf/lmConf-1.json"))
theirs.update(site)
theirs.update({
    "cfgNum": 1, "portal": f"http://127.0.0.1:{lp}/", "cookieName": "lemonldap", "securedCookie": 0,
    "globalStorage": "Apache::Session::File", "localSessionStorage": "",
    "globalStorageOptions": {"Directory": f"{w}/sessions", "LockDirectory": f"{w}/llng/locks"},
    "whatToTrace": "uid", "timeout": 72000,
})
json.dump(theirs, open(f"{w}/llng/conf/lmConf-1.json", "w"))
EOF

cat >"$W/limette/limette.ini" <<EOF
[all]
logLevel = error
[configuration]
type = File
dirName = $W/limette/conf
[portal]
globalStorage = File
globalStorageOptions = {"Directory": "$W/sessions"}
persistentStorage = File
persistentStorageOptions = {"Directory": "$W/psessions"}
maxConnectionsPerAddress = 1024
EOF
spawn limette "$BIN" -c "$W/limette/limette.ini" --data "$W/limette" -l "127.0.0.1:$LP"
wait_port "$LP" limette
SID=$(curl -s -H 'Accept: application/json' -d user=dwho -d password=dwho "http://127.0.0.1:$LP/" |
  sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
[ -n "$SID" ] || { echo "bench-handler: no session" >&2; exit 1; }
chmod -R a+rwX "$W/sessions"

cat >"$W/llng/lemonldap-ng.ini" <<EOF
[all]
logLevel = error
[configuration]
type = File
dirName = $W/llng/conf
[handler]
status = 0
EOF
chown -R "$RUN_AS:$RUN_AS" "$W/llng"
LLNG_DEFAULTCONFFILE="$W/llng/lemonldap-ng.ini" LLNG_DEFAULTLOGGER=Lemonldap::NG::Common::Logger::Std \
  spawn llng llng-fastcgi-server --foreground -u "$RUN_AS" -g "$RUN_AS" -n 2 -s "$W/llng/llng.sock" -p "$W/llng/llng.pid"
for _ in $(seq 600); do [ -S "$W/llng/llng.sock" ] && break; sleep 0.1; done

# nginx: the application, and the shipped protection twice (the second asks LemonLDAP::NG).
python3 - "$ROOT/conf/nginx-protect.conf" "$W" "$LP" "$AP" "$NO" "$NL" "$NP" <<'EOF'
import re, sys
src, w, lp, ap, no, nl, np = sys.argv[1:]
text = open(src).read()
def ported(t, listen, handler):
    for a, b in (("listen 80;", f"listen 127.0.0.1:{listen};"),
                 ("server 127.0.0.1:8080;", f"server 127.0.0.1:{handler};"),
                 ("proxy_pass http://127.0.0.1:8081;", f"proxy_pass http://127.0.0.1:{ap};")):
        assert t.count(a) == 1, a
        t = t.replace(a, b)
    return t
ours = ported(text, no, lp)
fastcgi = f"""location = /lmauth {{
        internal;
        include /etc/nginx/fastcgi_params;
        fastcgi_pass unix:{w}/llng/llng.sock;
        fastcgi_pass_request_body off;
        fastcgi_param CONTENT_LENGTH "";
        fastcgi_param HOST $http_host;
        fastcgi_param X_ORIGINAL_URI $original_uri;
    }}"""
theirs = re.sub(r"location = /lmauth \{.*?\n    \}", lambda m: fastcgi, ported(text, nl, lp), count=1, flags=re.S)
theirs = theirs.replace("limette_handler", "limette_handler_unused")
app = f"server {{ listen 127.0.0.1:{ap}; location / {{ return 200 \"ok\\n\"; }} }}\n"
# The same way to the application, without asking anyone: the ceiling of both.
bare = f"server {{ listen 127.0.0.1:{np}; location / {{ proxy_pass http://127.0.0.1:{ap}; }} }}\n"
open(f"{w}/sites.conf", "w").write(app + bare + ours + theirs)
open(f"{w}/nginx.conf", "w").write(f"""daemon off;
user www-data;
worker_processes auto;
pid {w}/nginx.pid;
error_log {w}/nginx-error.log;
events {{ worker_connections 1024; }}
http {{
  access_log off;
  client_body_temp_path {w}/temp-body;
  proxy_temp_path {w}/temp-proxy;
  fastcgi_temp_path {w}/temp-fastcgi;
  uwsgi_temp_path {w}/temp-uwsgi;
  scgi_temp_path {w}/temp-scgi;
  include {w}/sites.conf;
}}
""")
EOF
spawn nginx nginx -p "$W" -c "$W/nginx.conf"
wait_port "$NL" nginx

# Each row answers what it should before it is measured.
check() {
  local label=$1 want=$2; shift 2
  local got; got=$(curl -s -o /dev/null -w '%{http_code}' "$@")
  [ "$got" = "$want" ] || { echo "bench-handler: $label answered $got, not $want" >&2; cat "$W/llng.out" "$W/nginx-error.log" >&2; exit 1; }
}
C="Cookie: lemonldap=$SID"
check "nginx alone" 200 "http://127.0.0.1:$NP/"
check "Limette behind nginx" 200 -H "Host: $HOST" -H "$C" "http://127.0.0.1:$NO/"
check "Limette behind nginx, no cookie" 302 -H "Host: $HOST" "http://127.0.0.1:$NO/"
check "LemonLDAP::NG behind nginx" 200 -H "Host: $HOST" -H "$C" "http://127.0.0.1:$NL/"
check "LemonLDAP::NG behind nginx, no cookie" 302 -H "Host: $HOST" "http://127.0.0.1:$NL/"
check "Limette's /lmauth" 200 -H "Host: $HOST" -H "X-Original-URI: /" -H "$C" "http://127.0.0.1:$LP/lmauth"

row() {
  local label=$1 url=$2; shift 2
  local out; out=$(wrk -t"$WT" -c"$CONNS" -d"${DUR}s" --latency "$@" "$url")
  local rps p50 p99 bad
  rps=$(awk '/^Requests\/sec:/ { printf "%d", $2 }' <<<"$out")
  p50=$(awk '$1 == "50%" { print $2 }' <<<"$out")
  p99=$(awk '$1 == "99%" { print $2 }' <<<"$out")
  bad=$(awk '/Non-2xx or 3xx/ { print $NF }' <<<"$out")
  echo "| $label | $rps | $p50 | $p99 | ${bad:-0} |"
  ROW_RPS=$rps
}
echo "# The handler endpoint beside LemonLDAP::NG's handler, behind nginx"
echo
echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); $(nproc) cores; wrk $WT threads, $CONNS connections, ${DUR} s a row"
echo "- Limette: $BIN; LemonLDAP::NG: $(dpkg-query -W -f '${Version}' liblemonldap-ng-handler-perl 2>/dev/null || echo '?'), llng-fastcgi-server with 2 processes"
echo
echo "| row | req/s | p50 | p99 | non-2xx/3xx |"
echo "| --- | ---: | ---: | ---: | ---: |"
row "nginx to the application, no authorization (the ceiling)" "http://127.0.0.1:$NP/"
row "nginx + Limette's /lmauth (HTTP), valid session" "http://127.0.0.1:$NO/" -H "Host: $HOST" -H "$C"
row "nginx + LemonLDAP::NG's handler (FastCGI), valid session" "http://127.0.0.1:$NL/" -H "Host: $HOST" -H "$C"
row "Limette's /lmauth asked directly, valid session" "http://127.0.0.1:$LP/lmauth" -H "Host: $HOST" -H "X-Original-URI: /" -H "$C"
