#!/bin/sh
# The sessions tests check the __secret cipher against openssl's command line.
set -eu
. "$(dirname "$0")/need"
need_cmd openssl openssl
need_install
