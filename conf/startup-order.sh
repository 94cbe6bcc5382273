#!/usr/bin/env bash
# Writes conf/startup-order.txt, the functions that conf/link-gcc places first in the release
# builds (`make startup-order`; run it again after a new compiler or new dependencies, or when
# `make bench`'s idle RSS grows while its anonymous part does not).
#
# It builds the static and the glibc binaries, keeps a copy of each with its symbols
# (target/layout), then runs each twice under valgrind's callgrind, which records every
# function that runs:
#   1. start-up, a first answer (GET /) and two idle seconds: what an idle Limette has run;
#   2. the same, then a JSON login, the portal with the session's cookie, the REST session and
#      configuration reads, the OpenID Connect code flow and userinfo: the functions of the
#      common requests, placed right after.
# Names are kept as the demangler prints them, with the hashes that tell a generic function's
# copies apart; conf/link-gcc matches a name whose hash has changed (another compiler, another
# dependency) by the name alone. The list is layout only: a stale or empty list gives a
# correct binary with its code in the compiler's order.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v valgrind >/dev/null || { apt-get update -qq && apt-get install -y -qq valgrind >/dev/null; }
command -v c++filt >/dev/null || { apt-get update -qq && apt-get install -y -qq binutils >/dev/null; }

# Both release builds, as `make static` and `make build` make them, each linked a second time
# with its symbols (conf/link-gcc). The hashes in the names depend on the target and on
# Cargo's profile, so the list holds the names of each build, taken from the builds
# themselves. Touching the list has Cargo link them again (build.rs).
layout=$PWD/target/layout
rm -rf "$layout"
touch conf/startup-order.txt
LIMETTE_LINK_SYMBOLS=$layout/static make -s static >/dev/null
touch conf/startup-order.txt
LIMETTE_LINK_SYMBOLS=$layout/glibc make -s build >/dev/null
builds=("$(ls "$layout"/static/limette-*)" "$(ls "$layout"/glibc/limette-*)")
bin=${builds[0]}

work=$(mktemp -d "${TMPDIR:-/tmp}/limette-layout.XXXXXX")
pid=""
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/conf"
cp conf/lmConf-1.json "$work/conf/"
cat >"$work/limette.ini" <<EOF
[all]
logLevel = notice
[configuration]
type = File
dirName = $work/conf
[portal]
globalStorage = File
globalStorageOptions = {"Directory": "$work/sessions"}
persistentStorage = File
persistentStorageOptions = {"Directory": "$work/psessions"}
maxConnectionsPerAddress = 1024
restSessionServer = 1
restConfigServer = 1
notificationServer = 1
notificationServerDELETE = 1
EOF
# Relying parties signing with RS256 and ES256 besides demo's HS512, as in the bench: their
# keys are generated at the first start (not traced) and read at every start after.
args=()
for alg in RS256 ES256; do
  k="oidcRPMetaDataOptions/demo-$alg"
  args+=("$k" oidcRPMetaDataOptionsClientID "demo-$alg" "$k" oidcRPMetaDataOptionsClientSecret demosecret
    "$k" oidcRPMetaDataOptionsRedirectUris http://127.0.0.1:9999/cb "$k" oidcRPMetaDataOptionsIDTokenSignAlg "$alg")
done
"$bin" -c "$work/limette.ini" --data "$work" config -yes 1 addKey "${args[@]}" >/dev/null 2>&1

# serve [callgrind options]: starts Limette (under callgrind when options are given), sets
# pid and base.
serve() {
  : >"$work/out"
  if [ $# -gt 0 ]; then
    valgrind --tool=callgrind --demangle=no --compress-strings=no "$@" \
      "$bin" -c "$work/limette.ini" --data "$work" -l 127.0.0.1:0 >"$work/out" 2>"$work/err" &
  else
    "$bin" -c "$work/limette.ini" --data "$work" -l 127.0.0.1:0 >"$work/out" 2>"$work/err" &
  fi
  pid=$!
  local port=""
  for _ in $(seq 1 1200); do
    port=$(sed -n 's/.*listening on http:\/\/[0-9.]*:\([0-9]*\).*/\1/p' "$work/out" | head -1)
    [ -n "$port" ] && break
    sleep 0.1
  done
  [ -n "$port" ] || { echo "startup-order: Limette did not start" >&2; cat "$work/err" >&2; exit 1; }
  base=http://127.0.0.1:$port
  curl -s -o /dev/null "$base/"
}
finish() { kill "$pid"; wait "$pid" || true; pid=""; }
# names FILE: the functions of a callgrind profile, demangled, first seen first. Functions it
# names by address (assembly without symbol sizes: musl's memcpy, memset, clone) are named
# from the binary's symbols; "(below main)" is musl's __libc_start_main.
names() {
  sed -n -E 's/^c?fn=//p' "$1" | sed -E "s/'[0-9]+$//" | awk '!seen[$0]++' |
    while IFS= read -r name; do
      case $name in
        0x*) addr2line -f -e "$bin" "$name" | head -1 | grep -v '^??$' || true ;;
        "(below main)") echo __libc_start_main ;;
        *) echo "$name" ;;
      esac
    done | c++filt | awk '!seen[$0]++'
}

# variants BINARY LIST: what valgrind's CPU cannot run. It has no SHA extensions, so sha2 runs
# its portable compression there and its x86 one on the machine: each such family that ran
# (a name of it in LIST) has its x86 functions listed too.
variants() {
  nm -p --defined-only "$1" | awk '$2 ~ /^[tTwW]$/ { print $3 }' | c++filt |
    grep -E '^sha2::sha(256|512)::x86::' | while IFS= read -r name; do
      if grep -q "^${name%%::x86::*}::" "$2"; then echo "$name"; fi
    done
}

serve   # the keys' first start
finish
for i in 0 1; do
  bin=${builds[$i]}
  serve --callgrind-out-file="$work/startup-$i.cg"
  sleep 2.5 # an idle second or two: the configuration's reload check runs each second
  finish
  serve --callgrind-out-file="$work/requests-$i.cg"
  sid=$(curl -s -H 'Accept: application/json' -d user=dwho -d password=dwho "$base/" |
    sed -n 's/.*"id":"\([0-9a-f]*\)".*/\1/p')
  [ -n "$sid" ] || { echo "startup-order: the login failed" >&2; exit 1; }
  curl -s -o /dev/null -H "Cookie: lemonldap=$sid" "$base/"
  curl -s -o /dev/null "$base/sessions/global/$sid"
  curl -s -o /dev/null "$base/config/latest"
  cb=http://127.0.0.1:9999/cb
  code=$(curl -s -o /dev/null -w '%{redirect_url}' -H "Cookie: lemonldap=$sid" \
    "$base/oauth2/authorize?response_type=code&client_id=demo&scope=openid+profile+email&redirect_uri=http%3A%2F%2F127.0.0.1%3A9999%2Fcb&state=s" |
    sed -n 's/.*[?&]code=\([^&]*\).*/\1/p')
  token=$(curl -s -u demo:demosecret -d grant_type=authorization_code -d "code=$code" \
    --data-urlencode "redirect_uri=$cb" "$base/oauth2/token" |
    sed -n 's/.*"access_token":"\([^"]*\)".*/\1/p')
  [ -n "$token" ] || { echo "startup-order: the code flow gave no access token" >&2; exit 1; }
  curl -s -o /dev/null -H "Authorization: Bearer $token" "$base/oauth2/userinfo"
  finish
  names "$work/startup-$i.cg" >"$work/startup-$i"
  variants "$bin" "$work/startup-$i" >>"$work/startup-$i"
  names "$work/requests-$i.cg" >"$work/requests-$i"
  variants "$bin" "$work/requests-$i" >>"$work/requests-$i"
done

out=conf/startup-order.txt
{
  echo "# The functions conf/link-gcc places first: start-up and a first answer, then the common"
  echo "# requests (login, portal, REST reads, code flow, userinfo), on the static build and on"
  echo "# the glibc build. Made by \`make startup-order\`."
  cat "$work/startup-0" "$work/startup-1" | awk '!seen[$0]++'
  echo "# The requests' functions that start-up did not run."
  cat "$work/startup-0" "$work/startup-1" >"$work/first"
  cat "$work/requests-0" "$work/requests-1" | awk 'NR == FNR { seen[$0] = 1; next } !seen[$0]++' "$work/first" -
} >"$out.tmp"
mv "$out.tmp" "$out"
echo "startup-order: $(grep -vc '^#' "$out") functions in $out"
