#!/bin/sh
# The TLS test (tests/tls/) puts the distribution's nginx, with conf/nginx-tls.conf, in front
# of Limette and makes a throw-away certificate with openssl; it starts its own nginx on
# loopback in a temp folder and never uses the system service. Idempotent.
set -eu
need=""
for pair in nginx:/usr/sbin/nginx openssl:/usr/bin/openssl; do
    pkg=${pair%%:*}
    file=${pair#*:}
    [ -e "$file" ] || need="$need $pkg"
done
if [ -n "$need" ]; then
    # shellcheck disable=SC2086
    "$(dirname "$0")/apt-need" $need
fi
