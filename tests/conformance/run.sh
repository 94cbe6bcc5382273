#!/usr/bin/env bash
# make conformance: the OpenID Foundation's OP test tool (PyPI oidctest 0.8.2) against a release
# build of Limette, on loopback only. Writes target/conformance/summary.txt; exits non-zero when
# a test that applies fails. Not part of `make test` nor of CI (see docs/oidc.md, Conformance).
#
# The tool's test definitions (its `flows` directory, JSON, one file a test) are not in its PyPI
# package: they live in the tool's source tree, test_tool/cp/test_op/flows. Point
# OIDCTEST_FLOWS at a copy of that directory (default: target/conformance/flows).
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=target/conformance
VENV=${CONFORMANCE_VENV:-target/conformance-venv}
FLOWS=${OIDCTEST_FLOWS:-$OUT/flows}
PY=${PYTHON:-python3}

if ! ls "$FLOWS"/OP-*.json >/dev/null 2>&1; then
  echo "conformance: no test definitions in $FLOWS (OP-*.json)." >&2
  echo "  They are not in the oidctest package: copy test_tool/cp/test_op/flows from the" >&2
  echo "  tool's source tree (release 0.8.2 or later) there, or set OIDCTEST_FLOWS." >&2
  exit 2
fi

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import oidctest, otest' 2>/dev/null; then
  echo "conformance: making $VENV with oidctest 0.8.2"
  "$PY" -m venv "$VENV"
  "$VENV/bin/pip" install -q --disable-pip-version-check \
    oidctest==0.8.2 otest==0.7.8 oic==0.15.1 CherryPy==8.9.1 requests cryptography
fi

cargo build --release --bin limette
mkdir -p "$OUT"
exec "$VENV/bin/python" tests/conformance/conformance.py \
  --limette target/release/limette --python "$VENV/bin/python" \
  --work "$OUT/run" --flows "$(cd "$FLOWS" && pwd)" --summary "$OUT/summary.txt" "$@"
