#!/bin/sh
# Headless Chromium and its driver, for the browser test of the notification pages
# (tests/browser/notif_flow.py names both by their Debian paths; Selenium itself lives in the
# tests' Python virtual environment, see python-venv.sh).
set -eu
. "$(dirname "$0")/need"
need_file /usr/bin/chromium chromium
need_file /usr/bin/chromedriver chromium-driver
need_install
