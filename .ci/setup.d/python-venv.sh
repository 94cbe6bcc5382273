#!/usr/bin/env bash
# The Python virtual environment of the tests that run Python: Selenium for the browser test
# (tests/browser/notif_flow.py) and Authlib + requests for the independent relying party
# (tests/oidc_rp.py), prometheus_client for the metrics test (tests/console). It lives at
# $LIMETTE_VENV (the Makefile passes target/venv), built with the system's python3 and filled
# from PyPI with tests/browser/requirements.txt; it is rebuilt only when that file changes. The tests find it through LIMETTE_TEST_PYTHON (set by make test).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
venv=${LIMETTE_VENV:-$root/target/venv}
reqs=$root/tests/browser/requirements.txt
if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  "$(dirname "$0")/apt-need" python3 python3-venv
fi
if [ -x "$venv/bin/python3" ] && cmp -s "$reqs" "$venv/.limette-requirements" \
  && "$venv/bin/python3" -c 'import selenium, authlib, requests, prometheus_client' 2>/dev/null; then
  exit 0
fi
echo "setup: Python virtual environment $venv (pip install -r tests/browser/requirements.txt)"
[ -x "$venv/bin/python3" ] || python3 -m venv "$venv"
PIP_ROOT_USER_ACTION=ignore "$venv/bin/python3" -m pip install --quiet --disable-pip-version-check -r "$reqs"
"$venv/bin/python3" -c 'import selenium, authlib, requests, prometheus_client'
cp "$reqs" "$venv/.limette-requirements"
