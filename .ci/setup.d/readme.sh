#!/bin/sh
# tests/readme.rs runs the README's commands as written: they call curl through sh.
set -e
if ! command -v curl >/dev/null 2>&1; then
    "$(dirname "$0")/apt-need" curl
fi
