#!/bin/sh
# tests/suite/docs/ runs the README's commands as written: they call curl through sh.
set -eu
. "$(dirname "$0")/need"
need_cmd curl curl
need_install
