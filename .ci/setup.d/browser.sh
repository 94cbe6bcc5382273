#!/usr/bin/env bash
# Headless Chromium, its driver and Selenium, for the browser test of the notification pages.
set -euo pipefail
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null
fi
python3 -c 'import selenium' 2>/dev/null || python3 -m pip install -q selenium
