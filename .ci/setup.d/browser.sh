#!/usr/bin/env bash
# Headless Chromium and its driver, for the browser test of the notification pages
# (tests/browser/notif_flow.py names both by their Debian paths; Selenium itself lives in the
# tests' Python virtual environment, see python-venv.sh).
set -euo pipefail
need=()
[ -x /usr/bin/chromium ] || need+=(chromium)
[ -x /usr/bin/chromedriver ] || need+=(chromium-driver)
[ ${#need[@]} -eq 0 ] || "$(dirname "$0")/apt-need" "${need[@]}"
