#!/usr/bin/env bash
# axe-core, the accessibility checker the browser test of every page injects
# (tests/browser/pages.py), from the npm registry into target/axe (LIMETTE_AXE_DIR), with the
# distribution's Node.js and npm. Installed once; the test finds axe.min.js there.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${LIMETTE_AXE_DIR:-$root/target/axe}
need=()
command -v node >/dev/null 2>&1 || need+=(nodejs)
command -v npm >/dev/null 2>&1 || need+=(npm)
[ ${#need[@]} -eq 0 ] || "$(dirname "$0")/apt-need" "${need[@]}"
[ -f "$dir/node_modules/axe-core/axe.min.js" ] && exit 0
echo "setup: axe-core 4 into $dir (npm install)"
mkdir -p "$dir"
npm install --silent --no-audit --no-fund --prefix "$dir" axe-core@4
[ -f "$dir/node_modules/axe-core/axe.min.js" ]
