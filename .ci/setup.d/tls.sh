#!/bin/sh
# The TLS test (tests/suite/tls/) puts the distribution's nginx, with conf/nginx-tls.conf, in front
# of Limette and makes a throw-away certificate with openssl; it starts its own nginx on
# loopback in a temp folder and never uses the system service. Idempotent.
set -eu
. "$(dirname "$0")/need"
need_cmd nginx nginx
need_cmd openssl openssl
need_install
