#!/bin/sh
# The sessions tests check the __secret cipher against openssl's command line.
set -e
if ! command -v openssl >/dev/null 2>&1; then
    "$(dirname "$0")/apt-need" openssl
fi
