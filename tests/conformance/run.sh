#!/usr/bin/env bash
# make conformance: the OpenID Foundation's OP test tool (PyPI oidctest 0.8.2) against a release
# build of Limette, on loopback only, then the project's own logout checks
# (tests/conformance/checks/*.py, or tests/conformance/logout_checks.py). Writes
# target/conformance/summary.md; exits 0 only when every applicable test passes.
#
# The tool's test definitions (its `flows` directory, JSON, one file a test) are not in its PyPI
# package: they live in the tool's source tree, test_tool/cp/test_op/flows. OIDCTEST_FLOWS
# names that directory (default: target/conformance/flows).
#
# Environment: OIDCTEST_FLOWS (the definitions), CONFORMANCE_SUBSET (all, or ci: the part CI
# runs), CONFORMANCE_JOBS (tool instances at once, default 4), LIMETTE_BIN (a binary to test
# instead of building target/release/limette), CONFORMANCE_OUT (default target/conformance),
# CONFORMANCE_VENV, PYTHON.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${CONFORMANCE_OUT:-target/conformance}
VENV=${CONFORMANCE_VENV:-target/conformance-venv}
FLOWS=${OIDCTEST_FLOWS:-$OUT/flows}
PY=${PYTHON:-python3}
SUBSET=${CONFORMANCE_SUBSET:-all}
JOBS=${CONFORMANCE_JOBS:-4}

if ! ls "$FLOWS"/OP-*.json >/dev/null 2>&1; then
  echo "conformance: no test definitions in $FLOWS (OP-*.json)." >&2
  echo "  They are not in the oidctest package: point OIDCTEST_FLOWS at the tool's" >&2
  echo "  test_tool/cp/test_op/flows (release 0.8.2)." >&2
  exit 2
fi

# The tool's pinned packages import names newer Pythons removed: tool_compat.py puts them back
# for tool_server.py and for this check, so a ready environment is seen as ready (Python 3.11).
ready_check='
import sys
sys.path.insert(0, "tests/conformance")
import tool_compat
import importlib.metadata as m
assert m.version("oidctest") == "0.8.2"
import oidctest, otest, oic, cherrypy, requests, urllib3
'
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "$ready_check" 2>/dev/null; then
  echo "conformance: making $VENV with oidctest 0.8.2"
  rm -rf "$VENV"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    oidctest==0.8.2 otest==0.7.8 oic==0.15.1 CherryPy==8.9.1 requests cryptography
  "$VENV/bin/python" -c "$ready_check"
fi

if [ -n "${LIMETTE_BIN:-}" ]; then
  BIN=$LIMETTE_BIN
else
  cargo build --release --bin limette
  BIN=target/release/limette
fi
mkdir -p "$OUT"
status=0
"$VENV/bin/python" tests/conformance/conformance.py \
  --limette "$BIN" --python "$VENV/bin/python" --subset "$SUBSET" --jobs "$JOBS" \
  --work "$OUT/run" --flows "$(cd "$FLOWS" && pwd)" --summary "$OUT/summary.md" "$@" \
  || status=$?

# The logout profiles the tool cannot judge: the project's own checks, each a script that
# starts a Limette of its own from BIN, prints one `RESULT <profile> <check> PASSED|FAILED
# <section>: <what was seen>` line a check and exits non-zero on a failure. They run on the
# tests' Python (Selenium, Authlib: target/venv, made by make test-tools), not the tool's.
# Their verdicts are added to the summary.
CHECK_PY=${LIMETTE_TEST_PYTHON:-target/venv/bin/python3}
checks=()
if [ -x tests/conformance/logout_checks.py ]; then
  checks=(tests/conformance/logout_checks.py)
else
  for c in tests/conformance/checks/*.py; do
    [ -x "$c" ] && checks+=("$c")
  done
fi
# Tests the tool left to the own checks pass only through them: none present is a failure.
own=$(awk -F'\t' '$5 == "own check"' "$OUT/summary.tsv" 2>/dev/null | wc -l)
if [ "$own" -gt 0 ] && [ ${#checks[@]} -eq 0 ]; then
  echo "conformance: $own tests are left to the project's own logout checks, and there are none" >&2
  echo "- $own tests left to the own checks, and no check to run: FAILED" >>"$OUT/summary.md"
  status=1
fi
if [ ${#checks[@]} -gt 0 ]; then
  {
    echo
    echo "## The project's own checks (logout profiles the tool cannot judge)"
    echo
  } >>"$OUT/summary.md"
  for c in "${checks[@]}"; do
    name=$(basename "$c" .py)
    log="$OUT/check-$name.log"
    cstatus=0
    LIMETTE_BIN="$BIN" "$CHECK_PY" "$c" --limette "$BIN" >"$log" 2>&1 || cstatus=$?
    passed=$(grep -c '^RESULT [^ ]* [^ ]* PASSED' "$log" || true)
    failed=$(grep -c '^RESULT [^ ]* [^ ]* FAILED' "$log" || true)
    if [ "$cstatus" != 0 ] || [ "$failed" != 0 ]; then
      status=1
      verdict=FAILED
    else
      verdict=passed
    fi
    echo "- \`$name\`: $verdict ($passed passed, $failed failed, exit $cstatus; $log)" \
      >>"$OUT/summary.md"
    grep '^RESULT [^ ]* [^ ]* FAILED' "$log" | sed 's/^/  - /' >>"$OUT/summary.md" || true
    echo "conformance: check $name: $verdict ($passed passed, $failed failed)"
  done
fi
exit "$status"
